/*
 * host_summary.c - opens a host file from its summary table,
 * /scope_host_summary (docs/format.md "The host summary table"), in one
 * file open and four dataset reads, instead of reading each of its rank
 * groups (~0.5 ms of libhdf5 work per rank: the group, its attributes,
 * its region groups and datasets).
 *
 * The table is written by the converter (convert/host_summary.c) from the
 * finished rank groups with this reader's own rules, so what it holds is
 * what add_rank_group() would have read: per rank its attributes as the
 * rank attribute cache holds them (rank_attrs.c), per region its name,
 * link, number of calls, first call, statistics and operation
 * (profile_open.c add_region_group). A version 1 table (written before
 * the `operation` attribute existed) has no operation column: its groups
 * have no such attribute either. Built from it, the profile is the one the rank-group
 * path builds, bit for bit. Later reads of a rank's arrays (times, thread
 * ids, call stacks) go to the rank groups as before.
 *
 * A file is untrusted input, so the table is used only when everything in
 * it is consistent: its version is ours; its checksum (scope_format.h)
 * matches, so a table damaged on disk is not used; its ranks, in order, are exactly
 * the ranks the index links into this file, each at the group the link
 * names; every count adds up to its dataset's rows; every string offset
 * lies inside the string blob, which ends with a NUL; every dataset's
 * storage holds exactly the bytes its shape claims (libhdf5 1.10 trusts a
 * damaged layout and copies out of bounds, h5_util.c); each value is one
 * the writer can produce (kinds, flags, a mean that is total / n). On any
 * doubt nothing is added and the file's links take the rank-group path,
 * which then reports whatever is wrong with the groups themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_summary.h"
#include "scope_calls.h"
#include "scope_h5_read.h"

#define MAX_ROWS ((int64_t)1 << 26)
#define MAX_STRINGS ((int64_t)1 << 30)

typedef struct {
    int64_t checksum;
    int cell_cols;      /* SCOPE_HS_CELL_COLS, or _V1 in a version 1 table */
    int64_t nr, na, nc, ns;
    int64_t *ranks, *attrs, *cells;
    char *s;
} table;

static void table_free(table *t)
{
    free(t->ranks);
    free(t->attrs);
    free(t->cells);
    free(t->s);
}

/* Reads dataset `name` of g whole: [rows][cols] int64 (cols > 0) or a 1-D
 * byte blob (cols == 0), only when its shape, type and storage are sane.
 * Returns 1 with *buf (malloc'd, NULL when empty) and *rows, 0 when not
 * sane, SCOPE_ENOMEM. */
