/*
 * mpi_capture_hot.c - the MPI capture's hot path as the engine calls it
 * (capture.h, registered by mpi_hook.c): at the entry of every MPI call
 * the rule of what is recorded (an MPI call inside another is not; the C
 * call a Fortran binding makes is followed, silently), then the entry and
 * exit of every captured call (mpi_capture.h), with paths of their own
 * for the calls a code built on requests makes millions of: MPI_Isend
 * (and Issend, Ibsend, Irsend, their _c forms), MPI_Irecv and MPI_Wait,
 * and MPI_Allreduce (with MPI_Scan and MPI_Exscan, the same model). Each
 * copies only the arguments it reads, looks its communicator up in the
 * thread's one-entry cache, and writes its one record straight into the
 * journal, where the general path (mpi_capture.c) reads every call's
 * arguments by its row of the vocabulary through the whole byte model
 * and stages records for calls that write many. The records are the same
 * either way (journal.h: a post's data record, a completion record);
 * tests/comm checks every column under both MPIs.
 *
 * Which calls take a path of their own is this file's one column of the
 * vocabulary (hot[], by the call's id), filled once: a call takes its path
 * only when its row puts the arguments where the path reads them (the
 * standard's C binding), else the general path.
 */
#include <stdatomic.h>

#include "capture.h"
#include "mpi_capture.h"
#include "mpi_capture_state.h"
#include "mpi_requests.h"
#include "pmpi.h"
#include "scope_calls.h"
#include "scope_internal.h"

/* ------------------------------------------------------- the hot column */

enum {
    PATH_GENERAL = 0,
    PATH_ISEND,     /* MPI_Isend, Issend, Ibsend, Irsend */
    PATH_IRECV,
    PATH_WAIT,
    PATH_ALLREDUCE, /* MPI_Allreduce, Scan, Exscan */
};

/* Where the paths read their arguments (the standard's C bindings):
 * MPI_Isend/MPI_Irecv (buf, count, type, peer, tag, comm, request),
 * MPI_Allreduce (sbuf, rbuf, count, type, op, comm), MPI_Wait (request,
 * status). */
enum { P_COUNT = 1, P_TYPE = 2, P_PEER = 3, P_TAG = 4, P_COMM = 5, P_REQUEST = 6 };
enum { AR_COUNT = 2, AR_TYPE = 3, AR_COMM = 5 };
enum { W_REQUEST = 0, W_STATUS = 1 };

/* The path of each call of the vocabulary, by id (PATH_GENERAL but for
 * the calls above); written once by hot_paths(), before any call reads
 * it. */
static uint8_t hot[SCOPE_CALLS];

/* 1 when row `id` puts `role` at `pos`. */
static int at(int id, enum scope_arg_role role, int pos)
{
    return scope_call_arg(scope_call_at(id), role) == pos;
}

static void hot_paths(void)
{
    static const struct {
        int id;
        uint8_t path;
    } want[] = {
        { SCOPE_CALL_MPI_Isend, PATH_ISEND }, { SCOPE_CALL_MPI_Issend, PATH_ISEND },
        { SCOPE_CALL_MPI_Ibsend, PATH_ISEND }, { SCOPE_CALL_MPI_Irsend, PATH_ISEND },
        { SCOPE_CALL_MPI_Irecv, PATH_IRECV }, { SCOPE_CALL_MPI_Wait, PATH_WAIT },
        { SCOPE_CALL_MPI_Allreduce, PATH_ALLREDUCE }, { SCOPE_CALL_MPI_Scan, PATH_ALLREDUCE },
        { SCOPE_CALL_MPI_Exscan, PATH_ALLREDUCE },
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        int id = want[i].id, ok = 0;
        switch (want[i].path) {
        case PATH_ISEND:
        case PATH_IRECV:
            ok = at(id, SCOPE_ARG_count, P_COUNT) && at(id, SCOPE_ARG_type, P_TYPE) &&
                 at(id, want[i].path == PATH_ISEND ? SCOPE_ARG_dest : SCOPE_ARG_source, P_PEER) &&
                 at(id, SCOPE_ARG_tag, P_TAG) && at(id, SCOPE_ARG_comm, P_COMM) &&
                 at(id, SCOPE_ARG_request, P_REQUEST);
            break;
        case PATH_ALLREDUCE:
            ok = at(id, SCOPE_ARG_count, AR_COUNT) && at(id, SCOPE_ARG_type, AR_TYPE) &&
                 at(id, SCOPE_ARG_comm, AR_COMM);
            break;
        case PATH_WAIT:
            ok = at(id, SCOPE_ARG_request, W_REQUEST) && at(id, SCOPE_ARG_status, W_STATUS);
            break;
        }
        hot[id] = ok ? want[i].path : PATH_GENERAL;
    }
}

