/*
 * call_stack.c - rebuilds who-called-whom on one rank from the only thing
 * a profile stores per call, its (start, end) pair: a call that starts
 * while another call of the same thread lane is still open is nested in
 * it. This is what `scope tree`, the flame graph, the folded-stack export,
 * self time and the events' call_id / parent_id are built on.
 *
 * Algorithm: collect the rank's calls from every region, sort them by
 * start (ties: longer first, so an enclosing call precedes what it
 * encloses), then one pass keeping, per lane, the innermost open call. The
 * open calls of a lane form a chain through their parent links, so no
 * separate stack is needed: closing a call is following its parent link.
 * Each call is opened and closed once, so the pass is linear and the
 * whole costs n log n for the sort.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

struct scope_call_stack {
    int64_t n;
    scope_call *calls;
    int64_t *kid_off;   /* n + 3: group 0 = roots, group i + 1 = kids of i,
                         * group g is kids[kid_off[g] .. kid_off[g + 1]) */
    int64_t *kids;      /* n: every call is in exactly one group */
};

static int cmp_calls(const void *a, const void *b)
{
    const scope_call *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    if (x->end_ns != y->end_ns)
        return x->end_ns > y->end_ns ? -1 : 1;   /* longer first */
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    return (x->call_index > y->call_index) - (x->call_index < y->call_index);
}

void scope_call_stack_free(scope_call_stack *cs)
{
    if (!cs)
        return;
    free(cs->calls);
    free(cs->kid_off);
    free(cs->kids);
    free(cs);
}

int64_t scope_call_stack_count(const scope_call_stack *cs)
{
    return cs ? cs->n : 0;
}

const scope_call *scope_call_stack_calls(const scope_call_stack *cs)
{
    return cs ? cs->calls : NULL;
}

int scope_call_stack_children(const scope_call_stack *cs, int64_t call,
                              const int64_t **kids, int64_t *n)
{
    if (!cs || !kids || !n)
        return scope__fail(SCOPE_EINVAL, "no call stack or no output");
    if (call < -1 || call >= cs->n)
        return scope__fail(SCOPE_ENOTFOUND, "no call %lld (the stack has "
                           "%lld)", (long long)call, (long long)cs->n);
    int64_t g = call + 1;
    *kids = cs->kids + cs->kid_off[g];
    *n = cs->kid_off[g + 1] - cs->kid_off[g];
    return 0;
}

/* Appends the calls of cell c (region r) on lane `thread` (or all). */
static int collect(scope_profile *p, scope__cell *c, int r, int thread,
                   scope_call *calls, int64_t *n, int32_t *maxlane)
{
    int64_t *s = c->starts, *e = c->ends;
    int32_t *t = c->tids;
    int rc = 0;
    if (!s && (rc = scope__cell_load(p, c, &s, &e)) < 0)
        return rc;
    if (!c->tids_loaded && (rc = scope__cell_load_tids(p, c, &t)) < 0)
        goto fail_tids;
    for (int64_t i = 0; i < c->n; i++) {
        int32_t lane = t ? t[i] : 0;
        if (thread != SCOPE_ALL_THREADS && lane != thread)
            continue;
        scope_call *k = &calls[(*n)++];
        k->start_ns = s[i];
        k->end_ns = e[i];
        k->call_index = i;
        k->region = r;
        k->thread = lane;
        if (lane > *maxlane)
            *maxlane = lane;
    }
    if (t != c->tids)
        free(t);
fail_tids:
    if (s != c->starts) {
        free(s);
        free(e);
    }
    return rc;
}

