/*
 * event_columns.c - the events of a query as one array per field (region,
 * rank, thread, times, call index, call ids, depth, site), for the Python
 * module's numpy arrays and DataFrames: scope_profile_event_columns(); and
 * a call stack's calls the same way, scope_call_stack_columns().
 *
 * Why not scope_events_read(): a row of structs makes numpy copy every
 * field out again, and the iterator's call ids come from a call stack kept
 * for every selected rank at once. Here each column is written once, in
 * C, into an array the caller takes over without a copy; the filters
 * (regions, ranks, a time window) are applied before a row is written.
 *
 * Two ways to fill, both giving the rows in the iterator's order (region,
 * rank, call index), where row (region r, rank k, call i) sits at the
 * cell's first row + i before a window drops rows:
 *  - plain columns: cell by cell, each cell's times read (or taken from
 *    the profile's cache), a window applied while copying, so rejected
 *    rows are never written and their pages never touched;
 *  - call stack columns (call id, parent id, depth): rank by rank, the
 *    rank's times read once into buffers reused for every rank; the plain
 *    columns written cell by cell from them, and the ids by
 *    scope__call_stack_ids straight into their rows (no 64-byte call
 *    record per call: that record, the stack's buffer and a fresh buffer
 *    per cell load were most of the pages the kernel zeroed). A rank that
 *    pass does not handle (the journal's order, ties, errors) takes its
 *    whole call stack (scope__call_stack_fill) scattered to each call's
 *    row. A window is then applied by compacting the rows in place.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prefault.h"
#include "reader_internal.h"

#define ALL_COLUMNS ((uint32_t)(SCOPE_COL_SITE << 1) - 1u)  /* of events */
#define SELF_COLUMNS ((uint32_t)(SCOPE_COL_SELF_NS | SCOPE_COL_SELF_S))
/* what scope_call_stack_columns makes: no rank or site in a stack */
#define CALL_COLUMNS ((ALL_COLUMNS | SELF_COLUMNS) & \
                      ~(uint32_t)(SCOPE_COL_RANK | SCOPE_COL_SITE))
#define STACK_COLUMNS ((uint32_t)(SCOPE_COL_CALL_ID | SCOPE_COL_PARENT_ID | \
                                  SCOPE_COL_DEPTH))

/* What one fill needs besides the output: the selection and the time
 * shift. cell_row[i * nranks + j] is the first row of the cell of
 * (regions[i], ranks[j]) before a window. */
typedef struct {
    scope_profile *p;
    int *regions;           /* selected regions, ascending */
    int nregions;
    int *sel_of;            /* region -> its position in regions[], or -1 */
    int *ranks;             /* selected rank indices, ascending, distinct */
    int nranks;
    int64_t shift;          /* subtracted from every time */
    int window;             /* from/to below apply */
    int64_t from, to;
    uint32_t cols;
    int64_t *cell_row;
    int64_t bound;          /* rows before a window */
} plan;

void scope_reader_free(void *column)
{
    free(column);
}

void scope_event_columns_free(scope_event_columns *c)
{
    if (!c)
        return;
    free(c->region);
    free(c->rank);
    free(c->thread);
    free(c->depth);
    free(c->site);
    free(c->start_ns);
    free(c->end_ns);
    free(c->duration_ns);
    free(c->call_index);
    free(c->call_id);
    free(c->parent_id);
    free(c->start_s);
    free(c->end_s);
    free(c->duration_s);
    free(c->self_ns);
    free(c->self_s);
    memset(c, 0, sizeof *c);
}

