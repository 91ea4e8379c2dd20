/*
 * mpi_ops.c - the table of MPI functions whose arguments the capture reads
 * (mpi_ops.h): each one's kind (its byte model in mpi_capture.c), how many
 * arguments to copy at the entry, and the name lookups the interposition
 * engine uses to give an instrumented symbol its operation. Apart from the
 * capture because it is data about MPI's signatures, not the capture's
 * logic, and the interposition engine needs it without the rest.
 */
#include <stdint.h>
#include <string.h>

#include "mpi_kinds.h"
#include "mpi_ops.h"

/* Index = the operation number carried in a function's flags. The
 * nonblocking collectives take the blocking ones' arguments plus a
 * request, copied last: their bytes are counted when they are posted, and
 * the request links the post to the MPI_Wait* that completes it. */
const struct scope__mpi_op scope__mpi_ops[] = {
    { NULL, K_NONE, 0, 0, 0 },
    { "Send", K_SEND, 6, 0, 0 }, { "Ssend", K_SEND, 6, 0, 0 },
    { "Bsend", K_SEND, 6, 0, 0 }, { "Rsend", K_SEND, 6, 0, 0 },
    { "Isend", K_SEND, 7, 0, SCOPE_MPI_PATH_ISEND }, { "Issend", K_SEND, 7, 0, SCOPE_MPI_PATH_ISEND },
    { "Ibsend", K_SEND, 7, 0, SCOPE_MPI_PATH_ISEND }, { "Irsend", K_SEND, 7, 0, SCOPE_MPI_PATH_ISEND },
    { "Recv", K_RECV, 7, 0, 0 }, { "Irecv", K_IRECV, 7, 0, SCOPE_MPI_PATH_IRECV },
    { "Sendrecv", K_SENDRECV, 12, 0, 0 }, { "Sendrecv_replace", K_SENDRECV_REPLACE, 9, 0, 0 },
    { "Bcast", K_BCAST, 5, 0, 0 }, { "Ibcast", K_BCAST, 6, 0, 0 },
    { "Reduce", K_REDUCE, 7, 0, 0 }, { "Ireduce", K_REDUCE, 8, 0, 0 },
    { "Allreduce", K_ALLREDUCE, 6, 0, SCOPE_MPI_PATH_ALLREDUCE }, { "Iallreduce", K_ALLREDUCE, 7, 0, 0 },
    { "Scan", K_ALLREDUCE, 6, 0, SCOPE_MPI_PATH_ALLREDUCE }, { "Iscan", K_ALLREDUCE, 7, 0, 0 },
    { "Exscan", K_ALLREDUCE, 6, 0, SCOPE_MPI_PATH_ALLREDUCE }, { "Iexscan", K_ALLREDUCE, 7, 0, 0 },
    { "Alltoall", K_ALLTOALL, 7, 0, 0 }, { "Ialltoall", K_ALLTOALL, 8, 0, 0 },
    { "Alltoallv", K_ALLTOALLV, 9, 0, 0 }, { "Ialltoallv", K_ALLTOALLV, 10, 0, 0 },
    { "Allgather", K_ALLGATHER, 7, 0, 0 }, { "Iallgather", K_ALLGATHER, 8, 0, 0 },
    { "Allgatherv", K_ALLGATHERV, 8, 0, 0 }, { "Iallgatherv", K_ALLGATHERV, 9, 0, 0 },
    { "Gather", K_GATHER, 8, 0, 0 }, { "Igather", K_GATHER, 9, 0, 0 },
    { "Gatherv", K_GATHERV, 9, 0, 0 }, { "Igatherv", K_GATHERV, 10, 0, 0 },
    { "Scatter", K_SCATTER, 8, 0, 0 }, { "Iscatter", K_SCATTER, 9, 0, 0 },
    { "Scatterv", K_SCATTERV, 9, 0, 0 }, { "Iscatterv", K_SCATTERV, 10, 0, 0 },
    { "Reduce_scatter", K_REDUCE_SCATTER, 6, 0, 0 }, { "Ireduce_scatter", K_REDUCE_SCATTER, 7, 0, 0 },
    { "Reduce_scatter_block", K_REDUCE_SCATTER_BLOCK, 6, 0, 0 },
    { "Ireduce_scatter_block", K_REDUCE_SCATTER_BLOCK, 7, 0, 0 },
    { "Barrier", K_BARRIER, 1, 0, 0 }, { "Ibarrier", K_BARRIER, 2, 0, 0 },
    { "Alltoallw", K_ALLTOALLW, 9, 0, 0 }, { "Ialltoallw", K_ALLTOALLW, 10, 0, 0 },
    { "Neighbor_allgather", K_NB_ALLGATHER, 7, 0, 0 }, { "Ineighbor_allgather", K_NB_ALLGATHER, 8, 0, 0 },
    { "Neighbor_allgatherv", K_NB_ALLGATHERV, 8, 0, 0 }, { "Ineighbor_allgatherv", K_NB_ALLGATHERV, 9, 0, 0 },
    { "Neighbor_alltoall", K_NB_ALLTOALL, 7, 0, 0 }, { "Ineighbor_alltoall", K_NB_ALLTOALL, 8, 0, 0 },
    { "Neighbor_alltoallv", K_NB_ALLTOALLV, 9, 0, 0 }, { "Ineighbor_alltoallv", K_NB_ALLTOALLV, 10, 0, 0 },
    { "Neighbor_alltoallw", K_NB_ALLTOALLW, 9, 0, 0 }, { "Ineighbor_alltoallw", K_NB_ALLTOALLW, 10, 0, 0 },
    /* the R- forms copy their request too (last): linked to its completion */
    { "Put", K_PUT, 8, 0, 0 }, { "Rput", K_PUT, 9, 0, 0 },
    { "Get", K_GET, 8, 0, 0 }, { "Rget", K_GET, 9, 0, 0 },
    { "Accumulate", K_ACC, 9, 0, 0 }, { "Raccumulate", K_ACC, 10, 0, 0 },
    { "Get_accumulate", K_GET_ACC, 12, 0, 0 }, { "Rget_accumulate", K_GET_ACC, 13, 0, 0 },
    { "Fetch_and_op", K_FETCH_OP, 7, 0, 0 }, { "Compare_and_swap", K_CAS, 7, 0, 0 },
    { "Win_create", K_WIN_CREATE, 6, 0, 0 }, { "Win_allocate", K_WIN_ALLOCATE, 6, 0, 0 },
    { "Win_allocate_shared", K_WIN_ALLOCATE, 6, 0, 0 }, { "Win_create_dynamic", K_WIN_DYNAMIC, 3, 0, 0 },
    /* persistent collectives (MPI 4): the blocking call's arguments, info, request */
    { "Bcast_init", K_COLL_INIT, 7, K_BCAST, 0 }, { "Reduce_init", K_COLL_INIT, 9, K_REDUCE, 0 },
    { "Allreduce_init", K_COLL_INIT, 8, K_ALLREDUCE, 0 }, { "Scan_init", K_COLL_INIT, 8, K_ALLREDUCE, 0 },
    { "Exscan_init", K_COLL_INIT, 8, K_ALLREDUCE, 0 },
    { "Alltoall_init", K_COLL_INIT, 9, K_ALLTOALL, 0 }, { "Alltoallv_init", K_COLL_INIT, 11, K_ALLTOALLV, 0 },
    { "Alltoallw_init", K_COLL_INIT, 11, K_ALLTOALLW, 0 },
    { "Allgather_init", K_COLL_INIT, 9, K_ALLGATHER, 0 },
    { "Allgatherv_init", K_COLL_INIT, 10, K_ALLGATHERV, 0 },
    { "Gather_init", K_COLL_INIT, 10, K_GATHER, 0 }, { "Gatherv_init", K_COLL_INIT, 11, K_GATHERV, 0 },
    { "Scatter_init", K_COLL_INIT, 10, K_SCATTER, 0 }, { "Scatterv_init", K_COLL_INIT, 11, K_SCATTERV, 0 },
    { "Reduce_scatter_init", K_COLL_INIT, 8, K_REDUCE_SCATTER, 0 },
    { "Reduce_scatter_block_init", K_COLL_INIT, 8, K_REDUCE_SCATTER_BLOCK, 0 },
    { "Barrier_init", K_COLL_INIT, 3, K_BARRIER, 0 },
    { "Neighbor_allgather_init", K_COLL_INIT, 9, K_NB_ALLGATHER, 0 },
    { "Neighbor_allgatherv_init", K_COLL_INIT, 10, K_NB_ALLGATHERV, 0 },
    { "Neighbor_alltoall_init", K_COLL_INIT, 9, K_NB_ALLTOALL, 0 },
    { "Neighbor_alltoallv_init", K_COLL_INIT, 11, K_NB_ALLTOALLV, 0 },
    { "Neighbor_alltoallw_init", K_COLL_INIT, 11, K_NB_ALLTOALLW, 0 },
    /* communicators made: their creating call (the new one's argument) */
    { "Comm_dup", K_COMM_NEW, 2, 1, 0 }, { "Comm_dup_with_info", K_COMM_NEW, 3, 2, 0 },
    { "Comm_idup", K_COMM_NEW, 2, 1, 0 }, { "Comm_idup_with_info", K_COMM_NEW, 3, 2, 0 },
    { "Comm_split", K_COMM_NEW, 4, 3, 0 }, { "Comm_split_type", K_COMM_NEW, 5, 4, 0 },
    { "Comm_create", K_COMM_NEW, 3, 2, 0 }, { "Comm_create_group", K_COMM_NEW, 4, 3, 0 },
    { "Comm_create_from_group", K_COMM_NEW, 5, 4, 0 },
    { "Intercomm_create", K_COMM_NEW, 6, 5, 0 }, { "Intercomm_create_from_groups", K_COMM_NEW, 8, 7, 0 },
    { "Intercomm_merge", K_COMM_NEW, 3, 2, 0 },
    { "Cart_create", K_COMM_NEW, 6, 5, 0 }, { "Cart_sub", K_COMM_NEW, 3, 2, 0 },
    { "Graph_create", K_COMM_NEW, 6, 5, 0 }, { "Dist_graph_create", K_COMM_NEW, 9, 8, 0 },
    { "Dist_graph_create_adjacent", K_COMM_NEW, 10, 9, 0 },
    { "Wait", K_WAIT, 2, 0, SCOPE_MPI_PATH_WAIT },
    { "Test", K_TEST, 3, 0, 0 }, { "Waitall", K_WAITALL, 3, 0, 0 },
    { "Testall", K_TESTALL, 4, 0, 0 }, { "Waitany", K_WAITANY, 4, 0, 0 }, { "Testany", K_TESTANY, 5, 0, 0 },
    { "Waitsome", K_WAITSOME, 5, 0, 0 }, { "Testsome", K_WAITSOME, 5, 0, 0 },
    { "Request_free", K_REQUEST_FREE, 1, 0, 0 },
    { "Send_init", K_SEND_INIT, 7, 0, 0 }, { "Ssend_init", K_SEND_INIT, 7, 0, 0 },
    { "Bsend_init", K_SEND_INIT, 7, 0, 0 }, { "Rsend_init", K_SEND_INIT, 7, 0, 0 },
    { "Recv_init", K_RECV_INIT, 7, 0, 0 }, { "Start", K_START, 1, 0, 0 }, { "Startall", K_STARTALL, 2, 0, 0 },
};

