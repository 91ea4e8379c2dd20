/*
 * mpi_abi.h - everything the preload must know about one MPI ABI, in one
 * table per ABI (Open MPI, the MPICH family; the MPI-5 standard ABI is one
 * more table). The preload never includes mpi.h for values: it calls MPI
 * only through PMPI_* symbols looked up at run time, with handles and
 * constants taken from the table chosen for this process.
 *
 * Handles are carried as scope__mpi_handle (uint64_t). On x86-64 and
 * aarch64 (little-endian, handles passed in integer registers) a 4-byte
 * MPICH handle and an 8-byte Open MPI pointer both fit: a handle passed by
 * value is truncated by the callee's own type; a handle returned through a
 * pointer (MPI_Comm *newcomm) must be read with handle_size bytes into a
 * zeroed scope__mpi_handle (scope__mpi_handle_out does that).
 */
#ifndef SCOPE_MPI_ABI_H
#define SCOPE_MPI_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t scope__mpi_handle;

typedef enum scope__mpi_abi_kind {
    SCOPE_MPI_ABI_NONE = 0,   /* no MPI library in the process */
    SCOPE_MPI_ABI_OPENMPI,    /* libmpi.so.40 */
    SCOPE_MPI_ABI_MPICH,      /* libmpich.so.12, Intel MPI's libmpi.so.12, Cray, MVAPICH */
} scope__mpi_abi_kind;

typedef struct scope__mpi_abi {
    scope__mpi_abi_kind kind;
    const char *name;          /* "Open MPI", "MPICH" : stored in /metadata */
    size_t handle_size;        /* 8 (Open MPI: pointers) or 4 (MPICH: int) */
    scope__mpi_handle comm_world;
    scope__mpi_handle comm_null;
    scope__mpi_handle info_null;
    scope__mpi_handle dt_byte;
    scope__mpi_handle dt_double;
    scope__mpi_handle dt_int64;    /* MPI_INT64_T */
    int comm_type_shared;          /* MPI_COMM_TYPE_SHARED: 0 Open MPI, 1 MPICH */
    int undefined;                 /* MPI_UNDEFINED */
    void *status_ignore;           /* MPI_STATUS_IGNORE: NULL Open MPI, (void*)1 MPICH */
    size_t status_size;            /* sizeof(MPI_Status) */
} scope__mpi_abi;

/* The ABI of the MPI library loaded in this process, decided once (at the
 * first intercepted MPI call, or when libmpi is already mapped). Returns
 * NULL when the process has no MPI library or speaks an unknown ABI. */
const scope__mpi_abi *scope__mpi_abi_get(void);

/* Reads a handle an MPI call wrote through a pointer: `out` must have been
 * zeroed before the call; for 4-byte handles only the low half was written. */
static inline scope__mpi_handle scope__mpi_handle_out(const scope__mpi_abi *abi, scope__mpi_handle out)
{
    return abi->handle_size == 4 ? (out & 0xffffffffu) : out;
}

#endif
