/*
 * profile_data.c - the questions asked of an opened profile: its regions
 * and ranks, the raw start/end arrays of a (region, rank), duration
 * statistics and the run's time window.
 *
 * Event arrays are read lazily, one (region, rank) at a time, and only kept
 * when the caller asked for them (scope_profile_times); statistics are
 * computed once per cell and cached, so a summary of a huge run holds one
 * cell's events in memory at a time. Source files are reopened on demand
 * and at most MAX_OPEN of them stay open.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "reader_internal.h"
#include "scope_h5_read.h"

/* Each open HDF5 file holds a descriptor and a metadata cache of up to a
 * few MB: 64 open files made a 100-rank summary use 130 MB, 16 use 43 MB
 * and run faster. Bulk reads go rank by rank, so a small cap costs little. */
#define MAX_OPEN 16

#define HUGE_PAGE ((size_t)2 << 20)

void *scope__malloc_big(size_t bytes)
{
    /* from a quarter of a huge page, rounded up to whole ones: a column
     * of a quarter of a million calls (1-2 MB) was below the old floor
     * of 4 pages, and each of its 4 KiB pages cost a fault of ~13 us on
     * a virtual machine (more than making the column); a huge page is one
     * fault. At worst 4x the memory of a 512 KiB buffer, and 2 MiB more
     * of a big one. */
    if (bytes < HUGE_PAGE / 4)
        return malloc(bytes ? bytes : 1);
    size_t size = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    void *m;
    if (posix_memalign(&m, HUGE_PAGE, size) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(m, size, MADV_HUGEPAGE); /* a hint only */
#endif
    return m;
}

void *scope__reuse(void **buf, size_t *cap, size_t bytes)
{
    if (*buf && *cap >= bytes)
        return *buf;
    free(*buf);
    *cap = 0;
    if (!(*buf = scope__malloc_big(bytes ? bytes : 1)))
        return NULL;
    *cap = bytes;
    return *buf;
}

int scope_profile_region_count(const scope_profile *p)
{
    return p ? p->nregions : 0;
}

const char *scope_profile_region_name(const scope_profile *p, int region)
{
    if (!p || region < 0 || region >= p->nregions)
        return NULL;
    return p->regions[region].name;
}

/* Linear: region lists are short (hundreds) and callers look a name up
 * once. */
int scope_profile_region_index(const scope_profile *p, const char *name)
{
    for (int i = 0; p && name && i < p->nregions; i++)
        if (strcmp(p->regions[i].name, name) == 0)
            return i;
    return scope__fail(SCOPE_ENOTFOUND, "no region called \"%s\"",
                       name ? name : "(null)");
}

int scope_profile_rank_count(const scope_profile *p)
{
    return p ? p->nranks : 0;
}

int scope_profile_rank(const scope_profile *p, int i)
{
    if (!p || i < 0 || i >= p->nranks)
        return scope__fail(SCOPE_ENOTFOUND, "no rank index %d", i);
    return p->ranks[i].rank;
}

/* Binary search over the sorted ranks: the index, or SCOPE_ENOTFOUND. */
int scope__rank_index(const scope_profile *p, int rank)
{
    int lo = 0, hi = p->nranks - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (p->ranks[mid].rank == rank)
            return mid;
        if (p->ranks[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return scope__fail(SCOPE_ENOTFOUND, "no rank %d in this profile", rank);
}

int scope__check_region(const scope_profile *p, int region)
{
    if (region < 0 || region >= p->nregions)
        return scope__fail(SCOPE_ENOTFOUND, "no region index %d (the profile "
                           "has %d)", region, p->nregions);
    return 0;
}

int scope__cell_index(const scope_profile *p, int region, int rank)
{
    int rc = scope__check_region(p, region);
    return rc < 0 ? rc : scope__rank_index(p, rank);
}

int scope__cell_span(const scope_profile *p, int region, int rank, int *k0, int *k1)
{
    int rc = scope__check_region(p, region);
    if (rc < 0)
        return rc;
    if (rank == SCOPE_ALL_RANKS) {
        *k0 = 0;
        *k1 = p->nranks;
        return 0;
    }
    int k = scope__rank_index(p, rank);
    if (k < 0)
        return k;
    *k0 = k;
    *k1 = k + 1;
    return 0;
}

/* Validates (region, rank) and returns the cell (NULL when that rank never
 * entered the region) through *cell. */
int scope__cell_get(const scope_profile *p, int region, int rank, scope__cell **cell)
{
    if (!p)
        return scope__fail(SCOPE_EINVAL, "no profile");
    int k = scope__cell_index(p, region, rank);
    if (k < 0)
        return k;
    *cell = p->cells[(size_t)region * (size_t)p->nranks + (size_t)k];
    return 0;
}

int64_t scope_profile_calls(const scope_profile *p, int region, int rank)
{
    scope__cell *c = NULL;
    if (rank == SCOPE_ALL_RANKS && p && region >= 0 && region < p->nregions) {
        int64_t n = 0;
        for (int k = 0; k < p->nranks; k++)
            if ((c = p->cells[(size_t)region * (size_t)p->nranks + (size_t)k]))
                n += c->n;
        return n;
    }
    int rc = scope__cell_get(p, region, rank, &c);
    if (rc < 0)
        return rc;
    return c ? c->n : 0;
}

/* The open HDF5 file of source `s`, reopening it if needed; closes every
 * other file first when MAX_OPEN are open. */
int scope__source_file(scope_profile *p, int s, hid_t *out)
{
    if (p->sources[s].file >= 0) {
        *out = p->sources[s].file;
        return 0;
    }
    if (p->nopen >= MAX_OPEN) {
        for (int i = 0; i < p->nsources; i++)
            if (p->sources[i].file >= 0) {
                H5Fclose(p->sources[i].file);
                p->sources[i].file = H5I_INVALID_HID;
            }
        p->nopen = 0;
    }
    int rc = scope__h5_open_file(p->sources[s].path, &p->sources[s].file);
    if (rc < 0) {
        p->sources[s].file = H5I_INVALID_HID;
        return rc;
    }
    p->nopen++;
    *out = p->sources[s].file;
    return 0;
}

int scope__source_link(scope_profile *p, int s, const char *group, const char *name, hid_t *f,
                       char **path)
{
    *path = NULL;
    int rc = scope__source_file(p, s, f);
    if (rc < 0)
        return rc;
    char *dpath = NULL;
    if (asprintf(&dpath, "%s/%s", group, name) < 0)
        return scope__fail(SCOPE_ENOMEM, "%s: out of memory", p->sources[s].path);
    if (H5Lexists(*f, dpath, H5P_DEFAULT) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        free(dpath);
        return 0;
    }
    *path = dpath;
    return 0;
}

/* Every later computation (durations, sums, origins) relies on sane
 * times: a damaged file must fail here, not overflow there. Times stay
 * within +-2^61 ns (73 years) and a call lasts 0 to 2^56 ns. */
int scope__times_check(const char *fpath, const int64_t *s, const int64_t *e,
                       int64_t n)
{
    int64_t i = scope_times_first_bad(s, e, n);
    if (i >= 0)
        return scope__fail(SCOPE_EFORMAT, "%s: call %lld of a region has impossible times "
                           "(start %lld, end %lld)", fpath, (long long)i,
                           (long long)s[i], (long long)e[i]);
    return 0;
}

/* Reads a cell's events into s and e (room for c->n each), checked.
 * Cost: two HDF5 reads of n int64, plus a prefix sum for schema 3. */
int scope__cell_load_into(scope_profile *p, scope__cell *c, int64_t *s, int64_t *e)
{
    const scope__source *src = &p->sources[c->source];
    hid_t f;
    char *sp = NULL, *ep = NULL; /* group paths can be long: heap */
    int rc;
    if ((rc = scope__source_file(p, c->source, &f)) < 0)
        return rc;
    int ok;
    if (src->layout == SCOPE__LAYOUT_GROUPS) {
        if (asprintf(&sp, "%s/" SCOPE_D_START_TIMES, c->group) < 0)
            sp = NULL;
        if (asprintf(&ep, "%s/" SCOPE_D_END_TIMES, c->group) < 0)
            ep = NULL;
        ok = sp && ep;
    }
    else if (src->layout == SCOPE__LAYOUT_COLUMNS2)
        ok = (sp = strdup(SCOPE_S_EVENTS_START_TIMES)) && (ep = strdup(SCOPE_S_EVENTS_END_TIMES));
    else
        ok = (sp = strdup(SCOPE_S_EVENTS_START_DELTAS)) && (ep = strdup(SCOPE_S_EVENTS_DURATIONS));
    if (!ok) {
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", src->path);
        goto done;
    }
    if ((rc = scope__h5_read_int64(f, sp, src->path, c->offset, c->n, s)) < 0 ||
        (rc = scope__h5_read_int64(f, ep, src->path, c->offset, c->n, e)) < 0)
        goto done;
    if (src->layout == SCOPE__LAYOUT_COLUMNS3) {
        /* Deltas accumulate within the slice; its first value is absolute. */
        /* (unsigned sums: damaged values wrap instead of overflowing, and
         * are refused just below) */
        for (int64_t i = 1; i < c->n; i++)
            s[i] = (int64_t)((uint64_t)s[i] + (uint64_t)s[i - 1]);
        for (int64_t i = 0; i < c->n; i++)
            e[i] = (int64_t)((uint64_t)e[i] + (uint64_t)s[i]);
    }
    rc = scope__times_check(src->path, s, e, c->n);
done:
    free(sp);
    free(ep);
    return rc;
}

/* Reads a cell's events into new malloc'd arrays (caller frees both). */
int scope__cell_load(scope_profile *p, scope__cell *c,
                     int64_t **starts, int64_t **ends)
{
    size_t bytes = (size_t)(c->n ? c->n : 1) * sizeof(int64_t);
    int64_t *s = scope__malloc_big(bytes), *e = scope__malloc_big(bytes);
    int rc;
    if (!s || !e)
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory for %lld events",
                         p->sources[c->source].path, (long long)c->n);
    else
        rc = scope__cell_load_into(p, c, s, e);
    if (rc < 0) {
        free(s);
        free(e);
        return rc;
    }
    *starts = s;
    *ends = e;
    return 0;
}

int scope__cell_stats(scope_profile *p, scope__cell *c, const int64_t *s,
                      const int64_t *e)
{
    struct scope_call_stats st;
    if (scope_call_stats_of(s, e, c->n, &st) < 0)
        return scope__fail(SCOPE_EFORMAT, "%s: the durations of a region add up to more "
                           "than 292 years", p->sources[c->source].path);
    c->total = st.total;
    c->min = st.min;
    c->max = st.max;
    c->max_end = st.max_end;
    c->mean = st.mean;
    c->m2 = st.m2;
    c->summarized = 1;
    return 0;
}

/* Computes and caches the cell's statistics and latest end: exact int64
 * sums, then a second pass for the squared deviations (stable). */
int scope__cell_summarize(scope_profile *p, scope__cell *c)
{
    if (c->summarized)
        return 0;
    int64_t *s = c->starts, *e = c->ends;
    if (!s && c->n > 0) {
        int rc = scope__cell_load(p, c, &s, &e);
        if (rc < 0)
            return rc;
    }
    int rc = scope__cell_stats(p, c, s, e);
    if (s != c->starts) {
        free(s);
        free(e);
    }
    return rc;
}

int scope_profile_times(scope_profile *p, int region, int rank,
                        const int64_t **starts, const int64_t **ends,
                        int64_t *n)
{
    scope__cell *c = NULL;
    int rc = scope__cell_get(p, region, rank, &c);
    if (rc < 0)
        return rc;
    *starts = *ends = NULL;
    *n = 0;
    if (!c || c->n == 0)
        return 0;
    if (!c->starts) {
        scope_h5_quiet quiet;
        scope_h5_quiet_begin(&quiet);
        rc = scope__cell_load(p, c, &c->starts, &c->ends);
        scope_h5_quiet_end(&quiet);
        if (rc < 0)
            return rc;
    }
    *starts = c->starts;
    *ends = c->ends;
    *n = c->n;
    return 0;
}

/* Adds cell statistics into a running total (Chan et al.'s pairwise
 * update of the mean and the sum of squared deviations). */
/* Adds the moments of `calls` calls (their total, min, max, mean and m2)
 * to a running combination (acc, *m2): the pairwise update, so that the
 * ranks of a region combine exactly, in the order they come. The one
 * combination of scope_profile_stats() and scope_moments_combine(). */
static void combine_moments(scope_stats *acc, double *m2, int64_t calls, int64_t total,
                            int64_t mn, int64_t mx, double mean, double cm2)
{
    if (calls == 0)
        return;
    if (acc->calls == 0) {
        acc->calls = calls;
        acc->total_ns = total;
        acc->min_ns = mn;
        acc->max_ns = mx;
        acc->mean_ns = mean;
        *m2 = cm2;
        return;
    }
    double na = (double)acc->calls, nb = (double)calls, n = na + nb;
    double delta = mean - acc->mean_ns;
    *m2 += cm2 + delta * delta * na * nb / n;
    acc->calls += calls;
    acc->total_ns += total;
    acc->mean_ns = (double)acc->total_ns / (double)acc->calls;
    if (mn < acc->min_ns) acc->min_ns = mn;
    if (mx > acc->max_ns) acc->max_ns = mx;
}

static void combine(scope_stats *acc, double *m2, const scope__cell *c)
{
    combine_moments(acc, m2, c->n, c->total, c->min, c->max, c->mean, c->m2);
}

int scope_moments_of(const int64_t *durations, const int64_t *lo, const int64_t *hi,
                     scope_moments *out)
{
    if (!out || (out->n > 0 && (!durations || !lo || !hi || !out->calls || !out->total_ns ||
                                !out->min_ns || !out->max_ns || !out->mean_ns || !out->m2)))
        return scope__fail(SCOPE_EINVAL, "no durations, segments or output columns");
    for (int64_t g = 0; g < out->n; g++) {
        struct scope_call_stats st;
        if (lo[g] < 0 || hi[g] < lo[g])
            return scope__fail(SCOPE_EINVAL, "segment %lld: [%lld, %lld) is no segment",
                               (long long)g, (long long)lo[g], (long long)hi[g]);
        if (scope_call_stats_of(NULL, durations + lo[g], hi[g] - lo[g], &st) < 0)
            return scope__fail(SCOPE_EINVAL, "segment %lld: the durations add up to more "
                               "than 292 years", (long long)g);
        out->calls[g] = hi[g] - lo[g];
        out->total_ns[g] = st.total;
        out->min_ns[g] = st.min;
        out->max_ns[g] = st.max;
        out->mean_ns[g] = st.mean;
        out->m2[g] = st.m2;
    }
    return 0;
}

int scope_moments_combine(const scope_moments *rows, const int64_t *lo, const int64_t *hi,
                          int64_t ngroups, scope_stats *out)
{
    if (!rows || ngroups < 0 || (ngroups > 0 && (!lo || !hi || !out)))
        return scope__fail(SCOPE_EINVAL, "no moments, groups or output");
    for (int64_t g = 0; g < ngroups; g++) {
        if (lo[g] < 0 || hi[g] < lo[g] || hi[g] > rows->n)
            return scope__fail(SCOPE_EINVAL, "group %lld: rows [%lld, %lld) of %lld",
                               (long long)g, (long long)lo[g], (long long)hi[g],
                               (long long)rows->n);
        double m2 = 0.0;
        memset(&out[g], 0, sizeof out[g]);
        for (int64_t i = lo[g]; i < hi[g]; i++)
            combine_moments(&out[g], &m2, rows->calls[i], rows->total_ns[i], rows->min_ns[i],
                            rows->max_ns[i], rows->mean_ns[i], rows->m2[i]);
        out[g].std_ns = out[g].calls ? sqrt(m2 / (double)out[g].calls) : 0.0;
    }
    return 0;
}

int scope_profile_stats(scope_profile *p, int region, int rank,
                        scope_stats *out)
{
    scope__cell *c = NULL;
    int rc = 0, k0, k1;
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    int bad = scope__cell_span(p, region, rank, &k0, &k1);
    if (bad < 0)
        return bad;
    memset(out, 0, sizeof *out);
    double m2 = 0.0;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    for (int k = k0; k < k1 && rc >= 0; k++) {
        c = p->cells[(size_t)region * (size_t)p->nranks + (size_t)k];
        if (c && (rc = scope__cell_summarize(p, c)) >= 0)
            combine(out, &m2, c);
    }
    scope_h5_quiet_end(&quiet);
    if (rc < 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->std_ns = out->calls ? sqrt(m2 / (double)out->calls) : 0.0;
    return 0;
}

int scope_profile_rank_total_ns(scope_profile *p, int rank, int64_t *out)
{
    scope_stats st;
    int64_t total = 0;
    if (!p)
        return scope__fail(SCOPE_EINVAL, "no profile");
    if (rank != SCOPE_ALL_RANKS) {
        int k = scope__rank_index(p, rank);
        if (k < 0)
            return k;
    }
    for (int r = 0; r < p->nregions; r++) {
        int rc = scope_profile_stats(p, r, rank, &st);
        if (rc < 0)
            return rc;
        total += st.total_ns;
    }
    *out = total;
    return 0;
}

int scope_profile_run_start_ns(const scope_profile *p, int64_t *out)
{
    if (!p || !p->have_run_start)
        return scope__fail(SCOPE_ENOTFOUND, "the profile records no run "
                           "start time");
    *out = p->run_start;
    return 0;
}

/* Regions are sorted by first start, so the first region with calls holds
 * the earliest start: no event data needed. */
int scope_profile_min_start_ns(const scope_profile *p, int64_t *out)
{
    if (!p || p->nregions == 0 || p->regions[0].first_start == INT64_MAX)
        return scope__fail(SCOPE_ENOTFOUND, "the profile holds no calls");
    *out = p->regions[0].first_start;
    return 0;
}

int scope_profile_max_end_ns(scope_profile *p, int64_t *out)
{
    if (!p)
        return scope__fail(SCOPE_EINVAL, "no profile");
    if (!p->have_max_end) {
        int64_t m = INT64_MIN;
        int rc = 0;
        scope_h5_quiet quiet;
        scope_h5_quiet_begin(&quiet);
        /* Rank by rank: one rank's cells share a source file, so this order
         * opens each file once even when there are more than MAX_OPEN. It
         * also caches every cell's statistics for the callers that follow
         * (scope summary asks for the span first on purpose). */
        for (int k = 0; k < p->nranks && rc >= 0; k++)
            for (int r = 0; r < p->nregions && rc >= 0; r++) {
                scope__cell *c =
                    p->cells[(size_t)r * (size_t)p->nranks + (size_t)k];
                if (c && c->n > 0 && (rc = scope__cell_summarize(p, c)) >= 0 &&
                    c->max_end > m)
                    m = c->max_end;
            }
        scope_h5_quiet_end(&quiet);
        if (rc < 0)
            return rc;
        if (m == INT64_MIN)
            return scope__fail(SCOPE_ENOTFOUND, "the profile holds no calls");
        p->max_end = m;
        p->have_max_end = 1;
    }
    *out = p->max_end;
    return 0;
}

int scope_profile_time_origin_ns(const scope_profile *p, int64_t *out)
{
    if (p && p->have_run_start) {
        *out = p->run_start;
        return 0;
    }
    return scope_profile_min_start_ns(p, out);
}

int scope_profile_time_span_ns(scope_profile *p, int64_t *out)
{
    int64_t lo, hi;
    int rc = scope_profile_min_start_ns(p, &lo);
    if (rc == SCOPE_ENOTFOUND && p) {
        *out = 0;
        return 0;
    }
    if (rc < 0 || (rc = scope_profile_max_end_ns(p, &hi)) < 0)
        return rc;
    *out = hi - lo;
    return 0;
}
