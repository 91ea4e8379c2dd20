/*
 * host_summary.c - the summary table of a host file, /scope_host_summary
 * (docs/format.md "The host summary table"): for every /rank<N> group of
 * the file, exactly what the reader reads from it when a profile is opened
 * (the group's attributes as the reader caches them, and per region the
 * name, number of calls, first call, statistics and operation), in a few
 * datasets.
 *
 * Why: opening a host file group by group costs ~0.5 ms of libhdf5 work
 * per rank (groups, attributes, datasets), so 4,096 ranks in 64 host files
 * cost about a second however the work is spread. With the table the
 * reader reads each host file in five dataset reads (reader/host_summary.c).
 *
 * How: the table is computed by reading the finished rank groups back,
 * with the very rules of the reader's open (reader/profile_open.c
 * add_rank_group and add_region_group, reader/rank_attrs.c fill,
 * reader/h5_util.c, reader/profile_data.c scope__cell_stats), so that the
 * reader builds the same profile from it, bit for bit. What can be one
 * function is: the string attribute read, the storage check, the first
 * call, the times check and the statistics are format/scope_h5_read.h's,
 * called by both sides; what remains here walks the groups as the reader
 * does.
 * Where the reader's answer would depend on something odd (an attribute it
 * does not mirror, a dataset it cannot read whole, a rank group reached by
 * a link), no table is written: the reader then reads the rank groups, as
 * it does for files written before the table existed. The rank groups
 * stay the truth; the table is a cache.
 *
 * Who calls it: host_file.c once all of a host's groups are written, and
 * host_append.c each time a group is added (the table is rewritten from
 * all groups, so it never lists a stale set), and `scope-h5write
 * --host-summary` for files written without it. Cost: about what the
 * reader's open of the file costs (~0.5 ms per rank group).
 */
#include <hdf5.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "h5_util.h"
#include "h5writer.h"
#include "scope_error.h"
#include "scope_format.h"
#include "scope_h5_read.h"


/* The table being built: int64 rows and one string blob. */
typedef struct {
    int64_t *v;
    size_t n, cap;  /* in int64 values */
} i64_buf;

typedef struct {
    i64_buf ranks, attrs, cells;
    char *s;
    size_t ns, caps;
    int give_up;    /* something the reader would not answer from a table */
    int nomem;
} table;

static int push(i64_buf *b, const int64_t *row, size_t ncols)
{
    if (b->n + ncols > b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 256;
        while (ncap < b->n + ncols)
            ncap *= 2;
        int64_t *q = realloc(b->v, ncap * sizeof *q);
        if (!q)
            return -1;
        b->v = q;
        b->cap = ncap;
    }
    memcpy(b->v + b->n, row, ncols * sizeof *row);
    b->n += ncols;
    return 0;
}

/* The offset of a copy of s in the blob, or -1 (out of memory). */
static int64_t add_str(table *t, const char *s)
{
    size_t len = strlen(s) + 1;
    if (t->ns + len > t->caps) {
        size_t ncap = t->caps ? t->caps * 2 : 4096;
        while (ncap < t->ns + len)
            ncap *= 2;
        char *q = realloc(t->s, ncap);
        if (!q) {
            t->nomem = 1;
            return -1;
        }
        t->s = q;
        t->caps = ncap;
    }
    memcpy(t->s + t->ns, s, len);
    t->ns += len;
    return (int64_t)(t->ns - len);
}

static int64_t bits_of(double d)
{
    int64_t v;
    memcpy(&v, &d, sizeof v);
    return v;
}

/* ---- the reader's walk over a rank group, mirrored ---- */

/* One rank attribute as reader/rank_attrs.c fill() caches it. */
static herr_t attr_cb(hid_t g, const char *name, const H5A_info_t *info, void *arg)
{
    (void)info;
    table *t = arg;
    hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    if (a < 0) {
        t->give_up = 1; /* the reader leaves it UNCACHED */
        return -1;
    }
    int64_t row[SCOPE_HS_ATTR_COLS] = { 0, 0, 0, 0, -1 };
    int64_t i = 0;
    double d = 0.0;
    char *s = NULL;
    int kind = scope_h5_attr_value(a, &i, &d, &s);   /* 0: the reader would not cache it */
    if (kind < 0) {
        t->nomem = 1;
        kind = 0;
    }
    H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    if (!kind) {
        free(s);
        t->give_up = 1;
        return -1;
    }
    row[0] = add_str(t, name);
    row[1] = kind;
    row[2] = i;
    row[3] = bits_of(d);
    if (s)
        row[4] = add_str(t, s);
    free(s);
    if (t->nomem || push(&t->attrs, row, SCOPE_HS_ATTR_COLS) < 0) {
        t->nomem = 1;
        return -1;
    }
    return 0;
}

