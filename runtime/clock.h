/*
 * clock.h - the recorder's clock: the CPU's counter when it can be trusted
 * (the invariant TSC on x86-64, CNTVCT_EL0 on aarch64: arch/<cpu>/), else
 * CLOCK_MONOTONIC.
 *
 * Two timestamp reads are the price floor of a begin/end pair, so the read
 * is inline and branches on one read-mostly flag. Ticks are converted to
 * CLOCK_MONOTONIC nanoseconds only when the journal is written out, using
 * (ticks, ns) pairs read back to back at init, at every chunk switch and
 * at finalize (see journal.h).
 */
#ifndef SCOPE_CLOCK_H
#define SCOPE_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "arch_clock.h"

/* 1 when ticks are the CPU counter's (TSC cycles, CNTVCT counts), 0 when
 * they are CLOCK_MONOTONIC ns. (The name is older than the aarch64 port.)
 * Set once by scope__clock_setup() before any event is recorded. */
extern int scope__clock_tsc;

/* SCOPE_CLOCK_DRIFT_PPM (tests only, docs/clocks.md): this process's
 * CLOCK_MONOTONIC reads run fast by this many parts per million, to play a
 * host whose clock drifts. 0 (the default) costs one predictable branch. */
extern int64_t scope__clock_drift_ppm;

/* ns scaled by (1 + drift_ppm / 1e6), out of line: the rare test path. */
int64_t scope__clock_drifted(int64_t ns);

/* SCOPE_CLOCK_ROUND_NS: > 0 rounds every CLOCK_MONOTONIC reading down to a
 * multiple of it (and forces CLOCK_MONOTONIC), so tests on a fine clock see
 * the timestamp ties of a coarse one. 0 = off. Set by scope__clock_setup(). */
extern int64_t scope__clock_round_ns;

/* The clock's measured step in ticks (counter ticks or ns), at least 1; set by
 * scope__clock_setup(). */
extern uint64_t scope__clock_resolution;

/* This thread's CPU time in ns: what start-up accounts and time limits
 * count, since on a loaded machine the wall clock also counts the turns
 * other processes had. */
static inline int64_t scope__thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t scope__mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    if (__builtin_expect(scope__clock_drift_ppm != 0, 0))
        ns = scope__clock_drifted(ns);
    /* off the TSC path; a division only when a test asked for rounding */
    if (__builtin_expect(scope__clock_round_ns > 0, 0))
        ns -= ns % scope__clock_round_ns;
    return ns;
}

static inline uint64_t scope__ticks(void)
{
    if (__builtin_expect(scope__clock_tsc, 1))
        return scope__arch_counter();
    return (uint64_t)scope__mono_ns();
}

/* Decides which clock to use (SCOPE_CLOCK=counter|monotonic forces one,
 * `tsc` being the older name of `counter`; SCOPE_CLOCK_ROUND_NS=N > 0
 * forces a CLOCK_MONOTONIC rounded down to N ns; else the CPU counter when
 * scope__arch_counter_usable() says it can be trusted) and measures the
 * chosen clock's step (scope__clock_resolution). Cost: on x86-64 one
 * cpuid and at most one small file read, and a few clock steps (bounded
 * by about 3 ms of spinning on a clock that coarse; well under a
 * microsecond on a fine one). */
void scope__clock_setup(void);

/* Reads a (ticks, ns) calibration pair as close together as possible. */
void scope__clock_pair(uint64_t *ticks, int64_t *ns);

#endif /* SCOPE_CLOCK_H */
