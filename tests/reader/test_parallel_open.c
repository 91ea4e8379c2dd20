/*
 * test_parallel_open.c - opening a run in worker processes (reader/
 * open_workers.c) gives exactly the profile the serial open gives: the
 * same ranks, regions in the same order, every (region, rank)'s calls,
 * statistics (bit for bit) and times, the same cached rank attributes, and
 * on a damaged run the same first error. Checked for 1 (serial), 2, 3 and
 * 7 jobs and the default, on rank files, on host files mixed with rank
 * files, and against the numbers the generator wrote.
 *
 * The run (make_profiles.py, section 11): 300 ranks;
 *   "solve" on rank r: r % 7 + 1 calls, call i lasts 3 i + r % 11 + 1 ns
 *   "io" on ranks r % 3 == 0: 2 calls of 7 and 9 ns
 *   "big" on rank 150 only: 70,000 calls, call i lasts i % 5 ns (read
 *         lazily, after the open)
 *   pid = 5000 + r, hostname = host-<r / 75>, overhead_inside_ns = r / 4
 *   operations: "io" MPI_Send_c (its attribute), "MPI_Bcast" (rank 3 only,
 *         no attribute: its name), "big" none (an operation this reader
 *         does not know), "solve" none
 *
 * usage: test_parallel_open PROFILE_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scope_reader.h"

#define MANY 300

static const char *dir;

/* Opens many/<name>/run.h5 with SCOPE_READER_JOBS=jobs ("" = unset). */
static int open_jobs(const char *name, const char *jobs, scope_profile **p)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/many/%s/run.h5", dir, name);
    if (jobs[0])
        setenv("SCOPE_READER_JOBS", jobs, 1);
    else
        unsetenv("SCOPE_READER_JOBS");
    *p = NULL;
    return scope_profile_open(path, p);
}

/* The numbers make_profiles.py wrote for rank r. */
static void check_numbers(scope_profile *p, int r)
{
    scope_stats st;
    int solve = scope_profile_region_index(p, "solve");
    CHECK_I64(scope_profile_stats(p, solve, r, &st), 0);
    int64_t n = r % 7 + 1, total = 0, mx = 0;
    for (int64_t i = 0; i < n; i++) {
        total += 3 * i + r % 11 + 1;
        mx = 3 * i + r % 11 + 1;
    }
    CHECK_I64(st.calls, n);
    CHECK_I64(st.total_ns, total);
    CHECK_I64(st.min_ns, r % 11 + 1);
    CHECK_I64(st.max_ns, mx);
    CHECK_I64(scope_profile_calls(p, scope_profile_region_index(p, "io"), r),
              r % 3 == 0 ? 2 : 0);
    int64_t v;
    CHECK_I64(scope_profile_rank_attr_int(p, r, "pid", &v), 0);
    CHECK_I64(v, 5000 + r);
    char host[32], want[32];
    snprintf(want, sizeof want, "host-%d", r / 75);
    CHECK_I64(scope_profile_rank_attr_string(p, r, "hostname", host, sizeof host),
              (int64_t)strlen(want));
    CHECK_STR(host, want);
    double d;
    CHECK_I64(scope_profile_rank_attr_double(p, r, "overhead_inside_ns", &d), 0);
    CHECK(d == r / 4.0);
    CHECK_I64(scope_profile_rank_attr_int(p, r, "complete", &v), 0);
    CHECK_I64(v, 1);
    CHECK_I64(scope_profile_rank_attr_int(p, r, "dropped_events", &v), SCOPE_ENOTFOUND);
    CHECK_STR(scope_profile_region_operation(p, scope_profile_region_index(p, "io")),
              "MPI_Send_c");
    CHECK_STR(scope_profile_region_operation(p, scope_profile_region_index(p, "MPI_Bcast")),
              "MPI_Bcast");
    CHECK(scope_profile_region_operation(p, scope_profile_region_index(p, "big")) == NULL);
    CHECK(scope_profile_region_operation(p, scope_profile_region_index(p, "solve")) == NULL);
    CHECK_I64(scope_profile_calls(p, scope_profile_region_index(p, "MPI_Bcast"), r), r == 3);
}

/* p is q, number for number: ranks, regions and their order, every
 * (region, rank)'s statistics bit for bit and times, rank attributes. */
