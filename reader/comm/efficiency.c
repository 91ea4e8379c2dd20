/*
 * efficiency.c - the POP efficiencies of a hybrid run (scope_reader_omp.h,
 * docs/analysis.md "Efficiency"): over a window of each rank (its whole
 * run, or the calls of one top-level region on its main thread), how each
 * thread spent it, and the MPI, OpenMP and hybrid load balance and
 * communication efficiencies POP's multiplicative hybrid model derives
 * from that.
 *
 * Each rank's calls are read as its call stack (every lane), and each
 * call's self time is one state of its thread: in MPI (a region the
 * vocabulary of calls knows as MPI), in the OpenMP runtime (a parallel
 * region outside its implicit task: fork and join; a synchronisation
 * region, a wait, a mutex wait), or useful (everything else: the program's
 * code, inside implicit tasks, tasks and work-sharing constructs). Time of
 * the main thread inside the window that no call covers is useful (serial
 * code); a worker thread's is idle. A call belongs to a window when it
 * starts inside it. The run's window starts when MPI_Init returns (the
 * start-up is no part of a run's parallel efficiency) and ends when
 * MPI_Finalize is called. The time MPI calls waited for another rank comes
 * from the wait states (waits.c).
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_calls.h"
#include "scope_omp.h"
#include "scope_reader_omp.h"
#include "scope_reader_comm.h"
#include "scope_reader_io.h"
#include "scope_reader_waits.h"

enum { S_USEFUL, S_MPI, S_OMP };

struct scope_efficiencies {
    scope_efficiency *rows;
    int64_t nrows;
    scope_efficiency_cpu *cpus;
    int64_t ncpus, capcpus;
};

/* What the time of region r's calls is: MPI's by what the profile says
 * the region is (its operation, when that is an MPI call) or by an MPI C name (MPI_Comm_rank is no
 * call of the vocabulary, but MPI's time), OpenMP's by its event. */
static int state_of(scope_profile *p, int r)
{
    const char *name = scope_profile_region_name(p, r);
    if (strcmp(name, SCOPE_MPI_SPAN_REGION) == 0)
        return S_USEFUL;
    /* an I/O region has an operation too (write, fwrite): MPI's only when
     * it is an MPI call (MPI_File_write_at_all_c) */
    const char *op = scope_profile_region_operation(p, r);
    if ((op && scope_call_is_mpi_c_name(op)) || scope_call_is_mpi_c_name(name))
        return S_MPI;
    switch (scope_omp_event_at(scope_omp_event_of(name))->cls) {
    case SCOPE_OMPC_PARALLEL:
    case SCOPE_OMPC_SYNC:
    case SCOPE_OMPC_WAIT:
    case SCOPE_OMPC_MUTEX: return S_OMP;
    default: return S_USEFUL;
    }
}

/* A top-level region: neither MPI's, OpenMP's, an I/O call (printf: its
 * time is useful, but it is no region of the program's) nor the span. */
static int top_level_kind(scope_profile *p, int r)
{
    const char *name = scope_profile_region_name(p, r);
    return strcmp(name, SCOPE_MPI_SPAN_REGION) != 0 && state_of(p, r) == S_USEFUL &&
           !scope_omp_event_of(name) && !scope_region_io_layer(name);
}

struct lane_acc {
    int64_t useful, mpi, omp, waiting;
};

/* One window set of one rank: the run (region -1) or a top-level region. */
struct win {
    int32_t region;
    int64_t length;         /* ns */
    struct lane_acc *lanes; /* [nlanes] */
};

struct rank_ctx {
    scope_profile *p;
    const int *state;       /* per region */
    const int *top;         /* per region: 1 top-level kind */
    const int *init;        /* per region: 1 MPI_Init or MPI_Init_thread */
    const scope_wait_call *waits; /* this rank's, sorted by (region, call) */
    int64_t nwaits;
    double *serial;         /* per rank index: the main thread's useful time
                               outside parallel regions, in the run */
    int span;               /* region index of the span, -1 none */
    int par;                /* region index of "omp parallel", -1 none */
};

static int cmp_wait(const void *a, const void *b)
{
    const scope_wait_call *x = a, *y = b;
    int c = scope__cmp_i64(x->rank, y->rank);
    if (!c)
        c = scope__cmp_i64(x->region, y->region);
    return c ? c : scope__cmp_i64(x->call, y->call);
}

/* The wait-state time of call `call` of `region`: 0 when it did not wait
 * longer than the two clocks' bound. */
