/*
 * shadow_stack.h - the per-thread shadow stack of instrumented calls and
 * the C halves of the generic trampoline (arch_trampoline.S).
 *
 * On entry, the trampoline hands the C code the function's record and the
 * address of its return-address slot; the C code pushes (original return
 * address, slot, region id), writes the exit path's address into the slot
 * and records the begin. On return the exit path pops the frame, records
 * the end and continues at the original return address.
 *
 * Everything here is compiled with -mgeneral-regs-only: it runs between a
 * caller and its callee with vector and x87 argument/return registers live
 * (the trampoline saves the vector registers around the call anyway, in
 * case the recorder's slow path reaches libc code that uses them).
 */
#ifndef SCOPE_SHADOW_STACK_H
#define SCOPE_SHADOW_STACK_H

#include <stdint.h>

struct scope__fn;

/* The trampoline's variant and mode (scope__tramp_entry_addr and
 * scope__tramp_exit_addr, SCOPE_TRAMPOLINE) are chosen by the patching
 * code, which writes the jumps to it: patch.h. */

/* What the entry path gets back: where to continue (fn->resume), and
 * whether the call was recorded (its return slot now leads to the exit
 * path); returned in rax:rdx. */
struct scope__enter {
    uintptr_t resume;
    uintptr_t recorded;
};

/* Called by the entry path with the function's record, the address of
 * its return-address slot and of its saved argument registers
 * (arch_trampoline.S; handed to the capture that claimed the function,
 * capture.h), and the begin's ticks the path read first thing (0: read
 * them here, after the capture's enter and the call-site lookup). Never fails: without room on the shadow stack, re-entered
 * from inside the recorder, or left alone by its capture, it just doesn't
 * record this call (counted, but for the capture's), and says so
 * (recorded = 0). */
struct scope__enter scope__shadow_enter(const struct scope__fn *fn, uintptr_t *slot, uint64_t *saved,
                                        uint64_t ticks);

/* Called by the exit path with the stack pointer the function returned
 * with, its return value (handed to its capture: an MPI call's error
 * code) and the end's ticks the path read first thing (0: read them
 * here). Returns the original return address. Frames pushed after the
 * one returning (skipped by longjmp) are closed as unwound then. */
uintptr_t scope__shadow_exit(uintptr_t sp, uint64_t rax, uint64_t ticks);

/* longjmp to a context whose stack pointer is `sp`: closes, as unwound,
 * every open call whose return slot lies below sp. */
void scope__shadow_unwind_to(uintptr_t sp);

/* A C++ exception is about to be raised (one more in flight on this
 * thread): put every redirected return address of this thread back, so
 * the unwinder sees the real callers; the frames restored are tagged with
 * this exception's level and its throw time. */
void scope__shadow_restore(void);

/* pthread_exit: restores like a throw (glibc's forced unwind runs the
 * destructors above the open calls), and from now on calls of this thread
 * end when they are closed (at the latest at thread exit, after those
 * destructors), not at the throw. */
void scope__shadow_thread_exit(void);

/* The newest exception in flight was caught by the frame whose stack
 * pointer is `sp`: calls below it are closed as unwound (at its throw
 * time, or later if something recorded during the unwinding ended later),
 * and the frames its throw restored are redirected again. Frames an older
 * exception, still unwinding, restored stay as they are. */
void scope__shadow_caught(uintptr_t sp);

/* Around a stack walk (call-site capture, callsites.c): begin puts back
 * the original return address of every frame that is redirected now; end
 * redirects exactly those again. Frames a throw restored, and frames whose
 * slot no longer leads to the exit path, are left alone. No exception may
 * be thrown between the two. */
void scope__shadow_walk_begin(void);
void scope__shadow_walk_end(void);

/* 1 while this thread's trampoline is filling or closing a frame: a
 * signal handler then sees frames half written, and must not walk them. */
int scope__shadow_busy(void);

/* exit() with instrumented calls open on the calling thread: closes them
 * as unwound (they never return). Runs from an atexit handler. */
void scope__shadow_close_all(void);

/* Calls not recorded because the shadow stack was full (all threads). */
uint64_t scope__shadow_overflows(void);

/* Calls closed as unwound (longjmp, exceptions, thread exit). */
uint64_t scope__shadow_unwound(void);

/* Calls not recorded because they were made while this thread's
 * trampoline was busy with another call: a signal handler's calls, when
 * the signal lands in the few nanoseconds of bookkeeping per call. */
uint64_t scope__shadow_interrupted(void);

/* Resolves the functions unwind_hooks.c forwards to (longjmp & co, the
 * C++ throw/catch entry points), so that no hook has to call dlsym later,
 * e.g. from a signal handler. */
void scope__unwind_hooks_init(void);

#endif /* SCOPE_SHADOW_STACK_H */
