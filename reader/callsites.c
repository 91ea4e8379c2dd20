/*
 * callsites.c - call-site attribution in the reader: each rank's
 * /rank<N>/callsites table (docs/format.md: one row per frame of each call
 * path, per-rank ids), the callsite_ids column of regions, and duration
 * statistics per site.
 *
 * Ids are per rank, so the same source line has different ids on two
 * ranks. The reader therefore merges every rank's paths into one run-wide
 * list of "sites", keyed by the frames themselves (depth, and per frame
 * offset + build-id, or the object path when there is no build-id), and
 * hands out merged site indices everywhere. Resolving a site to function,
 * file and line is not done here: the reader stays HDF5-only, and the
 * `scope` tool symbolizes with libdw (tools/symbolize.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* One call path of one rank, while merging. */
typedef struct path {
    int k;                          /* rank index */
    int id;                         /* its id on that rank */
    int depth;
    scope_callsite_frame *frames;   /* owned by the path until merged */
} path;

typedef struct site {
    int depth;
    scope_callsite_frame *frames;   /* strings owned (strdup'ed) */
} site;

struct scope__sites {
    int nsites;
    site *sites;
    int *npaths;        /* per rank index: paths stored for that rank */
    int32_t **of_path;  /* per rank index: merged site of each path id */
    int nranks;
};

static void free_frames(scope_callsite_frame *f, int depth)
{
    if (!f)
        return;
    for (int i = 0; i < depth; i++) {
        free((char *)f[i].build_id);
        free((char *)f[i].object);
    }
    free(f);
}

void scope__sites_free(struct scope__sites *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nsites; i++)
        free_frames(s->sites[i].frames, s->sites[i].depth);
    free(s->sites);
    for (int k = 0; k < s->nranks; k++)
        free(s->of_path[k]);
    free(s->of_path);
    free(s->npaths);
    free(s);
}

/* The row layout read from the file; HDF5 converts the stored compound
 * to this by member name. */
typedef struct row {
    int32_t id, frame, depth;
    uint64_t offset;
    char *build_id;
    char *object;
} row;

/* A variable-length string type with the character set the file uses for
 * `member` (HDF5 1.10 will not convert between character sets). */
static hid_t vstr_like(hid_t ftype, const char *member)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    int i = H5Tget_member_index(ftype, member);
    if (i >= 0) {
        hid_t mt = H5Tget_member_type(ftype, (unsigned)i);
        if (mt >= 0) {
            if (H5Tget_class(mt) == H5T_STRING)
                H5Tset_cset(t, H5Tget_cset(mt));
            H5Tclose(mt);
        }
    }
    return t;
}

/* Reads rank index k's table into *paths (appending; *n and *cap grow) and
 * stores the number of its paths in *npaths. A rank without the table has
 * none. Returns 0 or a SCOPE_E* code with the message set. Cost: one read
 * of the whole table. */
