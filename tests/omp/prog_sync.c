/*
 * prog_sync.c - the constructs prog_loops.c, prog_nested.c and
 * prog_tasks.c leave out, each a known number of times on a team of 2:
 * sections, a loop with a reduction, an OpenMP lock, an ordered loop, a
 * taskgroup with tasks, and atomic updates (native atomic instructions:
 * no event). Prints what it computed, which must not change under the
 * profiler; check_omp.py derives every count.
 */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    long sec[2] = { 0, 0 }, sum = 0, locked = 0, ord = 0, grouped = 0, at = 0;
    omp_lock_t lock;
    omp_init_lock(&lock);
#pragma omp parallel num_threads(2) /* SYNC_REGION */
    {
        for (int r = 0; r < 10; r++) {
#pragma omp sections /* SECTIONS */
            {
#pragma omp section
                sec[0] += r;
#pragma omp section
                sec[1] += 2 * r;
            }
        }
#pragma omp for reduction(+ : sum) schedule(static) /* REDUCTION */
        for (int i = 0; i < 100; i++)
            sum += i;
        for (int k = 0; k < 20; k++) {
            omp_set_lock(&lock); /* LOCK */
            locked++;
            omp_unset_lock(&lock);
        }
#pragma omp for ordered schedule(static, 1) /* ORDERED_LOOP */
        for (int i = 0; i < 8; i++) {
#pragma omp ordered /* ORDERED */
            ord = ord * 2 + i;
        }
#pragma omp single /* SINGLE */
#pragma omp taskgroup /* TASKGROUP */
        for (int t = 0; t < 4; t++) {
#pragma omp task /* TASK */
            {
                usleep(100);
#pragma omp atomic /* ATOMIC */
                grouped++;
            }
        }
        for (int k = 0; k < 10; k++) {
#pragma omp atomic
            at += k;
        }
    }
    omp_destroy_lock(&lock);
    printf("sections %ld %ld sum %ld locked %ld ordered %ld grouped %ld atomic %ld\n",
           sec[0], sec[1], sum, locked, ord, grouped, at);
    return 0;
}
