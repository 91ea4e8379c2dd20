/*
 * prog_loops.c - 1,000 `parallel for` regions on 2 threads; in every
 * 100th (r % 100 == 99) thread 1 sleeps 1 ms in its part, started only
 * once thread 0 is inside its own (so that thread 0 waits at the implicit
 * barrier for the whole sleep, less what it still did after it started
 * its part); then one parallel region in which each of the 2 threads
 * enters a critical section 50 times. Prints what it computed, which
 * must not change under the profiler. check_omp.py derives every count.
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    long part[2] = { 0, 0 }, crit = 0;
    atomic_int started;
    for (int r = 0; r < 1000; r++) {
        atomic_store(&started, 0);
#pragma omp parallel for schedule(static) num_threads(2) /* LOOP_REGION */
        for (int i = 0; i < 2; i++) {
            if (i == 0) {
                atomic_store(&started, 1);
            } else if (r % 100 == 99) {
                while (!atomic_load(&started))
                    ;
                usleep(1000);
            }
            part[i] += i + r;
        }
    }
#pragma omp parallel num_threads(2) /* CRITICAL_REGION */
    for (int k = 0; k < 50; k++) {
#pragma omp critical /* CRITICAL */
        crit++;
    }
    printf("parts %ld %ld critical %ld threads %d\n", part[0], part[1], crit, omp_get_max_threads());
    return 0;
}
