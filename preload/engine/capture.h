/*
 * capture.h - the one way a capture reaches the interposition engine.
 *
 * The engine (preload/engine/) times functions: it finds them, patches
 * them and keeps a shadow stack of their calls. It knows nothing of what
 * they are. A capture is a paradigm the preload reads calls of (MPI in
 * preload/mpi/; I/O in preload/io/ and OpenMP in preload/omp/ next): it
 * knows which functions are its own, what their arguments mean and which
 * of their calls count. Each capture fills one struct scope__capture and
 * registers it (scope__capture_register) from a constructor of priority
 * SCOPE_CAPTURE_CTOR_PRIORITY, so that every capture linked into the
 * preload is known before the preload's own constructor starts the
 * engine. Nothing above the engine lists the captures.
 *
 * What the engine does with them:
 *
 *  1. Once per config (slow path): each capture's `companion` may add a
 *     pattern an entry stands for too (an entry naming MPI_SEND also
 *     instruments MPI_Send); each capture's `wrapped` names are never
 *     patched (the capture defines those functions itself and times them
 *     in its own wrapper: MPI_Init & co).
 *  2. Once per function instrumented (slow path): the captures are asked,
 *     in registration order, to `claim` the symbol; the first that does
 *     owns the function. It may change the region's kind and name, and
 *     gives the function an op: the capture's own number for it (16 bits,
 *     opaque to the engine), handed back at every call.
 *  3. At every call of a claimed function (hot path, from the trampoline,
 *     before the call's begin record): `enter` with the op, the saved
 *     argument registers and the return-address slot. It reads (or
 *     lends: a status buffer) the arguments it needs, and says what the
 *     call is to the recording:
 *       SCOPE_CAPTURE_RECORD  timed as usual;
 *       SCOPE_CAPTURE_FOLLOW  followed but not timed (no begin or end
 *                             record): its exit is still called, with
 *                             `followed` set;
 *       SCOPE_CAPTURE_SKIP    not timed and not followed: no exit or drop
 *                             comes for it.
 *     Whether a call made inside another is recorded is the capture's rule,
 *     not the engine's: MPI does not time an MPI call inside another (but
 *     follows the C call a Fortran binding makes, to read what it moved),
 *     while an I/O capture records the write(2) that an fwrite makes.
 *  4. At its return (hot path, right after its end record): `exit` with
 *     the op, the function's return value (rax/x0) and `followed`. The
 *     capture writes its data records there (they follow the call's end
 *     record in the journal).
 *  5. When a call entered with RECORD or FOLLOW is closed without
 *     returning (longjmp past it, an exception, thread exit, exit() with
 *     the call open): `drop` with the op and `followed`; nothing of the
 *     call is to be recorded.
 *  Every enter that did not say SKIP is followed by exactly one exit or
 *  one drop, on the same thread, newest call first, so a capture may keep
 *  per-thread state (a count of its open calls, the arguments of the call
 *  in progress) without asking the engine.
 *
 * When the process records is not the engine's business: a capture
 * learns it from the lifecycle, one floor up (../lifecycle.h
 * scope__lifecycle_watch).
 *
 * Rules for the hot-path functions (enter, exit, drop): the recorder's
 * rules (docs/design.md: no lock, no malloc, no system call; a per-thread
 * allocation once per thread is done inside scope__self_enter/leave, as
 * is any call into libraries). They run inside the trampoline, which has
 * saved the caller's vector registers, so they need not be built with
 * -mgeneral-regs-only; the calls they make to functions the engine has
 * instrumented are never recorded (they come from the preload). Their
 * cost is part of every captured call: tests/comm and bench/README.md
 * ("Paths of their own for the hot calls") say how it is counted.
 */
#ifndef SCOPE_CAPTURE_H
#define SCOPE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "scope_config.h"

/* The constructor priority captures register at: before every
 * constructor without a priority, the preload's own included. */
#define SCOPE_CAPTURE_CTOR_PRIORITY 101

