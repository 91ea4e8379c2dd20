/*
 * bench_capture.c - what reading an MPI call's arguments costs (issue 28):
 * a singleton loops over MPI_Allreduce of one double, and over a message
 * to itself (MPI_Irecv + MPI_Isend + two MPI_Wait). bench_capture.py runs
 * it bare, under the preload with SCOPE_MPI_DATA=0 (timed, arguments not
 * read) and under the preload (timed and read), interleaved, and prints
 * what the capture adds per call. A third loop puts one int into the
 * rank's own window in a passive epoch, each MPI_Put followed by an
 * MPI_Win_flush (whose arguments are not read): a one-sided call's
 * capture (the window table's lookup, the target's world rank). Built once per MPI with its wrapper
 * compiler (bench_capture_openmpi, bench_capture_mpich).
 *
 * usage: bench_capture_<mpi> [CALLS [LOOP]]   prints "allreduce_ns X",
 *                                      "isend_pair_ns Y" and "put_flush_ns
 *                                      Z" (best of 5 rounds); LOOP
 *                                      (allreduce, pair or put) runs that
 *                                      loop alone, for counting one loop's
 *                                      instructions with callgrind
 *                                      (bench/README.md)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 500000;
    const char *only = argc > 2 ? argv[2] : NULL;
    long ar_calls = only && strcmp(only, "allreduce") ? 0 : calls;
    long pair_calls = only && strcmp(only, "pair") ? 0 : calls;
    long put_calls = only && strcmp(only, "put") ? 0 : calls;
    MPI_Init(&argc, &argv);
    double x = 1, y = 0, best_ar = 1e30, best_pair = 1e30;
    int s = 7, r = 0;
    for (int round = 0; round < 5; round++) {
        double t0 = now_ns();
        for (long i = 0; i < ar_calls; i++)
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double t1 = now_ns();
        for (long i = 0; i < pair_calls; i++) {
            MPI_Request rq, sq;
            MPI_Irecv(&r, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &rq);
            MPI_Isend(&s, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &sq);
            MPI_Wait(&sq, MPI_STATUS_IGNORE);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
        double t2 = now_ns();
        if ((t1 - t0) / calls < best_ar)
            best_ar = (t1 - t0) / calls;
        if ((t2 - t1) / calls < best_pair)
            best_pair = (t2 - t1) / calls;
    }
    int *wb = NULL;
    MPI_Win win;
    double best_put = 1e30;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wb, &win);
    MPI_Win_lock_all(0, win);
    for (int round = 0; round < 5; round++) {
        double t0 = now_ns();
        for (long i = 0; i < put_calls; i++) {
            MPI_Put(&s, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
            MPI_Win_flush(0, win);
        }
        double t1 = now_ns();
        if ((t1 - t0) / calls < best_put)
            best_put = (t1 - t0) / calls;
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    printf("allreduce_ns %.2f\nisend_pair_ns %.2f\nput_flush_ns %.2f\n", best_ar, best_pair,
           best_put);
    MPI_Finalize();
    return (ar_calls && y == 0) || (pair_calls && r != 7);
}
