/*
 * mpi_moved.c - the byte model of docs/format.md "What MPI calls moved"
 * (mpi_moved.h): a rank's bytes are what its own arguments describe, not
 * a guess at the algorithm's traffic. Every argument is read where the
 * call's row of the vocabulary (format/calls_mpi.def) puts its role: the
 * count, the datatype, the peer, the root, the communicator..., so that a
 * call is modelled by its class and collective operation, never by its
 * name, and a new row of a known shape needs no code here.
 *
 * Sizes are computed only after the MPI library returned MPI_SUCCESS: the
 * arguments were then valid, so PMPI_Type_size and PMPI_Get_count cannot
 * fail or reach an error handler, and an application that passes an
 * invalid datatype sees exactly what it sees without scope.
 */
#include <string.h>

#include "mpi_comms.h"
#include "mpi_moved.h"
#include "mpi_windows.h"

/* ------------------------------------------------------- the arguments */

/* The argument playing `role`, 0 when the call has none. */
static inline uint64_t arg(const struct scope__mpi_args *m, enum scope_arg_role role)
{
    int p = scope_call_arg(m->row, role);
    return p >= 0 ? m->a[p] : 0;
}

/* The argument playing `role`, which every row of the call's class has
 * (a one-sided call's window and target): no check. */
static inline uint64_t need(const struct scope__mpi_args *m, enum scope_arg_role role)
{
    return m->a[scope_call_arg(m->row, role)];
}

static inline int has(const struct scope__mpi_args *m, enum scope_arg_role role)
{
    return scope_call_arg(m->row, role) >= 0;
}

/* Argument `role` as an int (a rank, a tag, a root). */
static inline int arg_int(const struct scope__mpi_args *m, enum scope_arg_role role)
{
    return (int)(uint32_t)arg(m, role);
}

/* Count argument `role` x the size of datatype `type`. */
static inline int64_t sized(const struct scope__mpi_args *m, enum scope_arg_role count,
                     enum scope_arg_role type)
{
    return scope__mpi_cnt(m->big, arg(m, count)) * scope__mpi_type_size(arg(m, type));
}

/* Entry i of count array `role`. */
static int64_t count_at(const struct scope__mpi_args *m, enum scope_arg_role role, int i)
{
    return scope__mpi_count_at(m->big, arg(m, role), i);
}

/* Sum over i < n of count array `role`. */
static int64_t sum_counts(const struct scope__mpi_args *m, enum scope_arg_role role, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n && arg(m, role); i++)
        s += count_at(m, role, i);
    return s;
}

/* Sum of count array `role`'s entries that `skip` does not mark. */
static int64_t sum_live(const struct scope__mpi_args *m, enum scope_arg_role role, int n,
                        const uint8_t *skip)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        if (!skip || !skip[i])
            s += count_at(m, role, i);
    return s;
}

/* counts[i] x MPI_Type_size(types[i]): block i of MPI_Alltoallw & co,
 * whose blocks each have a datatype; 0 without the arrays. */
static int64_t typed_at(const struct scope__mpi_args *m, enum scope_arg_role counts,
                        enum scope_arg_role types, int i)
{
    const unsigned char *t = (const unsigned char *)(uintptr_t)arg(m, types);
    int64_t k = t ? count_at(m, counts, i) : 0;
    if (!k)
        return 0;
    uint64_t h = 0;
    size_t hs = m->abi->handle_size;
    memcpy(&h, t + (size_t)i * hs, hs);
    return k * scope__mpi_type_size(h);
}

/* Sum over i < n of typed_at() (MPI_Alltoallw's per-block datatypes),
 * skipping the blocks `skip` marks (neighbours that are MPI_PROC_NULL). */
static int64_t sum_typed(const struct scope__mpi_args *m, enum scope_arg_role counts,
                         enum scope_arg_role types, int n, const uint8_t *skip)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        if (!skip || !skip[i])
            s += typed_at(m, counts, types, i);
    return s;
}

/* A send's own count and datatype: scount/stype where the call has both
 * sides (MPI_Sendrecv), else count/type (MPI_Send, MPI_Sendrecv_replace). */
static int64_t sent(const struct scope__mpi_args *m)
{
    return has(m, SCOPE_ARG_scount) ? sized(m, SCOPE_ARG_scount, SCOPE_ARG_stype)
                                    : sized(m, SCOPE_ARG_count, SCOPE_ARG_type);
}

