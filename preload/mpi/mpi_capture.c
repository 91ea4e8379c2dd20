/*
 * mpi_capture.c - the capture's general path (mpi_capture.h): every
 * captured MPI call the hot paths (mpi_capture_hot.c) do not take. The
 * entry copies the call's arguments, as many as its row of the vocabulary
 * has (format/scope_calls.h), lends statuses where the caller passed
 * MPI_STATUS(ES)_IGNORE, and keeps the requests a completion call names;
 * the exit asks the byte model (mpi_moved.c) what the call moved and
 * writes its records: its data record, the posts of its nonblocking and
 * persistent requests, followed to their completion (mpi_requests.c), the
 * completions a wait or test saw. The communicators (their world ranks,
 * creating calls, neighbours) are mpi_comms.c's.
 *
 * Nothing is read before the MPI library returned MPI_SUCCESS (the byte
 * model's contract); everything is called through PMPI_* looked up once,
 * and the preload's own calls are never recorded (their return address is
 * the preload's).
 */
#include <stdlib.h>
#include <string.h>

#include "arch_trampoline.h"
#include "journal.h"
#include "mpi_abi.h"
#include "mpi_capture.h"
#include "mpi_capture_state.h"
#include "mpi_comms.h"
#include "mpi_moved.h"
#include "mpi_requests.h"
#include "scope_calls.h"
#include "scope_internal.h"

#define MAX_OUT SCOPE_CAPTURE_MAX_OUT
#define MAX_FOLLOW SCOPE_CAPTURE_MAX_FOLLOW

/* ------------------------------------------------------------ the records */

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

/* "Nothing moved": what scope__mpi_moved() starts from. */
static const struct scope_call_data NOTHING = { 0, 0, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_RANK,
                                                SCOPE_DATA_NO_TAG, 0 };

/* The argument of the call being captured that plays `role`, 0 when the
 * call has none. */
static uint64_t arg(const struct scope_call_row *row, enum scope_arg_role role)
{
    int p = scope_call_arg(row, role);
    return p >= 0 ? scope__cap.a[p] : 0;
}

static int arg_int(const struct scope_call_row *row, enum scope_arg_role role)
{
    return (int)(uint32_t)arg(row, role);
}

/* ---------------------------------------------------------------- the entry */

/* Gives the call `buf` for its argument `st` (a status, or an array of
 * them) where the caller passed MPI_STATUS(ES)_IGNORE, in the saved
 * registers or on the stack and in the copy alike. */
static void lend_status(uint64_t *saved, uintptr_t *slot, int st, const void *buf)
{
    scope__cap.a[st] = (uint64_t)(uintptr_t)buf;
    *scope__capture_arg_at(saved, slot, st) = scope__cap.a[st];
}

/* Copies the requests a completion call got (MPI overwrites completed
 * ones with MPI_REQUEST_NULL) and lends it statuses where the caller
 * passed MPI_STATUSES_IGNORE, so that receives can say what arrived. */
static void completion_enter(const scope__mpi_abi *abi, const struct scope_call_row *row,
                             uint64_t *saved, uintptr_t *slot)
{
    struct scope__mpi_state *c = &scope__cap;
    struct scope__capture_ext *e = scope__capture_ext();
    if (!e) {
        c->op = 0;
        return;
    }
    int one = scope_call_arg(row, SCOPE_ARG_request) >= 0;  /* MPI_Wait, not MPI_Waitall */
    int count = one ? 1 : arg_int(row, SCOPE_ARG_nreq);
    const unsigned char *reqs =
        (const unsigned char *)(uintptr_t)arg(row, one ? SCOPE_ARG_request : SCOPE_ARG_requests);
    e->nhandles = 0;
    for (int i = 0; reqs && i < count && i < MAX_FOLLOW; i++)
        e->handles[e->nhandles++] = scope__capture_handle_at(abi, reqs + (size_t)i * abi->handle_size);
    int st = scope_call_arg(row, SCOPE_ARG_statuses);
    if (st >= 0 && c->a[st] == (uint64_t)(uintptr_t)abi->status_ignore && count <= MAX_FOLLOW &&
        abi->status_size <= 32)
        lend_status(saved, slot, st, e->statuses);
}

static int completes(const struct scope_call_row *row)
{
    return row->cls == SCOPE_CC_WAIT || row->cls == SCOPE_CC_TEST ||
           row->cls == SCOPE_CC_REQUEST_FREE || row->cls == SCOPE_CC_START;
}

