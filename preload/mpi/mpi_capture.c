/*
 * mpi_capture.c - what each MPI call moved, from its own arguments
 * (mpi_capture.h), for the MPI functions mpi_ops.c's table names: the
 * byte model of each (docs/format.md, "What MPI calls moved": a rank's
 * bytes are what its own arguments describe, not a guess at the
 * algorithm's traffic) for point-to-point calls and collectives, the
 * nonblocking and persistent requests followed to their completion. The
 * communicators (their world ranks, creating calls, neighbours) are
 * mpi_comms.c's, the one-sided calls and windows mpi_rma.c's. The entry
 * and exit of every call are mpi_capture_hot.c's, which takes the most
 * frequent calls itself and hands the rest here.
 *
 * Sizes are computed only after the MPI library returned MPI_SUCCESS: the
 * arguments were then valid, so PMPI_Type_size and PMPI_Get_count cannot
 * fail or reach an error handler, and an application that passes an
 * invalid datatype sees exactly what it sees without scope. Everything is
 * called through PMPI_* looked up once; the preload's own calls are never
 * recorded (their return address is the preload's).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "arch_trampoline.h"
#include "journal.h"
#include "mpi_abi.h"
#include "mpi_capture.h"
#include "mpi_capture_state.h"
#include "mpi_comms.h"
#include "mpi_kinds.h"
#include "mpi_ops.h"
#include "mpi_rma.h"
#include "mpi_requests.h"
#include "scope_internal.h"
#include "self_depth.h"
#include "settings.h"



int scope__mpi_capture_enabled(void)
{
    static int decided = -1;
    if (decided >= 0)
        return decided;
    decided = (int)scope__setting_u(SCOPE_SET_MPI_DATA);
    if (scope__launcher_rank() <= 0)
        scope__setting_say(SCOPE_SET_MPI_DATA, "using 1");
    return decided;
}

/* ------------------------------------------------------------ the capture */

#define MAX_OUT SCOPE_CAPTURE_MAX_OUT
#define MAX_FOLLOW SCOPE_CAPTURE_MAX_FOLLOW

/* Writes the call's staged records now, or keeps them for the outer
 * call's end. */
static void out_flush(int keep)
{
    struct scope__capture_out *o = &scope__cap.out;
    if (!o->n)
        return;
    scope__capture_put(o->r, o->n, keep);
    o->n = 0;
}

/* Adds one record to the call's records (scope__record_data_recs sets
 * the mark bit of its ticks when it writes them). */
static void emit(uint64_t ticks, uint32_t word, uint32_t aux, int keep)
{
    struct scope__capture_out *o = &scope__cap.out;
    if (o->n == MAX_OUT)
        out_flush(keep);    /* a completion call of many requests */
    o->r[o->n++] = (struct scope_rec){ ticks, word, aux };
}

static void emit_data(const struct scope_call_data *d, int keep)
{
    struct scope__capture_out *o = &scope__cap.out;
    if (o->n + 2 > MAX_OUT)
        out_flush(keep);
    o->n += (unsigned)scope_data_pack(d, &o->r[o->n]);   /* marked already: no matter */
}

/* The status argument of a kind, or -1. */
static int status_arg(int kind)
{
    switch (kind) {
    case K_RECV: return 6;
    case K_SENDRECV: return 11;
    case K_SENDRECV_REPLACE: return 8;
    case K_WAIT: return 1;
    case K_TEST: return 2;
    case K_WAITANY: return 3;
    case K_TESTANY: return 4;
    default: return -1;
    }
}

/* Gives the call `buf` for its argument `st` (a status, or an array of
 * them) where the caller passed MPI_STATUS(ES)_IGNORE, in the saved
 * registers or on the stack and in the copy alike. */
static void lend_status(uint64_t *saved, uintptr_t *slot, int st, const void *buf)
{
    scope__cap.a[st] = (uint64_t)(uintptr_t)buf;
    *scope__capture_arg_at(saved, slot, st) = scope__cap.a[st];
}

/* ------------------------------------------------- requests: the entry */

/* The status array argument of a completion kind, or -1. */
static int status_array_arg(int kind)
{
    return kind == K_WAITALL ? 2 : kind == K_TESTALL ? 3 : kind == K_WAITSOME ? 4 : -1;
}

