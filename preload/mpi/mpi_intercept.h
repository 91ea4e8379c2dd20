/*
 * mpi_intercept.h - what mpi_intercept.c tells the rest of the MPI
 * capture: the names of the lifecycle calls it defines itself (MPI_Init,
 * MPI_Init_thread, MPI_Finalize, MPI_Abort and their PMPI_ names), which
 * the capture hands the engine as its `wrapped` names (capture.h) so that
 * they are never patched as well.
 */
#ifndef SCOPE_MPI_INTERCEPT_H
#define SCOPE_MPI_INTERCEPT_H

/* NULL-terminated. */
extern const char *const scope__mpi_wrapped[];

#endif
