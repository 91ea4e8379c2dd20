/*
 * storage_mpi.c - the application of the storage fault tests
 * (tests/storage): every rank makes N calls of MPI_Comm_rank, then
 * MPI_Comm_size and one MPI_Barrier, and prints one line.
 *
 *   storage_mpi N [pause FILE] [order DIR]
 *
 * pause FILE: after the first half of the calls rank 0 prints "paused" and
 *   every rank waits until FILE exists, so a test can change the storage
 *   under a running program at a known moment.
 * order DIR: rank r calls MPI_Finalize (where the profiler writes its rank
 *   file) only once DIR/go.<r> exists, so a test can fill the disk between
 *   two ranks' conversions.
 * Exits with 0: a rank that ends with another status makes mpirun stop the
 * other ranks, which would hide what the tests look at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static void wait_for(const char *path)
{
    while (access(path, F_OK) != 0)
        usleep(20000);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    const char *pause = NULL, *order = NULL;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "pause") == 0)
            pause = argv[i + 1];
        else if (strcmp(argv[i], "order") == 0)
            order = argv[i + 1];
    }
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    long sum = 0;
    for (long i = 0; i < n; i++) {
        if (pause && i == n / 2) {
            if (rank == 0) {
                printf("paused\n");
                fflush(stdout);
            }
            wait_for(pause);
        }
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        sum += rank;
    }
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d of %d: %ld calls, sum %ld\n", rank, size, n, sum);
    fflush(stdout);
    if (order) {
        char go[4096];
        snprintf(go, sizeof go, "%s/go.%d", order, rank);
        wait_for(go);
    }
    MPI_Finalize();
    return 0;
}
