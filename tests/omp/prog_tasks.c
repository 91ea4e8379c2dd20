/*
 * prog_tasks.c - one thread of a team of 2 creates N explicit tasks (N
 * from the command line, so that the compiler cannot unroll the loop into
 * N call sites) and waits for them with taskwait. Prints how many ran.
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8;
    atomic_int done = 0;
#pragma omp parallel num_threads(2) /* TEAM */
#pragma omp single /* SINGLE */
    {
        for (int i = 0; i < n; i++) {
#pragma omp task /* TASK */
            {
                usleep(200);
                atomic_fetch_add(&done, 1);
            }
        }
#pragma omp taskwait /* TASKWAIT */
    }
    printf("tasks done %d of %d\n", atomic_load(&done), n);
    return 0;
}
