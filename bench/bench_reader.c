/*
 * bench_reader.c - reader throughput on a big profile written by our own
 * recorder: `scope summary` (and the reader calls it makes) against
 * reading the same datasets raw with h5py + numpy, and the call-stack
 * reconstruction in events per second. Targets: summary within 1.5x of
 * the raw read; call stacks at >= 20 million events/s.
 *
 *   bench_reader [events] [ranks] [--keep] [--reuse] [--record-only]
 *                [--dir DIR] [--scope PATH]
 *
 * --reuse times the profile a previous --keep run left in DIR instead of
 * recording a new one (for profiling the reader). --record-only records
 * the profile into DIR, keeps it and times nothing (bench_sizes.py makes
 * its profiles so).
 *
 * Default 100,000,000 events over 4 ranks (one process each, recorded one
 * after the other), in DIR (default /tmp/scope_bench_reader; about 2.4 GB
 * while recording, 1.6 GB after), removed at the end unless --keep. Each
 * quantity is timed 3 times, interleaved, and the best is kept: the page
 * cache is warm for every contender alike.
 *
 * Per rank, every step is 10 calls, nested as a real code's would be:
 * step > 6 x compute, exchange > 2 x pack.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_args.h"

#include "scope.h"
#include "scope_reader.h"

#define ROUNDS 3

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One rank's recording, in a child process (the recorder is per process). */
static int record_rank(const char *out, int rank, int nranks, long steps)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        scope_options o = { .output = out };
        if (scope_init(&o) < 0)
            _exit(1);
        scope_set_rank(rank, nranks);
        int32_t step = scope_region("step"), compute = scope_region("compute"),
                exchange = scope_region("exchange"), pack = scope_region("pack");
        for (long i = 0; i < steps; i++) {
            scope_begin(step);
            for (int j = 0; j < 6; j++) {
                scope_begin(compute);
                scope_end(compute);
            }
            scope_begin(exchange);
            scope_begin(pack);
            scope_end(pack);
            scope_begin(pack);
            scope_end(pack);
            scope_end(exchange);
            scope_end(step);
        }
        _exit(scope_finalize() < 0 ? 1 : 0);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return 0;
}

/* What `scope summary` asks the reader: open, then the statistics of
 * every region over all ranks (which reads every event once). */
static double time_reader_summary(const char *path, int64_t *events)
{
    double t0 = now_s();
    scope_profile *p;
    if (scope_profile_open(path, &p) < 0) {
        fprintf(stderr, "bench_reader: %s\n", scope_reader_errmsg());
        exit(1);
    }
    *events = 0;
    for (int r = 0; r < scope_profile_region_count(p); r++) {
        scope_stats s;
        if (scope_profile_stats(p, r, SCOPE_ALL_RANKS, &s) < 0) {
            fprintf(stderr, "bench_reader: %s\n", scope_reader_errmsg());
            exit(1);
        }
        *events += s.calls;
    }
    scope_profile_close(p);
    return now_s() - t0;
}

/* Builds and frees the call stack of every rank; returns the seconds
 * spent in scope_profile_call_stack (reading the events included). */
static double time_call_stacks(const char *path, int64_t *calls)
{
    scope_profile *p;
    if (scope_profile_open(path, &p) < 0) {
        fprintf(stderr, "bench_reader: %s\n", scope_reader_errmsg());
        exit(1);
    }
    double t = 0;
    *calls = 0;
    for (int k = 0; k < scope_profile_rank_count(p); k++) {
        scope_call_stack *cs;
        double t0 = now_s();
        if (scope_profile_call_stack(p, scope_profile_rank(p, k),
                                     SCOPE_ALL_THREADS, &cs) < 0) {
            fprintf(stderr, "bench_reader: %s\n", scope_reader_errmsg());
            exit(1);
        }
        t += now_s() - t0;
        *calls += scope_call_stack_count(cs);
        scope_call_stack_free(cs);
    }
    scope_profile_close(p);
    return t;
}

/* Wall time of a command with its output thrown away; -1 on failure. */
static double time_command(char *const argv[])
{
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return now_s() - t0;
}

/* h5py + numpy reading every start_times / end_times of every rank file
 * into arrays: the raw floor. Times only the reads (not Python's start). */
static const char h5py_script[] =
    "import glob, sys, time, h5py, numpy\n"
    "t0 = time.perf_counter(); n = 0\n"
    "for path in sorted(glob.glob(sys.argv[1] + '/rank*.h5')):\n"
    "    with h5py.File(path, 'r') as f:\n"
    "        for rk in f:\n"
    "            if not rk.startswith('rank'): continue\n"
    "            for g in f[rk]['regions'].values():\n"
    "                s = g['start_times'][()]; e = g['end_times'][()]\n"
    "                n += len(s)\n"
    "print(time.perf_counter() - t0, n)\n";

