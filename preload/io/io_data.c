/*
 * io_data.c - the data calls' path of their own (issue 46, "Cost"): the
 * reads and writes of a stdio stream (fwrite, fputc, fprintf, fread, ...,
 * but fgets and the scans) and of a POSIX descriptor (write, pread,
 * writev, ...), the calls a program makes millions of. The general path
 * (io_hook.c, io_stdio.c, io_posix.c) asks the row what kind of call it
 * is at entry and again at exit, fills every field of the frame, looks
 * the descriptor up at both ends; here the claim has said once which path
 * the function takes (its op, SCOPE_IO_OP_DATA_*: io_data.h), the entry
 * checks what is common and keeps in the frame what the exit needs (the
 * descriptor's entry, the row's rule), and the exit writes the data
 * record straight.
 *
 * What is recorded is the general path's, value for value: the same
 * checks in the same order (a descriptor's first use, which asks the
 * system and defines its row, included), the same verdicts, bytes,
 * offset, file row, issuer and positions kept.
 *
 * What the frame holds here: fd, row, offset; n (stdio: the size argument
 * or the string's length); a (stdio: the stream, as the general path);
 * b: the descriptor's entry (struct scope__io_fd *); aux: the row's bytes
 * rule | its class << 8 (stdio), its SCOPE_IOF_* flags | its class << 8
 * (POSIX).
 */
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "io_data.h"
#include "io_files.h"
#include "io_state.h"

/* The long form, two records (io_data.h). */
void scope__io_data_record_long(int32_t row, int64_t bytes, int64_t offset, int issuer,
                                int failed)
{
    struct scope_io_data d = { row, bytes < 0 ? 0 : bytes, offset, (uint8_t)issuer,
                               (uint8_t)!!failed };
    struct scope_rec r[2];
    scope__record_data_recs(r, (unsigned)scope_iodata_pack(&d, r));
}

/* --- stdio ------------------------------------------------------------ */

static int stdio_enter_slow(uint32_t op, uint64_t *saved, uintptr_t *slot);

/* The entry past the checks that need no argument: the stream, its
 * descriptor's row, the bytes the arguments say, its position. Two
 * variants: the common one (`slow` 0) calls nothing, so that it saves no
 * register, and hands the rest (a descriptor's first use, a string to
 * measure) to the other before it has changed anything. */
static inline __attribute__((always_inline)) int stdio_enter(uint32_t op, uint64_t *saved,
                                                             uintptr_t *slot, int slow)
{
    struct scope__io_tls *t = &scope__io_tls;
    int call = (int)(op & SCOPE_IO_OP_ROW);
    const struct scope_call_row *c = &scope_calls[call];
    FILE *fp = (c->io & SCOPE_IOF_STDOUT)
                   ? stdout
                   : (FILE *)(uintptr_t)scope__io_role(call, SCOPE_ARG_stream, saved, slot, 0);
    if (!fp)
        return SCOPE_CAPTURE_SKIP;
    int fd = fp->_fileno;
    unsigned rule = c->bytes;
    int32_t row = slow ? scope__io_fd_row(fd) : scope__io_fd_known_row(fd);
    if (!slow && (row == SCOPE_IO_ROW_FIRST_USE || rule == SCOPE_IOB_STRLEN ||
                  rule == SCOPE_IOB_STRLEN_NL))
        return stdio_enter_slow(op, saved, slot);
    if (row < 0)
        return SCOPE_CAPTURE_SKIP;      /* a memory stream, a pipe, a socket */
    struct scope__io_fd *e = &scope__io_fds[fd];     /* row >= 0: in the table */
    int64_t n = 0;
    if (rule == SCOPE_IOB_RET_NMEMB) {
        n = (int64_t)scope__io_role(call, SCOPE_ARG_size, saved, slot, 0);
    } else if (slow && (rule == SCOPE_IOB_STRLEN || rule == SCOPE_IOB_STRLEN_NL)) {
        const char *s =
            (const char *)(uintptr_t)scope__io_role(call, SCOPE_ARG_str, saved, slot, 0);
        n = s ? (int64_t)strlen(s) + (rule == SCOPE_IOB_STRLEN_NL) : 0;
    }
    uint32_t depth = t->depth;
    struct scope__io_frame *f = &t->f[depth];
    f->offset = scope__io_pos(e, 1);
    f->n = n;
    f->a = (uint64_t)(uintptr_t)fp;
    f->b = (uint64_t)(uintptr_t)e;
    f->aux = (int32_t)(rule | (uint32_t)c->cls << 8);
    f->fd = fd;
    f->row = row;
    scope__io_push_at(t, f, depth, call, SCOPE_PARADIGM_STDIO, 0);
    return SCOPE_CAPTURE_RECORD;
}

static __attribute__((noinline)) int stdio_enter_slow(uint32_t op, uint64_t *saved, uintptr_t *slot)
{
    return stdio_enter(op, saved, slot, 1);
}

static __attribute__((noinline)) int stdio_enter_fast(uint32_t op, uint64_t *saved, uintptr_t *slot)
{
    return stdio_enter(op, saved, slot, 0);
}

