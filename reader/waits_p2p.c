/*
 * waits_p2p.c - pairs every send with the receive that got it, and the
 * late-sender and late-receiver waits of each pair (docs/analysis.md,
 * "Wait states").
 *
 * MPI's non-overtaking rule makes the pairing exact without a replay:
 * messages from one sender to one receiver on one communicator with one
 * tag are received in the order they were sent, and a receive's status
 * (recorded for MPI_ANY_SOURCE and MPI_ANY_TAG receives) names the sender
 * and tag it matched. So sorting both sides by (sender, receiver,
 * communicator, tag, post time) lines the pairs up: the i-th send of a
 * key went to the i-th receive of that key. One case lacks the tag: the
 * receive half of MPI_Sendrecv (the file keeps the send tag); those take,
 * in a second pass, the earliest sends of their (sender, receiver,
 * communicator) left over by the first. Anything left is unmatched: never
 * invented, counted per (rank, peer).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scope_error.h"
#include "waits_internal.h"

static int cmp_key(const struct scope__p2p *a, const struct scope__p2p *b, int with_tag)
{
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    if (a->r != b->r)
        return a->r < b->r ? -1 : 1;
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (with_tag && a->tag != b->tag)
        return a->tag < b->tag ? -1 : 1;
    return 0;
}

static int cmp_order(const struct scope__p2p *a, const struct scope__p2p *b)
{
    if (a->post != b->post)
        return a->post < b->post ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_tagged(const void *x, const void *y)
{
    const struct scope__p2p *a = x, *b = y;
    /* wildcard receives sort last, out of the tagged runs */
    if (a->wild != b->wild)
        return a->wild ? 1 : -1;
    int c = cmp_key(a, b, 1);
    return c ? c : cmp_order(a, b);
}

static int cmp_untagged(const void *x, const void *y)
{
    const struct scope__p2p *a = x, *b = y;
    if (a->matched != b->matched)
        return a->matched ? 1 : -1;
    int c = cmp_key(a, b, 0);
    return c ? c : cmp_order(a, b);
}

static int add_msg(struct scope_waits *w, const scope_message *m)
{
    if (w->nmsgs == w->capmsgs) {
        int64_t cap = w->capmsgs ? 2 * w->capmsgs : 1024;
        scope_message *v = realloc(w->msgs, (size_t)cap * sizeof *v);
        if (!v)
            return SCOPE_ENOMEM;
        w->msgs = v;
        w->capmsgs = cap;
    }
    w->msgs[w->nmsgs++] = *m;
    return 0;
}

/* The waits of one pair, and its message row. */
static int pair(struct scope_waits *w, struct scope__p2p *s, struct scope__p2p *r,
                struct scope__cand_list *cands)
{
    s->matched = r->matched = 1;
    w->totals.messages++;
    int64_t bound = scope__waits_bound(w, s->s, s->r);
    scope_message m = {
        .sender = s->s, .receiver = s->r, .tag = s->tag, .comm = s->comm, .bytes = s->bytes,
        .send_region = s->region, .recv_region = r->region, .recv_done_region = r->done_region,
        .send_call = s->call, .recv_call = r->call, .recv_done_call = r->done_call,
        .send_start_ns = s->post, .send_end_ns = s->done_end, .recv_start_ns = r->post,
        .recv_end_ns = r->done_end, .wait_ns = 0, .pattern = -1,
    };
    if (r->bytes > m.bytes)
        m.bytes = r->bytes; /* a send refused its size (none): the status's */
    /* late sender: the receive blocked from blk_start; the send began later */
    if (r->blk_region >= 0 && s->post > r->blk_start) {
        int64_t end = s->post < r->blk_end ? s->post : r->blk_end;
        struct scope__cand c = { r->rank, r->blk_region, r->blk_call, SCOPE_WAIT_LATE_SENDER,
                                 s->s, end - r->blk_start, bound };
        if (c.wait_ns > 0) {
            if (scope__cand_add(cands, &c) < 0)
                return SCOPE_ENOMEM;
            m.wait_ns = c.wait_ns;
            m.pattern = SCOPE_WAIT_LATE_SENDER;
        }
    }
    /* late receiver: a send that could complete only once the receive was
     * posted: a synchronous one always, a standard one (rendezvous) when it
     * did not return before that moment. Buffered and ready sends never
     * wait for the receiver. */
    int may = s->kind == SCOPE__K_SYNC || (s->kind == SCOPE__K_STD && s->blk_end > r->post);
    if (s->blk_region >= 0 && may && r->post > s->blk_start) {
        int64_t end = r->post < s->blk_end ? r->post : s->blk_end;
        struct scope__cand c = { s->rank, s->blk_region, s->blk_call, SCOPE_WAIT_LATE_RECEIVER,
                                 s->r, end - s->blk_start, bound };
        if (c.wait_ns > 0) {
            if (scope__cand_add(cands, &c) < 0)
                return SCOPE_ENOMEM;
            if (c.wait_ns > m.wait_ns) {
                m.wait_ns = c.wait_ns;
                m.pattern = SCOPE_WAIT_LATE_RECEIVER;
            }
        }
    }
    if (!(w->flags & SCOPE_WAITS_NO_MESSAGES))
        return add_msg(w, &m);
    return 0;
}

