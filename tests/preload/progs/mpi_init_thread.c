/*
 * mpi_init_thread.c - like mpi_c.c but starts MPI with MPI_Init_thread
 * (MPI_THREAD_MULTIPLE requested), the entry point mpi4py and threaded codes
 * use. Same output line, plus "provided <level>". Exits with 0.
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
    int provided = -1;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        return 1;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d size %d pid %ld main_ns %lld provided %d\n", rank, size, (long)getpid(),
           main_ns, provided);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
