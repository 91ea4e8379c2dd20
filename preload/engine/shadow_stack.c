/*
 * shadow_stack.c - per-thread shadow stack of instrumented calls: the C
 * code the entry and exit paths of arch/<cpu>/arch_trampoline.S call, and
 * the fix-ups for longjmp, C++ exceptions and thread exit. Where a running
 * function keeps its redirected return address is the CPU's
 * (scope__arch_home: the slot on x86-64, the saved x30 of its frame record
 * on aarch64).
 *
 * Each thread gets, on its first instrumented call, an anonymous mapping of
 * MAX_FRAMES frames (reserved, not committed: pages are touched only as
 * deep as the thread goes). The pointer to it is in initial-exec TLS, so
 * the hot path is one %fs-relative load. Beyond MAX_FRAMES a call is run
 * without being recorded and counted, never redirected.
 *
 * Liveness of a frame is judged by its return slot's address: the stack
 * grows down, so when a new call's slot lies above an open frame's slot on
 * the same stack, that frame is gone (a longjmp that escaped the hooks, or
 * an exception cleanup). A frame whose slot equals the new one is a tail
 * call when the slot still holds the exit path's address (the caller jumped
 * to us instead of returning) and a dead frame otherwise. Calls made on
 * another stack (a sigaltstack handler) never close anything this way.
 *
 * C++ exceptions (unwind_hooks.c): a throw puts the original return
 * addresses back (the unwinder cannot step through the exit path) and
 * the catch redirects again those of the frames that survive. Exceptions
 * nest: a destructor run by the unwinding of one may throw and catch
 * another, and that catch must not redirect the frames the first one is
 * still unwinding through. So each throw is one level (the count of
 * exceptions in flight on the thread), a frame remembers the level that
 * restored it, and a catch, which always ends the newest exception in
 * flight, redirects only the frames of its own level (or newer).
 * scope__shadow_walk_begin/end (a call-site walk) restore and redirect
 * only the frames they restored themselves, and never touch a slot that
 * does not hold the exit path's address (a frame that is gone, whose slot
 * another call now uses).
 *
 * Captures (capture.h): a function a capture claimed carries the
 * capture's index and op in its flags. Its enter is asked, before the
 * call is pushed, whether the call is recorded, followed silently or left
 * alone; its exit (or drop, when the frame is closed as unwound) is
 * called with the frame's op. Which calls nest is the capture's rule.
 *
 * Signal safety: a frame is written before the depth is raised, and read
 * before it is lowered, so a handler interrupting either sees a consistent
 * stack and leaves it as it found it. `busy` keeps the recorder's own slow
 * path (which may call instrumented libc functions) from recursing.
 */
#include "clock.h"
#include "shadow_stack.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch_trampoline.h"
#include "callsites.h"
#include "capture.h"
#include "patch.h"
#include "scope_internal.h"
#include "self.h"
#include "self_depth.h"

#define MAX_FRAMES (1u << 17)           /* 131072 frames, 6 MiB reserved */
#define FRAME_RESTORED 1u               /* a throw wrote `ret` back */
#define FRAME_WALKED 4u                 /* a call-site walk wrote `ret` back */
#define FRAME_SILENT 16u                /* not recorded: its capture follows
                                           it without timing it
                                           (SCOPE_CAPTURE_FOLLOW) */
#define FRAME_CAP_SHIFT 5               /* the capture that claimed it
                                           (capture.h), 0: none */
#define MAX_LEVEL UINT8_MAX

/* the x86-64 entry path reads the flags word and its bit 0 as literals */
_Static_assert(offsetof(struct scope__fn, flags) == 4 && SCOPE_FN_TICKS_AT_ENTRY == 1u,
               "arch_trampoline.S tests SCOPE_FN_TICKS_AT_ENTRY at 4(fn)");

/* 48 bytes, as before captures: one more field would cost every call an
 * index computation of a 56-byte stride */
struct frame {
    uintptr_t ret;          /* original return address */
    uintptr_t slot;         /* where it lives on the thread's stack */
    int32_t id;
    uint16_t op;            /* its capture's op (capture.h: 16 bits) */
    uint8_t level;          /* the exception level that restored it; 0:
                               none (redirected, or gone) */
    uint8_t flags;          /* FRAME_*, and the capture << FRAME_CAP_SHIFT */
    uint64_t thrown;        /* when that exception was thrown */
    uintptr_t home;         /* where a throw or walk found the return
                               address (arch_trampoline.h) */
    uintptr_t was;          /* and what it held there: the exit path's */
};

