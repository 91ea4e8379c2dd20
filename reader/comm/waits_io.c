/*
 * waits_io.c - how much of the waits the waited-for rank spent in I/O,
 * and on which file (scope_reader_waits.h, scope_wait_io): each wait
 * above its bound is an interval of the waiting rank's timeline; the
 * waited-for rank's outermost I/O calls (those no other I/O layer issued,
 * docs/io.md) are intervals of the same aligned timeline. Their overlap
 * is the wait's I/O share, attributed to each call's file.
 *
 * Cost, only when the profile has I/O columns: each waited-for rank's
 * I/O calls are read once (io_columns.c), made disjoint and summed into a
 * prefix of I/O time, so that a wait's share is two binary searches;
 * a wait's files are found walking the runs of consecutive calls on one
 * file that the wait covers (one step for a thousand writes to one file).
 * Nothing is read again per wait.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "reader_internal.h"
#include "scope_calls.h"
#include "scope_error.h"
#include "waits_internal.h"

/* One rank's outermost I/O time as disjoint intervals [s, e) sorted by
 * start, cum[i] the I/O time before interval i, file[i] the rank's file
 * row (a dataset's file; -1 none), run_end[i] the index past the run of
 * consecutive intervals on file[i]. */
struct io_line {
    int64_t n;
    int64_t *s, *e, *cum, *run_end;
    int32_t *file;
};

static void line_free(struct io_line *l)
{
    free(l->s);
    free(l->e);
    free(l->cum);
    free(l->run_end);
    free(l->file);
    memset(l, 0, sizeof *l);
}

static int cmp_start(const void *a, const void *b)
{
    const struct scope__io_call *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end < y->end) - (x->end > y->end);    /* the longer first */
}

/* Rank index k's line (a rank without I/O: n 0). The cells' times it
 * read are dropped again unless the caller had them (as gathering does).
 * 0 or a negative SCOPE_E*. */
static int line_of(scope_profile *p, int k, const struct scope__io_files *t, struct io_line *l)
{
    memset(l, 0, sizeof *l);
    int nreg = scope_profile_region_count(p);
    uint8_t *had = calloc((size_t)nreg + 1, 1);
    if (!had)
        return SCOPE_ENOMEM;
    for (int r = 0; r < nreg; r++) {
        scope__cell *c = scope__cell_at(p, r, k);
        had[r] = !c || c->starts;
    }
    struct scope__io_call *v = NULL;
    int64_t n = 0, m = 0;
    int rc = scope__io_rank_calls(p, k, 0, &v, &n);
    for (int r = 0; r < nreg; r++) {
        scope__cell *c = scope__cell_at(p, r, k);
        if (c && !had[r])
            scope__cell_forget(c, 1, 0);
    }
    free(had);
    if (rc < 0 || n == 0)
        return rc;
    /* the outermost calls only, in start order */
    for (int64_t i = 0; i < n; i++) {
        const struct scope__io_region *g = scope__io_region(p, v[i].region);
        if (v[i].issuer == 0 && g->cls != SCOPE_CC_IO_FDS)
            v[m++] = v[i];
    }
    int sorted = 1;
    for (int64_t i = 1; i < m && sorted; i++)
        sorted = cmp_start(&v[i - 1], &v[i]) <= 0;
    if (!sorted)
        qsort(v, (size_t)m, sizeof *v, cmp_start);
    l->s = malloc((size_t)(m ? m : 1) * sizeof *l->s);
    l->e = malloc((size_t)(m ? m : 1) * sizeof *l->e);
    l->cum = malloc((size_t)(m + 1) * sizeof *l->cum);
    l->run_end = malloc((size_t)(m ? m : 1) * sizeof *l->run_end);
    l->file = malloc((size_t)(m ? m : 1) * sizeof *l->file);
    if (!l->s || !l->e || !l->cum || !l->run_end || !l->file) {
        free(v);
        line_free(l);
        return SCOPE_ENOMEM;
    }
    /* disjoint: a call that began inside another (another thread's) keeps
     * only its part past the end so far */
    int64_t reach = INT64_MIN, sum = 0;
    for (int64_t i = 0; i < m; i++) {
        int64_t s = v[i].start > reach ? v[i].start : reach, e = v[i].end;
        if (e <= s)
            continue;
        int32_t f = v[i].row;
        if (!t || f < 0 || f >= t->n)
            f = -1;
        else if (t->kind[f] == 2)
            f = t->parent[f];
        int64_t j = l->n++;
        l->s[j] = s;
        l->e[j] = e;
        l->file[j] = f;
        l->cum[j] = sum;
        sum += e - s;
        reach = e;
    }
    l->cum[l->n] = sum;
    for (int64_t j = l->n - 1; j >= 0; j--)
        l->run_end[j] = j + 1 < l->n && l->file[j + 1] == l->file[j] ? l->run_end[j + 1] : j + 1;
    free(v);
    return 0;
}