static int load_rank(scope_profile *p, int k, path **paths, int *n, int *cap,
                     int *npaths)
{
    const scope__rank *rk = &p->ranks[k];
    const scope__source *src = &p->sources[rk->source];
    *npaths = 0;
    if (src->layout != SCOPE__LAYOUT_GROUPS || !rk->group)
        return 0;
    hid_t f;
    char *dpath = NULL;
    int rc = scope__source_link(p, rk->source, rk->group, "callsites", &f, &dpath);
    if (rc < 0 || !dpath)
        return rc;
    hid_t d = H5Dopen2(f, dpath, H5P_DEFAULT);
    hid_t ftype = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
    hid_t space = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hid_t mtype = H5I_INVALID_HID, sb = H5I_INVALID_HID, so = H5I_INVALID_HID;
    row *rows = NULL;
    hssize_t nrows = 0;
    if (d < 0 || ftype < 0 || space < 0 || H5Tget_class(ftype) != H5T_COMPOUND ||
        H5Sget_simple_extent_ndims(space) != 1 ||
        (nrows = H5Sget_simple_extent_npoints(space)) < 0 || nrows > (1 << 26)) {
        rc = scope__h5_fail(SCOPE_EFORMAT, src->path, "callsites is not a "
                            "one-dimensional compound table");
        goto fail_open;
    }
    sb = vstr_like(ftype, "build_id");
    so = vstr_like(ftype, SCOPE_A_OBJECT);
    mtype = H5Tcreate(H5T_COMPOUND, sizeof(row));
    H5Tinsert(mtype, SCOPE_C_ID, HOFFSET(row, id), H5T_NATIVE_INT32);
    H5Tinsert(mtype, SCOPE_C_FRAME, HOFFSET(row, frame), H5T_NATIVE_INT32);
    H5Tinsert(mtype, SCOPE_C_DEPTH, HOFFSET(row, depth), H5T_NATIVE_INT32);
    H5Tinsert(mtype, SCOPE_C_OFFSET, HOFFSET(row, offset), H5T_NATIVE_UINT64);
    H5Tinsert(mtype, SCOPE_C_BUILD_ID, HOFFSET(row, build_id), sb);
    H5Tinsert(mtype, SCOPE_C_OBJECT, HOFFSET(row, object), so);
    if (!(rows = calloc((size_t)nrows + 1, sizeof *rows))) {
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", src->path);
        goto fail_open;
    }
    if (nrows && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0) {
        rc = scope__h5_fail(SCOPE_EHDF5, src->path, "cannot read the callsites "
                            "table");
        goto fail_read;
    }
    /* Rows sorted by (id, frame), ids dense from 0, frames 0..depth-1. */
    for (hssize_t i = 0; i < nrows;) {
        const row *r = &rows[i];
        if (r->id != *npaths || r->frame != 0 || r->depth < 1 ||
            r->depth > nrows - i) {
            rc = scope__fail(SCOPE_EFORMAT, "%s: %s row %lld: id %d frame %d "
                             "depth %d (expected id %d, frame 0)", src->path,
                             dpath, (long long)i, r->id, r->frame, r->depth,
                             *npaths);
            goto fail_read;
        }
        int depth = r->depth;
        scope_callsite_frame *fr = calloc((size_t)depth, sizeof *fr);
        if (!fr) {
            rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", src->path);
            goto fail_read;
        }
        for (int j = 0; j < depth; j++) {
            const row *q = &rows[i + j];
            fr[j].offset = q->offset;
            fr[j].build_id = strdup(q->build_id ? q->build_id : "");
            fr[j].object = strdup(q->object ? q->object : "");
            if (q->id != r->id || q->frame != j || q->depth != depth ||
                !fr[j].build_id || !fr[j].object) {
                rc = !fr[j].build_id || !fr[j].object
                         ? scope__fail(SCOPE_ENOMEM, "%s: out of memory", src->path)
                         : scope__fail(SCOPE_EFORMAT, "%s: %s row %lld: id %d "
                                       "frame %d depth %d (expected id %d frame "
                                       "%d depth %d)", src->path, dpath,
                                       (long long)(i + j), q->id, q->frame,
                                       q->depth, r->id, j, depth);
                free_frames(fr, j + 1);
                goto fail_read;
            }
        }
        if (*n == *cap) {
            int ncap = *cap ? *cap * 2 : 64;
            path *np = realloc(*paths, (size_t)ncap * sizeof *np);
            if (!np) {
                free_frames(fr, depth);
                rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", src->path);
                goto fail_read;
            }
            *paths = np;
            *cap = ncap;
        }
        (*paths)[(*n)++] = (path){ k, *npaths, depth, fr };
        (*npaths)++;
        i += depth;
    }
    rc = 0;
fail_read:
    if (nrows)
        H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, rows);
    free(rows);
fail_open:
    if (mtype >= 0) H5Tclose(mtype);
    if (sb >= 0) H5Tclose(sb);
    if (so >= 0) H5Tclose(so);
    if (space >= 0) H5Sclose(space);
    if (ftype >= 0) H5Tclose(ftype);
    if (d >= 0) H5Dclose(d);
    free(dpath);
    return rc;
}

/* Orders paths by their frames (the merge key), then by (rank, id), so
 * equal paths are adjacent with the first-seen one first. */
static int cmp_key(const path *a, const path *b)
{
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    for (int j = 0; j < a->depth; j++) {
        const scope_callsite_frame *x = &a->frames[j], *y = &b->frames[j];
        if (x->offset != y->offset)
            return x->offset < y->offset ? -1 : 1;
        int c = strcmp(x->build_id, y->build_id);
        if (c)
            return c;
        if (!x->build_id[0] && (c = strcmp(x->object, y->object)))
            return c;
    }
    return 0;
}

