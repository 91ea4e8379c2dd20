/*
 * test_hostfiles.c - a run whose ranks share host files (docs/format.md
 * "The files of a run") reads exactly as the same run in rank files:
 * through the index (external links into host files; into a mix of host
 * and rank files), as a folder of host and rank files, as one host file
 * opened directly, and as several host files given as paths. Every
 * (region, rank): calls, statistics, times, and the rank attributes the
 * reader caches at open (integer, string, float). A host file the index
 * links to but that is missing leaves its ranks missing, named with the
 * file, and the other ranks read. Each rank names the file that holds
 * it (scope_profile_rank_file): the host file, or its rank file.
 *
 * The run (make_profiles.py, section 10): 6 ranks, nodeA = 0, 2, 4 and
 * nodeB = 1, 3, 5;
 *   "solve" on rank r: r + 1 calls, call i lasts 10 (i + 1) + r ns
 *   "io" on odd ranks: 1 call of 5 ns
 *   pid = 100 + r, hostname = node, overhead_inside_ns = r / 2
 *
 * usage: test_hostfiles PROFILE_DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scope_reader.h"

static const char *dir;

static scope_profile *open_n(const char *const *rel, int n)
{
    char buf[4][4096];
    const char *paths[4];
    for (int i = 0; i < n; i++) {
        snprintf(buf[i], sizeof buf[i], "%s/hosts/%s", dir, rel[i]);
        paths[i] = buf[i];
    }
    scope_profile *p = NULL;
    int rc = scope_profile_open_paths(paths, n, &p);
    if (rc < 0)
        fprintf(stderr, "open %s: %s\n", rel[0], scope_reader_errmsg());
    CHECK_I64(rc, 0);
    return p;
}

static scope_profile *open1(const char *rel)
{
    return open_n(&rel, 1);
}

/* The exact numbers of rank r, from the formulas above. */
static void check_rank_numbers(scope_profile *p, int r)
{
    int solve = scope_profile_region_index(p, "solve");
    int io = scope_profile_region_index(p, "io");
    CHECK(solve >= 0);
    scope_stats st;
    CHECK_I64(scope_profile_stats(p, solve, r, &st), 0);
    int64_t n = r + 1, total = 0, mn = 10 + r, mx = 10 * n + r;
    for (int64_t i = 0; i < n; i++)
        total += 10 * (i + 1) + r;
    CHECK_I64(st.calls, n);
    CHECK_I64(st.total_ns, total);
    CHECK_I64(st.min_ns, mn);
    CHECK_I64(st.max_ns, mx);
    CHECK(fabs(st.mean_ns - (double)total / (double)n) < 1e-9);
    const int64_t *s, *e;
    int64_t len;
    CHECK_I64(scope_profile_times(p, solve, r, &s, &e, &len), 0);
    CHECK_I64(len, n);
    for (int64_t i = 0; i < len; i++) {
        CHECK_I64(s[i], 1000 * r + 100 * i);
        CHECK_I64(e[i], 1000 * r + 100 * i + 10 * (i + 1) + r);
    }
    if (io >= 0)
        CHECK_I64(scope_profile_calls(p, io, r), r % 2);
    else
        CHECK_I64(r % 2, 0);    /* only even ranks: no "io" region at all */
    int64_t v;
    CHECK_I64(scope_profile_rank_attr_int(p, r, "pid", &v), 0);
    CHECK_I64(v, 100 + r);
    char host[32];
    CHECK_I64(scope_profile_rank_attr_string(p, r, "hostname", host, sizeof host), 5);
    CHECK_STR(host, r % 2 ? "nodeB" : "nodeA");
    double d;
    CHECK_I64(scope_profile_rank_attr_double(p, r, "overhead_inside_ns", &d), 0);
    CHECK(d == r / 2.0);
    CHECK_I64(scope_profile_rank_attr_double(p, r, "pid", &d), 0);
    CHECK(d == 100.0 + r);
    /* what is absent or of another type is absent, as HDF5 says */
    CHECK_I64(scope_profile_rank_attr_int(p, r, "dropped_events", &v), SCOPE_ENOTFOUND);
    CHECK_I64(scope_profile_rank_attr_int(p, r, "hostname", &v), SCOPE_ENOTFOUND);
    CHECK_I64(scope_profile_rank_attr_int(p, r, "overhead_inside_ns", &v), SCOPE_ENOTFOUND);
    CHECK_I64(scope_profile_rank_attr_string(p, r, "pid", host, sizeof host),
              SCOPE_ENOTFOUND);
    char want[64];
    snprintf(want, sizeof want, "/rank%d has no integer attribute \"complet\"", r);
    CHECK_I64(scope_profile_rank_attr_int(p, r, "complet", &v), SCOPE_ENOTFOUND);
    CHECK_STR(scope_reader_errmsg(), want);
    CHECK_I64(scope_profile_rank_attr_int(p, r, "complete", &v), 0);
    CHECK_I64(v, 1);
}

