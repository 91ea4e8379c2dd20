/*
 * mpi_capture.c - what each MPI call moved, from its own arguments
 * (mpi_capture.h): the table of MPI functions whose arguments are read,
 * the byte model of each (docs/format.md, "What MPI calls moved": a rank's
 * bytes are what its own arguments describe, not a guess at the
 * algorithm's traffic), and the per-process table of communicators with
 * their members' world ranks.
 *
 * Sizes are computed only after the MPI library returned MPI_SUCCESS: the
 * arguments were then valid, so PMPI_Type_size and PMPI_Get_count cannot
 * fail or reach an error handler, and an application that passes an
 * invalid datatype sees exactly what it sees without scope. Everything is
 * called through PMPI_* looked up once; the preload's own calls are never
 * recorded (their return address is the preload's).
 *
 * Communicators are looked up by handle in an open-addressed table filled
 * under a lock and read without one; an attribute with a delete callback
 * on each tells when MPI frees it, so that a reused handle becomes a new
 * communicator (see comm_gone).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_trampoline.h"
#include "journal.h"
#include "mpi_abi.h"
#include "mpi_capture.h"
#include "mpi_requests.h"
#include "patch.h"
#include "preload_state.h"
#include "scope_internal.h"
#include "self_depth.h"
#include "settings.h"

/* How a function's arguments describe what it moves (see bytes_of). */
enum kind {
    K_NONE,
    K_SEND,             /* buf, count, type, dest, tag, comm [, request] */
    K_RECV,             /* buf, count, type, source, tag, comm, status */
    K_IRECV,            /* buf, count, type, source, tag, comm, request */
    K_SENDRECV,         /* sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status */
    K_SENDRECV_REPLACE, /* buf, count, type, dest, stag, source, rtag, comm, status */
    K_BCAST,            /* buf, count, type, root, comm */
    K_REDUCE,           /* sbuf, rbuf, count, type, op, root, comm */
    K_ALLREDUCE,        /* sbuf, rbuf, count, type, op, comm (also scans) */
    K_ALLTOALL,         /* sbuf, scount, stype, rbuf, rcount, rtype, comm */
    K_ALLTOALLV,        /* sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm */
    K_ALLGATHER,        /* sbuf, scount, stype, rbuf, rcount, rtype, comm */
    K_ALLGATHERV,       /* sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm */
    K_GATHER,           /* sbuf, scount, stype, rbuf, rcount, rtype, root, comm */
    K_GATHERV,          /* sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm */
    K_SCATTER,          /* sbuf, scount, stype, rbuf, rcount, rtype, root, comm */
    K_SCATTERV,         /* sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm */
    K_REDUCE_SCATTER,   /* sbuf, rbuf, rcounts, type, op, comm */
    K_REDUCE_SCATTER_BLOCK, /* sbuf, rbuf, rcount, type, op, comm */
    K_BARRIER,          /* comm */
    /* completions of nonblocking requests (mpi_requests.h) */
    K_WAIT,             /* request*, status */
    K_TEST,             /* request*, flag*, status */
    K_WAITALL,          /* count, requests[], statuses[] */
    K_TESTALL,          /* count, requests[], flag*, statuses[] */
    K_WAITANY,          /* count, requests[], index*, status */
    K_TESTANY,          /* count, requests[], index*, flag*, status */
    K_WAITSOME,         /* incount, requests[], outcount*, indices[], statuses[] (also Testsome) */
    K_REQUEST_FREE,     /* request* */
    K_SEND_INIT,        /* as K_SEND, with its request: moves at each start */
    K_RECV_INIT,        /* as K_IRECV */
    K_START,            /* request* */
    K_STARTALL,         /* count, requests[] */
};

#define MAX_ARGS 12

struct op {
    const char *name;   /* after "MPI_" */
    uint8_t kind;
    uint8_t nargs;      /* arguments copied at entry */
};

/* Index = the operation number carried in a function's flags. The
 * nonblocking collectives take the blocking ones' arguments plus a
 * request: their bytes are counted when they are posted. */
