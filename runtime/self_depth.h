/*
 * self_depth.h - how deep this thread is in scope's own work: the
 * recorder holding its lock, the preload's start-up, its MPI wrappers and
 * hooks. While it is above 0, an instrumented function this thread calls
 * is not recorded (preload/engine/shadow_stack.c): scope's own code reaches
 * instrumented functions through libc (strdup, qsort and snprintf call
 * malloc; a config may name malloc), and recording those would count
 * scope's calls as the program's and, for the first call of a thread,
 * re-enter the recorder under its own lock: a config naming malloc hung
 * every process at start. Calls scope makes directly are told apart by
 * their return address already; these are the ones a library makes for
 * it.
 *
 * A thread-local counter, not a flag: the paths nest (MPI_Finalize's
 * wrapper writes the file under the recorder's lock). The forwarded
 * calls themselves (the real MPI_Init, the real dlopen) run at depth 0:
 * what they call is the program's.
 */
#ifndef SCOPE_SELF_DEPTH_H
#define SCOPE_SELF_DEPTH_H

extern __thread int scope__self_depth __attribute__((tls_model("initial-exec")));

static inline void scope__self_enter(void)
{
    scope__self_depth++;
}

static inline void scope__self_leave(void)
{
    scope__self_depth--;
}

#endif /* SCOPE_SELF_DEPTH_H */
