/*
 * waits.c - who waited for whom (scope_reader_waits.h): gathers every
 * rank's MPI calls with what they moved, hands the point-to-point ends to
 * waits_p2p.c and the collective calls to waits_coll.c, and folds the
 * waits they find into per-call and per-(rank, region, pattern,
 * waited-for) results. A call's communicator is the run's
 * (run_comms.c: the same communicator on every rank, numbered as the
 * OTF2 export numbers it); what a region's calls are is its row of the
 * vocabulary of calls (operation.c).
 *
 * Every wait is compared with the clock bound between the two ranks
 * (clock_error_ns of each, 0 when they share a host's clock): a wait not
 * above it is counted, never summed.
 */
#include <stdint.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader_internal.h"
#include "scope_calls.h"
#include "scope_format.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"
#include "scope_reader_io.h"
#include "scope_reader_waits.h"
#include "waits_internal.h"

static const char *const pattern_names[SCOPE_WAIT_PATTERNS] = {
    "late_sender", "late_receiver", "wait_at_barrier", "wait_at_nxn", "late_broadcast",
    "early_reduce",
};

const char *scope_wait_pattern_name(int pattern)
{
    return pattern >= 0 && pattern < SCOPE_WAIT_PATTERNS ? pattern_names[pattern] : NULL;
}

/* The analysis's view of a region's call (scope_calls.h, asked through
 * operation.c): its role, *kind (a send's mode; SCOPE__K_NONBLOCKING_COLL
 * for a nonblocking collective, whose instances are its own: MPI never
 * matches it with the blocking form, and whose wait is in the call that
 * completed it) and *cls, the call's id, so that the C and large-count
 * forms of one operation are the same instance kind. Persistent inits,
 * probes and neighbourhood collectives move nothing the analysis
 * matches. */
static int classify(const struct scope_call_row *c, uint8_t *kind, int32_t *cls)
{
    static const uint8_t send_kind[SCOPE_SM_MODES] = {
        [SCOPE_SM_STANDARD] = SCOPE__K_STD, [SCOPE_SM_SYNC] = SCOPE__K_SYNC,
        [SCOPE_SM_BUFFERED] = SCOPE__K_BUF, [SCOPE_SM_READY] = SCOPE__K_READY,
    };
    static const uint8_t coll_op[SCOPE_SYNC_PATTERNS] = {
        [SCOPE_SYNC_BARRIER] = SCOPE__W_BARRIER, [SCOPE_SYNC_NXN] = SCOPE__W_NXN,
        [SCOPE_SYNC_ONE2N] = SCOPE__W_ONE2N, [SCOPE_SYNC_N2ONE] = SCOPE__W_N2ONE,
        [SCOPE_SYNC_OTHER] = SCOPE__W_COLL_OTHER,
    };
    int nb = c->form == SCOPE_CF_NONBLOCKING;
    *kind = 0;
    *cls = (int32_t)(c - scope_calls);
    if (c->form == SCOPE_CF_PERSISTENT)
        return SCOPE__W_NONE;
    switch (c->cls) {
    case SCOPE_CC_SEND:
        *kind = send_kind[c->mode];
        return nb ? SCOPE__W_ISEND : SCOPE__W_SEND;
    case SCOPE_CC_RECV:
        return nb ? SCOPE__W_IRECV : SCOPE__W_RECV;
    case SCOPE_CC_SENDRECV:
        *kind = SCOPE__K_COMBINED;
        return nb ? SCOPE__W_ISENDRECV : SCOPE__W_SENDRECV;
    case SCOPE_CC_START:
        return scope__call_starts_several(c) ? SCOPE__W_STARTALL : SCOPE__W_START;
    case SCOPE_CC_WAIT:
        return SCOPE__W_WAIT;
    case SCOPE_CC_TEST:
        return SCOPE__W_TEST;
    case SCOPE_CC_COLLECTIVE:
        *kind = nb ? SCOPE__K_NONBLOCKING_COLL : 0;
        return coll_op[scope_call_coll(c)->sync];
    default:
        return SCOPE__W_NONE;
    }
}

void scope_waits_free(scope_waits *w)
{
    if (!w)
        return;
    free(w->rows);
    free(w->rows_io);
    scope__free_strings(w->io_files, w->nio_files);
    free(w->calls);
    free(w->msgs);
    free(w->unmatched);
    scope__free_strings(w->comm_names, w->ncomms);
    free(w->rank_of);
    free(w->err_ns);
    free(w->host);
    free(w->aligned);
    scope__free_strings(w->hostname, w->nranks);
    free(w->index_of);
    free(w);
}

