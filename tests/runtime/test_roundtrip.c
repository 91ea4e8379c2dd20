/*
 * test_roundtrip.c - nested and recursive regions go through the journal
 * and the HDF5 writer and come back from the reader with exact values.
 *
 * Runs with SCOPE_CLOCK=monotonic so recorded ticks are nanoseconds, and
 * records at known timestamps with scope__record_at(); then records real
 * calls through SCOPE_SCOPED (with an early return) and checks counts and
 * nesting. The real calls may share timestamps (meson runs this test again
 * with SCOPE_CLOCK_ROUND_NS, a clock as coarse as 1 ms): their nesting is
 * checked through the call stack, which follows the recorded order.
 *
 * usage: test_roundtrip OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "scope.h"
#include "scope_internal.h"
#include "scope_reader.h"

static int scoped_work(int n)
{
    SCOPE_SCOPED("scoped");
    if (n == 0)
        return 0; /* early return still closes the region */
    return 1 + scoped_work(n - 1);
}

static void check_times(scope_profile *p, const char *name, const int64_t *s, const int64_t *e,
                        int64_t n)
{
    int r = scope_profile_region_index(p, name);
    CHECK(r >= 0);
    if (r < 0)
        return;
    const int64_t *gs, *ge;
    int64_t gn = -1;
    CHECK_I64(scope_profile_times(p, r, 0, &gs, &ge, &gn), 0);
    CHECK_I64(gn, n);
    for (int64_t i = 0; i < n && i < gn; i++) {
        CHECK_I64(gs[i], s[i]);
        CHECK_I64(ge[i], e[i]);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char out[4096];
    snprintf(out, sizeof out, "%s/roundtrip.h5", argv[1]);
    setenv("SCOPE_CLOCK", "monotonic", 1);
    scope_options o = { .output = out };
    CHECK_I64(scope_init(&o), 0);
    CHECK_I64(scope_init(&o), 0); /* idempotent */

    int32_t a = scope_region("outer"), b = scope_region("inner"), r = scope_region("recurse");
    CHECK(a >= 0 && b >= 0 && r >= 0);
    CHECK_I64(scope_region("outer"), a);
    CHECK_I64(scope_region(""), SCOPE_EINVAL);
    CHECK_I64(scope_region(NULL), SCOPE_EINVAL);

    /* outer [1000,1500] contains inner [1100,1200] and [1250,1300] */
    scope__record_at(a, 0, 1000);
    scope__record_at(b, 0, 1100);
    scope__record_at(b, 1, 1200);
    scope__record_at(b, 0, 1250);
    scope__record_at(b, 1, 1300);
    scope__record_at(a, 1, 1500);
    /* recursion three deep: starts 2000, 2100, 2200; ends 2500, 2400, 2300 */
    scope__record_at(r, 0, 2000);
    scope__record_at(r, 0, 2100);
    scope__record_at(r, 0, 2200);
    scope__record_at(r, 1, 2300);
    scope__record_at(r, 1, 2400);
    scope__record_at(r, 1, 2500);
    /* an end without a begin is ignored */
    scope__record_at(a, 1, 2600);

    CHECK_I64(scoped_work(4), 4); /* five nested "scoped" calls, real clock */

    CHECK_I64(scope_finalize(), 0);
    CHECK_I64(scope_finalize(), 0); /* idempotent */

    scope_profile *p = NULL;
    int rc = scope_profile_open(out, &p);
    CHECK_I64(rc, 0);
    if (rc < 0) {
        fprintf(stderr, "%s\n", scope_reader_errmsg());
        return check_result("test_roundtrip");
    }
    CHECK_I64(scope_profile_rank_count(p), 1);
    CHECK_I64(scope_profile_region_count(p), 4);
    /* sorted by first start */
    CHECK_STR(scope_profile_region_name(p, 0), "outer");
    CHECK_STR(scope_profile_region_name(p, 1), "inner");
    CHECK_STR(scope_profile_region_name(p, 2), "recurse");
    CHECK_STR(scope_profile_region_name(p, 3), "scoped");

    check_times(p, "outer", (int64_t[]){ 1000 }, (int64_t[]){ 1500 }, 1);
    check_times(p, "inner", (int64_t[]){ 1100, 1250 }, (int64_t[]){ 1200, 1300 }, 2);
    check_times(p, "recurse", (int64_t[]){ 2000, 2100, 2200 }, (int64_t[]){ 2500, 2400, 2300 }, 3);

    scope_stats st;
    CHECK_I64(scope_profile_stats(p, scope_profile_region_index(p, "inner"), 0, &st), 0);
    CHECK_I64(st.calls, 2);
    CHECK_I64(st.total_ns, 150);
    CHECK_I64(st.min_ns, 50);
    CHECK_I64(st.max_ns, 100);

    /* the real-clock recursion: 5 calls, each containing the next */
    int s = scope_profile_region_index(p, "scoped");
    const int64_t *gs, *ge;
    int64_t n = 0;
    CHECK_I64(scope_profile_times(p, s, 0, &gs, &ge, &n), 0);
    CHECK_I64(n, 5);
    for (int64_t i = 0; i + 1 < n; i++) {
        CHECK(gs[i] <= gs[i + 1]);
        CHECK(ge[i + 1] <= ge[i]);
    }
    /* each scoped call is the only child of the one before it */
    scope_call_stack *cs = NULL;
    CHECK_I64(scope_profile_call_stack(p, 0, SCOPE_ALL_THREADS, &cs), 0);
    const scope_call *calls = scope_call_stack_calls(cs);
    int64_t prev = -1, seen = 0;
    for (int64_t i = 0; i < scope_call_stack_count(cs); i++) {
        if (calls[i].region != s)
            continue;
        CHECK_I64(calls[i].call_index, seen);
        CHECK_I64(calls[i].depth, seen);
        CHECK_I64(calls[i].parent, prev);
        const int64_t *kids;
        int64_t nk = -1;
        CHECK_I64(scope_call_stack_children(cs, i, &kids, &nk), 0);
        CHECK_I64(nk, seen < 4 ? 1 : 0);
        prev = i;
        seen++;
    }
    CHECK_I64(seen, 5);
    scope_call_stack_free(cs);
    int64_t run_start = 0;
    CHECK_I64(scope_profile_run_start_ns(p, &run_start), 0);
    CHECK(run_start > 0 && gs[0] >= run_start);
    /* the stored clock step is the clock's granularity, not its read cost:
     * exactly the rounding a coarse clock run asked for, else a fine clock
     * (a TSC or CLOCK_MONOTONIC: at most a few ns) */
    int64_t res = -1;
    CHECK_I64(scope_profile_clock_resolution_ns(p, 0, &res), 0);
    const char *round = getenv("SCOPE_CLOCK_ROUND_NS");
    if (round && *round)
        CHECK_I64(res, strtoll(round, NULL, 10));
    else
        CHECK(res >= 1 && res <= 20);
    scope_profile_close(p);
    return check_result("test_roundtrip");
}
