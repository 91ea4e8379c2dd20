/*
 * exit_prog.c - the MPI program bench_exit.py times (issue 43, target 2):
 * a synthetic code at a real code's rate of MPI calls, about 100,000 per
 * rank per second, a mix of point-to-point, one-sided and collective
 * calls between stretches of computation, so that what profiling costs
 * at MPI_Finalize and at exit can be measured against the same program
 * run bare.
 *
 *   exit_prog STEPS WORK
 *
 * Each step computes WORK iterations of a dependent chain (the same
 * count bare and profiled: bench_exit.py picks it once so that a bare
 * step lasts about 100 us) and then makes 11 MPI calls on average:
 *   MPI_Irecv, MPI_Isend, MPI_Waitall   a ring, left to right
 *   MPI_Sendrecv                        the ring the other way
 *   MPI_Iprobe                          polling, as codes with task
 *                                       queues do (nothing pending)
 *   MPI_Win_lock, MPI_Put, MPI_Get,     one-sided, passive target, on
 *   MPI_Win_unlock                      the right neighbour's window
 *   MPI_Allreduce                       one double
 *   MPI_Bcast every 4th step, MPI_Barrier every 16th step
 * Rank 0 prints "calls N" (its own count of MPI calls, MPI_Init and
 * MPI_Finalize included). With BENCH_TIMES_FILE set, every rank appends
 * one line to that file after MPI_Finalize:
 *
 *   RANK T_INIT_DONE_NS T_FINALIZE_NS T_FINALIZED_NS USER_US SYS_US
 *
 * (CLOCK_REALTIME when MPI_Init returned, when MPI_Finalize was called
 * and when it returned; this process's CPU time and that of the children
 * it waited for, the preload's writer among them). One write with
 * O_APPEND, so the ranks' lines do not mix.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_rank_file.h"

/* A dependent chain the compiler cannot shorten: about 1 ns an iteration. */
static double compute(long work, double x)
{
    for (long i = 0; i < work; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: exit_prog STEPS WORK\n");
        return 2;
    }
    long steps = atol(argv[1]), work = atol(argv[2]);
    MPI_Init(&argc, &argv);
    long long t_init = bench_now_ns();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long calls = 3; /* MPI_Init, and the two above */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double *base;
    MPI_Win win;
    MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    calls++;
    memset(base, 0, 64 * sizeof(double));
    double sbuf[8] = { 0 }, rbuf[8], x = 1.0, get[4];
    for (long s = 0; s < steps; s++) {
        x = compute(work, x);
        sbuf[0] = x;
        MPI_Request rq[2];
        MPI_Irecv(rbuf, 8, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(sbuf, 8, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        MPI_Sendrecv(sbuf, 4, MPI_DOUBLE, left, 2, rbuf, 4, MPI_DOUBLE, right, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
        MPI_Put(sbuf, 4, MPI_DOUBLE, right, (MPI_Aint)(rank % 8) * 4, 4, MPI_DOUBLE, win);
        MPI_Get(get, 4, MPI_DOUBLE, right, 32, 4, MPI_DOUBLE, win);
        MPI_Win_unlock(right, win);
        double sum;
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        calls += 10;
        x = sum / size + rbuf[0] * 1e-12 + get[0] * 1e-12;
        if (s % 4 == 0) {
            MPI_Bcast(sbuf, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            calls++;
        }
        if (s % 16 == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            calls++;
        }
    }
    MPI_Win_free(&win);
    calls += 2; /* MPI_Win_free, MPI_Finalize */
    if (rank == 0)
        printf("calls %ld result %g\n", calls, x);
    fflush(stdout);
    long long t_fin = bench_now_ns();
    MPI_Finalize();
    long long t_done = bench_now_ns();
    const char *out = getenv("BENCH_TIMES_FILE");
    if (!out || !*out)
        return 0;
    long long user, sys;
    bench_cpu_us(&user, &sys);
    char line[200];
    snprintf(line, sizeof line, "%d %lld %lld %lld %lld %lld\n", rank, t_init, t_fin, t_done,
             user, sys);
    return bench_append_line(out, line);
}
