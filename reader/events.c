/*
 * events.c - the long-form view of a run: one record per call, in region
 * order, then rank, then call order, with times shifted to the origin the
 * caller chose (the tutorial's `events()`; `scope events` and the exports).
 *
 * An iterator rather than an array, so a run with more events than memory
 * can still be listed: it holds one (region, rank) cell's arrays at a
 * time. The optional call ids need each rank's call stack, whose call
 * order is not the events' order; those are built up front and only the
 * two id arrays per rank are kept.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

struct scope_events {
    scope_profile *p;
    int *regions;           /* selected regions, in region order */
    int nregions;
    int *ranks;             /* selected rank indices, ascending */
    int nranks;
    int64_t shift;          /* subtracted from every time */
    int64_t total;
    int ri, ki;             /* the cell being read: regions[ri], ranks[ki] */
    int64_t pos;            /* next call in it */
    scope__cell *cur;       /* NULL: move to the next cell first */
    int64_t *s, *e;
    int32_t *t;
    int want_sites;         /* the query asked for call sites */
    /* Call ids, per selected rank position: off[r] = the first slot of
     * region r in ids/pids, whose slot off[r] + call_index holds the call's
     * index in the rank's stack and its parent's. */
    int64_t **off, **ids, **pids;
};

static void drop_cell(scope_events *it)
{
    if (it->cur) {
        if (it->s != it->cur->starts) {
            free(it->s);
            free(it->e);
        }
        if (it->t != it->cur->tids)
            free(it->t);
    }
    it->cur = NULL;
    it->s = it->e = NULL;
    it->t = NULL;
}

void scope_events_close(scope_events *it)
{
    if (!it)
        return;
    drop_cell(it);
    for (int i = 0; it->off && i < it->nranks; i++) {
        free(it->off[i]);
        free(it->ids[i]);
        free(it->pids[i]);
    }
    free(it->off);
    free(it->ids);
    free(it->pids);
    free(it->regions);
    free(it->ranks);
    free(it);
}

int64_t scope_events_count(const scope_events *it)
{
    return it ? it->total : 0;
}

/* The call ids of selected rank position i, from its call stack. */
static int build_ids(scope_events *it, int i)
{
    scope_profile *p = it->p;
    int k = it->ranks[i];
    int64_t *off = calloc((size_t)p->nregions + 1, sizeof *off);
    it->off[i] = off;
    if (!off)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    for (int r = 0; r < p->nregions; r++) {
        scope__cell *c = scope__cell_at(p, r, k);
        off[r + 1] = off[r] + (c ? c->n : 0);
    }
    int64_t n = off[p->nregions];
    it->ids[i] = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    it->pids[i] = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!it->ids[i] || !it->pids[i])
        return scope__fail(SCOPE_ENOMEM, "out of memory for %lld call ids",
                           (long long)n);
    scope_call_stack *cs;
    int rc = scope_profile_call_stack(p, p->ranks[k].rank, SCOPE_ALL_THREADS,
                                      &cs);
    if (rc < 0)
        return rc;
    const scope_call *calls = scope_call_stack_calls(cs);
    for (int64_t j = 0; j < scope_call_stack_count(cs); j++) {
        int64_t slot = off[calls[j].region] + calls[j].call_index;
        it->ids[i][slot] = j;
        it->pids[i][slot] = calls[j].parent;
    }
    scope_call_stack_free(cs);
    return 0;
}

int scope__query_shift(scope_profile *p, const scope_event_query *q, int64_t *shift)
{
    switch (q->time_mode) {
    case SCOPE_TIME_RELATIVE: {
        int rc = scope_profile_time_origin_ns(p, shift);
        if (rc == SCOPE_ENOTFOUND) { /* no calls at all: nothing to shift */
            *shift = 0;
            return 0;
        }
        return rc;
    }
    case SCOPE_TIME_ABSOLUTE:
        return 0;
    case SCOPE_TIME_ORIGIN:
        *shift = q->origin_ns;
        return 0;
    default:
        return scope__fail(SCOPE_EINVAL, "unknown time mode %d", q->time_mode);
    }
}

int scope__query_ranks(scope_profile *p, const scope_event_query *q, int **ranks, int *nranks)
{
    int n = q->ranks ? q->nranks : p->nranks;
    int *r = *ranks = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof *r);
    if (!r)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        int k = q->ranks ? scope__rank_index(p, q->ranks[i]) : i;
        if (k < 0)
            return k;
        r[i] = k;
    }
    if (n > 1)
        qsort(r, (size_t)n, sizeof *r, scope__cmp_int);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || r[i] != r[i - 1])
            r[m++] = r[i];
    *nranks = m;
    return 0;
}

