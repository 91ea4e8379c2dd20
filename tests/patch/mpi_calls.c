/*
 * mpi_calls.c - an MPI program that makes a known number of each MPI call
 * on every rank (the counts are in check_mpi.py): MPI_* in the config must
 * time each of them exactly once per call.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    double x = rank + 1, sum = 0;
    for (int i = 0; i < 5; i++)
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int v = rank == 0 ? 42 : 0;
    for (int i = 0; i < 4; i++)
        MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, in = -1;
    for (int i = 0; i < 2; i++) {
        if (rank % 2 == 0) {
            MPI_Send(&rank, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&rank, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
        }
    }
    printf("rank %d sum %.0f bcast %d from %d\n", rank, sum, v, in);
    MPI_Finalize();
    return 0;
}
