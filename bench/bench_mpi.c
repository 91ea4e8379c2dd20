/*
 * bench_mpi.c - the per-call cost of an intercepted MPI call: MPI_Comm_rank
 * in a loop, run as a singleton. Built once per MPI with its wrapper
 * compiler (bench_mpi_openmpi, bench_mpi_mpich); bench_mpi.py runs each
 * bare and under libscope_preload.so (built-in MPI_* default) in one run
 * and prints the added cost against two reads of the recorder's clock.
 * Target (issue 10): added cost <= 2x two clock reads under both MPIs.
 *
 * usage: bench_mpi_<mpi> [CALLS]   prints "two_reads_ns X" and
 *                                  "comm_rank_ns Y" (best of 5 rounds)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 2000000;
    MPI_Init(&argc, &argv);
    scope__clock_setup();
    volatile uint64_t sink = 0;
    double two = 1e30, call = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = now_s();
        uint64_t acc = 0;
        for (long i = 0; i < calls; i++) {
            acc += scope__ticks();
            acc ^= scope__ticks();
        }
        sink += acc;
        double dt = (now_s() - t0) / (double)calls * 1e9;
        two = dt < two ? dt : two;

        int rank = 0;
        t0 = now_s();
        for (long i = 0; i < calls; i++)
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        dt = (now_s() - t0) / (double)calls * 1e9;
        call = dt < call ? dt : call;
        sink += (uint64_t)rank;
    }
    printf("two_reads_ns %.2f\ncomm_rank_ns %.2f\n", two, call);
    MPI_Finalize();
    return (int)(sink & 0);
}