struct gather {
    scope_profile *p;
    struct scope_waits *w;
    struct scope__spill sp;     /* the ends and collective calls, by bucket */
    uint8_t *op, *kind;         /* per region: classify(), once */
    int32_t *cls;
    const int64_t **cur_s, **cur_e; /* per region: the times of the rank
                                     * being gathered, once asked (NULL
                                     * not yet) */
    int64_t *cur_n;
    /* The columns are read into buffers reused rank after rank, never
     * kept with the cells: fresh pages for each rank's columns (their
     * kernel zeroing and, on a virtual machine, the host backing each at
     * its first write) were two thirds of the analysis's CPU time. Per
     * region its times (a completing call's may be asked while another
     * region is gathered), sized for the region's largest rank; one set
     * of data columns, for the region being gathered. */
    void **tbuf;                /* per region: starts then ends */
    size_t *tcap;
    int64_t *maxn;              /* per region: its most calls on a rank */
    int64_t maxmoved;           /* the most of any gathered region */
    void *mbuf[6];              /* sent, received, dest, source, tag, comm */
    size_t mcap[6];
};

/* Memory per point-to-point end while its bucket is matched: the end
 * (80 bytes when it was one struct; 56 now, 80 with its message part),
 * its share of the key table and group orders (waits_p2p.c). Measured: a
 * 4 M-call run peaked at about this times its ends. Kept at 160 when the
 * end shrank, so that a budget makes the buckets it made. */
#define WORK_PER_END 160
/* At most this many buckets: three temporary files each (five with the
 * messages). */
#define MAX_BUCKETS 128
/* The memory budget when the caller gives none: 1 GiB, or a quarter of
 * the machine's memory when that is less. */
#define DEFAULT_BUDGET ((int64_t)1 << 30)

/* The bucket of a (sender, receiver) pair's ends, and of a communicator's
 * collective calls: any function of the key keeps a key's ends together. */
static int pair_bucket(const struct gather *g, int32_t s, int32_t r)
{
    if (g->sp.nbuckets == 1)
        return 0;
    uint64_t h = ((uint64_t)(uint32_t)s << 32 | (uint32_t)r) * 0x9e3779b97f4a7c15ull;
    return (int)((h >> 33) % (uint64_t)g->sp.nbuckets);
}

static int comm_bucket(const struct gather *g, int32_t comm)
{
    return (int)((uint32_t)comm % (uint32_t)g->sp.nbuckets);
}

/* Request rows of one rank sorted by post, for the completion lookup. */
struct req_ix {
    int32_t region;
    int64_t call, row;
};

static int cmp_req(const void *x, const void *y)
{
    const struct req_ix *a = x, *b = y;
    int c = scope__cmp_i64(a->region, b->region);
    return c ? c : scope__cmp_i64(a->call, b->call);
}

static int req_slot(int32_t region, int nreg)
{
    return region < 0 ? 0 : region < nreg ? region + 1 : nreg + 1;
}

/* ix = the request rows sorted by (post region, post call): counted into
 * regions in row order, then sorted within a region only where the rows
 * are not already in call order (they come in completion order, which is
 * post order in most programs: a sort of every row was an eighth of the
 * analysis). Returns 0 or SCOPE_ENOMEM. */
static int index_requests(const scope_requests *rq, int nreg, struct req_ix *ix)
{
    /* slot 0: regions the profile lacks (-1), 1 .. nreg: region - 1,
     * nreg + 1: beyond (a damaged file), so that the slots' order is
     * cmp_req's */
    int64_t *at = calloc((size_t)nreg + 3, sizeof *at);
    if (!at)
        return SCOPE_ENOMEM;
    for (int64_t i = 0; i < rq->n; i++)
        at[req_slot(rq->post_region[i], nreg) + 1]++;
    for (int r = 0; r <= nreg + 1; r++)
        at[r + 1] += at[r];
    for (int64_t i = 0; i < rq->n; i++)
        ix[at[req_slot(rq->post_region[i], nreg)]++] =
            (struct req_ix){ rq->post_region[i], rq->post_call[i], i };
    /* at[r] is now the end of slot r */
    for (int r = 0; r <= nreg + 1; r++) {
        int64_t b = r == 0 ? 0 : at[r - 1], e = at[r];
        int sorted = 1;
        for (int64_t i = b + 1; i < e && sorted; i++)
            sorted = cmp_req(&ix[i - 1], &ix[i]) <= 0;
        if (!sorted)
            qsort(ix + b, (size_t)(e - b), sizeof *ix, cmp_req);
    }
    free(at);
    return 0;
}

/* Moves *cur to the first row of ix at or after (region, call): the calls
 * of a region come in order and ix is sorted, so a cursor walks it (a
 * search per call cost more than the rest of gathering). */
static void seek_row(const scope_requests *rq, const struct req_ix *ix, int64_t *cur, int32_t region,
                     int64_t call)
{
    while (*cur < rq->n && (ix[*cur].region < region ||
                            (ix[*cur].region == region && ix[*cur].call < call)))
        (*cur)++;
}

/* The times of region r's calls on the rank being gathered (rank; *n of
 * them, 0 when it has none): the cell's own when the caller had them
 * loaded, else read into the region's reused buffer, once per rank.
 * Returns 0 or a negative SCOPE_E*. */
