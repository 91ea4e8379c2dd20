/*
 * test_layouts.c - one run opened every way docs/format.md allows gives the same
 * profile: the index file (external links, from any working folder), the
 * merged file, the folder of rank files, and the rank files as two paths.
 * Also: names decoded from the `name` attribute (a/b, ".", "100%"), the
 * run start from /metadata, region order by first start, the duplicate-
 * rank error, lookups out of range, and a two-rank scope-profiler schema 3
 * file whose start deltas restart at each (rank, region) slice, and a
 * folder of more rank files than the reader keeps open at once.
 *
 * The run (make_profiles.py):
 *   rank 0: main [2000,10000]; a/b [3000,4000] [5000,5500]; . [6000,6100];
 *           100% [7000,7050] [7100,7200] [7200,7400]
 *   rank 1: main [2500,11000]; a/b [3000,4500]
 *
 * usage: test_layouts PROFILE_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "scope_reader.h"

static const char *dir;

static scope_profile *open2(const char *a, const char *b)
{
    char pa[4096], pb[4096];
    const char *paths[2] = { pa, pb };
    snprintf(pa, sizeof pa, "%s/%s", dir, a);
    snprintf(pb, sizeof pb, "%s/%s", dir, b ? b : "");
    scope_profile *p = NULL;
    int rc = scope_profile_open_paths(paths, b ? 2 : 1, &p);
    CHECK_I64(rc, 0);
    if (rc < 0)
        fprintf(stderr, "%s: %s\n", a, scope_reader_errmsg());
    return p;
}

static void check_run(scope_profile *p, const char *how)
{
    fprintf(stderr, "checking the run opened as %s\n", how);
    if (!p)
        return;
    CHECK_I64(scope_profile_region_count(p), 4);
    CHECK_STR(scope_profile_region_name(p, 0), "main");
    CHECK_STR(scope_profile_region_name(p, 1), "a/b");
    CHECK_STR(scope_profile_region_name(p, 2), ".");
    CHECK_STR(scope_profile_region_name(p, 3), "100%");
    CHECK(scope_profile_region_name(p, 4) == NULL);
    CHECK_I64(scope_profile_region_index(p, "100%"), 3);
    CHECK_I64(scope_profile_region_index(p, "a%2Fb"), SCOPE_ENOTFOUND);
    CHECK_STR(scope_reader_errmsg(), "no region called \"a%2Fb\"");
    CHECK_I64(scope_profile_rank_count(p), 2);
    CHECK_I64(scope_profile_rank(p, 0), 0);
    CHECK_I64(scope_profile_rank(p, 1), 1);
    CHECK_I64(scope_profile_rank(p, 2), SCOPE_ENOTFOUND);

    CHECK_I64(scope_profile_calls(p, 1, 0), 2);
    CHECK_I64(scope_profile_calls(p, 1, 1), 1);
    CHECK_I64(scope_profile_calls(p, 1, SCOPE_ALL_RANKS), 3);
    CHECK_I64(scope_profile_calls(p, 2, 1), 0);        /* "." not on rank 1 */
    CHECK_I64(scope_profile_calls(p, 9, 0), SCOPE_ENOTFOUND);
    CHECK_I64(scope_profile_calls(p, 0, 7), SCOPE_ENOTFOUND);
    CHECK_STR(scope_reader_errmsg(), "no rank 7 in this profile");

    scope_stats st;
    CHECK_I64(scope_profile_stats(p, 0, SCOPE_ALL_RANKS, &st), 0);
    CHECK_I64(st.calls, 2);
    CHECK_I64(st.total_ns, 16500);
    CHECK_I64(st.min_ns, 8000);
    CHECK_I64(st.max_ns, 8500);
    CHECK_DBL(st.mean_ns, 8250.0, 1e-9);
    CHECK_DBL(st.std_ns, 250.0, 1e-9);
    CHECK_I64(scope_profile_stats(p, 1, SCOPE_ALL_RANKS, &st), 0);
    CHECK_I64(st.total_ns, 3000);
    CHECK_DBL(st.std_ns, sqrt(500000.0 / 3.0), 1e-9);
    CHECK_I64(scope_profile_stats(p, 1, 0, &st), 0);
    CHECK_I64(st.calls, 2);
    CHECK_I64(st.total_ns, 1500);
    CHECK_DBL(st.std_ns, 250.0, 1e-9);
    CHECK_I64(scope_profile_stats(p, 3, 0, &st), 0);
    CHECK_I64(st.total_ns, 350);
    CHECK_I64(st.min_ns, 50);
    CHECK_I64(st.max_ns, 200);
    CHECK_I64(scope_profile_stats(p, 2, 1, &st), 0);   /* no calls: zeros */
    CHECK_I64(st.calls, 0);
    CHECK_I64(st.total_ns, 0);
    CHECK_I64(st.min_ns, 0);
    CHECK_DBL(st.std_ns, 0.0, 0.0);
    CHECK_I64(scope_profile_stats(p, -1, 0, &st), SCOPE_ENOTFOUND);

    const int64_t *s, *e;
    int64_t n;
    CHECK_I64(scope_profile_times(p, 3, 0, &s, &e, &n), 0);
    CHECK_I64(n, 3);
    if (n == 3) {
        CHECK_I64(s[2], 7200);
        CHECK_I64(e[2], 7400);
    }
    CHECK_I64(scope_profile_times(p, 2, 1, &s, &e, &n), 0);
    CHECK_I64(n, 0);
    CHECK(s == NULL && e == NULL);

    int64_t v;
    CHECK_I64(scope_profile_run_start_ns(p, &v), 0);
    CHECK_I64(v, 1000);
    CHECK_I64(scope_profile_time_origin_ns(p, &v), 0);
    CHECK_I64(v, 1000);
    CHECK_I64(scope_profile_min_start_ns(p, &v), 0);
    CHECK_I64(v, 2000);
    CHECK_I64(scope_profile_max_end_ns(p, &v), 0);
    CHECK_I64(v, 11000);
    CHECK_I64(scope_profile_time_span_ns(p, &v), 0);
    CHECK_I64(v, 9000);
    CHECK_I64(scope_profile_rank_total_ns(p, 0, &v), 0);
    CHECK_I64(v, 9950);
    CHECK_I64(scope_profile_rank_total_ns(p, 1, &v), 0);
    CHECK_I64(v, 10000);
    CHECK_I64(scope_profile_rank_total_ns(p, SCOPE_ALL_RANKS, &v), 0);
    CHECK_I64(v, 19950);
    scope_profile_close(p);
}

