/*
 * waits_coll.c - collective instances matched across the members of each
 * communicator, and their waits (docs/analysis.md, "Wait states"): wait at
 * barrier and at N x N, late broadcast, early reduce.
 *
 * MPI requires every member of a communicator to call its collectives in
 * the same order, so the k-th collective call of each member on that
 * communicator is one instance, without looking at times. An instance
 * some member did not enter (it died first), or entered as another
 * operation (a damaged or foreign file), breaks the order: it and the rest
 * of that communicator are counted as incomplete, never guessed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_error.h"
#include "waits_internal.h"

static int cmp_coll(const void *x, const void *y)
{
    const struct scope__coll *a = x, *b = y;
    int c = scope__cmp_i64(a->comm, b->comm);
    if (!c)
        c = scope__cmp_i64(a->rank, b->rank);
    if (!c)
        c = scope__cmp_i64(a->start, b->start);
    return c ? c : scope__cmp_i64(a->call, b->call);
}

/* Call c waited for `waited_for` until `until`: the part of its waiting
 * interval (the call itself, or the MPI_Wait* that completed a
 * nonblocking collective) before that moment. */
static int add(struct scope_waits *w, struct scope__cand_list *cands, const struct scope__coll *c,
               int pattern, int32_t waited_for, int64_t until)
{
    if (c->wregion < 0 || until <= c->wstart)
        return 0;
    int64_t end = until < c->wend ? until : c->wend;
    struct scope__cand k = { c->rank, c->wregion, c->wcall, pattern, waited_for, end - c->wstart,
                             scope__waits_bound(w, c->rank, waited_for) };
    return scope__cand_add(cands, &k);
}

/* The waits of one complete instance: inst[m] is member m's call. */
static int instance(struct scope_waits *w, struct scope__cand_list *cands,
                    struct scope__coll *const *inst, int32_t m)
{
    const struct scope__coll *first = inst[0];
    int32_t last = 0;
    for (int32_t i = 1; i < m; i++)
        if (inst[i]->start > inst[last]->start)
            last = i;
    int rc = 0;
    if (first->op == SCOPE__W_BARRIER || first->op == SCOPE__W_NXN) {
        int pattern = first->op == SCOPE__W_BARRIER ? SCOPE_WAIT_AT_BARRIER : SCOPE_WAIT_AT_NXN;
        for (int32_t i = 0; i < m && rc == 0; i++)
            if (i != last)
                rc = add(w, cands, inst[i], pattern, inst[last]->rank, inst[last]->start);
        return rc;
    }
    /* rooted: the root's world rank is in every member's call */
    int32_t root = -1;
    for (int32_t i = 0; i < m; i++)
        if (inst[i]->rank == first->root)
            root = i;
    if (root < 0)
        return 0;
    if (first->op == SCOPE__W_ONE2N) {
        for (int32_t i = 0; i < m && rc == 0; i++)
            if (i != root)
                rc = add(w, cands, inst[i], SCOPE_WAIT_LATE_BROADCAST, inst[root]->rank,
                         inst[root]->start);
        return rc;
    }
    if (first->op == SCOPE__W_N2ONE) {
        int32_t late = -1;
        for (int32_t i = 0; i < m; i++)
            if (i != root && (late < 0 || inst[i]->start > inst[late]->start))
                late = i;
        if (late >= 0)
            rc = add(w, cands, inst[root], SCOPE_WAIT_EARLY_REDUCE, inst[late]->rank,
                     inst[late]->start);
    }
    return rc;
}

/* One communicator: calls[0..n) sorted by rank then start. */
static int one_comm(struct scope_waits *w, struct scope__coll *calls, int64_t n,
                    const int32_t *members, int32_t m, struct scope__cand_list *cands)
{
    /* each member's run of calls: [at[i], at[i] + len[i]) */
    int64_t *at = calloc((size_t)m, sizeof *at), *len = calloc((size_t)m, sizeof *len);
    struct scope__coll **inst = calloc((size_t)m, sizeof *inst);
    int rc = 0;
    if (!at || !len || !inst) {
        rc = SCOPE_ENOMEM;
        goto out;
    }
    for (int32_t i = 0; i < m; i++)
        at[i] = -1;
    for (int64_t k = 0; k < n;) {
        int64_t e = k;
        while (e < n && calls[e].rank == calls[k].rank)
            e++;
        for (int32_t i = 0; i < m; i++)
            if (members[i] == calls[k].rank) {
                at[i] = k;
                len[i] = e - k;
            }
        k = e;
    }
    int64_t most = 0, common = INT64_MAX;
    for (int32_t i = 0; i < m; i++) {
        if (len[i] > most)
            most = len[i];
        if (len[i] < common)
            common = len[i];
    }
    int64_t k = 0;
    for (; k < common && rc == 0; k++) {
        int same = 1;
        for (int32_t i = 0; i < m; i++) {
            inst[i] = &calls[at[i] + k];
            same &= inst[i]->name_class == inst[0]->name_class;
        }
        if (!same)
            break;
        w->totals.collective_instances++;
        rc = instance(w, cands, inst, m);
    }
    w->totals.incomplete_collectives += most - k;
out:
    free(at);
    free(len);
    free(inst);
    return rc;
}

int scope__waits_match_coll(struct scope_waits *w, struct scope__coll *calls, int64_t n,
                            const int32_t *const *members, const int32_t *msize, int ncomms,
                            struct scope__cand_list *cands)
{
    qsort(calls, (size_t)n, sizeof *calls, cmp_coll);
    int rc = 0;
    for (int64_t k = 0; k < n && rc == 0;) {
        int64_t e = k;
        while (e < n && calls[e].comm == calls[k].comm)
            e++;
        int32_t c = calls[k].comm;
        if (c >= 0 && c < ncomms && msize[c] > 0)
            rc = one_comm(w, calls + k, e - k, members[c], msize[c], cands);
        else
            w->totals.unanalysed_calls += e - k;
        k = e;
    }
    return rc;
}
