/*
 * mpi_sites.c - MPI_Allreduce called from two known lines (MPI_SITE_1 and
 * MPI_SITE_2, found by the checker through the marker), a number of times
 * that depends on the rank: on rank r, site 1 runs 2 + r times and site 2
 * 3 + (size - 1 - r) times, so every rank makes the same number of
 * Allreduce calls in all and the collectives match.
 */
#include <mpi.h>
#include <stdio.h>

__attribute__((noinline)) static int sum_one(int v)
{
    int out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MPI_SITE_1 */
    return out;
}

__attribute__((noinline)) static int sum_two(int v)
{
    int out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MPI_SITE_2 */
    return out;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long total = 0;
    for (int i = 0; i < 2 + rank; i++)
        total += sum_one(1);
    for (int i = 0; i < 3 + (size - 1 - rank); i++)
        total += sum_two(1);
    if (rank == 0)
        printf("total %ld\n", total);
    MPI_Finalize();
    return 0;
}
