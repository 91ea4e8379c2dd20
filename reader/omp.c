/*
 * omp.c - the threads inside each rank (scope_reader_omp.h): what the
 * OpenMP regions of a profile say of each construct, rank and thread.
 *
 * Each rank's calls are read as its call stack (every lane), so that a
 * wait is given to the implicit task it happened in (its nearest
 * ancestor of that class: a wait inside a nested parallel region belongs
 * to the inner one), and to the work-sharing construct or explicit task
 * around it; a wait counts its self time, so a task a thread ran while it
 * waited at a barrier is work. An implicit task names its parallel
 * region's call (the omp_parallel column, docs/format.md "OpenMP"), which
 * gives it its construct (the parallel region's call site) and its team.
 *
 * The region's kinds come from the vocabulary (format/scope_omp.h): no
 * list of names here.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_omp.h"
#include "scope_reader_omp.h"

_Static_assert(SCOPE_OMP_WAIT_KINDS == SCOPE_OMP_WAITS, "one list of wait kinds");

struct scope_omp {
    scope_omp_construct *cons;
    int64_t ncons, capcons;
    scope_omp_region *regs;
    int64_t nregs, capregs;
    scope_omp_row *rows;
    int64_t nrows, caprows;
    scope_omp_thread *threads;
    int64_t nthreads, capthreads;
};

const char *scope_omp_wait_kind_name(int k)
{
    return scope_omp_wait_name(k);
}

static int grow(void **v, int64_t *cap, int64_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    int64_t c = *cap ? *cap * 2 : 64;
    while (c < need)
        c *= 2;
    void *n = realloc(*v, (size_t)c * size);
    if (!n)
        return scope__fail(SCOPE_ENOMEM, "out of memory for the OpenMP analysis");
    *v = n;
    *cap = c;
    return 0;
}

/* The construct (region, site), added when new. */
static int64_t construct(scope_omp *o, int32_t region, int32_t site)
{
    for (int64_t i = 0; i < o->ncons; i++)
        if (o->cons[i].region == region && o->cons[i].site == site)
            return i;
    if (grow((void **)&o->cons, &o->capcons, o->ncons + 1, sizeof *o->cons) < 0)
        return SCOPE_ENOMEM;
    o->cons[o->ncons] = (scope_omp_construct){ region, site };
    return o->ncons++;
}

/* --- one rank's rows: (construct, thread) -> row, by an open hash ------- */

struct rank_rows {
    int64_t *slot;          /* row index + 1, 0 free */
    uint64_t mask;
    int64_t first;          /* this rank's rows start here in o->rows */
};

/* The rank's threads from its calls (sorted by start): one per lane that
 * has an OpenMP call, with its begin and end marks and the span of its
 * other OpenMP calls. */
static int add_threads(scope_omp *o, int rank, const scope_call *calls, int64_t n,
                       const int *event)
{
    int64_t first = o->nthreads;
    for (int64_t i = 0; i < n; i++) {
        int ev = event[calls[i].region];
        if (!ev)
            continue;
        scope_omp_thread *t = NULL;
        for (int64_t j = first; j < o->nthreads && !t; j++)
            if (o->threads[j].lane == calls[i].thread)
                t = &o->threads[j];
        if (!t) {
            if (grow((void **)&o->threads, &o->capthreads, o->nthreads + 1, sizeof *t) < 0)
                return SCOPE_ENOMEM;
            t = &o->threads[o->nthreads++];
            *t = (scope_omp_thread){ rank, calls[i].thread, 0, 0, -1, -1, -1, -1, 0 };
        }
        int type = scope_omp_thread_type_of(ev);
        if (type) {
            t->type = type;
            t->begin_ns = calls[i].start_ns;
        } else if (ev == SCOPE_OMP_THREAD_END) {
            t->end_ns = calls[i].start_ns;  /* when the runtime reported it */
        } else {
            if (t->first_ns < 0 || calls[i].start_ns < t->first_ns)
                t->first_ns = calls[i].start_ns;
            if (calls[i].end_ns > t->last_ns)
                t->last_ns = calls[i].end_ns;
            t->events++;
        }
    }
    return 0;
}

