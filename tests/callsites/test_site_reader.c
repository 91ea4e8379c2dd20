/*
 * test_site_reader.c - the reader's call-site API on profiles the
 * call-site tests record (check_sites.py and check_mpi_sites.py run it):
 *
 *   test_site_reader pie PROFILE   prog_sites: one rank, three paths of
 *                                  depth 2 (SITE_A x3, SITE_B x5, SITE_LIB x7)
 *   test_site_reader mpi PROFILE   mpi_sites under mpirun -n 4: two sites of
 *                                  depth 1, 2 + r and 6 - r calls on rank r
 *
 * It asserts exact site counts, frames, per-call sites, per-site
 * statistics per rank and over all ranks, and the errors for bad indices.
 * Which site is which source line is checked by the Python drivers through
 * `scope callsites` (the reader has no symbolizer).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scope_reader.h"

#define CHECK_I CHECK_I64

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int is_hex40(const char *s)
{
    if (strlen(s) != 40)
        return 0;
    for (; *s; s++)
        if (!strchr("0123456789abcdef", *s))
            return 0;
    return 1;
}

static void test_pie(scope_profile *p)
{
    int r = scope_profile_region_index(p, "site_target");
    CHECK(r >= 0);
    CHECK_I(scope_profile_site_count(p), 3);
    CHECK_I(scope_profile_rank_callsite_count(p, 0), 3);
    /* one rank: merged sites are the rank's ids, in capture order */
    static const char *const objs[3] = { "prog_sites", "prog_sites", "libsitelib.so" };
    for (int s = 0; s < 3; s++) {
        const scope_callsite_frame *fr;
        int depth = -1;
        CHECK_I(scope_profile_site_frames(p, s, &fr, &depth), 0);
        CHECK_I(depth, 2);
        CHECK_I(scope_profile_rank_callsite_site(p, 0, s), s);
        if (depth == 2) {
            CHECK(strcmp(base(fr[0].object), objs[s]) == 0);
            CHECK(strcmp(base(fr[1].object), "prog_sites") == 0);
            CHECK(is_hex40(fr[0].build_id));
            CHECK(fr[0].offset > 0);
        }
    }
    const int32_t *sites;
    int64_t n;
    CHECK_I(scope_profile_call_sites(p, r, 0, &sites, &n), 0);
    CHECK_I(n, 15);
    for (int64_t i = 0; sites && i < n; i++)
        CHECK_I(sites[i], i < 3 ? 0 : i < 8 ? 1 : 2);
    scope_stats st[3], none, all, sum = { 0, 0, 0, 0, 0, 0 };
    CHECK_I(scope_profile_site_stats(p, r, SCOPE_ALL_RANKS, st, &none), 0);
    CHECK_I(scope_profile_stats(p, r, SCOPE_ALL_RANKS, &all), 0);
    CHECK_I(st[0].calls, 3);
    CHECK_I(st[1].calls, 5);
    CHECK_I(st[2].calls, 7);
    CHECK_I(none.calls, 0);
    CHECK_I(none.total_ns, 0);
    for (int s = 0; s < 3; s++) {
        sum.total_ns += st[s].total_ns;
        CHECK(st[s].min_ns <= st[s].max_ns && st[s].min_ns >= all.min_ns &&
              st[s].max_ns <= all.max_ns);
        CHECK(st[s].mean_ns * (double)st[s].calls > (double)st[s].total_ns - 0.5 &&
              st[s].mean_ns * (double)st[s].calls < (double)st[s].total_ns + 0.5);
    }
    CHECK_I(sum.total_ns, all.total_ns);
    /* every per-site statistic against the calls themselves: min, max and
     * the population standard deviation of the durations of that site */
    const int64_t *t0, *t1;
    int64_t nt;
    CHECK_I(scope_profile_times(p, r, 0, &t0, &t1, &nt), 0);
    CHECK_I(nt, 15);
    double sd_sum = 0;
    for (int s = 0; s < 3 && nt == 15 && sites; s++) {
        double m = 0, ss = 0;
        int64_t lo = INT64_MAX, hi = INT64_MIN, k = 0;
        for (int64_t i = 0; i < nt; i++)
            if (sites[i] == s) {
                int64_t d = t1[i] - t0[i];
                m += (double)d;
                k++;
                lo = d < lo ? d : lo;
                hi = d > hi ? d : hi;
            }
        m /= (double)k;
        for (int64_t i = 0; i < nt; i++)
            if (sites[i] == s)
                ss += ((double)(t1[i] - t0[i]) - m) * ((double)(t1[i] - t0[i]) - m);
        double sd = sqrt(ss / (double)k);
        CHECK_I(st[s].min_ns, lo);
        CHECK_I(st[s].max_ns, hi);
        CHECK(fabs(st[s].std_ns - sd) <= 1e-6 * (sd > 1 ? sd : 1));
        sd_sum += sd;
    }
    CHECK(sd_sum > 0); /* 15 calls do not all last the same: a zero std fails */
    /* rank 0 alone gives the same numbers */
    scope_stats st0[3];
    CHECK_I(scope_profile_site_stats(p, r, 0, st0, NULL), 0);
    for (int s = 0; s < 3; s++)
        CHECK_I(st0[s].total_ns, st[s].total_ns);

    /* failure paths */
    const scope_callsite_frame *fr;
    int depth;
    CHECK_I(scope_profile_site_frames(p, 3, &fr, &depth), SCOPE_ENOTFOUND);
    CHECK(strstr(scope_reader_errmsg(), "no call site 3 (the profile has 3)") != NULL);
    CHECK_I(scope_profile_site_frames(p, -1, &fr, &depth), SCOPE_ENOTFOUND);
    CHECK_I(scope_profile_rank_callsite_site(p, 0, 3), SCOPE_ENOTFOUND);
    CHECK_STR(scope_reader_errmsg(), "rank 0 has no call path 3 (it has 3)");
    CHECK_I(scope_profile_rank_callsite_count(p, 9), SCOPE_ENOTFOUND);
    CHECK_I(scope_profile_site_stats(p, -1, 0, st, NULL), SCOPE_ENOTFOUND);
    CHECK_I(scope_profile_site_stats(p, r, 9, st, NULL), SCOPE_ENOTFOUND);
    CHECK_I(scope_profile_site_stats(p, r, 0, NULL, NULL), SCOPE_EINVAL);
    CHECK_I(scope_profile_call_sites(p, r, 9, &sites, &n), SCOPE_ENOTFOUND);
}