static void check_schema3_two(void)
{
    scope_profile *p = open2("schema3_two.h5", NULL);
    if (!p)
        return;
    CHECK_I64(scope_profile_region_count(p), 2);
    CHECK_STR(scope_profile_region_name(p, 0), "solve");
    CHECK_STR(scope_profile_region_name(p, 1), "io");
    const int64_t *s, *e;
    int64_t n;
    CHECK_I64(scope_profile_times(p, 0, 1, &s, &e, &n), 0);
    CHECK_I64(n, 2);
    if (n == 2) {
        CHECK_I64(s[0], 100); CHECK_I64(e[0], 101);
        CHECK_I64(s[1], 110); CHECK_I64(e[1], 113);
    }
    CHECK_I64(scope_profile_times(p, 1, 1, &s, &e, &n), 0);
    CHECK_I64(n, 1);
    if (n == 1) {
        CHECK_I64(s[0], 105); CHECK_I64(e[0], 109);
    }
    CHECK_I64(scope_profile_calls(p, 1, 0), 0);
    scope_stats st;
    CHECK_I64(scope_profile_stats(p, 0, SCOPE_ALL_RANKS, &st), 0);
    CHECK_I64(st.calls, 4);
    CHECK_I64(st.total_ns, 22);
    int64_t v;
    CHECK_I64(scope_profile_time_span_ns(p, &v), 0);
    CHECK_I64(v, 103);
    scope_profile_close(p);
}

/* Where each rank's data lives (scope_profile_rank_source and friends,
 * what `scope merge` copies): the index's links lead to the rank files,
 * a columnar file's ranks have no group. */
static void check_sources(void)
{
    char want[4200];
    const char *file = NULL, *group = NULL;
    scope_profile *p = open2("run.h5", NULL);
    if (!p)
        return;
    CHECK_I64(scope_profile_rank_source(p, 1, &file, &group), 0);
    snprintf(want, sizeof want, "%s/run.ranks/rank1.h5", dir);
    CHECK_STR(file, want);
    CHECK_STR(group, "/rank1");
    CHECK_I64(scope_profile_rank_source(p, 2, &file, &group), SCOPE_ENOTFOUND);
    CHECK_I64(scope_profile_rank_source(p, -1, &file, &group), SCOPE_ENOTFOUND);
    snprintf(want, sizeof want, "%s/run.h5", dir);
    CHECK_STR(scope_profile_metadata_file(p), want);
    CHECK_I64(scope_profile_file_count(p), 3);
    CHECK_STR(scope_profile_file(p, 0), want);
    CHECK(scope_profile_file(p, 3) == NULL);
    scope_profile_close(p);

    p = open2("schema3_two.h5", NULL);
    if (!p)
        return;
    CHECK_I64(scope_profile_rank_source(p, 0, &file, &group), 0);
    snprintf(want, sizeof want, "%s/schema3_two.h5", dir);
    CHECK_STR(file, want);
    CHECK(group == NULL);
    CHECK_I64(scope_profile_file_count(p), 1);
    scope_profile_close(p);
    CHECK(scope_profile_metadata_file(NULL) == NULL);
    CHECK_I64(scope_profile_file_count(NULL), 0);
}