static int row_of(scope_omp *o, struct rank_rows *h, int rank, int64_t cons, int32_t thread,
                  scope_omp_row **out)
{
    uint64_t key = (uint64_t)cons << 32 ^ (uint32_t)thread;
    uint64_t i = (key * 0x9e3779b97f4a7c15ull >> 20) & h->mask;
    for (;; i = (i + 1) & h->mask) {
        int64_t s = h->slot[i];
        if (s == 0)
            break;
        scope_omp_row *r = &o->rows[s - 1];
        if (r->construct == cons && r->thread == thread) {
            *out = r;
            return 0;
        }
    }
    if ((uint64_t)(o->nrows - h->first + 1) * 2 > h->mask) {
        /* keep it half empty: rehash into twice the room */
        uint64_t m = h->mask * 2 + 1;
        int64_t *ns = calloc(m + 1, sizeof *ns);
        if (!ns)
            return scope__fail(SCOPE_ENOMEM, "out of memory for the OpenMP analysis");
        for (int64_t r = h->first; r < o->nrows; r++) {
            uint64_t k = (uint64_t)o->rows[r].construct << 32 ^ (uint32_t)o->rows[r].thread;
            uint64_t j = (k * 0x9e3779b97f4a7c15ull >> 20) & m;
            while (ns[j])
                j = (j + 1) & m;
            ns[j] = r + 1;
        }
        free(h->slot);
        h->slot = ns;
        h->mask = m;
        return row_of(o, h, rank, cons, thread, out);
    }
    if (grow((void **)&o->rows, &o->caprows, o->nrows + 1, sizeof *o->rows) < 0)
        return SCOPE_ENOMEM;
    scope_omp_row *r = &o->rows[o->nrows];
    memset(r, 0, sizeof *r);
    r->construct = (int32_t)cons;
    r->rank = rank;
    r->thread = thread;
    h->slot[i] = ++o->nrows;
    *out = r;
    return 0;
}

/* --- one rank ------------------------------------------------------------ */

/* What one rank's walk keeps per call of the classes that collect waits. */
struct part {
    int64_t call;           /* its index in the call stack */
    double wait[SCOPE_OMP_WAITS];
};

struct rank_walk {
    const scope_call *calls;
    int64_t ncalls;
    const int *event;       /* per region: enum scope_omp_event, 0 none */
    int32_t *it_of;         /* per call: its index among the implicit tasks'
                               parts, or among the works' / tasks', -1 */
    struct part *parts;     /* the calls that collect waits */
    int64_t nparts;
};

static int cls_of(const struct rank_walk *w, int64_t call)
{
    return scope_omp_event_at(w->event[w->calls[call].region])->cls;
}

/* The nearest ancestor of `call` of class `cls`, stopping at an implicit
 * task (a wait belongs to the innermost parallel region), or -1. */
static int64_t ancestor(const struct rank_walk *w, int64_t call, int cls)
{
    for (int64_t a = w->calls[call].parent; a >= 0; a = w->calls[a].parent) {
        int c = cls_of(w, a);
        if (c == cls)
            return a;
        if (c == SCOPE_OMPC_IMPLICIT_TASK)
            return -1;
    }
    return -1;
}

static double secs(int64_t ns)
{
    return (double)ns * 1e-9;
}

/* The columns of one region's calls on rank index k (NULL when absent). */
struct cols {
    const int32_t *sites;
    int64_t *parallel;
    int32_t *thread;
    int64_t *count;
    int64_t n;
};

static int load_cols(scope_profile *p, int region, int k, int ev, struct cols *c)
{
    memset(c, 0, sizeof *c);
    scope__cell *cell = scope__cell_at(p, region, k);
    if (!cell)
        return 0;
    c->n = cell->n;
    int rc = scope_profile_call_sites(p, region, p->ranks[k].rank, &c->sites, &c->n);
    if (rc < 0)
        return rc;
    c->n = cell->n;
    char *path = NULL;
    int cls = scope_omp_event_at(ev)->cls;
    if (cls == SCOPE_OMPC_IMPLICIT_TASK) {
        rc = scope__cell_read_column(p, cell, SCOPE_D_OMP_PARALLEL, &c->parallel, &path);
        free(path);
        path = NULL;
        if (rc == 0)
            rc = scope__cell_read_column32(p, cell, SCOPE_D_OMP_THREAD, &c->thread, &path);
    } else if (cls == SCOPE_OMPC_WORK) {
        rc = scope__cell_read_column(p, cell, SCOPE_D_OMP_COUNT, &c->count, &path);
    }
    free(path);
    return rc;
}