static const struct op ops[] = {
    { NULL, K_NONE, 0 },
    { "Send", K_SEND, 6 }, { "Ssend", K_SEND, 6 }, { "Bsend", K_SEND, 6 }, { "Rsend", K_SEND, 6 },
    { "Isend", K_SEND, 7 }, { "Issend", K_SEND, 7 }, { "Ibsend", K_SEND, 7 }, { "Irsend", K_SEND, 7 },
    { "Recv", K_RECV, 7 }, { "Irecv", K_IRECV, 7 },
    { "Sendrecv", K_SENDRECV, 12 }, { "Sendrecv_replace", K_SENDRECV_REPLACE, 9 },
    { "Bcast", K_BCAST, 5 }, { "Ibcast", K_BCAST, 5 },
    { "Reduce", K_REDUCE, 7 }, { "Ireduce", K_REDUCE, 7 },
    { "Allreduce", K_ALLREDUCE, 6 }, { "Iallreduce", K_ALLREDUCE, 6 },
    { "Scan", K_ALLREDUCE, 6 }, { "Iscan", K_ALLREDUCE, 6 },
    { "Exscan", K_ALLREDUCE, 6 }, { "Iexscan", K_ALLREDUCE, 6 },
    { "Alltoall", K_ALLTOALL, 7 }, { "Ialltoall", K_ALLTOALL, 7 },
    { "Alltoallv", K_ALLTOALLV, 9 }, { "Ialltoallv", K_ALLTOALLV, 9 },
    { "Allgather", K_ALLGATHER, 7 }, { "Iallgather", K_ALLGATHER, 7 },
    { "Allgatherv", K_ALLGATHERV, 8 }, { "Iallgatherv", K_ALLGATHERV, 8 },
    { "Gather", K_GATHER, 8 }, { "Igather", K_GATHER, 8 },
    { "Gatherv", K_GATHERV, 9 }, { "Igatherv", K_GATHERV, 9 },
    { "Scatter", K_SCATTER, 8 }, { "Iscatter", K_SCATTER, 8 },
    { "Scatterv", K_SCATTERV, 9 }, { "Iscatterv", K_SCATTERV, 9 },
    { "Reduce_scatter", K_REDUCE_SCATTER, 6 }, { "Ireduce_scatter", K_REDUCE_SCATTER, 6 },
    { "Reduce_scatter_block", K_REDUCE_SCATTER_BLOCK, 6 },
    { "Ireduce_scatter_block", K_REDUCE_SCATTER_BLOCK, 6 },
    { "Barrier", K_BARRIER, 1 }, { "Ibarrier", K_BARRIER, 1 },
    { "Wait", K_WAIT, 2 }, { "Test", K_TEST, 3 }, { "Waitall", K_WAITALL, 3 },
    { "Testall", K_TESTALL, 4 }, { "Waitany", K_WAITANY, 4 }, { "Testany", K_TESTANY, 5 },
    { "Waitsome", K_WAITSOME, 5 }, { "Testsome", K_WAITSOME, 5 },
    { "Request_free", K_REQUEST_FREE, 1 },
    { "Send_init", K_SEND_INIT, 7 }, { "Ssend_init", K_SEND_INIT, 7 },
    { "Bsend_init", K_SEND_INIT, 7 }, { "Rsend_init", K_SEND_INIT, 7 },
    { "Recv_init", K_RECV_INIT, 7 }, { "Start", K_START, 1 }, { "Startall", K_STARTALL, 2 },
};

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

/* The large-count functions of MPI 4 (MPI_Send_c, ...) take the same
 * arguments with MPI_Count (64-bit) counts and count arrays: they are the
 * table's operations with this bit set. */
#define OP_BIG 0x80u
_Static_assert(sizeof ops / sizeof *ops < OP_BIG, "the big-count bit is free");

