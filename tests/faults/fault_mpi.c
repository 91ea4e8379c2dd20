/*
 * fault_mpi.c - an MPI program where one rank goes wrong after every rank
 * made N calls of work() and one MPI_Barrier:
 *   abort2      rank 2 calls MPI_Abort(comm, 5)
 *   nofinalize  rank 1 returns from main without MPI_Finalize
 *   clean       everyone finalizes (the control)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void work(int i)
{
    for (int k = 0; k < 50; k++)
        sink += i * k;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "clean";
    int n = argc > 2 ? atoi(argv[2]) : 1000;
    for (int i = 0; i < n; i++)
        work(i);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d recorded %d\n", rank, n);
    fflush(stdout);
    if (strcmp(mode, "abort2") == 0) {
        if (rank == 2)
            MPI_Abort(MPI_COMM_WORLD, 5);
        sleep(30); /* the others wait to be killed by the launcher */
    }
    if (strcmp(mode, "nofinalize") == 0 && rank == 1)
        return 0;
    MPI_Finalize();
    return 0;
}