int scope_profile_events_open(scope_profile *p, const scope_event_query *q,
                              scope_events **out)
{
    static const scope_event_query all;
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *out = NULL;
    if (!q)
        q = &all;
    if (q->nranks < 0 || (q->nranks > 0 && !q->ranks))
        return scope__fail(SCOPE_EINVAL, "bad rank list");
    scope_events *it = calloc(1, sizeof *it);
    if (!it)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    it->p = p;
    it->want_sites = q->call_sites != 0;
    int rc = scope__query_shift(p, q, &it->shift);
    if (rc < 0)
        goto fail_open;
    if (!(it->regions = malloc(((size_t)p->nregions + 1) * sizeof(int)))) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
        goto fail_open;
    }
    if ((rc = scope_profile_select_regions(p, q->include, q->ninclude,
                                           q->exclude, q->nexclude,
                                           it->regions)) < 0)
        goto fail_open;
    it->nregions = rc;
    if ((rc = scope__query_ranks(p, q, &it->ranks, &it->nranks)) < 0)
        goto fail_open;
    for (int i = 0; i < it->nregions; i++)
        for (int j = 0; j < it->nranks; j++) {
            scope__cell *c = scope__cell_at(p, it->regions[i], it->ranks[j]);
            it->total += c ? c->n : 0;
        }
    if (q->call_ids) {
        size_t m = (size_t)it->nranks + 1;
        it->off = calloc(m, sizeof *it->off);
        it->ids = calloc(m, sizeof *it->ids);
        it->pids = calloc(m, sizeof *it->pids);
        if (!it->off || !it->ids || !it->pids) {
            rc = scope__fail(SCOPE_ENOMEM, "out of memory");
            goto fail_open;
        }
        for (int i = 0; i < it->nranks && rc >= 0; i++)
            rc = build_ids(it, i);
        if (rc < 0)
            goto fail_open;
    }
    *out = it;
    return 0;
fail_open:
    scope_events_close(it);
    return rc;
}

/* Loads the next cell with calls; 0 when there is none left. */
static int next_cell(scope_events *it)
{
    scope_profile *p = it->p;
    while (it->ri < it->nregions) {
        scope__cell *c = it->ki < it->nranks
                         ? scope__cell_at(p, it->regions[it->ri],
                                          it->ranks[it->ki]) : NULL;
        if (it->ki >= it->nranks) {
            it->ri++;
            it->ki = 0;
            continue;
        }
        if (!c || c->n == 0) {
            it->ki++;
            continue;
        }
        it->s = c->starts;
        it->e = c->ends;
        it->t = c->tids;
        int rc = 0;
        scope_h5_quiet quiet;
        scope_h5_quiet_begin(&quiet);
        if (!it->s)
            rc = scope__cell_load(p, c, &it->s, &it->e);
        if (rc >= 0 && !c->tids_loaded &&
            (rc = scope__cell_load_tids(p, c, &it->t)) < 0) {
            if (it->s != c->starts) {
                free(it->s);
                free(it->e);
            }
        }
        scope_h5_quiet_end(&quiet);
        if (rc < 0) {
            it->s = it->e = NULL;
            it->t = NULL;
            return rc;
        }
        if (it->want_sites) {
            scope__cell *same;
            if ((rc = scope__cell_sites(p, it->regions[it->ri], it->ranks[it->ki],
                                        &same)) < 0) {
                it->cur = c;    /* so drop_cell() frees what was loaded */
                drop_cell(it);
                return rc;
            }
        }
        it->cur = c;
        it->pos = 0;
        return 1;
    }
    return 0;
}

int64_t scope_events_read(scope_events *it, scope_event *buf, int64_t cap)
{
    if (!it || (cap > 0 && !buf) || cap < 0)
        return scope__fail(SCOPE_EINVAL, "no iterator or no buffer");
    int64_t got = 0;
    while (got < cap) {
        if (!it->cur) {
            int rc = next_cell(it);
            if (rc < 0)
                return rc;
            if (rc == 0)
                break;
        }
        scope__cell *c = it->cur;
        int region = it->regions[it->ri];
        int rank = it->p->ranks[it->ranks[it->ki]].rank;
        const int64_t *ids = it->ids ? it->ids[it->ki] + it->off[it->ki][region]
                                     : NULL;
        const int64_t *pids = it->ids ? it->pids[it->ki] +
                                        it->off[it->ki][region] : NULL;
        for (; it->pos < c->n && got < cap; it->pos++, got++) {
            scope_event *ev = &buf[got];
            int64_t i = it->pos;
            ev->start_ns = it->s[i] - it->shift;
            ev->end_ns = it->e[i] - it->shift;
            ev->call_index = i;
            ev->call_id = ids ? ids[i] : -1;
            ev->parent_id = pids ? pids[i] : -1;
            ev->region = region;
            ev->rank = rank;
            ev->thread = it->t ? it->t[i] : 0;
            ev->site = it->want_sites && c->sites ? c->sites[i] : -1;
        }
        if (it->pos == c->n) {
            drop_cell(it);
            it->ki++;
        }
    }
    return got;
}
