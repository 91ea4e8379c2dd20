/*
 * io_data.h - the rules the I/O capture's general path (io_hook.c,
 * io_posix.c, io_stdio.c) and the data calls' path of their own
 * (io_data.c) share, once for both: which calls take that path, the MPI
 * library's own calls, the issuer of a POSIX call, the bytes of most
 * stream calls, the data record of a call that is not followed.
 */
#ifndef SCOPE_IO_DATA_H
#define SCOPE_IO_DATA_H

#include <stdio.h>
#include <string.h>

#include "io_files.h"
#include "io_state.h"
#include "lent.h"

/* 1 when a POSIX call of row c (on descriptor fd when has_fd), made
 * while an MPI call other than MPI-IO's runs on the thread, is the MPI
 * library's own business: every call but those on a descriptor MPI-IO opened (ROMIO
 * completes a nonblocking MPI_File_iwrite_all inside MPI_Wait, Open MPI on
 * its own thread) and close_range/closefrom, which the descriptor table
 * must always see. */
static inline int scope__io_mpi_library_call(const struct scope_call_row *c, int has_fd, int64_t fd)
{
    if (c->cls == SCOPE_CC_IO_FDS)
        return 0;
    if (!has_fd)
        return 1;
    struct scope__io_fd *e = scope__io_fd(fd);
    return !e || atomic_load_explicit(&e->state, memory_order_relaxed) < SCOPE_IO_FD_ROW0 ||
           atomic_load_explicit(&e->opener, memory_order_relaxed) != SCOPE_PARADIGM_MPIIO;
}

/* 1 while an MPI call other than MPI-IO's runs on the thread t (the POSIX
 * and stdio calls then are the MPI library's, but for those above). */
static inline int scope__io_in_mpi(const struct scope__io_tls *t)
{
    return !t->open[SCOPE_PARADIGM_MPIIO] && scope__mpi_lent && scope__mpi_lent->busy();
}

/* The layer a POSIX call on descriptor fd was issued by: the outermost
 * layer above POSIX open now, else the one that opened the descriptor (a
 * stream's buffer written by exit's flush is stdio's): _opener_issuer is
 * the latter, from the descriptor's entry e (not NULL). */
static inline int scope__io_opener_issuer(const struct scope__io_fd *e)
{
    int o = atomic_load_explicit(&e->opener, memory_order_relaxed);
    return o == SCOPE_PARADIGM_POSIX ? 0 : o;
}

static inline int scope__io_posix_issuer(int fd)
{
    int i = scope__io_issuer();
    if (i)
        return i;
    const struct scope__io_fd *e = scope__io_fd(fd);
    return e ? scope__io_opener_issuer(e) : 0;
}

/* A POSIX read on descriptor `fd` inside a stdio call adds what it read to
 * the innermost stdio frame (a scan counts what its stream took in), when
 * that frame is on the same descriptor. Cost: a walk of the thread's open
 * I/O frames. */
static inline void scope__io_stdio_inner(int fd, int64_t bytes)
{
    struct scope__io_tls *t = &scope__io_tls;
    for (uint32_t i = t->depth; i > 0; i--) {
        struct scope__io_frame *f = &t->f[i - 1];
        if (f->layer == SCOPE_PARADIGM_STDIO) {
            if (f->fd == fd)
                f->inner += bytes;
            return;
        }
    }
}

/* The bytes a stdio call moved by its row's rule `rule` (enum
 * scope_io_bytes) and class `cls`, from what it returned and `n` (the size
 * argument, the string's length), for the rules that need nothing else:
 * RET, RET_NMEMB, CHAR, STRLEN, STRLEN_NL (0 for the others); -1 for a
 * failure. */
static inline int64_t scope__io_stdio_bytes(unsigned rule, unsigned cls, int64_t n, uint64_t ret)
{
    switch (rule) {
    case SCOPE_IOB_RET:
        return (int32_t)ret < 0 ? -1 : (int32_t)ret;
    case SCOPE_IOB_RET_NMEMB:
        return (int64_t)(size_t)ret * n;
    case SCOPE_IOB_CHAR:
        return (int32_t)ret == EOF ? (cls == SCOPE_CC_IO_WRITE ? -1 : 0) : 1;
    case SCOPE_IOB_STRLEN:
    case SCOPE_IOB_STRLEN_NL:
        return (int32_t)ret == EOF ? -1 : n;
    default:
        return 0;
    }
}

/* Which path of its own row `c` takes (io_data.c): the op bits the claim
 * sets (io_hook.c), 0 for the general path. The reads and writes of a
 * stream whose bytes the return value and the arguments tell
 * (scope__io_stdio_bytes: not fgets, whose string is measured, nor the
 * scans, whose bytes need what the reads inside them brought), and the
 * reads and writes of a descriptor. */
static inline uint32_t scope__io_data_path(const struct scope_call_row *c)
{
    if (c->cls != SCOPE_CC_IO_READ && c->cls != SCOPE_CC_IO_WRITE)
        return 0;
    if (c->paradigm == SCOPE_PARADIGM_STDIO)
        return c->bytes == SCOPE_IOB_STRLEN_RET || c->bytes == SCOPE_IOB_SCANNED
                   ? 0 : SCOPE_IO_OP_DATA_STDIO;
    if (c->paradigm == SCOPE_PARADIGM_POSIX && scope_call_arg(c, SCOPE_ARG_fd) >= 0)
        return SCOPE_IO_OP_DATA_POSIX;
    return 0;
}

/* scope__io_data_record's long form (two records: a value past the
 * compact form's fields), out of the common path (io_data.c). */
void scope__io_data_record_long(int32_t row, int64_t bytes, int64_t offset, int issuer,
                                int failed);

/* Writes the data record of a call that just ended and is not followed
 * (its end record is the thread's last): one record when the values fit
 * the compact form, as almost always, with nothing left to do after it. */
static inline void scope__io_data_record(int32_t row, int64_t bytes, int64_t offset, int issuer,
                                         int failed)
{
    struct scope_io_data d = { row, bytes < 0 ? 0 : bytes, offset, (uint8_t)issuer,
                               (uint8_t)!!failed };
    struct scope_rec r[2];
    if (scope_iodata_pack(&d, r) == 1)
        scope__record_data_raw(r[0].ticks, r[0].word, r[0].aux);
    else
        scope__io_data_record_long(row, bytes, offset, issuer, failed);
}

#endif /* SCOPE_IO_DATA_H */
