/*
 * region_stats.c - the statistics that need more than the cached per-cell
 * sums of profile_data.c: percentiles of call durations (they need every
 * duration, sorted) and the balance of a region's time across ranks (load
 * imbalance, from the per-rank totals).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Appends the durations of cell c to d[*n ...]. Uses the cached arrays
 * when scope_profile_times() kept them, else reads and frees. */
static int append_durations(scope_profile *p, scope__cell *c, int64_t *d,
                            int64_t *n)
{
    int64_t *s = c->starts, *e = c->ends;
    if (!s && c->n > 0) {
        int rc = scope__cell_load(p, c, &s, &e);
        if (rc < 0)
            return rc;
    }
    for (int64_t i = 0; i < c->n; i++)
        d[(*n)++] = e[i] - s[i];
    if (s != c->starts) {
        free(s);
        free(e);
    }
    return 0;
}

int scope_profile_percentiles(scope_profile *p, int region, int rank,
                              const double *qs, int nq, double *out)
{
    if (!p || (nq > 0 && (!qs || !out)) || nq < 0)
        return scope__fail(SCOPE_EINVAL, "no profile, percentiles or output");
    for (int i = 0; i < nq; i++)
        if (!(qs[i] >= 0.0 && qs[i] <= 100.0))
            return scope__fail(SCOPE_EINVAL, "percentile %g is outside "
                               "[0, 100]", qs[i]);
    int k0, k1, bad = scope__cell_span(p, region, rank, &k0, &k1);
    if (bad < 0)
        return bad;
    int64_t total = 0, n = 0;
    for (int k = k0; k < k1; k++) {
        scope__cell *c = scope__cell_at(p, region, k);
        total += c ? c->n : 0;
    }
    int64_t *d = malloc((size_t)(total ? total : 1) * sizeof *d);
    if (!d)
        return scope__fail(SCOPE_ENOMEM, "out of memory for %lld durations",
                           (long long)total);
    int rc = 0;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    for (int k = k0; k < k1 && rc >= 0; k++) {
        scope__cell *c = scope__cell_at(p, region, k);
        if (c)
            rc = append_durations(p, c, d, &n);
    }
    scope_h5_quiet_end(&quiet);
    if (rc < 0)
        goto fail_read;
    if (n > 1)
        qsort(d, (size_t)n, sizeof *d, cmp_i64);
    for (int i = 0; i < nq; i++) {
        if (n == 0) {
            out[i] = 0.0;
            continue;
        }
        double pos = qs[i] / 100.0 * (double)(n - 1);
        int64_t lo = (int64_t)floor(pos);
        int64_t hi = lo + 1 < n ? lo + 1 : lo;
        out[i] = (double)d[lo] + (double)(d[hi] - d[lo]) * (pos - (double)lo);
    }
fail_read:
    free(d);
    return rc;
}

int scope_profile_balance(scope_profile *p, int region, scope_balance *out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    int bad = scope__check_region(p, region);
    if (bad < 0)
        return bad;
    memset(out, 0, sizeof *out);
    out->max_rank = out->min_rank = -1;
    int64_t sum = 0;
    int rc = 0;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    for (int k = 0; k < p->nranks && rc >= 0; k++) {
        scope__cell *c = scope__cell_at(p, region, k);
        if (!c || c->n == 0 || (rc = scope__cell_summarize(p, c)) < 0)
            continue;
        if (out->ranks == 0 || c->total > out->max_ns) {
            out->max_ns = c->total;
            out->max_rank = p->ranks[k].rank;
        }
        if (out->ranks == 0 || c->total < out->min_ns) {
            out->min_ns = c->total;
            out->min_rank = p->ranks[k].rank;
        }
        sum += c->total;
        out->ranks++;
    }
    scope_h5_quiet_end(&quiet);
    if (rc < 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    if (out->ranks == 0)
        return 0;
    out->mean_ns = (double)sum / out->ranks;
    out->imbalance = out->mean_ns > 0 ? (double)out->max_ns / out->mean_ns : 0;
    out->max_min_ratio = out->min_ns > 0
                         ? (double)out->max_ns / (double)out->min_ns : 0;
    return 0;
}
