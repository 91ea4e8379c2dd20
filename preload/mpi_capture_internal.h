/*
 * mpi_capture_internal.h - what the files of the MPI argument capture
 * share (mpi_capture.h is their interface to the trampoline):
 * mpi_capture.c (the table of captured functions, the byte model of
 * point-to-point calls and collectives, requests), mpi_comms.c (MPI
 * through PMPI; the communicators, their world ranks, creating calls and
 * neighbourhoods) and mpi_rma.c (windows and the one-sided calls).
 * docs/format.md "What MPI calls moved" is the contract they implement.
 */
#ifndef SCOPE_MPI_CAPTURE_INTERNAL_H
#define SCOPE_MPI_CAPTURE_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "journal.h"
#include "mpi_abi.h"

/* How a function's arguments describe what it moves (mpi_capture.c's
 * bytes_of). The completion kinds come last (>= K_WAIT). */
enum scope__mpi_kind {
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
    K_ALLTOALLW,        /* sbuf, scounts, sdispls, stypes[], rbuf, rcounts, rdispls, rtypes[], comm */
    /* neighbourhood collectives: the blocks go to and come from the
     * communicator's topology neighbours */
    K_NB_ALLGATHER,     /* as K_ALLGATHER */
    K_NB_ALLGATHERV,    /* as K_ALLGATHERV */
    K_NB_ALLTOALL,      /* as K_ALLTOALL */
    K_NB_ALLTOALLV,     /* as K_ALLTOALLV */
    K_NB_ALLTOALLW,     /* as K_ALLTOALLW (displacements are MPI_Aint) */
    /* one-sided (mpi_rma.c): the window is the last argument before the
     * request of the R- forms */
    K_PUT,              /* obuf, ocount, otype, target, disp, tcount, ttype, win */
    K_GET,              /* as K_PUT */
    K_ACC,              /* obuf, ocount, otype, target, disp, tcount, ttype, op, win */
    K_GET_ACC,          /* obuf, ocount, otype, rbuf, rcount, rtype, target, disp, tcount, ttype, op, win */
    K_FETCH_OP,         /* obuf, rbuf, type, target, disp, op, win */
    K_CAS,              /* obuf, cbuf, rbuf, type, target, disp, win */
    K_WIN_CREATE,       /* base, size, disp_unit, info, comm, win* */
    K_WIN_ALLOCATE,     /* size, disp_unit, info, comm, baseptr, win* (also _shared) */
    K_WIN_DYNAMIC,      /* info, comm, win* */
    /* a communicator made (mpi_comms.c): its creating call is noted */
    K_COMM_NEW,
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
    K_COLL_INIT,        /* a persistent collective: its blocking kind's
                           arguments, info, request; moves at each start */
};

/* ----------------------------------------------------- MPI, through PMPI */

typedef int (*scope__type_size_fn)(scope__mpi_handle, int *);
typedef int (*scope__get_count_fn)(const void *, scope__mpi_handle, int *);
typedef int (*scope__get_count_c_fn)(const void *, scope__mpi_handle, int64_t *);
typedef int (*scope__comm_int_fn)(scope__mpi_handle, int *);
typedef int (*scope__comm_group_fn)(scope__mpi_handle, scope__mpi_handle *);
typedef int (*scope__test_cancelled_fn)(const void *, int *);

/* The PMPI functions the byte model calls on every recorded call (the
 * rest are mpi_comms.c's and mpi_rma.c's own). Valid once
 * scope__pmpi_ready() said 1. The capture's own table, filled by
 * scope__pmpi_ready(); pmpi.h's is the one of the preload's own MPI work
 * (clock alignment, host files). */
struct scope__capture_pmpi {
    scope__type_size_fn type_size;
    scope__get_count_fn get_count;
    scope__get_count_c_fn get_count_c;  /* MPI 4: sizes past 2 GiB; NULL before */
    scope__test_cancelled_fn test_cancelled;
    scope__comm_group_fn win_get_group; /* NULL: one-sided calls get no target */
};
extern struct scope__capture_pmpi scope__P;

/* Looks the PMPI functions up once (every thread); returns 1 when the
 * capture can run, else 0 (then nothing is recorded beyond times). */
