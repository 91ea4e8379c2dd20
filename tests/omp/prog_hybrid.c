/*
 * prog_hybrid.c - MPI + OpenMP: 2 ranks x 2 threads, R = 20 steps. Each
 * step: serial work on the main thread (rank 1 sleeps 2 ms more: MPI
 * load imbalance), then a parallel region in which thread 1 sleeps 1 ms
 * (OpenMP imbalance) and MPI is called from inside the region:
 *   funneled  (MPI_THREAD_FUNNELED): thread 0 alone, one MPI_Allreduce;
 *   multiple  (MPI_THREAD_MULTIPLE): each thread t one MPI_Sendrecv with
 *             the other rank's thread t, tag t, on its own duplicate of
 *             MPI_COMM_WORLD;
 * then an MPI_Barrier. Prints what it computed, which must not change
 * under the profiler. check_hybrid.py derives every count.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define STEPS 20

/* One step (a function, so that a config can time it: check_hybrid.py's
 * top-level region). */
__attribute__((noinline)) void hybrid_step(int s, int rank, int multiple, MPI_Comm *comm,
                                           long *total, long *got)
{
    usleep(rank == 1 ? 3000 : 1000);    /* serial work */
#pragma omp parallel num_threads(2) /* PARALLEL */
    {
        int t = omp_get_thread_num();
        if (t == 1)
            usleep(1000);
        if (multiple) {
            long mine = 100 * rank + t + s, theirs = -1;
            MPI_Sendrecv(&mine, 1, MPI_LONG, 1 - rank, t, &theirs, 1, MPI_LONG, 1 - rank, t,
                         comm[t], MPI_STATUS_IGNORE);
            got[t] += theirs;
        } else if (t == 0) {
            long mine = rank + s, sum = 0;
            MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            *total += sum;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int multiple = argc > 1 && strcmp(argv[1], "multiple") == 0, provided, rank, size;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED,
                    &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm[2];
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[1]);
    long total = 0, got[2] = { 0, 0 };
    for (int s = 0; s < STEPS; s++)
        hybrid_step(s, rank, multiple, comm, &total, got);
    printf("rank %d of %d provided %d total %ld got %ld %ld\n", rank, size,
           provided >= (multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED), total, got[0],
           got[1]);
    MPI_Comm_free(&comm[0]);
    MPI_Comm_free(&comm[1]);
    MPI_Finalize();
    return 0;
}