/* ------------------------------------------------------------ the entry */

/* The ABI once it is known and PMPI found (then it stays: one load), or
 * NULL while the capture cannot run. */
static const scope__mpi_abi *_Atomic ready;

static __attribute__((noinline, cold)) const scope__mpi_abi *first_abi(void)
{
    const scope__mpi_abi *abi = scope__mpi_abi_get();
    if (!abi || !scope__pmpi_ready())
        return NULL;
    scope__mpi_types_ready();
    hot_paths();
    atomic_store_explicit(&ready, abi, memory_order_release);
    return abi;
}

static void capture_enter(uint32_t op, uint64_t *saved, uintptr_t *slot);

/* The first captured call: finds the ABI, then enters as every later call
 * will (apart, so that the entry below saves no registers). */
static __attribute__((noinline, cold)) void enter_first(uint32_t op, uint64_t *saved,
                                                        uintptr_t *slot)
{
    if (first_abi())
        capture_enter(op, saved, slot);
    else
        scope__cap.op = 0;
}

/* Copies the arguments of a call of operation `op` (mpi_capture.h: its
 * id and SCOPE_MPI_OP_BIG; the claim gave an id only to a call the byte
 * model covers). A receive that passed MPI_STATUS_IGNORE gets the
 * capture's own status instead, so that the source and size can be read
 * back. Cost: a dozen loads and stores. */
static inline void capture_enter(uint32_t op, uint64_t *saved, uintptr_t *slot)
{
    struct scope__mpi_state *c = &scope__cap;
    op &= SCOPE_MPI_OP_ID | SCOPE_MPI_OP_BIG;
    const scope__mpi_abi *abi = atomic_load_explicit(&ready, memory_order_acquire);
    if (__builtin_expect(!abi, 0)) {
        enter_first(op, saved, slot);
        return;
    }
    c->op = op;
    c->abi = abi;
    uint32_t id = op & SCOPE_MPI_OP_ID;
    switch (hot[id]) {
    case PATH_ISEND:
    case PATH_IRECV:
        /* all but buf */
        c->a[P_COUNT] = saved[-1 - P_COUNT];
        c->a[P_TYPE] = saved[-1 - P_TYPE];
        c->a[P_PEER] = saved[-1 - P_PEER];
        c->a[P_TAG] = saved[-1 - P_TAG];
        c->a[P_COMM] = saved[-1 - P_COMM];
        c->a[P_REQUEST] = *scope__capture_arg_at(saved, slot, P_REQUEST);
        return;
    case PATH_ALLREDUCE:
        c->a[AR_COUNT] = saved[-1 - AR_COUNT];
        c->a[AR_TYPE] = saved[-1 - AR_TYPE];
        c->a[AR_COMM] = saved[-1 - AR_COMM];
        return;
    case PATH_WAIT: {
        /* the request before MPI sets it to MPI_REQUEST_NULL, and a status
         * to read even when the caller passed MPI_STATUS_IGNORE */
        const void *rp = (const void *)(uintptr_t)saved[-1 - W_REQUEST];
        c->req = rp ? scope__capture_handle_at(abi, rp) : 0;
        if (saved[-1 - W_STATUS] == (uint64_t)(uintptr_t)abi->status_ignore)
            saved[-1 - W_STATUS] = (uint64_t)(uintptr_t)c->status;
        c->a[W_STATUS] = saved[-1 - W_STATUS];
        return;
    }
    default:
        scope__capture_generic_enter(scope_call_at((int)id), abi, saved, slot);
        return;
    }
}

