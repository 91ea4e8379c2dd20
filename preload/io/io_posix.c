/*
 * io_posix.c - the POSIX calls of the I/O capture (format/calls_io.def,
 * paradigm POSIX): at entry, which descriptor or path the call names and
 * whether it is one scope follows (a regular file outside the excluded
 * folders, or a standard stream), and where its data goes (the offset it
 * names, else the descriptor's position as followed); at exit, the bytes
 * it returned, the descriptor's new position and state (an open, a close,
 * a copy), and its data record.
 *
 * A call on a descriptor scope does not follow (a socket, a pipe, the MPI
 * library's shared memory) is skipped at entry: not timed, one load.
 * The bytes are what the call returned, summed by the reader in 64 bits:
 * a write of 3 GiB is counted as the 2 GiB - 4 KiB Linux writes at most
 * per call, and the rest as the calls that write it.
 *
 * The reads and writes of a descriptor take a path of their own,
 * io_data.h, with the same rules.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "io_data.h"
#include "io_files.h"
#include "io_state.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC 4
#endif

/* The descriptor a *at call names by dirfd and path: dirfd itself for an
 * empty path (AT_EMPTY_PATH), else none. */
static int empty_path_fd(const char *path, int64_t dirfd)
{
    return path && !path[0] ? (int)dirfd : -1;
}

/* 1 when a path the call names is relative to the working folder or
 * absolute (dirfd AT_FDCWD, or none), so that it names the file alone. */
static int plain_path(int call, uint64_t *saved, uintptr_t *slot, const char *path)
{
    int64_t dirfd = (int64_t)(int32_t)scope__io_role(call, SCOPE_ARG_dirfd, saved, slot, AT_FDCWD);
    return path && (path[0] == '/' || dirfd == AT_FDCWD);
}

int scope__io_posix_enter(int call, uint64_t *saved, uintptr_t *slot)
{
    const struct scope_call_row *c = &scope_calls[call];
    struct scope__io_frame *f = scope__io_next();
    int64_t fd = (int64_t)(int32_t)scope__io_role(call, SCOPE_ARG_fd, saved, slot, (uint64_t)-1);
    const char *path = (const char *)(uintptr_t)scope__io_role(call, SCOPE_ARG_path, saved, slot, 0);
    f->fd = (int32_t)fd;
    f->row = -1;
    f->offset = SCOPE_IO_POS_UNKNOWN;
    f->a = (uint64_t)(uintptr_t)path;
    f->b = 0;       /* a frame is reused: a stat by descriptor has no buffer to read */
    f->n = 0;
    f->aux = 0;
    switch (c->cls) {
    case SCOPE_CC_IO_FDS:
        /* close_range(lo, hi, flags), closefrom(lo): never timed */
        if (call == SCOPE_CALL_closefrom)
            scope__io_fd_range_closed((uint64_t)fd, UINT64_MAX);
        else if (!(scope__io_role(call, SCOPE_ARG_flags, saved, slot, 0) & CLOSE_RANGE_CLOEXEC))
            scope__io_fd_range_closed((uint32_t)fd,
                                      (uint32_t)scope__io_role(call, SCOPE_ARG_newfd, saved, slot, 0));
        return 0;
    case SCOPE_CC_IO_OPEN:
        /* a file of an excluded folder is never recorded; a relative one
         * is told at exit, from the descriptor */
        if (!path || scope__io_path_excluded(path))
            return 0;
        f->aux = (int32_t)scope__io_role(call, SCOPE_ARG_flags, saved, slot, 0);
        if (call == SCOPE_CALL_creat || call == SCOPE_CALL_creat64)
            f->aux = O_CREAT | O_WRONLY | O_TRUNC;
        break;
    case SCOPE_CC_IO_STAT:
        if (path && !path[0])
            fd = f->fd = empty_path_fd(path, (int64_t)(int32_t)scope__io_role(
                                                 call, SCOPE_ARG_dirfd, saved, slot, 0));
        if (fd >= 0) {
            if ((f->row = scope__io_fd_row(fd)) < 0)
                return 0;
            break;
        }
        if (!plain_path(call, saved, slot, path) || scope__io_path_excluded(path))
            return 0;
        f->b = scope__io_role(call, SCOPE_ARG_statbuf, saved, slot, 0);
        break;
    case SCOPE_CC_IO_META:
        if (fd >= 0) {      /* ftruncate */
            if ((f->row = scope__io_fd_row(fd)) < 0)
                return 0;
            break;
        }
        /* rename, unlink: the file is known before the call takes its name
         * (its device and inode kept: after the call they may be another's) */
        if (!plain_path(call, saved, slot, path) || scope__io_path_excluded(path))
            return 0;
        struct stat st;
        if (lstat(path, &st) != 0 || (f->row = scope__io_path_row(path, &st, 1,
                                                                   SCOPE_PARADIGM_POSIX)) < 0)
            return 0;
        f->n = (int64_t)st.st_dev;
        f->b = (uint64_t)st.st_ino;
        break;
    case SCOPE_CC_IO_DUP: {
        int64_t newfd = (int64_t)(int32_t)scope__io_role(call, SCOPE_ARG_newfd, saved, slot, (uint64_t)-1);
        if (call == SCOPE_CALL_fcntl || call == SCOPE_CALL_fcntl64) {
            int cmd = (int)scope__io_role(call, SCOPE_ARG_cmd, saved, slot, 0);
            if (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC)
                return 0;
            newfd = -1;     /* the result, not the argument */
        }
        f->aux = (int32_t)newfd;
        if ((f->row = scope__io_fd_row(fd)) < 0) {
            /* an untracked descriptor copied over one: looked at again
             * at its next use */
            if (newfd >= 0 && newfd != fd)
                scope__io_fd_closed((int)newfd);
            return 0;
        }
        break;
    }
    case SCOPE_CC_IO_MMAP: {
        int flags = (int)scope__io_role(call, SCOPE_ARG_flags, saved, slot, 0);
        if (fd < 0 || (flags & MAP_ANONYMOUS) || (f->row = scope__io_fd_row(fd)) < 0)
            return 0;
        f->offset = (int64_t)scope__io_role(call, SCOPE_ARG_offset, saved, slot, 0);
        f->n = (int64_t)scope__io_role(call, SCOPE_ARG_nbytes, saved, slot, 0);
        break;
    }
    case SCOPE_CC_IO_CLOSE: {
        /* a descriptor scope never followed is just forgotten */
        struct scope__io_fd *e = scope__io_fd(fd);
        if (!e)
            return 0;
        uint32_t st = atomic_load_explicit(&e->state, memory_order_relaxed);
        if (st < SCOPE_IO_FD_ROW0 && fd > 2) {
            scope__io_fd_closed((int)fd);
            return 0;
        }
        if ((f->row = scope__io_fd_row(fd)) < 0)
            return 0;
        break;
    }
    default: {
        /* data, seek, sync: a descriptor's calls */
        struct scope__io_fd *e = scope__io_fd(fd);
        if (!e || (f->row = scope__io_fd_row(fd)) < 0)
            return 0;
        if (c->io & SCOPE_IOF_AT)
            f->offset = (int64_t)scope__io_role(call, SCOPE_ARG_offset, saved, slot, 0);
        else if (c->cls == SCOPE_CC_IO_SEEK)
            f->aux = (int32_t)scope__io_role(call, SCOPE_ARG_whence, saved, slot, 0);
        else if (c->cls == SCOPE_CC_IO_READ || c->cls == SCOPE_CC_IO_WRITE)
            f->offset = scope__io_pos(e, 0);
        break;
    }
    }
    scope__io_push(call, SCOPE_PARADIGM_POSIX, 0);
    return 1;
}