/* Copies the requests a completion call got (MPI overwrites completed
 * ones with MPI_REQUEST_NULL) and lends it statuses where the caller
 * passed MPI_STATUSES_IGNORE, so that receives can say what arrived. */
static void completion_enter(const scope__mpi_abi *abi, int kind, uint64_t *saved, uintptr_t *slot)
{
    struct scope__mpi_state *c = &scope__cap;
    if (kind == K_SEND_INIT || kind == K_RECV_INIT || kind == K_COLL_INIT)
        return;     /* the request is read at the exit */
    struct scope__capture_ext *e = scope__capture_ext();
    if (!e) {
        c->op = 0;
        return;
    }
    int one = kind == K_WAIT || kind == K_TEST || kind == K_REQUEST_FREE || kind == K_START;
    int count = one ? 1 : (int)(uint32_t)c->a[0];
    const unsigned char *reqs = (const unsigned char *)(uintptr_t)(one ? c->a[0] : c->a[1]);
    e->nhandles = 0;
    for (int i = 0; reqs && i < count && i < MAX_FOLLOW; i++)
        e->handles[e->nhandles++] = scope__capture_handle_at(abi, reqs + (size_t)i * abi->handle_size);
    int st = status_array_arg(kind);
    if (st >= 0 && c->a[st] == (uint64_t)(uintptr_t)abi->status_ignore && count <= MAX_FOLLOW &&
        abi->status_size <= 32)
        lend_status(saved, slot, st, e->statuses);
}

void scope__capture_generic_enter(const struct scope__mpi_op *o, const scope__mpi_abi *abi,
                                  uint64_t *saved, uintptr_t *slot)
{
    struct scope__mpi_state *c = &scope__cap;
    /* the register arguments all at once (a fixed count, unrolled),
     * whatever the function takes; then those on the stack */
#pragma GCC unroll 8
    for (int k = 0; k < SCOPE_ARCH_SAVED_ARGS; k++)
        c->a[k] = saved[-1 - k];
    for (int k = SCOPE_ARCH_SAVED_ARGS; k < o->nargs; k++)
        c->a[k] = slot[1 + (k - SCOPE_ARCH_SAVED_ARGS)];
    int st = status_arg(o->kind);
    if (st >= 0 && c->a[st] == (uint64_t)(uintptr_t)abi->status_ignore)
        lend_status(saved, slot, st, c->status);
    if (o->kind >= K_WAIT)
        completion_enter(abi, o->kind, saved, slot);
}

/* ------------------------------------------------- requests: the exit */

static int64_t status_bytes(const scope__mpi_abi *abi, const void *status, int *cancelled)
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

int scope__capture_completion(const scope__mpi_abi *abi, uint64_t handle, const void *status,
                              struct scope_rec *out)
{
    struct scope__req r;
    if (!scope__req_take(handle, &r))
        return 0;
    uint64_t src1 = 0, tag2 = 0;
    uint32_t bytes = 0;
    if (r.recv && status) {
        const char *s = status;
        int src, tag, cancelled = 0;
        memcpy(&src, s + abi->status_source_off, sizeof src);
        memcpy(&tag, s + abi->status_tag_off, sizeof tag);
        int64_t n64 = status_bytes(abi, status, &cancelled);
        if (cancelled) {
            src1 = SCOPE_REQ_CANCELLED;
        } else if (src != abi->proc_null) {
            bytes = n64 > UINT32_MAX ? UINT32_MAX : (uint32_t)n64;
            int32_t w = src >= 0 && src < r.world_n ? r.world[r.world_off + src] : -1;
            src1 = w >= 0 && w < 0xfffe ? (uint64_t)(w + 1) : 0;
            tag2 = tag >= -1 && tag < (1 << 14) - 2 ? (uint64_t)(tag + 2) : 0;
        }
    }
    *out = (struct scope_rec){ SCOPE_REQ_COMPLETION | r.id | (src1 << 32) | (tag2 << 48),
                               SCOPE_REC_REQUEST_WORD, bytes };
    return 1;
}

/* One completed request: its completion record, with
 * what a receive's status says. */
static void completed(const scope__mpi_abi *abi, uint64_t handle, const void *status, int keep)
{
    struct scope_rec r;
    if (scope__capture_completion(abi, handle, status, &r))
        emit(r.ticks, r.word, r.aux, keep);
}

