/*
 * mpi_rma.h - windows and what one-sided calls moved (mpi_rma.c), for
 * the argument capture (mpi_capture.c), which calls it and is not called
 * back.
 */
#ifndef SCOPE_MPI_RMA_H
#define SCOPE_MPI_RMA_H

#include <stdint.h>

#include "journal.h"
#include "mpi_abi.h"

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