/* The thread number of implicit task call `it` (-1: none, outside every
 * parallel region). */
static int32_t thread_of(const struct rank_walk *w, const struct cols *cols, int64_t it)
{
    if (it < 0)
        return -1;
    const struct cols *ic = &cols[w->calls[it].region];
    int64_t ii = w->calls[it].call_index;
    return ic->thread && ii < ic->n ? ic->thread[ii] : 0;
}

static void free_cols(struct cols *c)
{
    free(c->parallel);
    free(c->thread);
    free(c->count);
}

/* Per parallel call: what its instance adds up to. */
struct inst {
    int64_t cons;
    int32_t team;
    double max_w, sum_w;
};

static int add_region(scope_omp *o, int64_t cons, int rank, scope_omp_region **out)
{
    for (int64_t i = o->nregs - 1; i >= 0 && o->regs[i].rank == rank; i--)
        if (o->regs[i].construct == cons) {
            *out = &o->regs[i];
            return 0;
        }
    if (grow((void **)&o->regs, &o->capregs, o->nregs + 1, sizeof *o->regs) < 0)
        return SCOPE_ENOMEM;
    scope_omp_region *r = &o->regs[o->nregs++];
    memset(r, 0, sizeof *r);
    r->construct = (int32_t)cons;
    r->rank = rank;
    r->slowest_thread = -1;
    *out = r;
    return 0;
}

