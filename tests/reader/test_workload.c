/*
 * test_workload.c - the structure of the tutorial's workload as recorded by
 * our recorder (tutorial_workload.c): 21 calls, 5 regions in first-entry
 * order, call_ids as the tutorial prints them (solve call_index 5 is call
 * 19, child of call 17), depth/parent pattern, every timestep containing
 * [assemble, solve], container self time far below its total. Times come
 * from a real clock on a shared machine, so only structure and generous
 * bounds are checked, never tight timings.
 *
 * usage: test_workload PROFILE.h5
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scope_reader.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROFILE.h5\n", argv[0]);
        return 2;
    }
    scope_profile *p = NULL;
    int rc = scope_profile_open(argv[1], &p);
    CHECK_I64(rc, 0);
    if (rc < 0) {
        fprintf(stderr, "%s\n", scope_reader_errmsg());
        return check_result("test_workload");
    }
    static const char *const names[5] = { "setup", "timestep", "assemble",
                                          "solve", "checkpoint" };
    static const int calls[5] = { 1, 6, 6, 6, 2 };
    CHECK_I64(scope_profile_region_count(p), 5);
    CHECK_I64(scope_profile_rank_count(p), 1);
    for (int r = 0; r < 5; r++) {
        CHECK_STR(scope_profile_region_name(p, r), names[r]);
        CHECK_I64(scope_profile_calls(p, r, SCOPE_ALL_RANKS), calls[r]);
    }
    /* The run start precedes the first entry (startup time >= 0). */
    int64_t start, first, origin;
    CHECK_I64(scope_profile_run_start_ns(p, &start), 0);
    CHECK_I64(scope_profile_min_start_ns(p, &first), 0);
    CHECK_I64(scope_profile_time_origin_ns(p, &origin), 0);
    CHECK(start <= first);
    CHECK_I64(origin, start);

    scope_call_stack *cs = NULL;
    CHECK_I64(scope_profile_call_stack(p, 0, SCOPE_ALL_THREADS, &cs), 0);
    if (!cs) {
        fprintf(stderr, "%s\n", scope_reader_errmsg());
        scope_profile_close(p);
        return check_result("test_workload");
    }
    CHECK_I64(scope_call_stack_count(cs), 21);
    const scope_call *c = scope_call_stack_calls(cs);
    /* setup, then per step: timestep, assemble, solve (+ checkpoint after
     * steps 2 and 5). */
    int64_t i = 0;
    CHECK_STR(scope_profile_region_name(p, c[0].region), "setup");
    CHECK_I64(c[0].depth, 0);
    i = 1;
    for (int step = 0; step < 6 && i + 2 < 21; step++) {
        int64_t ts = i;
        CHECK_STR(scope_profile_region_name(p, c[ts].region), "timestep");
        CHECK_I64(c[ts].depth, 0);
        CHECK_I64(c[ts].parent, -1);
        CHECK_I64(c[ts].call_index, step);
        CHECK_STR(scope_profile_region_name(p, c[ts + 1].region), "assemble");
        CHECK_STR(scope_profile_region_name(p, c[ts + 2].region), "solve");
        CHECK_I64(c[ts + 1].parent, ts);
        CHECK_I64(c[ts + 2].parent, ts);
        CHECK_I64(c[ts + 1].depth, 1);
        CHECK_I64(c[ts + 2].depth, 1);
        CHECK_I64(c[ts + 2].self_ns, c[ts + 2].end_ns - c[ts + 2].start_ns);
        const int64_t *kids;
        int64_t nk = 0;
        CHECK_I64(scope_call_stack_children(cs, ts, &kids, &nk), 0);
        CHECK_I64(nk, 2);
        /* A container: its own time is what is left between the children,
         * far below the >= 4 ms they take (structural, not a timing). */
        CHECK(c[ts].self_ns >= 0);
        CHECK(c[ts].self_ns < (c[ts].end_ns - c[ts].start_ns) / 2);
        i += 3;
        if (step % 3 == 2) {
            CHECK_STR(scope_profile_region_name(p, c[i].region),
                      "checkpoint");
            CHECK_I64(c[i].parent, -1);
            i++;
        }
    }
    CHECK_I64(i, 21);
    const int64_t *roots;
    int64_t nroots = 0;
    CHECK_I64(scope_call_stack_children(cs, -1, &roots, &nroots), 0);
    CHECK_I64(nroots, 9);    /* setup, 6 timesteps, 2 checkpoints */
    /* The solve gets slower: each call at least as long as the sleep. */
    int solve = scope_profile_region_index(p, "solve");
    const int64_t *s, *e;
    int64_t n;
    CHECK_I64(scope_profile_times(p, solve, 0, &s, &e, &n), 0);
    for (int64_t k = 0; k < n; k++)
        CHECK(e[k] - s[k] >= (2 + k) * 1000000);

    /* The tutorial's printed dict: solve call_index 5 is call 19 whose
     * parent is call 17. */
    scope_event_query q = { 0 };
    const char *inc[] = { "^solve$" };
    q.include = inc;
    q.ninclude = 1;
    q.call_ids = 1;
    scope_events *it;
    scope_event ev[8];
    CHECK_I64(scope_profile_events_open(p, &q, &it), 0);
    CHECK_I64(scope_events_read(it, ev, 8), 6);
    CHECK_I64(ev[5].call_index, 5);
    CHECK_I64(ev[5].call_id, 19);
    CHECK_I64(ev[5].parent_id, 17);
    CHECK(ev[0].start_ns > 0);     /* relative to the run start */
    scope_events_close(it);
    scope_call_stack_free(cs);
    scope_profile_close(p);
    return check_result("test_workload");
}
