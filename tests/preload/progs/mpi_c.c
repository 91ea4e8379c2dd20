/*
 * mpi_c.c - the plainest MPI program: MPI_Init, one barrier, MPI_Finalize.
 * Prints "rank <r> size <s> pid <p> main_ns <t>" (t = CLOCK_MONOTONIC at the
 * start of main) so the test can match each rank file with its process and
 * check that the profile's start time precedes main. Exits with 0.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long main_ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d size %d pid %ld main_ns %lld\n", rank, size, (long)getpid(), main_ns);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
