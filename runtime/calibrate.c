/*
 * calibrate.c - measures, once at start, what recording one call costs this
 * process, so readers can subtract it on request (`scope summary
 * --compensate`; docs/format.md, rank attributes overhead_*).
 *
 * A recorded call costs time in two places. Part of the begin/end pair lies
 * between the two clock reads: every recorded duration is inflated by it
 * (overhead_inside_ns). The rest lies before the first read and after the
 * second: the caller's self time absorbs it, once per child call
 * (overhead_caller_ns).
 *
 * Both are measured around a small reference body (a dependent arithmetic
 * chain of some tens of ns, with the same body run by the caller between
 * its child calls), not around nothing: an out-of-order core runs
 * the recorder's stores and clock arithmetic in the shadow of the call's
 * own work, so an empty begin/end pair (overhead_empty_pair_ns, also
 * stored) costs far more than the same pair around real work; subtracting
 * the empty cost over-compensates every real call. Each round times the
 * body bare (N calls, clock outside the loop), then N recorded calls of
 * it: inside = mean recorded duration - bare time, pair = recorded loop -
 * bare loop (caller body + callee body) per call, caller = pair - inside, each term the least over
 * the rounds (noise on a shared machine only ever adds time).
 *
 * The calls go through the real scope_begin/scope_end (the C API path),
 * and, in a process the preload instruments, once more through the real
 * trampoline (a stub of the reference body, scope__calibrate_patched):
 * that path costs more per call (the stub, the register saves, the
 * shadow stack), and its numbers are the ones stored for compensation
 * there (overhead_path says which path was measured). The records go
 * into a throwaway buffer this thread's recording points at meanwhile
 * (scope__swap_records), so nothing reaches the journal. Signals are
 * blocked on this thread for that millisecond: a handler's own records
 * would land in the throwaway buffer and be lost.
 *
 * Cost: ROUNDS * PAIRS * 6 reference calls, about a millisecond per path,
 * once per process. The preload defers it (scope__calibrate_later) in a
 * process that instruments nothing at start: under a broad LD_PRELOAD
 * every command of a job script would otherwise pay it for nothing. In a
 * process it instruments, only the patched path is measured at start; the
 * C API pair's numbers (stored for comparison, not used) are measured when
 * the journal is finished, and only if the program called scope_region():
 * every rank of a job under the default config is spared that millisecond.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "journal.h"
#include "scope.h"
#include "scope_internal.h"
#include "recorder_state.h"

#define ROUNDS 9
#define PAIRS 512

static volatile unsigned sink;

/* The reference body: 32 dependent multiply-adds, about 40 ns. Not
 * static: the preload calls it through a trampoline stub to measure the
 * patched path (scope__calibrate_patched). */
