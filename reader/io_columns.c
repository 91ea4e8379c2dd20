/*
 * io_columns.c - what each I/O call of a profile did, as the rank files
 * store it (docs/format.md "What I/O calls did"): the io_* columns of each
 * (region, rank), each rank's file table (/rank<N>/files), what each
 * region is as an I/O call (by its name, through format/scope_calls.h),
 * and a rank's I/O calls merged in time order for the analysis
 * (io_report.c).
 *
 * Everything is read on first use and kept with the profile until close,
 * as the MPI data columns are (moved.c); a region without the columns
 * costs one existence check.
 */
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "scope_calls.h"
#include "scope_format.h"

int scope__io_state(scope_profile *p, struct scope__io **out)
{
    *out = NULL;    /* set on failure too: optimisers cannot see scope__fail is negative */
    if (!p->io) {
        struct scope__io *s = calloc(1, sizeof *s);
        size_t ncells = (size_t)(p->nregions ? p->nregions : 1) * (size_t)(p->nranks ? p->nranks : 1);
        if (!s)
            return scope__fail(SCOPE_ENOMEM, "out of memory");
        s->cols = calloc(ncells, sizeof *s->cols);
        s->cols_loaded = calloc(ncells, 1);
        s->files = calloc((size_t)(p->nranks ? p->nranks : 1), sizeof *s->files);
        s->files_loaded = calloc((size_t)(p->nranks ? p->nranks : 1), 1);
        s->regions = calloc((size_t)(p->nregions ? p->nregions : 1), sizeof *s->regions);
        if (!s->cols || !s->cols_loaded || !s->files || !s->files_loaded || !s->regions) {
            p->io = s;
            scope__io_free(p);
            return scope__fail(SCOPE_ENOMEM, "out of memory");
        }
        for (int r = 0; r < p->nregions; r++) {
            struct scope_call_name nm;
            const struct scope_call_row *row = scope_call_at(scope_call_parse(p->regions[r].name, &nm));
            if (!scope_paradigm_is_io(row->paradigm))
                continue;
            s->regions[r] = (struct scope__io_region){ (int8_t)row->paradigm, (int8_t)row->cls,
                                                       (int8_t)row->form, row->io };
        }
        p->io = s;
    }
    *out = p->io;
    return 0;
}

static void cols_free(struct scope__io_cols *c)
{
    if (!c)
        return;
    free(c->file);
    free(c->bytes);
    free(c->offset);
    free(c->issuer);
    free(c->failed);
    free(c);
}

static void files_free(struct scope__io_files *t)
{
    if (!t)
        return;
    free(t->kind);
    free(t->layer);
    free(t->parent);
    free(t->dev);
    free(t->ino);
    free(t->block_size);
    scope__free_strings(t->name, t->n);
    scope__free_strings(t->resolved, t->n);
    scope__free_strings(t->fs_type, t->n);
    scope__free_strings(t->mount, t->n);
    free(t);
}

void scope__io_free(scope_profile *p)
{
    struct scope__io *s = p->io;
    if (!s)
        return;
    size_t ncells = (size_t)p->nregions * (size_t)p->nranks;
    for (size_t i = 0; s->cols && i < ncells; i++)
        cols_free(s->cols[i]);
    for (int k = 0; s->files && k < p->nranks; k++)
        files_free(s->files[k]);
    free(s->cols);
    free(s->cols_loaded);
    free(s->files);
    free(s->files_loaded);
    free(s->regions);
    free(s);
    p->io = NULL;
}

const struct scope__io_region *scope__io_region(scope_profile *p, int region)
{
    static const struct scope__io_region none;
    struct scope__io *s;
    if (region < 0 || region >= p->nregions || scope__io_state(p, &s) < 0)
        return &none;
    return &s->regions[region];
}

/* An int8 column read through int32, narrowed; values outside int8 are
 * damage. */
static int read_i8(scope_profile *p, scope__cell *c, const char *name, int8_t **out)
{
    int32_t *w;
    char *path;
    *out = NULL;
    int rc = scope__cell_read_column32(p, c, name, &w, &path);
    if (rc < 0 || !w)
        return rc;
    int8_t *v = malloc((size_t)c->n);
    for (int64_t i = 0; v && i < c->n; i++) {
        if (w[i] < -128 || w[i] > 127) {
            rc = scope__fail(SCOPE_EFORMAT, "%s: %s[%lld] = %d is not an int8",
                             p->sources[c->source].path, path, (long long)i, w[i]);
            break;
        }
        v[i] = (int8_t)w[i];
    }
    if (!v)
        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
    free(w);
    free(path);
    if (rc < 0)
        free(v);
    else
        *out = v;
    return rc;
}