/* Whether the reader reads the dataset (reader/h5_util.c check_storage). */
static int storage_ok(hid_t d, int64_t n)
{
    hsize_t stored;
    return scope_h5_storage_check(d, n, &stored) == SCOPE_H5_STORAGE_OK;
}

/* A 1-D dataset's length *n and what the reader reads of it at open: all
 * of it up to SCOPE_READ_WHOLE_MAX values, else the first
 * SCOPE_FIRST_CALLS (*out, malloc'd; NULL when n == 0). 0, or -1 (the reader's answer would not be
 * a plain read: give up). One dataset open. */
static int read_column(hid_t g, const char *name, int64_t *n, int64_t **out)
{
    *out = NULL;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t fs = H5Dget_space(d);
    hsize_t dims[1];
    int rc = -1;
    if (fs < 0 || H5Sget_simple_extent_ndims(fs) != 1 ||
        H5Sget_simple_extent_dims(fs, dims, NULL) != 1)
        goto done;
    *n = (int64_t)dims[0];
    int64_t k = *n <= SCOPE_READ_WHOLE_MAX ? *n : SCOPE_FIRST_CALLS;
    if (k == 0 || !storage_ok(d, *n)) {
        rc = k == 0 ? 0 : -1;
        goto done;
    }
    int64_t *buf = malloc((size_t)k * sizeof *buf);
    hsize_t start[1] = { 0 }, cnt[1] = { (hsize_t)k };
    hid_t ms = H5Screate_simple(1, cnt, NULL);
    if (buf && ms >= 0 &&
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) >= 0 &&
        H5Dread(d, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, buf) >= 0) {
        *out = buf;
        buf = NULL;
        rc = 0;
    }
    free(buf);
    if (ms >= 0)
        H5Sclose(ms);
done:
    if (fs >= 0)
        H5Sclose(fs);
    H5Dclose(d);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

/* reader/profile_data.c scope__cell_stats into row[5 ..]: the same
 * function (scope_h5_read.h). The cell stays unsummarised when the total
 * overflows, as in the reader. */
static void cell_stats(const int64_t *s, const int64_t *e, int64_t n, int64_t *row)
{
    struct scope_call_stats st;
    if (scope_call_stats_of(s, e, n, &st) < 0)
        return;
    row[5] = 1;
    row[6] = st.total;
    row[7] = st.min;
    row[8] = st.max;
    row[9] = st.max_end;
    row[10] = bits_of(st.mean);
    row[11] = bits_of(st.m2);
}

typedef struct {
    char **v;
    size_t n, cap;
    int nomem;
} names;

static herr_t name_cb(hid_t g, const char *name, const H5L_info_t *info, void *arg)
{
    (void)g;
    (void)info;
    names *l = arg;
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 64;
        char **q = realloc(l->v, ncap * sizeof *q);
        if (!q) {
            l->nomem = 1;
            return -1;
        }
        l->v = q;
        l->cap = ncap;
    }
    if (!(l->v[l->n] = strdup(name))) {
        l->nomem = 1;
        return -1;
    }
    l->n++;
    return 0;
}