static int in_place(const struct scope__mpi_args *m, enum scope_arg_role buf)
{
    return arg(m, buf) == m->abi->in_place;
}

/* -------------------------------------------------------------- statuses */

int64_t scope__mpi_status_bytes(const scope__mpi_abi *abi, const void *status, int *cancelled)
{
    int64_t n64 = 0;
    int n = 0;
    *cancelled = 0;
    if (scope__mpi_status_size(abi, status, &n64, cancelled))
        return n64 > 0 ? n64 : 0;
    if (scope__P.test_cancelled(status, cancelled) == 0 && *cancelled)
        return 0;
    *cancelled = 0;
    if (scope__P.get_count_c ? scope__P.get_count_c(status, abi->dt_byte, &n64) == 0
                             : (scope__P.get_count(status, abi->dt_byte, &n) == 0 && ((n64 = n), 1)))
        return n64 > 0 ? n64 : 0;
    return 0;
}

/* Source, tag and size received, from a status the call filled. */
static void from_status(const scope__mpi_abi *abi, const struct scope__comm *c, uint64_t status,
                        struct scope_call_data *d)
{
    const char *s = (const char *)(uintptr_t)status;
    int src, tag, cancelled;
    memcpy(&src, s + abi->status_source_off, sizeof src);
    memcpy(&tag, s + abi->status_tag_off, sizeof tag);
    if (src == abi->proc_null)
        return;
    int64_t n = scope__mpi_status_bytes(abi, s, &cancelled);
    if (n > 0)
        d->bytes_received = n;
    d->source = scope__mpi_world_of(c, src, c->remote_size > 0);
    if (d->tag == SCOPE_DATA_NO_TAG)
        d->tag = tag;
}

/* --------------------------------------------------------- point to point */

/* A posted receive's source (MPI_ANY_SOURCE: -1, its completion's status
 * says) and tag; from MPI_PROC_NULL nothing. */
static void posted_source(const struct scope__mpi_args *m, const struct scope__comm *c,
                          struct scope_call_data *d)
{
    int peer = arg_int(m, SCOPE_ARG_source);
    if (peer == m->abi->proc_null)
        return;
    d->source = peer == m->abi->any_source ? -1 : scope__mpi_world_of(c, peer, c->remote_size > 0);
    d->tag = arg_int(m, has(m, SCOPE_ARG_rtag) ? SCOPE_ARG_rtag : SCOPE_ARG_tag);
}

static int point_to_point(const struct scope__mpi_args *m, const struct scope__comm *c,
                          struct scope_call_data *d)
{
    const scope__mpi_abi *abi = m->abi;
    int inter = c->remote_size > 0;
    const struct scope_call_row *r = m->row;
    int peer;
    switch (r->cls) {
    case SCOPE_CC_SEND:
        peer = arg_int(m, SCOPE_ARG_dest);
        if (peer == abi->proc_null)
            return 0;
        d->bytes_sent = sent(m);
        d->dest = scope__mpi_world_of(c, peer, inter);
        d->tag = arg_int(m, SCOPE_ARG_tag);
        return 0;
    case SCOPE_CC_RECV:
        if (r->form == SCOPE_CF_BLOCKING) {
            from_status(abi, c, arg(m, SCOPE_ARG_status), d);    /* MPI_Recv, MPI_Mrecv */
            return 0;
        }
        /* a posted receive: what it asks for (a matched one, MPI_Imrecv:
         * nothing but its communicator); what arrived is its
         * completion's */
        if (has(m, SCOPE_ARG_source))
            posted_source(m, c, d);
        return 0;
    case SCOPE_CC_SENDRECV:
        peer = arg_int(m, SCOPE_ARG_dest);
        if (peer != abi->proc_null) {
            d->bytes_sent = sent(m);
            d->dest = scope__mpi_world_of(c, peer, inter);
        }
        if (r->form == SCOPE_CF_BLOCKING) {
            d->tag = arg_int(m, SCOPE_ARG_stag);
            from_status(abi, c, arg(m, SCOPE_ARG_status), d);
            return 0;
        }
        /* MPI_Isendrecv & co: the receive as posted, completed from its
         * status; the tag is the send tag, as MPI_Sendrecv's */
        posted_source(m, c, d);
        d->tag = arg_int(m, SCOPE_ARG_stag);
        return 0;
    }
    return -1;
}

