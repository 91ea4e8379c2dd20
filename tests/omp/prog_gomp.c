/*
 * prog_gomp.c - a program GCC builds against its own OpenMP runtime
 * (libgomp): 10 `parallel for` regions (static schedule, which GCC
 * computes inline), then one region with a dynamic loop, an explicit
 * barrier and a critical section entered once per thread, then one with
 * 20 `single` constructs in a row (GCC ends each with a barrier, and LLVM
 * reports no end of a GCC single: scope ends it there). Prints what it
 * computed, which must not change when `scope run --openmp` runs it on
 * LLVM's libomp. check_gomp.py derives the counts.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long s = 0, d = 0, c = 0, one = 0;
    for (int r = 0; r < 10; r++) {
#pragma omp parallel for schedule(static) reduction(+ : s) num_threads(2) /* STATIC */
        for (int i = 0; i < 100; i++)
            s += i + r;
    }
#pragma omp parallel num_threads(2) /* REGION */
    {
#pragma omp for schedule(dynamic, 10) reduction(+ : d) /* DYNAMIC */
        for (int i = 0; i < 100; i++)
            d += i;
#pragma omp barrier
#pragma omp critical /* CRITICAL */
        c++;
    }
#pragma omp parallel num_threads(2) /* SINGLES */
    for (int k = 0; k < 20; k++) {
#pragma omp single
        one++;
    }
    printf("static %ld dynamic %ld critical %ld single %ld\n", s, d, c, one);
    return 0;
}