static void names_free(names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* A string attribute as the reader reads it (reader/h5_util.c
 * scope__h5_attr_string): *out malloc'd, NULL when absent. 0, or -1 out
 * of memory. */
static int string_attr(hid_t g, const char *name, char **out)
{
    *out = NULL;
    if (H5Aexists(g, name) <= 0)
        return 0;
    hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    if (a < 0)
        return 0;
    int rc = scope_h5_string_attr_read(a, out) < 0 ? -1 : 0;
    H5Aclose(a);
    return rc;
}

/* One region group (link `link` of the open regions group r): one cell
 * row, or nothing when it is not a group (the reader ignores it). */
static void add_region(table *t, hid_t r, const char *link)
{
    H5O_info_t oi;
    if (H5Oget_info_by_name2(r, link, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
        t->give_up = 1;
        return;
    }
    if (oi.type != H5O_TYPE_GROUP)
        return;
    hid_t g = H5Gopen2(r, link, H5P_DEFAULT);
    if (g < 0) {
        t->give_up = 1;
        return;
    }
    char *name = NULL, *op = NULL;
    int64_t n = 0, ne = 0, *st = NULL, *en = NULL;
    int64_t row[SCOPE_HS_CELL_COLS] = { 0 };
    if (string_attr(g, SCOPE_A_NAME, &name) < 0 || string_attr(g, SCOPE_A_OPERATION, &op) < 0)
        t->nomem = 1;
    H5Eclear2(H5E_DEFAULT);
    if (t->nomem)
        goto done;
    /* what the reader reads: all of a small region, the first calls of a
     * large one */
    if (read_column(g, SCOPE_D_START_TIMES, &n, &st) < 0 ||
        read_column(g, SCOPE_D_END_TIMES, &ne, &en) < 0 || n != ne) {
        t->give_up = 1;
        goto done;
    }
    row[0] = add_str(t, name ? name : link);
    row[1] = add_str(t, link);
    row[2] = n;
    row[3] = INT64_MAX;
    row[4] = INT64_MIN;
    row[10] = bits_of(0.0);
    row[11] = bits_of(0.0);
    row[12] = op ? add_str(t, op) : -1;
    if (n > 0)
        scope_first_call_of(st, en, n < SCOPE_FIRST_CALLS ? n : SCOPE_FIRST_CALLS, 0, &row[3],
                            &row[4]);
    if (n > 0 && n <= SCOPE_READ_WHOLE_MAX && scope_times_first_bad(st, en, n) < 0)
        cell_stats(st, en, n, row);
    if (t->nomem || push(&t->cells, row, SCOPE_HS_CELL_COLS) < 0)
        t->nomem = 1;
done:
    free(st);
    free(en);
    free(name);
    free(op);
    H5Gclose(g);
}

/* One /rank<N> group: its row, attributes and cells. */
static void add_rank(table *t, hid_t f, const char *link, int rank)
{
    hid_t g = H5Gopen2(f, link, H5P_DEFAULT);
    if (g < 0) {
        t->give_up = 1;
        return;
    }
    size_t a0 = t->attrs.n, c0 = t->cells.n;
    hsize_t idx = 0;
    if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, t) < 0)
        t->give_up = 1; /* the reader's cache would be empty: asked of HDF5 */
    H5Eclear2(H5E_DEFAULT);
    if (!t->give_up && !t->nomem && H5Lexists(g, SCOPE_G_REGIONS, H5P_DEFAULT) > 0) {
        hid_t r = H5Gopen2(g, SCOPE_G_REGIONS, H5P_DEFAULT);
        names l = { 0 };
        idx = 0;
        if (r < 0 || H5Literate(r, H5_INDEX_NAME, H5_ITER_INC, &idx, name_cb, &l) < 0)
            t->give_up = 1;
        t->nomem |= l.nomem;
        for (size_t i = 0; i < l.n && !t->give_up && !t->nomem; i++)
            add_region(t, r, l.v[i]);
        names_free(&l);
        if (r >= 0)
            H5Gclose(r);
    }
    H5Eclear2(H5E_DEFAULT);
    H5Gclose(g);
    int64_t row[SCOPE_HS_RANK_COLS] = {
        rank, add_str(t, link), (int64_t)((t->attrs.n - a0) / SCOPE_HS_ATTR_COLS),
        (int64_t)((t->cells.n - c0) / SCOPE_HS_CELL_COLS)
    };
    if (t->nomem || push(&t->ranks, row, SCOPE_HS_RANK_COLS) < 0)
        t->nomem = 1;
}

typedef struct {
    int rank;
    char *link;
} rank_link;

