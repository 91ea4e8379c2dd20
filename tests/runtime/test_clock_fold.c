/*
 * test_clock_fold.c - the converter's ticks -> ns map with a clock model
 * folded in (convert/journal_read.h, convert/clock_model.c) gives every
 * timestamp within a nanosecond of the exact aligned time
 *   local + o_i + (local - t_i) * (o_f - o_i) / (t_f - t_i),
 * however far the timestamp is from the map's base.
 *
 * Why a test of its own: a CLOCK_MONOTONIC journal maps from base 0, so a
 * timestamp is ~10^13..10^14 ns from the base (the machine's uptime plus
 * a simulated host's offset of hours). With mult rounded to 2^-32 ns the
 * fold of a phantom drift of a few ppm moved such timestamps by up to
 * ~10 us, beyond the alignment's bounds of a few us, and the simulated
 * hosts' tests saw a message received before it was sent about once in a
 * hundred runs. Here the cases are exact and deterministic:
 *   mono_drift    measurements taken from a real run (offsets of +-2 h
 *                 and +1 h, drifts of +76 and -13 ppm) on a CLOCK_MONOTONIC
 *                 journal, timestamps before, between and after them;
 *   mono_single   init measurement only: local + o_i exactly;
 *   tsc_long      a TSC journal of 10 hours at 2.9 GHz: the calibration
 *                 line itself exact to a ns at its start, middle and end,
 *                 and with a drift folded in;
 *   stated_rate   a counter journal of 2 ms, too short to calibrate from
 *                 its own pairs, whose CPU stated its rate (aarch64's
 *                 CNTFRQ_EL0, 62.5 MHz as under qemu): the stated rate,
 *                 exact, not this machine's counter measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clock_model.h"
#include "journal_read.h"

/* floor(a / b) for b > 0: the model's exact value, rounded down. */
static __int128 floor_div(__int128 a, __int128 b)
{
    __int128 q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int64_t exact_aligned(int64_t t, int64_t ti, int64_t oi, int64_t tf, int64_t of)
{
    if (tf == 0)
        return t + oi;
    return (int64_t)(t + oi + floor_div((__int128)(t - ti) * (of - oi), (__int128)tf - ti));
}

/* A journal of header fields only (the clock's kind), no file behind. */
static void make_jr(struct scope_jr *jr, uint32_t kind)
{
    memset(jr, 0, sizeof *jr);
    jr->hdr.clock_kind = kind;
}

/* Gives jr the clock model's strings for init (ti, oi) and finalize (tf,
 * of; tf 0: none), folds the model in and checks scope__jr_ns at each of `ts` (local ticks) against the
 * exact alignment of `ns_of_ticks` (the local ns the ticks stand for). */
static void check_fold(struct scope_jr *jr, int64_t ti, int64_t oi, int64_t tf, int64_t of,
                       const uint64_t *ts, const int64_t *local_ns, int n)
{
    char init[128], fin[128];
    snprintf(init, sizeof init, "%lld %lld 1000 2000 0", (long long)ti, (long long)oi);
    snprintf(fin, sizeof fin, "%lld %lld 20000 40000 0", (long long)tf, (long long)of);
    char *kv[6] = { "scope.clock.init", init, "scope.clock.host", "1 3" };
    size_t n_kv = 4;
    if (tf != 0) {
        kv[n_kv++] = "scope.clock.finalize";
        kv[n_kv++] = fin;
    }
    jr->kv = kv;
    jr->n_kv = n_kv;
    scope__jr_calibrate(jr);
    struct scope__clock_model m;
    scope__clock_model_from_journal(&m, jr);
    CHECK(m.init.valid);
    CHECK(m.fin.valid == (tf != 0));
    scope__clock_model_fold(&m, jr);
    for (int i = 0; i < n; i++) {
        int64_t want = exact_aligned(local_ns[i], ti, oi, tf, of);
        int64_t got = scope__jr_ns(jr, ts[i]);
        int64_t diff = got - want;
        if (diff < -1 || diff > 1)
            fprintf(stderr, "  t=%lld: got %lld, exact %lld\n", (long long)local_ns[i],
                    (long long)got, (long long)want);
        CHECK(diff >= -1 && diff <= 1);
    }
}

static void mono_case(int64_t ti, int64_t oi, int64_t tf, int64_t of)
{
    struct scope_jr jr;
    make_jr(&jr, SCOPE_CLOCK_NS);
    jr.hdr.start_ns = ti - 300000000;
    jr.hdr.start_ticks = (uint64_t)jr.hdr.start_ns;
    jr.hdr.end_ns = (tf ? tf : ti) + 1000000;
    jr.hdr.end_ticks = (uint64_t)jr.hdr.end_ns;
    int64_t span = (tf ? tf : ti + 275000000) - ti;
    int64_t ns[] = { jr.hdr.start_ns, ti - 1, ti, ti + 1, ti + span / 3, ti + span / 2 + 7,
                     ti + span - 12345, ti + span, jr.hdr.end_ns, ti + span * 5 };
    uint64_t ts[sizeof ns / sizeof ns[0]];
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        ts[i] = (uint64_t)ns[i];
    check_fold(&jr, ti, oi, tf, of, ts, ns, (int)(sizeof ns / sizeof ns[0]));
}

static void mono_drift(void)
{
    /* hostB, +2 h: a +76 ppm phantom drift within the bounds */
    mono_case(40886617330156, -7200000000014, 40886892714496, -7199999979054);
    /* hostC, -1 h: -13 ppm */
    mono_case(30086617892341, 3600000004199, 30086892747369, 3600000000556);
    /* a day of uptime plus 10 h of offset, a 1 s run, the largest drift
     * the model accepts (a tenth: a damaged journal beyond) */
    mono_case(122400000000000, -36000000000000, 122401000000000, -35999900000000);
}

static void mono_single(void)
{
    mono_case(40886617330156, -7200000000014, 0, 0);
}

/* 10 h at 2.9 GHz; ns(t) = start_ns + (t - start_ticks) * span / ticks. */
static void tsc_long(void)
{
    struct scope_jr jr;
    make_jr(&jr, SCOPE_CLOCK_TSC);
    const int64_t span = 36000000000000;
    const uint64_t ticks = (uint64_t)span / 10 * 29 + 12345;
    jr.hdr.start_ticks = 1000000000007;
    jr.hdr.start_ns = 5000000000003;
    jr.hdr.end_ticks = jr.hdr.start_ticks + ticks;
    jr.hdr.end_ns = jr.hdr.start_ns + span;
    scope__jr_calibrate(&jr);
    uint64_t at[] = { 0, 1, ticks / 3, ticks / 2, ticks - 1, ticks };
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        int64_t want = jr.hdr.start_ns + (int64_t)((__int128)at[i] * span / ticks);
        int64_t got = scope__jr_ns(&jr, jr.hdr.start_ticks + at[i]);
        CHECK(got - want >= -1 && got - want <= 1);
    }
    /* a drift folded into the same line: +50 ppm over the 10 h */
    int64_t ti = jr.hdr.start_ns + 1000000, tf = jr.hdr.start_ns + span - 1000000;
    uint64_t ts[sizeof at / sizeof at[0]];
    int64_t ns[sizeof at / sizeof at[0]];
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        ts[i] = jr.hdr.start_ticks + at[i];
        ns[i] = jr.hdr.start_ns + (int64_t)((__int128)at[i] * span / ticks);
    }
    int64_t oi = 1234567890123, of = oi + (tf - ti) / 20000;
    check_fold(&jr, ti, oi, tf, of, ts, ns, (int)(sizeof at / sizeof at[0]));
}

/* 2 ms at a stated 62.5 MHz: 16 ns per tick, exactly. */
static void stated_rate(void)
{
    struct scope_jr jr;
    make_jr(&jr, SCOPE_CLOCK_TSC);
    jr.hdr.counter_hz = 62500000;
    jr.hdr.start_ticks = 112263608743419875ull;
    jr.hdr.start_ns = 7000000000001;
    jr.hdr.end_ticks = jr.hdr.start_ticks + 125000;
    jr.hdr.end_ns = jr.hdr.start_ns + 2000000;
    scope__jr_calibrate(&jr);
    uint64_t at[] = { 0, 1, 62500, 125000, 62500000 };
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        CHECK_I64(scope__jr_ns(&jr, jr.hdr.start_ticks + at[i]),
                  jr.hdr.start_ns + (int64_t)at[i] * 16);
}

int main(void)
{
    mono_drift();
    mono_single();
    tsc_long();
    stated_rate();
    return check_result("test_clock_fold");
}