struct shadow {
    uint32_t depth;
    uint32_t busy;
    uint32_t in_flight;             /* exceptions thrown and not caught */
    uint32_t exiting;               /* in pthread_exit: calls end when closed */
    uintptr_t stack_lo, stack_hi;   /* the thread's own stack */
    struct frame f[];
};

static __thread struct shadow *tls_ss __attribute__((tls_model("initial-exec")));
static __thread uint8_t tls_failed __attribute__((tls_model("initial-exec")));

/* Calls not recorded: past MAX_FRAMES, and made while this thread's
 * trampoline was busy with another call (a signal handler's: scope's own
 * nested calls are told apart before, by self_depth.h); ends closed as
 * unwound. */
static _Atomic uint64_t n_overflow, n_busy, n_unwound;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* ------------------------------------------------------- per-thread setup */

static void close_frame(struct shadow *s, struct frame *f)
{
    if (f->flags >> FRAME_CAP_SHIFT)
        scope__captures[f->flags >> FRAME_CAP_SHIFT].drop(f->op, (f->flags & FRAME_SILENT) != 0);
    if (f->flags & FRAME_SILENT)
        return;
    if (f->level && !s->exiting)
        scope__end_unwound_at(f->id, f->thrown);    /* left by an exception */
    else
        scope__end_unwound(f->id);
    atomic_fetch_add_explicit(&n_unwound, 1, memory_order_relaxed);
}

/* Thread exit: whatever is still open was left by pthread_exit or
 * cancellation; close it and drop the mapping. */
static void thread_gone(void *p)
{
    struct shadow *s = p;
    if (!s)
        return;
    scope__self_enter();
    s->busy = 1;
    while (s->depth > 0)
        close_frame(s, &s->f[--s->depth]);
    tls_ss = NULL;
    tls_failed = 1;                     /* late calls are not recorded */
    munmap(s, sizeof *s + MAX_FRAMES * sizeof(struct frame));
    scope__self_leave();
}

static void make_key(void)
{
    pthread_key_create(&exit_key, thread_gone);
}