static int bytes_of(const scope__mpi_abi *abi, int kind, const uint64_t *a,
                    struct scope_call_data *d);

/* A persistent request made: what each of its starts will move. */
static void persistent_init(const scope__mpi_abi *abi, int kind, const uint64_t *a)
{
    struct scope_call_data d = { 0, 0, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_TAG, 0 };
    const void *rp = (const void *)(uintptr_t)a[6];
    if (!rp || bytes_of(abi, kind == K_SEND_INIT ? K_SEND : K_IRECV, a, &d) < 0 || !scope__cap.used_comm)
        return;
    uint64_t h = scope__capture_handle_at(abi, rp);
    /* a receive from MPI_PROC_NULL: nothing to read at its completions
     * (mpi_capture_hot.c) */
    int recv = kind == K_RECV_INIT && (int)(uint32_t)a[3] != abi->proc_null;
    struct scope__persist p = { d.bytes_sent, 0, d.dest, d.source, d.tag, d.comm, 0,
                                scope__capture_req(scope__cap.used_comm, recv) };
    scope__req_persist(h, &p);
}

/* The shape in the byte model (scope_format.h) of the collective of
 * blocking kind `base`: what a reader needs to give its starts the
 * blocking call's pairs. */
static int coll_shape(int base)
{
    switch (base) {
    case K_BCAST: case K_SCATTER: case K_SCATTERV: return SCOPE_COLL_ONE_TO_ALL;
    case K_GATHER: case K_GATHERV: case K_REDUCE: return SCOPE_COLL_ALL_TO_ONE;
    case K_ALLTOALL: return SCOPE_COLL_ALL_EQUAL;
    case K_ALLGATHER: case K_ALLGATHERV: return SCOPE_COLL_ALL_SAME;
    case K_ALLTOALLV: case K_ALLTOALLW: return SCOPE_COLL_ALL_SPREAD;
    default: return SCOPE_COLL_NO_PAIRS;
    }
}

/* A persistent collective made (MPI_Bcast_init, ...): each start moves
 * what the blocking call (`base`) with these arguments would, and names
 * the same root (dest and source, as MPI_Bcast's columns do). Its tag
 * stays none: that is what tells a reader the start's dest is a root,
 * never a point-to-point partner (every message has a tag). Each start's
 * post record says which collective it is (its shape), so that a reader
 * can give it the blocking call's pairs however it was started. Its
 * request is the last argument. */
static void persistent_coll_init(const scope__mpi_abi *abi, int base, int nargs, const uint64_t *a)
{
    struct scope_call_data d = { 0, 0, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_TAG, 0 };
    const void *rp = (const void *)(uintptr_t)a[nargs - 1];
    if (!rp || bytes_of(abi, base, a, &d) < 0)
        return;
    uint64_t h = scope__capture_handle_at(abi, rp);
    struct scope__persist p = { d.bytes_sent, d.bytes_received, d.dest, d.source,
                                SCOPE_DATA_NO_TAG, d.comm, coll_shape(base), { 0, 0, NULL, 0, 0 } };
    scope__req_persist(h, &p);
}

/* What a send's post record says of its message (journal.h): the
 * destination, tag and bytes, so that a post whose call names several
 * messages (MPI_Startall) still says where each went. */
struct post_msg {
    int32_t dest, tag;
    int64_t bytes;
};
static const struct post_msg NO_MSG = { SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_TAG, 0 };

/* The post record naming post `id` (journal.h). */
static void emit_post(uint32_t id, int recv, struct post_msg m, int keep)
{
    struct scope_rec r;
    scope_post_pack(id, recv, m.dest, m.tag, m.bytes, &r);
    emit(r.ticks, r.word, r.aux, keep);
}

/* Follows request `handle` from its post (a nonblocking call, or a start
 * of a persistent one) and records the post record naming it. */
static void name_post(uint64_t handle, struct scope__req r, struct post_msg m, int keep)
{
    uint32_t id = scope__req_post(handle, &r);
    if (id)
        emit_post(id, r.recv, m, keep);
}