int scope__mpi_is_fortran(const char *symbol)
{
    if (symbol[0] == 'p' || symbol[0] == 'P')
        symbol++;
    if (strncmp(symbol, "mpi_", 4) == 0)
        return 1;
    if (strncmp(symbol, "MPI_", 4) != 0)
        return 0;
    for (const char *c = symbol + 4; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            return 0;
    return 1;
}

uint32_t scope__mpi_op_of(const char *symbol)
{
    if (strncmp(symbol, "PMPI_", 5) == 0)
        symbol++;
    if (strncmp(symbol, "MPI_", 4) != 0)
        return 0;
    const char *s = symbol + 4;
    size_t n = strlen(s);
    uint32_t big = 0;
    if (n > 2 && strcmp(s + n - 2, "_c") == 0) {
        n -= 2;
        big = OP_BIG;
    }
    for (uint32_t i = 1; i < sizeof ops / sizeof *ops; i++)
        if (strlen(ops[i].name) == n && strncmp(s, ops[i].name, n) == 0)
            return i | big;
    return 0;
}

/* ------------------------------------------------------------ the capture */

/* One per thread: MPI calls do not nest in the recording. The status is
 * large enough for every ABI's MPI_Status (20 and 24 bytes). */
struct capture {
    uint32_t op;
    uint64_t a[MAX_ARGS];
    uint64_t status[8];
};
static __thread struct capture cap __attribute__((tls_model("initial-exec")));

/* What a thread needs beyond that only when it completes requests or
 * follows a Fortran binding's C call: allocated once, on first need. */
#define MAX_FOLLOW 256      /* requests of one completion call followed */
#define MAX_PENDING 64      /* records waiting for an outer call's end */
struct capture_ext {
    uint64_t handles[MAX_FOLLOW];   /* the requests as the call got them */
    int nhandles;
    unsigned char statuses[MAX_FOLLOW * 32];    /* for MPI_STATUSES_IGNORE */
    uint32_t npending;
    struct scope_rec pending[MAX_PENDING];
};
static __thread struct capture_ext *ext __attribute__((tls_model("initial-exec")));

static struct capture_ext *get_ext(void)
{
    if (!ext) {
        scope__self_enter();
        ext = calloc(1, sizeof *ext);
        scope__self_leave();
    }
    return ext;
}

/* Records one data record now, or keeps it for the outer call's end. */
static void emit(uint64_t ticks, uint32_t word, uint32_t aux, int keep)
{
    if (!keep) {
        scope__record_data_raw(ticks, word, aux);
        return;
    }
    struct capture_ext *e = get_ext();
    if (e && e->npending < MAX_PENDING)
        e->pending[e->npending++] = (struct scope_rec){ ticks, word, aux };
}

static void emit_data(const struct scope_call_data *d, int keep)
{
    struct scope_rec r[2];
    int n = scope_data_pack(d, r);
    for (int i = 0; i < n; i++)
        emit(r[i].ticks & ~SCOPE_REC_DATA_MARK, r[i].word, r[i].aux, keep);
}

/* Where argument i of the call lives: the first ones in the saved
 * registers below `saved` (on x86-64 rdi at saved[-1] ... r9 at saved[-6];
 * arch_trampoline.h), the rest on the caller's stack above the
 * return-address slot. */
static inline uint64_t *arg_at(uint64_t *saved, uintptr_t *slot, int i)
{
    return i < SCOPE_ARCH_SAVED_ARGS ? &saved[-1 - i]
                                     : (uint64_t *)&slot[1 + (i - SCOPE_ARCH_SAVED_ARGS)];
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
    cap.a[st] = (uint64_t)(uintptr_t)buf;
    *arg_at(saved, slot, st) = cap.a[st];
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
    struct capture *c = &cap;
    if (kind == K_SEND_INIT || kind == K_RECV_INIT)
        return;     /* the request is read at the exit */
    struct capture_ext *e = get_ext();
    if (!e) {
        c->op = 0;
        return;
    }
    int one = kind == K_WAIT || kind == K_TEST || kind == K_REQUEST_FREE || kind == K_START;
    int count = one ? 1 : (int)(uint32_t)c->a[0];
    const unsigned char *reqs = (const unsigned char *)(uintptr_t)(one ? c->a[0] : c->a[1]);
    e->nhandles = 0;
    for (int i = 0; reqs && i < count && i < MAX_FOLLOW; i++) {
        uint64_t h = 0;
        memcpy(&h, reqs + (size_t)i * abi->handle_size, abi->handle_size);
        e->handles[e->nhandles++] = h;
    }
    int st = status_array_arg(kind);
    if (st >= 0 && c->a[st] == (uint64_t)(uintptr_t)abi->status_ignore && count <= MAX_FOLLOW &&
        abi->status_size <= 32)
        lend_status(saved, slot, st, e->statuses);
}

void scope__mpi_capture_enter(uint32_t op, uint64_t *saved, uintptr_t *slot)
{
    struct capture *c = &cap;
    uint32_t i = op & ~OP_BIG;
    const struct op *o = &ops[i < sizeof ops / sizeof *ops ? i : 0];
    for (int i = 0; i < o->nargs; i++)
        c->a[i] = *arg_at(saved, slot, i);
    c->op = o->kind ? op : 0;
    if (!c->op)
        return;
    const scope__mpi_abi *abi = scope__mpi_abi_get();
    if (!abi) {
        c->op = 0;
        return;
    }
    int st = status_arg(o->kind);
    if (st >= 0 && c->a[st] == (uint64_t)(uintptr_t)abi->status_ignore)
        lend_status(saved, slot, st, c->status);
    if (o->kind >= K_WAIT)
        completion_enter(abi, o->kind, saved, slot);
}

void scope__mpi_capture_drop(void)
{
    cap.op = 0;
    if (ext)
        ext->npending = 0;
}

int scope__mpi_capture_idle(void)
{
    return cap.op == 0 && (!ext || ext->npending == 0);
}

void scope__mpi_capture_flush(void)
{
    if (!ext || !ext->npending)
        return;
    for (uint32_t i = 0; i < ext->npending; i++)
        scope__record_data_raw(ext->pending[i].ticks, ext->pending[i].word, ext->pending[i].aux);
    ext->npending = 0;
}

/* ------------------------------------------------------- MPI, through PMPI */

typedef int (*type_size_fn)(scope__mpi_handle, int *);
typedef int (*get_count_fn)(const void *, scope__mpi_handle, int *);
typedef int (*get_count_c_fn)(const void *, scope__mpi_handle, int64_t *);
typedef int (*comm_int_fn)(scope__mpi_handle, int *);
typedef int (*comm_group_fn)(scope__mpi_handle, scope__mpi_handle *);
typedef int (*translate_fn)(scope__mpi_handle, int, const int *, scope__mpi_handle, int *);
typedef int (*group_free_fn)(scope__mpi_handle *);
typedef int (*get_name_fn)(scope__mpi_handle, char *, int *);
typedef int (*test_cancelled_fn)(const void *, int *);
typedef int (*copy_attr_fn)(scope__mpi_handle, int, void *, void *, void *, int *);
typedef int (*delete_attr_fn)(scope__mpi_handle, int, void *, void *);
typedef int (*create_keyval_fn)(copy_attr_fn, delete_attr_fn, int *, void *);
typedef int (*set_attr_fn)(scope__mpi_handle, int, void *);

static struct {
    type_size_fn type_size;
    get_count_fn get_count;
    get_count_c_fn get_count_c;     /* MPI 4: sizes past 2 GiB; NULL before */
    comm_int_fn comm_size, comm_rank, comm_remote_size, comm_test_inter;
    comm_group_fn comm_group, comm_remote_group;
    translate_fn translate;
    group_free_fn group_free;
    get_name_fn get_name;
    test_cancelled_fn test_cancelled;
    create_keyval_fn create_keyval;
    set_attr_fn set_attr;
    int ok;
} P;
static pthread_once_t p_once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
    scope__self_enter();
    /* called once per recorded call: past their own trampoline when the
     * config patched them too */
    P.type_size = (type_size_fn)scope__patch_unpatched((uintptr_t)scope__next_symbol("PMPI_Type_size"));
    P.get_count = (get_count_fn)scope__patch_unpatched((uintptr_t)scope__next_symbol("PMPI_Get_count"));
    P.get_count_c = (get_count_c_fn)scope__patch_unpatched(
        (uintptr_t)scope__next_symbol("PMPI_Get_count_c"));
    P.comm_size = (comm_int_fn)scope__next_symbol("PMPI_Comm_size");
    P.comm_rank = (comm_int_fn)scope__next_symbol("PMPI_Comm_rank");
    P.comm_remote_size = (comm_int_fn)scope__next_symbol("PMPI_Comm_remote_size");
    P.comm_test_inter = (comm_int_fn)scope__next_symbol("PMPI_Comm_test_inter");
    P.comm_group = (comm_group_fn)scope__next_symbol("PMPI_Comm_group");
    P.comm_remote_group = (comm_group_fn)scope__next_symbol("PMPI_Comm_remote_group");
    P.translate = (translate_fn)scope__next_symbol("PMPI_Group_translate_ranks");
    P.group_free = (group_free_fn)scope__next_symbol("PMPI_Group_free");
    P.get_name = (get_name_fn)scope__next_symbol("PMPI_Comm_get_name");
    P.test_cancelled = (test_cancelled_fn)scope__patch_unpatched(
        (uintptr_t)scope__next_symbol("PMPI_Test_cancelled"));
    P.create_keyval = (create_keyval_fn)scope__next_symbol("PMPI_Comm_create_keyval");
    P.set_attr = (set_attr_fn)scope__next_symbol("PMPI_Comm_set_attr");
    P.ok = P.type_size && P.get_count && P.comm_size && P.comm_rank && P.comm_remote_size &&
           P.comm_test_inter && P.comm_group && P.comm_remote_group && P.translate &&
           P.group_free && P.get_name && P.test_cancelled;
    scope__self_leave();
}

