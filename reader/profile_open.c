/*
 * profile_open.c - turns the paths a user gives (index file, merged file,
 * rank file, folder of rank files, scope-profiler schema 1/2/3 files, or
 * several of these) into one profile model: sources, ranks, regions and the
 * region x rank cell matrix (reader_internal.h).
 *
 * Opening reads only structure: link names, attributes, dataset sizes and
 * the first start time of each (region, rank), which is all that sorting
 * regions by first start needs. Event arrays are read later, on demand
 * (profile_data.c). Every failure is a SCOPE_E* code plus a message that
 * names the offending path; nothing here prints, exits or aborts.
 *
 * Index files hold /rank<N> as HDF5 external links. Rather than relying on
 * HDF5's link-resolution search order (which depends on the working folder
 * and on HDF5_EXT_PREFIX), the link value is unpacked and the rank file is
 * opened directly, relative to the index file's folder.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host_summary.h"
#include "open_builder.h"
#include "scope_h5_read.h"

static int add_file(builder *b, const char *path);

/* Regions of at most this many calls are read whole when the profile is
 * opened (2 x 512 KiB): their statistics are then known without another
 * read. Larger ones are read when asked for, one at a time. */

static int add_source(builder *b, const char *path, hid_t file, int layout)
{
    scope_profile *p = b->p;
    size_t cap = (size_t)p->nsources;   /* exact-size array: grow by one */
    scope__source *q = realloc(p->sources, (cap + 1) * sizeof *q);
    if (!q)
        return scope__fail(SCOPE_ENOMEM, "out of memory opening %s", path);
    p->sources = q;
    q[cap].path = strdup(path);
    q[cap].file = file;
    q[cap].layout = layout;
    q[cap].via = -1;
    if (!q[cap].path)
        return scope__fail(SCOPE_ENOMEM, "out of memory opening %s", path);
    return p->nsources++;
}

typedef struct {
    char **names;
    size_t n, cap;
    int nomem;
} link_list;

static herr_t collect_cb(hid_t g, const char *name, const H5L_info_t *info,
                         void *arg)
{
    (void)g;
    (void)info;
    link_list *l = arg;
    char *s = strdup(name);
    if (!s || scope__open_grow(&l->names, &l->cap, l->n, sizeof *l->names) < 0) {
        free(s);
        l->nomem = 1;
        return -1;
    }
    l->names[l->n++] = s;
    return 0;
}

/* Lists the link names of group `g` in name order. */
static int list_links(hid_t g, const char *fpath, const char *gpath,
                      link_list *l)
{
    memset(l, 0, sizeof *l);
    hsize_t idx = 0;
    if (H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_cb, l) < 0) {
        scope__free_strings(l->names, (int64_t)l->n);
        int nomem = l->nomem;
        memset(l, 0, sizeof *l); /* callers free the list on every path */
        if (nomem)
            return scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
        char what[4500];    /* gpath comes from a 4400-byte buffer */
        snprintf(what, sizeof what, "cannot list group %s", gpath);
        return scope__h5_fail(SCOPE_EHDF5, fpath, what);
    }
    return 0;
}

/* The start of a (region, rank)'s first call and the latest end among the
 * calls that start then (sorted by start, they come first; the first 64
 * are looked at). `durations`: the end column holds durations (schema 3),
 * whose starts are deltas after the first. Returns 0 or SCOPE_E*. */
static int first_call(hid_t loc, const char *scol, const char *ecol, const char *fpath,
                      int64_t off, int64_t n, int durations, int64_t *first, int64_t *end)
{
    int64_t k = n < SCOPE_FIRST_CALLS ? n : SCOPE_FIRST_CALLS;
    int64_t st[SCOPE_FIRST_CALLS], en[SCOPE_FIRST_CALLS];
    int rc;
    if ((rc = scope__h5_read_int64(loc, scol, fpath, off, k, st)) < 0 ||
        (rc = scope__h5_read_int64(loc, ecol, fpath, off, k, en)) < 0)
        return rc;
    scope_first_call_of(st, en, k, durations, first, end);
    return 0;
}