static int region_times(struct gather *g, int r, int rank, const int64_t **s,
                        const int64_t **e, int64_t *n)
{
    if (!g->cur_s[r]) {
        scope__cell *c;
        int rc = scope__cell_get(g->p, r, rank, &c);
        if (rc < 0)
            return rc;
        if (!c || c->n == 0) {
            static const int64_t none[1];
            g->cur_s[r] = g->cur_e[r] = none;
            g->cur_n[r] = 0;
        } else if (c->starts) {
            g->cur_s[r] = c->starts;
            g->cur_e[r] = c->ends;
            g->cur_n[r] = c->n;
        } else {
            int64_t *b = scope__reuse(&g->tbuf[r], &g->tcap[r],
                                      (size_t)g->maxn[r] * 2 * sizeof *b);
            if (!b)
                return SCOPE_ENOMEM;
            scope_h5_quiet quiet;
            scope_h5_quiet_begin(&quiet);
            rc = scope__cell_load_into(g->p, c, b, b + g->maxn[r]);
            scope_h5_quiet_end(&quiet);
            if (rc < 0)
                return rc;
            g->cur_s[r] = b;
            g->cur_e[r] = b + g->maxn[r];
            g->cur_n[r] = c->n;
        }
    }
    *s = g->cur_s[r];
    *e = g->cur_e[r];
    *n = g->cur_n[r];
    return 0;
}

/* The data columns of region r's cell on rank (out->bytes_sent NULL: it
 * has none): the cell's when loaded, else read into the reused set. */
static int region_moved(struct gather *g, int r, int rank, scope_moved *out)
{
    memset(out, 0, sizeof *out);
    scope__cell *c;
    int rc = scope__cell_get(g->p, r, rank, &c);
    if (rc < 0 || !c)
        return rc;
    /* every buffer sized once for the largest cell (growing them would
     * fault in fresh pages again) */
    size_t n = (size_t)(g->maxmoved > c->n ? g->maxmoved : c->n);
    for (int i = 0; i < 6 && !c->moved_loaded; i++)
        if (!scope__reuse(&g->mbuf[i], &g->mcap[i], n * (i < 2 ? 8 : 4)))
            return SCOPE_ENOMEM;
    struct scope__moved b = { .sent = g->mbuf[0], .received = g->mbuf[1], .dest = g->mbuf[2],
                              .source = g->mbuf[3], .tag = g->mbuf[4], .comm = g->mbuf[5] }, v;
    if ((rc = scope__cell_moved_view(g->p, c, &b, &v)) < 0)
        return rc;
    out->n = c->n;
    out->bytes_sent = v.sent;
    out->bytes_received = v.received;
    out->dest = v.dest;
    out->source = v.source;
    out->tag = v.tag;
    out->comm = v.comm;
    return 0;
}

/* Fills the completion of end `e` from request row `row`: its completing
 * call, which blocked when it is an MPI_Wait*. Returns 0, 1 (never
 * completed, or not followed), 2 (cancelled), or a negative SCOPE_E*. */
static int done_of_row(struct gather *g, int rank, const scope_requests *rq, int64_t row,
                       struct scope__p2p *e)
{
    e->blocks = 0;
    e->done_region = -1;
    if (row < 0 || rq->done_region[row] < 0 || rq->cancelled[row])
        return row < 0 ? 1 : 2;
    int32_t dr = rq->done_region[row];
    const int64_t *s, *en;
    int64_t n;
    int rc = region_times(g, dr, rank, &s, &en, &n);
    if (rc < 0)
        return rc;
    int64_t k = rq->done_call[row];
    if (k < 0 || k >= n)
        return 1;
    e->done_region = rq->done_region[row];
    e->done_call = k;
    e->done_start = s[k];
    e->done_end = en[k];
    e->blocks = g->op[e->done_region] == SCOPE__W_WAIT;
    return 0;
}

/* Fills the completion of a nonblocking end from the request table (the
 * row of its posting call). Returns as done_of_row. */
static int complete(struct gather *g, int rank, const scope_requests *rq, const struct req_ix *ix,
                    int64_t *cur, int32_t region, int64_t call, struct scope__p2p *e)
{
    seek_row(rq, ix, cur, region, call);
    int64_t row = *cur < rq->n && ix[*cur].region == region && ix[*cur].call == call
                      ? ix[*cur].row : -1;
    return done_of_row(g, rank, rq, row, e);
}

/* Appends end e (posted by call `call` of region `region`, moving
 * `bytes`) to the sends (send != 0) or receives of (sender, receiver)'s
 * bucket, and its message part when the caller wants messages; *x: the
 * end written, for the caller to finish. 0 or a negative SCOPE_E*. */