static int cmp_rank_link(const void *a, const void *b)
{
    const rank_link *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* A 2-D int64 dataset [rows][cols] (1-D uint8 when cols == 0). */
static int write_rows(hid_t grp, const char *name, const void *v, size_t rows, size_t cols)
{
    hsize_t dims[2] = { rows, cols };
    hid_t sp = H5Screate_simple(cols ? 2 : 1, dims, NULL);
    hid_t ftype = cols ? H5T_STD_I64LE : H5T_STD_U8LE;
    hid_t mtype = cols ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT8;
    hid_t d = sp < 0 ? H5I_INVALID_HID
                     : H5Dcreate2(grp, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = d < 0 || (rows && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) ? -1 : 0;
    if (d >= 0)
        H5Dclose(d);
    if (sp >= 0)
        H5Sclose(sp);
    return rc;
}

static int write_table(hid_t f, const table *t)
{
    hid_t g = H5Gcreate2(f, SCOPE_G_HOST_SUMMARY, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    uint64_t sum = scope_hs_checksum(t->ranks.v, t->ranks.n, t->attrs.v, t->attrs.n,
                                     t->cells.v, t->cells.n, t->s, t->ns);
    /* the version last: a table cut short by a failure has none, and the
     * reader does not use it */
    int rc = write_rows(g, SCOPE_HS_RANKS, t->ranks.v, t->ranks.n / SCOPE_HS_RANK_COLS,
                        SCOPE_HS_RANK_COLS) < 0 ||
             write_rows(g, SCOPE_HS_ATTRS, t->attrs.v, t->attrs.n / SCOPE_HS_ATTR_COLS,
                        SCOPE_HS_ATTR_COLS) < 0 ||
             write_rows(g, SCOPE_HS_CELLS, t->cells.v, t->cells.n / SCOPE_HS_CELL_COLS,
                        SCOPE_HS_CELL_COLS) < 0 ||
             write_rows(g, SCOPE_HS_STRINGS, t->s, t->ns, 0) < 0 ||
             scope__h5_attr_i64(g, SCOPE_HS_CHECKSUM_ATTR, (int64_t)sum) < 0 ||
             scope__h5_attr_i64(g, SCOPE_HS_VERSION_ATTR, SCOPE_HOST_SUMMARY_VERSION) < 0 ? -1 : 0;
    H5Gclose(g);
    return rc;
}

/* Every /rank<N> group of f into the table t (t->give_up or t->nomem
 * set when there is none to write). */
static void build(table *t, hid_t f)
{
    names l = { 0 };
    hsize_t idx = 0;
    if (H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, &idx, name_cb, &l) < 0)
        t->give_up = 1;
    t->nomem = l.nomem;
    rank_link *rl = calloc(l.n ? l.n : 1, sizeof *rl);
    size_t nrl = 0;
    t->nomem |= !rl;
    for (size_t i = 0; i < l.n && rl && !t->give_up; i++) {
        int rank = scope_rank_of_name(l.v[i], "");
        H5L_info_t li;
        if (rank < 0)
            continue;
        /* a group reached through a soft or external link: the reader
         * reads it by another path; not worth a table */
        if (H5Lget_info(f, l.v[i], &li, H5P_DEFAULT) < 0 || li.type != H5L_TYPE_HARD)
            t->give_up = 1;
        rl[nrl].rank = rank;
        rl[nrl++].link = l.v[i];
    }
    if (nrl)
        qsort(rl, nrl, sizeof *rl, cmp_rank_link);
    for (size_t i = 1; i < nrl; i++)
        if (rl[i].rank == rl[i - 1].rank)
            t->give_up = 1; /* "rank1" and "rank01": the reader says EDUP */
    if (!nrl)
        t->give_up = 1;     /* no rank: nothing a reader would use */
    for (size_t i = 0; i < nrl && !t->give_up && !t->nomem; i++)
        add_rank(t, f, rl[i].link, rl[i].rank);
    H5Eclear2(H5E_DEFAULT);
    free(rl);
    names_free(&l);
}

int scope__host_summary_write(int64_t file)
{
    hid_t f = (hid_t)file;
    /* reading back meets failures on purpose (absent attributes): they
     * are not the writer's storage faults, so HDF5's report is off */
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    table t = { 0 };
    int rc = 0;
    if (H5Lexists(f, SCOPE_G_HOST_SUMMARY, H5P_DEFAULT) > 0 &&
        H5Ldelete(f, SCOPE_G_HOST_SUMMARY, H5P_DEFAULT) < 0)
        rc = SCOPE_EHDF5;   /* a stale table would stay: the caller fails */
    else
        build(&t, f);
    if (rc == 0 && t.nomem)
        rc = SCOPE_ENOMEM;
    else if (rc == 0 && !t.give_up && write_table(f, &t) < 0) {
        H5Ldelete(f, SCOPE_G_HOST_SUMMARY, H5P_DEFAULT); /* no half table */
        rc = SCOPE_EHDF5;
    }
    free(t.ranks.v);
    free(t.attrs.v);
    free(t.cells.v);
    free(t.s);
    H5Eclear2(H5E_DEFAULT);
    scope_h5_quiet_end(&quiet);
    return rc;
}

int scope_convert_host_summary(const char *path, char *err, size_t errlen)
{
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    scope_h5_quiet_end(&quiet);
    if (f < 0) {
        snprintf(err, errlen, "%s: cannot open the file for writing", path);
        return SCOPE_EHDF5;
    }
    int rc = scope__host_summary_write(f);
    if (H5Fclose(f) < 0 && rc == 0)
        rc = SCOPE_EIO;
    if (rc < 0)
        snprintf(err, errlen, "%s: cannot write its summary table: %s", path,
                 scope_strerror(rc));
    return rc;
}