/* Adds one region group (a cell) of a rank group. */
static int add_region_group(builder *b, int source, int rank, hid_t regions,
                            const char *link, const char *rpath)
{
    const char *fpath = b->p->sources[source].path;
    H5O_info_t oi;
    /* only the type: the full info counts attributes and sizes the
     * object header, a tenth of opening a host file */
    if (H5Oget_info_by_name2(regions, link, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        return scope__h5_fail(SCOPE_EFORMAT, fpath, "cannot open a region");
    if (oi.type != H5O_TYPE_GROUP)
        return 0;   /* not a region: ignored like any unknown object */
    /* Region names may be long (the recorder allows 64 KiB), so the paths
     * are built on the heap. Absolute dataset paths, so that messages name
     * the whole path. */
    char *gpath = NULL, *spath = NULL, *epath = NULL;
    if (asprintf(&gpath, "%s/%s", rpath, link) < 0) {
        gpath = NULL;
        return scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
    }
    hid_t g = H5Gopen2(regions, link, H5P_DEFAULT);
    if (g < 0) {
        free(gpath);
        return scope__h5_fail(SCOPE_EFORMAT, fpath, "cannot open a region");
    }
    char *name = NULL;
    int64_t n, ne, first = INT64_MAX, first_end = INT64_MIN;
    int rc = scope__h5_attr_string(g, SCOPE_A_NAME, &name);
    if (rc < 0)
        goto fail_read;
    if (rc == 0 && !(name = strdup(link))) {
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
        goto fail_read;
    }
    int32_t op, op_big;
    if ((rc = scope__read_operation(g, &op, &op_big)) < 0)
        goto fail_read;
    if (asprintf(&spath, "%s/" SCOPE_D_START_TIMES, gpath) < 0 ||
        asprintf(&epath, "%s/" SCOPE_D_END_TIMES, gpath) < 0) {
        spath = epath = NULL;
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
        goto fail_read;
    }
    /* A small region's arrays are read whole, once, with their lengths:
     * its first call for the region order and its statistics, so that a
     * summary reads nothing more. When that read fails, the first calls
     * are read as before, and the failure is reported where it was
     * (loading). */
    int64_t *st = NULL, *en = NULL;
    if ((rc = scope__h5_len_read(g, spath, fpath, SCOPE_READ_WHOLE_MAX, &n, &st)) < 0 ||
        (rc = scope__h5_len_read(g, epath, fpath, st ? SCOPE_READ_WHOLE_MAX : 0, &ne, &en)) < 0) {
        free(st);
        goto fail_read;
    }
    if (n != ne) {
        free(st);
        free(en);
        rc = scope__fail(SCOPE_EFORMAT, "%s: region group %s has %lld start "
                         "times but %lld end times", fpath, gpath,
                         (long long)n, (long long)ne);
        goto fail_read;
    }
    int loaded = st && en;
    if (loaded) {
        scope_first_call_of(st, en, n < SCOPE_FIRST_CALLS ? n : SCOPE_FIRST_CALLS, 0, &first,
                            &first_end);
    } else if (n > 0) {
        if ((rc = first_call(g, spath, epath, fpath, 0, n, 0, &first, &first_end)) < 0) {
            free(st);
            free(en);
            goto fail_read;
        }
    }
    H5Gclose(g);
    rc = scope__open_add_cell(b, name, rank, source, gpath, 0, n, first, first_end);
    if (rc >= 0) {
        b->found[b->nfound - 1].cell->op = op;
        b->found[b->nfound - 1].cell->op_big = op_big;
    }
    /* times a later load would refuse stay unsummarized: the same error
     * then comes from the same call as before */
    if (rc >= 0 && loaded && scope__times_check(fpath, st, en, n) == 0)
        scope__cell_stats(b->p, b->found[b->nfound - 1].cell, st, en);
    free(st);
    free(en);
    free(spath);
    free(epath);
    free(gpath);
    return rc;
fail_read:
    free(name);
    free(spath);
    free(epath);
    free(gpath);
    H5Gclose(g);
    return rc;
}

/* Adds the rank group at `gpath` of source `source` and its regions. */
static int add_rank_group(builder *b, int source, hid_t file,
                          const char *gpath, int rank)
{
    const char *fpath = b->p->sources[source].path;
    char what[4400];
    hid_t g = H5Gopen2(file, gpath, H5P_DEFAULT);
    if (g < 0) {
        snprintf(what, sizeof what, "%s is not a group", gpath);
        return scope__h5_fail(SCOPE_EFORMAT, fpath, what);
    }
    int64_t v;
    int rc = scope__open_add_rank(b, rank, source, gpath);
    if (rc < 0 || (rc = scope__rank_attrs_cache(&b->p->ranks[b->p->nranks - 1], g)) < 0)
        goto fail_group;
    /* the run's start, from the attributes just cached (HDF5 is asked
     * only for one the cache does not mirror, as the getters do) */
    const scope__attr *at;
    int c = scope__rank_attr_lookup(&b->p->ranks[b->p->nranks - 1], SCOPE_A_START_TIME_NS,
                                    &at);
    if (c == 1 && at->kind == SCOPE__ATTR_INT)
        scope__open_note_start(&b->have_rank_start, &b->rank_start, at->i);
    else if (c < 0 && scope__h5_attr_int64(g, SCOPE_A_START_TIME_NS, &v) == 1)
        scope__open_note_start(&b->have_rank_start, &b->rank_start, v);
    if (H5Lexists(g, SCOPE_G_REGIONS, H5P_DEFAULT) <= 0)
        goto fail_group;    /* a rank that recorded nothing: rc == 0 */
    hid_t r = H5Gopen2(g, SCOPE_G_REGIONS, H5P_DEFAULT);
    if (r < 0) {
        snprintf(what, sizeof what, "%s/regions is not a group", gpath);
        rc = scope__h5_fail(SCOPE_EFORMAT, fpath, what);
        goto fail_group;
    }
    snprintf(what, sizeof what, "%s/regions", gpath);
    link_list l;
    if ((rc = list_links(r, fpath, what, &l)) < 0)
        goto fail_regions;
    for (size_t i = 0; i < l.n && rc >= 0; i++)
        rc = add_region_group(b, source, rank, r, l.names[i], what);
    scope__free_strings(l.names, (int64_t)l.n);
fail_regions:
    H5Gclose(r);
fail_group:
    H5Gclose(g);
    return rc;
}

/* Joins `name` to the folder of `base` unless it is absolute. */
static char *path_beside(const char *base, const char *name)
{
    if (name[0] == '/')
        return strdup(name);
    const char *slash = strrchr(base, '/');
    size_t dl = slash ? (size_t)(slash - base) + 1 : 0;
    char *s = malloc(dl + strlen(name) + 1);
    if (s) {
        memcpy(s, base, dl);
        strcpy(s + dl, name);
    }
    return s;
}

/* Whether the folder of `path` holds a recorder's journal ("journal.*"):
 * a rank file missing beside one was not written yet (the disk filled
 * between two ranks' conversions), rather than lost. */
static int journal_beside(const char *path)
{
    char *dir = strdup(path);
    if (!dir)
        return 0;
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    DIR *d = opendir(slash ? dir : ".");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)))
        found = scope_is_journal_name(e->d_name);
    if (d)
        closedir(d);
    free(dir);
    return found;
}

