/*
 * bench_interpose.c - what the interposition engine adds to a call: a tiny
 * function called 10,000,000 times, run bare, under libscope_preload.so
 * with that function patched, and (when uftrace is installed) under
 * `uftrace record -P`, all from one run of this benchmark. Each run is a
 * child process that times its own loop; the parent prints ns per call,
 * the ns each tool adds, and the ratios to the price floor (two reads of
 * the recorder's clock, measured here too) and to uftrace.
 *
 * Targets: added cost <= 2x two clock reads; >= 3x less than uftrace.
 *
 *   bench_interpose [calls]
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

#ifndef SCOPE_PRELOAD_PATH
#define SCOPE_PRELOAD_PATH "libscope_preload.so"
#endif

static volatile long sink;

/* The function every run calls; big enough to patch (>= 5 bytes). */
__attribute__((noinline, used)) long bench_target(long x)
{
    sink += x;
    return x + 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The child: the best of 3 rounds of `calls` calls, in ns per call. */
static int child(long calls)
{
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = now_s();
        long acc = 0;
        for (long i = 0; i < calls; i++)
            acc += bench_target(i);
        double dt = (now_s() - t0) / (double)calls * 1e9;
        sink += acc;
        if (dt < best)
            best = dt;
    }
    printf("%.3f\n", best);
    return 0;
}

static double two_reads_ns(long n)
{
    scope__clock_setup();
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = now_s();
        uint64_t acc = 0;
        for (long i = 0; i < n; i++) {
            acc += scope__ticks();
            acc ^= scope__ticks();
        }
        sink += (long)acc;
        double dt = (now_s() - t0) / (double)n * 1e9;
        if (dt < best)
            best = dt;
    }
    return best;
}

/* Runs argv with extra environment, returns the child's ns per call or
 * a negative value when it failed. */
static double run(char *const argv[], const char *const env[])
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

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--child") == 0)
        return child(atol(argv[2]));
    long calls = argc > 1 ? atol(argv[1]) : 10000000;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 1;
    exe[n] = 0;
    char count[32];
    snprintf(count, sizeof count, "%ld", calls);
    char tmp[] = "/tmp/scope-bench-XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    char conf[4200], out[4200];
    snprintf(conf, sizeof conf, "%s/bench.conf", tmp);
    snprintf(out, sizeof out, "%s/bench.h5", tmp);
    FILE *f = fopen(conf, "w");
    if (!f)
        return 1;
    fprintf(f, "bench_target\nmemory_budget = 1G\n");
    fclose(f);

    char *child_argv[] = { exe, "--child", count, NULL };
    const char *none[] = { NULL };
    const char *pre[] = { "LD_PRELOAD", SCOPE_PRELOAD_PATH, "SCOPE_CONFIG", conf,
                          "SCOPE_OUTPUT", out, NULL };
    double floor = two_reads_ns(calls / 4);
    double bare = run(child_argv, none);
    double scope = run(child_argv, pre);
    /* the profiled run must have recorded every call of every round */
    char check[8600];
    snprintf(check, sizeof check,
             "h5dump -H -d /rank0/regions/bench_target/start_times '%s' 2>/dev/null | "
             "grep -q '( %ld )'", out, 3 * calls);
    int recorded = system(check) == 0;
    char ufdir[4200];
    snprintf(ufdir, sizeof ufdir, "%s/uftrace.data", tmp);
    char *uf_argv[] = { "uftrace", "record", "-d", ufdir, "--no-libcall", "-P", "bench_target",
                        exe, "--child", count, NULL };
    double uf = access("/usr/bin/uftrace", X_OK) == 0 ? run(uf_argv, none) : -1;

    printf("calls per run:           %ld\n", calls);
    printf("two clock reads:         %.2f ns\n", floor);
    printf("bare call:               %.2f ns\n", bare);
    if (scope > 0)
        printf("scope (patched):         %.2f ns/call, +%.2f ns = %.2fx two clock reads%s\n",
               scope, scope - bare, (scope - bare) / floor,
               recorded ? "" : " (WARNING: the profile does not hold every call)");
    else
        printf("scope (patched):         failed (preload %s)\n", SCOPE_PRELOAD_PATH);
    if (uf > 0) {
        printf("uftrace record -P:       %.2f ns/call, +%.2f ns\n", uf, uf - bare);
        if (scope > 0)
            printf("uftrace / scope added:   %.2fx\n", (uf - bare) / (scope - bare));
    } else {
        printf("uftrace record -P:       not run (uftrace not installed or failed)\n");
    }
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        return 1;
    return 0;
}