_Static_assert(sizeof scope__mpi_ops / sizeof *scope__mpi_ops < SCOPE_MPI_OP_BIG,
               "the big-count bit is free");
const uint32_t scope__mpi_n_ops = sizeof scope__mpi_ops / sizeof *scope__mpi_ops;

int scope__mpi_is_fortran(const char *symbol)
{
    if (symbol[0] == 'p' || symbol[0] == 'P')
        symbol++;
    if (strncmp(symbol, "mpi_", 4) == 0 || strncmp(symbol, "mpix_", 5) == 0)
        return 1;
    if (strncmp(symbol, "MPI_", 4) != 0 && strncmp(symbol, "MPIX_", 5) != 0)
        return 0;
    for (const char *c = symbol + 4; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            return 0;
    return 1;
}

int scope__mpi_is_c_name(const char *symbol)
{
    if (symbol[0] == 'P')
        symbol++;
    if (strncmp(symbol, "MPI", 3) != 0)
        return 0;
    symbol += 3;
    if (symbol[0] == 'X')
        symbol++;
    return symbol[0] == '_' && symbol[1] >= 'A' && symbol[1] <= 'Z';
}

uint32_t scope__mpi_op_of(const char *symbol)
{
    if (strncmp(symbol, "PMPI", 4) == 0)
        symbol++;
    /* Open MPI 4.1 has MPI 4's persistent collectives as MPIX_Bcast_init
     * & co (mpiext_pcollreq_c.h): the same arguments, another prefix */
    int mpix = strncmp(symbol, "MPIX_", 5) == 0;
    if (!mpix && strncmp(symbol, "MPI_", 4) != 0)
        return 0;
    const char *s = symbol + 4 + mpix;
    size_t n = strlen(s);
    uint32_t big = 0;
    if (!mpix && n > 2 && strcmp(s + n - 2, "_c") == 0) {
        n -= 2;
        big = SCOPE_MPI_OP_BIG;
    }
    for (uint32_t i = 1; i < scope__mpi_n_ops; i++)
        if (strlen(scope__mpi_ops[i].name) == n && strncmp(s, scope__mpi_ops[i].name, n) == 0 &&
            (!mpix || scope__mpi_ops[i].kind == K_COLL_INIT))
            return i | big;
    return 0;
}