__attribute__((noinline)) void scope__calibrate_body(void)
{
    unsigned x = sink;
    for (int i = 0; i < 32; i++) {
        x = x * 1664525u + 1013904223u;
        __asm__ volatile("" : "+r"(x));
    }
    sink = x;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Mean recorded duration in ticks of buf[1 .. PAIRS], without the slowest
 * 2% (interrupts): a mean, not a median, because on a coarse clock (10 ns
 * steps under kvm-clock) each duration is rounded and only the mean keeps
 * the fraction. -1 if a pair was not completed in place (recorder stopped
 * meanwhile). */
static double mean_duration(const struct scope_rec *buf, uint32_t *durs)
{
    for (int i = 0; i < PAIRS; i++) {
        if (!(buf[1 + i].word & SCOPE_REC_COMPLETE))
            return -1;
        durs[i] = buf[1 + i].aux;
    }
    qsort(durs, PAIRS, sizeof *durs, cmp_u32);
    uint64_t sum = 0;
    int keep = PAIRS - PAIRS / 50;
    for (int i = 0; i < keep; i++)
        sum += durs[i];
    return (double)sum / keep;
}

/* PAIRS recorded calls into buf (PAIRS + 1 slots, the first a chunk
 * guard): `work` or nothing between begin and end of the C API pair, or,
 * with `patched` (a trampoline stub of the body), PAIRS calls of it.
 * Returns the ticks of the loop and leaves the records in buf; -1 if the
 * recorder did not take them all. */
static double recorded_loop(struct scope_rec *buf, int work, void (*patched)(void))
{
    buf[0].word = SCOPE_CHUNK_GUARD;
    buf[0].aux = 0;
    buf[0].ticks = 0;
    struct scope_rec *cur = buf + 1, *end = buf + 1 + PAIRS;
    scope__swap_records(&cur, &end);
    uint64_t t0 = scope__ticks();
    if (patched)
        for (int i = 0; i < PAIRS; i++) {
            scope__calibrate_body(); /* the caller's own work between its child calls */
            patched();
        }
    else if (work)
        for (int i = 0; i < PAIRS; i++) {
            scope__calibrate_body(); /* the caller's own work between its child calls */
            scope_begin(0);
            scope__calibrate_body();
            scope_end(0);
        }
    else
        for (int i = 0; i < PAIRS; i++) {
            scope_begin(0);
            scope_end(0);
        }
    uint64_t t1 = scope__ticks();
    scope__swap_records(&cur, &end);
    return cur == buf + 1 + PAIRS ? (double)(t1 - t0) : -1;
}

/* What one recorded call costs, in ns (see the file comment). */
struct cost {
    double inside, caller, empty;
};

/* Measures the C API pair (patched NULL) or calls of the trampoline stub
 * `patched`. Returns 0, or -1 when a buffer could not be had or the
 * recorder did not take the records (then nothing is stored). */
static int measure(void (*patched)(void), struct cost *out)
{
    struct scope_rec *buf = malloc((PAIRS + 1) * sizeof *buf);
    uint32_t *durs = malloc(PAIRS * sizeof *durs);
    double bare_min = 0, bare2_min = 0, rec_min = 0, loop_min = 0, empty_min = 0;
    int rc = -1;
    sigset_t all, old;
    if (!buf || !durs)
        goto fail_alloc;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    uint64_t c0, c1;
    int64_t n0, n1;
    scope__clock_pair(&c0, &n0);
    /* round 0 warms caches and branch predictors and is not counted */
    for (int r = 0; r <= ROUNDS; r++) {
        uint64_t t0 = scope__ticks();
        for (int i = 0; i < PAIRS; i++)
            scope__calibrate_body();
        uint64_t t1 = scope__ticks();
        for (int i = 0; i < PAIRS; i++) {
            scope__calibrate_body();
            scope__calibrate_body();
        }
        double bare = (double)(t1 - t0) / PAIRS;
        double bare2 = (double)(scope__ticks() - t1) / PAIRS;
        double loop = recorded_loop(buf, 1, patched);
        double rec = loop < 0 ? -1 : mean_duration(buf, durs);
        double eloop = patched ? 0 : recorded_loop(buf, 0, NULL);
        if (loop < 0 || rec < 0 || eloop < 0) {
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            goto fail_alloc;
        }
        if (r == 0)
            continue;
        if (r == 1 || bare < bare_min)
            bare_min = bare;
        if (r == 1 || bare2 < bare2_min)
            bare2_min = bare2;
        if (r == 1 || rec < rec_min)
            rec_min = rec;
        if (r == 1 || loop / PAIRS < loop_min)
            loop_min = loop / PAIRS;
        if (r == 1 || eloop / PAIRS < empty_min)
            empty_min = eloop / PAIRS;
    }
    scope__clock_pair(&c1, &n1);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    double ns_per_tick = c1 > c0 && n1 > n0 ? (double)(n1 - n0) / (double)(c1 - c0) : 1.0;
    double in_ns = (rec_min - bare_min) * ns_per_tick;
    double pair_ns = (loop_min - bare2_min) * ns_per_tick;
    out->inside = in_ns > 0 ? in_ns : 0;
    out->caller = pair_ns - out->inside > 0 ? pair_ns - out->inside : 0;
    out->empty = empty_min * ns_per_tick;
    rc = 0;
fail_alloc:
    free(buf);
    free(durs);
    return rc;
}

static void store(const char *key, double ns)
{
    char v[64];
    snprintf(v, sizeof v, "%.3f", ns);
    scope__set_metadata(key, v);
}

/* The C API pair's cost, for scope__calibrate_patched to keep under its
 * own names. api_later: the patched path was measured without it; it is
 * measured at the end if the program used the C API (api_used, set by
 * scope_region()). */
static struct cost api;
static int api_measured, api_later, api_used;

void scope__calibrate_note_api(void)
{
    __atomic_store_n(&api_used, 1, __ATOMIC_RELAXED);
}

static void store_api(void)
{
    store("rank/overhead_api_inside_ns", api.inside);
    store("rank/overhead_api_caller_ns", api.caller);
    store("rank/overhead_empty_pair_ns", api.empty);
}

void scope__calibrate(void)
{
    if (!scope__hot.on) /* recording is off (scope_init failed later, or a fork child) */
        return;
    if (measure(NULL, &api) < 0)
        return;
    api_measured = 1;
    store("rank/overhead_inside_ns", api.inside);
    store("rank/overhead_caller_ns", api.caller);
    store("rank/overhead_empty_pair_ns", api.empty);
    scope__set_metadata("rank/overhead_path", "scope_begin/scope_end");
}

static void (*later)(void);

void scope__calibrate_later(void (*fn)(void))
{
    later = fn;
}

void scope__calibrate_pending(void)
{
    void (*fn)(void) = __atomic_exchange_n(&later, NULL, __ATOMIC_ACQ_REL);
    if (fn)
        fn();
}

int scope__calibrate_deferred(void)
{
    return __atomic_load_n(&later, __ATOMIC_ACQUIRE) != NULL;
}

void scope__calibrate_patched(void (*stub)(void), const char *path)
{
    struct cost c;
    if (!scope__hot.on)
        return;
    if (!stub || measure(stub, &c) < 0) {
        if (!api_measured)  /* the C API pair's numbers are better than none */
            scope__calibrate();
        return;
    }
    store("rank/overhead_inside_ns", c.inside);
    store("rank/overhead_caller_ns", c.caller);
    scope__set_metadata("rank/overhead_path", path);
    if (api_measured)
        store_api(); /* under their own names: the patched path's are used */
    else
        api_later = 1;
}

void scope__calibrate_api_if_used(void)
{
    if (!api_later || !__atomic_load_n(&api_used, __ATOMIC_RELAXED) || !scope__hot.on)
        return;
    api_later = 0;
    if (measure(NULL, &api) < 0)
        return;
    api_measured = 1;
    store_api();
}
