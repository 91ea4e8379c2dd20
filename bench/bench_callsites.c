/*
 * bench_callsites.c - what call-site capture adds to an instrumented call
 * (issue 7): a tiny function called 10,000,000 times from one line, run
 * bare and under libscope_preload.so with the function patched without
 * call sites, with `callsites=1` and with `callsites=4`, all in one run of
 * this benchmark. Each run is a child process that times its own loop
 * (best of 3 rounds); the parent prints ns per call and what each mode
 * adds to the per-call overhead of the plain patch.
 *
 * Target: depth 1 adds at most 25% to the plain patch's per-call overhead.
 * Steady state only: every call after the first hits the call-site cache,
 * so depth 4 costs what depth 1 does once the path is known.
 *
 *   bench_callsites [calls]
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
    "usage: bench_callsites [CALLS]   (calls per run, default 10000000)\n";

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
    static const char *const entries[3] = { "bench_target", "bench_target callsites=1",
                                            "bench_target callsites=4" };
    static const char *const labels[3] = { "patched, no call sites", "call sites, depth 1",
                                           "call sites, depth 4" };
    char *child_argv[] = { exe, "--child", count, NULL };
    const char *none[] = { NULL };
    double bare = bench_run(child_argv, none), t[3];
    for (int i = 0; i < 3; i++) {
        char conf[4200], out[4200], name[32];
        snprintf(name, sizeof name, "c%d.conf", i);
        snprintf(out, sizeof out, "%s/p%d.h5", tmp, i);
        if (!bench_conf_file(tmp, name, entries[i], conf, sizeof conf))
            return 1;
        const char *pre[] = { "LD_PRELOAD", SCOPE_PRELOAD_PATH, "SCOPE_CONFIG", conf,
                              "SCOPE_OUTPUT", out, NULL };
        t[i] = bench_run(child_argv, pre);
    }
    printf("calls per run:             %ld\n", calls);
    printf("bare call:                 %.2f ns\n", bare);
    for (int i = 0; i < 3; i++) {
        if (t[i] < 0) {
            printf("%-26s failed\n", labels[i]);
            continue;
        }
        printf("%-26s %.2f ns/call, +%.2f ns over bare", labels[i], t[i], t[i] - bare);
        if (i > 0 && t[0] > bare)
            printf(", %+.1f%% over the plain patch's overhead",
                   100.0 * ((t[i] - bare) - (t[0] - bare)) / (t[0] - bare));
        printf("\n");
    }
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        return 1;
    return 0;
}
