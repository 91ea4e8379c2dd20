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

/* The child: the best of 3 rounds of `calls` calls, in ns per call. */
int bench_child(long calls)
{
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = bench_now_s();
        long acc = 0;
        for (long i = 0; i < calls; i++)
            acc += bench_target(i);
        double dt = (bench_now_s() - t0) / (double)calls * 1e9;
        bench_sink += acc;
        if (dt < best)
            best = dt;
    }
    printf("%.3f\n", best);
    return 0;
}

double bench_two_reads_ns(long n)
{
    scope__clock_setup();
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = bench_now_s();
        uint64_t acc = 0;
        for (long i = 0; i < n; i++) {
            acc += scope__ticks();
            acc ^= scope__ticks();
        }
        bench_sink += (long)acc;
        double dt = (bench_now_s() - t0) / (double)n * 1e9;
        if (dt < best)
            best = dt;
    }
    return best;
}

/* Runs argv with extra environment, returns the child's ns per call or
 * a negative value when it failed. */
double bench_run(char *const argv[], const char *const env[])
{
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
    return atof(last);
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