static int analyse_rank(scope_profile *p, scope_omp *o, int k, const int *event, int nreg)
{
    int rank = p->ranks[k].rank, rc = 0;
    int any = 0;
    for (int r = 0; r < nreg && !any; r++)
        any = event[r] && scope__cell_at(p, r, k);
    if (!any)
        return 0;
    struct cols *cols = calloc((size_t)nreg, sizeof *cols);
    scope_call_stack *cs = NULL;
    struct rank_walk w = { .event = event };
    struct inst *inst = NULL;
    struct rank_rows h = { .first = o->nrows };
    h.mask = 63;
    h.slot = calloc(h.mask + 1, sizeof *h.slot);
    if (!cols || !h.slot) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory for the OpenMP analysis");
        goto out;
    }
    int par = -1;
    for (int r = 0; r < nreg && rc == 0; r++) {
        if (!event[r])
            continue;
        if (scope_omp_event_at(event[r])->cls == SCOPE_OMPC_PARALLEL)
            par = r;
        rc = load_cols(p, r, k, event[r], &cols[r]);
    }
    if (rc < 0)
        goto out;
    rc = scope_profile_call_stack(p, rank, SCOPE_ALL_THREADS, &cs);
    if (rc < 0)
        goto out;
    w.calls = scope_call_stack_calls(cs);
    w.ncalls = scope_call_stack_count(cs);
    if ((rc = add_threads(o, rank, w.calls, w.ncalls, event)) < 0)
        goto out;
    w.it_of = malloc((size_t)(w.ncalls ? w.ncalls : 1) * sizeof *w.it_of);
    w.parts = NULL;
    int64_t capparts = 0;
    if (!w.it_of) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory for the OpenMP analysis");
        goto out;
    }
    /* the calls that collect waits: implicit tasks, work, tasks */
    for (int64_t i = 0; i < w.ncalls; i++) {
        int cls = cls_of(&w, i);
        w.it_of[i] = -1;
        if (cls != SCOPE_OMPC_IMPLICIT_TASK && cls != SCOPE_OMPC_WORK && cls != SCOPE_OMPC_TASK)
            continue;
        if (grow((void **)&w.parts, &capparts, w.nparts + 1, sizeof *w.parts) < 0) {
            rc = SCOPE_ENOMEM;
            goto out;
        }
        memset(&w.parts[w.nparts], 0, sizeof *w.parts);
        w.parts[w.nparts].call = i;
        w.it_of[i] = (int32_t)w.nparts++;
    }
    /* each wait's self time to its implicit task, and to the work or task
     * around it inside that task */
    for (int64_t i = 0; i < w.ncalls; i++) {
        const struct scope_omp_event_info *e = scope_omp_event_at(event[w.calls[i].region]);
        if (e->cls != SCOPE_OMPC_WAIT && e->cls != SCOPE_OMPC_MUTEX)
            continue;
        double s = secs(w.calls[i].self_ns);
        int64_t it = ancestor(&w, i, SCOPE_OMPC_IMPLICIT_TASK);
        int64_t wk = ancestor(&w, i, SCOPE_OMPC_WORK), tk = ancestor(&w, i, SCOPE_OMPC_TASK);
        if (it >= 0)
            w.parts[w.it_of[it]].wait[e->wait] += s;
        if (wk >= 0)
            w.parts[w.it_of[wk]].wait[e->wait] += s;
        if (tk >= 0)
            w.parts[w.it_of[tk]].wait[e->wait] += s;
        if (e->cls != SCOPE_OMPC_MUTEX)
            continue;
        /* the mutex's own construct: its waits, by the thread around it */
        const struct cols *c = &cols[w.calls[i].region];
        int64_t ci = w.calls[i].call_index;
        int32_t site = c->sites && ci < c->n ? c->sites[ci] : -1;
        int64_t cons = construct(o, w.calls[i].region, site);
        int32_t th = thread_of(&w, cols, it);
        scope_omp_row *row;
        if (cons < 0 || (rc = row_of(o, &h, rank, cons, th, &row)) < 0) {
            rc = cons < 0 ? (int)cons : rc;
            goto out;
        }
        double d = secs(w.calls[i].end_ns - w.calls[i].start_ns);
        row->lane = row->instances == 0 || row->lane == w.calls[i].thread ? w.calls[i].thread : -1;
        row->instances++;
        row->time += d;
        row->wait += s;
        row->waits[e->wait] += s;
    }
    /* the parallel regions' instances */
    int64_t npar = par >= 0 ? cols[par].n : 0;
    inst = calloc((size_t)(npar ? npar : 1), sizeof *inst);
    if (!inst) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory for the OpenMP analysis");
        goto out;
    }
    for (int64_t j = 0; j < npar; j++) {
        int32_t site = cols[par].sites ? cols[par].sites[j] : -1;
        inst[j].cons = construct(o, par, site);
        if (inst[j].cons < 0) {
            rc = (int)inst[j].cons;
            goto out;
        }
    }
    /* the parts: implicit tasks, work-sharing, tasks */
    for (int64_t q = 0; q < w.nparts; q++) {
        const scope_call *c = &w.calls[w.parts[q].call];
        int cls = cls_of(&w, w.parts[q].call);
        const struct cols *cc = &cols[c->region];
        int64_t ci = c->call_index;
        double waits = 0;
        for (int kind = 0; kind < SCOPE_OMP_WAITS; kind++)
            waits += w.parts[q].wait[kind];
        double d = secs(c->end_ns - c->start_ns);
        int64_t cons;
        int32_t th;
        if (cls == SCOPE_OMPC_IMPLICIT_TASK) {
            int64_t pj = cc->parallel && ci < cc->n ? cc->parallel[ci] : -1;
            th = cc->thread && ci < cc->n ? cc->thread[ci] : 0;
            if (pj >= 0 && pj < npar) {
                cons = inst[pj].cons;
                inst[pj].team++;
                inst[pj].sum_w += d - waits;
                if (d - waits > inst[pj].max_w)
                    inst[pj].max_w = d - waits;
            } else {
                cons = construct(o, par >= 0 ? par : c->region, -1);
            }
        } else {
            int32_t site = cc->sites && ci < cc->n ? cc->sites[ci] : -1;
            cons = construct(o, c->region, site);
            th = thread_of(&w, cols, ancestor(&w, w.parts[q].call, SCOPE_OMPC_IMPLICIT_TASK));
        }
        scope_omp_row *row;
        if (cons < 0 || (rc = row_of(o, &h, rank, cons, th, &row)) < 0) {
            rc = cons < 0 ? (int)cons : rc;
            goto out;
        }
        row->lane = row->instances == 0 || row->lane == c->thread ? c->thread : -1;
        row->instances++;
        row->time += d;
        row->work += d - waits;
        row->wait += waits;
        for (int kind = 0; kind < SCOPE_OMP_WAITS; kind++)
            row->waits[kind] += w.parts[q].wait[kind];
        if (cls == SCOPE_OMPC_WORK && cc->count && ci < cc->n && cc->count[ci] > 0)
            row->iterations += cc->count[ci];
    }
    /* one region row per construct of the rank: a parallel region's from
     * its instances (load_balance, scheduling and efficiency hold the sums
     * of w, n max w and n E until the end), the others' from their rows */
    int64_t first_reg = o->nregs;
    for (int64_t i = 0; par >= 0 && i < w.ncalls; i++) {
        if (w.calls[i].region != par || w.calls[i].call_index >= npar)
            continue;
        const struct inst *in = &inst[w.calls[i].call_index];
        scope_omp_region *r;
        if ((rc = add_region(o, in->cons, rank, &r)) < 0)
            goto out;
        double e = secs(w.calls[i].end_ns - w.calls[i].start_ns);
        r->instances++;
        if (r->instances == 1 || in->team < r->team_min)
            r->team_min = in->team;
        if (in->team > r->team_max)
            r->team_max = in->team;
        r->time += e;
        r->load_balance += in->sum_w;
        r->scheduling += (double)in->team * in->max_w;
        r->efficiency += (double)in->team * e;
    }
    for (int64_t q = h.first; q < o->nrows; q++) {
        const scope_omp_row *t = &o->rows[q];
        scope_omp_region *r;
        if ((rc = add_region(o, t->construct, rank, &r)) < 0)
            goto out;
        int cls = scope_omp_event_at(event[o->cons[t->construct].region])->cls;
        r->threads++;
        r->work += t->work;
        r->wait += t->wait;
        if (cls == SCOPE_OMPC_WORK) {
            if (t->instances > r->instances)
                r->instances = t->instances;
            if (t->time > r->time)
                r->time = t->time;
        } else if (cls != SCOPE_OMPC_PARALLEL) {
            r->instances += t->instances;
            r->time += t->time;
        }
    }
    /* per region: imbalance, slowest thread, the efficiencies */
    for (int64_t g = first_reg; g < o->nregs; g++) {
        scope_omp_region *r = &o->regs[g];
        int cls = scope_omp_event_at(event[o->cons[r->construct].region])->cls;
        double sum = 0, max = -1;
        int n = 0;
        int64_t iters = 0;
        for (int64_t q = h.first; q < o->nrows; q++) {
            const scope_omp_row *t = &o->rows[q];
            if (t->construct != r->construct)
                continue;
            double v = cls == SCOPE_OMPC_WORK ? t->time : t->work;
            sum += v;
            n++;
            if (v > max || (v == max && t->thread < r->slowest_thread)) {
                max = v;
                r->slowest_thread = t->thread;
            }
            if (t->iterations > iters)
                iters = t->iterations;
        }
        if (cls == SCOPE_OMPC_PARALLEL) {
            double sum_w = r->load_balance, sum_nmax = r->scheduling, sum_ne = r->efficiency;
            r->load_balance = sum_nmax > 0 ? sum_w / sum_nmax : 0;
            r->scheduling = sum_ne > 0 ? sum_nmax / sum_ne : 0;
            r->efficiency = r->load_balance * r->scheduling;
        } else if (cls == SCOPE_OMPC_WORK) {
            r->load_balance = max > 0 ? sum / n / max : 0;
            r->iterations = iters;
        } else {
            r->load_balance = r->scheduling = r->efficiency = 0;
            r->slowest_thread = -1;
        }
        if (cls == SCOPE_OMPC_PARALLEL || cls == SCOPE_OMPC_WORK)
            r->imbalance = n && sum > 0 ? max / (sum / n) : 0;
    }