/* ------------------------------------------------------------ collectives */

/* A rooted collective's root: sets the partner columns, and says whether
 * this rank is the root (1), another member (0), or takes no part
 * (MPI_PROC_NULL on an intercommunicator: -1). */
static int rooted(const struct scope__mpi_args *m, const struct scope__comm *c,
                  struct scope_call_data *d)
{
    const scope__mpi_abi *abi = m->abi;
    int root = arg_int(m, SCOPE_ARG_root);
    if (c->remote_size > 0) {
        if (root == abi->proc_null)
            return -1;
        if (root == abi->root) {
            d->dest = d->source = scope__mpi_world_of(c, c->me, 0);
            return 1;
        }
        d->dest = d->source = scope__mpi_world_of(c, root, 1);
        return 0;
    }
    d->dest = d->source = scope__mpi_world_of(c, root, 0);
    return root == c->me;
}

/* The neighbourhood collectives: a block per neighbour of the topology
 * (docs/format.md); a neighbour that is MPI_PROC_NULL (a Cartesian edge)
 * moves nothing. An allgather's one send buffer counts once. */
static void neighbourhood(const struct scope__mpi_args *m, const struct scope__comm *c,
                          struct scope_call_data *d)
{
    if (!scope__mpi_comm_neighbours(m->abi, c))
        return;
    int in = c->indegree, out = c->outdegree;
    int live_in = in, live_out = out;
    for (int i = 0; c->in_null && i < in; i++)
        live_in -= c->in_null[i];
    for (int i = 0; c->out_null && i < out; i++)
        live_out -= c->out_null[i];
    switch (m->row->coll) {
    case SCOPE_COLL_OP_NEIGHBOR_ALLGATHER:
        d->bytes_sent = live_out ? sized(m, SCOPE_ARG_scount, SCOPE_ARG_stype) : 0;
        d->bytes_received = sized(m, SCOPE_ARG_rcount, SCOPE_ARG_rtype) * live_in;
        return;
    case SCOPE_COLL_OP_NEIGHBOR_ALLGATHERV:
        d->bytes_sent = live_out ? sized(m, SCOPE_ARG_scount, SCOPE_ARG_stype) : 0;
        d->bytes_received = sum_live(m, SCOPE_ARG_rcounts, in, c->in_null) *
                            scope__mpi_type_size(arg(m, SCOPE_ARG_rtype));
        return;
    case SCOPE_COLL_OP_NEIGHBOR_ALLTOALL:
        d->bytes_sent = sized(m, SCOPE_ARG_scount, SCOPE_ARG_stype) * live_out;
        d->bytes_received = sized(m, SCOPE_ARG_rcount, SCOPE_ARG_rtype) * live_in;
        return;
    case SCOPE_COLL_OP_NEIGHBOR_ALLTOALLV:
        d->bytes_sent = sum_live(m, SCOPE_ARG_scounts, out, c->out_null) *
                        scope__mpi_type_size(arg(m, SCOPE_ARG_stype));
        d->bytes_received = sum_live(m, SCOPE_ARG_rcounts, in, c->in_null) *
                            scope__mpi_type_size(arg(m, SCOPE_ARG_rtype));
        return;
    case SCOPE_COLL_OP_NEIGHBOR_ALLTOALLW:
        d->bytes_sent = sum_typed(m, SCOPE_ARG_scounts, SCOPE_ARG_stypes, out, c->out_null);
        d->bytes_received = sum_typed(m, SCOPE_ARG_rcounts, SCOPE_ARG_rtypes, in, c->in_null);
        return;
    }
}

/* Gather and scatter, one model in two directions: `to_root` 1 for
 * MPI_Gather(v) (every member sends to the root, whose receive arguments
 * describe the whole), 0 for MPI_Scatter(v) (the root sends to every
 * member, its send arguments describe the whole). The root's side of the
 * arguments is read at the root only (elsewhere it need not be valid);
 * MPI_IN_PLACE on the member side's buffer at the root leaves the root's
 * own block where the root's side describes it. The v-forms give a count
 * per member. Always inlined with a constant direction, so each case
 * costs what its own copy did: no call, no branch on the direction. */