/* Nested: MPI inside MPI is not timed. But a Fortran binding (mpi_send_,
 * which calls the C MPI_Send) learns what it moved from the one C call it
 * makes: that call is followed, silently, and its data goes with the outer
 * call. A C MPI function's own inner calls (an MPI_Intercomm_create that
 * sends) are not the program's traffic. */
static __attribute__((noinline)) int enter_nested(uint32_t op, uint64_t *saved, uintptr_t *slot)
{
    struct scope__mpi_state *c = &scope__cap;
    if (!(op & SCOPE_MPI_OP_ID) || c->open != (SCOPE_MPI_OPEN_FORTRAN | 1) ||
        !scope__mpi_capture_idle())
        return SCOPE_CAPTURE_SKIP;
    c->open++;
    capture_enter(op, saved, slot);
    return SCOPE_CAPTURE_FOLLOW;
}

int scope__mpi_enter(uint32_t op, uint64_t *saved, uintptr_t *slot)
{
    struct scope__mpi_state *c = &scope__cap;
    if (__builtin_expect(c->open & SCOPE_MPI_OPEN_COUNT, 0))
        return enter_nested(op, saved, slot);
    c->open = 1 | (op & SCOPE_MPI_OPEN_FORTRAN);
    if (op & SCOPE_MPI_OP_ID)
        capture_enter(op, saved, slot);
    return SCOPE_CAPTURE_RECORD;
}

void scope__mpi_drop(uint32_t op, int followed)
{
    (void)op;
    (void)followed;
    scope__cap.open--;
    scope__mpi_capture_drop();
}

/* ------------------------------------------------------------- the exit */

/* Communicator h's entry (scope__mpi_comm_get), the thread's last one
 * straight from the capture: a program talks on few communicators, and
 * the entry's own handle says whether it still is h's (a freed
 * communicator's entry changes handle). NULL when it cannot be made. */
static inline const struct scope__comm *capture_comm(const scope__mpi_abi *abi, uint64_t h)
{
    struct scope__mpi_state *c = &scope__cap;
    const struct scope__comm *e = c->comm;
    if (abi->handle_size == 4)
        h &= 0xffffffffu;   /* an int handle: the register's upper half is not its */
    if (e && h == c->comm_handle && atomic_load_explicit(&e->handle, memory_order_acquire) == h)
        return e;
    e = scope__mpi_comm_get(abi, h);
    c->comm = e;
    c->comm_handle = h;
    return e;
}


/* MPI_Isend & co and MPI_Irecv, accepted by MPI: the post's data record
 * (journal.h), or the data and post records when a value does not fit
 * it, as the general path would write them. */