static void check_same(scope_profile *p, scope_profile *q)
{
    CHECK_I64(scope_profile_rank_count(p), scope_profile_rank_count(q));
    CHECK_I64(scope_profile_region_count(p), scope_profile_region_count(q));
    int nr = scope_profile_rank_count(q), ng = scope_profile_region_count(q);
    if (nr != scope_profile_rank_count(p) || ng != scope_profile_region_count(p))
        return;
    for (int k = 0; k < nr; k++)
        CHECK_I64(scope_profile_rank(p, k), scope_profile_rank(q, k));
    for (int g = 0; g < ng; g++) {
        CHECK_STR(scope_profile_region_name(p, g), scope_profile_region_name(q, g));
        const char *oa = scope_profile_region_operation(p, g),
                   *ob = scope_profile_region_operation(q, g);
        CHECK(!oa == !ob);
        if (oa && ob)
            CHECK_STR(oa, ob);
        for (int k = 0; k < nr; k++) {
            int r = scope_profile_rank(q, k);
            scope_stats a, b;
            int ra = scope_profile_stats(p, g, r, &a), rb = scope_profile_stats(q, g, r, &b);
            CHECK_I64(ra, rb);
            CHECK(ra < 0 || memcmp(&a, &b, sizeof a) == 0);
            const int64_t *sa, *ea, *sb, *eb;
            int64_t na = 0, nb = 0;
            CHECK_I64(scope_profile_times(p, g, r, &sa, &ea, &na),
                      scope_profile_times(q, g, r, &sb, &eb, &nb));
            CHECK_I64(na, nb);
            if (na == nb && na > 0) {
                CHECK(memcmp(sa, sb, (size_t)na * sizeof *sa) == 0);
                CHECK(memcmp(ea, eb, (size_t)na * sizeof *ea) == 0);
            }
        }
        scope_stats a, b;
        CHECK_I64(scope_profile_stats(p, g, SCOPE_ALL_RANKS, &a), 0);
        CHECK_I64(scope_profile_stats(q, g, SCOPE_ALL_RANKS, &b), 0);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
    for (int k = 0; k < nr; k++) {
        int r = scope_profile_rank(q, k);
        int64_t va, vb;
        double da, db;
        char sa[64], sb[64];
        CHECK_I64(scope_profile_rank_attr_int(p, r, "pid", &va),
                  scope_profile_rank_attr_int(q, r, "pid", &vb));
        CHECK_I64(va, vb);
        CHECK_I64(scope_profile_rank_attr_double(p, r, "overhead_inside_ns", &da),
                  scope_profile_rank_attr_double(q, r, "overhead_inside_ns", &db));
        CHECK(da == db);
        CHECK_I64(scope_profile_rank_attr_string(p, r, "hostname", sa, sizeof sa),
                  scope_profile_rank_attr_string(q, r, "hostname", sb, sizeof sb));
        CHECK_STR(sa, sb);
    }
    int64_t a, b;
    CHECK_I64(scope_profile_max_end_ns(p, &a), 0);
    CHECK_I64(scope_profile_max_end_ns(q, &b), 0);
    CHECK_I64(a, b);
    CHECK_I64(scope_profile_time_span_ns(p, &a), 0);
    CHECK_I64(scope_profile_time_span_ns(q, &b), 0);
    CHECK_I64(a, b);
}

static void check_layout(const char *name, scope_profile *ref)
{
    static const char *const jobs[] = { "1", "2", "3", "7", "" };
    for (size_t j = 0; j < sizeof jobs / sizeof *jobs; j++) {
        scope_profile *p;
        int rc = open_jobs(name, jobs[j], &p);
        if (rc < 0)
            fprintf(stderr, "open %s with %s jobs: %s\n", name, jobs[j], scope_reader_errmsg());
        CHECK_I64(rc, 0);
        if (rc < 0)
            continue;
        CHECK_I64(scope_profile_rank_count(p), MANY);
        check_same(p, ref);
        for (int r = 0; r < MANY; r += 37)
            check_numbers(p, r);
        check_numbers(p, MANY - 1);
        int big = scope_profile_region_index(p, "big");
        scope_stats st;
        CHECK_I64(scope_profile_stats(p, big, 150, &st), 0);
        CHECK_I64(st.calls, 70000);
        CHECK_I64(st.total_ns, 70000 / 5 * (0 + 1 + 2 + 3 + 4));
        CHECK_I64(st.max_ns, 4);
        scope_profile_close(p);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROFILE_DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    scope_profile *ref;
    CHECK_I64(open_jobs("perrank", "1", &ref), 0);
    if (!ref)
        return check_result("test_parallel_open");
    for (int r = 0; r < MANY; r++)
        check_numbers(ref, r);
    check_layout("perrank", ref);
    check_layout("perhost", ref);

    /* A damaged run fails the same way whatever the jobs: the first error
     * in file order (rank 80's, in the second host file; rank 230's in the
     * fourth comes later), never a worker's message of its own. */
    scope_profile *p;
    CHECK_I64(open_jobs("broken", "1", &p), SCOPE_EFORMAT);
    char want[1024];
    snprintf(want, sizeof want, "%s", scope_reader_errmsg());
    CHECK(strstr(want, "/rank80/regions/solve has 2 start times but 1 end times") != NULL);
    static const char *const jobs[] = { "2", "3", "7", "" };
    for (size_t j = 0; j < sizeof jobs / sizeof *jobs; j++) {
        CHECK_I64(open_jobs("broken", jobs[j], &p), SCOPE_EFORMAT);
        CHECK(p == NULL);
        CHECK_STR(scope_reader_errmsg(), want);
    }
    scope_profile_close(ref);
    return check_result("test_parallel_open");
}
