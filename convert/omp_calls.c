/*
 * omp_calls.c - the calls of OpenMP regions (kind "omp", format/
 * scope_omp.h) into their columns: what the aux of their begin and end
 * records carries (format/journal.h) becomes omp_parallel and omp_thread
 * (an implicit task: its parallel region's call index, its thread number),
 * omp_count (a work-sharing construct's iterations) and a parallel
 * region's callsite_ids (docs/format.md "OpenMP").
 *
 * A parallel region's records name its instance (a per-process number);
 * its implicit tasks name the same instance, on whatever thread they ran.
 * Pass 2 merges the threads in time order, so a parallel region's begin
 * comes before the implicit tasks it starts: a ring of the latest
 * instances gives each task its region's call index at its begin, and
 * the region's end time once it ended.
 *
 * That end time fixes what LLVM's runtime reports late: a worker's
 * implicit task and its implicit barrier end when the worker is released
 * for the next parallel region, and the tool records them then
 * (preload/omp/): an OpenMP end on a thread whose innermost implicit task
 * belongs to a region that ended earlier is put at the region's end
 * (scope__conv_omp_clip_end), merged in time order after it. The workers
 * of the last region before the process stopped recording never reported
 * theirs: they are closed at their region's end, not counted as
 * unterminated, since the region's end is when they ended.
 *
 * Apart from calls.c because only profiles of OpenMP programs have them;
 * the columns follow calls.c's windows as call_data.c's do.
 */
#include <hdf5.h>
#include <stdint.h>
#include <stdlib.h>

#include "conv.h"
#include "h5_util.h"
#include "journal.h"
#include "scope_error.h"
#include "scope_format.h"
#include "scope_omp.h"

#define RING 4096u  /* the latest parallel regions' instances */

enum { O_PARALLEL, O_THREAD, O_COUNT, N_COLS };

static const char *const col_name[N_COLS] = { SCOPE_D_OMP_PARALLEL, SCOPE_D_OMP_THREAD,
                                              SCOPE_D_OMP_COUNT };

struct region_omp {
    int cls;                    /* enum scope_omp_class */
    int64_t *parallel;          /* windows: implicit tasks */
    int32_t *thread;
    int64_t *count;             /* work-sharing constructs */
    hid_t ds[N_COLS];
};

struct ring_entry {
    uint32_t instance;          /* 0: free */
    uint64_t slot;              /* the parallel region's call index */
    int64_t end_ns;             /* INT64_MIN until it ended */
};

struct conv_omp {
    struct ring_entry ring[RING];
    int32_t parallel_region;    /* region id of "omp parallel", -1 none */
};

static int has_col(int cls, int k)
{
    return cls == SCOPE_OMPC_IMPLICIT_TASK ? k != O_COUNT : cls == SCOPE_OMPC_WORK ? k == O_COUNT : 0;
}

static int is_i64(int k)
{
    return k != O_THREAD;
}

int scope__conv_omp_classify(struct conv *c)
{
    for (uint32_t i = 0; i < c->jr.n_regions; i++) {
        const struct scope_jr_region *r = &c->jr.regions[i];
        if (!r->defined || r->kind != SCOPE_KIND_OMP)
            continue;
        int ev = scope_omp_event_of(r->name);
        if (!ev)
            continue;
        struct region_omp *m = calloc(1, sizeof *m);
        if (!m)
            return SCOPE_ENOMEM;
        m->cls = scope_omp_event_at(ev)->cls;
        for (int k = 0; k < N_COLS; k++)
            m->ds[k] = H5I_INVALID_HID;
        c->reg[i].omp = m;
        if (!c->omp) {
            c->omp = calloc(1, sizeof *c->omp);
            if (!c->omp)
                return SCOPE_ENOMEM;
            c->omp->parallel_region = -1;
        }
        if (m->cls == SCOPE_OMPC_PARALLEL)
            c->omp->parallel_region = (int32_t)i;
    }
    return 0;
}

int scope__conv_omp_site_aux(const struct region_out *o)
{
    /* a parallel region's begin names its instance (its site comes with
     * its end), an implicit task's its region's instance */
    return !o->omp || (o->omp->cls != SCOPE_OMPC_PARALLEL && o->omp->cls != SCOPE_OMPC_IMPLICIT_TASK);
}

int scope__conv_omp_carries_site(const struct region_out *o)
{
    return o->omp && o->omp->cls == SCOPE_OMPC_PARALLEL;
}