/* Parent links, depth and self time in one pass over the sorted calls. */
static int nest(const scope_profile *p, int rank, scope_call *calls,
                int64_t n, int32_t maxlane)
{
    int64_t *top = malloc(((size_t)maxlane + 1) * sizeof *top);
    if (!top)
        return scope__fail(SCOPE_ENOMEM, "out of memory for %d thread lanes",
                           maxlane + 1);
    for (int32_t l = 0; l <= maxlane; l++)
        top[l] = -1;
    for (int64_t i = 0; i < n; i++) {
        scope_call *c = &calls[i];
        int64_t j = top[c->thread];
        while (j >= 0 && calls[j].end_ns <= c->start_ns)
            j = calls[j].parent;
        if (j >= 0 && c->end_ns > calls[j].end_ns) {
            const scope_call *o = &calls[j];
            free(top);
            return scope__fail(SCOPE_EOVERLAP, "rank %d, thread %d: call %lld "
                               "of \"%s\" [%lld, %lld] starts inside call "
                               "%lld of \"%s\" [%lld, %lld] and ends after "
                               "it; nesting cannot be rebuilt", rank,
                               c->thread, (long long)c->call_index,
                               p->regions[c->region].name,
                               (long long)c->start_ns, (long long)c->end_ns,
                               (long long)o->call_index,
                               p->regions[o->region].name,
                               (long long)o->start_ns, (long long)o->end_ns);
        }
        c->parent = j;
        c->depth = j >= 0 ? calls[j].depth + 1 : 0;
        c->self_ns = c->end_ns - c->start_ns;
        if (j >= 0)
            calls[j].self_ns -= c->end_ns - c->start_ns;
        top[c->thread] = i;
    }
    free(top);
    return 0;
}

/* Children lists as one array sliced per parent (a counting sort by
 * parent, stable, so each list is in index order). */
static int link_children(scope_call_stack *cs)
{
    int64_t n = cs->n;
    /* Group g = parent + 1 (0 = roots). Counts go to [g + 2]; after the
     * prefix sum [g + 1] is the start of group g, used as its fill cursor,
     * which leaves it at the end of group g = the start of g + 1. */
    cs->kid_off = calloc((size_t)n + 3, sizeof *cs->kid_off);
    cs->kids = malloc((size_t)(n ? n : 1) * sizeof *cs->kids);
    if (!cs->kid_off || !cs->kids)
        return scope__fail(SCOPE_ENOMEM, "out of memory for %lld calls",
                           (long long)n);
    for (int64_t i = 0; i < n; i++)
        cs->kid_off[cs->calls[i].parent + 3]++;
    for (int64_t g = 2; g < n + 3; g++)
        cs->kid_off[g] += cs->kid_off[g - 1];
    for (int64_t i = 0; i < n; i++)
        cs->kids[cs->kid_off[cs->calls[i].parent + 2]++] = i;
    return 0;
}

int scope_profile_call_stack(scope_profile *p, int rank, int thread,
                             scope_call_stack **out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *out = NULL;
    if (thread < SCOPE_ALL_THREADS)
        return scope__fail(SCOPE_EINVAL, "bad thread lane %d", thread);
    int k = scope__rank_index(p, rank);
    if (k < 0)
        return k;
    int64_t total = 0;
    for (int r = 0; r < p->nregions; r++) {
        scope__cell *c = scope__cell_at(p, r, k);
        total += c ? c->n : 0;
    }
    scope_call_stack *cs = calloc(1, sizeof *cs);
    if (!cs)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    int rc = 0;
    int32_t maxlane = 0;
    cs->calls = calloc((size_t)(total ? total : 1), sizeof *cs->calls);
    if (!cs->calls) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory for %lld calls",
                         (long long)total);
        goto fail_stack;
    }
    scope__h5_quiet quiet;
    scope__h5_quiet_begin(&quiet);
    for (int r = 0; r < p->nregions && rc >= 0; r++) {
        scope__cell *c = scope__cell_at(p, r, k);
        if (c && c->n > 0)
            rc = collect(p, c, r, thread, cs->calls, &cs->n, &maxlane);
    }
    scope__h5_quiet_end(&quiet);
    if (rc < 0)
        goto fail_stack;
    if (cs->n > 1)
        qsort(cs->calls, (size_t)cs->n, sizeof *cs->calls, cmp_calls);
    if ((rc = nest(p, rank, cs->calls, cs->n, maxlane)) < 0 ||
        (rc = link_children(cs)) < 0)
        goto fail_stack;
    *out = cs;
    return 0;
fail_stack:
    scope_call_stack_free(cs);
    return rc;
}