static void test_mpi(scope_profile *p)
{
    int r = scope_profile_region_index(p, "MPI_Allreduce");
    CHECK(r >= 0);
    CHECK_I(scope_profile_rank_count(p), 4);
    CHECK_I(scope_profile_site_count(p), 2);
    for (int s = 0; s < 2; s++) {
        const scope_callsite_frame *fr;
        int depth = -1;
        CHECK_I(scope_profile_site_frames(p, s, &fr, &depth), 0);
        CHECK_I(depth, 1);
    }
    scope_stats st[2], none;
    for (int rank = 0; rank < 4; rank++) {
        CHECK_I(scope_profile_rank_callsite_count(p, rank), 2);
        /* every rank stored the same two paths under the same ids here,
         * and merging maps them to sites 0 and 1 */
        CHECK_I(scope_profile_rank_callsite_site(p, rank, 0), 0);
        CHECK_I(scope_profile_rank_callsite_site(p, rank, 1), 1);
        CHECK_I(scope_profile_site_stats(p, r, rank, st, &none), 0);
        CHECK_I(st[0].calls, 2 + rank);
        CHECK_I(st[1].calls, 6 - rank);
        CHECK_I(none.calls, 0);
    }
    CHECK_I(scope_profile_site_stats(p, r, SCOPE_ALL_RANKS, st, &none), 0);
    CHECK_I(st[0].calls, 14);
    CHECK_I(st[1].calls, 18);
    /* a region recorded without call sites: every call unattributed */
    int fin = scope_profile_region_index(p, "MPI_Init..MPI_Finalize");
    if (fin >= 0) {
        const int32_t *sites;
        int64_t n;
        CHECK_I(scope_profile_call_sites(p, fin, 0, &sites, &n), 0);
        CHECK(sites == NULL);
        CHECK_I(scope_profile_site_stats(p, fin, SCOPE_ALL_RANKS, st, &none), 0);
        CHECK_I(st[0].calls + st[1].calls, 0);
        CHECK_I(none.calls, 4);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_site_reader pie|mpi PROFILE\n");
        return 2;
    }
    scope_profile *p;
    if (scope_profile_open(argv[2], &p) < 0) {
        fprintf(stderr, "%s\n", scope_reader_errmsg());
        return 1;
    }
    if (strcmp(argv[1], "pie") == 0)
        test_pie(p);
    else
        test_mpi(p);
    scope_profile_close(p);
    return check_result("test_site_reader");
}
