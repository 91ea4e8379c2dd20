/*
 * profile_attrs.c - what a profile says about itself besides the calls:
 * the run's /metadata attributes, each rank group's attributes (dropped
 * events, completeness, ...), the thread lane of every call and which
 * calls' ends were inferred (unwound).
 *
 * /metadata, thread ids and unwound flags are read on demand, straight
 * from the file. Rank attributes were read when the profile was opened,
 * while each rank group was open anyway (rank_attrs.c), so asking all
 * ranks of a large run reopens no file; the few the cache does not mirror
 * are read on demand too. And which file holds each rank's group.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* Opens the group `gpath` of source `s`; the caller closes it. */
static int open_group(scope_profile *p, int s, const char *gpath, hid_t *out)
{
    hid_t f;
    int rc = scope__source_file(p, s, &f);
    if (rc < 0)
        return rc;
    if (H5Lexists(f, gpath, H5P_DEFAULT) <= 0 ||
        (*out = H5Gopen2(f, gpath, H5P_DEFAULT)) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return scope__fail(SCOPE_ENOTFOUND, "%s: no group %s",
                           p->sources[s].path, gpath);
    }
    return 0;
}

/* The group holding attributes: /metadata (rank < 0 && !is_rank) or the
 * rank's group. */
static int attr_group(scope_profile *p, int is_rank, int rank, hid_t *g,
                      const char **where)
{
    if (!p)
        return scope__fail(SCOPE_EINVAL, "no profile");
    if (!is_rank) {
        *where = "/metadata";
        if (p->meta_source < 0)
            return scope__fail(SCOPE_ENOTFOUND, "the profile has no "
                               "/metadata");
        return open_group(p, p->meta_source, SCOPE_G_METADATA, g);
    }
    int k = scope__rank_index(p, rank);
    if (k < 0)
        return k;
    *where = p->ranks[k].group;
    if (!p->ranks[k].group)
        return scope__fail(SCOPE_ENOTFOUND, "rank %d has no rank group "
                           "(a scope-profiler columnar file)", rank);
    return open_group(p, p->ranks[k].source, p->ranks[k].group, g);
}

/* The cached attribute `name` of rank `rank` (rank_attrs.c): 1 with *at
 * and *where set, 0 when the rank group has no such attribute (*where
 * set), -1 when HDF5 must be asked (unknown rank, columnar file, or an
 * attribute the cache does not mirror). */