/* p has exactly the ranks `ranks` (ascending) and, for each, the same
 * regions, calls, statistics and times as the reference q. */
static void check_same(scope_profile *p, scope_profile *q, const int *ranks, int n)
{
    CHECK_I64(scope_profile_rank_count(p), n);
    for (int k = 0; k < n && k < scope_profile_rank_count(p); k++)
        CHECK_I64(scope_profile_rank(p, k), ranks[k]);
    int odd = 0;    /* "io" is recorded on odd ranks only */
    for (int k = 0; k < n; k++)
        odd |= ranks[k] % 2;
    CHECK_I64(scope_profile_region_count(p), scope_profile_region_count(q) - !odd);
    for (int g = 0; g < scope_profile_region_count(q); g++) {
        const char *name = scope_profile_region_name(q, g);
        int gp = scope_profile_region_index(p, name);
        CHECK(gp >= 0 || (!odd && strcmp(name, "io") == 0));
        if (gp < 0)
            continue;
        for (int k = 0; k < n; k++) {
            scope_stats a, b;
            CHECK_I64(scope_profile_stats(p, gp, ranks[k], &a), 0);
            CHECK_I64(scope_profile_stats(q, g, ranks[k], &b), 0);
            CHECK(memcmp(&a, &b, sizeof a) == 0);
            const int64_t *sa, *ea, *sb, *eb;
            int64_t na, nb;
            CHECK_I64(scope_profile_times(p, gp, ranks[k], &sa, &ea, &na), 0);
            CHECK_I64(scope_profile_times(q, g, ranks[k], &sb, &eb, &nb), 0);
            CHECK_I64(na, nb);
            if (na == nb && na > 0) {
                CHECK(memcmp(sa, sb, (size_t)na * sizeof *sa) == 0);
                CHECK(memcmp(ea, eb, (size_t)na * sizeof *ea) == 0);
            }
        }
    }
    for (int k = 0; k < n; k++)
        check_rank_numbers(p, ranks[k]);
    int64_t a, b;
    CHECK_I64(scope_profile_max_end_ns(p, &a), 0);
    CHECK_I64(scope_profile_max_end_ns(q, &b), 0);
    if (n == 6)
        CHECK_I64(a, b);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROFILE_DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    static const int all[6] = { 0, 1, 2, 3, 4, 5 };
    static const int node_a[3] = { 0, 2, 4 }, node_b[3] = { 1, 3, 5 };

    scope_profile *ref = open1("perrank/run.h5");
    if (!ref)
        return check_result("test_hostfiles");
    check_same(ref, ref, all, 6);
    /* region order by first start: solve (rank 0 at 0) before io (1090) */
    CHECK_STR(scope_profile_region_name(ref, 0), "solve");
    CHECK_I64(scope_profile_calls(ref, 0, SCOPE_ALL_RANKS), 1 + 2 + 3 + 4 + 5 + 6);

    const char *layouts[] = {
        "perhost/run.h5",       /* index -> two host files */
        "mixed/run.h5",         /* index -> a host file and rank files */
        "mixed/run.ranks",      /* a folder of both */
        "perhost/run.ranks",    /* a folder of host files */
    };
    for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++) {
        scope_profile *p = open1(layouts[i]);
        if (p)
            check_same(p, ref, all, 6);
        scope_profile_close(p);
    }
    /* one host file opened directly: its ranks only */
    scope_profile *p = open1("perhost/run.ranks/host-nodeB.h5");
    if (p)
        check_same(p, ref, node_b, 3);
    scope_profile_close(p);
    /* host files as paths, and a host file beside rank files */
    const char *two[] = { "perhost/run.ranks/host-nodeB.h5",
                          "perhost/run.ranks/host-nodeA.h5" };
    if ((p = open_n(two, 2)))
        check_same(p, ref, all, 6);
    scope_profile_close(p);
    const char *mix[] = { "mixed/run.ranks/rank5.h5", "mixed/run.ranks/host-nodeA.h5",
                          "mixed/run.ranks/rank1.h5", "mixed/run.ranks/rank3.h5" };
    if ((p = open_n(mix, 4)))
        check_same(p, ref, all, 6);
    scope_profile_close(p);
    /* the same rank in a host file and in a rank file: EDUP names both */
    const char *dup[] = { "perhost/run.ranks/host-nodeB.h5", "mixed/run.ranks/rank3.h5" };
    char pa[4096], pb[4096], want[9000];
    snprintf(pa, sizeof pa, "%s/hosts/%s", dir, dup[0]);
    snprintf(pb, sizeof pb, "%s/hosts/%s", dir, dup[1]);
    const char *dpaths[2] = { pa, pb };
    p = NULL;
    CHECK_I64(scope_profile_open_paths(dpaths, 2, &p), SCOPE_EDUP);
    snprintf(want, sizeof want, "rank 3 appears twice: in %s and in %s", pa, pb);
    CHECK_STR(scope_reader_errmsg(), want);
    CHECK(p == NULL);

    /* nodeB's host file is missing: nodeA's ranks read, nodeB's are
     * missing and named with the file */
    if ((p = open1("missing/run.h5"))) {
        check_same(p, ref, node_a, 3);
        CHECK_I64(scope_profile_missing_rank_count(p), 3);
        char gone[4200];
        snprintf(gone, sizeof gone, "%s/hosts/missing/run.ranks/host-nodeB.h5", dir);
        for (int i = 0; i < 3; i++) {
            CHECK_I64(scope_profile_missing_rank(p, i), node_b[i]);
            CHECK_STR(scope_profile_missing_rank_file(p, i), gone);
        }
        CHECK_I64(scope_profile_missing_rank(p, 3), SCOPE_ENOTFOUND);
        CHECK(scope_profile_missing_rank_file(p, 3) == NULL);
    }
    scope_profile_close(p);
    /* the file of each rank: the host file the index links to, or the
     * rank file (mixed), or the one file opened */
    static const struct { const char *open, *holds[6]; } files[] = {
        { "perhost/run.h5", { "perhost/run.ranks/host-nodeA.h5", "perhost/run.ranks/host-nodeB.h5",
                              "perhost/run.ranks/host-nodeA.h5", "perhost/run.ranks/host-nodeB.h5",
                              "perhost/run.ranks/host-nodeA.h5", "perhost/run.ranks/host-nodeB.h5" } },
        { "mixed/run.h5", { "mixed/run.ranks/host-nodeA.h5", "mixed/run.ranks/rank1.h5",
                            "mixed/run.ranks/host-nodeA.h5", "mixed/run.ranks/rank3.h5",
                            "mixed/run.ranks/host-nodeA.h5", "mixed/run.ranks/rank5.h5" } },
        { "perrank/run.h5", { "perrank/run.ranks/rank0.h5", "perrank/run.ranks/rank1.h5",
                              "perrank/run.ranks/rank2.h5", "perrank/run.ranks/rank3.h5",
                              "perrank/run.ranks/rank4.h5", "perrank/run.ranks/rank5.h5" } },
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if ((p = open1(files[i].open))) {
            for (int r = 0; r < 6; r++) {
                char holds[4200];
                snprintf(holds, sizeof holds, "%s/hosts/%s", dir, files[i].holds[r]);
                CHECK_STR(scope_profile_rank_file(p, r), holds);
            }
            CHECK(scope_profile_rank_file(p, 6) == NULL);
            CHECK(scope_profile_rank_file(p, -1) == NULL);
            scope_profile_close(p);
        }
    if ((p = open1("perhost/run.ranks/host-nodeB.h5"))) {
        char holds[4200];
        snprintf(holds, sizeof holds, "%s/hosts/perhost/run.ranks/host-nodeB.h5", dir);
        CHECK_STR(scope_profile_rank_file(p, 3), holds);
        CHECK(scope_profile_rank_file(p, 2) == NULL);
        scope_profile_close(p);
    }
    CHECK(scope_profile_rank_file(NULL, 0) == NULL);
    /* the other layouts miss nothing */
    for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++)
        if ((p = open1(layouts[i]))) {
            CHECK_I64(scope_profile_missing_rank_count(p), 0);
            scope_profile_close(p);
        }
    scope_profile_close(ref);
    return check_result("test_hostfiles");
}
