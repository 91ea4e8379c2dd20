/*
 * waits_cand.c - what both sides of the wait-state analysis report to:
 * the list of candidate waits (one slot per MPI call keeps its longest)
 * and the clock bound between two ranks. Apart from waits.c so that the
 * matching files (waits_p2p.c, waits_coll.c), which waits.c calls, do not
 * call back into it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_error.h"
#include "waits_internal.h"

int scope__cand_add(struct scope__cand_list *l, const struct scope__cand *c)
{
    int32_t k = c->rank >= 0 && c->rank < l->world ? l->index_of[c->rank] : -1;
    int64_t off = k >= 0 ? l->off[(int64_t)k * l->nreg + c->region] : -1;
    if (off < 0)
        return 0; /* not a call of the profile's MPI regions: cannot happen */
    int32_t *b = &l->best[off + c->call];
    if (*b >= 0 && l->v[*b].wait_ns >= c->wait_ns)
        return 0;
    if (*b >= 0) { /* a longer wait of the same call replaces it */
        l->v[*b] = *c;
        return 0;
    }
    struct scope__cand *v = scope__grow(l->v, l->n, &l->cap, sizeof *v, 1024);
    if (!v)
        return SCOPE_ENOMEM;
    l->v = v;
    *b = (int32_t)l->n;
    l->v[l->n++] = *c;
    return 0;
}

int64_t scope__waits_bound(struct scope_waits *w, int32_t a, int32_t b)
{
    if (a < 0 || b < 0 || a >= w->world || b >= w->world)
        return INT64_MAX;
    int32_t ia = w->index_of[a], ib = w->index_of[b];
    if (ia < 0 || ib < 0)
        return INT64_MAX;
    if (ia == ib)
        return 0;
    if (w->host[ia] >= 0 && w->host[ia] == w->host[ib])
        return 0;
    if (w->aligned[ia] > 0 && w->aligned[ib] > 0) {
        int64_t b2 = w->err_ns[ia] + w->err_ns[ib];
        if (b2 > w->totals.max_bound_ns && w->totals.max_bound_ns >= 0)
            w->totals.max_bound_ns = b2;
        return b2;
    }
    /* no clock facts (a serial run, a foreign file): one host's clock when
     * the host names agree */
    if (w->aligned[ia] < 0 && w->aligned[ib] < 0 && w->hostname[ia] && w->hostname[ib] &&
        strcmp(w->hostname[ia], w->hostname[ib]) == 0)
        return 0;
    w->totals.max_bound_ns = -1;
    return INT64_MAX;
}
