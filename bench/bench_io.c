/*
 * bench_io.c - what recording an I/O call costs (issue 46, "Cost"): a
 * 1-byte pwrite to a file on tmpfs (/dev/shm), and a 1-byte fwrite that
 * stays in the stream's buffer (1 MiB), CALLS times each (1,000,000 by
 * default), run bare, under libscope_preload.so with the program named
 * (`include = bench_io*`: its I/O recorded from the start; `io_exclude =
 * none`, as /dev/shm is under /dev, a folder left out by default) and with
 * `io = off` (the preload loaded, nothing of I/O timed), in ROUNDS
 * interleaved rounds. Each run is a child process that times its own
 * loop (best of 3); the parent prints min / median / max over the rounds
 * of what each mode adds per call. Target: at most +40 ns per recorded
 * call over bare. The first recorded run of each call is read back: it
 * must hold every call (3 x CALLS), or the figure timed a skipped call.
 *
 *   bench_io [CALLS]
 *   bench_io --child-CALL CALLS DIR   one run (CALL: pwrite, write, fwrite,
 *                                     fputc, fprintf), bench_io_callgrind.py's
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_child.h"
#include "scope_reader.h"

#ifndef SCOPE_PRELOAD_PATH
#define SCOPE_PRELOAD_PATH "libscope_preload.so"
#endif

#define ROUNDS 5

static const char usage[] = "usage: bench_io [CALLS]   (calls per run, default 1000000)\n";

/* The child: best of 3 loops of `calls` 1-byte calls of `what` on a file
 * of dir, in ns per call on stdout. The parent times pwrite and fwrite;
 * bench_io_callgrind.py counts the instructions of each (fputc, fprintf
 * and write too). A stream's bytes stay in its buffer (1 MiB, flushed
 * after each loop). */
static int child(const char *what, long calls, const char *dir)
{
    static const char *const calls_known[] = { "pwrite", "write", "fwrite", "fputc", "fprintf" };
    int k = 0;
    while (k < 5 && strcmp(what, calls_known[k]) != 0)
        k++;
    if (k == 5)
        return 2;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.%d", dir, what, (int)getpid());
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0)
        return 1;
    FILE *f = k >= 2 ? fdopen(fd, "w") : NULL;
    static char buf[1 << 20];
    if (f && setvbuf(f, buf, _IOFBF, sizeof buf) != 0)
        return 1;
    double best = INFINITY;
    for (int r = 0; r < 3; r++) {
        double t0 = bench_now_s();
        long i = 0;
        switch (k) {
        case 0:
            for (; i < calls; i++)
                if (pwrite(fd, "x", 1, i & 4095) != 1)
                    return 1;
            break;
        case 1:
            for (; i < calls; i++)
                if (write(fd, "x", 1) != 1)
                    return 1;
            break;
        case 2:
            for (; i < calls; i++)
                if (fwrite("x", 1, 1, f) != 1)
                    return 1;
            break;
        case 3:
            for (; i < calls; i++)
                if (fputc('x', f) == EOF)
                    return 1;
            break;
        default:
            /* a conversion: a plain string would be folded into fputc */
            for (; i < calls; i++)
                if (fprintf(f, "%d", (int)(i & 7)) != 1)
                    return 1;
            break;
        }
        double t = (bench_now_s() - t0) * 1e9 / (double)calls;
        best = t < best ? t : best;
        if (f && fflush(f) != 0)
            return 1;
    }
    if (f)
        fclose(f);
    else
        close(fd);
    unlink(path);
    printf("%.3f\n", best);
    return 0;
}

/* Calls of region `name` in the profile at `path`; -1 when it cannot be
 * read. */
static int64_t recorded_calls(const char *path, const char *name)
{
    scope_profile *p;
    if (scope_profile_open(path, &p) < 0) {
        fprintf(stderr, "bench_io: %s\n", scope_reader_errmsg());
        return -1;
    }
    int r = scope_profile_region_index(p, name);
    int64_t n = r < 0 ? 0 : scope_profile_calls(p, r, SCOPE_ALL_RANKS);
    scope_profile_close(p);
    return n;
}