static int read_rows(hid_t g, const char *name, int cols, int64_t max, int64_t *rows, void **buf)
{
    *buf = NULL;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        return 0;
    int ok = 0;
    hid_t sp = H5Dget_space(d), t = H5Dget_type(d), pl = H5Dget_create_plist(d);
    hsize_t dims[2] = { 0, 0 };
    int nd = cols ? 2 : 1;
    size_t esize = cols ? 8 : 1;
    if (sp < 0 || t < 0 || pl < 0 || H5Sget_simple_extent_ndims(sp) != nd ||
        H5Sget_simple_extent_dims(sp, dims, NULL) != nd || H5Tget_class(t) != H5T_INTEGER ||
        H5Tget_size(t) != esize || (cols && dims[1] != (hsize_t)cols) ||
        dims[0] > (hsize_t)max)
        goto done;
    /* written whole by one writer: not chunked, and storing exactly the
     * bytes the shape claims, inside the file */
    H5D_layout_t layout = H5Pget_layout(pl);
    int64_t elems = (int64_t)dims[0] * (cols ? cols : 1);
    hsize_t bytes = (hsize_t)elems * esize, stored;
    if ((layout != H5D_CONTIGUOUS && layout != H5D_COMPACT) ||
        scope_h5_storage_check(d, elems, &stored) != SCOPE_H5_STORAGE_OK ||
        (elems == 0 && H5Dget_storage_size(d) != 0))
        goto done;
    *rows = (int64_t)dims[0];
    ok = 1;
    if (!bytes)
        goto done;
    if (!(*buf = malloc(bytes))) {
        ok = scope__fail(SCOPE_ENOMEM, "out of memory reading a host summary table");
        goto done;
    }
    if (H5Dread(d, cols ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                *buf) < 0) {
        free(*buf);
        *buf = NULL;
        ok = 0;
    }
done:
    if (pl >= 0) H5Pclose(pl);
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
    H5Dclose(d);
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

/* Reads the table of the host file at fpath (`open`: the file, already
 * open, else H5I_INVALID_HID). 1 read, 0 none or not sane in shape,
 * SCOPE_ENOMEM. */
static int read_table(const char *fpath, hid_t open, table *t)
{
    memset(t, 0, sizeof *t);
    hid_t f = open;
    if (f < 0) {
        /* its own light open: only the table is read here (the rank
         * groups are opened, through scope__source_file, when their
         * arrays are) */
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        if (fapl < 0)
            return 0;
        H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
        H5Pset_evict_on_close(fapl, 1);
        if (scope__heap_guard_fapl(fapl) < 0) {     /* as every file: heap_guard.c */
            H5Pclose(fapl);
            H5Eclear2(H5E_DEFAULT);
            return 0;
        }
        f = H5Fopen(fpath, H5F_ACC_RDONLY, fapl);
        H5Pclose(fapl);
        if (f < 0) {
            H5Eclear2(H5E_DEFAULT);
            return 0;
        }
    }
    int rc = 0;
    int64_t version = 0;
    hid_t g = H5Lexists(f, SCOPE_G_HOST_SUMMARY, H5P_DEFAULT) > 0
                  ? H5Gopen2(f, SCOPE_G_HOST_SUMMARY, H5P_DEFAULT) : H5I_INVALID_HID;
    if (g >= 0 && scope__h5_attr_int64(g, SCOPE_HS_VERSION_ATTR, &version) == 1 &&
        (version == SCOPE_HOST_SUMMARY_VERSION || version == 1) &&
        scope__h5_attr_int64(g, SCOPE_HS_CHECKSUM_ATTR, &t->checksum) == 1 &&
        (rc = read_rows(g, SCOPE_HS_RANKS, SCOPE_HS_RANK_COLS, MAX_ROWS, &t->nr,
                        (void **)&t->ranks)) == 1 &&
        (rc = read_rows(g, SCOPE_HS_ATTRS, SCOPE_HS_ATTR_COLS, MAX_ROWS, &t->na,
                        (void **)&t->attrs)) == 1 &&
        (t->cell_cols = version == 1 ? SCOPE_HS_CELL_COLS_V1 : SCOPE_HS_CELL_COLS) &&
        (rc = read_rows(g, SCOPE_HS_CELLS, t->cell_cols, MAX_ROWS, &t->nc,
                        (void **)&t->cells)) == 1)
        rc = read_rows(g, SCOPE_HS_STRINGS, 0, MAX_STRINGS, &t->ns, (void **)&t->s);
    if (g >= 0)
        H5Gclose(g);
    if (open < 0)
        H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
    if (rc != 1)
        table_free(t);
    return rc;
}

/* Whether `off` names a string of the blob (which ends with a NUL). */
static int str_ok(const table *t, int64_t off)
{
    return off >= 0 && off < t->ns;
}

static int64_t bits_of(double d)
{
    int64_t v;
    memcpy(&v, &d, sizeof v);
    return v;
}

static double double_of(int64_t v)
{
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

/* Whether the table says exactly what the rank groups of the n links
 * `pend` (one file's, ascending by rank) would (as far as can be told
 * without reading them). */
static int consistent(const struct pending *pend, size_t n, const table *t)
{
    if (t->ns < 1 || t->s[t->ns - 1] != 0 || t->nr != (int64_t)n)
        return 0;
    if ((int64_t)scope_hs_checksum(t->ranks, (size_t)t->nr * SCOPE_HS_RANK_COLS, t->attrs,
                                   (size_t)t->na * SCOPE_HS_ATTR_COLS, t->cells,
                                   (size_t)t->nc * (size_t)t->cell_cols, t->s,
                                   (size_t)t->ns) != t->checksum)
        return 0;   /* damaged on disk */
    int64_t na = 0, nc = 0;
    for (int64_t i = 0; i < t->nr; i++) {
        const int64_t *r = t->ranks + i * SCOPE_HS_RANK_COLS;
        const char *obj = pend[i].obj;
        /* the ranks the index links into this file, at the groups the
         * links name ("/rank<N>"), in the same (ascending) order */
        if (r[0] != pend[i].rank || !str_ok(t, r[1]) || obj[0] != '/' ||
            strcmp(obj + 1, t->s + r[1]) != 0 || r[2] < 0 || r[3] < 0 ||
            r[2] > t->na - na || r[3] > t->nc - nc)
            return 0;
        na += r[2];
        nc += r[3];
    }
    if (na != t->na || nc != t->nc)
        return 0;
    for (int64_t i = 0; i < t->na; i++) {
        const int64_t *a = t->attrs + i * SCOPE_HS_ATTR_COLS;
        if (!str_ok(t, a[0]) || a[1] < SCOPE_HS_KIND_INT || a[1] > SCOPE_HS_KIND_OTHER ||
            (a[1] == SCOPE_HS_KIND_STRING ? !str_ok(t, a[4]) : a[4] != -1) ||
            (a[1] == SCOPE_HS_KIND_INT && a[3] != bits_of((double)a[2])))
            return 0;
    }
    for (int64_t i = 0; i < t->nc; i++) {
        const int64_t *c = t->cells + i * t->cell_cols;
        if (!str_ok(t, c[0]) || !str_ok(t, c[1]) ||
            (t->cell_cols > 12 && c[12] != -1 && !str_ok(t, c[12])))
            return 0;
        const char *link = t->s + c[1];
        int64_t n = c[2];
        /* a link name HDF5 could hold: the rank's region group */
        if (!link[0] || strchr(link, '/') || strcmp(link, ".") == 0 || n < 0 ||
            (n == 0 && (c[3] != INT64_MAX || c[4] != INT64_MIN)) || (c[5] != 0 && c[5] != 1))
            return 0;
        if (c[5] && (n < 1 || n > SCOPE_READ_WHOLE_MAX || c[7] > c[8] || c[6] < 0 ||
                     c[10] != bits_of((double)c[6] / (double)n)))
            return 0;
    }
    return 1;
}

/* Adds the table's ranks and cells for the links `pend` of one file
 * (consistent() said yes). 0 or SCOPE_ENOMEM. */
static int add_all(builder *b, const struct pending *pend, const table *t)
{
    int source = pend[0].source;
    const int64_t *a = t->attrs, *c = t->cells;
    for (int64_t i = 0; i < t->nr; i++) {
        const int64_t *row = t->ranks + i * SCOPE_HS_RANK_COLS;
        const char *obj = pend[i].obj;
        int rank = (int)row[0], rc = scope__open_add_rank(b, rank, source, obj);
        if (rc < 0)
            return rc;
        scope__rank *r = &b->p->ranks[b->p->nranks - 1];
        if (row[2] && !(r->attrs = calloc((size_t)row[2], sizeof *r->attrs)))
            return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
        for (int64_t k = 0; k < row[2]; k++, a += SCOPE_HS_ATTR_COLS) {
            scope__attr *at = &r->attrs[r->nattrs++];
            at->kind = (int)a[1];   /* SCOPE_HS_KIND_* are scope__attr_kind's values */
            at->i = a[2];
            at->d = double_of(a[3]);
            if (!(at->name = strdup(t->s + a[0])) ||
                (a[1] == SCOPE_HS_KIND_STRING && !(at->s = strdup(t->s + a[4]))))
                return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
        }
        r->attrs_cached = 1;
        const scope__attr *st;
        if (scope__rank_attr_lookup(r, SCOPE_A_START_TIME_NS, &st) == 1 &&
            st->kind == SCOPE__ATTR_INT)
            scope__open_note_start(&b->have_rank_start, &b->rank_start, st->i);
        for (int64_t k = 0; k < row[3]; k++, c += t->cell_cols) {
            char *name = strdup(t->s + c[0]), *gpath = NULL;
            if (!name || asprintf(&gpath, "%s/" SCOPE_G_REGIONS "/%s", obj, t->s + c[1]) < 0) {
                free(name);
                return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
            }
            rc = scope__open_add_cell(b, name, rank, source, gpath, 0, c[2], c[3], c[4]);
            free(gpath);
            if (rc < 0)
                return rc;
            scope__cell *cell = b->found[b->nfound - 1].cell;
            cell->summarized = (int)c[5];
            if (c[5]) {
                cell->total = c[6];
                cell->min = c[7];
                cell->max = c[8];
                cell->max_end = c[9];
                cell->mean = double_of(c[10]);
                cell->m2 = double_of(c[11]);
            }
            if (t->cell_cols > 12 && c[12] >= 0) {
                struct scope_call_name op;
                cell->op = scope_call_parse(t->s + c[12], &op);
                cell->op_big = op.big;
            }
        }
    }
    return 0;
}

_Static_assert(SCOPE_HS_KIND_INT == SCOPE__ATTR_INT && SCOPE_HS_KIND_FLOAT == SCOPE__ATTR_FLOAT &&
               SCOPE_HS_KIND_STRING == SCOPE__ATTR_STRING &&
               SCOPE_HS_KIND_OTHER == SCOPE__ATTR_OTHER,
               "the table's attribute kinds are the cache's");

/* The n links `pend` of one host file (`open`, or H5I_INVALID_HID) from
 * its table: 1 when added, 0 when the table is missing or in doubt
 * (nothing added), SCOPE_ENOMEM. */
static int from_table(builder *b, hid_t open, const struct pending *pend, size_t n)
{
    table t;
    int rc = read_table(b->p->sources[pend[0].source].path, open, &t);
    if (rc != 1)
        return rc;
    rc = 0;
    if (consistent(pend, n, &t))
        rc = add_all(b, pend, &t) < 0 ? SCOPE_ENOMEM : 1;
    table_free(&t);
    return rc;
}

int scope__host_summary_take(builder *b)
{
    size_t out = 0;
    int rc = 0;
    for (size_t lo = 0, hi; lo < b->npending; lo = hi) {
        int source = b->pending[lo].source, used = 0;
        for (hi = lo + 1; hi < b->npending && b->pending[hi].source == source; hi++)
            ;
        if (rc >= 0 && scope_is_host_file(b->p->sources[source].path))
            used = (rc = from_table(b, H5I_INVALID_HID, b->pending + lo, hi - lo)) == 1;
        for (size_t i = lo; i < hi; i++) {
            if (used)
                free(b->pending[i].obj);
            else
                b->pending[out++] = b->pending[i];
        }
    }
    b->npending = out;
    return rc < 0 ? rc : 0;
}

static int cmp_by_rank(const void *a, const void *b)
{
    const struct pending *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int scope__host_summary_file(builder *b, int source, hid_t file, char *const *names, size_t nn)
{
    const char *fpath = b->p->sources[source].path;
    if (!scope_is_host_file(fpath))
        return 0;
    struct pending *pend = calloc(nn ? nn : 1, sizeof *pend);
    size_t n = 0;
    int rc = pend ? 1 : SCOPE_ENOMEM;
    for (size_t i = 0; i < nn && rc == 1; i++) {
        int rank = scope_rank_of_name(names[i], "");
        H5L_info_t li;
        if (rank < 0)
            continue;
        if (H5Lget_info(file, names[i], &li, H5P_DEFAULT) < 0 || li.type != H5L_TYPE_HARD) {
            H5Eclear2(H5E_DEFAULT);
            rc = 0;     /* a link to elsewhere: the groups' path says what it is */
        } else if (asprintf(&pend[n].obj, "/%s", names[i]) < 0) {
            pend[n].obj = NULL;
            rc = SCOPE_ENOMEM;
        } else {
            pend[n].source = source;
            pend[n++].rank = rank;
        }
    }
    if (rc == 1 && n) {
        qsort(pend, n, sizeof *pend, cmp_by_rank);
        rc = from_table(b, file, pend, n);
    } else if (rc == 1) {
        rc = 0;
    }
    for (size_t i = 0; i < n; i++)
        free(pend[i].obj);
    free(pend);
    return rc == SCOPE_ENOMEM ? scope__fail(rc, "%s: out of memory", fpath) : rc;
}
