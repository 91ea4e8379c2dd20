/*
 * test_fixtures.c - the reader opens the three real scope-profiler files
 * (schema 1: groups; schema 2: columnar start/end; schema 3: columnar
 * start deltas + durations) and gets the same numbers from each: one rank,
 * one region "solve", calls [10,15] [20,33] [40,55] ns.
 *
 * usage: test_fixtures FIXTURE_DIR
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "scope_reader.h"

static void check_fixture(const char *dir, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    scope_profile *p = NULL;
    int rc = scope_profile_open(path, &p);
    CHECK_I64(rc, 0);
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", file, scope_reader_errmsg());
        return;
    }
    CHECK_I64(scope_profile_region_count(p), 1);
    CHECK_STR(scope_profile_region_name(p, 0), "solve");
    CHECK_I64(scope_profile_region_index(p, "solve"), 0);
    CHECK_I64(scope_profile_rank_count(p), 1);
    CHECK_I64(scope_profile_rank(p, 0), 0);
    CHECK_I64(scope_profile_calls(p, 0, 0), 3);
    CHECK_I64(scope_profile_calls(p, 0, SCOPE_ALL_RANKS), 3);

    const int64_t *s, *e;
    int64_t n;
    CHECK_I64(scope_profile_times(p, 0, 0, &s, &e, &n), 0);
    CHECK_I64(n, 3);
    if (n == 3) {
        CHECK_I64(s[0], 10); CHECK_I64(s[1], 20); CHECK_I64(s[2], 40);
        CHECK_I64(e[0], 15); CHECK_I64(e[1], 33); CHECK_I64(e[2], 55);
    }

    scope_stats st;
    CHECK_I64(scope_profile_stats(p, 0, SCOPE_ALL_RANKS, &st), 0);
    CHECK_I64(st.calls, 3);
    CHECK_I64(st.total_ns, 33);
    CHECK_I64(st.min_ns, 5);
    CHECK_I64(st.max_ns, 15);
    CHECK_DBL(st.mean_ns, 11.0, 1e-12);
    /* population std of {5, 13, 15}: sqrt(56 / 3) */
    CHECK_DBL(st.std_ns, sqrt(56.0 / 3.0), 1e-12);

    int64_t v = -1;
    /* scope-profiler files record no run start: origin = first entry */
    CHECK_I64(scope_profile_run_start_ns(p, &v), SCOPE_ENOTFOUND);
    CHECK_I64(scope_profile_time_origin_ns(p, &v), 0);
    CHECK_I64(v, 10);
    CHECK_I64(scope_profile_min_start_ns(p, &v), 0);
    CHECK_I64(v, 10);
    CHECK_I64(scope_profile_max_end_ns(p, &v), 0);
    CHECK_I64(v, 55);
    CHECK_I64(scope_profile_time_span_ns(p, &v), 0);
    CHECK_I64(v, 45);
    CHECK_I64(scope_profile_rank_total_ns(p, 0, &v), 0);
    CHECK_I64(v, 33);
    scope_profile_close(p);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURE_DIR\n", argv[0]);
        return 2;
    }
    check_fixture(argv[1], "schema1.h5");
    check_fixture(argv[1], "schema2.h5");
    check_fixture(argv[1], "schema3.h5");
    return check_result("test_fixtures");
}