void scope__capture_generic_enter(const struct scope_call_row *row, const scope__mpi_abi *abi,
                                  uint64_t *saved, uintptr_t *slot)
{
    struct scope__mpi_state *c = &scope__cap;
    /* the register arguments all at once (a fixed count, unrolled),
     * whatever the function takes; then those on the stack */
#pragma GCC unroll 8
    for (int k = 0; k < SCOPE_ARCH_SAVED_ARGS; k++)
        c->a[k] = saved[-1 - k];
    for (int k = SCOPE_ARCH_SAVED_ARGS; k < row->nargs; k++)
        c->a[k] = slot[1 + (k - SCOPE_ARCH_SAVED_ARGS)];
    int st = scope_call_arg(row, SCOPE_ARG_status);
    if (st >= 0 && c->a[st] == (uint64_t)(uintptr_t)abi->status_ignore)
        lend_status(saved, slot, st, c->status);
    if (completes(row))
        completion_enter(abi, row, saved, slot);
    if (row->cls == SCOPE_CC_RECV && scope_call_arg(row, SCOPE_ARG_message) >= 0) {
        /* a matched receive: its message, before MPI sets it to
         * MPI_MESSAGE_NULL */
        const void *mp = (const void *)(uintptr_t)arg(row, SCOPE_ARG_message);
        c->req = mp ? scope__capture_handle_at(abi, mp) : 0;
    }
}

/* ------------------------------------------------------ requests: the exit */

int scope__capture_completion(const scope__mpi_abi *abi, uint64_t handle, const void *status,
                              struct scope_rec *out)
{
    struct scope__req r;
    if (!scope__req_take(handle, &r))
        return 0;
    struct scope_completion c = { r.id, 0, -1, SCOPE_DATA_NO_TAG, 0 };
    if (r.recv && status) {
        const char *s = status;
        int src, tag, cancelled = 0;
        memcpy(&src, s + abi->status_source_off, sizeof src);
        memcpy(&tag, s + abi->status_tag_off, sizeof tag);
        int64_t n64 = scope__mpi_status_bytes(abi, status, &cancelled);
        if (cancelled) {
            c.cancelled = 1;
        } else if (src != abi->proc_null) {
            c.bytes = n64 > UINT32_MAX ? UINT32_MAX : (uint32_t)n64;
            c.source = src >= 0 && src < r.world_n ? r.world[r.world_off + src] : -1;
            c.tag = tag;
        }
    }
    scope_completion_pack(&c, out);
    return 1;
}

/* One completed request: its completion record, with what a receive's
 * status says. */
static void completed(const scope__mpi_abi *abi, uint64_t handle, const void *status, int keep)
{
    struct scope_rec r;
    if (scope__capture_completion(abi, handle, status, &r))
        emit(r.ticks, r.word, r.aux, keep);
}

/* A persistent send or receive made (MPI_Send_init, ...): what each of
 * its starts will move. */
static void persistent_init(const struct scope__mpi_args *m)
{
    struct scope_call_data d = NOTHING;
    const struct scope__comm *cm;
    const void *rp = (const void *)(uintptr_t)arg(m->row, SCOPE_ARG_request);
    if (!rp || scope__mpi_moved(m, &d, &cm) < 0 || !cm)
        return;
    uint64_t h = scope__capture_handle_at(m->abi, rp);
    /* a receive from MPI_PROC_NULL: nothing to read at its completions
     * (mpi_capture_hot.c) */
    int recv = m->row->cls == SCOPE_CC_RECV && arg_int(m->row, SCOPE_ARG_source) != m->abi->proc_null;
    struct scope__persist p = { d.bytes_sent, 0, d.dest, d.source, d.tag, d.comm, 0,
                                scope__capture_req(cm, recv) };
    scope__req_persist(h, &p);
}

/* A persistent collective made (MPI_Bcast_init, ...): each start moves
 * what the blocking call with these arguments would (its roles are the
 * blocking call's, with info and the request after them), and names the
 * same root (dest and source, as MPI_Bcast's columns do). Its tag stays
 * none: that is what tells a reader the start's dest is a root, never a
 * point-to-point partner (every message has a tag). Each start's post
 * record says which collective it is (its shape in the byte model,
 * calls_coll.def), so that a reader can give it the blocking call's pairs
 * however it was started. */