static int note_missing(scope_profile *p, int rank, const char *file)
{
    int *m = realloc(p->missing, (size_t)(p->nmissing + 1) * sizeof *m);
    if (m)
        p->missing = m;
    char **f = realloc(p->missing_files, (size_t)(p->nmissing + 1) * sizeof *f);
    if (f)
        p->missing_files = f;
    char *dup = strdup(file);
    if (!m || !f || !dup) {
        free(dup);
        return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
    }
    m[p->nmissing] = rank;
    f[p->nmissing++] = dup;
    return 0;
}

int scope_profile_missing_rank_count(const scope_profile *p)
{
    return p ? p->nmissing : 0;
}

int scope_profile_missing_rank(const scope_profile *p, int i)
{
    if (!p || i < 0 || i >= p->nmissing)
        return SCOPE_ENOTFOUND;
    return p->missing[i];
}

const char *scope_profile_missing_rank_file(const scope_profile *p, int i)
{
    if (!p || i < 0 || i >= p->nmissing)
        return NULL;
    return p->missing_files[i];
}

int scope_profile_rank_source(const scope_profile *p, int i, const char **file,
                              const char **group)
{
    if (!p || i < 0 || i >= p->nranks)
        return SCOPE_ENOTFOUND;
    *file = p->sources[p->ranks[i].source].path;
    *group = p->ranks[i].group;
    return 0;
}

const char *scope_profile_metadata_file(const scope_profile *p)
{
    return p && p->meta_source >= 0 ? p->sources[p->meta_source].path : NULL;
}

int scope_profile_file_count(const scope_profile *p)
{
    return p ? p->nsources : 0;
}

const char *scope_profile_file(const scope_profile *p, int s)
{
    return p && s >= 0 && s < p->nsources ? p->sources[s].path : NULL;
}

/* FNV-1a: spreads the paths of host and rank files, which differ only in
 * their last characters. */
static size_t hash_path(const char *s)
{
    size_t h = (size_t)1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * (size_t)1099511628211ULL;
    return h;
}

/* The slot of `path` in b->targets: its entry, or the empty one where it
 * goes. The table is never full (grown at half). */
static struct target *target_slot(builder *b, const char *path)
{
    size_t mask = b->captargets - 1, i = hash_path(path) & mask;
    while (b->targets[i].path && strcmp(b->targets[i].path, path) != 0)
        i = (i + 1) & mask;
    return &b->targets[i];
}

