/*
 * io_state.h - what the files of the I/O capture share: each thread's
 * open I/O calls (a small stack of frames, one per call entered and not
 * yet left), the rules every layer applies, and the one writer of an I/O
 * call's data record. io_hook.c is the capture as the engine sees it;
 * io_posix.c, io_stdio.c, io_mpiio.c and io_hdf5.c each read the calls of
 * one layer.
 *
 * The hot path's rules (docs/design.md): initial-exec TLS, no lock, no
 * allocation, no system call; a call that needs the system (the first use
 * of a descriptor, a new file) goes through io_files.c's slow path, once.
 */
#ifndef SCOPE_IO_STATE_H
#define SCOPE_IO_STATE_H

#include <stdatomic.h>
#include <stdint.h>

#include "arch_trampoline.h"
#include "journal.h"
#include "scope_calls.h"
#include "scope_internal.h"

/* An op (capture.h: 16 bits): the row of the vocabulary, the path of its
 * own a data call takes (io_data.h, set by the claim from the row), and
 * what the symbol's spelling said. */
#define SCOPE_IO_OP_ROW 0x3ffu
#define SCOPE_IO_OP_DATA_STDIO (1u << 10)   /* a stream's read or write */
#define SCOPE_IO_OP_DATA_POSIX (1u << 11)   /* a descriptor's read or write */
#define SCOPE_IO_OP_FORTRAN (1u << 13)  /* an MPI-IO Fortran binding */
#define SCOPE_IO_OP_BIG (1u << 14)      /* an MPI-IO large-count _c form */
_Static_assert(SCOPE_CALLS <= SCOPE_IO_OP_ROW, "the rows fit the op");

#define SCOPE_IO_MAX_FRAMES 8

/* frame flags */
#define SCOPE_IO_F_FOLLOWED 1u          /* not timed: its data goes to the frame below */
#define SCOPE_IO_F_FORTRAN 2u           /* a Fortran binding: its C call tells the data */
#define SCOPE_IO_F_HAS_DATA 4u          /* data below is set (by a followed call) */
#define SCOPE_IO_F_MPI 8u               /* it told the MPI capture an MPI call is open */

struct scope__io_frame {
    uint16_t call;                  /* row of the vocabulary */
    uint8_t layer, flags;
    int32_t fd;                     /* its descriptor (a stream's), -1 none */
    int32_t row;                    /* the file's row, -1 none yet */
    int32_t aux;                    /* call-specific: a new descriptor, whence, ... */
    int64_t offset;                 /* where its data goes, -1 not known */
    int64_t n;                      /* call-specific: bytes asked, a string's length */
    uint64_t a, b;                  /* call-specific: a path, a stream, a buffer, ... */
    int64_t inner;                  /* bytes the POSIX reads inside it read (stdio scans) */
    struct scope_io_data data;      /* SCOPE_IO_F_HAS_DATA */
};

struct scope__io_tls {
    uint32_t depth;                 /* frames in use */
    uint8_t open[SCOPE_PARADIGMS];  /* frames open per layer */
    uint8_t outer;                  /* the outermost layer above POSIX open: the
                                       issuer of the calls beneath */
    uint8_t outer_at;               /* the frame that set it */
    struct scope__io_frame f[SCOPE_IO_MAX_FRAMES];
};

extern __thread struct scope__io_tls scope__io_tls __attribute__((tls_model("initial-exec")));

/* 1 while the capture records (the process records: io_hook.c). */
extern _Atomic int scope__io_live;

/* The frame the layer's enter fills (the next free one); pushed by
 * scope__io_push once the call is taken. */
static inline struct scope__io_frame *scope__io_next(void)
{
    struct scope__io_tls *t = &scope__io_tls;
    return &t->f[t->depth];
}

/* Takes the call filled into frame f = &t->f[depth], depth = t->depth
 * (a caller that holds them already, as the data path does, passes them:
 * nothing is loaded again). */
static inline void scope__io_push_at(struct scope__io_tls *t, struct scope__io_frame *f,
                                     uint32_t depth, int call, int layer, unsigned flags)
{
    f->call = (uint16_t)call;
    f->layer = (uint8_t)layer;
    f->flags = (uint8_t)flags;
    t->open[layer]++;
    if (layer != SCOPE_PARADIGM_POSIX && !t->outer && !(flags & SCOPE_IO_F_FOLLOWED)) {
        t->outer = (uint8_t)layer;
        t->outer_at = (uint8_t)depth;
    }
    t->depth = depth + 1;
}