static inline __attribute__((always_inline)) void fan(const struct scope__mpi_args *m,
                                                      const struct scope__comm *c,
                                                      struct scope_call_data *d, int inter,
                                                      int n, int to_root)
{
    enum scope_arg_role all = to_root ? SCOPE_ARG_rcount : SCOPE_ARG_scount;
    enum scope_arg_role alls = to_root ? SCOPE_ARG_rcounts : SCOPE_ARG_scounts;
    enum scope_arg_role all_type = to_root ? SCOPE_ARG_rtype : SCOPE_ARG_stype;
    enum scope_arg_role own = to_root ? SCOPE_ARG_scount : SCOPE_ARG_rcount;
    enum scope_arg_role own_type = to_root ? SCOPE_ARG_stype : SCOPE_ARG_rtype;
    enum scope_arg_role own_buf = to_root ? SCOPE_ARG_sbuf : SCOPE_ARG_rbuf;
    int64_t *at_root = to_root ? &d->bytes_received : &d->bytes_sent;
    int64_t *mine = to_root ? &d->bytes_sent : &d->bytes_received;
    int v = m->row->coll == (to_root ? SCOPE_COLL_OP_GATHERV : SCOPE_COLL_OP_SCATTERV);
    int r = rooted(m, c, d);
    if (r < 0)
        return;
    if (r == 1)
        *at_root = v ? sum_counts(m, alls, n) * scope__mpi_type_size(arg(m, all_type))
                     : sized(m, all, all_type) * n;
    if (r == 1 && inter)
        return;   /* the root of an intercommunicator has no block of its own */
    if (in_place(m, own_buf) && r == 1)
        *mine = v ? count_at(m, alls, c->me) * scope__mpi_type_size(arg(m, all_type))
                  : sized(m, all, all_type);
    else
        *mine = sized(m, own, own_type);
}

/* A collective on communicator c (d->comm set), by its operation: the
 * blocking call, its nonblocking form and its persistent form alike (the
 * I- and _init rows append a request, and info, to the same roles).
 * Returns 0, or -1 when nothing is to be recorded. */