out:
    for (int r = 0; cols && r < nreg; r++)
        free_cols(&cols[r]);
    free(cols);
    free(inst);
    free(w.it_of);
    free(w.parts);
    free(h.slot);
    scope_call_stack_free(cs);
    return rc;
}

static int cmp_region(const void *a, const void *b)
{
    const scope_omp_region *x = a, *y = b;
    int c = scope__cmp_i64(x->construct, y->construct);
    return c ? c : scope__cmp_i64(x->rank, y->rank);
}

static int cmp_thread(const void *a, const void *b)
{
    const scope_omp_thread *x = a, *y = b;
    int c = scope__cmp_i64(x->rank, y->rank);
    return c ? c : scope__cmp_i64(x->lane, y->lane);
}

static int cmp_row(const void *a, const void *b)
{
    const scope_omp_row *x = a, *y = b;
    int c = scope__cmp_i64(x->construct, y->construct);
    if (!c)
        c = scope__cmp_i64(x->rank, y->rank);
    return c ? c : scope__cmp_i64(x->thread, y->thread);
}

int scope_profile_omp(scope_profile *p, scope_omp **out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *out = NULL;
    scope_omp *o = calloc(1, sizeof *o);
    int nreg = scope_profile_region_count(p);
    int *event = calloc((size_t)(nreg > 0 ? nreg : 1), sizeof *event);
    int rc = 0;
    if (!o || !event) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory for the OpenMP analysis");
        goto fail;
    }
    int any = 0;
    for (int r = 0; r < nreg; r++) {
        event[r] = scope_omp_event_of(scope_profile_region_name(p, r));
        any |= event[r] != 0;
    }
    for (int k = 0; any && k < p->nranks && rc == 0; k++)
        rc = analyse_rank(p, o, k, event, nreg);
    if (rc < 0)
        goto fail;
    if (o->nregs > 0)
        qsort(o->regs, (size_t)o->nregs, sizeof *o->regs, cmp_region);
    if (o->nrows > 0)
        qsort(o->rows, (size_t)o->nrows, sizeof *o->rows, cmp_row);
    if (o->nthreads)
        qsort(o->threads, (size_t)o->nthreads, sizeof *o->threads, cmp_thread);
    free(event);
    *out = o;
    return 0;
