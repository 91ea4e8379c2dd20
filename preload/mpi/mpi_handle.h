/*
 * mpi_handle.h - how the preload carries an MPI handle of any ABI: a
 * 64-bit integer (the reasons are in mpi_abi.h). Apart from the ABI's
 * tables so that the PMPI table (pmpi.h), which the ABI's detection uses,
 * can name the type without including them.
 */
#ifndef SCOPE_MPI_HANDLE_H
#define SCOPE_MPI_HANDLE_H

#include <stdint.h>

typedef uint64_t scope__mpi_handle;

#endif /* SCOPE_MPI_HANDLE_H */