static int read_col(scope_profile *p, scope__cell *c, const char *name, int wide, void **out)
{
    char *path;
    int rc = wide ? scope__cell_read_column(p, c, name, (int64_t **)out, &path)
                  : scope__cell_read_column32(p, c, name, (int32_t **)out, &path);
    free(path);
    return rc;
}

int scope__io_cell(scope_profile *p, int region, int k, const struct scope__io_cols **out)
{
    struct scope__io *s;
    int rc = scope__io_state(p, &s);
    *out = NULL;
    if (rc < 0)
        return rc;
    size_t at = (size_t)region * (size_t)p->nranks + (size_t)k;
    if (s->cols_loaded[at]) {
        *out = s->cols[at];
        return 0;
    }
    scope__cell *c = scope__cell_at(p, region, k);
    if (!c || !s->regions[region].layer) {
        s->cols_loaded[at] = 1;
        return 0;
    }
    struct scope__io_cols *v = calloc(1, sizeof *v);
    if (!v)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    /* the writer makes all five columns or none: io_file decides */
    rc = read_col(p, c, SCOPE_D_IO_FILE, 0, (void **)&v->file);
    if (rc == 0 && v->file) {
        if ((rc = read_col(p, c, SCOPE_D_IO_BYTES, 1, (void **)&v->bytes)) == 0 &&
            (rc = read_col(p, c, SCOPE_D_IO_OFFSET, 1, (void **)&v->offset)) == 0 &&
            (rc = read_i8(p, c, SCOPE_D_IO_ISSUER, &v->issuer)) == 0)
            rc = read_i8(p, c, SCOPE_D_IO_FAILED, &v->failed);
        if (rc == 0 && (!v->bytes || !v->offset || !v->issuer || !v->failed))
            rc = scope__fail(SCOPE_EFORMAT, "%s: %s has %s but not every column of docs/format.md "
                             "\"What I/O calls did\"", p->sources[c->source].path, c->group,
                             SCOPE_D_IO_FILE);
        for (int64_t i = 0; rc == 0 && i < c->n; i++)
            if (v->bytes[i] < 0 || v->offset[i] < -1 || v->issuer[i] < 0 ||
                v->issuer[i] >= SCOPE_IO_LAYERS)
                rc = scope__fail(SCOPE_EFORMAT, "%s: %s: call %lld has negative bytes, an offset "
                                 "below -1 or an unknown issuer", p->sources[c->source].path,
                                 c->group, (long long)i);
    }
    scope_h5_quiet_end(&quiet);
    if (rc < 0) {
        cols_free(v);
        return rc;
    }
    if (!v->file) {
        cols_free(v);
        v = NULL;
    }
    s->cols[at] = v;
    s->cols_loaded[at] = 1;
    *out = v;
    return 0;
}

/* int64 values narrowed to int8; NULL on ENOMEM. */
static int8_t *narrow8(const int64_t *w, int64_t n)
{
    int8_t *v = malloc((size_t)(n ? n : 1));
    for (int64_t i = 0; v && i < n; i++)
        v[i] = (int8_t)w[i];
    return v;
}