static int64_t waited(const struct rank_ctx *c, int32_t region, int64_t call)
{
    int64_t lo = 0, hi = c->nwaits;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        const scope_wait_call *w = &c->waits[mid];
        if (w->region < region || (w->region == region && w->call < call))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < c->nwaits && c->waits[lo].region == region && c->waits[lo].call == call &&
        c->waits[lo].wait_ns > c->waits[lo].bound_ns)
        return c->waits[lo].wait_ns;
    return 0;
}

static int add_cpu(scope_efficiencies *e, scope_efficiency_cpu v)
{
    if (e->ncpus == e->capcpus) {
        int64_t cap = e->capcpus ? e->capcpus * 2 : 64;
        scope_efficiency_cpu *n = realloc(e->cpus, (size_t)cap * sizeof *n);
        if (!n)
            return scope__fail(SCOPE_ENOMEM, "out of memory for the efficiencies");
        e->cpus = n;
        e->capcpus = cap;
    }
    e->cpus[e->ncpus++] = v;
    return 0;
}

static double secs(int64_t ns)
{
    return (double)ns * 1e-9;
}

/* One rank: its windows, each thread's states in them, into e->cpus. */
static int one_rank(scope_efficiencies *e, struct rank_ctx *c, int k)
{
    scope_profile *p = c->p;
    int rank = p->ranks[k].rank;
    scope_call_stack *cs = NULL;
    int rc = scope_profile_call_stack(p, rank, SCOPE_ALL_THREADS, &cs);
    if (rc < 0)
        return rc;
    const scope_call *calls = scope_call_stack_calls(cs);
    int64_t n = scope_call_stack_count(cs);
    int32_t nlanes = 1, main_lane = 0;
    int64_t span_call = -1;
    for (int64_t i = 0; i < n; i++) {
        if (calls[i].thread + 1 > nlanes)
            nlanes = calls[i].thread + 1;
        if (span_call < 0 && calls[i].region == c->span) {
            span_call = i;
            main_lane = calls[i].thread;
        }
    }
    /* the windows: the run, then each top-level call on the main thread */
    int64_t lo, hi;
    if (span_call >= 0) {
        /* from MPI_Init's return: a run's start-up is not its parallel
         * part (the span's first child on the main thread is the init) */
        lo = calls[span_call].start_ns;
        hi = calls[span_call].end_ns;
        for (int64_t i = span_call + 1; i < n && calls[i].start_ns <= hi; i++)
            if (calls[i].parent == span_call && c->init[calls[i].region]) {
                lo = calls[i].end_ns;
                break;
            }
    } else if (scope_profile_rank_attr_int(p, rank, SCOPE_A_START_TIME_NS, &lo) < 0 ||
               scope_profile_rank_attr_int(p, rank, SCOPE_A_FINALIZE_TIME_NS, &hi) < 0 || hi < lo) {
        lo = n ? calls[0].start_ns : 0;
        hi = lo;
        for (int64_t i = 0; i < n; i++)
            if (calls[i].end_ns > hi)
                hi = calls[i].end_ns;
    }
    int64_t *tops = malloc((size_t)(n ? n : 1) * sizeof *tops), ntops = 0;
    int nreg = scope_profile_region_count(p);
    struct win *wins = calloc((size_t)nreg + 1, sizeof *wins);   /* [0] the run, [1 + r] */
    char *inpar = calloc((size_t)(n ? n : 1), 1);
    if (!tops || !wins || !inpar) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory for the efficiencies");
        goto out;
    }
    for (int r = 0; r <= nreg; r++) {
        wins[r].region = r - 1;
        wins[r].lanes = NULL;
    }
    wins[0].length = hi - lo;
    for (int64_t i = 0; i < n; i++) {
        const scope_call *x = &calls[i];
        int64_t par = x->parent;
        inpar[i] = par >= 0 && (inpar[par] || calls[par].region == c->par);
        if (x->thread != main_lane || !c->top[x->region] ||
            !(par == span_call || (span_call < 0 && par < 0)))
            continue;
        tops[ntops++] = i;
        wins[1 + x->region].length += x->end_ns - x->start_ns;
    }
    for (int r = 0; r <= nreg; r++) {
        if (r > 0 && wins[r].length == 0)
            continue;   /* not a top-level region of this rank */
        wins[r].lanes = calloc((size_t)nlanes, sizeof *wins[r].lanes);
        if (!wins[r].lanes) {
            rc = scope__fail(SCOPE_ENOMEM, "out of memory for the efficiencies");
            goto out;
        }
    }
    /* each call's self time into its state, in the run and in the top-level
     * window it starts in */
    int64_t serial = 0, covered = 0;
    for (int64_t i = 0; i < n; i++) {
        const scope_call *x = &calls[i];
        int s = c->state[x->region];
        int64_t self = x->self_ns, w = s == S_MPI ? waited(c, x->region, x->call_index) : 0;
        struct win *in[2] = { x->start_ns >= lo && x->start_ns <= hi ? &wins[0] : NULL, NULL };
        /* the top-level call on the main thread whose time holds the start */
        int64_t a = 0, b = ntops;
        while (a < b) {
            int64_t m = (a + b) / 2;
            if (calls[tops[m]].start_ns <= x->start_ns)
                a = m + 1;
            else
                b = m;
        }
        if (a > 0 && x->start_ns <= calls[tops[a - 1]].end_ns)
            in[1] = &wins[1 + calls[tops[a - 1]].region];
        for (int q = 0; q < 2; q++) {
            if (!in[q] || !in[q]->lanes)
                continue;
            struct lane_acc *l = &in[q]->lanes[x->thread];
            if (s == S_MPI) {
                l->mpi += self;
                l->waiting += w;
            } else if (s == S_OMP) {
                l->omp += self;
            } else {
                l->useful += self;
            }
        }
        if (in[0] && x->thread == main_lane) {
            if (x->parent < 0)
                covered += x->end_ns - x->start_ns;
            if (s == S_USEFUL && !inpar[i] && x->region != c->par)
                serial += self;
        }
    }
    /* the main thread's time no call covers is its serial code */
    int64_t bare = span_call >= 0 || covered > wins[0].length ? 0 : wins[0].length - covered;
    wins[0].lanes[main_lane].useful += bare;
    serial += bare;
    for (int r = 0; r <= nreg && rc == 0; r++) {
        if (!wins[r].lanes)
            continue;
        for (int32_t t = 0; t < nlanes && rc == 0; t++) {
            const struct lane_acc *l = &wins[r].lanes[t];
            int64_t idle = wins[r].length - l->useful - l->mpi - l->omp;
            scope_efficiency_cpu v = {
                .region = wins[r].region, .rank = rank, .thread = t, .main = t == main_lane,
                .window = secs(wins[r].length), .useful = secs(l->useful), .mpi = secs(l->mpi),
                .omp = secs(l->omp), .idle = secs(idle > 0 ? idle : 0),
                .mpi_waiting = secs(l->waiting),
            };
            rc = add_cpu(e, v);
        }
    }
    if (rc == 0)
        c->serial[k] = secs(serial);