static int cmp_path(const void *pa, const void *pb)
{
    const path *a = pa, *b = pb;
    int c = cmp_key(a, b);
    if (c)
        return c;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* Groups of equal paths, ordered by their first (rank, id). */
typedef struct group { int first; int k, id; } group;

static int cmp_group(const void *pa, const void *pb)
{
    const group *a = pa, *b = pb;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* Loads and merges every rank's paths once. */
static int load_sites(scope_profile *p)
{
    if (p->sites)
        return 0;
    struct scope__sites *s = calloc(1, sizeof *s);
    path *paths = NULL;
    group *groups = NULL;
    int n = 0, cap = 0, rc = 0;
    if (!s || !(s->npaths = calloc((size_t)p->nranks + 1, sizeof *s->npaths)) ||
        !(s->of_path = calloc((size_t)p->nranks + 1, sizeof *s->of_path))) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
        goto fail;
    }
    s->nranks = p->nranks;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    for (int k = 0; k < p->nranks && rc == 0; k++)
        rc = load_rank(p, k, &paths, &n, &cap, &s->npaths[k]);
    scope_h5_quiet_end(&quiet);
    if (rc < 0)
        goto fail;
    for (int k = 0; k < p->nranks; k++)
        if (!(s->of_path[k] = calloc((size_t)s->npaths[k] + 1, sizeof(int32_t)))) {
            rc = scope__fail(SCOPE_ENOMEM, "out of memory");
            goto fail;
        }
    if (n)
        qsort(paths, (size_t)n, sizeof *paths, cmp_path);
    groups = malloc(((size_t)n + 1) * sizeof *groups);
    s->sites = calloc((size_t)n + 1, sizeof *s->sites);
    if (!groups || !s->sites) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
        goto fail;
    }
    int ng = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || cmp_key(&paths[i - 1], &paths[i]) != 0)
            groups[ng++] = (group){ i, paths[i].k, paths[i].id };
    qsort(groups, (size_t)ng, sizeof *groups, cmp_group);
    /* groups[].index becomes "the site whose first path is sorted
     * position i", so one more walk gives every path its site */
    int *start_of = malloc(((size_t)n + 1) * sizeof *start_of);
    if (!start_of) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < n; i++)
        start_of[i] = -1;
    for (int g = 0; g < ng; g++) {
        path *first = &paths[groups[g].first];
        s->sites[g] = (site){ first->depth, first->frames };
        first->frames = NULL;       /* the site owns them now */
        start_of[groups[g].first] = g;
    }
    for (int i = 0, cur = -1; i < n; i++) {
        if (start_of[i] >= 0)
            cur = start_of[i];
        s->of_path[paths[i].k][paths[i].id] = cur;
    }
    free(start_of);
    s->nsites = ng;
    p->sites = s;
    s = NULL;
fail:
    for (int i = 0; i < n; i++)
        free_frames(paths[i].frames, paths[i].depth);
    free(paths);
    free(groups);
    scope__sites_free(s);
    return rc;
}

int scope_profile_site_count(scope_profile *p)
{
    if (!p)
        return scope__fail(SCOPE_EINVAL, "no profile");
    int rc = load_sites(p);
    return rc < 0 ? rc : p->sites->nsites;
}

int scope_profile_site_frames(scope_profile *p, int site,
                              const scope_callsite_frame **frames, int *depth)
{
    if (!p || !frames || !depth)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    int rc = load_sites(p);
    if (rc < 0)
        return rc;
    if (site < 0 || site >= p->sites->nsites)
        return scope__fail(SCOPE_ENOTFOUND, "no call site %d (the profile has "
                           "%d)", site, p->sites->nsites);
    *frames = p->sites->sites[site].frames;
    *depth = p->sites->sites[site].depth;
    return 0;
}

int scope_profile_rank_callsite_count(scope_profile *p, int rank)
{
    if (!p)
        return scope__fail(SCOPE_EINVAL, "no profile");
    int k = scope__rank_index(p, rank);
    if (k < 0)
        return k;
    int rc = load_sites(p);
    return rc < 0 ? rc : p->sites->npaths[k];
}