/* Pairs runs of equal keys in order: a[ia..) and b[ib..) both sorted. */
static int pair_runs(struct scope_waits *w, struct scope__p2p *sends, int64_t ns,
                     struct scope__p2p *recvs, int64_t nr, int with_tag,
                     struct scope__cand_list *cands)
{
    int64_t i = 0, j = 0;
    while (i < ns && j < nr) {
        if (sends[i].matched) {
            i++;
            continue;
        }
        /* the first pass leaves the receives of unknown tag out, the
         * second takes only them */
        if (recvs[j].matched || recvs[j].wild == with_tag) {
            j++;
            continue;
        }
        int c = cmp_key(&sends[i], &recvs[j], with_tag);
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            int rc = pair(w, &sends[i], &recvs[j], cands);
            if (rc < 0)
                return rc;
            i++;
            j++;
        }
    }
    return 0;
}

static int count_unmatched(struct scope_waits *w, const struct scope__p2p *v, int64_t n, int is_send)
{
    for (int64_t i = 0; i < n; i++) {
        if (v[i].matched)
            continue;
        int32_t rank = is_send ? v[i].s : v[i].r, peer = is_send ? v[i].r : v[i].s;
        if (is_send)
            w->totals.unmatched_sends++;
        else
            w->totals.unmatched_receives++;
        /* rows are few (a dead rank's partners): a scan finds its row */
        int64_t k = w->nunmatched;
        while (k > 0 && !(w->unmatched[k - 1].rank == rank && w->unmatched[k - 1].peer == peer &&
                          w->unmatched[k - 1].is_send == is_send))
            k--;
        if (k > 0) {
            w->unmatched[k - 1].count++;
            continue;
        }
        scope_unmatched *u = realloc(w->unmatched, (size_t)(w->nunmatched + 1) * sizeof *u);
        if (!u)
            return SCOPE_ENOMEM;
        w->unmatched = u;
        u[w->nunmatched++] = (scope_unmatched){ rank, peer, is_send, 1 };
    }
    return 0;
}

int scope__waits_match_p2p(struct scope_waits *w, struct scope__p2p *sends, int64_t ns,
                           struct scope__p2p *recvs, int64_t nr, struct scope__cand_list *cands)
{
    qsort(sends, (size_t)ns, sizeof *sends, cmp_tagged);
    qsort(recvs, (size_t)nr, sizeof *recvs, cmp_tagged);
    int rc = pair_runs(w, sends, ns, recvs, nr, 1, cands);
    if (rc < 0)
        return rc;
    /* second pass: receives of unknown tag against what is left */
    int any_wild = 0;
    for (int64_t j = 0; j < nr && !any_wild; j++)
        any_wild = recvs[j].wild && !recvs[j].matched;
    if (any_wild) {
        qsort(sends, (size_t)ns, sizeof *sends, cmp_untagged);
        qsort(recvs, (size_t)nr, sizeof *recvs, cmp_untagged);
        if ((rc = pair_runs(w, sends, ns, recvs, nr, 0, cands)) < 0)
            return rc;
    }
    if ((rc = count_unmatched(w, sends, ns, 1)) < 0)
        return rc;
    return count_unmatched(w, recvs, nr, 0);
}
