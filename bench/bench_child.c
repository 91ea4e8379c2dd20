/*
 * bench_child.c - what the interposition benchmarks share: the tiny
 * function they time (bench_target, which their configs name, so it must
 * live in each benchmark executable: this file is linked into each), the
 * child that calls it, two clock reads measured the same way, and running
 * a child with extra environment variables.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "bench_args.h"
#include "bench_child.h"

volatile long bench_sink;

/* The function every run calls; big enough to patch (>= 5 bytes). */
__attribute__((noinline, used)) long bench_target(long x)
{
    bench_sink += x;
    return x + 1;
}

double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The child: 3 rounds of `calls` calls, timed in batches of BENCH_BATCH;
 * prints the fastest batch and the fastest whole round, in ns per call.
 * The fastest batch: on a machine shared with other jobs a round of
 * millions of calls is always interrupted somewhere, a batch of a few
 * tens of microseconds mostly not, so the minimum is what the call costs
 * when it has the core. But what a tool does now and then (a chunk
 * switch, ~3 ns per record amortised, lands in one batch of ~65; uftrace
 * hands its buffers to its writer) is left out of it: the whole round
 * counts that. */
int bench_child(long calls)
{
    double best = 1e30, whole = 1e30;
    for (int r = 0; r < 3; r++) {
        long acc = 0;
        double r0 = bench_now_s();
        for (long done = 0; done < calls; done += BENCH_BATCH) {
            long n = calls - done < BENCH_BATCH ? calls - done : BENCH_BATCH;
            double t0 = bench_now_s();
            for (long i = 0; i < n; i++)
                acc += bench_target(i);
            double dt = (bench_now_s() - t0) / (double)n * 1e9;
            if (n == BENCH_BATCH && dt < best)
                best = dt;
        }
        double dr = (bench_now_s() - r0) / (double)calls * 1e9;
        if (dr < whole)
            whole = dr;
        bench_sink += acc;
    }
    printf("%.3f %.3f\n", best, whole);
    return 0;
}

/* lfence; rdtsc inline whatever the build's inlining (bench_interpose is
 * built -fno-inline): the price floor, two ordered counter reads */
#if defined(__x86_64__)
static inline __attribute__((always_inline)) uint64_t ordered_read(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}
#endif

double bench_two_reads_ns(long n)
{
    scope__clock_setup();
    double best = 1e30;
    for (long done = 0; done < 5 * n; done += BENCH_BATCH) {
        uint64_t acc = 0;
        double t0 = bench_now_s();
#if defined(__x86_64__)
        if (scope__clock_tsc)
            for (long i = 0; i < BENCH_BATCH; i++) {
                acc += ordered_read();
                acc ^= ordered_read();
            }
        else
#endif
            for (long i = 0; i < BENCH_BATCH; i++) {
                acc += scope__ticks();
                acc ^= scope__ticks();
            }
        double dt = (bench_now_s() - t0) / (double)BENCH_BATCH * 1e9;
        bench_sink += (long)acc;
        if (dt < best)
            best = dt;
    }
    return best;
}

const char *bench_load(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        double a, b, c;
        if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
            snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
        fclose(f);
    }
    return buf;
}

/* Runs argv with extra environment, returns the child's ns per call or
 * a negative value when it failed. */
int bench_self(char *exe, size_t exe_len, char *count, size_t count_len, long calls)
{
    ssize_t n = readlink("/proc/self/exe", exe, exe_len - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    snprintf(count, count_len, "%ld", calls);
    return 0;
}

int bench_start(int argc, char **argv, const char *usage, long *calls, char *exe,
                size_t exe_len, char *count, size_t count_len)
{
    int child, rc = bench_calls_args(argc, argv, usage, calls, &child);
    if (rc >= 0)
        return rc;
    if (child)
        return bench_child(*calls);
    return bench_self(exe, exe_len, count, count_len, *calls) < 0 ? 1 : -1;
}

double bench_run(char *const argv[], const char *const env[])
{
    return bench_run2(argv, env, NULL);
}

double bench_run2(char *const argv[], const char *const env[], double *second)
{
    if (second)
        *second = -1;
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t p = fork();
    if (p == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        for (int i = 0; env[i]; i += 2)
            setenv(env[i], env[i + 1], 1);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    char buf[256] = "";
    size_t got = 0;
    ssize_t n;
    while ((n = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)n;
    close(fd[0]);
    int st;
    waitpid(p, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || got == 0)
        return -1;
    /* the child's number is its last line (uftrace may print before it) */
    buf[got] = 0;
    char *last = buf, *nl;
    while ((nl = strchr(last, '\n')) && nl[1])
        last = nl + 1;
    char *rest;
    double first = strtod(last, &rest);
    if (second && rest != last)
        *second = strtod(rest, NULL);
    return first;
}

const char *bench_conf_file(const char *dir, const char *name, const char *entry, char *buf,
                            size_t len)
{
    snprintf(buf, len, "%s/%s", dir, name);
    FILE *f = fopen(buf, "w");
    if (!f)
        return NULL;
    fprintf(f, "%s\nmemory_budget = 1G\n", entry);
    fclose(f);
    return buf;
}