static int put_end(struct gather *g, int send, int32_t sender, int32_t receiver,
                   const struct scope__p2p *e, int32_t region, int64_t call, int64_t bytes,
                   struct scope__p2p **x)
{
    int b = pair_bucket(g, sender, receiver);
    int rc = scope__spill_slot(&g->sp, b, send ? SCOPE__S_SENDS : SCOPE__S_RECVS, (void **)x);
    if (rc < 0)
        return rc;
    **x = *e;
    (*x)->s = sender;
    (*x)->r = receiver;
    if (g->w->flags & SCOPE_WAITS_NO_MESSAGES)
        return 0;
    struct scope__p2p_msg *m;
    if ((rc = scope__spill_slot(&g->sp, b, send ? SCOPE__S_SENDS_MSG : SCOPE__S_RECVS_MSG,
                                (void **)&m)) < 0)
        return rc;
    *m = (struct scope__p2p_msg){ .call = call, .bytes = bytes, .region = region };
    return 0;
}

/* The messages of one MPI_Startall call (`base`: its times and
 * communicator): one end per request it started, from the request rows
 * of the call (a send's row says where it went, a receive's what its
 * status said). Requests never completed, cancelled, or collective are
 * not messages. Returns the ends gathered, or a negative SCOPE_E*. */
static int gather_started(struct gather *g, int rank, const scope_requests *rq,
                          const struct req_ix *ix, int64_t *cur, const struct scope__p2p *base,
                          int32_t region, int64_t call)
{
    int got = 0;
    seek_row(rq, ix, cur, region, call);
    for (int64_t k = *cur; k < rq->n && ix[k].region == region && ix[k].call == call; k++) {
        int64_t row = ix[k].row;
        int send = rq->dest && rq->dest[row] >= 0 && rq->dest[row] < g->w->world;
        int recv = !send && rq->source[row] >= 0 && rq->source[row] < g->w->world;
        if (!send && !recv)
            continue;
        struct scope__p2p e1 = *base;
        int done = done_of_row(g, rank, rq, row, &e1);
        if (done < 0)
            return done;
        if (done != 0)
            continue;
        int peer = send ? rq->dest[row] : rq->source[row];
        struct scope__p2p *x;
        int64_t bytes = send ? (rq->bytes_sent ? rq->bytes_sent[row] : 0)
                             : rq->bytes_received[row];
        int rc = put_end(g, send, send ? rank : peer, send ? peer : rank, &e1, region, call,
                         bytes, &x);
        if (rc < 0)
            return rc;
        x->tag = rq->tag[row];
        x->kind = SCOPE__K_STD;
        got++;
    }
    return got;
}

/* One region's calls of the rank being gathered (gather_rank): its time
 * in MPI, and an end per message (through the rank's request index for
 * nonblocking posts) or a collective call per instance, into their
 * buckets. Returns 0 or a negative SCOPE_E* code. Cost: one pass over the
 * region's calls, reading its times and data columns once. */