int scope__conv_omp_begin(struct conv *c, struct region_out *o, uint64_t i, uint32_t aux,
                          uint32_t *frame_tag)
{
    struct region_omp *m = o->omp;
    *frame_tag = 0;
    if (!m)
        return 0;
    if (m->cls == SCOPE_OMPC_PARALLEL) {
        *frame_tag = aux;
        if (aux)
            c->omp->ring[aux % RING] = (struct ring_entry){ aux, o->next, INT64_MIN };
        return 0;
    }
    if (m->cls != SCOPE_OMPC_IMPLICIT_TASK && m->cls != SCOPE_OMPC_WORK)
        return 0;
    if (!m->parallel && !m->count) {
        if (m->cls == SCOPE_OMPC_WORK) {
            m->count = malloc(o->win * sizeof *m->count);
        } else {
            m->parallel = malloc(o->win * sizeof *m->parallel);
            m->thread = malloc(o->win * sizeof *m->thread);
        }
        if ((m->cls == SCOPE_OMPC_WORK && !m->count) ||
            (m->cls == SCOPE_OMPC_IMPLICIT_TASK && (!m->parallel || !m->thread)))
            return SCOPE_ENOMEM;
    }
    if (m->cls == SCOPE_OMPC_WORK) {
        m->count[i] = -1;   /* until its end says */
        return 0;
    }
    uint32_t low, thread;
    scope_omp_task_unaux(aux, &low, &thread);
    const struct ring_entry *e = &c->omp->ring[low % RING];
    int found = low && e->instance && (e->instance & SCOPE_OMP_INSTANCE_MASK) == low;
    m->parallel[i] = found ? (int64_t)e->slot : -1;
    m->thread[i] = (int32_t)thread;
    *frame_tag = low;
    return 0;
}

/* Writes value `v` of column k at the call `slot` of region o: into its
 * window, or into the dataset when the window was written. */
static int put(struct conv *c, struct region_out *o, int k, uint64_t slot, const void *v)
{
    (void)c;
    struct region_omp *m = o->omp;
    if (slot >= o->base) {
        uint64_t i = slot - o->base;
        if (k == O_COUNT)
            m->count[i] = *(const int64_t *)v;
        return 0;
    }
    return scope__h5_write_slice(m->ds[k], H5T_NATIVE_INT64, v, slot, 1) < 0 ? SCOPE_EHDF5 : 0;
}

int scope__conv_omp_end(struct conv *c, struct frame f, uint32_t aux, int64_t ns)
{
    struct region_out *o = &c->reg[f.region];
    struct region_omp *m = o->omp;
    if (!m)
        return 0;
    if (m->cls == SCOPE_OMPC_WORK && m->count) {
        int64_t n = scope_omp_end_value(aux);
        return put(c, o, O_COUNT, f.slot, &n);
    }
    if (m->cls != SCOPE_OMPC_PARALLEL)
        return 0;
    struct ring_entry *e = &c->omp->ring[f.tag % RING];
    if (f.tag && e->instance == f.tag && e->slot == f.slot)
        e->end_ns = ns;
    uint32_t site = scope_omp_end_value(aux);
    int32_t id = site && site <= c->jr.n_sites && c->jr.sites[site - 1].depth ? (int32_t)(site - 1)
                                                                             : -1;
    if (!o->has_sites)
        return 0;
    if (f.slot >= o->base) {
        o->site[f.slot - o->base] = id;
        return 0;
    }
    return scope__h5_write_slice(o->ds_site, H5T_NATIVE_INT32, &id, f.slot, 1) < 0 ? SCOPE_EHDF5 : 0;
}

int64_t scope__conv_omp_task_end(const struct conv *c, struct frame f)
{
    const struct region_omp *m = c->reg[f.region].omp;
    if (!m || m->cls != SCOPE_OMPC_IMPLICIT_TASK || !f.tag)
        return INT64_MIN;
    const struct ring_entry *e = &c->omp->ring[f.tag % RING];
    return e->instance && (e->instance & SCOPE_OMP_INSTANCE_MASK) == f.tag ? e->end_ns : INT64_MIN;
}

int64_t scope__conv_omp_clip_end(const struct conv *c, const struct thread_in *th, int64_t ns)
{
    for (size_t k = th->depth; k > 0; k--) {
        int64_t at = scope__conv_omp_task_end(c, th->stack[k - 1]);
        if (at != INT64_MIN)
            return at < ns ? at : ns;
    }
    return ns;
}

int scope__conv_omp_datasets(struct region_out *o, hid_t g)
{
    struct region_omp *m = o->omp;
    if (!m || (!m->parallel && !m->count))
        return 0;
    for (int k = 0; k < N_COLS; k++) {
        if (!has_col(m->cls, k))
            continue;
        m->ds[k] = scope__h5_make_dataset(g, col_name[k], is_i64(k) ? H5T_STD_I64LE : H5T_STD_I32LE,
                                          o->count);
        if (m->ds[k] < 0)
            return SCOPE_EHDF5;
    }
    return 0;
}

int scope__conv_omp_flush(struct region_out *o, uint64_t n)
{
    struct region_omp *m = o->omp;
    if (!m || (!m->parallel && !m->count))
        return 0;
    const void *col[N_COLS] = { m->parallel, m->thread, m->count };
    for (int k = 0; k < N_COLS; k++)
        if (has_col(m->cls, k) &&
            scope__h5_write_slice(m->ds[k], is_i64(k) ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32, col[k],
                                  o->base, n) < 0)
            return SCOPE_EHDF5;
    return 0;
}

void scope__conv_omp_close(struct region_out *o)
{
    struct region_omp *m = o->omp;
    if (!m)
        return;
    scope__h5_close_datasets(m->ds, N_COLS);
}

void scope__conv_omp_free(struct conv *c)
{
    for (uint32_t i = 0; c->reg && i < c->jr.n_regions; i++) {
        struct region_omp *m = c->reg[i].omp;
        if (!m)
            continue;
        free(m->parallel);
        free(m->thread);
        free(m->count);
        free(m);
        c->reg[i].omp = NULL;
    }
    free(c->omp);
    c->omp = NULL;
}
