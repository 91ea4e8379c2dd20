/*
 * prog_cxx.cpp - OpenMP in C++ (clang++, LLVM's libomp): 10 `parallel
 * for` regions of 100 iterations with a reduction, and a parallel region
 * in which each of 2 threads enters a critical section 5 times. Prints what
 * it computed, which must not change under the profiler. check_lang.py
 * derives every count.
 */
#include <omp.h>

#include <cstdio>
#include <vector>

int main()
{
    std::vector<long> v(100, 0);
    long total = 0, hits = 0;
    for (int r = 0; r < 10; r++) {
#pragma omp parallel for schedule(static) num_threads(2) reduction(+ : total) /* LOOP_REGION */
        for (int i = 0; i < 100; i++) {
            v[i] += i;
            total += i;
        }
    }
#pragma omp parallel num_threads(2) /* CRITICAL_REGION */
    for (int k = 0; k < 5; k++) {
#pragma omp critical /* CRITICAL */
        hits++;
    }
    std::printf("total %ld hits %ld v99 %ld\n", total, hits, v[99]);
    return 0;
}
