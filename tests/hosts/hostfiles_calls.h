/*
 * hostfiles_calls.h - the MPI calls whose per-rank counts the host-file
 * tests assert (tests/hosts/hostfiles_prog.c) and the finalize benchmark
 * times (bench/finalize_prog.c): one definition, so the benchmark measures
 * exactly the run the tests check.
 */
#ifndef SCOPE_HOSTFILES_CALLS_H
#define SCOPE_HOSTFILES_CALLS_H

#include <mpi.h>

/* MPI_Init, then rank r calls MPI_Comm_rank once, MPI_Comm_size
 * 2 + r % 13 times and MPI_Barrier once. Returns r. */
static inline int hostfiles_calls(int *argc, char ***argv)
{
    int r, n;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int i = 0; i < r % 13 + 1; i++)
        MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Barrier(MPI_COMM_WORLD);
    return r;
}

#endif