/* Follows a started persistent collective's request `handle` and records
 * its collective post record (journal.h) in place of the post record:
 * its shape, root and the bytes its pairs need (what a one-to-all
 * collective brought this rank, what the others sent), the one account
 * of the collective when an MPI_Startall started several requests. */
static void name_coll_post(uint64_t handle, const struct scope__persist *p, int keep)
{
    struct scope__req r = p->r;
    uint32_t id = scope__req_post(handle, &r);
    if (!id)
        return;
    struct scope_coll_post cp = { id, p->coll, p->dest >= 0 ? p->dest : p->source,
                                  p->coll == SCOPE_COLL_ONE_TO_ALL ? p->bytes_received : p->bytes };
    struct scope__capture_out *o = &scope__cap.out;
    if (o->n + 2 > MAX_OUT)
        out_flush(keep);    /* a long form's two records together */
    o->n += (unsigned)scope_collpost_pack(&cp, &o->r[o->n]);
}

/* MPI_Start(all): each started persistent request is a post. One data
 * record for the call: a single request's own values; for several, the
 * bytes they move together and no partner, each send's partner, tag and
 * bytes then in its post record. The posts are named only when every
 * request is on the call's communicator (the record's): the receives'
 * completions say no communicator of their own, and a message matched on
 * another's would be a guess. */
static void persistent_start(const struct scope__capture_ext *e, int keep)
{
    struct scope_call_data d = { 0, 0, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_TAG, 0 };
    int found = 0, one_comm = 1;
    for (int i = 0; i < e->nhandles; i++) {
        const struct scope__persist *p = scope__req_persisted(e->handles[i]);
        if (!p)
            continue;
        if (!found) {
            d.dest = p->dest;
            d.source = p->source;
            d.tag = p->tag;
            d.comm = p->comm;
        } else {
            d.dest = d.source = SCOPE_DATA_NO_RANK;
            d.tag = SCOPE_DATA_NO_TAG;
            one_comm &= p->comm == d.comm;
        }
        d.bytes_sent += p->bytes;
        d.bytes_received += p->bytes_received;     /* a collective's, known at its init */
        found++;
    }
    if (!found)
        return;
    emit_data(&d, keep);
    for (int i = 0; one_comm && i < e->nhandles; i++) {
        const struct scope__persist *p = scope__req_persisted(e->handles[i]);
        if (!p)
            continue;
        if (p->coll)
            name_coll_post(e->handles[i], p, keep);
        else
            name_post(e->handles[i], p->r, (struct post_msg){ p->dest, p->tag, p->bytes }, keep);
    }
}

/* What a completion call completed, once MPI returned MPI_SUCCESS. */
static void completion_exit(const scope__mpi_abi *abi, int kind, const uint64_t *a, int keep)
{
    if (kind == K_SEND_INIT || kind == K_RECV_INIT) {
        persistent_init(abi, kind, a);
        return;
    }
    struct scope__capture_ext *e = scope__cap_ext;
    if (!e)
        return;
    int n = e->nhandles;
    size_t ss = abi->status_size;
    const char *one = NULL, *arr = NULL;
    int st = status_arg(kind);
    if (st >= 0)
        one = (const char *)(uintptr_t)a[st];
    st = status_array_arg(kind);
    if (st >= 0)
        arr = (const char *)(uintptr_t)a[st];
    if (arr == (const char *)abi->status_ignore)
        arr = NULL;                 /* too many requests to lend statuses */
    if (one == (const char *)abi->status_ignore)
        one = NULL;
    int flag = 1, idx;
    switch (kind) {
    case K_REQUEST_FREE: {
        struct scope__req r;
        if (n > 0) {
            scope__req_take(e->handles[0], &r);
            scope__req_unpersist(e->handles[0]);
        }
        return;
    }
    case K_START:
    case K_STARTALL:
        persistent_start(e, keep);
        return;
    case K_TEST:
        flag = *(const int *)(uintptr_t)a[1];
        /* fall through */
    case K_WAIT:
        if (flag && n > 0)
            completed(abi, e->handles[0], one, keep);
        return;
    case K_TESTALL:
        flag = *(const int *)(uintptr_t)a[2];
        /* fall through */
    case K_WAITALL:
        for (int i = 0; flag && i < n; i++)
            completed(abi, e->handles[i], arr ? arr + (size_t)i * ss : NULL, keep);
        return;
    case K_TESTANY:
        flag = *(const int *)(uintptr_t)a[3];
        /* fall through */
    case K_WAITANY:
        idx = *(const int *)(uintptr_t)a[2];
        if (flag && idx != abi->undefined && idx >= 0 && idx < n)
            completed(abi, e->handles[idx], one, keep);
        return;
    case K_WAITSOME: {
        int out = *(const int *)(uintptr_t)a[2];
        const int *ind = (const int *)(uintptr_t)a[3];
        for (int j = 0; out != abi->undefined && ind && j < out; j++)
            if (ind[j] >= 0 && ind[j] < n)
                completed(abi, e->handles[ind[j]], arr ? arr + (size_t)j * ss : NULL, keep);
        return;
    }
    }
}