static int64_t type_size(uint64_t type)
{
    int n = 0;
    return P.type_size(type, &n) == 0 && n > 0 ? n : 0;
}

/* --------------------------------------------------------- communicators */

struct comm_info {
    _Atomic uint64_t handle;    /* 0: free slot (no ABI's handle is 0);
                                   COMM_GONE: freed (probes go on) */
    int32_t id;
    int32_t size, remote_size, me;
    int32_t *world;             /* size local members, then remote_size remote */
};

#define COMM_SLOTS 4096u        /* a power of two */
#define COMM_GONE 1u            /* no ABI's communicator handle is 1 */
static struct comm_info comms[COMM_SLOTS];
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;

/* A freed communicator's handle is soon another's (MPICH and Open MPI
 * reuse them): an attribute with a delete callback, set on each
 * communicator when it is first used, tells when MPI_Comm_free (or
 * MPI_Finalize) deletes it, however that is called. Its member list is
 * kept a while longer: a request posted on it may still complete, and
 * its entry in the request table points there. */
static int comm_keyval;
static int keyval_state;    /* 0 not made yet, 1 made, -1 MPI refused */
#define GRAVEYARD 64u
static int32_t *_Atomic graveyard[GRAVEYARD];
static _Atomic uint32_t graveyard_next;

static int comm_nocopy(scope__mpi_handle old, int keyval, void *extra, void *in, void *out,
                       int *flag)
{
    (void)old; (void)keyval; (void)extra; (void)in; (void)out;
    *flag = 0;      /* a duplicate is a communicator of its own */
    return 0;
}

static int comm_gone(scope__mpi_handle comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    /* no lock: MPI may hold its own while it calls this, and comm_fill()
     * calls MPI with comm_lock held */
    struct comm_info *e = attr;
    atomic_store_explicit(&e->handle, COMM_GONE, memory_order_release);
    uint32_t g = atomic_fetch_add(&graveyard_next, 1) % GRAVEYARD;
    free(atomic_exchange(&graveyard[g], e->world));
    return 0;
}

static uint32_t comm_hash(uint64_t h)
{
    return (uint32_t)((h * 0x9e3779b97f4a7c15ull) >> 52) & (COMM_SLOTS - 1);
}