/* The rank's I/O time before moment x. O(log n). */
static int64_t io_before(const struct io_line *l, int64_t x)
{
    /* the last interval starting before x */
    int64_t lo = 0, hi = l->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (l->s[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    int64_t i = lo - 1;
    return l->cum[i] + (x < l->e[i] ? x - l->s[i] : l->e[i] - l->s[i]);
}

/* The first interval ending after x. */
static int64_t first_after(const struct io_line *l, int64_t x)
{
    int64_t lo = 0, hi = l->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (l->e[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Per file row of one rank, the ns of the row being folded, and which
 * slots it touched (slot 0: no file; row f at f + 1). */
struct acc {
    int64_t *ns;
    int32_t *touched;
    int32_t ntouched;
};

static void acc_add(struct acc *a, int32_t f, int64_t ns)
{
    if (ns <= 0)
        return;
    if (!a->ns[f + 1])
        a->touched[a->ntouched++] = f + 1;
    a->ns[f + 1] += ns;
}

/* Adds wait [a, b]'s I/O, per file, to acc; returns its I/O time. */
static int64_t wait_io(const struct io_line *l, int64_t a, int64_t b, struct acc *acc)
{
    if (l->n == 0 || b <= a)
        return 0;
    int64_t total = io_before(l, b) - io_before(l, a);
    if (total <= 0)
        return 0;
    for (int64_t i = first_after(l, a); i < l->n && l->s[i] < b;) {
        int64_t re = l->run_end[i];
        int64_t x0 = a > l->s[i] ? a : l->s[i], x1 = b < l->e[re - 1] ? b : l->e[re - 1];
        acc_add(acc, l->file[i], io_before(l, x1) - io_before(l, x0));
        i = re;
    }
    return total;
}

static int cmp_span_row(const void *x, const void *y)
{
    const struct scope__wait_span *a = x, *b = y;
    return (a->row > b->row) - (a->row < b->row);
}

/* Rows by waited-for rank, then index (qsort_r: two profiles may be
 * analysed on two threads at once). */
static int cmp_row_wf(const void *x, const void *y, void *rows)
{
    const scope_wait_row *v = rows;
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    if (v[a].waited_for != v[b].waited_for)
        return v[a].waited_for < v[b].waited_for ? -1 : 1;
    return (a > b) - (a < b);
}

/* The run file list's ns (pre-finish indices), grown as files appear. */
struct run_acc {
    int64_t *ns;
    int32_t cap;
};

static int run_add(struct run_acc *r, int32_t f, int64_t ns)
{
    if (f >= r->cap) {
        int32_t cap = r->cap ? r->cap : 64;
        while (cap <= f)
            cap *= 2;
        int64_t *v = realloc(r->ns, (size_t)cap * sizeof *v);
        if (!v)
            return SCOPE_ENOMEM;
        memset(v + r->cap, 0, (size_t)(cap - r->cap) * sizeof *v);
        r->ns = v;
        r->cap = cap;
    }
    r->ns[f] += ns;
    return 0;
}

/* Row f's name as the run's file list shows it (resolved, else as
 * given): on a tie, the file whose name sorts first. */
static const char *shown(const struct scope__io_files *t, int32_t f)
{
    return t->resolved[f][0] ? t->resolved[f] : t->name[f];
}

/* The rows of waited-for rank index k: spans[0..n) sorted by row. */
static int fold_rank(struct scope_waits *w, scope_profile *p, int k,
                     const struct scope__wait_span *spans, int64_t n,
                     struct scope__io_filemap *map, struct run_acc *run)
{
    const struct scope__io_files *t;
    struct io_line l;
    int rc = scope__io_rank_files(p, k, &t);
    if (rc < 0 || (rc = line_of(p, k, t, &l)) < 0)
        return rc;
    if (l.n == 0)
        return 0;
    int32_t nf = t ? t->n : 0;
    struct acc acc = { calloc((size_t)nf + 1, sizeof *acc.ns),
                       malloc(((size_t)nf + 1) * sizeof *acc.touched), 0 };
    if (!acc.ns || !acc.touched)
        rc = SCOPE_ENOMEM;
    for (int64_t i = 0; i < n && rc == 0;) {
        int64_t row = spans[i].row, io = 0;
        for (; i < n && spans[i].row == row; i++)
            io += wait_io(&l, spans[i].start, spans[i].end, &acc);
        scope_wait_io *o = &w->rows_io[row];
        o->io_ns = io;
        int32_t best = -1, best_row = -1;
        for (int32_t j = 0; j < acc.ntouched && rc == 0; j++) {
            int32_t f = acc.touched[j] - 1;
            int64_t ns = acc.ns[f + 1];
            acc.ns[f + 1] = 0;
            if (f < 0)
                continue;
            int32_t g = scope__io_filemap_row(map, t, f);
            if (g < -1) {
                rc = SCOPE_ENOMEM;
                break;
            }
            if (g < 0)
                continue;
            o->files++;
            if ((rc = run_add(run, g, ns)) < 0)
                break;
            if (ns > o->file_ns ||
                (ns == o->file_ns && strcmp(shown(t, f), shown(t, best_row)) < 0)) {
                o->file_ns = ns;
                best = g;
                best_row = f;
            }
        }
        o->file = best;
        acc.ntouched = 0;
        w->io_totals.io_ns += io;
    }
    free(acc.ns);
    free(acc.touched);
    line_free(&l);
    return rc;
}

int scope__waits_io(struct scope_waits *w, scope_profile *p, struct scope__wait_span *spans,
                    int64_t n)
{
    for (int64_t i = 0; i < w->nrows; i++)
        w->rows_io[i] = (scope_wait_io){ 0, 0, -1, 0 };
    w->io_totals = (scope_wait_io){ 0, 0, -1, 0 };
    if (!(w->has_io = scope_profile_has_io(p)) || n == 0)
        return 0;
    /* spans by row, rows by waited-for rank */
    int sorted = 1;
    for (int64_t i = 1; i < n && sorted; i++)
        sorted = spans[i - 1].row <= spans[i].row;
    if (!sorted)
        qsort(spans, (size_t)n, sizeof *spans, cmp_span_row);
    int64_t *first = malloc((size_t)(w->nrows + 1) * sizeof *first);
    int64_t *order = malloc((size_t)(w->nrows + 1) * sizeof *order);
    struct scope__io_filemap *map = scope__io_filemap_new();
    struct run_acc run = { 0 };
    scope_io_file *files = NULL;
    int32_t nfiles = 0, *remap = NULL;
    int rc = first && order && map ? 0 : SCOPE_ENOMEM;
    for (int64_t r = 0, i = 0; rc == 0 && r <= w->nrows; r++) {
        while (i < n && spans[i].row < r)
            i++;
        first[r] = i;
    }
    /* the rows by waited-for rank: a rank's I/O is read once, for all
     * its rows' waits, gathered into `mine` row after row */
    for (int64_t r = 0; rc == 0 && r < w->nrows; r++)
        order[r] = r;
    if (rc == 0)
        qsort_r(order, (size_t)w->nrows, sizeof *order, cmp_row_wf, w->rows);
    for (int64_t a = 0, b; rc == 0 && a < w->nrows; a = b) {
        int32_t rank = w->rows[order[a]].waited_for;
        int64_t nsp = 0;
        for (b = a; b < w->nrows && w->rows[order[b]].waited_for == rank; b++)
            nsp += first[order[b] + 1] - first[order[b]];
        int k = rank >= 0 && rank < w->world ? w->index_of[rank] : -1;
        if (nsp == 0 || k < 0)
            continue;
        struct scope__wait_span *mine = malloc((size_t)nsp * sizeof *mine);
        if (!mine) {
            rc = SCOPE_ENOMEM;
            break;
        }
        int64_t at = 0;
        for (int64_t q = a; q < b; q++) {
            int64_t r = order[q], c = first[r + 1] - first[r];
            memcpy(mine + at, spans + first[r], (size_t)c * sizeof *mine);
            at += c;
        }
        rc = fold_rank(w, p, k, mine, nsp, map, &run);
        free(mine);
    }
    free(order);
    if (rc == 0)
        rc = scope__io_filemap_finish(map, &files, &nfiles, &remap) < 0 ? SCOPE_ENOMEM : 0;
    if (rc == 0 && nfiles > 0) {
        w->io_files = calloc((size_t)nfiles, sizeof *w->io_files);
        if (!w->io_files)
            rc = SCOPE_ENOMEM;
        for (int32_t f = 0; rc == 0 && f < nfiles; f++) {
            w->io_files[f] = (char *)files[f].name;     /* taken over */
            files[f].name = NULL;
        }
        if (rc == 0)
            w->nio_files = nfiles;
        for (int64_t r = 0; rc == 0 && r < w->nrows; r++)
            if (w->rows_io[r].file >= 0)
                w->rows_io[r].file = remap[w->rows_io[r].file];
        /* the totals' files: by their new index, so that a tie goes to
         * the first name */
        for (int32_t g = 0; rc == 0 && g < run.cap && g < nfiles; g++) {
            int64_t ns = run.ns[g];
            if (ns <= 0)
                continue;
            int32_t f = remap[g];
            w->io_totals.files++;
            if (ns > w->io_totals.file_ns ||
                (ns == w->io_totals.file_ns && f < w->io_totals.file)) {
                w->io_totals.file_ns = ns;
                w->io_totals.file = f;
            }
        }
    }
    scope__io_files_list_free(files, nfiles);
    free(remap);
    free(run.ns);
    scope__io_filemap_free(map);
    free(first);
    return rc;
}

int64_t scope_waits_rows_io(const scope_waits *w, const scope_wait_io **io)
{
    *io = w ? w->rows_io : NULL;
    return w && w->rows_io ? w->nrows : 0;
}

void scope_waits_io_totals(const scope_waits *w, scope_wait_io *out)
{
    if (w)
        *out = w->io_totals;
    else
        *out = (scope_wait_io){ 0, 0, -1, 0 };
}

const char *scope_waits_io_file(const scope_waits *w, int file)
{
    return w && file >= 0 && file < w->nio_files ? w->io_files[file] : NULL;
}

int scope_waits_has_io(const scope_waits *w)
{
    return w ? w->has_io : 0;
}
