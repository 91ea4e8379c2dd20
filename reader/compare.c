/*
 * compare.c - sets of runs compared with statistics
 * (scope_reader_compare.h): the Mann-Whitney U test, percentile bootstrap
 * intervals and the region-by-region comparison behind `scope diff` and
 * the Python module's compare(). Written here rather than taken from a
 * library because nothing on the C side of a Debian system offers them
 * (GSL has neither test); tests/compare checks every figure against
 * SciPy's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_reader_compare.h"

/* ------------------------------------------------------------------ */
/* Random numbers: xoshiro256** seeded through splitmix64, so that one
 * 64-bit seed gives a well-mixed state and the same stream everywhere. */

typedef struct {
    uint64_t s[4];
} rng;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

/* Uniform in [0, n) without modulo bias (Lemire's multiply-shift). */
static uint64_t rng_below(rng *r, uint64_t n)
{
    unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t floor = -n % n;
        while (low < floor) {
            m = (unsigned __int128)rng_next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* ------------------------------------------------------------------ */
/* Order statistics                                                    */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The k-th smallest of v[0..n-1] (0-based), reordering v. Hoare's
 * selection with a median-of-three pivot: linear on average. */
static double select_kth(double *v, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    while (hi > lo) {
        int64_t mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi];
        double piv = a < b ? (b < c ? b : (a < c ? c : a))
                           : (a < c ? a : (b < c ? c : b));
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < piv)
                i++;
            while (v[j] > piv)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* The median of v (reordered), as numpy.median. */
static double median_inplace(double *v, int64_t n)
{
    double m = select_kth(v, n, n / 2);
    if (n % 2)
        return m;
    /* the largest of the lower half is the other middle value */
    double lower = v[0];
    for (int64_t i = 1; i < n / 2; i++)
        if (v[i] > lower)
            lower = v[i];
    return (lower + m) / 2;
}

double scope_stat_median(const double *v, int64_t n)
{
    if (n < 1)
        return NAN;
    double *c = malloc((size_t)n * sizeof *c);
    if (!c)
        return NAN;
    memcpy(c, v, (size_t)n * sizeof *c);
    double m = median_inplace(c, n);
    free(c);
    return m;
}

/* numpy.percentile's default (linear) on sorted s[0..n-1], q in [0, 1]. */
static double quantile_sorted(const double *s, int64_t n, double q)
{
    double h = q * (double)(n - 1);
    int64_t i = (int64_t)floor(h);
    if (i >= n - 1)
        return s[n - 1];
    return s[i] + (h - (double)i) * (s[i + 1] - s[i]);
}

/* ------------------------------------------------------------------ */
/* Mann-Whitney U                                                      */

/* P(U >= u) under the null for sizes m and n, no ties: the counts of U
 * are the coefficients of the Gaussian binomial [m+n choose m](q), built
 * as the product over i = 1..m of (1 - q^(n+i)) / (1 - q^i), each factor
 * exact in integers (the division leaves no remainder). NaN when out of
 * memory. */
static double exact_sf(double u, int64_t m, int64_t n)
{
    if (m > n) {
        int64_t t = m;
        m = n;
        n = t;
    }
    int64_t top = m * n;
    long double *c = calloc((size_t)top + 1, sizeof *c);
    if (!c)
        return NAN;
    c[0] = 1;
    for (int64_t i = 1; i <= m; i++) {
        int64_t up = n + i;
        for (int64_t k = top; k >= up; k--)     /* times (1 - q^(n+i)) */
            c[k] -= c[k - up];
        for (int64_t k = i; k <= top; k++)      /* divided by (1 - q^i) */
            c[k] += c[k - i];
    }
    long double all = 0, tail = 0;
    int64_t from = (int64_t)ceil(u);
    for (int64_t k = 0; k <= top; k++) {
        all += c[k];
        if (k >= from)
            tail += c[k];
    }
    free(c);
    return (double)(tail / all);
}

double scope_stat_mwu_min_p(int64_t nx, int64_t ny)
{
    if (nx < 1 || ny < 1)
        return 1;
    int64_t k = nx < ny ? nx : ny, n = nx + ny;
    double c = 1;                        /* C(n, k), grown in doubles */
    for (int64_t i = 1; i <= k; i++)
        c = c * (double)(n - k + i) / (double)i;
    double p = 2 / c;
    return p > 1 ? 1 : p;
}

int scope_stat_min_runs(double level)
{
    for (int n = 1; n < 64; n++)
        if (scope_stat_mwu_min_p(n, n) < 1 - level)
            return n;
    return 64;
}

typedef struct {
    double v;
    int side;       /* 0: x, 1: y */
} tagged;

static int cmp_tagged(const void *a, const void *b)
{
    return cmp_double(&((const tagged *)a)->v, &((const tagged *)b)->v);
}

int scope_stat_mann_whitney(const double *x, int64_t nx, const double *y,
                            int64_t ny, int method, scope_mwu *out)
{
    memset(out, 0, sizeof *out);
    if (nx < 1 || ny < 1)
        return scope__fail(SCOPE_EINVAL, "Mann-Whitney U: a sample is empty "
                           "(%lld and %lld values)", (long long)nx,
                           (long long)ny);
    if (method < SCOPE_MWU_AUTO || method > SCOPE_MWU_ASYMPTOTIC)
        return scope__fail(SCOPE_EINVAL, "Mann-Whitney U: unknown method %d",
                           method);
    int64_t n = nx + ny;
    tagged *t = malloc((size_t)n * sizeof *t);
    if (!t)
        return scope__fail(SCOPE_ENOMEM, "Mann-Whitney U: out of memory");
    for (int64_t i = 0; i < n; i++) {
        t[i].v = i < nx ? x[i] : y[i - nx];
        t[i].side = i >= nx;
        if (isnan(t[i].v)) {
            free(t);
            return scope__fail(SCOPE_EINVAL, "Mann-Whitney U: NaN in the "
                               "samples");
        }
    }
    qsort(t, (size_t)n, sizeof *t, cmp_tagged);
    /* Midranks; R1 = sum of x's ranks; tie term sum(t^3 - t). */
    double r1 = 0, tie_term = 0;
    for (int64_t i = 0; i < n;) {
        int64_t j = i;
        while (j + 1 < n && t[j + 1].v == t[i].v)
            j++;
        double rank = (double)(i + j) / 2 + 1, g = (double)(j - i + 1);
        for (int64_t k = i; k <= j; k++)
            if (!t[k].side)
                r1 += rank;
        tie_term += g * g * g - g;
        i = j + 1;
    }
    free(t);
    out->ties = tie_term > 0;
    double u1 = r1 - (double)nx * (double)(nx + 1) / 2;
    double u2 = (double)nx * (double)ny - u1, u = u1 > u2 ? u1 : u2;
    out->u = u1;
    if (method == SCOPE_MWU_AUTO)
        method = (nx > 8 && ny > 8) || out->ties ? SCOPE_MWU_ASYMPTOTIC
                                                  : SCOPE_MWU_EXACT;
    if (method == SCOPE_MWU_EXACT && (double)nx * (double)ny > 1e6)
        method = SCOPE_MWU_ASYMPTOTIC;
    double p;
    if (method == SCOPE_MWU_EXACT) {
        p = 2 * exact_sf(u, nx, ny);
        if (isnan(p))
            return scope__fail(SCOPE_ENOMEM, "Mann-Whitney U: out of memory");
    } else {
        double dn = (double)n;
        double s = sqrt((double)nx * (double)ny / 12 *
                        ((dn + 1) - tie_term / (dn * (dn - 1))));
        double z = (u - (double)nx * (double)ny / 2 - 0.5) / s;
        p = s > 0 ? erfc(z / sqrt(2.0)) : (z > 0 ? 0 : 1);
        /* erfc(z/sqrt 2) = 2 * the normal's survival function at z */
    }
    out->p = p > 1 ? 1 : p < 0 ? 0 : p;
    out->method = method;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Bootstrap                                                           */

/* The statistic of one (re)sample, from the resampled values in bx, by;
 * reorders them. NaN when a ratio's denominator is 0. */
static double boot_stat(int statistic, double *bx, int64_t nx, double *by,
                        int64_t ny)
{
    if (statistic == SCOPE_BOOT_SUM_RATIO) {
        double sx = 0, sy = 0;
        for (int64_t i = 0; i < nx; i++)
            sx += bx[i];
        for (int64_t i = 0; i < ny; i++)
            sy += by[i];
        return sx != 0 ? sy / sx - 1 : NAN;
    }
    double mx = median_inplace(bx, nx), my = median_inplace(by, ny);
    if (statistic == SCOPE_BOOT_MEDIAN_DIFF)
        return my - mx;
    return mx != 0 ? my / mx - 1 : NAN;
}

int scope_stat_bootstrap_ci(const double *x, int64_t nx, const double *y,
                            int64_t ny, int statistic, double level,
                            int resamples, uint64_t seed, double *lo,
                            double *hi)
{
    *lo = *hi = NAN;
    if (nx < 1 || ny < 1 || !(level > 0 && level < 1) || resamples < 2 ||
        statistic < SCOPE_BOOT_MEDIAN_RATIO || statistic > SCOPE_BOOT_SUM_RATIO)
        return scope__fail(SCOPE_EINVAL, "bootstrap: needs two non-empty "
                           "samples, a level in (0, 1), at least 2 "
                           "resamples and a known statistic");
    double *bx = malloc((size_t)(nx + ny) * sizeof *bx);
    double *stats = malloc((size_t)resamples * sizeof *stats);
    if (!bx || !stats) {
        free(bx);
        free(stats);
        return scope__fail(SCOPE_ENOMEM, "bootstrap: out of memory");
    }
    double *by = bx + nx;
    rng r;
    rng_seed(&r, seed);
    int64_t kept = 0;
    for (int b = 0; b < resamples; b++) {
        for (int64_t i = 0; i < nx; i++)
            bx[i] = x[rng_below(&r, (uint64_t)nx)];
        for (int64_t i = 0; i < ny; i++)
            by[i] = y[rng_below(&r, (uint64_t)ny)];
        double s = boot_stat(statistic, bx, nx, by, ny);
        if (!isnan(s))
            stats[kept++] = s;
    }
    if (kept) {
        qsort(stats, (size_t)kept, sizeof *stats, cmp_double);
        *lo = quantile_sorted(stats, kept, (1 - level) / 2);
        *hi = quantile_sorted(stats, kept, (1 + level) / 2);
    }
    free(bx);
    free(stats);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Sets of runs                                                        */

struct scope_compare_result {
    scope_region_change *rows;
    int64_t n;
    char **names;
};

void scope_compare_options_init(scope_compare_options *o)
{
    memset(o, 0, sizeof *o);
    o->level = 0.95;
    o->resamples = 10000;
    o->rank = SCOPE_ALL_RANKS;
    o->seed = 1;
    o->metric = SCOPE_COMPARE_MEDIAN;
}

const char *scope_compare_verdict_name(int v)
{
    static const char *const names[] = { "no change", "slower", "faster",
                                         "untested", "only in A",
                                         "only in B" };
    return v >= 0 && v < 6 ? names[v] : "?";
}

/* A growing array of doubles. */
typedef struct {
    double *v;
    int64_t n, cap;
} dvec;

static int dvec_push(dvec *d, double x)
{
    if (d->n == d->cap) {
        int64_t nc = d->cap ? d->cap * 2 : 16;
        double *q = realloc(d->v, (size_t)nc * sizeof *q);
        if (!q)
            return -1;
        d->v = q;
        d->cap = nc;
    }
    d->v[d->n++] = x;
    return 0;
}

/* The samples of one set for region `name`: per run (a median and a
 * total per run that has calls; runs without add a total of 0), or per
 * call (every duration). *calls gets the calls over the set. */
static int set_samples(scope_profile *const *runs, int nruns, const char *name,
                       const scope_compare_options *o, dvec *med, dvec *tot,
                       int64_t *calls)
{
    *calls = 0;
    for (int k = 0; k < nruns; k++) {
        scope_profile *p = runs[k];
        int region = scope_profile_region_index(p, name);
        int64_t nc = 0;
        if (region >= 0) {
            nc = scope_profile_calls(p, region, o->rank);
            if (nc == SCOPE_ENOTFOUND && o->rank != SCOPE_ALL_RANKS)
                nc = 0;                 /* the rank never entered it */
            else if (nc < 0)
                return (int)nc;
        }
        *calls += nc;
        if (!o->calls) {
            if (nc == 0) {
                if (dvec_push(tot, 0) < 0)
                    return scope__fail(SCOPE_ENOMEM, "compare: out of memory");
                continue;
            }
            double q = 50, m;
            scope_stats st;
            int rc = scope_profile_percentiles(p, region, o->rank, &q, 1, &m);
            if (rc < 0 || (rc = scope_profile_stats(p, region, o->rank, &st)) < 0)
                return rc;
            if (dvec_push(med, m) < 0 || dvec_push(tot, (double)st.total_ns) < 0)
                return scope__fail(SCOPE_ENOMEM, "compare: out of memory");
            continue;
        }
        if (nc == 0)
            continue;
        int nr = scope_profile_rank_count(p);
        for (int i = 0; i < nr; i++) {
            int rank = scope_profile_rank(p, i);
            if (o->rank != SCOPE_ALL_RANKS && rank != o->rank)
                continue;
            const int64_t *s, *e;
            int64_t n;
            int rc = scope_profile_times(p, region, rank, &s, &e, &n);
            if (rc < 0)
                return rc;
            for (int64_t j = 0; j < n; j++)
                if (dvec_push(med, (double)(e[j] - s[j])) < 0)
                    return scope__fail(SCOPE_ENOMEM, "compare: out of memory");
        }
    }
    return 0;
}

static double sum_of(const dvec *d)
{
    double s = 0;
    for (int64_t i = 0; i < d->n; i++)
        s += d->v[i];
    return s;
}

/* Fills the figures of one row from the samples of both sets. */
static int fill_row(scope_region_change *c, dvec *ma, dvec *mb, dvec *ta,
                    dvec *tb, const scope_compare_options *o)
{
    int rc;
    c->samples_a = ma->n;
    c->samples_b = mb->n;
    c->median_a = scope_stat_median(ma->v, ma->n);
    c->median_b = scope_stat_median(mb->v, mb->n);
    c->median_change = c->median_a != 0 ? c->median_b / c->median_a - 1 : NAN;
    if (o->calls) {
        c->total_a = sum_of(ma) / (double)c->runs_a;
        c->total_b = sum_of(mb) / (double)c->runs_b;
    } else {
        c->total_a = scope_stat_median(ta->v, ta->n);
        c->total_b = scope_stat_median(tb->v, tb->n);
    }
    c->total_change = c->total_a != 0 ? c->total_b / c->total_a - 1 : NAN;
    c->median_lo = c->median_hi = c->total_lo = c->total_hi = NAN;
    c->median_u = c->median_p = c->total_u = c->total_p = NAN;
    c->min_p = scope_stat_mwu_min_p(ma->n, mb->n);
    if (ma->n == 0 || mb->n == 0) {
        c->verdict = ma->n ? SCOPE_VERDICT_ONLY_A : SCOPE_VERDICT_ONLY_B;
        return 0;
    }
    uint64_t seed = o->seed;
    if ((rc = scope_stat_bootstrap_ci(ma->v, ma->n, mb->v, mb->n,
                                      SCOPE_BOOT_MEDIAN_RATIO, o->level,
                                      o->resamples, seed, &c->median_lo,
                                      &c->median_hi)) < 0)
        return rc;
    scope_mwu mw, tw;
    if ((rc = scope_stat_mann_whitney(ma->v, ma->n, mb->v, mb->n,
                                      SCOPE_MWU_AUTO, &mw)) < 0)
        return rc;
    c->median_u = mw.u;
    c->median_p = mw.p;
    if (o->calls) {
        if ((rc = scope_stat_bootstrap_ci(ma->v, ma->n, mb->v, mb->n,
                                          SCOPE_BOOT_SUM_RATIO, o->level,
                                          o->resamples, seed + 1,
                                          &c->total_lo, &c->total_hi)) < 0)
            return rc;
        tw = mw;
    } else {
        if ((rc = scope_stat_bootstrap_ci(ta->v, ta->n, tb->v, tb->n,
                                          SCOPE_BOOT_MEDIAN_RATIO, o->level,
                                          o->resamples, seed + 1,
                                          &c->total_lo, &c->total_hi)) < 0 ||
            (rc = scope_stat_mann_whitney(ta->v, ta->n, tb->v, tb->n,
                                          SCOPE_MWU_AUTO, &tw)) < 0)
            return rc;
    }
    c->total_u = tw.u;
    c->total_p = tw.p;
    const scope_mwu *w = o->metric == SCOPE_COMPARE_TOTAL ? &tw : &mw;
    double change = o->metric == SCOPE_COMPARE_TOTAL
                    ? c->total_b - c->total_a : c->median_b - c->median_a;
    int64_t sa = o->metric == SCOPE_COMPARE_TOTAL && !o->calls ? ta->n : ma->n;
    int64_t sb = o->metric == SCOPE_COMPARE_TOTAL && !o->calls ? tb->n : mb->n;
    c->min_p = scope_stat_mwu_min_p(sa, sb);
    c->exact = w->method == SCOPE_MWU_EXACT;
    if (c->min_p >= 1 - o->level)
        c->verdict = SCOPE_VERDICT_UNTESTED;
    else if (w->p < 1 - o->level && change != 0)
        c->verdict = change > 0 ? SCOPE_VERDICT_SLOWER : SCOPE_VERDICT_FASTER;
    else
        c->verdict = SCOPE_VERDICT_NO_CHANGE;
    return 0;
}

static double size_of(const scope_region_change *c, int metric)
{
    double v = metric == SCOPE_COMPARE_TOTAL ? c->total_change
                                                  : c->median_change;
    return isnan(v) ? INFINITY : fabs(v);   /* from 0 to something: first */
}

static int cmp_change(const void *x, const void *y, void *metric)
{
    int m = *(const int *)metric;
    const scope_region_change *a = x, *b = y;
    int sa = a->verdict == SCOPE_VERDICT_SLOWER || a->verdict == SCOPE_VERDICT_FASTER;
    int sb = b->verdict == SCOPE_VERDICT_SLOWER || b->verdict == SCOPE_VERDICT_FASTER;
    if (sa != sb)
        return sb - sa;
    double da = size_of(a, m), db = size_of(b, m);
    if (da != db)
        return da > db ? -1 : 1;
    return strcmp(a->region, b->region);
}

/* Adds name to the list when it is not there yet (linear: regions are
 * few, hundreds at most). Returns 0, 1 when added, or -1 (memory). */
static int add_name(char ***names, int64_t *n, int64_t *cap, const char *name)
{
    for (int64_t i = 0; i < *n; i++)
        if (!strcmp((*names)[i], name))
            return 0;
    if (*n == *cap) {
        int64_t nc = *cap ? *cap * 2 : 32;
        char **q = realloc(*names, (size_t)nc * sizeof *q);
        if (!q)
            return -1;
        *names = q;
        *cap = nc;
    }
    if (!((*names)[*n] = strdup(name)))
        return -1;
    (*n)++;
    return 1;
}

static int has_rank(const scope_profile *p, int rank)
{
    for (int i = 0; i < scope_profile_rank_count(p); i++)
        if (scope_profile_rank(p, i) == rank)
            return 1;
    return 0;
}

int scope_compare_sets(scope_profile *const *a, int na,
                       scope_profile *const *b, int nb,
                       const scope_compare_options *o,
                       scope_compare_result **out)
{
    *out = NULL;
    if (!a || !b || na < 1 || nb < 1)
        return scope__fail(SCOPE_EINVAL, "compare: each set needs at least "
                           "one run (A has %d, B has %d)", na, nb);
    if (!o || !(o->level > 0 && o->level < 1) || o->resamples < 2 ||
        o->metric < 0 || o->metric > 1)
        return scope__fail(SCOPE_EINVAL, "compare: bad options (level must "
                           "be in (0, 1), resamples at least 2)");
    if (o->rank != SCOPE_ALL_RANKS)
        for (int k = 0; k < na + nb; k++)
            if (!has_rank(k < na ? a[k] : b[k - na], o->rank))
                return scope__fail(SCOPE_EINVAL, "compare: run %d of set %c "
                                   "has no rank %d", (k < na ? k : k - na) + 1,
                                   k < na ? 'A' : 'B', o->rank);
    scope_compare_result *r = calloc(1, sizeof *r);
    if (!r)
        return scope__fail(SCOPE_ENOMEM, "compare: out of memory");
    int64_t cap = 0;
    int rc = 0;
    for (int k = 0; k < na + nb; k++) {
        scope_profile *p = k < na ? a[k] : b[k - na];
        for (int i = 0; i < scope_profile_region_count(p); i++)
            if (add_name(&r->names, &r->n, &cap,
                         scope_profile_region_name(p, i)) < 0) {
                rc = scope__fail(SCOPE_ENOMEM, "compare: out of memory");
                goto fail;
            }
    }
    if (!(r->rows = calloc((size_t)(r->n ? r->n : 1), sizeof *r->rows))) {
        rc = scope__fail(SCOPE_ENOMEM, "compare: out of memory");
        goto fail;
    }
    dvec ma = { 0 }, mb = { 0 }, ta = { 0 }, tb = { 0 };
    for (int64_t i = 0; i < r->n; i++) {
        scope_region_change *c = &r->rows[i];
        c->region = r->names[i];
        c->rank = o->rank;
        c->runs_a = na;
        c->runs_b = nb;
        ma.n = mb.n = ta.n = tb.n = 0;
        if ((rc = set_samples(a, na, c->region, o, &ma, &ta, &c->calls_a)) < 0 ||
            (rc = set_samples(b, nb, c->region, o, &mb, &tb, &c->calls_b)) < 0 ||
            (rc = fill_row(c, &ma, &mb, &ta, &tb, o)) < 0)
            break;
    }
    free(ma.v);
    free(mb.v);
    free(ta.v);
    free(tb.v);
    if (rc < 0)
        goto fail;
    int metric = o->metric;
    if (r->n > 1)
        qsort_r(r->rows, (size_t)r->n, sizeof *r->rows, cmp_change, &metric);
    *out = r;
    return 0;
fail:
    scope_compare_free(r);
    return rc;
}

int64_t scope_compare_count(const scope_compare_result *r)
{
    return r ? r->n : 0;
}

const scope_region_change *scope_compare_row(const scope_compare_result *r,
                                             int64_t i)
{
    return r && i >= 0 && i < r->n ? &r->rows[i] : NULL;
}

void scope_compare_free(scope_compare_result *r)
{
    if (!r)
        return;
    scope__free_strings(r->names, r->n);
    free(r->rows);
    free(r);
}