static void persistent_coll_init(const struct scope__mpi_args *m)
{
    struct scope_call_data d = NOTHING;
    const struct scope__comm *cm;
    const void *rp = (const void *)(uintptr_t)arg(m->row, SCOPE_ARG_request);
    if (!rp || scope__mpi_moved(m, &d, &cm) < 0)
        return;
    uint64_t h = scope__capture_handle_at(m->abi, rp);
    struct scope__persist p = { d.bytes_sent, d.bytes_received, d.dest, d.source,
                                SCOPE_DATA_NO_TAG, d.comm, scope_call_coll(m->row)->shape,
                                { 0, 0, NULL, 0, 0 } };
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
    struct scope_post p = { id, recv, m.dest, m.tag, m.bytes };
    scope_post_pack(&p, &r);
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

/* What a completion call completed, once MPI returned MPI_SUCCESS:
 * MPI_Wait & co by their roles (one request, all of an array, any one of
 * it, some of it), the tests when their flag says so. */
static void completion_exit(const struct scope__mpi_args *m, int keep)
{
    const scope__mpi_abi *abi = m->abi;
    const struct scope_call_row *row = m->row;
    struct scope__capture_ext *e = scope__cap_ext;
    if (!e)
        return;
    int n = e->nhandles;
    if (row->cls == SCOPE_CC_REQUEST_FREE) {
        struct scope__req r;
        if (n > 0) {
            scope__req_take(e->handles[0], &r);
            scope__req_unpersist(e->handles[0]);
        }
        return;
    }
    if (row->cls == SCOPE_CC_START) {
        persistent_start(e, keep);
        return;
    }
    size_t ss = abi->status_size;
    const char *one = (const char *)(uintptr_t)arg(row, SCOPE_ARG_status);
    const char *arr = (const char *)(uintptr_t)arg(row, SCOPE_ARG_statuses);
    if (arr == (const char *)abi->status_ignore)
        arr = NULL;                 /* too many requests to lend statuses */
    if (one == (const char *)abi->status_ignore)
        one = NULL;
    if (scope_call_arg(row, SCOPE_ARG_flag) >= 0 && !*(const int *)(uintptr_t)arg(row, SCOPE_ARG_flag))
        return;                     /* a test that completed nothing */
    if (scope_call_arg(row, SCOPE_ARG_index) >= 0) {            /* any */
        int idx = *(const int *)(uintptr_t)arg(row, SCOPE_ARG_index);
        if (idx != abi->undefined && idx >= 0 && idx < n)
            completed(abi, e->handles[idx], one, keep);
    } else if (scope_call_arg(row, SCOPE_ARG_indices) >= 0) {   /* some */
        int out = *(const int *)(uintptr_t)arg(row, SCOPE_ARG_outcount);
        const int *ind = (const int *)(uintptr_t)arg(row, SCOPE_ARG_indices);
        for (int j = 0; out != abi->undefined && ind && j < out; j++)
            if (ind[j] >= 0 && ind[j] < n)
                completed(abi, e->handles[ind[j]], arr ? arr + (size_t)j * ss : NULL, keep);
    } else if (scope_call_arg(row, SCOPE_ARG_requests) >= 0) {  /* all */
        for (int i = 0; i < n; i++)
            completed(abi, e->handles[i], arr ? arr + (size_t)i * ss : NULL, keep);
    } else if (n > 0) {                                          /* the one */
        completed(abi, e->handles[0], one, keep);
    }
}

/* The post of a nonblocking call, named so that its completion can say
 * which post it completed: a point-to-point one's (MPI_Isend & co, when
 * the hot paths do not take it) with its message, a collective's, a
 * one-sided request's (MPI_Rput & co; its completion reads no status: no
 * world ranks). */
static void name_nonblocking(const struct scope__mpi_args *m, const struct scope_call_data *d,
                             const struct scope__comm *cm, int keep)
{
    const void *rp = (const void *)(uintptr_t)arg(m->row, SCOPE_ARG_request);
    if (!rp)
        return;
    uint64_t h = scope__capture_handle_at(m->abi, rp);
    switch (m->row->cls) {
    case SCOPE_CC_ONE_SIDED:
        name_post(h, scope__capture_req(NULL, 0), NO_MSG, keep);
        return;
    case SCOPE_CC_COLLECTIVE:
    case SCOPE_CC_NEIGHBOR:
        if (cm)
            name_post(h, scope__capture_req(cm, 0), NO_MSG, keep);
        return;
    case SCOPE_CC_SEND:
        if (cm)
            name_post(h, scope__capture_req(cm, 0), (struct post_msg){ d->dest, d->tag, d->bytes_sent },
                      keep);
        return;
    case SCOPE_CC_RECV:
    case SCOPE_CC_SENDRECV:
        /* a receive from MPI_PROC_NULL has nothing to read at its
         * completion (MPICH 4.0 even reports source 0, tag 0 there): an
         * MPI_Isendrecv's request is then its send's; a matched receive
         * (MPI_Imrecv) always reads it */
        if (!cm)
            return;
        if (scope_call_arg(m->row, SCOPE_ARG_source) < 0 ||
            arg_int(m->row, SCOPE_ARG_source) != m->abi->proc_null)
            name_post(h, scope__capture_req(cm, 1), NO_MSG, keep);
        else if (m->row->cls == SCOPE_CC_SENDRECV)
            name_post(h, scope__capture_req(cm, 0),
                      (struct post_msg){ d->dest, d->tag, d->bytes_sent }, keep);
        else
            name_post(h, scope__capture_req(cm, 0), NO_MSG, keep);
        return;
    }
}

/* A matched probe (MPI_Mprobe, MPI_Improbe that found one): moves
 * nothing; its message's communicator is kept for the receive, which
 * names none. A probe of MPI_PROC_NULL matched no message
 * (MPI_MESSAGE_NO_PROC): its receive records nothing. */
static void probe_exit(const struct scope__mpi_args *m)
{
    const struct scope_call_row *row = m->row;
    if (scope_call_arg(row, SCOPE_ARG_flag) >= 0 && !*(const int *)(uintptr_t)arg(row, SCOPE_ARG_flag))
        return;
    const char *st = (const char *)(uintptr_t)arg(row, SCOPE_ARG_status);
    const void *mp = (const void *)(uintptr_t)arg(row, SCOPE_ARG_message);
    int src;
    if (!st || st == (const char *)m->abi->status_ignore || !mp)
        return;
    memcpy(&src, st + m->abi->status_source_off, sizeof src);
    if (src == m->abi->proc_null)
        return;
    const struct scope__comm *cm = scope__mpi_comm_get(m->abi, arg(row, SCOPE_ARG_comm));
    if (cm)
        scope__msg_matched(scope__capture_handle_at(m->abi, mp), cm);
}

/* What call m moved, as records. */
static void capture_records(struct scope__mpi_args *m, int keep)
{
    const struct scope_call_row *row = m->row;
    if (row->cls == SCOPE_CC_PROBE) {
        probe_exit(m);
        return;
    }
    if (row->cls == SCOPE_CC_RECV && scope_call_arg(row, SCOPE_ARG_message) >= 0 &&
        !(m->comm = scope__msg_take(scope__cap.req)))
        return;     /* a message no probe of this thread matched */
    if (row->form == SCOPE_CF_PERSISTENT) {
        if (row->cls == SCOPE_CC_COLLECTIVE || row->cls == SCOPE_CC_NEIGHBOR)
            persistent_coll_init(m);
        else
            persistent_init(m);
        return;
    }
    if (completes(row)) {
        completion_exit(m, keep);
        return;
    }
    if (row->cls == SCOPE_CC_COMM_NEW) {
        const void *np = (const void *)(uintptr_t)arg(row, SCOPE_ARG_newcomm);
        if (np)
            scope__mpi_comm_created(m->abi, scope__capture_handle_at(m->abi, np), row->name);
        return;
    }
    struct scope_call_data d = NOTHING;
    const struct scope__comm *cm;
    if (scope__mpi_moved(m, &d, &cm) < 0)
        return;
    emit_data(&d, keep);
    if (scope_call_coll(row)->shape == SCOPE_COLL_ALL_SPREAD && cm && cm->remote_size == 0) {
        struct scope_rec r;     /* its block to itself (journal.h) */
        scope_self_pack(scope__mpi_self_bytes(m, cm), &r);
        emit(r.ticks, r.word, r.aux, keep);
    }
    if (row->form == SCOPE_CF_NONBLOCKING)
        name_nonblocking(m, &d, cm, keep);
}

void scope__capture_generic_exit(const scope__mpi_abi *abi, uint32_t op, int keep)
{
    struct scope__mpi_args m = { abi, scope_call_at((int)(op & SCOPE_MPI_OP_ID)), scope__cap.a,
                                 (op & SCOPE_MPI_OP_BIG) != 0, NULL };
    capture_records(&m, keep);
    out_flush(keep);
}
