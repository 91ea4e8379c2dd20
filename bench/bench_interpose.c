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

#include "bench_args.h"
#include "bench_child.h"
#include "clock.h"

#ifndef SCOPE_PRELOAD_PATH
#define SCOPE_PRELOAD_PATH "libscope_preload.so"
#endif

static const char usage[] =
    "usage: bench_interpose [CALLS]   (calls per run, default 10000000)\n";

int main(int argc, char **argv)
{
    long calls = 10000000;
    int child, rc = bench_calls_args(argc, argv, usage, &calls, &child);
    if (rc >= 0)
        return rc;
    if (child)
        return bench_child(calls);
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
    snprintf(out, sizeof out, "%s/bench.h5", tmp);
    if (!bench_conf_file(tmp, "bench.conf", "bench_target", conf, sizeof conf))
        return 1;

    char *child_argv[] = { exe, "--child", count, NULL };
    const char *none[] = { NULL };
    const char *pre[] = { "LD_PRELOAD", SCOPE_PRELOAD_PATH, "SCOPE_CONFIG", conf,
                          "SCOPE_OUTPUT", out, NULL };
    double floor = bench_two_reads_ns(calls / 4);
    double bare = bench_run(child_argv, none);
    double scope = bench_run(child_argv, pre);
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
    double uf = access("/usr/bin/uftrace", X_OK) == 0 ? bench_run(uf_argv, none) : -1;

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
