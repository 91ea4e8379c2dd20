/*
 * scope_reader_compare.h - "did it get slower?" with statistics: two sets
 * of runs of the same program (A, the baseline, and B) compared region by
 * region, with a bootstrap confidence interval of each change, a
 * rank-based test (Mann-Whitney U) and a verdict. Part of libscope_reader;
 * include it after scope_reader.h. docs/analysis.md "Comparing runs" says
 * what the figures mean and when they can be trusted.
 *
 *     scope_profile *a[5], *b[5];          // opened with scope_profile_open
 *     scope_compare_options o;
 *     scope_compare_options_init(&o);      // 95 %, 10,000 resamples, seed 1
 *     scope_compare_result *res;
 *     if (scope_compare_sets(a, 5, b, 5, &o, &res) == 0) {
 *         for (int64_t i = 0; i < scope_compare_count(res); i++) {
 *             const scope_region_change *c = scope_compare_row(res, i);
 *             printf("%s %s %+.1f %%\n", c->region,
 *                    scope_compare_verdict_name(c->verdict),
 *                    100 * c->median_change);
 *         }
 *         scope_compare_free(res);
 *     }
 *
 * Two kinds of samples:
 *  - per run (default): each run gives one figure per region (and rank):
 *    the median duration of its calls and the total of their durations.
 *    The runs are the independent repetitions the statistics assume.
 *  - per call (options.calls = 1): every call's duration is one sample,
 *    the calls of all the runs of a set pooled. For one run each; valid
 *    only as far as calls are independent (docs/analysis.md).
 *
 * The statistics themselves (scope_stat_*) are pure functions over arrays
 * of doubles, exported so that tests and other tools can check them.
 */
#ifndef SCOPE_READER_COMPARE_H
#define SCOPE_READER_COMPARE_H

#include <stdint.h>

#include "scope_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The statistics                                                      */

/* scope_stat_mann_whitney methods, as scipy.stats.mannwhitneyu's. */
enum scope_mwu_method {
    SCOPE_MWU_AUTO = 0,         /* exact when either sample has at most 8
                                   values and no value is tied, else
                                   asymptotic (scipy's 'auto') */
    SCOPE_MWU_EXACT = 1,        /* the exact null distribution of U (no
                                   tie handling: ties make it approximate) */
    SCOPE_MWU_ASYMPTOTIC = 2,   /* normal approximation with the tie
                                   correction and a continuity correction */
};

typedef struct scope_mwu {
    double u;                   /* U of x: pairs (x_i, y_j) with x_i > y_j,
                                   ties counting 1/2 (scipy's U1) */
    double p;                   /* two-sided p-value, in [0, 1] */
    int32_t method;             /* SCOPE_MWU_EXACT or _ASYMPTOTIC: used */
    int32_t ties;               /* 1 when some value occurs twice */
} scope_mwu;

/* The two-sided Mann-Whitney U test of x against y (nx, ny >= 1; NaNs are
 * not allowed). Same U, p-value and method choice as
 * scipy.stats.mannwhitneyu(x, y, alternative='two-sided',
 * use_continuity=True, method=...). Returns 0, SCOPE_EINVAL (empty sample,
 * NaN, unknown method) or SCOPE_ENOMEM. Cost: sorting nx + ny values;
 * the exact distribution costs O(min(nx,ny)^2 * max(nx,ny)) time and
 * 16 * nx * ny bytes, so an exact request with nx * ny above 10^6 is
 * answered asymptotically (method says so; with one side of at most 8
 * values, as 'auto' picks exact, the other then has over 125,000 and
 * the normal approximation is as good). */
SCOPE_READER_API int scope_stat_mann_whitney(const double *x, int64_t nx,
                                             const double *y, int64_t ny,
                                             int method, scope_mwu *out);

/* The smallest two-sided p-value the exact test can give with samples of
 * nx and ny values: 2 / C(nx + ny, nx), capped at 1. When it is not below
 * 1 - level, no result of that size can be called a change at that level.
 * Pure, O(min(nx, ny)). */
SCOPE_READER_API double scope_stat_mwu_min_p(int64_t nx, int64_t ny);

/* The fewest runs per set (the same number on each side) at which the
 * exact two-sided test can reject at `level` (e.g. 4 at 0.95: 3 vs 3 gives
 * at best p = 0.1). Pure. */
SCOPE_READER_API int scope_stat_min_runs(double level);

/* Bootstrap statistics: the change from x to y. */
enum scope_boot_statistic {
    SCOPE_BOOT_MEDIAN_RATIO = 0,    /* median(y) / median(x) - 1 */
    SCOPE_BOOT_MEDIAN_DIFF = 1,     /* median(y) - median(x) */
    SCOPE_BOOT_SUM_RATIO = 2,       /* sum(y) / sum(x) - 1 */
};

/* The median of v (n >= 1; the mean of the two middle values for even n,
 * as numpy.median). NaN when n < 1. Cost: a copy and a sort. */
SCOPE_READER_API double scope_stat_median(const double *v, int64_t n);

/* A two-sided percentile bootstrap confidence interval of `statistic`
 * (enum scope_boot_statistic) of x and y, resampled independently (each
 * sample with replacement, its own size), `resamples` times, from a
 * xoshiro256** generator seeded with `seed` (the same seed gives the same
 * interval). The interval is the (1-level)/2 and (1+level)/2 quantiles of
 * the resampled statistics, interpolated linearly (numpy's default), as
 * scipy.stats.bootstrap(method='percentile'). A ratio whose denominator
 * resamples to 0 is left out of the quantiles; all of them: NaN. Returns
 * 0, SCOPE_EINVAL (empty sample, level outside (0, 1), resamples < 2) or
 * SCOPE_ENOMEM. Cost: resamples * (nx + ny) random draws and a linear
 * selection each, then a sort of the resampled statistics. */