/* Regions, ranks, shift and every cell's first row. 0 or SCOPE_E*. */
static int plan_make(plan *pl, const scope_event_query *q)
{
    scope_profile *p = pl->p;
    int rc = scope__query_shift(p, q, &pl->shift);
    if (rc < 0)
        return rc;
    size_t nr = (size_t)p->nregions + 1;
    pl->regions = malloc(nr * sizeof *pl->regions);
    pl->sel_of = malloc(nr * sizeof *pl->sel_of);
    if (!pl->regions || !pl->sel_of)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    if ((rc = scope_profile_select_regions(p, q->include, q->ninclude, q->exclude,
                                           q->nexclude, pl->regions)) < 0)
        return rc;
    pl->nregions = rc;
    for (int r = 0; r < p->nregions; r++)
        pl->sel_of[r] = -1;
    for (int i = 0; i < pl->nregions; i++)
        pl->sel_of[pl->regions[i]] = i;
    if ((rc = scope__query_ranks(pl->p, q, &pl->ranks, &pl->nranks)) < 0)
        return rc;
    size_t ncells = (size_t)pl->nregions * (size_t)pl->nranks;
    pl->cell_row = malloc((ncells + 1) * sizeof *pl->cell_row);
    if (!pl->cell_row)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    pl->bound = 0;
    for (int i = 0; i < pl->nregions; i++)
        for (int j = 0; j < pl->nranks; j++) {
            scope__cell *c = scope__cell_at(p, pl->regions[i], pl->ranks[j]);
            pl->cell_row[(size_t)i * (size_t)pl->nranks + (size_t)j] = pl->bound;
            pl->bound += c ? c->n : 0;
        }
    return 0;
}

static void plan_free(plan *pl)
{
    free(pl->regions);
    free(pl->sel_of);
    free(pl->ranks);
    free(pl->cell_row);
}

/* Allocates every requested column for `rows` rows (huge-page hinted: the
 * first touch of a big column is most of its cost). Pages past the rows
 * a window keeps are never touched, so they take no memory. */
static int alloc_columns(scope_event_columns *o, uint32_t cols, int64_t rows)
{
    size_t n = (size_t)(rows > 0 ? rows : 1);
    /* 1 when a requested column could not be had */
#define MISSING(bit, field) \
    ((cols & (bit)) && !(o->field = scope__malloc_big(n * sizeof *o->field)))
    if (MISSING(SCOPE_COL_REGION, region) || MISSING(SCOPE_COL_RANK, rank) ||
        MISSING(SCOPE_COL_THREAD, thread) || MISSING(SCOPE_COL_DEPTH, depth) ||
        MISSING(SCOPE_COL_SITE, site) || MISSING(SCOPE_COL_START_NS, start_ns) ||
        MISSING(SCOPE_COL_END_NS, end_ns) || MISSING(SCOPE_COL_DURATION_NS, duration_ns) ||
        MISSING(SCOPE_COL_CALL_INDEX, call_index) || MISSING(SCOPE_COL_CALL_ID, call_id) ||
        MISSING(SCOPE_COL_PARENT_ID, parent_id) || MISSING(SCOPE_COL_START_S, start_s) ||
        MISSING(SCOPE_COL_END_S, end_s) || MISSING(SCOPE_COL_DURATION_S, duration_s) ||
        MISSING(SCOPE_COL_SELF_NS, self_ns) || MISSING(SCOPE_COL_SELF_S, self_s))
        return scope__fail(SCOPE_ENOMEM, "out of memory for %lld events", (long long)rows);
#undef MISSING
    return 0;
}

/* (double)x for |x| < 2^51, bit for bit what the conversion gives (both
 * exact there), in operations SSE2 has for two values at once (it has no
 * int64 -> double): x added to the bits of 2^52 + 2^51 is that double
 * plus x. The conversions were scalar and most of the columns' loops. */
#define SMALL_TIME ((int64_t)1 << 51)
static inline double small_to_double(int64_t x)
{
    uint64_t b = (uint64_t)x + UINT64_C(0x4338000000000000);
    double d;
    memcpy(&d, &b, sizeof d);
    return d - 6755399441055744.0;
}

/* Whether every s[i] - sh, e[i] - sh and e[i] - s[i] of m calls is within
 * +-2^51 (relative times under 26 days: small_to_double applies). */
