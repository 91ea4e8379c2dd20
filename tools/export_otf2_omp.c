/*
 * export_otf2_omp.c - the OpenMP part of `scope export --to otf2`: the
 * regions the OMPT tool recorded (format/scope_omp.h) become regions of
 * OTF2's OpenMP paradigm with their roles (parallel, implicit task, loop,
 * barrier, critical, task, ...), and their calls carry the fork-join
 * records Vampir and Scalasca read: ThreadFork and ThreadJoin around a
 * parallel region on the thread that started it (the team's size), and
 * ThreadTeamBegin and ThreadTeamEnd around each thread's implicit task,
 * naming the team as a communicator of OpenMP locations.
 *
 * A team is the set of a rank's lanes whose implicit tasks name one
 * parallel region (their omp_parallel column); teams with the same lanes
 * are one communicator. They are numbered after the run's MPI
 * communicators (the reader's, known before the first event), and their
 * groups after MPI's, so that every definition stays dense and names only
 * definitions before it; they go after the events and after MPI's
 * (export_otf2_defs.c).
 */
#ifdef SCOPE_HAVE_OTF2

#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "otf2_archive.h"
#include "scope_omp.h"
#include "scope_reader_omp.h"

typedef struct team {
    int32_t rank;
    int32_t n;
    int32_t *lanes;         /* ascending */
} team;

struct otf2_omp {
    team *teams;
    int nteams, capteams;
    /* the rank being written */
    int32_t *par_team;      /* per parallel call: its team, -1 none */
    int32_t *par_size;      /* per parallel call: its team's size */
    int64_t npar;
    int64_t *it_par;        /* per implicit task: its parallel call, -1 */
    int64_t nit;
    int par_region, it_region;
};

/* The OTF2 role of each OpenMP event kind; 0 (OTF2_REGION_ROLE_UNKNOWN):
 * none of its own. */
static const OTF2_RegionRole role_of[SCOPE_OMP_EVENTS] = {
    [SCOPE_OMP_PARALLEL] = OTF2_REGION_ROLE_PARALLEL,
    /* a thread's part: OpenMP's implicit task */
    [SCOPE_OMP_IMPLICIT_TASK] = OTF2_REGION_ROLE_TASK,
    [SCOPE_OMP_TASK] = OTF2_REGION_ROLE_TASK,
    [SCOPE_OMP_LOOP] = OTF2_REGION_ROLE_LOOP,
    [SCOPE_OMP_DISTRIBUTE] = OTF2_REGION_ROLE_LOOP,
    [SCOPE_OMP_TASKLOOP] = OTF2_REGION_ROLE_LOOP,
    [SCOPE_OMP_SECTIONS] = OTF2_REGION_ROLE_SECTIONS,
    [SCOPE_OMP_SINGLE] = OTF2_REGION_ROLE_SINGLE,
    [SCOPE_OMP_WORKSHARE] = OTF2_REGION_ROLE_WORKSHARE,
    [SCOPE_OMP_IMPLICIT_BARRIER] = OTF2_REGION_ROLE_IMPLICIT_BARRIER,
    [SCOPE_OMP_IMPLICIT_BARRIER_WAIT] = OTF2_REGION_ROLE_IMPLICIT_BARRIER,
    [SCOPE_OMP_BARRIER] = OTF2_REGION_ROLE_BARRIER,
    [SCOPE_OMP_BARRIER_WAIT] = OTF2_REGION_ROLE_BARRIER,
    [SCOPE_OMP_TASKWAIT] = OTF2_REGION_ROLE_TASK_WAIT,
    [SCOPE_OMP_TASKWAIT_WAIT] = OTF2_REGION_ROLE_TASK_WAIT,
    [SCOPE_OMP_TASKGROUP] = OTF2_REGION_ROLE_TASK_WAIT,
    [SCOPE_OMP_TASKGROUP_WAIT] = OTF2_REGION_ROLE_TASK_WAIT,
    [SCOPE_OMP_CRITICAL_WAIT] = OTF2_REGION_ROLE_CRITICAL,
    [SCOPE_OMP_ORDERED_WAIT] = OTF2_REGION_ROLE_ORDERED,
    [SCOPE_OMP_ATOMIC_WAIT] = OTF2_REGION_ROLE_ATOMIC,
    /* marks */
    [SCOPE_OMP_THREAD_BEGIN_INITIAL] = OTF2_REGION_ROLE_ARTIFICIAL,
    [SCOPE_OMP_THREAD_BEGIN_WORKER] = OTF2_REGION_ROLE_ARTIFICIAL,
    [SCOPE_OMP_THREAD_BEGIN_OTHER] = OTF2_REGION_ROLE_ARTIFICIAL,
    [SCOPE_OMP_THREAD_END] = OTF2_REGION_ROLE_ARTIFICIAL,
};