/* World ranks of a group's members, into out[0..n). Returns 0 or -1. */
static int group_world(const scope__mpi_abi *abi, scope__mpi_handle group, int n, int32_t *out)
{
    scope__mpi_handle wg = 0;
    int *ranks = malloc((size_t)n * sizeof *ranks);
    if (!ranks || P.comm_group(abi->comm_world, &wg) != 0) {
        free(ranks);
        return -1;
    }
    wg = scope__mpi_handle_out(abi, wg);
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    int rc = P.translate(group, n, ranks, wg, out);
    for (int i = 0; i < n; i++)
        if (out[i] < 0)
            out[i] = -1;    /* MPI_UNDEFINED */
    P.group_free(&wg);
    free(ranks);
    return rc == 0 ? 0 : -1;
}

/* Fills a fresh entry for handle h: members, rank, name, its id in the
 * recorder's table. Returns 0 or -1 (nothing kept). Lock held. */
static int comm_fill(const scope__mpi_abi *abi, struct comm_info *e, uint64_t h)
{
    int size = 0, rsize = 0, me = -1, inter = 0;
    if (P.comm_test_inter(h, &inter) != 0 || P.comm_size(h, &size) != 0 ||
        P.comm_rank(h, &me) != 0 || size <= 0)
        return -1;
    if (inter && P.comm_remote_size(h, &rsize) != 0)
        return -1;
    int32_t *world = malloc(((size_t)size + (size_t)rsize) * sizeof *world);
    if (!world)
        return -1;
    scope__mpi_handle g = 0;
    int rc = P.comm_group(h, &g);
    if (rc == 0) {
        g = scope__mpi_handle_out(abi, g);
        rc = group_world(abi, g, size, world);
        P.group_free(&g);
    }
    if (rc == 0 && inter) {
        scope__mpi_handle rg = 0;
        rc = P.comm_remote_group(h, &rg);
        if (rc == 0) {
            rg = scope__mpi_handle_out(abi, rg);
            rc = group_world(abi, rg, rsize, world + size);
            P.group_free(&rg);
        }
    }
    char name[8192 + 1] = "";   /* MPI_MAX_OBJECT_NAME: 64 or 128; room to spare */
    int len = 0;
    if (rc == 0 && P.get_name(h, name, &len) != 0)
        name[0] = 0;
    int32_t id = rc == 0 ? scope__comm_define(size, rsize, world, "", name) : -1;
    if (id < 0) {
        free(world);
        return -1;
    }
    e->id = id;
    e->size = size;
    e->remote_size = rsize;
    e->me = me;
    e->world = world;
    atomic_store_explicit(&e->handle, h, memory_order_release);
    /* keyvals are handles: MPICH's are negative ints */
    if (keyval_state == 0)
        keyval_state = P.create_keyval && P.set_attr &&
                       P.create_keyval(comm_nocopy, comm_gone, &comm_keyval, NULL) == 0 ? 1 : -1;
    if (keyval_state > 0)
        P.set_attr(h, comm_keyval, e);   /* else reused handles can go stale */
    return 0;
}

/* The entry of communicator h, defined on first use; NULL when it cannot
 * be (the table is full, or MPI refused a query). */
static const struct comm_info *comm_get(const scope__mpi_abi *abi, uint64_t h)
{
    if (abi->handle_size == 4)
        h &= 0xffffffffu;   /* an int handle: the register's upper half is not its */
    if (!h)
        return NULL;
    uint32_t i = comm_hash(h);
    for (uint32_t k = 0; k < COMM_SLOTS; k++, i = (i + 1) & (COMM_SLOTS - 1)) {
        uint64_t v = atomic_load_explicit(&comms[i].handle, memory_order_acquire);
        if (v == h)
            return &comms[i];
        if (v == 0)
            break;
    }
    const struct comm_info *found = NULL;
    scope__self_enter();
    pthread_mutex_lock(&comm_lock);
    i = comm_hash(h);
    struct comm_info *reuse = NULL;     /* the first freed slot on the way */
    for (uint32_t k = 0; k < COMM_SLOTS; k++, i = (i + 1) & (COMM_SLOTS - 1)) {
        uint64_t v = atomic_load_explicit(&comms[i].handle, memory_order_relaxed);
        if (v == h) {
            found = &comms[i];
            break;
        }
        if (v == COMM_GONE && !reuse)
            reuse = &comms[i];
        if (v == 0) {
            struct comm_info *e = reuse ? reuse : &comms[i];
            if ((reuse || k < COMM_SLOTS - 1) && comm_fill(abi, e, h) == 0)
                found = e;
            break;
        }
    }
    pthread_mutex_unlock(&comm_lock);
    scope__self_leave();
    return found;
}

/* The world rank of rank r of the local (remote = 0) or remote group. */
static int32_t world_of(const struct comm_info *c, int r, int remote)
{
    if (remote)
        return r >= 0 && r < c->remote_size ? c->world[c->size + r] : -1;
    return r >= 0 && r < c->size ? c->world[r] : -1;
}