int main(int argc, char **argv)
{
    long calls = 1000000;
    if (argc == 4 && strncmp(argv[1], "--child-", 8) == 0) {
        if (bench_parse_long(argv[2], 1, 1000000000L, &calls) < 0)
            return 2;
        return child(argv[1] + 8, calls, argv[3]);
    }
    if (argc > 2)
        return bench_usage_error(usage, argv[0], "too many arguments", argv[2]);
    if (argc == 2 && bench_is_help(argv[1])) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc == 2 && bench_parse_long(argv[1], 1, 1000000000L, &calls) < 0)
        return bench_usage_error(usage, argv[0], "not a count of calls", argv[1]);
    char exe[4096], count[32];
    if (bench_self(exe, sizeof exe, count, sizeof count, calls) < 0)
        return 1;
    char tmp[] = "/tmp/scope-bench-io-XXXXXX";
    char shm[] = "/dev/shm/scope-bench-io-XXXXXX";
    if (!mkdtemp(tmp) || !mkdtemp(shm))
        return 1;
    char conf[2][4200], out[2][4200];
    static const char *const entries[2] = { "include = bench_io*\nio_exclude = none",
                                            "include = bench_io*\nio = off" };
    for (int i = 0; i < 2; i++) {
        char name[32];
        snprintf(name, sizeof name, "c%d.conf", i);
        snprintf(out[i], sizeof out[i], "%s/p%d.h5", tmp, i);
        if (!bench_conf_file(tmp, name, entries[i], conf[i], sizeof conf[i]))
            return 1;
    }
    static const char *const what[2] = { "pwrite", "fwrite" };
    static const char *const labels[2] = { "recorded", "preload, io = off" };
    double bare[2][ROUNDS], add[2][2][ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        for (int w = 0; w < 2; w++) {
            char mode[32];
            snprintf(mode, sizeof mode, "--child-%s", what[w]);
            char *child_argv[] = { exe, mode, count, shm, NULL };
            const char *none[] = { NULL };
            bare[w][r] = bench_run(child_argv, none);
            if (bare[w][r] < 0)
                bare[w][r] = NAN;
            for (int i = 0; i < 2; i++) {
                const char *pre[] = { "LD_PRELOAD", SCOPE_PRELOAD_PATH, "SCOPE_CONFIG", conf[i],
                                      "SCOPE_OUTPUT", out[i], NULL };
                double t = bench_run(child_argv, pre);
                add[w][i][r] = t > 0 ? t - bare[w][r] : NAN;
                int64_t got;
                if (r == 0 && i == 0 && t > 0 &&
                    (got = recorded_calls(out[i], what[w])) != 3 * calls) {
                    fprintf(stderr, "bench_io: the recorded run kept %lld %s calls, not %ld\n",
                            (long long)got, what[w], 3 * calls);
                    return 1;
                }
            }
        }
    }
    char cpu[256];
    printf("CPU:                       %s\n", bench_cpu_model(cpu, sizeof cpu));
    printf("calls per run:             %ld, %d interleaved rounds: min / median / max\n",
           calls, ROUNDS);
    for (int w = 0; w < 2; w++) {
        bench_range x = bench_range_of(bare[w], ROUNDS);
        printf("%s, 1 byte, bare:%*s %.2f / %.2f / %.2f ns\n", what[w], 6, "", x.min, x.med,
               x.max);
        for (int i = 0; i < 2; i++) {
            x = bench_range_of(add[w][i], ROUNDS);
            if (isnan(x.med))
                printf("  %-24s failed\n", labels[i]);
            else
                printf("  %-24s %+.2f / %+.2f / %+.2f ns over bare%s\n", labels[i], x.min, x.med,
                       x.max, i == 0 ? " (target <= +40 ns)" : "");
        }
    }
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", tmp, shm);
    if (system(cmd) != 0)
        return 1;
    return 0;
}