static int times_small(const int64_t *s, const int64_t *e, int64_t m, int64_t sh)
{
    if (m <= 0)
        return 1;
    int64_t lo = s[0], hi = e[0];
    for (int64_t i = 1; i < m; i++) {
        lo = s[i] < lo ? s[i] : lo;
        hi = e[i] > hi ? e[i] : hi;
    }
    /* loaded times are within +-2^61 and end >= start (scope__times_check),
     * so these differences do not overflow */
    return lo - sh > -SMALL_TIME && hi - sh < SMALL_TIME && hi - lo < SMALL_TIME;
}

/* Writes the plain columns of one cell's calls idx[0 .. m) (idx NULL: all
 * m calls, in order) at rows row .. row + m. One loop per column over
 * local restrict pointers (through o->field the compiler reloaded the
 * pointer at every store and vectorised nothing), so each is a straight
 * stream. */
static void put_cell(const plan *pl, scope_event_columns *o, int64_t row,
                     const int64_t *s, const int64_t *e, const int32_t *t,
                     const int32_t *sites, const int64_t *idx, int64_t m,
                     int32_t region_id, int32_t rank_id)
{
    int64_t sh = pl->shift;
    int small = !idx && times_small(s, e, m, sh);
#define COL(type, field) type *restrict field = o->field ? o->field + row : NULL
    COL(int32_t, region); COL(int32_t, rank); COL(int32_t, thread); COL(int32_t, site);
    COL(int64_t, start_ns); COL(int64_t, end_ns); COL(int64_t, duration_ns);
    COL(int64_t, call_index); COL(double, start_s); COL(double, end_s);
    COL(double, duration_s);
#undef COL
#define EACH(stmt)                                                  \
    do {                                                            \
        if (idx)                                                    \
            for (int64_t j = 0; j < m; j++) {                       \
                int64_t i = idx[j];                                 \
                (void)i;                                            \
                stmt;                                               \
            }                                                       \
        else                                                        \
            for (int64_t j = 0; j < m; j++) {                       \
                int64_t i = j;                                      \
                (void)i;                                            \
                stmt;                                               \
            }                                                       \
    } while (0)
    if (region)
        EACH(region[j] = region_id);
    if (rank)
        EACH(rank[j] = rank_id);
    if (thread)
        EACH(thread[j] = t ? t[i] : 0);
    if (site)
        EACH(site[j] = sites ? sites[i] : -1);
    if (start_ns)
        EACH(start_ns[j] = s[i] - sh);
    if (end_ns)
        EACH(end_ns[j] = e[i] - sh);
    if (duration_ns)
        EACH(duration_ns[j] = e[i] - s[i]);
    if (call_index)
        EACH(call_index[j] = i);
    if (small) {
        if (start_s)
            for (int64_t j = 0; j < m; j++)
                start_s[j] = small_to_double(s[j] - sh) / 1e9;
        if (end_s)
            for (int64_t j = 0; j < m; j++)
                end_s[j] = small_to_double(e[j] - sh) / 1e9;
        if (duration_s)
            for (int64_t j = 0; j < m; j++)
                duration_s[j] = small_to_double(e[j] - s[j]) / 1e9;
        return;
    }
    if (start_s)
        EACH(start_s[j] = (double)(s[i] - sh) / 1e9);
    if (end_s)
        EACH(end_s[j] = (double)(e[i] - sh) / 1e9);
    if (duration_s)
        EACH(duration_s[j] = (double)(e[i] - s[i]) / 1e9);
#undef EACH
}

