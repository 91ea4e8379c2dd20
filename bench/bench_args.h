/*
 * bench_args.h - the command-line checks every benchmark shares
 * (bench_args.c): a benchmark refuses what it does not know with its usage
 * line and exit status 2, instead of reading `--no-uftrace` as a count of
 * 0 and printing a meaningless number.
 */
#ifndef SCOPE_BENCH_ARGS_H
#define SCOPE_BENCH_ARGS_H

#include <stddef.h>

/* Parses the whole of s as a decimal integer in [min, max].
 * Returns 0 and sets *out, or -1 (out untouched). */
int bench_parse_long(const char *s, long min, long max, long *out);

/* Prints "<prog>: <what> '<arg>'" and then usage on stderr; returns 2,
 * the bad-usage exit status. */
int bench_usage_error(const char *usage, const char *prog, const char *what, const char *arg);

/* A count argument: the whole of arg as a decimal integer in [min, max]
 * into *out and 0; else the usage error (2) naming it "unknown option"
 * when it starts with '-', else `what` (e.g. "CALLS must be a count from
 * 1000 to 1000000000, not"). */
int bench_count_arg(const char *usage, const char *prog, const char *what, const char *arg,
                    long min, long max, long *out);

/* The first checks of a benchmark taking at most `most` arguments: -h or
 * --help first prints usage on stdout (0); more arguments are the usage
 * error "unexpected argument" (2); else -1, to go on. */
int bench_help_or_extra(int argc, char **argv, const char *usage, const char *prog, int most);

/* 1 when arg is -h or --help (the caller prints usage on stdout, exit 0). */
int bench_is_help(const char *arg);

/* The command line of bench_interpose and bench_callsites: "[CALLS]", or
 * the internal "--child CALLS" the parent runs. Returns -1 to go on, with
 * *calls set (default kept when not given) and *child 1 for a child run;
 * otherwise the exit status to return (0 after --help, 2 after an error). */
int bench_calls_args(int argc, char **argv, const char *usage, long *calls, int *child);

/* min / median / max of the values among v[0 .. n) that are not NaN (a
 * failed run is NaN; differences may be negative: noise shows); all NaN
 * when there is none. n <= 256. */
typedef struct { double min, med, max; } bench_range;
bench_range bench_range_of(const double *v, int n);

/* The "model name" of /proc/cpuinfo ("unknown CPU" if none), in buf. */
const char *bench_cpu_model(char *buf, size_t len);

#endif