static __attribute__((noinline)) struct shadow *shadow_create(void)
{
    if (tls_failed)
        return NULL;
    tls_failed = 1;                     /* until done: no recursion */
    size_t len = sizeof(struct shadow) + MAX_FRAMES * sizeof(struct frame);
    struct shadow *s = mmap(NULL, len, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (s == MAP_FAILED)
        return NULL;
    pthread_attr_t at;
    if (pthread_getattr_np(pthread_self(), &at) == 0) {
        void *lo;
        size_t sz;
        if (pthread_attr_getstack(&at, &lo, &sz) == 0) {
            s->stack_lo = (uintptr_t)lo;
            s->stack_hi = (uintptr_t)lo + sz;
        }
        pthread_attr_destroy(&at);
    }
    pthread_once(&key_once, make_key);
    pthread_setspecific(exit_key, s);
    tls_ss = s;
    tls_failed = 0;
    return s;
}

static inline int on_stack(const struct shadow *s, uintptr_t a)
{
    return a >= s->stack_lo && a < s->stack_hi;
}

/* ------------------------------------------------------------- hot paths */

struct scope__enter scope__shadow_enter(const struct scope__fn *fn, uintptr_t *slot, uint64_t *saved,
                                        uint64_t ticks)
{
    uintptr_t ra = *slot;
    /* The preload's own calls (the recorder's slow path, the MPI wrappers
     * asking for rank and size) are never the program's: made by the
     * preload itself (its return address), or by a library on its behalf
     * while scope works on this thread (self_depth.h: libc's strdup calling
     * a malloc the config names). The calibration's stub is the one
     * exception. */
    if (__builtin_expect(scope__self_depth > 0 || scope__self_contains(ra), 0) &&
        ra != scope__tramp_exit_addr && !(fn->flags & SCOPE_FN_CALIBRATE))
        return (struct scope__enter){ fn->resume, 0 };
    struct shadow *s = tls_ss;
    if (__builtin_expect(s == NULL, 0)) {
        scope__self_enter();    /* mmap and the thread key: ours */
        s = shadow_create();
        scope__self_leave();
        if (!s)
            return (struct scope__enter){ fn->resume, 0 };
    }
    if (__builtin_expect(s->busy, 0)) {
        /* a signal landed while this thread's trampoline was filling a
         * frame: recording here would write into that frame (see the file
         * comment). Counted, so the file can say so. */
        atomic_fetch_add_explicit(&n_busy, 1, memory_order_relaxed);
        return (struct scope__enter){ fn->resume, 0 };
    }
    s->busy = 1;
    uintptr_t r = (uintptr_t)slot;
    uint32_t depth = s->depth;
    if (depth && on_stack(s, r)) {
        /* close calls whose frames are gone (see the file comment), before
         * a call-site walk could write to their slots, and before a capture
         * sees this call (their drop comes first) */
        while (depth) {
            struct frame *f = &s->f[depth - 1];
            if (!(f->slot < r || (f->slot == r && *slot != scope__tramp_exit_addr)) ||
                !on_stack(s, f->slot))
                break;
            close_frame(s, f);
            depth--;
            s->depth = depth;
        }
    }
    if (__builtin_expect(depth >= MAX_FRAMES, 0)) {
        atomic_fetch_add_explicit(&n_overflow, 1, memory_order_relaxed);
        s->busy = 0;
        return (struct scope__enter){ fn->resume, 0 };
    }
    /* the capture that claimed the function decides what its call is
     * (what is needed after it is read again from fn: less to keep) */
    uint32_t cap = (fn->flags & SCOPE_FN_CAPTURE_MASK) >> SCOPE_FN_CAPTURE_SHIFT;
    uint32_t silent = 0;
    if (cap) {
        int v = scope__captures[cap].enter(fn->flags >> SCOPE_FN_OP_SHIFT, saved, slot);
        if (v == SCOPE_CAPTURE_SKIP) {
            s->busy = 0;
            return (struct scope__enter){ fn->resume, 0 };
        }
        silent = v == SCOPE_CAPTURE_FOLLOW ? FRAME_SILENT : 0;
    }
    uint32_t flags = fn->flags;
    /* the caller, before the slot is redirected (a cache miss walks the
     * stack, and must see the real return addresses) */
    int32_t site = 0;
    if ((flags & SCOPE_FN_DEPTH_MASK) && !silent)
        site = scope__callsite_get(*slot, slot, (flags & SCOPE_FN_DEPTH_MASK) >> SCOPE_FN_DEPTH_SHIFT);
    struct frame *f = &s->f[depth];
    f->ret = *slot;
    f->slot = r;
    f->id = fn->id;
    f->op = (uint16_t)(flags >> SCOPE_FN_OP_SHIFT);
    f->level = 0;
    f->flags = (uint8_t)(silent | cap << FRAME_CAP_SHIFT);
    atomic_signal_fence(memory_order_seq_cst);
    s->depth = depth + 1;
    *slot = scope__tramp_exit_addr;
    if (!silent)
        scope__begin_site_at(fn->id, site, ticks ? ticks : scope__ticks());
    s->busy = 0;
    return (struct scope__enter){ fn->resume, 1 };
}

uintptr_t scope__shadow_exit(uintptr_t sp, uint64_t rax, uint64_t ticks)
{
    struct shadow *s = tls_ss;
    uintptr_t r = sp - SCOPE_ARCH_SLOT_BELOW_SP;
    uint32_t depth = s->depth;
    /* The newest frame with this slot is the one returning; anything
     * pushed after it was skipped by a longjmp we did not see. */
    uint32_t i = depth;
    while (i > 0 && s->f[i - 1].slot != r)
        i--;
    if (__builtin_expect(i == 0, 0))
        i = depth;                      /* cannot happen; keep going */
    struct frame *f = &s->f[i - 1];
    uint32_t busy = s->busy;
    s->busy = 1;
    if (!(f->flags & FRAME_SILENT))
        scope__end_at(f->id, ticks ? ticks : scope__ticks());
    /* a capture's data records follow the end of the call they describe */
    if (f->flags >> FRAME_CAP_SHIFT)
        scope__captures[f->flags >> FRAME_CAP_SHIFT].exit(f->op, rax, (f->flags & FRAME_SILENT) != 0);
    while (depth > i)
        close_frame(s, &s->f[--depth]);
    uintptr_t ret = f->ret;
    atomic_signal_fence(memory_order_seq_cst);
    s->depth = i - 1;
    s->busy = busy;
    return ret;
}

/* ----------------------------------------------------- non-local exits */

/* Closes, marked unwound, every open call whose return slot lies below
 * `sp` (a frame the jump or the catch left), newest first. */
static void close_below(struct shadow *s, uintptr_t sp)
{
    uint32_t busy = s->busy;
    s->busy = 1;
    while (s->depth > 0 && s->f[s->depth - 1].slot < sp) {
        close_frame(s, &s->f[s->depth - 1]);
        s->depth--;
    }
    s->busy = busy;
}

void scope__shadow_unwind_to(uintptr_t sp)
{
    struct shadow *s = tls_ss;
    if (!s)
        return;
    close_below(s, sp);
}

void scope__shadow_restore(void)
{
    struct shadow *s = tls_ss;
    if (!s)
        return;
    /* the calls this throw leaves end here (scope__shadow_caught) */
    uint64_t now = scope__ticks();
    uint32_t level = ++s->in_flight;
    if (level > MAX_LEVEL)              /* nested that deep: share the top */
        level = s->in_flight = MAX_LEVEL;
    struct scope__arch_homes h;
    scope__arch_homes_begin(&h, (uintptr_t)__builtin_frame_address(0), s->stack_lo, s->stack_hi);
    for (uint32_t i = s->depth; i-- > 0;) {
        struct frame *f = &s->f[i];
        uintptr_t *home = scope__arch_home(&h, f->slot, i + 1 < s->depth ? s->f[i + 1].slot : 0);
        if (f->level)
            continue;                   /* an older exception's */
        f->level = (uint8_t)level;
        f->thrown = now;
        /* only a slot that still leads to the exit path is ours to write:
         * any other frame is gone (its slot may be another call's now). A
         * tail-call chain shares one slot: the newer frames hold the exit
         * path as `ret`, so the slot keeps it until the oldest's turn. */
        if (home && scope__arch_strip(*home) == scope__tramp_exit_addr) {
            f->home = (uintptr_t)home;
            f->was = *home;
            *home = scope__arch_signed_like(f->was, f->ret, f->slot);
            f->flags |= FRAME_RESTORED;
        }
    }
}

void scope__shadow_thread_exit(void)
{
    scope__shadow_restore();
    if (tls_ss)
        tls_ss->exiting = 1;
}

void scope__shadow_caught(uintptr_t sp)
{
    struct shadow *s = tls_ss;
    if (!s)
        return;
    close_below(s, sp);
    uint32_t busy = s->busy;
    s->busy = 1;
    /* the newest exception in flight is the one caught: an older one
     * cannot be caught while a newer one unwinds (that is std::terminate).
     * A catch with none in flight (a forced unwind, a foreign exception)
     * has nothing of ours to redirect. */
    uint32_t level = s->in_flight;
    if (level) {
        s->in_flight = level - 1;
        for (uint32_t i = 0; i < s->depth; i++) {
            struct frame *f = &s->f[i];
            if (f->level < level)
                continue;               /* still unwound through, or live */
            f->level = 0;
            if (f->flags & FRAME_RESTORED) {
                *(uintptr_t *)f->home = f->was;
                f->flags &= (uint8_t)~FRAME_RESTORED;
            }
        }
    }
    s->busy = busy;
}

void scope__shadow_walk_begin(void)
{
    struct shadow *s = tls_ss;
    if (!s)
        return;
    struct scope__arch_homes h;
    scope__arch_homes_begin(&h, (uintptr_t)__builtin_frame_address(0), s->stack_lo, s->stack_hi);
    for (uint32_t i = s->depth; i-- > 0;) {
        struct frame *f = &s->f[i];
        uintptr_t *home = scope__arch_home(&h, f->slot, i + 1 < s->depth ? s->f[i + 1].slot : 0);
        if (f->level || !home || scope__arch_strip(*home) != scope__tramp_exit_addr)
            continue;                   /* restored by a throw, or gone */
        f->home = (uintptr_t)home;
        f->was = *home;
        *home = scope__arch_signed_like(f->was, f->ret, f->slot);
        f->flags |= FRAME_WALKED;
    }
}

int scope__shadow_busy(void)
{
    struct shadow *s = tls_ss;
    return s && s->busy;
}

void scope__shadow_walk_end(void)
{
    struct shadow *s = tls_ss;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->depth; i++) {
        struct frame *f = &s->f[i];
        if (f->flags & FRAME_WALKED) {
            *(uintptr_t *)f->home = f->was;
            f->flags &= (uint8_t)~FRAME_WALKED;
        }
    }
}

void scope__shadow_close_all(void)
{
    struct shadow *s = tls_ss;
    if (!s)
        return;
    s->busy = 1;
    while (s->depth > 0)
        close_frame(s, &s->f[--s->depth]);
    s->busy = 0;
}

uint64_t scope__shadow_overflows(void)
{
    return atomic_load(&n_overflow);
}

uint64_t scope__shadow_unwound(void)
{
    return atomic_load(&n_unwound);
}

uint64_t scope__shadow_interrupted(void)
{
    return atomic_load(&n_busy);
}