static int gather_region(struct gather *g, int rank, int r, const scope_communicators *ct,
                         const int32_t *gid, const scope_requests *rq, const struct req_ix *ix,
                         int64_t *cur)
{
    scope_profile *p = g->p;
    struct scope_waits *w = g->w;
    int rc = 0;
    uint8_t kind = g->kind[r];
    int32_t cls = g->cls[r];
    int op = g->op[r];
    if (op == SCOPE__W_NONE || scope_profile_calls(p, r, rank) <= 0)
        return 0;
    const int64_t *s, *e;
    int64_t n;
    scope_moved mv;
    if ((rc = region_times(g, r, rank, &s, &e, &n)) < 0)
        return rc;
    for (int64_t i = 0; i < n; i++)
        w->totals.mpi_ns += e[i] - s[i];
    if (op == SCOPE__W_WAIT || op == SCOPE__W_TEST)
        return 0; /* reached through the requests they completed */
    if ((rc = region_moved(g, r, rank, &mv)) < 0)
        return rc;
    if (!mv.bytes_sent) {
        w->totals.unanalysed_calls += n;
        return 0;
    }
    w->has_data = 1;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        int32_t c = mv.comm[i];
        if (c < 0 || c >= ct->n) {
            w->totals.unanalysed_calls++;
            continue;
        }
        struct scope__p2p base = {
            .comm = gid[c], .post = s[i],
            .done_start = s[i], .done_end = e[i], .done_region = r, .done_call = i,
            .blocks = 1, .kind = kind,
        };
        if (op == SCOPE__W_STARTALL) {
            int got = gather_started(g, rank, rq, ix, cur, &base, r, i);
            if (got < 0)
                rc = got;
            else if (got == 0)
                w->totals.unanalysed_calls++;
            continue;
        }
        if (op >= SCOPE__W_BARRIER) {
            struct scope__coll *d;
            if ((rc = scope__spill_slot(&g->sp, comm_bucket(g, gid[c]), SCOPE__S_COLL,
                                        (void **)&d)) < 0)
                break;
            *d = (struct scope__coll){
                .comm = gid[c], .rank = rank, .region = r, .call = i, .start = s[i],
                .end = e[i], .root = mv.dest[i] >= 0 ? mv.dest[i] : mv.source[i],
                .op = (uint8_t)op, .name_class = cls,
                .wregion = r, .wcall = i, .wstart = s[i], .wend = e[i],
            };
            if (kind == SCOPE__K_NONBLOCKING_COLL) {
                struct scope__p2p at = base;
                int done = complete(g, rank, rq, ix, cur, r, i, &at);
                if (done < 0) {
                    rc = done;
                    break;
                }
                d->wregion = done == 0 && at.blocks ? at.done_region : -1;
                d->wcall = at.done_call;
                d->wstart = at.done_start;
                d->wend = at.done_end;
            }
            continue;
        }
        /* a send names its tag: a start without one is a persistent
         * collective's, whose dest is its root (not analysed here) */
        int recv_only = op == SCOPE__W_RECV || op == SCOPE__W_IRECV;
        int both = op == SCOPE__W_SENDRECV || op == SCOPE__W_ISENDRECV;
        int is_send = !recv_only && scope_moved_sent_message(mv.dest[i], mv.tag[i]);
        int is_recv = mv.source[i] >= 0 &&
                      (recv_only || both || (op == SCOPE__W_START && mv.dest[i] < 0));
        int nonblocking = op == SCOPE__W_ISEND || op == SCOPE__W_IRECV ||
                          op == SCOPE__W_ISENDRECV || op == SCOPE__W_START;
        struct scope__p2p e1 = base;
        if (nonblocking) {
            int done = complete(g, rank, rq, ix, cur, r, i, &e1);
            if (done < 0) {
                rc = done;
                break;
            }
            if (done == 2)
                continue; /* cancelled: no message */
            if (done == 1)
                is_recv = 0; /* never completed: nothing arrived */
        }
        if (!is_send && !is_recv)
            continue;
        if (is_send) {
            struct scope__p2p *x;
            if ((rc = put_end(g, 1, rank, mv.dest[i], &e1, r, i, mv.bytes_sent[i], &x)) < 0)
                break;
            x->tag = mv.tag[i];
            if (op == SCOPE__W_START)
                x->kind = SCOPE__K_STD;
        }
        if (is_recv) {
            struct scope__p2p *x;
            if ((rc = put_end(g, 0, mv.source[i], rank, &e1, r, i, mv.bytes_received[i],
                              &x)) < 0)
                break;
            x->tag = mv.tag[i];
            x->wild = both;     /* the file keeps the send's tag only */
        }
    }
    return rc;
}

/* Frees the reused column buffers (gathering is over). */
static void free_buffers(struct gather *g, int nreg)
{
    for (int r = 0; g->tbuf && r < nreg; r++) {
        free(g->tbuf[r]);
        g->tbuf[r] = NULL;
    }
    for (int i = 0; i < 6; i++) {
        free(g->mbuf[i]);
        g->mbuf[i] = NULL;
    }
}

static int gather_rank(struct gather *g, int k)
{
    scope_profile *p = g->p;
    int rank = scope_profile_rank(p, k);
    scope_communicators ct;
    scope_requests rq;
    int had_tables = p->ranks[k].tables != NULL;
    int nreg = scope_profile_region_count(p);
    const int32_t *gid = NULL;
    int ngid = 0;
    struct req_ix *ix = NULL;
    int rc = scope_profile_run_comm_ids(p, rank, &gid, &ngid);
    if (rc == 0)
        rc = scope_profile_communicators(p, rank, &ct);
    if (rc == 0)
        rc = scope_profile_requests(p, rank, &rq);
    if (rc < 0)
        goto out;
    if (ngid != ct.n) {
        rc = scope__fail(SCOPE_EFORMAT, "rank %d: its communicator table changed", rank);
        goto out;
    }
    if (!(ix = malloc((size_t)(rq.n ? rq.n : 1) * sizeof *ix))) {
        rc = SCOPE_ENOMEM;
        goto out;
    }
    if ((rc = index_requests(&rq, nreg, ix)) < 0)
        goto out;
    int64_t cur = 0;
    memset(g->cur_s, 0, (size_t)nreg * sizeof *g->cur_s);
    for (int r = 0; r < nreg && rc == 0; r++)
        rc = gather_region(g, rank, r, &ct, gid, &rq, ix, &cur);
out:
    free(ix);
    /* one rank's tables at a time (its columns never stay: region_times) */
    if (!had_tables)
        scope__rank_tables_forget(p, k);
    return rc;
}

/* Allocates the gathering arrays at their final size, from the call
 * counts (no data read): growing them by doubling copied and first-touched
 * a few hundred MB for a few million calls, which cost more than the
 * matching. Huge pages where the kernel gives them (scope__malloc_big). */
