/*
 * io_stdio.c - the stdio calls of the I/O capture (format/calls_io.def,
 * paradigm STDIO): a stream's calls are its descriptor's file (glibc's
 * FILE names it, _fileno), at the stream's position as its calls move it
 * (from where the stream was opened; fseek, rewind, fsetpos and ftell set
 * it), with the bytes each rule of the vocabulary gives: fread and fwrite
 * items x size, fprintf what it returned, fputs and puts the string's
 * length, fgets the string read, fgetc and fputc one character, and a
 * scan (fscanf) how far it moved the stream: the bytes its buffer lost,
 * plus what the reads it made into the buffer brought.
 *
 * printf, puts and putchar write to stdout, which no argument names. The
 * write(2) a stream's call makes is POSIX's, issued by stdio; so is the
 * one exit's flush makes (io_posix.c: the stream's descriptor was opened
 * by fopen). fclose's own close(2) is not a call of close (glibc closes
 * inside), so the descriptor is forgotten here.
 *
 * The reads and writes (but the scans) take a path of their own,
 * io_data.h (where the rules both paths share are); this file is every
 * other call's.
 */
#include <stdio.h>
#include <string.h>

#include "io_data.h"
#include "io_files.h"
#include "io_state.h"

int scope__io_stdio_enter(int call, uint64_t *saved, uintptr_t *slot)
{
    const struct scope_call_row *c = &scope_calls[call];
    struct scope__io_frame *f = scope__io_next();
    FILE *fp = (c->io & SCOPE_IOF_STDOUT)
                   ? stdout
                   : (FILE *)(uintptr_t)scope__io_role(call, SCOPE_ARG_stream, saved, slot, 0);
    f->a = (uint64_t)(uintptr_t)fp;
    f->b = 0;
    f->fd = fp ? fp->_fileno : -1;
    f->row = -1;
    f->offset = SCOPE_IO_POS_UNKNOWN;
    f->inner = 0;
    f->n = 0;
    f->aux = 0;
    if (c->cls == SCOPE_CC_IO_OPEN && call != SCOPE_CALL_fdopen) {
        /* fopen, freopen: the nested open(2) learns the file */
        const char *path = (const char *)(uintptr_t)scope__io_role(call, SCOPE_ARG_path, saved,
                                                                   slot, 0);
        if (!path || scope__io_path_excluded(path))
            return 0;
        f->b = (uint64_t)(uintptr_t)path;
        scope__io_push(call, SCOPE_PARADIGM_STDIO, 0);
        return 1;
    }
    if (call == SCOPE_CALL_fdopen)
        f->fd = (int32_t)scope__io_role(call, SCOPE_ARG_fd, saved, slot, (uint64_t)-1);
    /* fflush(NULL) flushes every stream: no one file */
    if (!fp && call != SCOPE_CALL_fdopen)
        return 0;
    if ((f->row = scope__io_fd_row(f->fd)) < 0)
        return 0;   /* a memory stream, a pipe, a socket: not followed */
    struct scope__io_fd *e = scope__io_fd(f->fd);
    switch (c->bytes) {
    case SCOPE_IOB_STRLEN:
    case SCOPE_IOB_STRLEN_NL: {
        const char *s = (const char *)(uintptr_t)scope__io_role(call, SCOPE_ARG_str, saved, slot, 0);
        f->n = s ? (int64_t)strlen(s) + (c->bytes == SCOPE_IOB_STRLEN_NL) : 0;
        break;
    }
    case SCOPE_IOB_RET_NMEMB:
        f->n = (int64_t)scope__io_role(call, SCOPE_ARG_size, saved, slot, 0);
        break;
    case SCOPE_IOB_SCANNED:
        f->n = (int64_t)(fp->_IO_read_end - fp->_IO_read_ptr);
        break;
    default:
        break;
    }
    if (c->cls == SCOPE_CC_IO_READ || c->cls == SCOPE_CC_IO_WRITE)
        f->offset = e ? scope__io_pos(e, 1) : SCOPE_IO_POS_UNKNOWN;
    if (c->cls == SCOPE_CC_IO_SEEK) {
        f->aux = (int32_t)scope__io_role(call, SCOPE_ARG_whence, saved, slot, SEEK_SET);
        f->offset = call == SCOPE_CALL_rewind ? 0
                    : call == SCOPE_CALL_fsetpos || call == SCOPE_CALL_fsetpos64
                        ? ((const fpos_t *)(uintptr_t)scope__io_arg(saved, slot, 1))->__pos
                        : (int64_t)scope__io_role(call, SCOPE_ARG_offset, saved, slot, 0);
        if (call == SCOPE_CALL_rewind || call == SCOPE_CALL_fsetpos || call == SCOPE_CALL_fsetpos64)
            f->aux = SEEK_SET;
    }
    scope__io_push(call, SCOPE_PARADIGM_STDIO, 0);
    return 1;
}