static int cached(const scope_profile *p, int is_rank, int rank, const char *name,
                  const scope__attr **at, const char **where)
{
    if (!p || !is_rank || !name)
        return -1;
    int lo = 0, hi = p->nranks - 1;
    while (lo <= hi) {  /* scope__rank_index without its message */
        int mid = lo + (hi - lo) / 2;
        if (p->ranks[mid].rank == rank) {
            int rc = scope__rank_attr_lookup(&p->ranks[mid], name, at);
            if (rc >= 0)
                *where = p->ranks[mid].group;
            return rc;
        }
        if (p->ranks[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static int get_int(scope_profile *p, int is_rank, int rank, const char *name,
                   int64_t *out)
{
    hid_t g;
    const char *where = "";
    const scope__attr *at;
    if (!name || !out)
        return scope__fail(SCOPE_EINVAL, "no attribute name or output");
    int c = cached(p, is_rank, rank, name, &at, &where);
    if (c == 1 && at->kind == SCOPE__ATTR_INT) {
        *out = at->i;
        return 0;
    }
    if (c >= 0)
        return scope__fail(SCOPE_ENOTFOUND, "%s has no integer attribute \"%s\"", where,
                           name);
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    int rc = attr_group(p, is_rank, rank, &g, &where);
    if (rc >= 0) {
        rc = scope__h5_attr_int64(g, name, out);
        H5Gclose(g);
        rc = rc == 1 ? 0 : scope__fail(SCOPE_ENOTFOUND, "%s has no integer "
                                       "attribute \"%s\"", where, name);
    }
    scope_h5_quiet_end(&quiet);
    return rc;
}

static int get_string(scope_profile *p, int is_rank, int rank,
                      const char *name, char *buf, int64_t len)
{
    hid_t g;
    const char *where = "";
    char *v = NULL;
    const scope__attr *at;
    if (!name || (!buf && len > 0) || len < 0)
        return scope__fail(SCOPE_EINVAL, "no attribute name or buffer");
    int c = cached(p, is_rank, rank, name, &at, &where);
    if (c >= 0 && !(c == 1 && at->kind == SCOPE__ATTR_STRING))
        return scope__fail(SCOPE_ENOTFOUND, "%s has no string attribute \"%s\"", where,
                           name);
    int rc = 0;
    if (c == 1) {
        if (!(v = strdup(at->s)))
            return scope__fail(SCOPE_ENOMEM, "out of memory reading attribute %s", name);
    } else {
        scope_h5_quiet quiet;
        scope_h5_quiet_begin(&quiet);
        rc = attr_group(p, is_rank, rank, &g, &where);
        if (rc >= 0) {
            rc = scope__h5_attr_string(g, name, &v);
            H5Gclose(g);
            if (rc == 0)
                rc = scope__fail(SCOPE_ENOTFOUND, "%s has no string attribute "
                                 "\"%s\"", where, name);
        }
        scope_h5_quiet_end(&quiet);
        if (rc < 0)
            return rc;
    }
    size_t n = strlen(v);
    if (len > 0) {
        size_t c = n < (size_t)len - 1 ? n : (size_t)len - 1;
        memcpy(buf, v, c);
        buf[c] = '\0';
    }
    free(v);
    return n > (size_t)0x7fffffff ? 0x7fffffff : (int)n;
}

int scope_profile_metadata_int(scope_profile *p, const char *name,
                               int64_t *out)
{
    return get_int(p, 0, 0, name, out);
}

int scope_profile_metadata_string(scope_profile *p, const char *name,
                                  char *buf, int64_t len)
{
    return get_string(p, 0, 0, name, buf, len);
}

const char *scope_profile_rank_file(const scope_profile *p, int rank)
{
    int k = p ? scope__rank_index(p, rank) : -1;
    if (k < 0 || p->ranks[k].source < 0 || p->ranks[k].source >= p->nsources)
        return NULL;
    return p->sources[p->ranks[k].source].path;
}

int scope_profile_rank_attr_int(scope_profile *p, int rank, const char *name,
                                int64_t *out)
{
    return get_int(p, 1, rank, name, out);
}

int scope__any_rank_flag(scope_profile *p, const char *name)
{
    if (!p)
        return 0;
    for (int k = 0; k < p->nranks; k++) {
        int64_t v = 0;
        if (get_int(p, 1, p->ranks[k].rank, name, &v) == 0 && v)
            return 1;
    }
    return 0;
}

int scope_profile_rank_attr_string(scope_profile *p, int rank,
                                   const char *name, char *buf, int64_t len)
{
    return get_string(p, 1, rank, name, buf, len);
}

int scope_profile_rank_attr_double(scope_profile *p, int rank,
                                   const char *name, double *out)
{
    hid_t g = -1;
    const char *where = "";
    const scope__attr *at;
    if (!name || !out)
        return scope__fail(SCOPE_EINVAL, "no attribute name or output");
    int c = cached(p, 1, rank, name, &at, &where);
    if (c == 1 && (at->kind == SCOPE__ATTR_INT || at->kind == SCOPE__ATTR_FLOAT)) {
        *out = at->d;
        return 0;
    }
    if (c >= 0)
        return scope__fail(SCOPE_ENOTFOUND, "%s has no numeric attribute \"%s\"", where,
                           name);
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    int rc = attr_group(p, 1, rank, &g, &where), ok = 0;
    if (rc >= 0) {
        hid_t a = H5Aexists(g, name) > 0 ? H5Aopen(g, name, H5P_DEFAULT) : -1;
        if (a >= 0) {
            hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
            H5T_class_t cl = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
            ok = (cl == H5T_FLOAT || cl == H5T_INTEGER) && sp >= 0 &&
                 H5Sget_simple_extent_npoints(sp) == 1 &&
                 H5Aread(a, H5T_NATIVE_DOUBLE, out) >= 0;
            if (sp >= 0) H5Sclose(sp);
            if (t >= 0) H5Tclose(t);
            H5Aclose(a);
        }
        H5Eclear2(H5E_DEFAULT);
        H5Gclose(g);
        rc = ok ? 0 : scope__fail(SCOPE_ENOTFOUND, "%s has no numeric "
                                  "attribute \"%s\"", where, name);
    }
    scope_h5_quiet_end(&quiet);
    return rc;
}

int scope_profile_clock_resolution_ns(scope_profile *p, int rank, int64_t *out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    if (rank != SCOPE_ALL_RANKS)
        return get_int(p, 1, rank, SCOPE_A_CLOCK_RESOLUTION_NS, out);
    int64_t best = -1, v;
    for (int i = 0; i < p->nranks; i++)
        if (get_int(p, 1, p->ranks[i].rank, SCOPE_A_CLOCK_RESOLUTION_NS, &v) == 0 && v > best)
            best = v;
    if (best < 0)
        return scope__fail(SCOPE_ENOTFOUND, "no rank states its clock resolution");
    *out = best;
    return 0;
}

/* scope__cell_read_column in elements of `elem` bytes (8 or 4): into
 * `into` when given (room for c->n), else into a new malloc'd array. */
static int read_column(scope_profile *p, scope__cell *c, const char *name, size_t elem,
                       void *into, void **out, char **path)
{
    const scope__source *src = &p->sources[c->source];
    *out = NULL;
    *path = NULL;
    if (src->layout != SCOPE__LAYOUT_GROUPS || c->n == 0)
        return 0;
    hid_t f;
    char *dpath = NULL;
    int rc = scope__source_link(p, c->source, c->group, name, &f, &dpath);
    if (rc < 0 || !dpath)
        return rc;
    int64_t n;
    void *v = NULL;
    if ((rc = scope__h5_len(f, dpath, src->path, &n)) < 0)
        goto fail_read;
    if (n != c->n) {
        rc = scope__fail(SCOPE_EFORMAT, "%s: %s has %lld values for %lld "
                         "calls", src->path, dpath, (long long)n,
                         (long long)c->n);
        goto fail_read;
    }
    if (!(v = into ? into : malloc((size_t)n * elem))) {
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", src->path);
        goto fail_read;
    }
    if ((rc = elem == 8 ? scope__h5_read_int64(f, dpath, src->path, 0, n, v)
                        : scope__h5_read_int32(f, dpath, src->path, 0, n, v)) < 0)
        goto fail_read;
    *out = v;
    *path = dpath;
    return 0;
fail_read:
    if (v != into)
        free(v);
    free(dpath);
    return rc;
}

int scope__cell_read_column(scope_profile *p, scope__cell *c, const char *name,
                            int64_t **out, char **path)
{
    return read_column(p, c, name, sizeof **out, NULL, (void **)out, path);
}

int scope__cell_read_column32(scope_profile *p, scope__cell *c, const char *name,
                              int32_t **out, char **path)
{
    return read_column(p, c, name, sizeof **out, NULL, (void **)out, path);
}

int scope__cell_read_column_into(scope_profile *p, scope__cell *c, const char *name, size_t elem,
                                 void *buf)
{
    void *out;
    char *path;
    int rc = read_column(p, c, name, elem, buf, &out, &path);
    free(path);
    return rc < 0 ? rc : out != NULL;
}

int scope__cell_load_narrow(scope_profile *p, scope__cell *c, const char *name, size_t size,
                            int64_t lo, int64_t hi, void **out)
{
    const scope__source *src = &p->sources[c->source];
    int64_t *wide;
    char *path;
    *out = NULL;
    int rc = scope__cell_read_column(p, c, name, &wide, &path);
    if (rc < 0 || !wide)
        return rc;
    char *v = malloc(c->n ? (size_t)c->n * size : 1);
    if (!v) {
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", src->path);
        goto fail_read;
    }
    for (int64_t i = 0; i < c->n; i++) {
        if (wide[i] < lo || wide[i] > hi) {
            rc = scope__fail(SCOPE_EFORMAT, "%s: %s[%lld] is %lld, not in [%lld, %lld]",
                             src->path, path, (long long)i, (long long)wide[i], (long long)lo,
                             (long long)hi);
            goto fail_read;
        }
        if (size == 1)
            ((int8_t *)v)[i] = (int8_t)wide[i];
        else
            ((int32_t *)v)[i] = (int32_t)wide[i];
    }
    *out = v;
    v = NULL;
fail_read:
    free(v);
    free(wide);
    free(path);
    return rc;
}

/* A per-call column kept in the cell once asked for: its dataset, its
 * values' size (1 or 4 bytes) and range, and where the cell keeps it. */
struct cell_column {
    const char *name;
    size_t size;
    int64_t lo, hi;
    size_t loaded, arr;         /* offsets in scope__cell of the flag and pointer */
};

static const struct cell_column tids_column = {
    SCOPE_D_THREAD_IDS, sizeof(int32_t), 0, INT32_MAX,
    offsetof(scope__cell, tids_loaded), offsetof(scope__cell, tids),
};
static const struct cell_column unwound_column = {
    SCOPE_D_UNWOUND, sizeof(int8_t), 0, 1,
    offsetof(scope__cell, unwound_loaded), offsetof(scope__cell, unwound),
};

int scope__cell_load_tids(scope_profile *p, scope__cell *c, int32_t **tids)
{
    return scope__cell_load_narrow(p, c, tids_column.name, tids_column.size, tids_column.lo, tids_column.hi,
                       (void **)tids);
}

/* Column `col` of (region, rank), read once into the cell, quietly. *arr
 * NULL and *n the calls when the region has none; *arr NULL and *n 0 for
 * no cell. */
static int get_column(scope_profile *p, int region, int rank, const struct cell_column *col,
                      const void **arr, int64_t *n)
{
    if (!p || !arr || !n)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *arr = NULL;
    *n = 0;
    scope__cell *c;
    int rc = scope__cell_get(p, region, rank, &c);
    if (rc < 0 || !c)
        return rc;
    int *loaded = (int *)((char *)c + col->loaded);
    void **slot = (void **)((char *)c + col->arr);
    if (!*loaded) {
        scope_h5_quiet quiet;
        scope_h5_quiet_begin(&quiet);
        rc = scope__cell_load_narrow(p, c, col->name, col->size, col->lo, col->hi, slot);
        scope_h5_quiet_end(&quiet);
        if (rc < 0)
            return rc;
        *loaded = 1;
    }
    *arr = *slot;
    *n = c->n;
    return 0;
}

int scope_profile_thread_ids(scope_profile *p, int region, int rank,
                             const int32_t **tids, int64_t *n)
{
    return get_column(p, region, rank, &tids_column, (const void **)tids, n);
}

/* The unwound flags: 1 where scope inferred the end; NULL when no end of
 * the region was inferred (or a file of another tool). */
int scope_profile_unwound(scope_profile *p, int region, int rank, const int8_t **unwound,
                          int64_t *n)
{
    return get_column(p, region, rank, &unwound_column, (const void **)unwound, n);
}