static int presize(struct gather *g, struct scope__cand_list *cands, int nreg, int64_t budget)
{
    int64_t ns = 0, nr = 0, nc = 0;
    for (int r = 0; r < nreg; r++) {
        int64_t n = scope_profile_calls(g->p, r, SCOPE_ALL_RANKS);
        if (n <= 0)
            continue;
        switch (g->op[r]) {
        case SCOPE__W_SEND:
        case SCOPE__W_ISEND:
            ns += n;
            break;
        case SCOPE__W_RECV:
        case SCOPE__W_IRECV:
            nr += n;
            break;
        case SCOPE__W_SENDRECV:
        case SCOPE__W_ISENDRECV:
        case SCOPE__W_START:
        case SCOPE__W_STARTALL:  /* at least; the arrays grow past it */
            ns += n;
            nr += n;
            break;
        default:
            if (g->op[r] >= SCOPE__W_BARRIER)
                nc += n;
        }
    }
    /* one slot per call of every MPI region and rank */
    int nranks = scope_profile_rank_count(g->p);
    int64_t slots = 0;
    cands->nreg = nreg;
    cands->off = malloc(((size_t)nranks * (size_t)nreg + 1) * sizeof *cands->off);
    if (!cands->off)
        return SCOPE_ENOMEM;
    for (int k = 0; k < nranks; k++)
        for (int r = 0; r < nreg; r++) {
            int64_t n = g->op[r] == SCOPE__W_NONE ? 0
                        : scope_profile_calls(g->p, r, scope_profile_rank(g->p, k));
            cands->off[(int64_t)k * nreg + r] = n > 0 ? slots : -1;
            slots += n > 0 ? n : 0;
        }
    cands->best = scope__malloc_big((size_t)(slots + 1) * sizeof *cands->best);
    if (!cands->best)
        return SCOPE_ENOMEM;
    memset(cands->best, 0xff, (size_t)(slots + 1) * sizeof *cands->best);
    cands->index_of = g->w->index_of;
    cands->world = g->w->world;
    if (!(g->w->flags & SCOPE_WAITS_NO_MESSAGES)) {
        int64_t m = (ns < nr ? ns : nr) + 1;
        if (!(g->w->msgs = scope__malloc_big((size_t)m * sizeof *g->w->msgs)))
            return SCOPE_ENOMEM;
        g->w->capmsgs = m;
    }
    cands->v = scope__malloc_big((size_t)(ns + nr + nc + 1) * sizeof *cands->v);
    if (!cands->v)
        return SCOPE_ENOMEM;
    cands->cap = ns + nr + nc + 1;
    /* the buckets: one when the ends and their matching fit the budget;
     * else enough that one bucket's do in half of it, the other half for
     * what the buckets keep in memory before they write out */
    int64_t est = (ns + nr) * WORK_PER_END + nc * (int64_t)sizeof(struct scope__coll);
    int64_t nb = est <= budget ? 1 : (2 * est + budget - 1) / budget;
    if (nb > MAX_BUCKETS)
        nb = MAX_BUCKETS;
    int msgs = !(g->w->flags & SCOPE_WAITS_NO_MESSAGES);
    int64_t counts[SCOPE__STREAMS] = { ns, nr, nc, msgs ? ns : 0, msgs ? nr : 0 };
    /* the memory share of each of the three streams every analysis fills
     * (the message parts get as much, when wanted: a fifth of an end's
     * share would write them out almost at once) */
    int64_t share = budget / 2 / (nb * 3);
    return scope__spill_init(&g->sp, (int)nb, counts, share) < 0 ? SCOPE_ENOMEM : 0;
}

static int clock_facts(scope_profile *p, struct scope_waits *w)
{
    int n = scope_profile_rank_count(p);
    w->nranks = n;
    w->world = 0;
    for (int k = 0; k < n; k++)
        if (scope_profile_rank(p, k) + 1 > w->world)
            w->world = scope_profile_rank(p, k) + 1;
    w->rank_of = calloc((size_t)n + 1, sizeof *w->rank_of);
    w->err_ns = calloc((size_t)n + 1, sizeof *w->err_ns);
    w->host = calloc((size_t)n + 1, sizeof *w->host);
    w->aligned = calloc((size_t)n + 1, sizeof *w->aligned);
    w->hostname = calloc((size_t)n + 1, sizeof *w->hostname);
    w->index_of = malloc(((size_t)w->world + 1) * sizeof *w->index_of);
    if (!w->rank_of || !w->err_ns || !w->host || !w->aligned || !w->hostname || !w->index_of)
        return SCOPE_ENOMEM;
    for (int i = 0; i < w->world; i++)
        w->index_of[i] = -1;
    for (int k = 0; k < n; k++) {
        int rank = scope_profile_rank(p, k);
        int64_t v;
        w->rank_of[k] = rank;
        w->index_of[rank] = k;
        w->host[k] = scope_profile_rank_attr_int(p, rank, SCOPE_A_CLOCK_HOST_INDEX, &v) == 0
                         ? (int32_t)v : -1;
        w->aligned[k] = scope_profile_rank_attr_int(p, rank, SCOPE_A_CLOCK_ALIGNED, &v) == 0
                            ? (int8_t)v : -1;
        w->err_ns[k] = scope_profile_rank_attr_int(p, rank, SCOPE_A_CLOCK_ERROR_NS, &v) == 0 && v > 0
                           ? v : 0;
        char h[256];
        if (scope_profile_rank_attr_string(p, rank, SCOPE_A_HOSTNAME, h, sizeof h) >= 0 &&
            !(w->hostname[k] = strdup(h)))
            return SCOPE_ENOMEM;
    }
    return 0;
}