out:
    for (int r = 0; wins && r <= nreg; r++)
        free(wins[r].lanes);
    free(wins);
    free(tops);
    free(inpar);
    scope_call_stack_free(cs);
    return rc;
}

static int cmp_cpu(const void *a, const void *b)
{
    const scope_efficiency_cpu *x = a, *y = b;
    int c = scope__cmp_i64(x->region, y->region);
    if (!c)
        c = scope__cmp_i64(x->rank, y->rank);
    return c ? c : scope__cmp_i64(x->thread, y->thread);
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

/* A window's metrics from its CPUs [q0, q1) (sorted by rank, thread). */
static void metrics(scope_efficiency *r, const scope_efficiency_cpu *cpu, int64_t q0, int64_t q1)
{
    double o_sum = 0, o_max = 0, u_sum = 0, u_max = 0;
    for (int64_t q = q0; q < q1; q++) {
        const scope_efficiency_cpu *v = &cpu[q];
        if (q == q0 || v->rank != cpu[q - 1].rank)
            r->ranks++;
        if (v->window > r->runtime)
            r->runtime = v->window;
        r->cpus++;
        u_sum += v->useful;
        if (v->useful > u_max)
            u_max = v->useful;
        r->omp_avg += v->omp;
        r->idle_avg += v->idle;
        if (!v->main)
            continue;
        double o = v->window - v->mpi;
        o_sum += o;
        if (o > o_max)
            o_max = o;
        r->mpi_avg += v->mpi;
        r->mpi_waiting_avg += v->mpi_waiting;
    }
    double T = r->runtime, nr = r->ranks ? r->ranks : 1, nc = r->cpus ? r->cpus : 1;
    r->outside_mpi_avg = o_sum / nr;
    r->outside_mpi_max = o_max;
    r->useful_avg = u_sum / nc;
    r->useful_max = u_max;
    r->mpi_avg /= nr;
    r->mpi_waiting_avg /= nr;
    r->omp_avg /= nc;
    r->idle_avg /= nc;
    r->mpi_load_balance = ratio(r->outside_mpi_avg, o_max);
    r->mpi_communication = ratio(o_max, T);
    r->mpi_parallel = ratio(r->outside_mpi_avg, T);
    r->hybrid_load_balance = ratio(r->useful_avg, u_max);
    r->hybrid_communication = ratio(u_max, T);
    r->parallel = ratio(r->useful_avg, T);
    r->omp_load_balance = ratio(r->hybrid_load_balance, r->mpi_load_balance);
    r->omp_communication = ratio(r->hybrid_communication, r->mpi_communication);
    r->omp_parallel = ratio(r->parallel, r->mpi_parallel);
}

int scope_profile_efficiency(scope_profile *p, scope_efficiencies **out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *out = NULL;
    int nreg = scope_profile_region_count(p), rc = 0;
    scope_efficiencies *e = calloc(1, sizeof *e);
    int *state = calloc((size_t)nreg + 1, sizeof *state), *top = calloc((size_t)nreg + 1, sizeof *top);
    int *init = calloc((size_t)nreg + 1, sizeof *init);
    double *serial = calloc((size_t)p->nranks + 1, sizeof *serial);
    scope_wait_call *wc = NULL;
    int64_t nwc = 0;
    scope_waits *w = NULL;
    if (!e || !state || !top || !init || !serial) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory for the efficiencies");
        goto out;
    }
    struct rank_ctx c = { .p = p, .state = state, .top = top, .init = init, .serial = serial,
                          .span = -1, .par = -1 };
    for (int r = 0; r < nreg; r++) {
        const char *name = scope_profile_region_name(p, r);
        state[r] = state_of(p, r);
        top[r] = top_level_kind(p, r);
        int id = scope_call_id_of(name);
        init[r] = id == SCOPE_CALL_MPI_Init || id == SCOPE_CALL_MPI_Init_thread;
        if (strcmp(name, SCOPE_MPI_SPAN_REGION) == 0)
            c.span = r;
        if (scope_omp_event_of(name) == SCOPE_OMP_PARALLEL)
            c.par = r;
    }
    /* the wait states, when the run recorded what MPI calls moved */
    if (scope_profile_has_moved(p)) {
        if ((rc = scope_profile_waits(p, SCOPE_WAITS_NO_MESSAGES, &w)) < 0)
            goto out;
        const scope_wait_call *all;
        nwc = scope_waits_calls(w, &all);
        wc = malloc((size_t)(nwc ? nwc : 1) * sizeof *wc);
        if (!wc) {
            rc = scope__fail(SCOPE_ENOMEM, "out of memory for the efficiencies");
            goto out;
        }
        memcpy(wc, all, (size_t)nwc * sizeof *wc);
        qsort(wc, (size_t)nwc, sizeof *wc, cmp_wait);
    }
    int64_t at = 0;
    for (int k = 0; k < p->nranks && rc == 0; k++) {
        int rank = p->ranks[k].rank;
        while (at < nwc && wc[at].rank < rank)
            at++;
        int64_t end = at;
        while (end < nwc && wc[end].rank == rank)
            end++;
        c.waits = wc + at;
        c.nwaits = end - at;
        rc = one_rank(e, &c, k);
        at = end;
    }
    if (rc < 0)
        goto out;
    qsort(e->cpus, (size_t)e->ncpus, sizeof *e->cpus, cmp_cpu);
    e->rows = calloc((size_t)nreg + 1, sizeof *e->rows);
    if (!e->rows) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory for the efficiencies");
        goto out;
    }
    for (int64_t q0 = 0, q1; q0 < e->ncpus; q0 = q1) {
        for (q1 = q0; q1 < e->ncpus && e->cpus[q1].region == e->cpus[q0].region; q1++)
            ;
        scope_efficiency *r = &e->rows[e->nrows++];
        r->region = e->cpus[q0].region;
        metrics(r, e->cpus, q0, q1);
        if (r->region == -1) {
            for (int k = 0; k < p->nranks; k++)
                r->serial_avg += serial[k];
            r->serial_avg /= r->ranks ? r->ranks : 1;
        }
    }
out:
    scope_waits_free(w);
    free(wc);
    free(state);
    free(top);
    free(init);
    free(serial);
    if (rc < 0) {
        scope_efficiencies_free(e);
        return rc;
    }
    *out = e;
    return 0;
}

void scope_efficiencies_free(scope_efficiencies *e)
{
    if (!e)
        return;
    free(e->rows);
    free(e->cpus);
    free(e);
}

int64_t scope_efficiencies_rows(const scope_efficiencies *e, const scope_efficiency **out)
{
    *out = e ? e->rows : NULL;
    return e ? e->nrows : 0;
}

int64_t scope_efficiencies_cpus(const scope_efficiencies *e, const scope_efficiency_cpu **out)
{
    *out = e ? e->cpus : NULL;
    return e ? e->ncpus : 0;
}