int scope_profile_rank_callsite_site(scope_profile *p, int rank, int id)
{
    int n = scope_profile_rank_callsite_count(p, rank);
    if (n < 0)
        return n;
    if (id < 0 || id >= n)
        return scope__fail(SCOPE_ENOTFOUND, "rank %d has no call path %d (it "
                           "has %d)", rank, id, n);
    return p->sites->of_path[scope__rank_index(p, rank)][id];
}

/* Reads a cell's callsite_ids (each a call path of the rank, or -1) and
 * maps them to merged sites; *out is NULL when the region stores none
 * there. */
static int load_cell_sites(scope_profile *p, int k, scope__cell *c, int32_t **out)
{
    int rc = scope__cell_load_narrow(p, c, SCOPE_D_CALLSITE_IDS, sizeof **out, -1,
                                     (int64_t)p->sites->npaths[k] - 1, (void **)out);
    for (int64_t i = 0; rc == 0 && *out && i < c->n; i++)
        (*out)[i] = (*out)[i] < 0 ? -1 : p->sites->of_path[k][(*out)[i]];
    return rc;
}

int scope__cell_sites(scope_profile *p, int region, int k, scope__cell **cell)
{
    scope__cell *c = scope__cell_at(p, region, k);
    *cell = c;
    if (!c || c->sites_loaded)
        return 0;
    int rc = load_sites(p);
    if (rc < 0)
        return rc;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    rc = load_cell_sites(p, k, c, &c->sites);
    scope_h5_quiet_end(&quiet);
    if (rc < 0)
        return rc;
    c->sites_loaded = 1;
    return 0;
}

int scope_profile_call_sites(scope_profile *p, int region, int rank,
                             const int32_t **sites, int64_t *n)
{
    if (!p || !sites || !n)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *sites = NULL;
    *n = 0;
    int k = scope__cell_index(p, region, rank);
    if (k < 0)
        return k;
    scope__cell *c;
    int rc = scope__cell_sites(p, region, k, &c);
    if (rc < 0 || !c)
        return rc;
    *sites = c->sites;
    *n = c->n;
    return 0;
}

/* Welford's running mean and squared deviations per site. */
static void add(scope_stats *st, double *m2, int64_t d)
{
    st->calls++;
    st->total_ns += d;
    if (st->calls == 1 || d < st->min_ns)
        st->min_ns = d;
    if (st->calls == 1 || d > st->max_ns)
        st->max_ns = d;
    double delta = (double)d - st->mean_ns;
    st->mean_ns += delta / (double)st->calls;
    *m2 += delta * ((double)d - st->mean_ns);
}

int scope_profile_site_stats(scope_profile *p, int region, int rank,
                             scope_stats *out, scope_stats *none)
{
    if (!p)
        return scope__fail(SCOPE_EINVAL, "no profile");
    int k0, k1, bad = scope__cell_span(p, region, rank, &k0, &k1);
    if (bad < 0)
        return bad;
    int rc = load_sites(p);
    if (rc < 0)
        return rc;
    int ns = p->sites->nsites;
    if (ns && !out)
        return scope__fail(SCOPE_EINVAL, "no room for %d call sites", ns);
    /* slot ns holds the calls without a site */
    scope_stats *acc = calloc((size_t)ns + 1, sizeof *acc);
    double *m2 = calloc((size_t)ns + 1, sizeof *m2);
    if (!acc || !m2) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
        goto fail;
    }
    for (int k = k0; k < k1; k++) {
        scope__cell *c;
        if ((rc = scope__cell_sites(p, region, k, &c)) < 0)
            goto fail;
        if (!c || c->n == 0)
            continue;
        const int64_t *st, *en;
        int64_t n;
        if ((rc = scope_profile_times(p, region, p->ranks[k].rank, &st, &en, &n)) < 0)
            goto fail;
        for (int64_t i = 0; i < n; i++) {
            int s = c->sites ? c->sites[i] : -1;
            int slot = s < 0 ? ns : s;
            add(&acc[slot], &m2[slot], en[i] - st[i]);
        }
    }
    for (int s = 0; s <= ns; s++)
        acc[s].std_ns = acc[s].calls ? sqrt(m2[s] / (double)acc[s].calls) : 0.0;
    if (ns)
        memcpy(out, acc, (size_t)ns * sizeof *out);
    if (none)
        *none = acc[ns];
    rc = 0;
fail:
    free(acc);
    free(m2);
    return rc;
}
