/*
 * clock.c - choosing the recorder's clock and reading calibration pairs.
 *
 * The CPU's counter (the TSC, or CNTVCT_EL0 on aarch64) costs about half of
 * a vDSO clock_gettime here, which matters when two reads are the whole
 * cost of a region. Whether it can be trusted, and how it is read, is the
 * architecture's (arch/<cpu>/arch_clock.h); choosing, measuring its step
 * and pairing it with CLOCK_MONOTONIC is the same on every CPU, here.
 *
 * The step of the clock is measured here too (the smallest non-zero
 * difference of back-to-back reads): a clock that ticks in microseconds
 * makes many calls last "0 ns" and many records share a timestamp, which
 * the rank file states so that readers and users know what durations mean.
 * SCOPE_CLOCK_ROUND_NS makes the clock that coarse on purpose, for tests.
 */
#include "clock.h"
#include "settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int scope__clock_tsc = 0;
int64_t scope__clock_drift_ppm = 0;

/* The whole reading is scaled (not the time since some start), so every
 * process of a host that sets the same value reads the same clock, as the
 * ranks of one real host do. The TSC path inherits the drift through the
 * calibration pairs, which are read with scope__mono_ns(). */
int64_t scope__clock_drifted(int64_t ns)
{
    return ns + (int64_t)((__int128)ns * scope__clock_drift_ppm / 1000000);
}

/* SCOPE_CLOCK_DRIFT_PPM (a whole number within +-100000, 10 %); a
 * malformed value is said once and no drift applied. */
static void read_drift(void)
{
    scope__setting_say(SCOPE_SET_CLOCK_DRIFT_PPM, "no drift applied");
    scope__clock_drift_ppm = scope__setting(SCOPE_SET_CLOCK_DRIFT_PPM)->i;
}

int64_t scope__clock_round_ns = 0;
uint64_t scope__clock_resolution = 1;

/* SCOPE_CLOCK_ROUND_NS: a positive number of ns, else 0 (off); a
 * malformed value is named, then ignored (a test knob, not a run's). */
static int64_t round_from_env(void)
{
    scope__setting_say(SCOPE_SET_CLOCK_ROUND_NS, "timestamps are not rounded");
    return (int64_t)scope__setting_u(SCOPE_SET_CLOCK_ROUND_NS);
}

/* One tick read of the chosen clock, as the hot path does it. */
static uint64_t read_ticks(void)
{
    return scope__ticks();
}

/* The time limits below count this thread's CPU time, not the wall
 * clock: on a loaded machine the process may lose the core for
 * milliseconds between two reads, and a wall-clock limit then ended the
 * measurement after two samples, whose common divisor could be anything
 * (a TSC reported as "30 ns" resolution). */

/* Waits for the chosen clock to move on from `from`, for at most 2 ms of
 * this thread's CPU time. Returns the new reading, or `from` if it never
 * moved. */
static uint64_t next_step(uint64_t from)
{
    int64_t a = scope__thread_cpu_ns();
    for (unsigned n = 1;; n++) {
        uint64_t t = read_ticks();
        if (t != from)
            return t;
        if ((n & 63) == 0 && scope__thread_cpu_ns() - a > 2000000)
            return from;
    }
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The step of the chosen clock, in ticks: the greatest common divisor of
 * the changes seen between successive distinct readings (up to 100 of
 * them, at least 2; no more once 2 ms of this thread's CPU time are
 * spent, which only a very coarse clock takes). A clock that ticks in steps of s only ever changes
 * by multiples of s; a fine clock's changes (a read costs tens of ticks,
 * and varies) have no common divisor beyond 1 after a few reads. So this
 * is the clock's granularity, not the cost of reading it: a fine counter gives 1,
 * a clock rounded to 1 us gives 1000 ns. A clock that never moves within
 * 2 ms is given a 2 ms step (in ns mode; the counter always moves). */
static uint64_t measure_resolution(void)
{
    uint64_t t = next_step(read_ticks()), step = 0;
    int64_t a = scope__thread_cpu_ns();
    for (int i = 0; i < 100; i++) {
        uint64_t n = next_step(t);
        if (n > t)
            step = gcd_u64(step, n - t);
        t = n;
        if (step == 1)
            break;
        if (i >= 1 && scope__thread_cpu_ns() - a > 2000000)
            break;
    }
    if (step == 0)
        return scope__clock_tsc ? 1 : 2000000;
    return step;
}

static void choose_clock(void)
{
    read_drift();
    const char *force = scope__setting_text(SCOPE_SET_CLOCK);
    scope__setting_say(SCOPE_SET_CLOCK, "the clock is chosen as when unset");
    scope__clock_round_ns = round_from_env();
    if (scope__clock_round_ns > 0 || (force && strcmp(force, "monotonic") == 0))
        scope__clock_tsc = 0;
    else if (force) /* counter, or its names tsc and cntvct */
        scope__clock_tsc = 1;
    else
        scope__clock_tsc = scope__arch_counter_usable();
}

void scope__clock_setup(void)
{
    choose_clock();
    scope__clock_resolution = measure_resolution();
}

/* Reads ns between two tick reads and keeps the tightest of a few tries,
 * so the pair's error is bounded by the smallest observed window. */
void scope__clock_pair(uint64_t *ticks, int64_t *ns)
{
    if (!scope__clock_tsc) {
        *ns = scope__mono_ns();
        *ticks = (uint64_t)*ns;
        return;
    }
    uint64_t best_width = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t t0 = scope__arch_counter();
        int64_t n = scope__mono_ns();
        uint64_t t1 = scope__arch_counter();
        if (t1 - t0 < best_width) {
            best_width = t1 - t0;
            *ticks = t0 + (t1 - t0) / 2;
            *ns = n;
        }
    }
}