static double time_h5py(const char *dir, int64_t *events)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c \"$SCOPE_BENCH_PY\" '%s'",
             dir);
    setenv("SCOPE_BENCH_PY", h5py_script, 1);
    FILE *f = popen(cmd, "r");
    double t = -1;
    long long n = 0;
    if (!f)
        return -1;
    if (fscanf(f, "%lf %lld", &t, &n) != 2)
        t = -1;
    if (pclose(f) != 0)
        t = -1;
    *events = n;
    return t;
}

static double min_d(double a, double b)
{
    return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

static const char usage[] =
    "usage: bench_reader [EVENTS] [RANKS] [--keep] [--reuse] [--record-only] [--dir DIR] "
    "[--scope PATH]\n";

int main(int argc, char **argv)
{
    long events = 100000000, ranks = 4;
    int keep = 0, reuse = 0, record_only = 0, npos = 0;
    const char *dir = "/tmp/scope_bench_reader", *scope = NULL, *events_arg = "100000000";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (bench_is_help(a)) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--keep") == 0) {
            keep = 1;
        } else if (strcmp(a, "--reuse") == 0) {
            reuse = keep = 1;
        } else if (strcmp(a, "--record-only") == 0) {
            record_only = keep = 1;
        } else if (strcmp(a, "--dir") == 0 || strcmp(a, "--scope") == 0) {
            if (i + 1 >= argc)
                return bench_usage_error(usage, "bench_reader", "a value is needed after", a);
            *(a[2] == 'd' ? &dir : &scope) = argv[++i];
        } else if (a[0] == '-') {
            return bench_usage_error(usage, "bench_reader", "unknown option", a);
        } else if (npos == 0) {
            if (bench_parse_long(a, 10, 10000000000L, &events) < 0)
                return bench_usage_error(usage, "bench_reader",
                                         "EVENTS must be a count of at least 10, not", a);
            events_arg = a;
            npos++;
        } else if (npos == 1) {
            if (bench_parse_long(a, 1, 4096, &ranks) < 0)
                return bench_usage_error(usage, "bench_reader",
                                         "RANKS must be a count from 1 to 4096, not", a);
            npos++;
        } else {
            return bench_usage_error(usage, "bench_reader", "unexpected argument", a);
        }
    }
    if (events < 10 * ranks)
        return bench_usage_error(usage, "bench_reader", "EVENTS must be at least 10 x RANKS, not",
                                 events_arg);
    char out[4096], rdir[4096], exe[4096], cmd[8300];
    snprintf(out, sizeof out, "%s/bench.h5", dir);
    snprintf(rdir, sizeof rdir, "%s/bench.ranks", dir);
    if (!scope) {
        /* build/bench/bench_reader -> build/tools/scope */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 32);
        exe[n > 0 ? n : 0] = '\0';
        char *slash = strrchr(exe, '/');
        strcpy(slash ? slash : exe, "/../tools/scope");
        scope = exe;
    }
    if (reuse)
        goto measure;
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0)
        return 1;

    long steps = events / 10 / ranks;
    printf("recording %ld events (%ld ranks x %ld steps x 10 calls) into %s\n",
           steps * 10 * ranks, ranks, steps, dir);
    fflush(stdout);
    double t0 = now_s();
    for (int k = 0; k < ranks; k++)
        if (record_rank(out, k, ranks, steps) < 0) {
            fprintf(stderr, "bench_reader: recording rank %d failed\n", k);
            return 1;
        }
    printf("  recorded and written in %.1f s\n", now_s() - t0);
    if (record_only)
        return 0;
measure:
    snprintf(cmd, sizeof cmd, "du -sh '%s'", rdir);
    fflush(stdout);
    if (system(cmd) != 0)
        return 1;

    double best_raw = -1, best_sum = -1, best_cmd = -1, best_cs = -1;
    int64_t n_raw = 0, n_sum = 0, n_cs = 0;
    char *cmd_argv[] = { (char *)scope, "summary", rdir, NULL };
    for (int round = 0; round < ROUNDS; round++) {
        best_raw = min_d(best_raw, time_h5py(rdir, &n_raw));
        best_sum = min_d(best_sum, time_reader_summary(rdir, &n_sum));
        best_cmd = min_d(best_cmd, time_command(cmd_argv));
        best_cs = min_d(best_cs, time_call_stacks(rdir, &n_cs));
    }
    printf("events: h5py %lld, reader %lld, call stacks %lld\n",
           (long long)n_raw, (long long)n_sum, (long long)n_cs);
    printf("h5py + numpy raw read of start/end_times: %7.2f s\n", best_raw);
    printf("reader summary (open + stats, in process): %7.2f s  = %.2fx raw "
           "(target <= 1.5x)\n", best_sum, best_sum / best_raw);
    if (best_cmd >= 0)
        printf("scope summary (the command, wall):         %7.2f s  = %.2fx raw\n",
               best_cmd, best_cmd / best_raw);
    else
        printf("scope summary: could not run %s\n", scope);
    printf("call stacks, every rank:                   %7.2f s  = %.1f M "
           "events/s (target >= 20)\n", best_cs, (double)n_cs / best_cs / 1e6);
    if (!keep) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            return 1;
    }
    return 0;
}