int scope__io_stdio_data_enter(uint32_t op, uint64_t *saved, uintptr_t *slot)
{
    struct scope__io_tls *t = &scope__io_tls;
    if (!atomic_load_explicit(&scope__io_live, memory_order_relaxed) ||
        t->depth >= SCOPE_IO_MAX_FRAMES || t->open[SCOPE_PARADIGM_STDIO])
        return SCOPE_CAPTURE_SKIP;      /* not recording; inside another stdio call */
    if (scope__io_in_mpi(t))
        return SCOPE_CAPTURE_SKIP;      /* the MPI library's own streams */
    return stdio_enter_fast(op, saved, slot);
}

/* Takes the newest frame (of `layer`) off the thread's stack and returns
 * it; NULL when the stack is empty. */
static inline const struct scope__io_frame *pop(int layer)
{
    struct scope__io_tls *t = &scope__io_tls;
    uint32_t depth = t->depth;
    return depth ? scope__io_pop_at(t, depth - 1, layer) : NULL;
}

void scope__io_stdio_data_exit(uint64_t ret)
{
    const struct scope__io_frame *f = pop(SCOPE_PARADIGM_STDIO);
    if (!f)
        return;
    int issuer = scope__io_issuer();
    uint32_t aux = (uint32_t)f->aux;
    int64_t offset = f->offset, bytes = scope__io_stdio_bytes(aux & 0xffu, aux >> 8, f->n, ret);
    if (bytes >= 0)
        scope__io_set_pos((const struct scope__io_fd *)(uintptr_t)f->b, 1,
                          offset >= 0 ? offset + bytes : SCOPE_IO_POS_UNKNOWN);
    int32_t row = f->row;
    if (row < 0)
        __builtin_unreachable();        /* a data path's frame has a file */
    scope__io_data_record(row, bytes, offset, issuer, bytes < 0);
}

/* --- POSIX ------------------------------------------------------------ */

int scope__io_posix_data_enter(uint32_t op, uint64_t *saved, uintptr_t *slot)
{
    struct scope__io_tls *t = &scope__io_tls;
    uint32_t depth = t->depth;
    if (!atomic_load_explicit(&scope__io_live, memory_order_relaxed) ||
        depth >= SCOPE_IO_MAX_FRAMES || t->open[SCOPE_PARADIGM_POSIX])
        return SCOPE_CAPTURE_SKIP;      /* not recording; inside another POSIX call */
    int call = (int)(op & SCOPE_IO_OP_ROW);
    const struct scope_call_row *c = &scope_calls[call];
    int64_t fd = (int64_t)(int32_t)scope__io_arg(saved, slot, scope_call_arg(c, SCOPE_ARG_fd));
    if (scope__io_in_mpi(t) && scope__io_mpi_library_call(c, 1, fd))
        return SCOPE_CAPTURE_SKIP;      /* the MPI library's own files */
    int32_t row = scope__io_fd_row(fd);
    if (row < 0)
        return SCOPE_CAPTURE_SKIP;      /* not a file followed */
    struct scope__io_fd *e = &scope__io_fds[fd];     /* row >= 0: in the table */
    struct scope__io_frame *f = &t->f[depth];
    f->offset = (c->io & SCOPE_IOF_AT)
                    ? (int64_t)scope__io_role(call, SCOPE_ARG_offset, saved, slot, 0)
                    : scope__io_pos(e, 0);
    f->b = (uint64_t)(uintptr_t)e;
    f->aux = (int32_t)(c->io | (uint32_t)c->cls << 8);
    f->fd = (int32_t)fd;
    f->row = row;
    scope__io_push_at(t, f, depth, call, SCOPE_PARADIGM_POSIX, 0);
    return SCOPE_CAPTURE_RECORD;
}

void scope__io_posix_data_exit(uint64_t ret)
{
    const struct scope__io_frame *f = pop(SCOPE_PARADIGM_POSIX);
    if (!f)
        return;
    int64_t r = (int64_t)ret;           /* ssize_t */
    int failed = r == -1;
    int64_t bytes = failed ? 0 : r, offset = f->offset;
    uint32_t aux = (uint32_t)f->aux;
    const struct scope__io_fd *e = (const struct scope__io_fd *)(uintptr_t)f->b;
    /* scope__io_posix_issuer, with the descriptor's entry at hand */
    int issuer = scope__io_issuer();
    if (!issuer)
        issuer = scope__io_opener_issuer(e);
    if (!failed) {
        /* an append goes to the end: where the writes so far left it */
        if (!(aux & SCOPE_IOF_AT))
            scope__io_set_pos(e, 0, offset >= 0 ? offset + bytes : SCOPE_IO_POS_UNKNOWN);
        if ((aux >> 8) == SCOPE_CC_IO_READ && issuer == SCOPE_PARADIGM_STDIO)
            scope__io_stdio_inner(f->fd, bytes);
    }
    int32_t row = f->row;
    if (row < 0)
        __builtin_unreachable();        /* a data path's frame has a file */
    scope__io_data_record(row, bytes, offset, issuer, failed);
}