fail:
    free(event);
    scope_omp_free(o);
    return rc;
}

void scope_omp_free(scope_omp *o)
{
    if (!o)
        return;
    free(o->cons);
    free(o->regs);
    free(o->rows);
    free(o->threads);
    free(o);
}

int64_t scope_omp_constructs(const scope_omp *o, const scope_omp_construct **out)
{
    *out = o ? o->cons : NULL;
    return o ? o->ncons : 0;
}

int64_t scope_omp_regions(const scope_omp *o, const scope_omp_region **out)
{
    *out = o ? o->regs : NULL;
    return o ? o->nregs : 0;
}

int64_t scope_omp_threads(const scope_omp *o, const scope_omp_thread **out)
{
    *out = o ? o->threads : NULL;
    return o ? o->nthreads : 0;
}

const char *scope_omp_thread_type_name_at(int t)
{
    return scope_omp_thread_type_name(t);
}

int64_t scope_omp_rows(const scope_omp *o, const scope_omp_row **out)
{
    *out = o ? o->rows : NULL;
    return o ? o->nrows : 0;
}

int scope_profile_omp_columns(scope_profile *p, int region, int rank, int64_t **parallel,
                              int32_t **thread, int64_t **count, int64_t *n)
{
    if (!p || !parallel || !thread || !count || !n)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *parallel = *count = NULL;
    *thread = NULL;
    *n = 0;
    scope__cell *cell;
    int rc = scope__cell_get(p, region, rank, &cell);
    if (rc < 0 || !cell)
        return rc;
    char *path = NULL;
    rc = scope__cell_read_column(p, cell, SCOPE_D_OMP_PARALLEL, parallel, &path);
    free(path);
    path = NULL;
    if (rc == 0)
        rc = scope__cell_read_column32(p, cell, SCOPE_D_OMP_THREAD, thread, &path);
    free(path);
    path = NULL;
    if (rc == 0)
        rc = scope__cell_read_column(p, cell, SCOPE_D_OMP_COUNT, count, &path);
    free(path);
    if (rc < 0) {
        free(*parallel);
        free(*thread);
        free(*count);
        *parallel = *count = NULL;
        *thread = NULL;
        return rc;
    }
    *n = cell->n;
    return 0;
}
