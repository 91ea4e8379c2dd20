/*
 * prog_threads.c - 10 parallel regions of N threads (argv[1]) on the
 * initial thread, then one more on a thread of the program's own
 * (pthread_create), which becomes a second root with a team of its own;
 * each thread adds its number + 1 to a reduction. LLVM's runtime starts
 * N - 1 workers for each root, 2 N threads in all, and ends the second
 * root when it exits; the others end at the process's exit, after
 * recording stopped. Prints N and the sums, 10 x N (N + 1) / 2 and
 * N (N + 1) / 2, which must not change under the profiler. check_omp.py
 * ("threads2", "threads3") derives every count.
 */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int n;
static long sum2;

static void *second_root(void *arg)
{
    (void)arg;
#pragma omp parallel num_threads(n) reduction(+ : sum2) /* ROOT2_REGION */
    sum2 += omp_get_thread_num() + 1;
    return NULL;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atoi(argv[1]) : 2;
    long sum = 0;
    for (int r = 0; r < 10; r++) {
#pragma omp parallel num_threads(n) reduction(+ : sum) /* THREADS_REGION */
        sum += omp_get_thread_num() + 1;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, second_root, NULL) != 0 || pthread_join(t, NULL) != 0) {
        fprintf(stderr, "cannot run the second root\n");
        return 1;
    }
    printf("threads %d sum %ld %ld\n", n, sum, sum2);
    return 0;
}
