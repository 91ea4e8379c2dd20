/*
 * bench_omp.c - the synchronisation overheads EPCC's OpenMP
 * micro-benchmarks define (syncbench: PARALLEL, FOR, BARRIER, REDUCTION),
 * measured the way they measure them, in a program of our own: bench_omp.py
 * runs it bare and under the profiler and compares.
 *
 * The method (J. M. Bull, "Measuring Synchronisation and Scheduling
 * Overheads in OpenMP", EWOMP 1999, and the suite's later versions): a
 * reference time is the time of `innerreps` calls of a short delay loop
 * on one thread; a test runs the same delay inside the construct, once
 * per thread and rep; the construct's overhead is the test's time per rep
 * less the reference's. Each is measured `outerreps` times; the mean,
 * the standard deviation and the minimum are printed, in microseconds:
 *
 *     <test> <mean> <sd> <min> <innerreps> <reps run in all>
 *
 * usage: bench_omp [TEST...]   (reference parallel for barrier reduction;
 * default all). OMP_NUM_THREADS sets the team. The first line says the
 * team, the delay loop's length and what one read of the CPU's counter
 * costs here (the recorder's price floor: one read per event), in ns.
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUTERREPS 20
#define DELAY_US 0.1          /* EPCC's default delay */
#define TARGET_US 1000.0      /* each measurement lasts about this long */
#define WARM_US 100000.0      /* runs of the test discarded before the measurements */

static int delay_len;

static void delay(int n)
{
    volatile double a = 0;
    for (int i = 0; i < n; i++)
        a += i;
}

/* The delay loop's length that takes DELAY_US. */
static void calibrate(void)
{
    int n = 1;
    for (;;) {
        double t0 = omp_get_wtime();
        for (int k = 0; k < 1000; k++)
            delay(n);
        double per = (omp_get_wtime() - t0) * 1e6 / 1000;
        if (per >= DELAY_US || n > (1 << 24)) {
            delay_len = n;
            return;
        }
        n *= 2;
    }
}

/* What one read of the counter the recorder reads costs, in ns (x86-64:
 * lfence + rdtsc, arch/x86_64/arch_clock.h; elsewhere 0: not measured). */
static double counter_ns(void)
{
#if defined(__x86_64__)
    uint64_t sum = 0;
    double t0 = omp_get_wtime();
    for (int i = 0; i < 1000000; i++) {
        uint32_t lo, hi;
        __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi));
        sum += lo;
    }
    if (sum == 1)
        puts("");  /* keeps the reads */
    return (omp_get_wtime() - t0) * 1e3;
#else
    return 0;
#endif
}

typedef void (*test_fn)(int innerreps);

static void t_reference(int reps)
{
    for (int j = 0; j < reps; j++)
        delay(delay_len);
}

static void t_parallel(int reps)
{
    for (int j = 0; j < reps; j++) {
#pragma omp parallel
        delay(delay_len);
    }
}

static void t_for(int reps)
{
#pragma omp parallel
    for (int j = 0; j < reps; j++) {
        int n = omp_get_num_threads();
#pragma omp for schedule(static)
        for (int i = 0; i < n; i++)
            delay(delay_len);
    }
}

static void t_barrier(int reps)
{
#pragma omp parallel
    for (int j = 0; j < reps; j++) {
        delay(delay_len);
#pragma omp barrier
    }
}

static double reduced;

static void t_reduction(int reps)
{
    for (int j = 0; j < reps; j++) {
        double a = 0;
#pragma omp parallel reduction(+ : a)
        {
            delay(delay_len);
            a += 1;
        }
        reduced += a;
    }
}

/* The time per rep of `fn` in microseconds: mean, sd, min over the outer
 * reps, and the inner reps chosen for about TARGET_US per measurement. */
static void measure(test_fn fn, double *mean, double *sd, double *min, int *innerreps,
                    long long *all)
{
    int reps = 1;
    *all = 0;
    for (;;) {
        double t0 = omp_get_wtime();
        fn(reps);
        *all += reps;
        double us = (omp_get_wtime() - t0) * 1e6;
        if (us >= TARGET_US || reps >= (1 << 24))
            break;
        reps *= 2;
    }
    /* EPCC discards its first outer rep; this discards WARM_US of them, so
     * that one-time costs stay out of the overhead: a profiler's first
     * pass through its per-thread buffers (bench/README.md: a fresh page
     * costs 7-15 us on first touch on the AMD EPYC VM, and a thread's
     * first 1 MiB of records touches 256 of them) */
    double warm0 = omp_get_wtime();
    while ((omp_get_wtime() - warm0) * 1e6 < WARM_US) {
        fn(reps);
        *all += reps;
    }
    double sum = 0, sum2 = 0, lo = INFINITY;
    for (int k = 0; k < OUTERREPS; k++) {
        double t0 = omp_get_wtime();
        fn(reps);
        *all += reps;
        double per = (omp_get_wtime() - t0) * 1e6 / reps;
        sum += per;
        sum2 += per * per;
        if (per < lo)
            lo = per;
    }
    *mean = sum / OUTERREPS;
    double var = sum2 / OUTERREPS - *mean * *mean;
    *sd = var > 0 ? sqrt(var) : 0;
    *min = lo;
    *innerreps = reps;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        test_fn fn;
    } tests[] = {
        { "reference", t_reference }, { "parallel", t_parallel }, { "for", t_for },
        { "barrier", t_barrier }, { "reduction", t_reduction },
    };
    calibrate();
    /* start the team before the first measurement */
#pragma omp parallel
    delay(delay_len);
    printf("threads %d delay_len %d counter_ns %.1f\n", omp_get_max_threads(), delay_len,
           counter_ns());
    for (size_t t = 0; t < sizeof tests / sizeof *tests; t++) {
        int want = argc < 2;
        for (int a = 1; a < argc; a++)
            want |= strcmp(argv[a], tests[t].name) == 0;
        if (!want)
            continue;
        double mean, sd, min;
        int reps;
        long long all;
        measure(tests[t].fn, &mean, &sd, &min, &reps, &all);
        printf("%s %.4f %.4f %.4f %d %lld\n", tests[t].name, mean, sd, min, reps, all);
    }
    return reduced < 0;
}