int scope__otf2_omp_classify(const char *name, region_info *ri)
{
    int ev = scope_omp_event_of(name);
    if (!ev)
        return 0;
    memset(ri, 0, sizeof *ri);
    ri->kind = MK_NONE;
    ri->paradigm = OTF2_PARADIGM_OPENMP;
    ri->omp = scope_omp_event_at(ev)->cls;
    /* unlisted (reductions, lock waits): a plain function */
    ri->role = role_of[ev] ? role_of[ev] : OTF2_REGION_ROLE_FUNCTION;
    return 1;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The team of `rank` with these lanes (sorted), added when new; -1 when
 * out of memory. */
static int32_t team_of(struct otf2_omp *o, int32_t rank, const int32_t *lanes, int32_t n)
{
    for (int i = 0; i < o->nteams; i++)
        if (o->teams[i].rank == rank && o->teams[i].n == n &&
            !memcmp(o->teams[i].lanes, lanes, (size_t)n * sizeof *lanes))
            return i;
    if (o->nteams == o->capteams) {
        int nc = o->capteams ? 2 * o->capteams : 16;
        void *q = realloc(o->teams, (size_t)nc * sizeof *o->teams);
        if (!q)
            return -1;
        o->teams = q;
        o->capteams = nc;
    }
    team *t = &o->teams[o->nteams];
    t->lanes = malloc((size_t)(n ? n : 1) * sizeof *lanes);
    if (!t->lanes)
        return -1;
    memcpy(t->lanes, lanes, (size_t)n * sizeof *lanes);
    t->rank = rank;
    t->n = n;
    return o->nteams++;
}

/* The first team's comm: after the run's MPI communicators. */
static uint32_t team_base(const otf2x *x)
{
    return x->has_moved ? (uint32_t)x->nruncomms : 0;
}

int scope__otf2_omp_rank(otf2x *x, const scope_call *c, int64_t n)
{
    struct otf2_omp *o = x->omp;
    if (!o) {
        o = x->omp = calloc(1, sizeof *o);
        if (!o)
            return scope__otf2_oom();
        o->par_region = o->it_region = -1;
        for (int r = 0; r < x->nregions; r++) {
            int ev = scope_omp_event_of(scope_profile_region_name(x->p, r));
            if (ev == SCOPE_OMP_PARALLEL)
                o->par_region = r;
            else if (ev == SCOPE_OMP_IMPLICIT_TASK)
                o->it_region = r;
        }
    }
    free(o->par_team);
    free(o->par_size);
    free(o->it_par);
    o->par_team = o->par_size = NULL;
    o->it_par = NULL;
    o->npar = o->nit = 0;
    if (o->par_region < 0 || o->it_region < 0)
        return 0;
    int64_t *par = NULL, *count = NULL;
    int32_t *thread = NULL;
    if (scope_profile_omp_columns(x->p, o->it_region, x->rank, &par, &thread, &count, &o->nit) < 0)
        return scope__fail_msg(scope_reader_errmsg()), -1;
    free(thread);
    free(count);
    o->it_par = par;
    if (!par)
        o->nit = 0;
    for (int64_t i = 0; i < n; i++)
        if (c[i].region == o->par_region && c[i].call_index + 1 > o->npar)
            o->npar = c[i].call_index + 1;
    o->par_team = malloc((size_t)(o->npar ? o->npar : 1) * sizeof *o->par_team);
    o->par_size = calloc((size_t)(o->npar ? o->npar : 1), sizeof *o->par_size);
    int32_t *lanes = malloc((size_t)(o->nit ? o->nit : 1) * sizeof *lanes);
    int64_t *first = malloc((size_t)(o->npar ? o->npar : 1) * sizeof *first);
    int64_t *next = malloc((size_t)(o->nit ? o->nit : 1) * sizeof *next);
    int32_t *lane_of = malloc((size_t)(o->nit ? o->nit : 1) * sizeof *lane_of);
    int rc = 0;
    if (!o->par_team || !o->par_size || !lanes || !first || !next || !lane_of) {
        rc = scope__otf2_oom();
        goto out;
    }
    for (int64_t i = 0; i < o->nit; i++)
        lane_of[i] = -1;
    for (int64_t i = 0; i < n; i++)
        if (c[i].region == o->it_region && c[i].call_index < o->nit)
            lane_of[c[i].call_index] = c[i].thread;
    /* each parallel call's implicit tasks, as linked lists */
    for (int64_t j = 0; j < o->npar; j++)
        first[j] = -1;
    for (int64_t i = o->nit - 1; i >= 0; i--) {
        int64_t j = par[i];
        if (j < 0 || j >= o->npar || lane_of[i] < 0)
            continue;
        next[i] = first[j];
        first[j] = i;
    }
    for (int64_t j = 0; j < o->npar && rc == 0; j++) {
        int32_t k = 0;
        for (int64_t i = first[j]; i >= 0; i = next[i])
            lanes[k++] = lane_of[i];
        o->par_size[j] = k;
        o->par_team[j] = -1;
        if (!k)
            continue;
        qsort(lanes, (size_t)k, sizeof *lanes, cmp_i32);
        int32_t t = team_of(o, x->rank, lanes, k);
        if (t < 0)
            rc = scope__otf2_oom();
        o->par_team[j] = t;
    }
out:
    free(lanes);
    free(first);
    free(next);
    free(lane_of);
    return rc;
}

/* The team of the implicit task call c, -1 none. */
static int32_t task_team(const struct otf2_omp *o, const scope_call *c)
{
    if (c->call_index >= o->nit)
        return -1;
    int64_t j = o->it_par[c->call_index];
    return j >= 0 && j < o->npar ? o->par_team[j] : -1;
}

int scope__otf2_omp_enter(otf2x *x, const scope_call *c, uint64_t t)
{
    const struct otf2_omp *o = x->omp;
    if (!o)
        return 0;
    if (c->region == o->par_region && c->call_index < o->npar)
        return scope__otf2_event(x, "ThreadFork", OTF2_EvtWriter_ThreadFork(x->w, NULL, t,
                                 OTF2_PARADIGM_OPENMP, (uint32_t)o->par_size[c->call_index]));
    int32_t team = c->region == o->it_region ? task_team(o, c) : -1;
    if (team >= 0)
        return scope__otf2_event(x, "ThreadTeamBegin", OTF2_EvtWriter_ThreadTeamBegin(x->w,
                                 NULL, t, team_base(x) + (uint32_t)team));
    return 0;
}

int scope__otf2_omp_leave(otf2x *x, const scope_call *c, uint64_t t)
{
    const struct otf2_omp *o = x->omp;
    if (!o)
        return 0;
    if (c->region == o->par_region && c->call_index < o->npar)
        return scope__otf2_event(x, "ThreadJoin", OTF2_EvtWriter_ThreadJoin(x->w, NULL, t,
                                 OTF2_PARADIGM_OPENMP));
    int32_t team = c->region == o->it_region ? task_team(o, c) : -1;
    if (team >= 0)
        return scope__otf2_event(x, "ThreadTeamEnd", OTF2_EvtWriter_ThreadTeamEnd(x->w, NULL, t,
                                 team_base(x) + (uint32_t)team));
    return 0;
}

int scope__otf2_omp_paradigm(otf2x *x, OTF2_GlobalDefWriter *g)
{
    int any = 0;
    for (int r = 0; r < x->nregions && !any; r++)
        any = x->ri[r].paradigm == OTF2_PARADIGM_OPENMP;
    uint32_t s;
    if (!any)
        return 0;
    if (scope__otf2_string(x, g, "OpenMP", &s) < 0)
        return -1;
    return scope__otf2_ok(x, "WriteParadigm", OTF2_GlobalDefWriter_WriteParadigm(g,
        OTF2_PARADIGM_OPENMP, s, OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN));
}

/* The OpenMP locations group (every lane in a team, in the order met: the
 * group after MPI's), then each team's group (its lanes as indices into
 * it) and its communicator. */
int scope__otf2_omp_defs(otf2x *x, OTF2_GlobalDefWriter *g, uint32_t s_empty)
{
    const struct otf2_omp *o = x->omp;
    if (!o || !o->nteams)
        return 0;
    size_t cap = 0, nloc = 0;
    for (int i = 0; i < o->nteams; i++)
        cap += (size_t)o->teams[i].n;
    uint64_t *locs = malloc(cap * sizeof *locs), *m = malloc(cap * sizeof *m);
    int rc = -1;
    if (!locs || !m) {
        scope__otf2_oom();
        goto out;
    }
    for (int i = 0; i < o->nteams; i++)
        for (int32_t k = 0; k < o->teams[i].n; k++) {
            uint64_t ref = scope__otf2_loc_ref(o->teams[i].rank, o->teams[i].lanes[k]);
            size_t q = 0;
            while (q < nloc && locs[q] != ref)
                q++;
            if (q == nloc)
                locs[nloc++] = ref;
        }
    /* MPI's groups: 0 its locations, c + 1 communicator c's */
    uint32_t group = x->has_moved ? (uint32_t)x->nruncomms + 1 : 0;
    if (scope__otf2_ok(x, "WriteGroup", OTF2_GlobalDefWriter_WriteGroup(g, group++, s_empty,
            OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE,
            (uint32_t)nloc, locs)) < 0)
        goto out;
    for (int i = 0; i < o->nteams; i++, group++) {
        const team *t = &o->teams[i];
        for (int32_t k = 0; k < t->n; k++) {
            uint64_t ref = scope__otf2_loc_ref(t->rank, t->lanes[k]);
            size_t q = 0;
            while (locs[q] != ref)
                q++;
            m[k] = q;
        }
        char name[64];
        uint32_t s;
        snprintf(name, sizeof name, "OpenMP team of rank %d", t->rank);
        if (scope__otf2_string(x, g, name, &s) < 0 ||
            scope__otf2_ok(x, "WriteGroup", OTF2_GlobalDefWriter_WriteGroup(g, group, s_empty,
                OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE,
                (uint32_t)t->n, m)) < 0 ||
            scope__otf2_ok(x, "WriteComm", OTF2_GlobalDefWriter_WriteComm(g,
                team_base(x) + (uint32_t)i, s, group, OTF2_UNDEFINED_COMM,
                OTF2_COMM_FLAG_NONE)) < 0)
            goto out;
    }
    rc = 0;
out:
    free(locs);
    free(m);
    return rc;
}

void scope__otf2_omp_free(otf2x *x)
{
    struct otf2_omp *o = x->omp;
    if (!o)
        return;
    for (int i = 0; i < o->nteams; i++)
        free(o->teams[i].lanes);
    free(o->teams);
    free(o->par_team);
    free(o->par_size);
    free(o->it_par);
    free(o);
    x->omp = NULL;
}

#endif /* SCOPE_HAVE_OTF2 */