int scope__pmpi_ready(void);

/* count x size of `type` (MPI_Type_size; 0 when MPI says none).
 * Only for a datatype MPI has just accepted. */
static inline int64_t scope__mpi_type_size(uint64_t type)
{
    int n = 0;
    return scope__P.type_size(type, &n) == 0 && n > 0 ? n : 0;
}

/* A count argument: an int, or an MPI_Count in the large-count (`big`)
 * functions; negative reads 0. */
static inline int64_t scope__mpi_cnt(int big, uint64_t a)
{
    int64_t v = big ? (int64_t)a : (int)(uint32_t)a;
    return v > 0 ? v : 0;
}

/* Entry i of a count array (ints, or MPI_Counts when `big`); 0 for none. */
static inline int64_t scope__mpi_count_at(int big, uint64_t counts, int i)
{
    if (!counts || i < 0)
        return 0;
    int64_t v = big ? ((const int64_t *)(uintptr_t)counts)[i] : ((const int *)(uintptr_t)counts)[i];
    return v > 0 ? v : 0;
}

/* --------------------------------------------------------- communicators */

struct scope__comm {
    _Atomic uint64_t handle;    /* 0: free slot (no ABI's handle is 0);
                                   SCOPE__COMM_GONE: freed (probes go on) */
    int32_t id;                 /* row of /rank<N>/communicators */
    int32_t size, remote_size, me;
    int32_t *world;             /* size local members, then remote_size remote */
    /* the topology's neighbours, learnt at the first neighbourhood
     * collective: 0 not yet, 1 known, -1 none (no topology, or MPI refused) */
    _Atomic int nb_state;
    int32_t indegree, outdegree;
    uint8_t *in_null, *out_null;    /* 1 where the neighbour is MPI_PROC_NULL */
};
#define SCOPE__COMM_GONE 1u     /* no ABI's communicator handle is 1 */

/* The entry of communicator h, defined on first use (its world ranks
 * translated through its group once); NULL when it cannot be (the table
 * is full, or MPI refused a query). Lock-free once defined. */
const struct scope__comm *scope__mpi_comm_get(const scope__mpi_abi *abi, uint64_t h);

/* The world rank of rank r of the local (remote = 0) or remote group, or
 * -1. Pure. */
static inline int32_t scope__mpi_world_of(const struct scope__comm *c, int r, int remote)
{
    if (remote)
        return r >= 0 && r < c->remote_size ? c->world[c->size + r] : -1;
    return r >= 0 && r < c->size ? c->world[r] : -1;
}

/* The topology neighbours of c (learnt once: MPI_Topo_test, then the
 * Cartesian shifts, the graph's or the distributed graph's neighbours).
 * Returns 1 with c's indegree/outdegree/in_null/out_null valid, or 0 when
 * c has no topology. */
int scope__mpi_comm_neighbours(const scope__mpi_abi *abi, const struct scope__comm *c);

/* A call `creator` ("Comm_split" for MPI_Comm_split) made communicator `h` (read from
 * its output argument): the name is kept until the communicator's row is
 * defined, at its first use. Handles of MPI_COMM_NULL are ignored. */
void scope__mpi_comm_created(const scope__mpi_abi *abi, uint64_t h, const char *creator);

/* --------------------------------------------------------------- windows */

/* What a one-sided call of kind K_PUT..K_CAS moved (mpi_rma.c): bytes at
 * the origin and the target as a world rank (`a`: its arguments, `big`:
 * a large-count form). Returns 0, or -1 when nothing is to be recorded. */
int scope__mpi_rma_bytes(const scope__mpi_abi *abi, int kind, const uint64_t *a, int big,
                         struct scope_call_data *d);

/* A window was made (K_WIN_CREATE, K_WIN_ALLOCATE, K_WIN_DYNAMIC, MPI
 * accepted it): learns its communicator's members and fills d's comm.
 * Returns 0, or -1 when nothing is known. */
int scope__mpi_win_created(const scope__mpi_abi *abi, int kind, const uint64_t *a,
                           struct scope_call_data *d);

#endif