SCOPE_READER_API int scope_stat_bootstrap_ci(const double *x, int64_t nx,
                                             const double *y, int64_t ny,
                                             int statistic, double level,
                                             int resamples, uint64_t seed,
                                             double *lo, double *hi);

/* ------------------------------------------------------------------ */
/* Comparing sets of runs                                              */

enum scope_compare_verdict {
    SCOPE_VERDICT_NO_CHANGE = 0,    /* the test does not reject: no change
                                       the data can show (not: proof of
                                       none; the interval bounds it) */
    SCOPE_VERDICT_SLOWER = 1,       /* rejects, and B's figure is larger */
    SCOPE_VERDICT_FASTER = 2,       /* rejects, and B's figure is smaller */
    SCOPE_VERDICT_UNTESTED = 3,     /* too few samples for the test to ever
                                       reject at the level (see
                                       scope_stat_mwu_min_p) */
    SCOPE_VERDICT_ONLY_A = 4,       /* the region has no calls in B */
    SCOPE_VERDICT_ONLY_B = 5,       /* the region has no calls in A */
};

/* The figure that decides the verdict and the order. */
enum scope_compare_metric {
    SCOPE_COMPARE_MEDIAN = 0,       /* the median per-call time */
    SCOPE_COMPARE_TOTAL = 1,        /* the total time */
};

typedef struct scope_compare_options {
    double level;           /* confidence level of the intervals, and
                               1 - level is the test's significance
                               level; in (0, 1); default 0.95 */
    int32_t resamples;      /* bootstrap resamples, >= 2; default 10,000 */
    int32_t rank;           /* SCOPE_ALL_RANKS (default): every rank's
                               calls together; or one rank number */
    uint64_t seed;          /* bootstrap seed; default 1 */
    int32_t calls;          /* 0 (default): one sample per run; 1: one
                               sample per call, the runs of a set pooled */
    int32_t metric;         /* enum scope_compare_metric; default MEDIAN */
} scope_compare_options;

/* Fills *o with the defaults above. */
SCOPE_READER_API void scope_compare_options_init(scope_compare_options *o);

/* One region (on one rank, or on all ranks together) compared. Times are
 * ns; relative changes are fractions (0.05 = 5 % slower); NaN where a
 * figure does not exist (a relative change from 0; an interval or test
 * with an empty side). With per-run samples, median_a is the median over
 * A's runs of each run's median call, total_a the median over A's runs of
 * each run's total; with per-call samples, median_a is the median of the
 * pooled calls and total_a their sum divided by the number of runs. */
typedef struct scope_region_change {
    const char *region;     /* owned by the result */
    int32_t rank;           /* options.rank */
    int32_t verdict;        /* enum scope_compare_verdict */
    int64_t samples_a;      /* runs (or calls) with data: the test's sizes */
    int64_t samples_b;
    int64_t runs_a;         /* runs in each set */
    int64_t runs_b;
    int64_t calls_a;        /* calls over all the set's runs */
    int64_t calls_b;
    double median_a, median_b;
    double median_change;   /* median_b / median_a - 1 */
    double median_lo;       /* confidence interval of median_change */
    double median_hi;
    double median_u;        /* Mann-Whitney U of A's samples */
    double median_p;        /* its two-sided p-value */
    double total_a, total_b;
    double total_change;    /* total_b / total_a - 1 */
    double total_lo;
    double total_hi;
    double total_u;         /* per call: the per-call test (U, p) again */
    double total_p;
    double min_p;           /* the smallest p the test could give here */
    int32_t exact;          /* 1: the verdict's p-value is exact */
    int32_t reserved;
} scope_region_change;

typedef struct scope_compare_result scope_compare_result;

/* Compares every region of the runs a[0..na-1] against b[0..nb-1]
 * (na, nb >= 1; each an open profile, one run). Regions are matched by
 * name; a region absent from a run has no calls there (per run: that run
 * gives no median and a total of 0). Rows are sorted: significant changes
 * first (slower or faster), by the size of the verdict metric's relative
 * change, largest first; then the rest by the same size; ties by name.
 * Returns 0, SCOPE_EINVAL (bad options; calls mode with a rank absent from
 * every run; per rank with a rank some run lacks, the message names it),
 * SCOPE_ENOMEM, or what reading the profiles returns. Cost: reads every
 * region's durations of every run once; per region two bootstraps of
 * options.resamples resamples (per call: of all its calls). */
SCOPE_READER_API int scope_compare_sets(scope_profile *const *a, int na,
                                        scope_profile *const *b, int nb,
                                        const scope_compare_options *o,
                                        scope_compare_result **out);
SCOPE_READER_API int64_t scope_compare_count(const scope_compare_result *r);
/* The i-th row (sorted as above), owned by the result; NULL when i is out
 * of range. */
SCOPE_READER_API const scope_region_change *
scope_compare_row(const scope_compare_result *r, int64_t i);
SCOPE_READER_API void scope_compare_free(scope_compare_result *r);

/* "no change", "slower", "faster", "untested", "only in A", "only in B";
 * "?" for an unknown value. */
SCOPE_READER_API const char *scope_compare_verdict_name(int verdict);

#ifdef __cplusplus
}
#endif

#endif /* SCOPE_READER_COMPARE_H */
