/*
 * prog_nested.c - nested parallelism (OMP_MAX_ACTIVE_LEVELS=2): an outer
 * region of 2 threads, each of which starts an inner region of 2 threads
 * that meet at an explicit barrier. Prints the (outer, inner) thread
 * numbers it saw, sorted, which must not change under the profiler.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int seen[2][2] = { { 0 } }, levels[2][2] = { { 0 } };
#pragma omp parallel num_threads(2) /* OUTER */
    {
        int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2) /* INNER */
        {
            int inner = omp_get_thread_num();
            seen[outer][inner]++;
            levels[outer][inner] = omp_get_active_level();
#pragma omp barrier /* BARRIER */
        }
    }
    for (int o = 0; o < 2; o++)
        for (int i = 0; i < 2; i++)
            printf("outer %d inner %d seen %d level %d\n", o, i, seen[o][i], levels[o][i]);
    return 0;
}