/* Reads the table of rank index k from its group. */
static int load_files(scope_profile *p, int k, struct scope__io_files **out)
{
    const scope__rank *rk = &p->ranks[k];
    *out = NULL;
    if (!rk->group)
        return 0;   /* columnar files of the other package: no I/O */
    const char *fpath = p->sources[rk->source].path;
    hid_t f;
    int rc = scope__source_file(p, rk->source, &f);
    if (rc < 0)
        return rc;
    char *grp = NULL;
    if (asprintf(&grp, "%s/%s", rk->group, SCOPE_G_FILES) < 0)
        return scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
    enum { KIND, PARENT, LAYER, DEV, INO, BS, NAMES, RESOLVED, FS, MOUNTS, NCOL };
    static const char *const names[NCOL] = {
        SCOPE_D_FILE_KIND, SCOPE_D_FILE_PARENT, SCOPE_D_FILE_LAYER, SCOPE_D_FILE_DEV,
        SCOPE_D_FILE_INO, SCOPE_D_FILE_BLOCK_SIZE, SCOPE_D_FILE_NAMES, SCOPE_D_FILE_RESOLVED,
        SCOPE_D_FILE_FS_TYPES, SCOPE_D_FILE_MOUNTS,
    };
    int64_t *w[NCOL] = { 0 }, len[NCOL] = { 0 }, n = -1;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    rc = scope__h5_read_wide(f, fpath, grp, names[KIND], -1, &n, &w[KIND]);
    for (int i = 1; rc == 0 && w[KIND] && i < NCOL; i++)
        rc = scope__h5_read_wide(f, fpath, grp, names[i], i < NAMES ? n : -1, &len[i], &w[i]);
    scope_h5_quiet_end(&quiet);
    struct scope__io_files *t = NULL;
    if (rc < 0 || !w[KIND])
        goto done;
    for (int i = 0; i < NCOL; i++)
        if (!w[i]) {
            rc = scope__fail(SCOPE_EFORMAT, "%s: %s lacks its column %s (docs/format.md)", fpath,
                             grp, names[i]);
            goto done;
        }
    if (n > INT32_MAX - 1) {
        rc = scope__fail(SCOPE_EFORMAT, "%s: %s has %lld rows", fpath, grp, (long long)n);
        goto done;
    }
    if (!(t = calloc(1, sizeof *t))) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
        goto done;
    }
    t->n = (int)n;
    t->kind = narrow8(w[KIND], n);
    t->layer = narrow8(w[LAYER], n);
    t->parent = scope__narrow32(w[PARENT], n);
    t->dev = w[DEV];
    t->ino = w[INO];
    t->block_size = w[BS];
    w[DEV] = w[INO] = w[BS] = NULL;
    t->name = scope__split_names(w[NAMES], len[NAMES], n);
    t->resolved = scope__split_names(w[RESOLVED], len[RESOLVED], n);
    t->fs_type = scope__split_names(w[FS], len[FS], n);
    t->mount = scope__split_names(w[MOUNTS], len[MOUNTS], n);
    if (!t->kind || !t->layer || !t->parent || !t->name || !t->resolved || !t->fs_type ||
        !t->mount) {
        rc = scope__fail(SCOPE_EFORMAT, "%s: %s: its names do not hold %lld rows (or out of "
                         "memory)", fpath, grp, (long long)n);
        goto done;
    }
    for (int i = 0; i < t->n; i++)
        if (t->kind[i] < 0 || t->kind[i] > 3 || t->parent[i] < -1 || t->parent[i] >= t->n ||
            (t->kind[i] == 2) != (t->parent[i] >= 0) ||
            (t->parent[i] >= 0 && t->kind[t->parent[i]] == 2)) {
            rc = scope__fail(SCOPE_EFORMAT, "%s: %s: row %d has an unknown kind or a parent "
                             "that is not a file", fpath, grp, i);
            goto done;
        }