static int collective(const struct scope__mpi_args *m, const struct scope__comm *c,
                      struct scope_call_data *d)
{
    int inter = c->remote_size > 0;
    int n = inter ? c->remote_size : c->size;
    int r;
    switch (m->row->coll) {
    case SCOPE_COLL_OP_BARRIER:
        return 0;
    case SCOPE_COLL_OP_BCAST:
        r = rooted(m, c, d);
        if (r == 1)
            d->bytes_sent = sized(m, SCOPE_ARG_count, SCOPE_ARG_type);
        else if (r == 0)
            d->bytes_received = sized(m, SCOPE_ARG_count, SCOPE_ARG_type);
        return 0;
    case SCOPE_COLL_OP_REDUCE:
        r = rooted(m, c, d);
        if (r < 0)
            return 0;
        if (!inter || r == 0)
            d->bytes_sent = sized(m, SCOPE_ARG_count, SCOPE_ARG_type);
        if (r == 1)
            d->bytes_received = sized(m, SCOPE_ARG_count, SCOPE_ARG_type);
        return 0;
    case SCOPE_COLL_OP_ALLREDUCE:
    case SCOPE_COLL_OP_SCAN:
    case SCOPE_COLL_OP_EXSCAN:
        d->bytes_sent = d->bytes_received = sized(m, SCOPE_ARG_count, SCOPE_ARG_type);
        return 0;
    case SCOPE_COLL_OP_ALLTOALL:
        d->bytes_received = sized(m, SCOPE_ARG_rcount, SCOPE_ARG_rtype) * n;
        d->bytes_sent = in_place(m, SCOPE_ARG_sbuf) ? d->bytes_received
                                                    : sized(m, SCOPE_ARG_scount, SCOPE_ARG_stype) * n;
        return 0;
    case SCOPE_COLL_OP_ALLTOALLV:
        d->bytes_received = sum_counts(m, SCOPE_ARG_rcounts, n) *
                            scope__mpi_type_size(arg(m, SCOPE_ARG_rtype));
        d->bytes_sent = in_place(m, SCOPE_ARG_sbuf)
                            ? d->bytes_received
                            : sum_counts(m, SCOPE_ARG_scounts, n) *
                                  scope__mpi_type_size(arg(m, SCOPE_ARG_stype));
        return 0;
    case SCOPE_COLL_OP_ALLTOALLW:
        d->bytes_received = sum_typed(m, SCOPE_ARG_rcounts, SCOPE_ARG_rtypes, n, NULL);
        d->bytes_sent = in_place(m, SCOPE_ARG_sbuf)
                            ? d->bytes_received
                            : sum_typed(m, SCOPE_ARG_scounts, SCOPE_ARG_stypes, n, NULL);
        return 0;
    case SCOPE_COLL_OP_ALLGATHER:
        d->bytes_received = sized(m, SCOPE_ARG_rcount, SCOPE_ARG_rtype) * n;
        d->bytes_sent = in_place(m, SCOPE_ARG_sbuf) ? sized(m, SCOPE_ARG_rcount, SCOPE_ARG_rtype)
                                                    : sized(m, SCOPE_ARG_scount, SCOPE_ARG_stype);
        return 0;
    case SCOPE_COLL_OP_ALLGATHERV:
        d->bytes_received = sum_counts(m, SCOPE_ARG_rcounts, n) *
                            scope__mpi_type_size(arg(m, SCOPE_ARG_rtype));
        d->bytes_sent = in_place(m, SCOPE_ARG_sbuf)
                            ? count_at(m, SCOPE_ARG_rcounts, c->me) *
                                  scope__mpi_type_size(arg(m, SCOPE_ARG_rtype))
                            : sized(m, SCOPE_ARG_scount, SCOPE_ARG_stype);
        return 0;
    case SCOPE_COLL_OP_GATHER:
    case SCOPE_COLL_OP_GATHERV:
        fan(m, c, d, inter, n, 1);
        return 0;
    case SCOPE_COLL_OP_SCATTER:
    case SCOPE_COLL_OP_SCATTERV:
        fan(m, c, d, inter, n, 0);
        return 0;
    case SCOPE_COLL_OP_REDUCE_SCATTER:
        d->bytes_sent = sum_counts(m, SCOPE_ARG_rcounts, c->size) *
                        scope__mpi_type_size(arg(m, SCOPE_ARG_type));
        d->bytes_received = count_at(m, SCOPE_ARG_rcounts, c->me) *
                            scope__mpi_type_size(arg(m, SCOPE_ARG_type));
        return 0;
    case SCOPE_COLL_OP_REDUCE_SCATTER_BLOCK:
        d->bytes_received = sized(m, SCOPE_ARG_rcount, SCOPE_ARG_type);
        d->bytes_sent = d->bytes_received * c->size;
        return 0;
    }
    return -1;
}

int64_t scope__mpi_self_bytes(const struct scope__mpi_args *m, const struct scope__comm *c)
{
    int me = c->me;
    if (m->row->coll == SCOPE_COLL_OP_ALLTOALLV) {
        if (in_place(m, SCOPE_ARG_sbuf))
            return count_at(m, SCOPE_ARG_rcounts, me) * scope__mpi_type_size(arg(m, SCOPE_ARG_rtype));
        return count_at(m, SCOPE_ARG_scounts, me) * scope__mpi_type_size(arg(m, SCOPE_ARG_stype));
    }
    if (m->row->coll == SCOPE_COLL_OP_ALLTOALLW)
        return in_place(m, SCOPE_ARG_sbuf) ? typed_at(m, SCOPE_ARG_rcounts, SCOPE_ARG_rtypes, me)
                                           : typed_at(m, SCOPE_ARG_scounts, SCOPE_ARG_stypes, me);
    return 0;
}

/* --------------------------------------------------------------- one-sided */

static uint64_t handle_bits(const scope__mpi_abi *abi, uint64_t h)
{
    return abi->handle_size == 4 ? h & 0xffffffffu : h;
}

/* A one-sided call: what the origin's buffers send (buf, and a compare
 * buffer: count x type, or one element of type where the call takes no
 * count) and what its result buffer receives (rbuf: rcount x rtype, or
 * one element), the target as a world rank through the window's group.
 * An operation MPI_NO_OP with a result buffer is a fetch: nothing sent,
 * and no destination (the origin sent no message; its get is the only
 * one, docs/format.md).
 * (The positions are read once: MPI_Put is a call codes make often.) */