/* One bucket's matching: its ends, then its communicators' collective
 * calls, each read back whole and freed after. */
static int match_bucket(struct gather *g, int b, const int32_t *const *members,
                        const int32_t *msize, int ncomms, struct scope__cand_list *cands)
{
    void *s = NULL, *r = NULL, *c = NULL, *sm = NULL, *rm = NULL;
    int64_t ns = scope__spill_take(&g->sp, b, SCOPE__S_SENDS, &s);
    int64_t nr = ns < 0 ? ns : scope__spill_take(&g->sp, b, SCOPE__S_RECVS, &r);
    /* the message parts, one per end (none without messages) */
    int64_t nsm = nr < 0 ? nr : scope__spill_take(&g->sp, b, SCOPE__S_SENDS_MSG, &sm);
    int64_t nrm = nsm < 0 ? nsm : scope__spill_take(&g->sp, b, SCOPE__S_RECVS_MSG, &rm);
    int rc = nrm < 0 ? (int)nrm : 0;
    int msgs = !(g->w->flags & SCOPE_WAITS_NO_MESSAGES);
    if (rc == 0 && msgs && (nsm != ns || nrm != nr))
        rc = scope__fail(SCOPE_EIO, "the temporary files of the matching lost ends");
    if (rc == 0 && ns + nr > 0)
        rc = scope__waits_match_p2p(g->w, s, msgs ? sm : NULL, ns, r, msgs ? rm : NULL, nr,
                                    cands);
    free(s);
    free(r);
    free(sm);
    free(rm);
    int64_t nc = rc < 0 ? 0 : scope__spill_take(&g->sp, b, SCOPE__S_COLL, &c);
    if (nc < 0)
        rc = (int)nc;
    else if (rc == 0 && nc > 0)
        rc = scope__waits_match_coll(g->w, c, nc, members, msize, ncomms, cands);
    free(c);
    return rc;
}

static int64_t default_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    int64_t quarter = pages > 0 && size > 0 ? (int64_t)pages * size / 4 : DEFAULT_BUDGET;
    return quarter < DEFAULT_BUDGET ? quarter : DEFAULT_BUDGET;
}

