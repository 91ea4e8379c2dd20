/*
 * pmpi_layer.c - a minimal PMPI tool layer, as a shared library the test
 * program links: its MPI_Init/MPI_Finalize call PMPI_Init/PMPI_Finalize.
 * Under the preload the path is preload MPI_Init -> this MPI_Init ->
 * preload PMPI_Init -> libmpi, and the preload must record one MPI_Init,
 * not two. The layer prints "layer: MPI_Init" and "layer: MPI_Finalize" so
 * the test sees that forwarding went through it.
 */
#include <stdio.h>

#include <mpi.h>

int MPI_Init(int *argc, char ***argv)
{
    printf("layer: MPI_Init\n");
    fflush(stdout);
    return PMPI_Init(argc, argv);
}

int MPI_Finalize(void)
{
    printf("layer: MPI_Finalize\n");
    fflush(stdout);
    return PMPI_Finalize();
}