static int grow_targets(builder *b)
{
    if (2 * (b->ntargets + 1) <= b->captargets)
        return 0;
    size_t ncap = b->captargets ? 2 * b->captargets : 64;
    struct target *old = b->targets, *t = calloc(ncap, sizeof *t);
    if (!t)
        return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
    size_t ocap = b->captargets;
    b->targets = t;
    b->captargets = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].path)
            *target_slot(b, old[i].path) = old[i];
    free(old);
    return 0;
}

/* Whether the file a link names, missing, leaves its ranks missing rather
 * than failing the open: a rank file with the recorder's journals beside
 * it (not converted yet), or a host file ("host-<name>.h5": it held every
 * rank of one host, and the other hosts' data is worth reading). */
static int missing_is_tolerated(const char *target)
{
    return scope_is_host_file(target) || journal_beside(target);
}

/* The source of the file `target` that an external link of index
 * `source` names (added, and checked to exist, the first time it is
 * named), or -1 when it is missing and that is tolerated; SCOPE_E*
 * otherwise. */
static int link_target(builder *b, int source, const char *link, const char *ctarget)
{
    const char *fpath = b->p->sources[source].path;
    if (grow_targets(b) < 0)
        return SCOPE_ENOMEM;
    struct target *t = target_slot(b, ctarget);
    if (t->path)
        return t->source;
    char *target = strdup(ctarget);
    if (!target)
        return scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
    struct stat st;
    int ts = -1;
    if (stat(target, &st) < 0 || !S_ISREG(st.st_mode)) {
        if (errno != ENOENT || !missing_is_tolerated(target)) {
            int rc = scope__fail(SCOPE_ENOENT, "%s: /%s links to %s, which does not "
                                 "exist", fpath, link, target);
            free(target);
            return rc;
        }
    } else if ((ts = add_source(b, target, H5I_INVALID_HID, SCOPE__LAYOUT_GROUPS)) < 0) {
        free(target);
        return ts;
    } else {
        b->p->sources[ts].via = source;
    }
    t->path = target;
    t->source = ts;
    b->ntargets++;
    return ts;
}

/* Notes the link /<link> of a file: an in-file rank group is added now;
 * an external link (an index's) is resolved to its file, relative to the
 * index's folder, and queued for follow_links(). */
static int add_linked_rank(builder *b, int source, hid_t file,
                           const char *link, int rank)
{
    const char *fpath = b->p->sources[source].path;
    H5L_info_t li;
    char what[4400];
    if (H5Lget_info(file, link, &li, H5P_DEFAULT) < 0) {
        snprintf(what, sizeof what, "cannot read link /%s", link);
        return scope__h5_fail(SCOPE_EFORMAT, fpath, what);
    }
    if (li.type != H5L_TYPE_EXTERNAL) {
        snprintf(what, sizeof what, "/%s", link);
        return add_rank_group(b, source, file, what, rank);
    }
    char *val = malloc(li.u.val_size ? li.u.val_size : 1);
    const char *tfile = NULL, *tobj = NULL;
    unsigned flags;
    if (!val)
        return scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
    if (H5Lget_val(file, link, val, li.u.val_size, H5P_DEFAULT) < 0 ||
        H5Lunpack_elink_val(val, li.u.val_size, &flags, &tfile, &tobj) < 0) {
        snprintf(what, sizeof what, "cannot read external link /%s", link);
        free(val);
        return scope__h5_fail(SCOPE_EFORMAT, fpath, what);
    }
    char *target = path_beside(fpath, tfile);
    int rc = target ? link_target(b, source, link, target)
                    : scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
    if (rc == -1) {
        rc = note_missing(b->p, rank, target);
    } else if (rc >= 0) {
        char *obj = strdup(tobj);
        if (!obj || scope__open_grow(&b->pending, &b->cappending, b->npending, sizeof *b->pending) < 0) {
            free(obj);
            rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
        } else {
            b->pending[b->npending].source = rc;
            b->pending[b->npending].rank = rank;
            b->pending[b->npending].obj = obj;
            b->npending++;
            rc = 0;
        }
    }
    free(target);
    free(val);
    return rc;
}