/* ------------------------------------------------- requests: the exit */

/* One completed request: its completion record, with what a receive's
 * status says. */
static void completed(const scope__mpi_abi *abi, uint64_t handle, const void *status, int keep)
{
    struct scope__req r;
    if (!scope__req_take(handle, &r))
        return;
    uint64_t src1 = 0, tag2 = 0;
    uint32_t bytes = 0;
    if (r.recv && status) {
        const char *s = status;
        int src, tag, cancelled = 0;
        memcpy(&src, s + abi->status_source_off, sizeof src);
        memcpy(&tag, s + abi->status_tag_off, sizeof tag);
        if (P.test_cancelled(status, &cancelled) == 0 && cancelled) {
            src1 = SCOPE_REQ_CANCELLED;
        } else if (src != abi->proc_null) {
            int64_t n64 = 0;
            int n = 0;
            if (P.get_count_c ? P.get_count_c(s, abi->dt_byte, &n64) == 0
                              : (P.get_count(s, abi->dt_byte, &n) == 0 && ((n64 = n), 1)))
                bytes = n64 <= 0 ? 0 : n64 > UINT32_MAX ? UINT32_MAX : (uint32_t)n64;
            int32_t w = src >= 0 && src < r.world_n ? r.world[r.world_off + src] : -1;
            src1 = w >= 0 && w < 0xfffe ? (uint64_t)(w + 1) : 0;
            tag2 = tag >= -1 && tag < (1 << 14) - 2 ? (uint64_t)(tag + 2) : 0;
        }
    }
    emit(SCOPE_REQ_COMPLETION | r.id | (src1 << 32) | (tag2 << 48), SCOPE_REC_REQUEST_WORD, bytes,
         keep);
}

static int bytes_of(const scope__mpi_abi *abi, int kind, const uint64_t *a,
                    struct scope_call_data *d);
static __thread const struct comm_info *used_comm __attribute__((tls_model("initial-exec")));

/* A persistent request made: what each of its starts will move. */
static void persistent_init(const scope__mpi_abi *abi, int kind, const uint64_t *a)
{
    struct scope_call_data d = { 0, 0, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_TAG, 0 };
    const void *rp = (const void *)(uintptr_t)a[6];
    if (!rp || bytes_of(abi, kind == K_SEND_INIT ? K_SEND : K_IRECV, a, &d) < 0 || !used_comm)
        return;
    uint64_t h = 0;
    memcpy(&h, rp, abi->handle_size);
    const struct comm_info *cm = used_comm;
    int inter = cm->remote_size > 0;
    struct scope__persist p = {
        d.bytes_sent, d.dest, d.source, d.tag, d.comm,
        { 0, kind == K_RECV_INIT, cm->world, inter ? cm->remote_size : cm->size,
          inter ? cm->size : 0 },
    };
    scope__req_persist(h, &p);
}

/* Follows request `handle` from its post (a nonblocking call, or a start
 * of a persistent one) and records the post record naming it. */
static void name_post(uint64_t handle, struct scope__req r, int keep)
{
    uint32_t id = scope__req_post(handle, &r);
    if (id)
        emit(id | (r.recv ? SCOPE_REQ_RECV : 0), SCOPE_REC_REQUEST_WORD, 0, keep);
}

/* MPI_Start(all): each started persistent request is a post. One data
 * record for the call: a single request's own values; for several, the
 * bytes they send together and no partner. */
static void persistent_start(const struct capture_ext *e, int keep)
{
    struct scope_call_data d = { 0, 0, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_TAG, 0 };
    int found = 0;
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
        }
        d.bytes_sent += p->bytes;
        found++;
    }
    if (!found)
        return;
    emit_data(&d, keep);
    for (int i = 0; i < e->nhandles; i++) {
        const struct scope__persist *p = scope__req_persisted(e->handles[i]);
        if (!p)
            continue;
        name_post(e->handles[i], p->r, keep);
    }
}