/* Plain columns, cell by cell; *rows = the rows written. */
static int fill_cells(plan *pl, scope_event_columns *o, int64_t *rows)
{
    scope_profile *p = pl->p;
    int64_t row = 0, *idx = NULL, idx_cap = 0;
    int rc = 0;
    for (int i = 0; i < pl->nregions && rc >= 0; i++)
        for (int j = 0; j < pl->nranks && rc >= 0; j++) {
            int region = pl->regions[i], k = pl->ranks[j];
            scope__cell *c = scope__cell_at(p, region, k);
            if (!c || c->n == 0)
                continue;
            int64_t *s = c->starts, *e = c->ends;
            int32_t *t = c->tids;
            const int32_t *sites = NULL;
            int need_t = (pl->cols & SCOPE_COL_THREAD) && !c->tids_loaded;
            scope_h5_quiet quiet;
            scope_h5_quiet_begin(&quiet);
            if (!s)
                rc = scope__cell_load(p, c, &s, &e);
            if (rc >= 0 && need_t)
                rc = scope__cell_load_tids(p, c, &t);
            scope_h5_quiet_end(&quiet);
            if (rc >= 0 && (pl->cols & SCOPE_COL_SITE)) {
                scope__cell *same;
                if ((rc = scope__cell_sites(p, region, k, &same)) >= 0)
                    sites = c->sites;
            }
            int64_t m = c->n;
            if (rc >= 0 && pl->window) {
                if (idx_cap < c->n) {
                    free(idx);
                    idx_cap = c->n;
                    if (!(idx = malloc((size_t)idx_cap * sizeof *idx)))
                        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
                }
                m = 0;
                for (int64_t x = 0; rc >= 0 && x < c->n; x++)
                    if (e[x] - pl->shift >= pl->from && s[x] - pl->shift <= pl->to)
                        idx[m++] = x;
            }
            if (rc >= 0) {
                put_cell(pl, o, row, s, e, t, sites, pl->window ? idx : NULL, m,
                         region, p->ranks[k].rank);
                row += m;
            }
            if (s != c->starts) {
                free(s);
                free(e);
            }
            if (need_t)
                free(t);
        }
    free(idx);
    *rows = row;
    return rc;
}

/* What the lean path's per-region callback needs (stack_cells). */
typedef struct {
    plan *pl;
    scope_event_columns *o;
    uint8_t *keep;
    int j;                  /* the rank's position in pl->ranks */
} stack_ctx;

/* The columns of one region's calls on a rank other than the call stack
 * ones, from the arrays scope__call_stack_ids loaded (each row written
 * once, in streams), and their keep[] marks for a window. */
static int stack_cells(void *ctx, int region, const int64_t *s, const int64_t *e,
                       const int32_t *t, int64_t n)
{
    stack_ctx *x = ctx;
    plan *pl = x->pl;
    int sel = pl->sel_of[region], k = pl->ranks[x->j];
    if (sel < 0)
        return 0;
    int64_t row = pl->cell_row[(size_t)sel * (size_t)pl->nranks + (size_t)x->j];
    const int32_t *sites = NULL;
    if (x->o->site) {
        scope__cell *c;
        int rc = scope__cell_sites(pl->p, region, k, &c);
        if (rc < 0)
            return rc;
        sites = c ? c->sites : NULL;
    }
    put_cell(pl, x->o, row, s, e, t, sites, NULL, n, region, pl->p->ranks[k].rank);
    if (x->keep)
        for (int64_t i = 0; i < n; i++)
            x->keep[row + i] = e[i] - pl->shift >= pl->from && s[i] - pl->shift <= pl->to;
    return 0;
}

/* Writes call `c` (call id `id` of its stack), times shifted by `shift`,
 * into row `row` of each column `o` has among those every call stack gives
 * alike: the event columns' rows and the call stack columns' both. */
