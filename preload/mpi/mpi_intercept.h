/*
 * mpi_intercept.h - what mpi_intercept.c tells the rest of the MPI
 * capture: the names of the lifecycle calls it defines itself (MPI_Init,
 * MPI_Init_thread, MPI_Finalize, MPI_Abort and their PMPI_ names), which
 * the capture hands the engine as its `wrapped` names (capture.h) so that
 * they are never patched as well.
 */
#ifndef SCOPE_MPI_INTERCEPT_H
#define SCOPE_MPI_INTERCEPT_H

/* NULL-terminated; filled by scope__mpi_intercept_names(). */
extern const char *scope__mpi_wrapped[];

/* Fills scope__mpi_wrapped from the vocabulary's rows: call before the
 * capture is registered (mpi_hook.c). */
void scope__mpi_intercept_names(void);

#endif