static int cmp_pending(const void *a, const void *b)
{
    const struct pending *x = a, *y = b;
    if (x->source != y->source)
        return (x->source > y->source) - (x->source < y->source);
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Adds the rank group of pending link i (a scope__follow_fn). */
static int follow_one(builder *b, size_t i)
{
    hid_t tf;
    int rc = scope__source_file(b->p, b->pending[i].source, &tf);
    if (rc >= 0)
        rc = add_rank_group(b, b->pending[i].source, tf, b->pending[i].obj,
                            b->pending[i].rank);
    return rc;
}

/* Adds the rank groups the index's links name, file by file: a host file
 * with a consistent summary table from the table alone (host_summary.c);
 * otherwise each file is opened once (and stays among the reader's open
 * files), whatever order the link names sort in; many links are split
 * among worker processes (open_workers.c). Empties the queue, also on failure; `drop`: only
 * empties it (an earlier failure). */
static int follow_links(builder *b, int drop)
{
    int rc = 0;
    if (b->npending)
        qsort(b->pending, b->npending, sizeof *b->pending, cmp_pending);
    /* host files with a summary table first, one read each; their links
     * leave the queue (host_summary.c) */
    if (!drop)
        rc = scope__host_summary_take(b);
    if (!drop && rc >= 0 && !scope__follow_parallel(b, follow_one, &rc))
        for (size_t i = 0; i < b->npending && rc >= 0; i++)
            rc = follow_one(b, i);
    for (size_t i = 0; i < b->npending; i++)
        free(b->pending[i].obj);
    b->npending = 0;
    return rc;
}

/* A file in our layout (or scope-profiler schema 1): /rank<N> groups or
 * external links to them. */
static int add_groups_file(builder *b, int source, hid_t file)
{
    const char *fpath = b->p->sources[source].path;
    link_list l;
    int rc = list_links(file, fpath, "/", &l), found = 0;
    if (rc >= 0 && (rc = scope__host_summary_file(b, source, file, l.names, l.n)) == 1)
        found = 1;
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        int rank = scope_rank_of_name(l.names[i], "");
        if (rank < 0)
            continue;
        found++;
        rc = add_linked_rank(b, source, file, l.names[i], rank);
    }
    scope__free_strings(l.names, (int64_t)l.n);
    int frc = follow_links(b, rc < 0);
    if (rc >= 0)
        rc = frc;
    if (rc >= 0 && !found)
        rc = scope__fail(SCOPE_EFORMAT, "%s: an HDF5 file but not a scope "
                         "profile (no /rank<N> groups)", fpath);
    return rc;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* scope-profiler's schema 2 and 3: one region table, one (rank, region)
 * index, and event columns sliced by that index (docs/format.md, end). */
static int add_columns_file(builder *b, int source, hid_t file, int schema)
{
    const char *fpath = b->p->sources[source].path;
    const char *col_start = schema == 2 ? SCOPE_S_EVENTS_START_TIMES
                                        : SCOPE_S_EVENTS_START_DELTAS;
    const char *col_end = schema == 2 ? SCOPE_S_EVENTS_END_TIMES : SCOPE_S_EVENTS_DURATIONS;
    char **names = NULL;
    int64_t nnames = 0, m = 0, m2, nev, nev2;
    int64_t *cols[4] = { NULL, NULL, NULL, NULL };
    static const char *idx[4] = {
        SCOPE_S_INDEX_REGION_IDS, SCOPE_S_INDEX_RANKS,
        SCOPE_S_INDEX_EVENT_OFFSETS, SCOPE_S_INDEX_EVENT_COUNTS
    };
    int rc = scope__h5_read_strings(file, SCOPE_S_REGION_NAMES, fpath,
                                    &names, &nnames);
    if (rc < 0)
        return rc;
    if ((rc = scope__h5_len(file, col_start, fpath, &nev)) < 0 ||
        (rc = scope__h5_len(file, col_end, fpath, &nev2)) < 0 ||
        (rc = scope__h5_len(file, idx[0], fpath, &m)) < 0)
        goto fail_cols;
    if (nev != nev2) {
        rc = scope__fail(SCOPE_EFORMAT, "%s: %s and %s differ in length",
                         fpath, col_start, col_end);
        goto fail_cols;
    }
    for (int k = 0; k < 4; k++) {
        if ((rc = scope__h5_len(file, idx[k], fpath, &m2)) < 0)
            goto fail_cols;
        if (m2 != m) {
            rc = scope__fail(SCOPE_EFORMAT, "%s: %s has %lld rows, %s has "
                             "%lld", fpath, idx[k], (long long)m2, idx[0],
                             (long long)m);
            goto fail_cols;
        }
        if (!(cols[k] = malloc((size_t)(m ? m : 1) * sizeof(int64_t)))) {
            rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
            goto fail_cols;
        }
        if ((rc = scope__h5_read_int64(file, idx[k], fpath, 0, m,
                                       cols[k])) < 0)
            goto fail_cols;
    }
    for (int64_t i = 0; i < m; i++) {
        int64_t rid = cols[0][i], rank = cols[1][i], off = cols[2][i],
                cnt = cols[3][i], first = INT64_MAX, first_end = INT64_MIN;
        if (rid < 0 || rid >= nnames || rank < 0 || rank > INT_MAX ||
            off < 0 || cnt < 0 || off > nev || cnt > nev - off) {
            rc = scope__fail(SCOPE_EFORMAT, "%s: rank_region_index row %lld "
                             "points outside region_table or events",
                             fpath, (long long)i);
            goto fail_cols;
        }
        if (cnt > 0 && (rc = first_call(file, col_start, col_end, fpath, off, cnt,
                                        schema != 2, &first, &first_end)) < 0)
            goto fail_cols;
        char *name = strdup(names[rid]);
        if (!name) {
            rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
            goto fail_cols;
        }
        if ((rc = scope__open_add_cell(b, name, (int)rank, source, NULL, off, cnt,
                           first, first_end)) < 0)
            goto fail_cols;
    }
    /* Each rank of the file once: sort the rank column (no longer needed
     * in row order) and add the distinct values. */
    if (m)
        qsort(cols[1], (size_t)m, sizeof(int64_t), cmp_i64);
    for (int64_t i = 0; i < m && rc >= 0; i++)
        if (i == 0 || cols[1][i] != cols[1][i - 1])
            rc = scope__open_add_rank(b, (int)cols[1][i], source, NULL);
fail_cols:
    for (int k = 0; k < 4; k++)
        free(cols[k]);
    scope__free_strings(names, nnames);
    return rc;
}

/* Opens one HDF5 file the user named (or found in a folder). */
static int add_file(builder *b, const char *path)
{
    hid_t f;
    int64_t fmt, schema = 1, v;
    int rc = scope__h5_open_file(path, &f);
    if (rc < 0)
        return rc;
    if (scope__h5_attr_int64(f, SCOPE_A_FORMAT, &fmt) == 1 && fmt != SCOPE_FORMAT_VERSION) {
        rc = scope__fail(SCOPE_EVERSION, "%s: scope_format %lld is not "
                         "supported (this reader knows 1)", path,
                         (long long)fmt);
        goto fail_open;
    }
    scope__h5_attr_int64(f, SCOPE_A_SCHEMA, &schema);
    if (schema < 1 || schema > 3) {
        rc = scope__fail(SCOPE_EVERSION, "%s: scope_profiler_schema %lld is "
                         "not supported (this reader knows 1 to 3)", path,
                         (long long)schema);
        goto fail_open;
    }
    int layout = schema == 1 ? SCOPE__LAYOUT_GROUPS
               : schema == 2 ? SCOPE__LAYOUT_COLUMNS2 : SCOPE__LAYOUT_COLUMNS3;
    int s = add_source(b, path, H5I_INVALID_HID, layout);
    if (s < 0) {
        rc = s;
        goto fail_open;
    }
    if (H5Lexists(f, SCOPE_G_METADATA, H5P_DEFAULT) > 0) {
        hid_t m = H5Gopen2(f, SCOPE_G_METADATA, H5P_DEFAULT);
        if (m >= 0) {
            if (b->p->meta_source < 0)
                b->p->meta_source = s;
            if (scope__h5_attr_int64(m, SCOPE_A_START_TIME_NS, &v) == 1)
                scope__open_note_start(&b->have_meta_start, &b->meta_start, v);
            H5Gclose(m);
        }
    }
    H5Eclear2(H5E_DEFAULT);
    rc = layout == SCOPE__LAYOUT_GROUPS ? add_groups_file(b, s, f)
                                        : add_columns_file(b, s, f, (int)schema);
fail_open:
    /* Sources are reopened on demand (profile_data.c): a run with
     * thousands of ranks must not hold thousands of files open. */
    H5Fclose(f);
    return rc;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder a run was written into, opened instead of its index (the
 * user's `scope summary .`): names the first <name>.h5 beside a
 * <name>.ranks folder in it, for the error message. */
static void run_in_folder(const char *path, char *hint, size_t len)
{
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!scope_path_ends_with(e->d_name, SCOPE_RANKS_SUFFIX))
            continue;
        char folder[PATH_MAX], index[PATH_MAX];
        struct stat st;
        int w = snprintf(folder, sizeof folder, "%s%s%s", path,
                         path[strlen(path) - 1] == '/' ? "" : "/", e->d_name);
        if (w > 0 && (size_t)w < sizeof folder &&
            scope_index_of_ranks_dir(index, sizeof index, folder) == 0 &&
            stat(index, &st) == 0 && S_ISREG(st.st_mode)) {
            snprintf(hint, len, "; it holds a run: open its index, %s", index);
            break;
        }
    }
    if (d)
        closedir(d);
}

/* A folder: every rank<N>.h5 and host-<name>.h5 in it, by name (a host
 * file holds the /rank<N> groups of its host's ranks). */
static int add_folder(builder *b, const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return scope__fail(errno == EACCES ? SCOPE_EACCES : SCOPE_EIO,
                           "%s: cannot read folder: %s", path, strerror(errno));
    link_list l;
    memset(&l, 0, sizeof l);
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (scope_rank_of_name(e->d_name, ".h5") < 0 && !scope_is_host_file(e->d_name))
            continue;
        char *s;
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        if (!(s = malloc(len)) ||
            scope__open_grow(&l.names, &l.cap, l.n, sizeof *l.names) < 0) {
            free(s);
            rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", path);
            break;
        }
        snprintf(s, len, "%s%s%s", path,
                 path[strlen(path) - 1] == '/' ? "" : "/", e->d_name);
        l.names[l.n++] = s;
    }
    closedir(d);
    if (rc == 0 && l.n == 0) {
        char hint[PATH_MAX + 64] = "";
        run_in_folder(path, hint, sizeof hint);
        rc = scope__fail(SCOPE_ENOENT, "%s: folder holds no rank<N>.h5 files%s", path, hint);
    }
    if (l.n)
        qsort(l.names, l.n, sizeof *l.names, cmp_name);
    for (size_t i = 0; i < l.n && rc >= 0; i++)
        rc = add_file(b, l.names[i]);
    scope__free_strings(l.names, (int64_t)l.n);
    return rc;
}