static inline void put_call(scope_event_columns *o, int64_t row, const scope_call *c, int64_t id,
                            int64_t shift)
{
    int64_t s = c->start_ns, e = c->end_ns;
    if (o->region)
        o->region[row] = c->region;
    if (o->thread)
        o->thread[row] = c->thread;
    if (o->depth)
        o->depth[row] = c->depth;
    if (o->start_ns)
        o->start_ns[row] = s - shift;
    if (o->end_ns)
        o->end_ns[row] = e - shift;
    if (o->duration_ns)
        o->duration_ns[row] = e - s;
    if (o->call_index)
        o->call_index[row] = c->call_index;
    if (o->call_id)
        o->call_id[row] = id;
    if (o->parent_id)
        o->parent_id[row] = c->parent;
    if (o->start_s)
        o->start_s[row] = (double)(s - shift) / 1e9;
    if (o->end_s)
        o->end_s[row] = (double)(e - shift) / 1e9;
    if (o->duration_s)
        o->duration_s[row] = (double)(e - s) / 1e9;
}

/* One rank's columns through its whole call stack (what the lean path
 * leaves to it: the journal's order, regions out of order, errors), in
 * *calls (sized for the largest rank, made on first need and reused:
 * a fresh buffer per rank cost page zeroing, 13% of the time in perf). */
static int stack_full(plan *pl, scope_event_columns *o, uint8_t *keep, int j,
                      scope_call **calls, int64_t most)
{
    scope_profile *p = pl->p;
    int64_t sh = pl->shift, n;
    int k = pl->ranks[j], rank = p->ranks[k].rank, rc;
    if (!*calls && !(*calls = scope__malloc_big((size_t)most * sizeof **calls)))
        return scope__fail(SCOPE_ENOMEM, "out of memory for %lld calls", (long long)most);
    if ((rc = scope__call_stack_fill(p, k, SCOPE_ALL_THREADS, *calls, &n)) < 0)
        return rc;
    const int64_t *first = pl->cell_row + (size_t)j;
    for (int64_t id = 0; id < n; id++) {
        const scope_call *c = &(*calls)[id];
        int sel = pl->sel_of[c->region];
        if (sel < 0)
            continue;
        int64_t row = first[(size_t)sel * (size_t)pl->nranks] + c->call_index;
        if (keep)
            keep[row] = c->end_ns - sh >= pl->from && c->start_ns - sh <= pl->to;
        if (o->rank)
            o->rank[row] = rank;
        put_call(o, row, c, id, sh);
    }
    /* sites are per cell, in call index order: a straight copy */
    for (int i = 0; o->site && i < pl->nregions && rc >= 0; i++) {
        scope__cell *c;
        if ((rc = scope__cell_sites(p, pl->regions[i], k, &c)) < 0 || !c || c->n == 0)
            continue;
        int64_t row = pl->cell_row[(size_t)i * (size_t)pl->nranks + (size_t)j];
        for (int64_t x = 0; x < c->n; x++)
            o->site[row + x] = c->sites ? c->sites[x] : -1;
    }
    return rc;
}

/* Call stack columns, and the others with them, rank by rank: the lean
 * path (scope__call_stack_ids: the ids written straight to their rows,
 * the other columns cell by cell from the same loaded times, no 64-byte
 * record per call and no fresh memory per rank), else the whole call
 * stack (stack_full). Rows outside the window are marked in keep[] (when
 * a window is set) for compact(). */