/* At most this many captures; their index (1..) is stored in 3 bits of an
 * instrumented function's flags (patch.h). */
#define SCOPE_CAPTURE_MAX 7

/* enter's verdicts (see the file comment) */
enum {
    SCOPE_CAPTURE_SKIP = 0,
    SCOPE_CAPTURE_RECORD = 1,
    SCOPE_CAPTURE_FOLLOW = 2,
};

/* What a claim says of a symbol (step 2 of the file comment). */
struct scope__claim {
    int kind;           /* in: the entry's region kind (SCOPE_KIND_*);
                           out: the kind the function's region gets */
    int named;          /* in: the entry names the region (`region = ...`):
                           the capture must not rename it */
    char region[256];   /* out: the region's name if the capture names it
                           (an MPI Fortran binding under its C name), else
                           left empty: the symbol's name is used */
    uint32_t op;        /* out: the capture's number for the function,
                           < 1 << 16, handed to enter, exit and drop */
};

struct scope__capture {
    const char *name;   /* "mpi": for the verbose report */
    /* Names of functions the capture defines itself (interposed by symbol
     * and timed in its own wrappers), NULL-terminated; the engine reports
     * them as "symbol" and never patches them. NULL: none. */
    const char *const *wrapped;
    /* A second pattern config entry `e` stands for: writes it into
     * pattern[0..len) and returns 1, else returns 0. The engine adds it
     * as an entry of its own after the config's (same kind, region and
     * call-site depth; no line, so it warns of nothing). NULL: none.
     * Slow path, once per entry. */
    int (*companion)(const scope_config_entry *e, char *pattern, size_t len);
    /* The functions the capture times whatever the config names (the I/O
     * calls: preload/io/): a NULL-terminated list of exact symbol names,
     * or NULL for none (the capture turned off by `cfg`). The engine adds
     * each as an entry of kind *kind, with no line (it warns of nothing),
     * after the config's and the companions, and never counts them as the
     * config matching something (scope__interpose_matched_any). NULL:
     * none. Slow path, once, when the engine starts. */
    const char *const *(*defaults)(const scope_config *cfg, int *kind);
    /* Claims `symbol` (1) or not (0); see struct scope__claim. Slow path,
     * once per function instrumented; pure but for the claim. */
    int (*claim)(const char *symbol, struct scope__claim *c);
    /* Hot path. `saved`: the trampoline's saved argument registers
     * (argument i < SCOPE_ARCH_SAVED_ARGS at saved[-1 - i], arch_trampoline.h),
     * `slot`: the return-address slot (the stack arguments above it).
     * Returns a SCOPE_CAPTURE_* verdict. */
    int (*enter)(uint32_t op, uint64_t *saved, uintptr_t *slot);
    /* Hot path: the call returned `ret`. */
    void (*exit)(uint32_t op, uint64_t ret, int followed);
    /* The call was closed without returning. */
    void (*drop)(uint32_t op, int followed);
} __attribute__((aligned(64)));     /* a power of two: one shift indexes them */

/* The registered captures, index 1..scope__n_captures (0: none), copied
 * at registration so that the hot path reaches a function pointer with
 * one load. Written only by registration, before the engine starts. */
extern struct scope__capture scope__captures[SCOPE_CAPTURE_MAX + 1];
extern int scope__n_captures;

/* Registers capture `c` (copied). Call from a constructor of priority
 * SCOPE_CAPTURE_CTOR_PRIORITY. Returns its index, or 0 when
 * SCOPE_CAPTURE_MAX captures are registered already. */
int scope__capture_register(const struct scope__capture *c);

/* The capture that claims `symbol` (its index, c filled by it), or 0 when
 * none does (c->kind and c->op left as they were). Slow path. */
int scope__capture_claim(const char *symbol, struct scope__claim *c);

/* 1 when some capture lists `symbol` among its wrapped names (case
 * insensitively: MPI_INIT is its Fortran binding), else 0. */
int scope__capture_wraps(const char *symbol);

#endif /* SCOPE_CAPTURE_H */