/* What a completion call completed, once MPI returned MPI_SUCCESS. */
static void completion_exit(const scope__mpi_abi *abi, int kind, const uint64_t *a, int keep)
{
    if (kind == K_SEND_INIT || kind == K_RECV_INIT) {
        persistent_init(abi, kind, a);
        return;
    }
    struct capture_ext *e = ext;
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
 * `big` says which, for the call being measured. */
static __thread int big __attribute__((tls_model("initial-exec")));

static int64_t sum_counts(uint64_t counts, int n)
{
    int64_t s = 0;
    if (big) {
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
    if (!counts || i < 0)
        return 0;
    int64_t v = big ? ((const int64_t *)(uintptr_t)counts)[i] : ((const int *)(uintptr_t)counts)[i];
    return v > 0 ? v : 0;
}

static int64_t cnt(uint64_t a)
{
    int64_t v = big ? (int64_t)a : (int)(uint32_t)a;
    return v > 0 ? v : 0;
}

/* Source, tag and size received, from a status the call filled. */
static void from_status(const scope__mpi_abi *abi, const struct comm_info *c, uint64_t status,
                        struct scope_call_data *d)
{
    const char *s = (const char *)(uintptr_t)status;
    int src, tag, n = 0;
    int64_t n64 = 0;
    memcpy(&src, s + abi->status_source_off, sizeof src);
    memcpy(&tag, s + abi->status_tag_off, sizeof tag);
    if (src == abi->proc_null)
        return;
    if (P.get_count_c ? P.get_count_c(s, abi->dt_byte, &n64) == 0 && n64 > 0
                      : P.get_count(s, abi->dt_byte, &n) == 0 && n > 0)
        d->bytes_received = P.get_count_c ? n64 : n;
    d->source = world_of(c, src, c->remote_size > 0);
    if (d->tag == SCOPE_DATA_NO_TAG)
        d->tag = tag;
}

/* A rooted collective's root: sets the partner columns, and says whether
 * this rank is the root (1), another member (0), or takes no part
 * (MPI_PROC_NULL on an intercommunicator: -1). */
static int rooted(const scope__mpi_abi *abi, const struct comm_info *c, uint64_t root_arg,
                  struct scope_call_data *d)
{
    int root = (int)(uint32_t)root_arg;
    if (c->remote_size > 0) {
        if (root == abi->proc_null)
            return -1;
        if (root == abi->root) {
            d->dest = d->source = world_of(c, c->me, 0);
            return 1;
        }
        d->dest = d->source = world_of(c, root, 1);
        return 0;
    }
    d->dest = d->source = world_of(c, root, 0);
    return root == c->me;
}

/* used_comm (declared above): the communicator the last bytes_of()
 * measured against (a post's completion translates its source through it). */

/* The byte model of docs/format.md, one case per kind. Returns 0, or -1
 * when nothing is to be recorded. */
static int bytes_of(const scope__mpi_abi *abi, int kind, const uint64_t *a, struct scope_call_data *d)
{
    static const int comm_arg[] = {
        [K_SEND] = 5, [K_RECV] = 5, [K_IRECV] = 5, [K_SENDRECV] = 10, [K_SENDRECV_REPLACE] = 7,
        [K_BCAST] = 4, [K_REDUCE] = 6, [K_ALLREDUCE] = 5, [K_ALLTOALL] = 6, [K_ALLTOALLV] = 8,
        [K_ALLGATHER] = 6, [K_ALLGATHERV] = 7, [K_GATHER] = 7, [K_GATHERV] = 8, [K_SCATTER] = 7,
        [K_SCATTERV] = 8, [K_REDUCE_SCATTER] = 5, [K_REDUCE_SCATTER_BLOCK] = 5, [K_BARRIER] = 0,
    };
    const struct comm_info *c = comm_get(abi, a[comm_arg[kind]]);
    used_comm = c;
    if (!c)
        return -1;
    d->comm = c->id;
    int inter = c->remote_size > 0;
    int n = inter ? c->remote_size : c->size;
    int in_place = 0;
    int r;
    switch (kind) {
    case K_SEND:
        if ((int)(uint32_t)a[3] == abi->proc_null)
            return 0;
        d->bytes_sent = cnt(a[1]) * type_size(a[2]);
        d->dest = world_of(c, (int)(uint32_t)a[3], inter);
        d->tag = (int)(uint32_t)a[4];
        return 0;
    case K_RECV:
        from_status(abi, c, a[6], d);
        return 0;
    case K_IRECV:
        r = (int)(uint32_t)a[3];
        if (r == abi->proc_null)
            return 0;
        d->source = r == abi->any_source ? -1 : world_of(c, r, inter);
        d->tag = (int)(uint32_t)a[4];
        return 0;
    case K_SENDRECV:
    case K_SENDRECV_REPLACE:
        if ((int)(uint32_t)a[3] != abi->proc_null) {
            d->bytes_sent = cnt(a[1]) * type_size(a[2]);
            d->dest = world_of(c, (int)(uint32_t)a[3], inter);
        }
        d->tag = (int)(uint32_t)a[4];
        from_status(abi, c, a[kind == K_SENDRECV ? 11 : 8], d);
        return 0;
    case K_BCAST:
        r = rooted(abi, c, a[3], d);
        if (r == 1)
            d->bytes_sent = cnt(a[1]) * type_size(a[2]);
        else if (r == 0)
            d->bytes_received = cnt(a[1]) * type_size(a[2]);
        return 0;
    case K_REDUCE:
        r = rooted(abi, c, a[5], d);
        if (r < 0)
            return 0;
        if (!inter || r == 0)
            d->bytes_sent = cnt(a[2]) * type_size(a[3]);
        if (r == 1)
            d->bytes_received = cnt(a[2]) * type_size(a[3]);
        return 0;
    case K_ALLREDUCE:
        d->bytes_sent = d->bytes_received = cnt(a[2]) * type_size(a[3]);
        return 0;
    case K_ALLTOALL:
        d->bytes_received = cnt(a[4]) * type_size(a[5]) * n;
        in_place = a[0] == abi->in_place;
        d->bytes_sent = in_place ? d->bytes_received : cnt(a[1]) * type_size(a[2]) * n;
        return 0;
    case K_ALLTOALLV:
        d->bytes_received = sum_counts(a[5], n) * type_size(a[7]);
        in_place = a[0] == abi->in_place;
        d->bytes_sent = in_place ? d->bytes_received : sum_counts(a[1], n) * type_size(a[3]);
        return 0;
    case K_ALLGATHER:
        d->bytes_received = cnt(a[4]) * type_size(a[5]) * n;
        in_place = a[0] == abi->in_place;
        d->bytes_sent = in_place ? cnt(a[4]) * type_size(a[5]) : cnt(a[1]) * type_size(a[2]);
        return 0;
    case K_ALLGATHERV:
        d->bytes_received = sum_counts(a[4], n) * type_size(a[6]);
        in_place = a[0] == abi->in_place;
        d->bytes_sent = in_place ? (int64_t)count_at(a[4], c->me) * type_size(a[6])
                                 : cnt(a[1]) * type_size(a[2]);
        return 0;
    case K_GATHER:
    case K_GATHERV:
        r = rooted(abi, c, a[kind == K_GATHER ? 6 : 7], d);
        if (r < 0)
            return 0;
        in_place = a[0] == abi->in_place;
        if (r == 1)
            d->bytes_received = kind == K_GATHER ? cnt(a[4]) * type_size(a[5]) * n
                                                 : sum_counts(a[4], n) * type_size(a[6]);
        if (r == 1 && inter)
            return 0;   /* the root of an intercommunicator sends nothing */
        if (in_place && r == 1)
            d->bytes_sent = kind == K_GATHER ? cnt(a[4]) * type_size(a[5])
                                             : (int64_t)count_at(a[4], c->me) * type_size(a[6]);
        else
            d->bytes_sent = cnt(a[1]) * type_size(a[2]);
        return 0;
    case K_SCATTER:
    case K_SCATTERV:
        r = rooted(abi, c, a[kind == K_SCATTER ? 6 : 7], d);
        if (r < 0)
            return 0;
        in_place = a[kind == K_SCATTER ? 3 : 4] == abi->in_place;
        if (r == 1)
            d->bytes_sent = kind == K_SCATTER ? cnt(a[1]) * type_size(a[2]) * n
                                              : sum_counts(a[1], n) * type_size(a[3]);
        if (r == 1 && inter)
            return 0;   /* the root of an intercommunicator receives nothing */
        if (in_place && r == 1)
            d->bytes_received = kind == K_SCATTER ? cnt(a[1]) * type_size(a[2])
                                                  : (int64_t)count_at(a[1], c->me) * type_size(a[3]);
        else if (kind == K_SCATTER)
            d->bytes_received = cnt(a[4]) * type_size(a[5]);
        else
            d->bytes_received = cnt(a[5]) * type_size(a[6]);
        return 0;
    case K_REDUCE_SCATTER:
        d->bytes_sent = sum_counts(a[2], c->size) * type_size(a[3]);
        d->bytes_received = (int64_t)count_at(a[2], c->me) * type_size(a[3]);
        return 0;
    case K_REDUCE_SCATTER_BLOCK:
        d->bytes_received = cnt(a[2]) * type_size(a[3]);
        d->bytes_sent = d->bytes_received * c->size;
        return 0;
    case K_BARRIER:
        return 0;
    }
    return -1;
}

void scope__mpi_capture_exit(uint64_t rc, int keep)
{
    struct capture *c = &cap;
    uint32_t op = c->op;
    c->op = 0;
    if (!op)
        return;
    const scope__mpi_abi *abi = scope__mpi_abi_get();
    if (!abi || (int)(uint32_t)rc != abi->success)
        return;
    pthread_once(&p_once, resolve);
    if (!P.ok)
        return;
    big = (op & OP_BIG) != 0;
    op &= ~OP_BIG;
    int kind = ops[op].kind;
    if (kind >= K_WAIT) {
        completion_exit(abi, kind, c->a, keep);
        return;
    }
    struct scope_call_data d = { 0, 0, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_TAG, 0 };
    if (bytes_of(abi, kind, c->a, &d) < 0)
        return;
    emit_data(&d, keep);
    /* a nonblocking point-to-point post: named, so that its completion
     * can say which post it completed */
    const struct comm_info *cm = used_comm;
    if (ops[op].name[0] == 'I' && (kind == K_SEND || kind == K_IRECV) && ops[op].nargs == 7 && cm) {
        uint64_t h = 0;
        const void *rp = (const void *)(uintptr_t)c->a[6];
        if (!rp)
            return;
        memcpy(&h, rp, abi->handle_size);
        int inter = cm->remote_size > 0;
        struct scope__req r = { 0, kind == K_IRECV, cm->world, inter ? cm->remote_size : cm->size,
                                inter ? cm->size : 0 };
        name_post(h, r, keep);
    }
}
