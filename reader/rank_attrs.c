/*
 * rank_attrs.c - every attribute of a rank group, read once while the
 * profile is opened (the group is open then anyway), and looked up later
 * without HDF5.
 *
 * Why: `scope summary` asks each rank for five attributes (dropped_events,
 * complete, rank_mismatch, clock_resolution_ns, clock_aligned, ...). Asked
 * of HDF5, each question reopened the rank's file once it had left the
 * reader's few open files: for 4,096 rank files that was six opens per
 * file, most of the summary's time. The cache mirrors exactly what
 * profile_attrs.c's HDF5 path answers (an integer read as int64, a number
 * read as double, a scalar string); attributes whose answer it cannot
 * reproduce bit for bit (64-bit unsigned, wider floats, failed reads) stay
 * UNCACHED and are asked of HDF5 as before.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_h5_read.h"

typedef struct {
    scope__rank *r;
    size_t cap;
    int nomem;
} attr_walk;

/* Fills one entry from the open attribute `a`: what each getter of
 * profile_attrs.c would answer. Returns 0 or SCOPE_ENOMEM. */
static int fill(scope__attr *at, hid_t a, const char *name)
{
    int kind = scope_h5_attr_value(a, &at->i, &at->d, &at->s);
    if (kind < 0)
        return scope__fail(SCOPE_ENOMEM, "out of memory reading attribute %s", name);
    at->kind = kind;    /* SCOPE_HS_KIND_* are scope__attr_kind's values, 0 UNCACHED */
    return 0;
}

static herr_t attr_cb(hid_t g, const char *name, const H5A_info_t *info,
                      void *arg)
{
    (void)info;
    attr_walk *w = arg;
    scope__rank *r = w->r;
    if ((size_t)r->nattrs == w->cap) {
        size_t ncap = w->cap ? w->cap * 2 : 16;
        scope__attr *q = realloc(r->attrs, ncap * sizeof *q);
        if (!q) {
            w->nomem = 1;
            return -1;
        }
        r->attrs = q;
        w->cap = ncap;
    }
    scope__attr *at = &r->attrs[r->nattrs];
    memset(at, 0, sizeof *at);
    if (!(at->name = strdup(name))) {
        w->nomem = 1;
        return -1;
    }
    r->nattrs++;
    hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    if (a < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;   /* UNCACHED: asked of HDF5 later, which will fail alike */
    }
    int rc = fill(at, a, name);
    H5Aclose(a);
    if (rc < 0) {
        w->nomem = 1;
        return -1;
    }
    return 0;
}

int scope__rank_attrs_cache(scope__rank *r, hid_t g)
{
    attr_walk w = { r, 0, 0 };
    hsize_t idx = 0;
    scope__rank_attrs_free(r);
    if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &w) < 0) {
        H5Eclear2(H5E_DEFAULT);
        scope__rank_attrs_free(r);
        if (w.nomem)
            return scope__fail(SCOPE_ENOMEM, "out of memory reading rank %d's attributes",
                               r->rank);
        return 0;   /* not cached: every question goes to HDF5 */
    }
    r->attrs_cached = 1;
    return 0;
}

int scope__rank_attr_lookup(const scope__rank *r, const char *name,
                            const scope__attr **out)
{
    if (!r->attrs_cached)
        return -1;
    for (int i = 0; i < r->nattrs; i++)
        if (strcmp(r->attrs[i].name, name) == 0) {
            if (r->attrs[i].kind == SCOPE__ATTR_UNCACHED)
                return -1;
            *out = &r->attrs[i];
            return 1;
        }
    return 0;
}

void scope__rank_attrs_free(scope__rank *r)
{
    for (int i = 0; i < r->nattrs; i++) {
        free(r->attrs[i].name);
        free(r->attrs[i].s);
    }
    free(r->attrs);
    r->attrs = NULL;
    r->nattrs = 0;
    r->attrs_cached = 0;
}
