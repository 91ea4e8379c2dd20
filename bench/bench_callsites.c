/*
 * bench_callsites.c - what call-site capture adds to an instrumented call
 * (issue 7): a tiny function called CALLS times (2,000,000 by default)
 * from one line, run
 * bare and under libscope_preload.so with the function patched without
 * call sites, with `callsites=1` and with `callsites=4`, all in one run of
 * this benchmark. Each run is a child process that times its own loop
 * (best of 3 loops); the parent runs the four variants in ROUNDS
 * interleaved rounds and prints min / median / max over the rounds of what
 * each mode adds, per call and to the plain patch's overhead.
 *
 * Targets (issue 13): depth 1 adds at most 25%, depth 4 at most 50% to
 * the plain patch's per-call overhead.
 * Steady state only: every call after the first hits the call-site cache,
 * so depth 4 costs what depth 1 does once the path is known.
 *
 *   bench_callsites [calls]
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
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

#define ROUNDS 5

static const char usage[] =
    "usage: bench_callsites [CALLS]   (calls per run, default 2000000)\n";

int main(int argc, char **argv)
{
    long calls = 2000000;
    char exe[4096], count[32];
    int rc = bench_start(argc, argv, usage, &calls, exe, sizeof exe, count, sizeof count);
    if (rc >= 0)
        return rc;
    char tmp[] = "/tmp/scope-bench-XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    static const char *const entries[3] = { "bench_target", "bench_target callsites=1",
                                            "bench_target callsites=4" };
    static const char *const labels[3] = { "patched, no call sites", "call sites, depth 1",
                                           "call sites, depth 4" };
    char *child_argv[] = { exe, "--child", count, NULL };
    const char *none[] = { NULL };
    char conf[3][4200], out[3][4200];
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "c%d.conf", i);
        snprintf(out[i], sizeof out[i], "%s/p%d.h5", tmp, i);
        if (!bench_conf_file(tmp, name, entries[i], conf[i], sizeof conf[i]))
            return 1;
    }
    /* interleaved rounds; differences are taken within a round */
    double bare[ROUNDS], t[3][ROUNDS], add[3][ROUNDS], over[3][ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        bare[r] = bench_run(child_argv, none);
        if (bare[r] < 0)
            bare[r] = NAN; /* failed: left out of min / median / max */
        for (int i = 0; i < 3; i++) {
            const char *pre[] = { "LD_PRELOAD", SCOPE_PRELOAD_PATH, "SCOPE_CONFIG", conf[i],
                                  "SCOPE_OUTPUT", out[i], NULL };
            t[i][r] = bench_run(child_argv, pre);
            add[i][r] = t[i][r] > 0 ? t[i][r] - bare[r] : NAN;
        }
        for (int i = 0; i < 3; i++)
            over[i][r] = add[0][r] > 0 ? 100.0 * (add[i][r] - add[0][r]) / add[0][r] : NAN;
    }
    char cpu[256];
    printf("CPU:                       %s\n", bench_cpu_model(cpu, sizeof cpu));
    printf("calls per run:             %ld, %d interleaved rounds: min / median / max\n",
           calls, ROUNDS);
    bench_range x = bench_range_of(bare, ROUNDS);
    printf("bare call:                 %.2f / %.2f / %.2f ns\n", x.min, x.med, x.max);
    static const char *const targets[3] = { "", " (target <= +25%)", " (target <= +50%)" };
    for (int i = 0; i < 3; i++) {
        x = bench_range_of(add[i], ROUNDS);
        if (isnan(x.med)) {
            printf("%-26s failed\n", labels[i]);
            continue;
        }
        printf("%-26s %+.2f / %+.2f / %+.2f ns over bare\n", labels[i], x.min, x.med, x.max);
        if (i > 0 && !isnan((x = bench_range_of(over[i], ROUNDS)).med))
            printf("%-26s %+.1f / %+.1f / %+.1f%% over the plain patch's overhead%s\n", "",
                   x.min, x.med, x.max, targets[i]);
    }
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        return 1;
    return 0;
}
