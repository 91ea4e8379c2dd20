/*
 * test_tutorial.c - the oracle from the analysis tutorial: its hand-written
 * two-rank file (rank 0 starts 0, 0.5, 1.0 s with durations 0.2, 0.25,
 * 0.2 s; rank 1 the same durations x 1.6) gives per-rank totals 0.65 s and
 * 1.04 s, 3 calls each, imbalance 1.60x.
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
    scope_profile_close(p);
    return check_result("test_tutorial");
}