static int64_t now_ns(clockid_t clk)
{
    struct timespec ts;
    if (clock_gettime(clk, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int scope_profile_waits(scope_profile *p, int flags, scope_waits **out)
{
    return scope_profile_waits_budget(p, flags, 0, out);
}

int scope_profile_waits_budget(scope_profile *p, int flags, int64_t memory_bytes,
                               scope_waits **out)
{
    if (out)
        *out = NULL;
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    if (memory_bytes < 0)
        return scope__fail(SCOPE_EINVAL, "a negative memory budget");
    int64_t budget = memory_bytes ? memory_bytes : default_budget();
    struct scope_waits *w = calloc(1, sizeof *w);
    struct gather g = { .p = p, .w = w };
    struct scope__cand_list cands = { 0 };
    const int32_t **members = NULL;
    int32_t *msize = NULL;
    int ncomms = 0;
    int rc = w ? 0 : SCOPE_ENOMEM;
    if (rc == 0) {
        w->flags = flags;
        rc = clock_facts(p, w);
    }
    int nreg = scope_profile_region_count(p);
    if (rc == 0) {
        g.op = calloc((size_t)nreg + 1, 1);
        g.kind = calloc((size_t)nreg + 1, 1);
        g.cls = calloc((size_t)nreg + 1, sizeof *g.cls);
        g.cur_s = calloc((size_t)nreg + 1, sizeof *g.cur_s);
        g.cur_e = calloc((size_t)nreg + 1, sizeof *g.cur_e);
        g.cur_n = calloc((size_t)nreg + 1, sizeof *g.cur_n);
        g.tbuf = calloc((size_t)nreg + 1, sizeof *g.tbuf);
        g.tcap = calloc((size_t)nreg + 1, sizeof *g.tcap);
        g.maxn = calloc((size_t)nreg + 1, sizeof *g.maxn);
        if (!g.op || !g.kind || !g.cls || !g.cur_s || !g.cur_e || !g.cur_n || !g.tbuf ||
            !g.tcap || !g.maxn)
            rc = SCOPE_ENOMEM;
        for (int r = 0; rc == 0 && r < nreg; r++) {
            g.op[r] = (uint8_t)classify(scope__region_call(p, r), &g.kind[r], &g.cls[r]);
            for (int k = 0; k < scope_profile_rank_count(p); k++) {
                scope__cell *c = scope__cell_at(p, r, k);
                if (c && c->n > g.maxn[r])
                    g.maxn[r] = c->n;
            }
            if (g.op[r] != SCOPE__W_NONE && g.op[r] != SCOPE__W_WAIT &&
                g.op[r] != SCOPE__W_TEST && g.maxn[r] > g.maxmoved)
                g.maxmoved = g.maxn[r];
        }
    }
    int64_t t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    if (rc == 0)
        rc = presize(&g, &cands, nreg, budget);
    for (int k = 0; rc == 0 && k < scope_profile_rank_count(p); k++)
        rc = gather_rank(&g, k);
    /* the column buffers back to the kernel before the matching's tables
     * are made: pages it gives again cost their zeroing, not a fault the
     * host must back */
    free_buffers(&g, nreg);
    int64_t t1 = now_ns(CLOCK_MONOTONIC), c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    /* the run's communicators (run_comms.c): an intercommunicator's
     * collectives are not analysed (size 0) */
    if (rc == 0 && (rc = ncomms = scope_profile_run_comm_count(p)) >= 0) {
        rc = 0;
        members = calloc((size_t)ncomms + 1, sizeof *members);
        msize = calloc((size_t)ncomms + 1, sizeof *msize);
        if (!members || !msize)
            rc = SCOPE_ENOMEM;
        for (int c = 0; rc == 0 && c < ncomms; c++) {
            scope_run_comm rcm;
            if ((rc = scope_profile_run_comm(p, c, &rcm)) < 0)
                break;
            members[c] = rcm.members;
            msize[c] = rcm.remote_size > 0 ? 0 : rcm.size;
        }
    }
    for (int b = 0; rc == 0 && b < g.sp.nbuckets; b++)
        rc = match_bucket(&g, b, members, msize, ncomms, &cands);
    if (rc == 0) {
        w->totals.buckets = g.sp.nbuckets;
        w->totals.spilled = scope__spill_spilled(&g.sp);
    }
    if (rc == 0)
        rc = scope__waits_fold(w, &cands, p);
    if (rc == 0) {
        w->totals.gather_ns = t1 - t0;
        w->totals.gather_cpu_ns = c1 - c0;
        w->totals.match_ns = now_ns(CLOCK_MONOTONIC) - t1;
        w->totals.match_cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - c1;
    }
    if (rc == 0) {
        /* names for the run's communicators: their labels */
        w->ncomms = ncomms;
        w->totals.comms = ncomms;
        w->comm_names = calloc((size_t)ncomms + 1, sizeof *w->comm_names);
        for (int c = 0; w->comm_names && c < ncomms && rc == 0; c++) {
            scope_run_comm rcm;
            if ((rc = scope_profile_run_comm(p, c, &rcm)) == 0 &&
                !(w->comm_names[c] = strdup(rcm.label)))
                rc = SCOPE_ENOMEM;
        }
        if (!w->comm_names)
            rc = SCOPE_ENOMEM;
    }
    free(members);
    free(msize);
    free(g.op);
    free(g.kind);
    free(g.cls);
    free(g.cur_s);
    free(g.cur_e);
    free(g.cur_n);
    free_buffers(&g, nreg);
    free(g.tbuf);
    free(g.tcap);
    free(g.maxn);
    scope__spill_free(&g.sp);
    free(cands.v);
    free(cands.best);
    free(cands.off);
    if (rc == SCOPE_ENOMEM)
        rc = scope__fail(SCOPE_ENOMEM, "out of memory matching messages (a smaller memory "
                         "budget makes the matching write to temporary files)");
    if (rc < 0) {
        scope_waits_free(w);
        return rc;
    }
    *out = w;
    return 0;
}

int scope_waits_has_data(const scope_waits *w)
{
    return w ? w->has_data : 0;
}

int64_t scope_waits_rows(const scope_waits *w, const scope_wait_row **rows)
{
    *rows = w ? w->rows : NULL;
    return w ? w->nrows : 0;
}

int64_t scope_waits_calls(const scope_waits *w, const scope_wait_call **calls)
{
    *calls = w ? w->calls : NULL;
    return w ? w->ncalls : 0;
}

int64_t scope_waits_messages(const scope_waits *w, const scope_message **msgs)
{
    *msgs = w ? w->msgs : NULL;
    return w ? w->nmsgs : 0;
}

int64_t scope_waits_unmatched(const scope_waits *w, const scope_unmatched **rows)
{
    *rows = w ? w->unmatched : NULL;
    return w ? w->nunmatched : 0;
}

void scope_waits_totals_get(const scope_waits *w, scope_waits_totals *out)
{
    if (w)
        *out = w->totals;
    else
        memset(out, 0, sizeof *out);
}

const char *scope_waits_comm_name(const scope_waits *w, int comm)
{
    return w && comm >= 0 && comm < w->ncomms ? w->comm_names[comm] : NULL;
}