static void post_exit(const scope__mpi_abi *abi, struct scope__mpi_state *c, int recv, int big,
                      int keep)
{
    const struct scope__comm *cm = capture_comm(abi, c->a[P_COMM]);
    if (!cm)
        return;
    struct scope_call_data d = { 0, 0, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_TAG,
                                 cm->id };
    int inter = cm->remote_size > 0;
    int peer = (int)(uint32_t)c->a[P_PEER];
    if (peer != abi->proc_null) {
        d.tag = (int)(uint32_t)c->a[P_TAG];
        if (recv) {
            d.source = peer == abi->any_source ? -1 : scope__mpi_world_of(cm, peer, inter);
        } else {
            d.bytes_sent = scope__mpi_cnt(big, c->a[P_COUNT]) * scope__mpi_type_size(c->a[P_TYPE]);
            d.dest = scope__mpi_world_of(cm, peer, inter);
        }
    }
    struct scope_rec rec[3];
    const void *rp = (const void *)(uintptr_t)c->a[P_REQUEST];
    uint32_t id = 0;
    if (rp) {
        /* a receive from MPI_PROC_NULL has nothing to read at its
         * completion (MPICH 4.0 even reports source 0, tag 0 there) */
        struct scope__req r = scope__capture_req(cm, recv && peer != abi->proc_null);
        id = scope__req_post(scope__capture_handle_at(abi, rp), &r);
        if (id && scope_postdata_pack(&d, id, recv, rec)) {
            scope__capture_put(rec, 1, keep);
            return;
        }
    }
    unsigned n = (unsigned)scope_data_pack(&d, rec);
    if (id) {
        struct scope_post p = { id, recv, d.dest, d.tag, d.bytes_sent };  /* a receive's: unread */
        scope_post_pack(&p, &rec[n++]);
    }
    scope__capture_put(rec, n, keep);
}

/* MPI_Allreduce, MPI_Scan, MPI_Exscan: the count in each buffer, sent and
 * received (docs/format.md), on the communicator; no partner. */
static void allreduce_exit(const scope__mpi_abi *abi, struct scope__mpi_state *c, int big, int keep)
{
    const struct scope__comm *cm = capture_comm(abi, c->a[AR_COMM]);
    if (!cm)
        return;
    int64_t b = scope__mpi_cnt(big, c->a[AR_COUNT]) * scope__mpi_type_size(c->a[AR_TYPE]);
    struct scope_call_data d = { b, b, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_TAG,
                                 cm->id };
    struct scope_rec rec[2];
    scope__capture_put(rec, (unsigned)scope_data_pack(&d, rec), keep);
}

/* At the exit of a captured call, right after its end record: leaves
 * it (scope__mpi_exit), records what it moved when `rc` is MPI_SUCCESS,
 * and forgets the capture in any case. With `keep` (a followed call
 * inside another), the data waits for scope__mpi_capture_flush() at the
 * outer call's end instead. Apart (noinline), so that the exit of a call
 * without a capture saves no registers. */
static __attribute__((noinline)) void capture_exit(uint64_t rc, int keep)
{
    struct scope__mpi_state *c = &scope__cap;
    c->open--;
    uint32_t op = c->op;
    c->op = 0;
    if (!op)
        return;
    const scope__mpi_abi *abi = c->abi;     /* PMPI was ready at the entry */
    if ((int)(uint32_t)rc != abi->success)
        return;
    int path = hot[op & SCOPE_MPI_OP_ID];
    int big = (op & SCOPE_MPI_OP_BIG) != 0;
    struct scope_rec rec;
    if (path == PATH_WAIT) {
        if (c->req &&
            scope__capture_completion(abi, c->req, (const void *)(uintptr_t)c->a[W_STATUS], &rec))
            scope__capture_put(&rec, 1, keep);
    } else if (path == PATH_ISEND) {
        post_exit(abi, c, 0, big, keep);
    } else if (path == PATH_IRECV) {
        post_exit(abi, c, 1, big, keep);
    } else if (path == PATH_ALLREDUCE) {
        allreduce_exit(abi, c, big, keep);
    } else {
        scope__capture_generic_exit(abi, op, keep);
    }
}

void scope__mpi_exit(uint32_t op, uint64_t rc, int followed)
{
    if (op & SCOPE_MPI_OP_ID) {
        capture_exit(rc, followed);
        return;
    }
    struct scope__mpi_state *c = &scope__cap;
    c->open--;
    if (__builtin_expect(c->npending != 0, 0))
        scope__mpi_capture_flush();     /* what a followed inner call moved */
}