static int fill_stacks(plan *pl, scope_event_columns *o, uint8_t *keep)
{
    scope_profile *p = pl->p;
    int64_t most = 1, most_other = 1;   /* other: whose times need s_buf */
    int in_ids = o->call_id && o->parent_id;
    for (int j = 0; j < pl->nranks; j++) {
        int64_t calls = 0, other = 0;
        for (int r = 0; r < p->nregions; r++) {
            scope__cell *c = scope__cell_at(p, r, pl->ranks[j]);
            calls += c ? c->n : 0;
            other += c && (!in_ids || pl->sel_of[r] < 0) ? c->n : 0;
        }
        most = calls > most ? calls : most;
        most_other = other > most_other ? other : most_other;
    }
    int64_t *s_buf = scope__malloc_big((size_t)most_other * sizeof *s_buf);
    int64_t *e_buf = scope__malloc_big((size_t)most_other * sizeof *e_buf);
    int64_t *row0 = malloc((size_t)(p->nregions ? p->nregions : 1) * sizeof *row0);
    scope_call *calls = NULL;
    int rc = 0;
    if (!s_buf || !e_buf || !row0)
        rc = scope__fail(SCOPE_ENOMEM, "out of memory for %lld calls", (long long)most);
    for (int j = 0; j < pl->nranks && rc >= 0; j++) {
        for (int r = 0; r < p->nregions; r++) {
            int sel = pl->sel_of[r];
            row0[r] = sel < 0 ? -1
                              : pl->cell_row[(size_t)sel * (size_t)pl->nranks + (size_t)j];
        }
        stack_ctx ctx = { .pl = pl, .o = o, .keep = keep, .j = j };
        rc = scope__call_stack_ids(p, pl->ranks[j], row0, o->call_id, o->parent_id,
                                   o->depth, s_buf, e_buf, stack_cells, &ctx);
        if (rc == 0)
            rc = stack_full(pl, o, keep, j, &calls, most);
    }
    free(s_buf);
    free(e_buf);
    free(row0);
    free(calls);
    return rc;
}

/* Moves the rows with keep[] set to the front, in order; the new count. */
static int64_t compact(scope_event_columns *o, const uint8_t *keep, int64_t n)
{
    int64_t w = 0;
    for (int64_t r = 0; r < n; r++) {
        if (!keep[r])
            continue;
        if (w != r) {
#define MOVE(field) if (o->field) o->field[w] = o->field[r];
            MOVE(region) MOVE(rank) MOVE(thread) MOVE(depth) MOVE(site)
            MOVE(start_ns) MOVE(end_ns) MOVE(duration_ns) MOVE(call_index)
            MOVE(call_id) MOVE(parent_id) MOVE(start_s) MOVE(end_s)
            MOVE(duration_s)
#undef MOVE
        }
        w++;
    }
    return w;
}

/* The output columns' first touch is the kernel zeroing their pages
 * (1.1 GB for 20 M events of to_events_dataframe(): half of the time in
 * perf, and memory numpy must own, so not reusable). With a second CPU,
 * a thread makes the pages present ahead of the fill, in the order the
 * fill writes them: the same CPU time, over two cores. */
typedef struct {
    const plan *pl;
    const scope_event_columns *o;
    pthread_t thread;
    int started;
} prefault;

static void *prefault_run(void *arg)
{
    const prefault *f = arg;
    const plan *pl = f->pl;
    const scope_event_columns *o = f->o;
    for (int j = 0; j < pl->nranks; j++)
        for (int i = 0; i < pl->nregions; i++) {
            size_t cell = (size_t)i * (size_t)pl->nranks + (size_t)j;
            int64_t row = pl->cell_row[cell];
            int64_t n = (cell + 1 < (size_t)pl->nregions * (size_t)pl->nranks
                             ? pl->cell_row[cell + 1] : pl->bound) - row;
#define POP(field) scope__populate(o->field, (size_t)row * sizeof *o->field, \
                                   (size_t)(row + n) * sizeof *o->field)
            POP(region); POP(rank); POP(thread); POP(depth); POP(site);
            POP(start_ns); POP(end_ns); POP(duration_ns); POP(call_index);
            POP(call_id); POP(parent_id); POP(start_s); POP(end_s); POP(duration_s);
#undef POP
        }
    return NULL;
}