void scope__io_posix_exit(uint64_t ret)
{
    struct scope__io_frame *f = scope__io_top();
    const struct scope_call_row *c = &scope_calls[f->call];
    /* read, write and lseek return 64 bits (ssize_t, off_t), mmap a
     * pointer, the others an int (rax's upper half is not theirs) */
    int wide = c->cls == SCOPE_CC_IO_READ || c->cls == SCOPE_CC_IO_WRITE ||
               c->cls == SCOPE_CC_IO_SEEK || c->cls == SCOPE_CC_IO_MMAP;
    int64_t r = wide ? (int64_t)ret : (int64_t)(int32_t)ret;
    int failed = c->cls == SCOPE_CC_IO_MMAP ? ret == (uint64_t)(uintptr_t)MAP_FAILED : r == -1;
    int64_t bytes = 0, offset = f->offset;
    int32_t row = f->row;
    struct scope__io_fd *e = scope__io_fd(f->fd);
    /* issued by: decided before this frame leaves (an open inside fopen) */
    scope__io_pop();
    int issuer = scope__io_posix_issuer(f->fd);
    switch (c->cls) {
    case SCOPE_CC_IO_READ:
    case SCOPE_CC_IO_WRITE:
        if (failed)
            break;
        bytes = r;
        if (e && !(c->io & SCOPE_IOF_AT)) {
            /* an append goes to the end: where the writes so far left it */
            scope__io_set_pos(e, 0, offset >= 0 ? offset + bytes : SCOPE_IO_POS_UNKNOWN);
        }
        if (c->cls == SCOPE_CC_IO_READ && issuer == SCOPE_PARADIGM_STDIO)
            scope__io_stdio_inner(f->fd, bytes);
        break;
    case SCOPE_CC_IO_OPEN:
        /* the name as the program gave it: for mkstemp, the name made */
        if (!failed)   /* a directory, a FIFO: untracked, the call without a file */
            row = scope__io_opened((int)r, (const char *)(uintptr_t)f->a,
                                   issuer ? issuer : SCOPE_PARADIGM_POSIX, f->aux);
        break;
    case SCOPE_CC_IO_CLOSE:
        if (!failed || f->fd > 2)
            scope__io_fd_closed(f->fd);
        break;
    case SCOPE_CC_IO_SEEK:
        offset = failed ? SCOPE_IO_POS_UNKNOWN : r;
        if (e && !failed)
            scope__io_set_pos(e, 0, r);
        break;
    case SCOPE_CC_IO_MMAP:
        bytes = failed ? 0 : f->n;
        break;
    case SCOPE_CC_IO_DUP:
        if (!failed)
            scope__io_fd_copied(f->fd, (int)r);
        break;
    case SCOPE_CC_IO_META:
        if (!failed && f->fd < 0) {     /* removed, or moved away from its name */
            struct stat st = { .st_dev = (dev_t)f->n, .st_ino = (ino_t)f->b };
            scope__io_file_gone(&st);
        }
        break;
    case SCOPE_CC_IO_STAT:
        if (f->b && !failed)    /* by path: the file the buffer describes */
            row = scope__io_path_row((const char *)(uintptr_t)f->a,
                                     f->call == SCOPE_CALL_statx ? NULL
                                                                 : (const struct stat *)(uintptr_t)f->b,
                                     (c->io & SCOPE_IOF_NOFOLLOW) != 0, SCOPE_PARADIGM_POSIX);
        break;
    default:
        break;
    }
    scope__io_put(f, row, bytes, offset, issuer, failed);
}
