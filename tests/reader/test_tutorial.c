/*
 * test_tutorial.c - the oracle from the analysis tutorial: its hand-written
 * two-rank file (rank 0 starts 0, 0.5, 1.0 s with durations 0.2, 0.25,
 * 0.2 s; rank 1 the same durations x 1.6) gives per-rank totals 0.65 s and
 * 1.04 s, 3 calls each, imbalance 1.60x (max / min, as the tutorial prints
 * it; max / mean = 1.04 / 0.845 = 1.2308), and its events table: six rows
 * solve rank 0 then rank 1, call_index 0..2, start 0 / 0.5 / 1.0 s (the
 * file has no run start, so the origin is the first entry, 0).
 *
 * usage: test_tutorial PROFILE_DIR
 */
#include <stdio.h>

#include "check.h"
#include "scope_reader.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROFILE_DIR\n", argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/two_ranks.h5", argv[1]);
    scope_profile *p = NULL;
    int rc = scope_profile_open(path, &p);
    CHECK_I64(rc, 0);
    if (rc < 0) {
        fprintf(stderr, "%s\n", scope_reader_errmsg());
        return check_result("test_tutorial");
    }
    CHECK_I64(scope_profile_region_count(p), 1);
    CHECK_STR(scope_profile_region_name(p, 0), "solve");
    CHECK_I64(scope_profile_rank_count(p), 2);
    CHECK_I64(scope_profile_rank(p, 0), 0);
    CHECK_I64(scope_profile_rank(p, 1), 1);

    scope_stats r0, r1, all;
    CHECK_I64(scope_profile_stats(p, 0, 0, &r0), 0);
    CHECK_I64(scope_profile_stats(p, 0, 1, &r1), 0);
    CHECK_I64(scope_profile_stats(p, 0, SCOPE_ALL_RANKS, &all), 0);
    CHECK_I64(r0.calls, 3);
    CHECK_I64(r1.calls, 3);
    CHECK_I64(r0.total_ns, 650000000);
    CHECK_I64(r1.total_ns, 1040000000);
    CHECK_DBL((double)r1.total_ns / (double)r0.total_ns, 1.6, 1e-12);
    CHECK_I64(all.calls, 6);
    CHECK_I64(all.total_ns, 1690000000);
    CHECK_I64(all.min_ns, 200000000);
    CHECK_I64(all.max_ns, 400000000);
    /* durations 0.2 0.25 0.2 0.32 0.4 0.32 s: population std, two ways:
     * combined across ranks must equal the direct computation. */
    double d[6] = { 0.2e9, 0.25e9, 0.2e9, 0.32e9, 0.4e9, 0.32e9 }, m = 0, ss = 0;
    for (int i = 0; i < 6; i++) m += d[i] / 6;
    for (int i = 0; i < 6; i++) ss += (d[i] - m) * (d[i] - m);
    CHECK_DBL(all.mean_ns, m, 1e-3);
    CHECK_DBL(all.std_ns, sqrt(ss / 6), 1e-3);

    int64_t t;
    CHECK_I64(scope_profile_rank_total_ns(p, 0, &t), 0);
    CHECK_I64(t, 650000000);
    CHECK_I64(scope_profile_rank_total_ns(p, 1, &t), 0);
    CHECK_I64(t, 1040000000);
    CHECK_I64(scope_profile_time_span_ns(p, &t), 0);
    CHECK_I64(t, 1320000000);

    const int64_t *s, *e;
    int64_t n;
    CHECK_I64(scope_profile_times(p, 0, 1, &s, &e, &n), 0);
    CHECK_I64(n, 3);
    if (n == 3) {
        CHECK_I64(s[1], 500000000);
        CHECK_I64(e[1], 900000000);
    }

    scope_balance b;
    CHECK_I64(scope_profile_balance(p, 0, &b), 0);
    CHECK_I64(b.ranks, 2);
    CHECK_I64(b.max_rank, 1);
    CHECK_I64(b.min_rank, 0);
    CHECK_I64(b.max_ns, 1040000000);
    CHECK_I64(b.min_ns, 650000000);
    CHECK_DBL(b.mean_ns, 845000000.0, 1e-6);
    CHECK_DBL(b.max_min_ratio, 1.6, 1e-12);
    CHECK_DBL(b.imbalance, 1040.0 / 845.0, 1e-12);
    CHECK_I64(scope_profile_balance(p, 1, &b), SCOPE_ENOTFOUND);

    /* Percentiles (numpy's linear interpolation) of 0.2 0.2 0.25 0.32 0.32
     * 0.4 s: p50 = 0.285, p95 = 0.38, p0 = min, p100 = max. */
    double qs[4] = { 50, 95, 0, 100 }, pv[4];
    CHECK_I64(scope_profile_percentiles(p, 0, SCOPE_ALL_RANKS, qs, 4, pv), 0);
    CHECK_DBL(pv[0], 285e6, 1e-3);
    CHECK_DBL(pv[1], 380e6, 1e-3);
    CHECK_DBL(pv[2], 200e6, 1e-3);
    CHECK_DBL(pv[3], 400e6, 1e-3);
    CHECK_I64(scope_profile_percentiles(p, 0, 1, qs, 1, pv), 0);
    CHECK_DBL(pv[0], 320e6, 1e-3);
    double badq = 101;
    CHECK_I64(scope_profile_percentiles(p, 0, 1, &badq, 1, pv), SCOPE_EINVAL);
    CHECK_STR(scope_reader_errmsg(), "percentile 101 is outside [0, 100]");

    int64_t origin;
    CHECK_I64(scope_profile_run_start_ns(p, &origin), SCOPE_ENOTFOUND);
    CHECK_I64(scope_profile_time_origin_ns(p, &origin), 0);
    CHECK_I64(origin, 0);

    scope_events *it;
    scope_event_query q = { 0 };
    q.call_ids = 1;
    scope_event ev[8];
    CHECK_I64(scope_profile_events_open(p, &q, &it), 0);
    CHECK_I64(scope_events_count(it), 6);
    CHECK_I64(scope_events_read(it, ev, 8), 6);
    static const int64_t st[6] = { 0, 500000000, 1000000000,
                                   0, 500000000, 1000000000 };
    static const int64_t du[6] = { 200000000, 250000000, 200000000,
                                   320000000, 400000000, 320000000 };
    for (int i = 0; i < 6; i++) {
        CHECK_I64(ev[i].region, 0);
        CHECK_I64(ev[i].rank, i / 3);
        CHECK_I64(ev[i].call_index, i % 3);
        CHECK_I64(ev[i].start_ns, st[i]);
        CHECK_I64(ev[i].end_ns - ev[i].start_ns, du[i]);
        CHECK_I64(ev[i].call_id, i % 3);
        CHECK_I64(ev[i].parent_id, -1);
    }
    scope_events_close(it);
    scope_profile_close(p);
    return check_result("test_tutorial");
}
