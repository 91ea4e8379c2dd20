/*
 * mpi_kinds.h - how an MPI function's arguments describe what it moves:
 * the kinds of the argument capture's table (mpi_capture.c), which the
 * one-sided part (mpi_rma.c) shares. Vocabulary only.
 */
#ifndef SCOPE_MPI_KINDS_H
#define SCOPE_MPI_KINDS_H

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

#endif