/* 40 rank files, more than the reader keeps open: reading them in an
 * order that cycles through all files forces closes and reopens. */
static void check_many_files(void)
{
    scope_profile *p = open2("many.ranks", NULL);
    if (!p)
        return;
    CHECK_I64(scope_profile_rank_count(p), 40);
    CHECK_STR(scope_profile_region_name(p, 0), "step");
    CHECK_STR(scope_profile_region_name(p, 1), "io");
    for (int pass = 0; pass < 2; pass++)
        for (int r = 0; r < 2; r++)
            for (int k = 39; k >= 0; k--) {
                const int64_t *s, *e;
                int64_t n;
                CHECK_I64(scope_profile_times(p, r, k, &s, &e, &n), 0);
                CHECK_I64(n, 1);
                if (n == 1) {
                    CHECK_I64(s[0], 10 * k + 5 * r);
                    CHECK_I64(e[0] - s[0], r ? 1 : k + 1);
                }
            }
    scope_stats st;
    CHECK_I64(scope_profile_stats(p, 0, SCOPE_ALL_RANKS, &st), 0);
    CHECK_I64(st.calls, 40);
    CHECK_I64(st.total_ns, 820);        /* 1 + 2 + ... + 40 */
    int64_t v;
    CHECK_I64(scope_profile_max_end_ns(p, &v), 0);
    CHECK_I64(v, 430);                  /* rank 39: 390 + 40 */
    scope_profile_close(p);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROFILE_DIR\n", argv[0]);
        return 2;
    }
    char abs[4096];
    dir = realpath(argv[1], abs) ? abs : argv[1];

    check_run(open2("run.h5", NULL), "index file");
    check_run(open2("merged.h5", NULL), "merged file");
    check_run(open2("run.ranks", NULL), "folder");
    check_run(open2("run.ranks/", NULL), "folder with a slash");
    check_run(open2("run.ranks/rank1.h5", "run.ranks/rank0.h5"), "two paths");

    /* The index's links are relative to its folder, not to the cwd. */
    if (chdir(dir) == 0) {
        scope_profile *p = NULL;
        CHECK_I64(scope_profile_open("run.h5", &p), 0);
        check_run(p, "index file, relative path");
        CHECK(chdir("/") == 0);
    }

    /* Index plus its own folder: every rank twice. */
    char pa[4096], pb[4096], want[9000];
    const char *paths[2] = { pa, pb };
    snprintf(pa, sizeof pa, "%s/run.h5", dir);
    snprintf(pb, sizeof pb, "%s/run.ranks", dir);
    scope_profile *p = (scope_profile *)1;
    CHECK_I64(scope_profile_open_paths(paths, 2, &p), SCOPE_EDUP);
    CHECK(p == NULL);
    snprintf(want, sizeof want, "rank 0 appears twice: in %s/run.ranks/"
             "rank0.h5 (linked from %s/run.h5) and in %s/run.ranks/rank0.h5",
             dir, dir, dir);
    CHECK_STR(scope_reader_errmsg(), want);
    snprintf(pa, sizeof pa, "%s/merged.h5", dir);
    snprintf(pb, sizeof pb, "%s/run.ranks/rank1.h5", dir);
    CHECK_I64(scope_profile_open_paths(paths, 2, &p), SCOPE_EDUP);
    snprintf(want, sizeof want, "rank 1 appears twice: in %s/merged.h5 and "
             "in %s/run.ranks/rank1.h5", dir, dir);
    CHECK_STR(scope_reader_errmsg(), want);

    check_schema3_two();
    check_sources();
    check_many_files();
    CHECK_I64(scope_profile_open_paths(paths, 0, &p), SCOPE_EINVAL);
    scope_profile_close(NULL);
    return check_result("test_layouts");
}