done:
    for (int i = 0; i < NCOL; i++)
        free(w[i]);
    free(grp);
    if (rc < 0) {
        files_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

int scope__io_rank_files(scope_profile *p, int k, const struct scope__io_files **out)
{
    struct scope__io *s;
    int rc = scope__io_state(p, &s);
    *out = NULL;
    if (rc < 0)
        return rc;
    if (!s->files_loaded[k]) {
        struct scope__io_files *t;
        if ((rc = load_files(p, k, &t)) < 0)
            return rc;
        s->files[k] = t;
        s->files_loaded[k] = 1;
    }
    *out = s->files[k];
    return 0;
}

int scope_profile_io_columns(scope_profile *p, int region, int rank, scope_io_columns *out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    memset(out, 0, sizeof *out);
    int k = scope__cell_index(p, region, rank);
    if (k < 0)
        return k;
    scope__cell *c = scope__cell_at(p, region, k);
    if (!c)
        return 0;
    const struct scope__io_cols *v;
    int rc = scope__io_cell(p, region, k, &v);
    if (rc < 0)
        return rc;
    out->n = c->n;
    if (v) {
        out->file = v->file;
        out->bytes = v->bytes;
        out->offset = v->offset;
        out->issuer = v->issuer;
        out->failed = v->failed;
    }
    return 0;
}

int scope_profile_io_bytes(scope_profile *p, int region, int rank, int64_t *read,
                           int64_t *written)
{
    if (!p || !read || !written)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *read = *written = 0;
    const struct scope__io_region *g = scope__io_region(p, region);
    if (!g || !g->layer || (g->cls != SCOPE_CC_IO_READ && g->cls != SCOPE_CC_IO_WRITE))
        return 0;
    int k0, k1;
    int rc = scope__cell_span(p, region, rank, &k0, &k1);
    if (rc < 0)
        return rc;
    int64_t *sum = g->cls == SCOPE_CC_IO_READ ? read : written;
    for (int k = k0; k < k1; k++) {
        scope__cell *c = scope__cell_at(p, region, k);
        const struct scope__io_cols *v;
        if (!c)
            continue;
        if ((rc = scope__io_cell(p, region, k, &v)) < 0)
            return rc;
        for (int64_t i = 0; v && v->bytes && i < c->n; i++)
            *sum += v->bytes[i];    /* a failed call's bytes are 0 */
    }
    return 0;
}

int scope_profile_io_files(scope_profile *p, int rank, scope_io_files *out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    memset(out, 0, sizeof *out);
    int k = scope__rank_index(p, rank);
    if (k < 0)
        return k;
    const struct scope__io_files *t;
    int rc = scope__io_rank_files(p, k, &t);
    if (rc < 0 || !t)
        return rc;
    out->n = t->n;
    out->kind = t->kind;
    out->parent = t->parent;
    out->layer = t->layer;
    out->dev = t->dev;
    out->ino = t->ino;
    out->block_size = t->block_size;
    out->name = (const char *const *)t->name;
    out->resolved = (const char *const *)t->resolved;
    out->fs_type = (const char *const *)t->fs_type;
    out->mount = (const char *const *)t->mount;
    return 0;
}

int scope_profile_has_io(scope_profile *p)
{
    return scope__any_rank_flag(p, SCOPE_A_IO_DATA);
}

int scope_region_io_layer(const char *name)
{
    struct scope_call_name nm;
    int par = scope_call_at(scope_call_parse(name, &nm))->paradigm;
    return scope_paradigm_is_io(par) ? par : 0;
}

const char *scope_io_class_name(int cls)
{
    return scope_call_class_name(cls);
}

const char *scope_io_layer_name(int layer)
{
    return scope_paradigm_is_io(layer) ? scope_paradigm_name(layer) : NULL;
}

static const int64_t bin_low[SCOPE_IO_SIZE_BINS] = {
    0, 100, 1024, 10 * 1024, 100 * 1024, 1024 * 1024, 4 * 1024 * 1024, 10 * 1024 * 1024,
    100 * 1024 * 1024, 1024 * 1024 * 1024,
};

int scope_io_size_bin(int64_t bytes)
{
    int b = 0;
    while (b + 1 < SCOPE_IO_SIZE_BINS && bytes >= bin_low[b + 1])
        b++;
    return b;
}

int64_t scope_io_size_bin_low(int bin)
{
    return bin >= 0 && bin < SCOPE_IO_SIZE_BINS ? bin_low[bin] : -1;
}

/* --- a rank's calls in time order ---------------------------------------- */

static int cmp_seq(const void *a, const void *b)
{
    const struct scope__io_call *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Start, the longer call first (the container), region, index. */
static int cmp_time(const void *a, const void *b)
{
    const struct scope__io_call *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

int scope__io_rank_calls(scope_profile *p, int k, int threads, struct scope__io_call **calls,
                         int64_t *n)
{
    *calls = NULL;
    *n = 0;
    struct scope__io *s;
    int rc = scope__io_state(p, &s);
    if (rc < 0)
        return rc;
    int64_t total = 0;
    for (int r = 0; r < p->nregions; r++) {
        const struct scope__io_cols *v;
        if (!s->regions[r].layer || !scope__cell_at(p, r, k))
            continue;
        if ((rc = scope__io_cell(p, r, k, &v)) < 0)
            return rc;
        if (v)
            total += scope__cell_at(p, r, k)->n;
    }
    if (total == 0)
        return 0;
    struct scope__io_call *v = scope__malloc_big((size_t)total * sizeof *v);
    if (!v)
        return scope__fail(SCOPE_ENOMEM, "out of memory for %lld I/O calls", (long long)total);
    int64_t at = 0;
    int all_seq = 1;
    for (int r = 0; r < p->nregions && rc == 0; r++) {
        scope__cell *c = scope__cell_at(p, r, k);
        const struct scope__io_cols *io = s->cols[(size_t)r * (size_t)p->nranks + (size_t)k];
        if (!c || !io || !s->regions[r].layer)
            continue;
        const int64_t *st, *en;
        int64_t nc;
        const int32_t *tids = NULL;
        int64_t *seq = NULL;
        char *path = NULL;
        if ((rc = scope_profile_times(p, r, p->ranks[k].rank, &st, &en, &nc)) < 0)
            break;
        if (threads && (rc = scope_profile_thread_ids(p, r, p->ranks[k].rank, &tids, &nc)) < 0)
            break;
        if ((rc = scope__cell_read_column(p, c, SCOPE_D_BEGIN_SEQ, &seq, &path)) < 0)
            break;
        free(path);
        all_seq &= seq != NULL;
        for (int64_t i = 0; i < c->n; i++)
            v[at++] = (struct scope__io_call){ st[i], en[i], seq ? seq[i] : -1, io->bytes[i],
                                               io->offset[i], r, io->file[i], (int32_t)i,
                                               tids ? tids[i] : 0, io->issuer[i], io->failed[i] };
        free(seq);
    }
    if (rc < 0) {
        free(v);
        return rc;
    }
    if (at > 0)
        qsort(v, (size_t)at, sizeof *v, all_seq ? cmp_seq : cmp_time);
    *calls = v;
    *n = at;
    return 0;
}