static int one_sided(const struct scope__mpi_args *m, struct scope_call_data *d)
{
    const scope__mpi_abi *abi = m->abi;
    const struct scope_call_row *r = m->row;
    const uint64_t *a = m->a;
    const struct scope__win *w = scope__mpi_win_get(abi, need(m, SCOPE_ARG_win));
    if (!w)
        return -1;
    d->comm = w->comm;
    int t = (int)(uint32_t)need(m, SCOPE_ARG_target);
    if (t == abi->proc_null)
        return 0;
    int32_t wr = t >= 0 && t < w->size ? w->world[t] : -1;
    int buf = scope_call_arg(r, SCOPE_ARG_buf), rbuf = scope_call_arg(r, SCOPE_ARG_rbuf);
    int count = scope_call_arg(r, SCOPE_ARG_count), type = scope_call_arg(r, SCOPE_ARG_type);
    if (buf >= 0) {
        int op = scope_call_arg(r, SCOPE_ARG_op);
        int fetch = rbuf >= 0 && op >= 0 &&
                    handle_bits(abi, a[op]) == handle_bits(abi, abi->op_no_op);
        if (!fetch) {
            /* no count: one element (MPI_Fetch_and_op, MPI_Compare_and_swap) */
            int64_t one = scope__mpi_type_size(a[type]);
            d->bytes_sent = (count >= 0 ? scope__mpi_cnt(m->big, a[count]) * one : one) +
                            (has(m, SCOPE_ARG_cbuf) ? one : 0);
            d->dest = wr;   /* a fetch sends nothing to the target: no message */
        }
    }
    if (rbuf >= 0) {
        int rcount = scope_call_arg(r, SCOPE_ARG_rcount);
        d->bytes_received = rcount >= 0 ? sized(m, SCOPE_ARG_rcount, SCOPE_ARG_rtype)
                                        : scope__mpi_type_size(a[type]);
        d->source = wr;
    }
    return 0;
}

/* ------------------------------------------------------------------ calls */

int scope__mpi_model_covers(const struct scope_call_row *row)
{
    switch (row->cls) {
    case SCOPE_CC_SEND:
    case SCOPE_CC_START:
    case SCOPE_CC_WAIT:
    case SCOPE_CC_TEST:
    case SCOPE_CC_REQUEST_FREE:
    case SCOPE_CC_COLLECTIVE:
    case SCOPE_CC_NEIGHBOR:
    case SCOPE_CC_ONE_SIDED:
    case SCOPE_CC_WINDOW:
    case SCOPE_CC_COMM_NEW:
        return 1;
    case SCOPE_CC_RECV:
    case SCOPE_CC_SENDRECV:
        return 1;
    case SCOPE_CC_PROBE:
        /* a probe moves nothing; a matched one (MPI_Mprobe) says on which
         * communicator its message's receive is */
        return scope_call_arg(row, SCOPE_ARG_message) >= 0;
    default:
        return 0;
    }
}

int scope__mpi_moved(const struct scope__mpi_args *m, struct scope_call_data *d,
                     const struct scope__comm **used)
{
    const struct scope__comm *c;
    *used = NULL;
    switch (m->row->cls) {
    case SCOPE_CC_ONE_SIDED:
        return one_sided(m, d);
    case SCOPE_CC_WINDOW:
        c = scope__mpi_comm_get(m->abi, arg(m, SCOPE_ARG_comm));
        if (!c)
            return -1;
        d->comm = c->id;
        scope__mpi_win_created(m->abi, c, (const void *)(uintptr_t)arg(m, SCOPE_ARG_newwin));
        return 0;
    case SCOPE_CC_SEND:
    case SCOPE_CC_RECV:
    case SCOPE_CC_SENDRECV:
    case SCOPE_CC_COLLECTIVE:
    case SCOPE_CC_NEIGHBOR:
        break;
    default:
        return -1;
    }
    c = m->comm ? m->comm
        : has(m, SCOPE_ARG_comm) ? scope__mpi_comm_get(m->abi, arg(m, SCOPE_ARG_comm)) : NULL;
    *used = c;
    if (!c)
        return -1;
    d->comm = c->id;
    if (m->row->cls == SCOPE_CC_COLLECTIVE)
        return collective(m, c, d);
    if (m->row->cls == SCOPE_CC_NEIGHBOR) {
        neighbourhood(m, c, d);
        return 0;
    }
    return point_to_point(m, c, d);
}