int scope_profile_event_columns(scope_profile *p, const scope_event_query *q,
                                const scope_time_window *window, uint32_t columns,
                                scope_event_columns *out)
{
    static const scope_event_query all;
    if (!out)
        return scope__fail(SCOPE_EINVAL, "no output");
    memset(out, 0, sizeof *out);
    if (!p)
        return scope__fail(SCOPE_EINVAL, "no profile");
    if (!q)
        q = &all;
    if (columns & ~ALL_COLUMNS)
        return scope__fail(SCOPE_EINVAL, "unknown column bits 0x%x",
                           (unsigned)(columns & ~ALL_COLUMNS));
    if (q->nranks < 0 || (q->nranks > 0 && !q->ranks))
        return scope__fail(SCOPE_EINVAL, "bad rank list");
    if (window && window->from_ns > window->to_ns)
        return scope__fail(SCOPE_EINVAL, "empty time window [%lld, %lld]",
                           (long long)window->from_ns, (long long)window->to_ns);
    plan pl = { .p = p, .cols = columns, .window = window != NULL };
    if (window) {
        pl.from = window->from_ns;
        pl.to = window->to_ns;
    }
    uint8_t *keep = NULL;
    int64_t rows = 0;
    int rc = plan_make(&pl, q);
    if (rc >= 0)
        rc = alloc_columns(out, columns, pl.bound);
    prefault pf = { .pl = &pl, .o = out };
    if (rc >= 0 && !window && pl.bound >= SCOPE__PREFAULT_ROWS && scope__prefault_wanted())
        pf.started = pthread_create(&pf.thread, NULL, prefault_run, &pf) == 0;
    if (rc >= 0 && (columns & STACK_COLUMNS)) {
        if (window && !(keep = scope__malloc_big((size_t)(pl.bound ? pl.bound : 1))))
            rc = scope__fail(SCOPE_ENOMEM, "out of memory for %lld events",
                             (long long)pl.bound);
        if (rc >= 0)
            rc = fill_stacks(&pl, out, keep);
        rows = rc >= 0 && keep ? compact(out, keep, pl.bound) : pl.bound;
    } else if (rc >= 0) {
        rc = fill_cells(&pl, out, &rows);
    }
    if (pf.started)
        pthread_join(pf.thread, NULL);
    free(keep);
    plan_free(&pl);
    if (rc < 0) {
        scope_event_columns_free(out);
        return rc;
    }
    out->n = rows;
    return 0;
}

int scope_call_stack_columns(const scope_call_stack *cs, int64_t shift_ns,
                             uint32_t columns, scope_event_columns *out)
{
    if (!out)
        return scope__fail(SCOPE_EINVAL, "no output");
    memset(out, 0, sizeof *out);
    if (!cs)
        return scope__fail(SCOPE_EINVAL, "no call stack");
    if (columns & ~CALL_COLUMNS)
        return scope__fail(SCOPE_EINVAL, "column bits 0x%x are not call stack columns",
                           (unsigned)(columns & ~CALL_COLUMNS));
    int64_t n = scope_call_stack_count(cs);
    const scope_call *calls = scope_call_stack_calls(cs);
    int rc = alloc_columns(out, columns, n);
    if (rc < 0) {
        scope_event_columns_free(out);
        return rc;
    }
    scope_event_columns *o = out;
    /* the columns' fresh pages zeroed beside the fill (numpy owns them:
     * no reuse) */
    scope__prefault pf = { .rows = n };
#define ADD(field) scope__prefault_add(&pf, o->field, sizeof *o->field)
    ADD(region); ADD(thread); ADD(depth); ADD(start_ns); ADD(end_ns); ADD(duration_ns);
    ADD(call_index); ADD(call_id); ADD(parent_id); ADD(start_s); ADD(end_s);
    ADD(duration_s); ADD(self_ns); ADD(self_s);
#undef ADD
    scope__prefault_start(&pf);
    /* one pass over the 64-byte records: each column is written in order,
     * and each record is read once, not once per column */
    for (int64_t i = 0; i < n; i++) {
        const scope_call *c = &calls[i];
        put_call(o, i, c, i, shift_ns);
        if (o->self_ns)
            o->self_ns[i] = c->self_ns;
        if (o->self_s)
            o->self_s[i] = (double)c->self_ns / 1e9;
    }
    scope__prefault_join(&pf);
    out->n = n;
    return 0;
}