/* ------------------------------------------------------------ the bytes */

/* Counts are C ints, or MPI_Counts (int64) in the large-count functions:
 * scope__cap.big says which, for the call being measured. */

static int64_t sum_counts(uint64_t counts, int n)
{
    int64_t s = 0;
    if (scope__cap.big) {
        const int64_t *v = (const int64_t *)(uintptr_t)counts;
        for (int i = 0; v && i < n; i++)
            s += v[i] > 0 ? v[i] : 0;
        return s;
    }
    const int *v = (const int *)(uintptr_t)counts;
    for (int i = 0; v && i < n; i++)
        s += v[i] > 0 ? v[i] : 0;
    return s;
}

static int64_t count_at(uint64_t counts, int i)
{
    return scope__mpi_count_at(scope__cap.big, counts, i);
}

static int64_t cnt(uint64_t a)
{
    return scope__mpi_cnt(scope__cap.big, a);
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
    int64_t n = status_bytes(abi, s, &cancelled);
    if (n > 0)
        d->bytes_received = n;
    d->source = scope__mpi_world_of(c, src, c->remote_size > 0);
    if (d->tag == SCOPE_DATA_NO_TAG)
        d->tag = tag;
}

/* Sum over i < n of counts[i] x MPI_Type_size(types[i]) (MPI_Alltoallw's
 * per-block datatypes), skipping the blocks `skip` marks (neighbours that
 * are MPI_PROC_NULL). */
static int64_t sum_typed(const scope__mpi_abi *abi, uint64_t counts, uint64_t types, int n,
                         const uint8_t *skip)
{
    const unsigned char *t = (const unsigned char *)(uintptr_t)types;
    int64_t s = 0;
    for (int i = 0; t && i < n; i++) {
        int64_t k = count_at(counts, i);
        if (!k || (skip && skip[i]))
            continue;
        s += k * scope__mpi_type_size(scope__capture_handle_at(abi, t + (size_t)i * abi->handle_size));
    }
    return s;
}

/* Sum of counts[i] over the blocks `skip` does not mark. */
static int64_t sum_live(uint64_t counts, int n, const uint8_t *skip)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        if (!skip || !skip[i])
            s += count_at(counts, i);
    return s;
}

/* The neighbourhood collectives: a block per neighbour of the topology
 * (docs/format.md); a neighbour that is MPI_PROC_NULL (a Cartesian edge)
 * moves nothing. An allgather's one send buffer counts once. */
static void neighbourhood(const scope__mpi_abi *abi, const struct scope__comm *c, int kind,
                          const uint64_t *a, struct scope_call_data *d)
{
    if (!scope__mpi_comm_neighbours(abi, c))
        return;
    int in = c->indegree, out = c->outdegree;
    int live_in = in, live_out = out;
    for (int i = 0; c->in_null && i < in; i++)
        live_in -= c->in_null[i];
    for (int i = 0; c->out_null && i < out; i++)
        live_out -= c->out_null[i];
    switch (kind) {
    case K_NB_ALLGATHER:
        d->bytes_sent = live_out ? cnt(a[1]) * scope__mpi_type_size(a[2]) : 0;
        d->bytes_received = cnt(a[4]) * scope__mpi_type_size(a[5]) * live_in;
        return;
    case K_NB_ALLGATHERV:
        d->bytes_sent = live_out ? cnt(a[1]) * scope__mpi_type_size(a[2]) : 0;
        d->bytes_received = sum_live(a[4], in, c->in_null) * scope__mpi_type_size(a[6]);
        return;
    case K_NB_ALLTOALL:
        d->bytes_sent = cnt(a[1]) * scope__mpi_type_size(a[2]) * live_out;
        d->bytes_received = cnt(a[4]) * scope__mpi_type_size(a[5]) * live_in;
        return;
    case K_NB_ALLTOALLV:
        d->bytes_sent = sum_live(a[1], out, c->out_null) * scope__mpi_type_size(a[3]);
        d->bytes_received = sum_live(a[5], in, c->in_null) * scope__mpi_type_size(a[7]);
        return;
    case K_NB_ALLTOALLW:
        d->bytes_sent = sum_typed(abi, a[1], a[3], out, c->out_null);
        d->bytes_received = sum_typed(abi, a[5], a[7], in, c->in_null);
        return;
    }
}