/* Takes the call the layer's enter filled into scope__io_next(). */
static inline void scope__io_push(int call, int layer, unsigned flags)
{
    struct scope__io_tls *t = &scope__io_tls;
    scope__io_push_at(t, &t->f[t->depth], t->depth, call, layer, flags);
}

/* The frame of the call leaving (the newest). */
static inline struct scope__io_frame *scope__io_top(void)
{
    struct scope__io_tls *t = &scope__io_tls;
    return &t->f[t->depth - 1];
}

/* Takes frame `depth` (the newest, a call of `layer`) off t's stack and
 * returns it (still readable: the next push overwrites it). */
static inline const struct scope__io_frame *scope__io_pop_at(struct scope__io_tls *t,
                                                            uint32_t depth, int layer)
{
    t->depth = depth;
    t->open[layer]--;
    if (t->outer && t->outer_at == depth)
        t->outer = 0;
    return &t->f[depth];
}

static inline void scope__io_pop(void)
{
    struct scope__io_tls *t = &scope__io_tls;
    uint32_t depth = t->depth - 1;
    scope__io_pop_at(t, depth, t->f[depth].layer);
}

/* The issuer of a call entering now: the outermost layer above POSIX open
 * on the thread (0: the program itself). */
static inline uint8_t scope__io_issuer(void)
{
    return scope__io_tls.outer;
}

/* Writes the data record of the call that just ended (its end record is
 * the thread's last), or hands it to the frame below when this frame is
 * followed. */
static inline void scope__io_put(struct scope__io_frame *f, int32_t row, int64_t bytes,
                                 int64_t offset, int issuer, int failed)
{
    struct scope_io_data d = { row, bytes < 0 ? 0 : bytes, offset, (uint8_t)issuer, (uint8_t)!!failed };
    if (f->flags & SCOPE_IO_F_FOLLOWED) {
        if (f > scope__io_tls.f) {
            struct scope__io_frame *below = f - 1;
            below->data = d;    /* its issuer: the outer call's, at its exit */
            below->flags |= SCOPE_IO_F_HAS_DATA;
        }
        return;
    }
    struct scope_rec r[2];
    unsigned n = (unsigned)scope_iodata_pack(&d, r);
    scope__record_data_recs(r, n);
}

/* The layers' halves (io_posix.c, io_stdio.c, io_mpiio.c, io_hdf5.c):
 * enter returns a capture verdict (capture.h) after filling and pushing
 * its frame (or SKIP without one); exit writes the data record and pops. */
int scope__io_posix_enter(int call, uint64_t *saved, uintptr_t *slot);
void scope__io_posix_exit(uint64_t ret);
int scope__io_stdio_enter(int call, uint64_t *saved, uintptr_t *slot);
void scope__io_stdio_exit(uint64_t ret);
int scope__io_mpiio_enter(uint32_t op, uint64_t *saved, uintptr_t *slot);
void scope__io_mpiio_exit(uint64_t ret);
int scope__io_hdf5_enter(int call, uint64_t *saved, uintptr_t *slot);
void scope__io_hdf5_exit(uint64_t ret);
/* The data calls' path of their own (io_data.c), for the ops the claim
 * marked SCOPE_IO_OP_DATA_STDIO and _POSIX: the same verdicts and records
 * as the general path's. */
int scope__io_stdio_data_enter(uint32_t op, uint64_t *saved, uintptr_t *slot);
void scope__io_stdio_data_exit(uint64_t ret);
int scope__io_posix_data_enter(uint32_t op, uint64_t *saved, uintptr_t *slot);
void scope__io_posix_data_exit(uint64_t ret);

/* Argument i of a call (capture.h: saved registers, then the stack). */
static inline uint64_t scope__io_arg(uint64_t *saved, uintptr_t *slot, int i)
{
    return i < SCOPE_ARCH_SAVED_ARGS ? saved[-1 - i]
                                     : (uint64_t)slot[1 + (i - SCOPE_ARCH_SAVED_ARGS)];
}

/* The argument of `role` in row `call`, or `dflt` when it has none. */
static inline uint64_t scope__io_role(int call, enum scope_arg_role role, uint64_t *saved,
                                      uintptr_t *slot, uint64_t dflt)
{
    int i = scope_call_arg(&scope_calls[call], role);
    return i < 0 ? dflt : scope__io_arg(saved, slot, i);
}

#endif
