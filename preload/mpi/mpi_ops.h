/*
 * mpi_ops.h - the MPI functions whose arguments are read (mpi_ops.c): the
 * operation number an instrumented symbol carries in its flags indexes
 * scope__mpi_ops. The large-count functions of MPI 4 (MPI_Send_c, ...)
 * take the same arguments with MPI_Count (64-bit) counts and count
 * arrays: they are the table's operations with SCOPE_MPI_OP_BIG set.
 */
#ifndef SCOPE_MPI_OPS_H
#define SCOPE_MPI_OPS_H

#include <stdint.h>

/* An op, as the engine stores it for a function (capture.h): the table's
 * row, the large-count bit, and the Fortran bit (a binding whose data
 * comes from the C call it makes: row 0). */
#define SCOPE_MPI_OP_ROW 0xffu
#define SCOPE_MPI_OP_BIG 0x100u
#define SCOPE_MPI_OP_FORTRAN 0x200u

/* The calls the capture takes a path of its own for (mpi_capture_hot.c) */
enum {
    SCOPE_MPI_PATH_GENERAL = 0,
    SCOPE_MPI_PATH_ISEND,   /* MPI_Isend, Issend, Ibsend, Irsend */
    SCOPE_MPI_PATH_IRECV,
    SCOPE_MPI_PATH_WAIT,
    SCOPE_MPI_PATH_ALLREDUCE,   /* MPI_Allreduce, Scan, Exscan */
};

struct scope__mpi_op {
    const char *name;   /* after "MPI_" */
    uint8_t kind;
    uint8_t nargs;      /* arguments copied at entry */
    uint8_t arg;        /* K_COLL_INIT: the blocking kind; K_COMM_NEW: the
                           argument that points to the new communicator */
    uint8_t path;       /* SCOPE_MPI_PATH_* */
};

extern const struct scope__mpi_op scope__mpi_ops[];
extern const uint32_t scope__mpi_n_ops;     /* entries, the unused 0th included */

/* 1 when `symbol` is an MPI Fortran binding (mpi_send_, pmpi_send__,
 * MPI_SEND, mpi_send_f08_), else 0. Pure. */
int scope__mpi_is_fortran(const char *symbol);

/* 1 when `symbol` has a C name of the MPI standard: MPI_, PMPI_, MPIX_ or
 * PMPIX_ and a capital (MPI_Send, PMPIX_Bcast_init; the prefixes are the
 * library's by the standard), else 0. Pure. */
int scope__mpi_is_c_name(const char *symbol);

/* The operation (1..255, | SCOPE_MPI_OP_BIG for a large-count _c name)
 * of an MPI function of the C bindings named `symbol` ("MPI_Send",
 * "PMPI_Send", "MPIX_Bcast_init"), or 0 when its arguments are not
 * captured (Fortran bindings, calls that move nothing). Pure. */
uint32_t scope__mpi_op_of(const char *symbol);

#endif
