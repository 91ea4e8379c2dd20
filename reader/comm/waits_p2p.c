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

#include "reader_internal.h"
#include "scope_error.h"
#include "waits_internal.h"

/* Ends are grouped by key (sender, receiver, communicator and, in the
 * first pass, tag) through a hash table, then ordered by post time within
 * each group: O(n) plus small sorts. A global sort of the ends (or of
 * 32-byte keys) cost ten times the rest of the matching, most of it in
 * moving memory. Every part of the key keeps all its bits: the world
 * ranks 32 each, the run's communicator number (< 2^31) and the tag (33
 * bits once biased), so no two keys share a packing whatever the run's
 * size (a packing of 20 bits per rank made ranks 2^20 apart one key). */
struct group_key {
    uint64_t pair;      /* sender << 32 | receiver */
    uint64_t tag;       /* communicator << 33 | (biased tag + 1); 0: an
                           empty slot */
};

static uint64_t pair_of(const struct scope__p2p *e)
{
    return (uint64_t)(uint32_t)e->s << 32 | (uint64_t)(uint32_t)e->r;
}

static uint64_t tag_of(const struct scope__p2p *e, int with_tag)
{
    uint64_t t = with_tag ? (uint64_t)((uint32_t)e->tag ^ 0x80000000u) + 1 : 1;
    return (uint64_t)(uint32_t)e->comm << 33 | t;
}