static int add_path(builder *b, const char *path)
{
    struct stat st;
    if (!path || !path[0])
        return scope__fail(SCOPE_EINVAL, "empty path");
    if (stat(path, &st) < 0) {
        int code = errno == EACCES ? SCOPE_EACCES : SCOPE_ENOENT;
        return scope__fail(code, "%s: %s", path, scope_strerror(code));
    }
    if (S_ISDIR(st.st_mode))
        return add_folder(b, path);
    if (!S_ISREG(st.st_mode))
        return scope__fail(SCOPE_EINVAL, "%s: not a file or folder", path);
    return add_file(b, path);
}

static int cmp_rank(const void *a, const void *b)
{
    const scope__rank *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_found(const void *a, const void *b)
{
    return strcmp(((const found_cell *)a)->name, ((const found_cell *)b)->name);
}

/* Orders region indices (qsort_r context: the regions array). */
static int cmp_region_order(const void *a, const void *b, void *ctx)
{
    const scope__region *regs = ctx;
    const scope__region *x = &regs[*(const int *)a];
    const scope__region *y = &regs[*(const int *)b];
    if (x->first_start != y->first_start)
        return x->first_start < y->first_start ? -1 : 1;
    /* calls starting together (the clock's resolution is ~10 ns on some
     * CPUs): the longer one contains the other, so it comes first */
    if (x->first_end != y->first_end)
        return x->first_end > y->first_end ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* "path" or "path (linked from index)", for messages. */
static void describe_source(const scope_profile *p, int s, char *buf,
                            size_t len)
{
    const scope__source *src = &p->sources[s];
    if (src->via >= 0)
        snprintf(buf, len, "%s (linked from %s)", src->path,
                 p->sources[src->via].path);
    else
        snprintf(buf, len, "%s", src->path);
}

/* Sorts ranks (EDUP on a repeat), merges cells into regions by name,
 * orders regions by first start and fills the cell matrix. */
static int finish(builder *b)
{
    scope_profile *p = b->p;
    if (p->nranks)
        qsort(p->ranks, (size_t)p->nranks, sizeof *p->ranks, cmp_rank);
    for (int i = 1; i < p->nranks; i++)
        if (p->ranks[i].rank == p->ranks[i - 1].rank) {
            char a[4200], c[4200];
            describe_source(p, p->ranks[i - 1].source, a, sizeof a);
            describe_source(p, p->ranks[i].source, c, sizeof c);
            return scope__fail(SCOPE_EDUP, "rank %d appears twice: in %s and "
                               "in %s", p->ranks[i].rank, a, c);
        }
    if (b->nfound)
        qsort(b->found, b->nfound, sizeof *b->found, cmp_found);
    size_t nreg = 0;
    for (size_t i = 0; i < b->nfound; i++)
        if (i == 0 || strcmp(b->found[i].name, b->found[i - 1].name))
            nreg++;
    p->regions = calloc(nreg ? nreg : 1, sizeof *p->regions);
    p->cells = calloc(nreg * (size_t)p->nranks + 1, sizeof *p->cells);
    if (!p->regions || !p->cells)
        return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
    /* Regions by name first; found[i].name is reused as the region's
     * name (ownership moves) or freed when it repeats. */
    for (size_t i = 0; i < b->nfound; i++) {
        if (i == 0 || strcmp(b->found[i].name, b->found[i - 1].name)) {
            p->regions[p->nregions].name = b->found[i].name;
            p->regions[p->nregions].first_start = INT64_MAX;
            p->regions[p->nregions].first_end = INT64_MIN;
            p->nregions++;
        } else {
            free(b->found[i].name);
        }
        b->found[i].name = p->regions[p->nregions - 1].name;
        b->found[i].region = p->nregions - 1;
        scope__region *reg = &p->regions[p->nregions - 1];
        const scope__cell *cell = b->found[i].cell;
        if (cell->first_start < reg->first_start ||
            (cell->first_start == reg->first_start && cell->first_end > reg->first_end)) {
            reg->first_start = cell->first_start;
            reg->first_end = cell->first_end;
        }
    }
    b->names_moved = 1;
    /* Then by first start: sort a permutation, so that each found cell's
     * name index maps to its final index in O(1). */
    int *order = malloc(((size_t)p->nregions + 1) * sizeof *order);
    int *inv = malloc(((size_t)p->nregions + 1) * sizeof *inv);
    scope__region *sorted = malloc(((size_t)p->nregions + 1) * sizeof *sorted);
    if (!order || !inv || !sorted) {
        free(order);
        free(inv);
        free(sorted);
        return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
    }
    for (int i = 0; i < p->nregions; i++)
        order[i] = i;
    qsort_r(order, (size_t)p->nregions, sizeof *order, cmp_region_order,
            p->regions);
    for (int i = 0; i < p->nregions; i++) {
        inv[order[i]] = i;
        sorted[i] = p->regions[order[i]];
    }
    free(p->regions);
    p->regions = sorted;
    free(order);
    for (size_t i = 0; i < b->nfound; i++)
        b->found[i].region = inv[b->found[i].region];
    free(inv);
    for (size_t i = 0; i < b->nfound; i++) {
        found_cell *f = &b->found[i];
        int r = f->region;
        int k = scope__rank_index(p, f->rank);
        size_t slot = (size_t)r * (size_t)p->nranks + (size_t)k;
        if (p->cells[slot])
            return scope__fail(SCOPE_EFORMAT, "%s: region \"%s\" appears "
                               "twice on rank %d",
                               p->sources[f->cell->source].path, f->name,
                               f->rank);
        p->cells[slot] = f->cell;
        f->cell = NULL;
    }
    int rc = scope__regions_operations(p);
    if (rc < 0)
        return rc;
    if (b->have_meta_start) {
        p->have_run_start = 1;
        p->run_start = b->meta_start;
    } else if (b->have_rank_start) {
        p->have_run_start = 1;
        p->run_start = b->rank_start;
    }
    return 0;
}

int scope_profile_open_paths(const char *const *paths, int npaths,
                             scope_profile **out)
{
    if (!out || !paths || npaths < 1)
        return scope__fail(SCOPE_EINVAL, "no path to open");
    *out = NULL;
    builder b;
    memset(&b, 0, sizeof b);
    if (!(b.p = calloc(1, sizeof *b.p)))
        return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
    b.p->meta_source = -1;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    int rc = 0;
    for (int i = 0; i < npaths && rc >= 0; i++)
        rc = add_path(&b, paths[i]);
    if (rc >= 0)
        rc = finish(&b);
    scope_h5_quiet_end(&quiet);
    /* Cells finish() did not move into the matrix, and names it did not
     * take over (all of them when it failed before the merge). */
    for (size_t i = 0; i < b.nfound; i++) {
        if (b.found[i].cell) {
            free(b.found[i].cell->group);
            free(b.found[i].cell);
        }
        if (!b.names_moved)
            free(b.found[i].name);
    }
    free(b.found);
    for (size_t i = 0; i < b.captargets; i++)
        free(b.targets[i].path);
    free(b.targets);
    free(b.pending);
    if (rc < 0) {
        scope_profile_close(b.p);
        return rc;
    }
    *out = b.p;
    return 0;
}

int scope_profile_open(const char *path, scope_profile **out)
{
    return scope_profile_open_paths(&path, 1, out);
}