/* The bytes a call moved by its row's rule, from what it returned; -1
 * for a failure. */
static int64_t moved(const struct scope_call_row *c, struct scope__io_frame *f, uint64_t ret)
{
    switch (c->bytes) {
    case SCOPE_IOB_STRLEN_RET:
        return ret ? (int64_t)strlen((const char *)(uintptr_t)ret) : 0;
    case SCOPE_IOB_SCANNED: {
        const FILE *fp = (const FILE *)(uintptr_t)f->a;
        int64_t now = (int64_t)(fp->_IO_read_end - fp->_IO_read_ptr);
        int64_t b = f->n + f->inner - now;
        return b < 0 ? 0 : b;
    }
    default:
        return scope__io_stdio_bytes(c->bytes, c->cls, f->n, ret);
    }
}

void scope__io_stdio_exit(uint64_t ret)
{
    struct scope__io_frame *f = scope__io_top();
    const struct scope_call_row *c = &scope_calls[f->call];
    scope__io_pop();
    int issuer = scope__io_issuer();
    int failed = 0;
    int64_t bytes = 0, offset = f->offset;
    int32_t row = f->row;
    struct scope__io_fd *e;
    switch (c->cls) {
    case SCOPE_CC_IO_OPEN: {
        const FILE *fp = (const FILE *)(uintptr_t)ret;
        failed = fp == NULL;
        if (fp) {
            row = scope__io_fd_row(fp->_fileno);
            if ((e = scope__io_fd(fp->_fileno))) {
                /* its descriptor's writes are stdio's, exit's flush too */
                atomic_store_explicit(&e->opener, SCOPE_PARADIGM_STDIO, memory_order_relaxed);
                scope__io_set_pos(e, 1, scope__io_pos(e, 0));
            }
        }
        break;
    }
    case SCOPE_CC_IO_CLOSE:
        failed = (int32_t)ret == EOF;
        scope__io_fd_closed(f->fd);     /* closed inside glibc, not by close(2) */
        break;
    case SCOPE_CC_IO_SYNC:
        failed = (int32_t)ret == EOF;
        break;
    case SCOPE_CC_IO_READ:
    case SCOPE_CC_IO_WRITE:
        bytes = moved(c, f, ret);
        failed = bytes < 0;
        if (!failed && (e = scope__io_fd(f->fd)))
            scope__io_set_pos(e, 1, offset >= 0 ? offset + bytes : SCOPE_IO_POS_UNKNOWN);
        break;
    case SCOPE_CC_IO_SEEK:
        failed = f->call != SCOPE_CALL_rewind && (int32_t)ret != 0;
        if ((e = scope__io_fd(f->fd)) && !failed) {
            int64_t cur = scope__io_pos(e, 1);
            offset = f->aux == SEEK_SET ? offset
                     : f->aux == SEEK_CUR && cur >= 0 ? cur + offset : SCOPE_IO_POS_UNKNOWN;
            scope__io_set_pos(e, 1, offset);
        }
        break;
    case SCOPE_CC_IO_TELL:
        failed = (int64_t)ret < 0;
        offset = failed ? SCOPE_IO_POS_UNKNOWN : (int64_t)ret;
        if ((e = scope__io_fd(f->fd)) && !failed)
            scope__io_set_pos(e, 1, offset);
        break;
    default:
        break;
    }
    scope__io_put(f, row, bytes, offset, issuer, failed);
}