/* A rooted collective's root: sets the partner columns, and says whether
 * this rank is the root (1), another member (0), or takes no part
 * (MPI_PROC_NULL on an intercommunicator: -1). */
static int rooted(const scope__mpi_abi *abi, const struct scope__comm *c, uint64_t root_arg,
                  struct scope_call_data *d)
{
    int root = (int)(uint32_t)root_arg;
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

/* bytes_of()'s collectives, on communicator c (d->comm set). Returns 0,
 * or -1 when nothing is to be recorded. */
static int coll_bytes(const scope__mpi_abi *abi, int kind, const uint64_t *a,
                      const struct scope__comm *c, struct scope_call_data *d)
{
    int inter = c->remote_size > 0;
    int n = inter ? c->remote_size : c->size;
    int in_place = 0;
    int r;
    switch (kind) {
    case K_BCAST:
        r = rooted(abi, c, a[3], d);
        if (r == 1)
            d->bytes_sent = cnt(a[1]) * scope__mpi_type_size(a[2]);
        else if (r == 0)
            d->bytes_received = cnt(a[1]) * scope__mpi_type_size(a[2]);
        return 0;
    case K_REDUCE:
        r = rooted(abi, c, a[5], d);
        if (r < 0)
            return 0;
        if (!inter || r == 0)
            d->bytes_sent = cnt(a[2]) * scope__mpi_type_size(a[3]);
        if (r == 1)
            d->bytes_received = cnt(a[2]) * scope__mpi_type_size(a[3]);
        return 0;
    case K_ALLREDUCE:
        d->bytes_sent = d->bytes_received = cnt(a[2]) * scope__mpi_type_size(a[3]);
        return 0;
    case K_ALLTOALL:
        d->bytes_received = cnt(a[4]) * scope__mpi_type_size(a[5]) * n;
        in_place = a[0] == abi->in_place;
        d->bytes_sent = in_place ? d->bytes_received : cnt(a[1]) * scope__mpi_type_size(a[2]) * n;
        return 0;
    case K_ALLTOALLV:
        d->bytes_received = sum_counts(a[5], n) * scope__mpi_type_size(a[7]);
        in_place = a[0] == abi->in_place;
        d->bytes_sent = in_place ? d->bytes_received : sum_counts(a[1], n) * scope__mpi_type_size(a[3]);
        return 0;
    case K_ALLGATHER:
        d->bytes_received = cnt(a[4]) * scope__mpi_type_size(a[5]) * n;
        in_place = a[0] == abi->in_place;
        d->bytes_sent = in_place ? cnt(a[4]) * scope__mpi_type_size(a[5]) : cnt(a[1]) * scope__mpi_type_size(a[2]);
        return 0;
    case K_ALLGATHERV:
        d->bytes_received = sum_counts(a[4], n) * scope__mpi_type_size(a[6]);
        in_place = a[0] == abi->in_place;
        d->bytes_sent = in_place ? (int64_t)count_at(a[4], c->me) * scope__mpi_type_size(a[6])
                                 : cnt(a[1]) * scope__mpi_type_size(a[2]);
        return 0;
    case K_GATHER:
    case K_GATHERV:
        r = rooted(abi, c, a[kind == K_GATHER ? 6 : 7], d);
        if (r < 0)
            return 0;
        in_place = a[0] == abi->in_place;
        if (r == 1)
            d->bytes_received = kind == K_GATHER ? cnt(a[4]) * scope__mpi_type_size(a[5]) * n
                                                 : sum_counts(a[4], n) * scope__mpi_type_size(a[6]);
        if (r == 1 && inter)
            return 0;   /* the root of an intercommunicator sends nothing */
        if (in_place && r == 1)
            d->bytes_sent = kind == K_GATHER ? cnt(a[4]) * scope__mpi_type_size(a[5])
                                             : (int64_t)count_at(a[4], c->me) * scope__mpi_type_size(a[6]);
        else
            d->bytes_sent = cnt(a[1]) * scope__mpi_type_size(a[2]);
        return 0;
    case K_SCATTER:
    case K_SCATTERV:
        r = rooted(abi, c, a[kind == K_SCATTER ? 6 : 7], d);
        if (r < 0)
            return 0;
        in_place = a[kind == K_SCATTER ? 3 : 4] == abi->in_place;
        if (r == 1)
            d->bytes_sent = kind == K_SCATTER ? cnt(a[1]) * scope__mpi_type_size(a[2]) * n
                                              : sum_counts(a[1], n) * scope__mpi_type_size(a[3]);
        if (r == 1 && inter)
            return 0;   /* the root of an intercommunicator receives nothing */
        if (in_place && r == 1)
            d->bytes_received = kind == K_SCATTER ? cnt(a[1]) * scope__mpi_type_size(a[2])
                                                  : (int64_t)count_at(a[1], c->me) * scope__mpi_type_size(a[3]);
        else if (kind == K_SCATTER)
            d->bytes_received = cnt(a[4]) * scope__mpi_type_size(a[5]);
        else
            d->bytes_received = cnt(a[5]) * scope__mpi_type_size(a[6]);
        return 0;
    case K_REDUCE_SCATTER:
        d->bytes_sent = sum_counts(a[2], c->size) * scope__mpi_type_size(a[3]);
        d->bytes_received = (int64_t)count_at(a[2], c->me) * scope__mpi_type_size(a[3]);
        return 0;
    case K_REDUCE_SCATTER_BLOCK:
        d->bytes_received = cnt(a[2]) * scope__mpi_type_size(a[3]);
        d->bytes_sent = d->bytes_received * c->size;
        return 0;
    case K_BARRIER:
        return 0;
    case K_ALLTOALLW:
        d->bytes_received = sum_typed(abi, a[5], a[7], n, NULL);
        in_place = a[0] == abi->in_place;
        d->bytes_sent = in_place ? d->bytes_received : sum_typed(abi, a[1], a[3], n, NULL);
        return 0;
    case K_NB_ALLGATHER:
    case K_NB_ALLGATHERV:
    case K_NB_ALLTOALL:
    case K_NB_ALLTOALLV:
    case K_NB_ALLTOALLW:
        neighbourhood(abi, c, kind, a, d);
        return 0;
    }
    return -1;
}

/* The byte model of docs/format.md, one case per kind; scope__cap.used_comm is
 * set to the communicator measured against (a post's completion
 * translates its source through it). Returns 0, or -1 when nothing is to
 * be recorded. */
static int bytes_of(const scope__mpi_abi *abi, int kind, const uint64_t *a, struct scope_call_data *d)
{
    static const int comm_arg[] = {
        [K_SEND] = 5, [K_RECV] = 5, [K_IRECV] = 5, [K_SENDRECV] = 10, [K_SENDRECV_REPLACE] = 7,
        [K_BCAST] = 4, [K_REDUCE] = 6, [K_ALLREDUCE] = 5, [K_ALLTOALL] = 6, [K_ALLTOALLV] = 8,
        [K_ALLGATHER] = 6, [K_ALLGATHERV] = 7, [K_GATHER] = 7, [K_GATHERV] = 8, [K_SCATTER] = 7,
        [K_SCATTERV] = 8, [K_REDUCE_SCATTER] = 5, [K_REDUCE_SCATTER_BLOCK] = 5, [K_BARRIER] = 0,
        [K_ALLTOALLW] = 8, [K_NB_ALLGATHER] = 6, [K_NB_ALLGATHERV] = 7, [K_NB_ALLTOALL] = 6,
        [K_NB_ALLTOALLV] = 8, [K_NB_ALLTOALLW] = 8,
    };
    if (kind >= K_PUT && kind <= K_CAS) {
        scope__cap.used_comm = NULL;
        return scope__mpi_rma_bytes(abi, kind, a, scope__cap.big, d);
    }
    if (kind >= K_WIN_CREATE && kind <= K_WIN_DYNAMIC) {
        scope__cap.used_comm = NULL;
        return scope__mpi_win_created(abi, kind, a, d);
    }
    if (kind >= (int)(sizeof comm_arg / sizeof *comm_arg))
        return -1;
    const struct scope__comm *c = scope__mpi_comm_get(abi, a[comm_arg[kind]]);
    scope__cap.used_comm = c;
    if (!c)
        return -1;
    d->comm = c->id;
    int inter = c->remote_size > 0;
    int r;
    switch (kind) {
    case K_SEND:
        if ((int)(uint32_t)a[3] == abi->proc_null)
            return 0;
        d->bytes_sent = cnt(a[1]) * scope__mpi_type_size(a[2]);
        d->dest = scope__mpi_world_of(c, (int)(uint32_t)a[3], inter);
        d->tag = (int)(uint32_t)a[4];
        return 0;
    case K_RECV:
        from_status(abi, c, a[6], d);
        return 0;
    case K_IRECV:
        r = (int)(uint32_t)a[3];
        if (r == abi->proc_null)
            return 0;
        d->source = r == abi->any_source ? -1 : scope__mpi_world_of(c, r, inter);
        d->tag = (int)(uint32_t)a[4];
        return 0;
    case K_SENDRECV:
    case K_SENDRECV_REPLACE:
        if ((int)(uint32_t)a[3] != abi->proc_null) {
            d->bytes_sent = cnt(a[1]) * scope__mpi_type_size(a[2]);
            d->dest = scope__mpi_world_of(c, (int)(uint32_t)a[3], inter);
        }
        d->tag = (int)(uint32_t)a[4];
        from_status(abi, c, a[kind == K_SENDRECV ? 11 : 8], d);
        return 0;
    default:
        return coll_bytes(abi, kind, a, c, d);
    }
}

/* What call `op` (its kind `kind`) moved, as records in `out`. */
static void capture_records(const scope__mpi_abi *abi, uint32_t op, int kind, int keep)
{
    struct scope__mpi_state *c = &scope__cap;
    if (kind == K_COLL_INIT) {
        persistent_coll_init(abi, scope__mpi_ops[op].arg, scope__mpi_ops[op].nargs, c->a);
        return;
    }
    if (kind >= K_WAIT) {
        completion_exit(abi, kind, c->a, keep);
        return;
    }
    if (kind == K_COMM_NEW) {
        const void *np = (const void *)(uintptr_t)c->a[scope__mpi_ops[op].arg];
        if (np)
            scope__mpi_comm_created(abi, scope__capture_handle_at(abi, np), scope__mpi_ops[op].name);
        return;
    }
    struct scope_call_data d = { 0, 0, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_TAG, 0 };
    if (bytes_of(abi, kind, c->a, &d) < 0)
        return;
    /* a nonblocking collective's or a one-sided request's post (MPI_Rput &
     * co): named, so that its completion can say which post it completed.
     * The point-to-point posts are mpi_capture_hot.c's. */
    const struct scope__comm *cm = scope__cap.used_comm;
    const char *name = scope__mpi_ops[op].name;
    int rma = name[0] == 'R' && kind >= K_PUT && kind <= K_GET_ACC;
    int coll = name[0] == 'I' && kind >= K_BCAST && kind <= K_NB_ALLTOALLW;
    const void *rp = (const void *)(uintptr_t)c->a[scope__mpi_ops[op].nargs - 1];
    emit_data(&d, keep);
    if (!rp || !(rma || (coll && cm)))
        return;
    /* a one-sided request's completion reads no status: no world ranks */
    name_post(scope__capture_handle_at(abi, rp), scope__capture_req(cm, 0), NO_MSG, keep);
}

void scope__capture_generic_exit(const scope__mpi_abi *abi, uint32_t op, int keep)
{
    scope__cap.big = (op & SCOPE_MPI_OP_BIG) != 0;
    op &= ~SCOPE_MPI_OP_BIG;
    capture_records(abi, op, scope__mpi_ops[op].kind, keep);
    out_flush(keep);
}