static size_t hash(uint64_t pair, uint64_t tag)
{
    uint64_t h = (pair ^ (tag * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return (size_t)(h >> 17);
}

struct groups {
    struct group_key *slot;     /* open addressing */
    int32_t *gid_of_slot;
    size_t cap;
    int32_t n;
};

/* Doubles the table (keys are rehashed; ids stay). */
static int grow(struct groups *g)
{
    size_t cap = g->cap ? 2 * g->cap : 256;
    struct group_key *slot = calloc(cap, sizeof *slot);
    int32_t *gid = malloc(cap * sizeof *gid);
    if (!slot || !gid) {
        free(slot);
        free(gid);
        return SCOPE_ENOMEM;
    }
    for (size_t i = 0; i < g->cap; i++) {
        if (!g->slot[i].tag)
            continue;
        size_t j = hash(g->slot[i].pair, g->slot[i].tag) & (cap - 1);
        while (slot[j].tag)
            j = (j + 1) & (cap - 1);
        slot[j] = g->slot[i];
        gid[j] = g->gid_of_slot[i];
    }
    free(g->slot);
    free(g->gid_of_slot);
    g->slot = slot;
    g->gid_of_slot = gid;
    g->cap = cap;
    return 0;
}

/* The group id of a key, made on first sight; -1 when out of memory. The
 * table grows with the keys, which are few (pairs of ranks, tags), not
 * with the ends: sized by the ends, its zeroing was the largest cost. */
static int32_t group_id(struct groups *g, uint64_t pair, uint64_t tag)
{
    if (2 * ((size_t)g->n + 1) > g->cap && grow(g) < 0)
        return -1;
    size_t i = hash(pair, tag) & (g->cap - 1);
    while (g->slot[i].tag) {
        if (g->slot[i].pair == pair && g->slot[i].tag == tag)
            return g->gid_of_slot[i];
        i = (i + 1) & (g->cap - 1);
    }
    g->slot[i] = (struct group_key){ pair, tag };
    g->gid_of_slot[i] = g->n;
    return g->n++;
}

/* The ends `take` admits, grouped: order[start[k] .. start[k + 1]) are
 * group k's indices into v by post time (ties by index). */
static int grouped(const struct scope__p2p *v, int64_t n, int (*take)(const struct scope__p2p *),
                   const int32_t *gid, int32_t ngroups, int64_t **order, int64_t **start)
{
    *order = scope__malloc_big((size_t)(n ? n : 1) * sizeof **order);
    *start = calloc((size_t)ngroups + 2, sizeof **start);
    if (!*order || !*start)
        return SCOPE_ENOMEM;
    int64_t *at = *start;
    for (int64_t i = 0; i < n; i++)
        if (take(&v[i]))
            at[gid[i] + 2]++;
    for (int32_t k = 0; k < ngroups; k++)
        at[k + 2] += at[k + 1];
    /* at[k + 1]: where group k's next index goes; after the scatter,
     * at[k + 1] is group k's end, which is group k + 1's start */
    for (int64_t i = 0; i < n; i++)
        if (take(&v[i]))
            (*order)[at[gid[i] + 1]++] = i;
    return 0;
}

/* qsort_r: two profiles may be analysed on two threads at once */
static int cmp_post(const void *x, const void *y, void *base)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    const struct scope__p2p *ea = (const struct scope__p2p *)base + a,
                            *eb = (const struct scope__p2p *)base + b;
    if (ea->post != eb->post)
        return ea->post < eb->post ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Sorts each group by post time, where gathering (region by region) did
 * not already leave it so. */
static void by_post(const struct scope__p2p *v, int64_t *order, const int64_t *start,
                    int32_t ngroups)
{
    for (int32_t k = 0; k < ngroups; k++) {
        int64_t a = start[k], b = start[k + 1];
        int sorted = 1;
        for (int64_t i = a + 1; i < b && sorted; i++)
            sorted = v[order[i - 1]].post <= v[order[i]].post;
        if (!sorted)
            qsort_r(order + a, (size_t)(b - a), sizeof *order, cmp_post, (void *)v);
    }
}

static int send_open(const struct scope__p2p *e)
{
    return !e->matched;
}

static int recv_tagged(const struct scope__p2p *e)
{
    return !e->matched && !e->wild;
}

static int recv_wild(const struct scope__p2p *e)
{
    return !e->matched && e->wild;
}

static int add_msg(struct scope_waits *w, const scope_message *m)
{
    scope_message *v = scope__grow(w->msgs, w->nmsgs, &w->capmsgs, sizeof *v, 1024);
    if (!v)
        return SCOPE_ENOMEM;
    w->msgs = v;
    w->msgs[w->nmsgs++] = *m;
    return 0;
}

/* A wait c of the message m (none when c->wait_ns <= 0) added to the
 * candidates; m keeps the longest of its waits (m->wait_ns starts at 0, so
 * the first wait found is kept). 0 or SCOPE_ENOMEM. */
static int note_wait(struct scope__cand_list *cands, const struct scope__cand *c, scope_message *m)
{
    if (c->wait_ns <= 0)
        return 0;
    if (scope__cand_add(cands, c) < 0)
        return SCOPE_ENOMEM;
    if (c->wait_ns > m->wait_ns) {
        m->wait_ns = c->wait_ns;
        m->pattern = c->pattern;
    }
    return 0;
}

/* The waits of one pair, and its message row. */
static int pair(struct scope_waits *w, struct scope__p2p *s, const struct scope__p2p_msg *sm,
                struct scope__p2p *r, const struct scope__p2p_msg *rm,
                struct scope__cand_list *cands)
{
    s->matched = r->matched = 1;
    w->totals.messages++;
    int64_t bound = scope__waits_bound(w, s->s, s->r);
    scope_message m = {
        .sender = s->s, .receiver = s->r, .tag = s->tag, .comm = s->comm,
        .recv_done_region = r->done_region, .recv_done_call = r->done_call,
        .send_start_ns = s->post, .send_end_ns = s->done_end, .recv_start_ns = r->post,
        .recv_end_ns = r->done_end, .wait_ns = 0, .pattern = -1,
    };
    if (sm && rm) {
        m.bytes = sm->bytes;
        if (rm->bytes > m.bytes)
            m.bytes = rm->bytes; /* a send refused its size (none): the status's */
        m.send_region = sm->region;
        m.recv_region = rm->region;
        m.send_call = sm->call;
        m.recv_call = rm->call;
    }
    /* late sender: the receive blocked from done_start; the send began later */
    if (r->blocks && s->post > r->done_start) {
        int64_t end = s->post < r->done_end ? s->post : r->done_end;
        struct scope__cand c = { r->r, r->done_region, r->done_call, SCOPE_WAIT_LATE_SENDER,
                                 s->s, end - r->done_start, bound };
        if (note_wait(cands, &c, &m) < 0)
            return SCOPE_ENOMEM;
    }
    /* late receiver: a send that could complete only once the receive was
     * posted: a synchronous one always, a standard one (rendezvous) when it
     * did not return before that moment. Buffered and ready sends never
     * wait for the receiver. */
    int may = s->kind == SCOPE__K_SYNC || (s->kind == SCOPE__K_STD && s->done_end > r->post);
    if (s->blocks && may && r->post > s->done_start) {
        int64_t end = r->post < s->done_end ? r->post : s->done_end;
        struct scope__cand c = { s->s, s->done_region, s->done_call, SCOPE_WAIT_LATE_RECEIVER,
                                 s->r, end - s->done_start, bound };
        if (note_wait(cands, &c, &m) < 0)
            return SCOPE_ENOMEM;
    }
    if (!(w->flags & SCOPE_WAITS_NO_MESSAGES))
        return add_msg(w, &m);
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

/* One pass: the open sends against the receives `take` admits; the
 * i-th send of a key went to the i-th receive of that key. */
static int pass(struct scope_waits *w, struct scope__p2p *sends,
                const struct scope__p2p_msg *smsg, int64_t ns, struct scope__p2p *recvs,
                const struct scope__p2p_msg *rmsg, int64_t nr, int with_tag,
                int (*take)(const struct scope__p2p *), struct scope__cand_list *cands)
{
    int64_t nk = 0;
    for (int64_t j = 0; j < nr; j++)
        nk += take(&recvs[j]);
    if (nk == 0)
        return 0;
    struct groups g = { 0 };
    int32_t *gs = scope__malloc_big((size_t)(ns ? ns : 1) * sizeof *gs);
    int32_t *gr = scope__malloc_big((size_t)(nr ? nr : 1) * sizeof *gr);
    int64_t *os = NULL, *ss = NULL, *orr = NULL, *sr = NULL;
    int rc = SCOPE_ENOMEM;
    if (!gs || !gr || grow(&g) < 0)
        goto out;
    for (int64_t j = 0; j < nr; j++)
        if ((gr[j] = take(&recvs[j]) ? group_id(&g, pair_of(&recvs[j]), tag_of(&recvs[j], with_tag))
                                     : -2) == -1)
            goto out;
    for (int64_t i = 0; i < ns; i++)
        if ((gs[i] = send_open(&sends[i]) ? group_id(&g, pair_of(&sends[i]),
                                                     tag_of(&sends[i], with_tag))
                                          : -2) == -1)
            goto out;
    if (grouped(sends, ns, send_open, gs, g.n, &os, &ss) < 0 ||
        grouped(recvs, nr, take, gr, g.n, &orr, &sr) < 0)
        goto out;
    by_post(sends, os, ss, g.n);
    by_post(recvs, orr, sr, g.n);
    rc = 0;
    for (int32_t k = 0; k < g.n && rc == 0; k++)
        for (int64_t i = ss[k], j = sr[k]; i < ss[k + 1] && j < sr[k + 1] && rc == 0; i++, j++)
            rc = pair(w, &sends[os[i]], smsg ? &smsg[os[i]] : NULL, &recvs[orr[j]],
                      rmsg ? &rmsg[orr[j]] : NULL, cands);
out:
    free(g.slot);
    free(g.gid_of_slot);
    free(gs);
    free(gr);
    free(os);
    free(ss);
    free(orr);
    free(sr);
    return rc;
}

int scope__waits_match_p2p(struct scope_waits *w, struct scope__p2p *sends,
                           const struct scope__p2p_msg *smsg, int64_t ns,
                           struct scope__p2p *recvs, const struct scope__p2p_msg *rmsg,
                           int64_t nr, struct scope__cand_list *cands)
{
    int rc = pass(w, sends, smsg, ns, recvs, rmsg, nr, 1, recv_tagged, cands);
    /* second pass: receives of unknown tag against what is left */
    if (rc == 0)
        rc = pass(w, sends, smsg, ns, recvs, rmsg, nr, 0, recv_wild, cands);
    if (rc == 0)
        rc = count_unmatched(w, sends, ns, 1);
    if (rc == 0)
        rc = count_unmatched(w, recvs, nr, 0);
    return rc;
}
