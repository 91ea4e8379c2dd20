/*
 * bench_child.h - shared pieces of bench_interpose and bench_callsites
 * (bench_child.c).
 */
#ifndef SCOPE_BENCH_CHILD_H
#define SCOPE_BENCH_CHILD_H

#include <stddef.h>

extern volatile long bench_sink;

/* The function every run calls; big enough to patch (>= 5 bytes). */
long bench_target(long x);

double bench_now_s(void);

/* Calls per timed batch (bench_child.c says why batches). */
#define BENCH_BATCH 1000

/* The child: 3 rounds of `calls` calls of bench_target; prints the
 * fastest batch of BENCH_BATCH and the fastest round, in ns per call, on
 * one line of stdout. Returns 0. */
int bench_child(long calls);

/* Two ordered reads of the recorder's clock (`lfence; rdtsc` inline on
 * x86-64), the fastest batch over 5 n pairs, in ns. */
double bench_two_reads_ns(long n);

/* The load average (1, 5, 15 minutes) as /proc/loadavg gives it, in buf. */
const char *bench_load(char *buf, size_t len);

/* Runs argv with extra environment (name, value, ..., NULL) and returns
 * the ns per call the child printed last, or a negative value. */
double bench_run(char *const argv[], const char *const env[]);

/* The same, with the second number of that line in *second (-1 if none). */
double bench_run2(char *const argv[], const char *const env[], double *second);

/* The parent's start: this program's path (to run it again as a child)
 * into exe and `calls` in decimal into count. Returns 0, or -1 when
 * /proc/self/exe cannot be read. */
int bench_self(char *exe, size_t exe_len, char *count, size_t count_len, long calls);

/* The start of bench_interpose and bench_callsites: their command line
 * (bench_calls_args, *calls its count); run as the child, the child's
 * run; else bench_self. Returns -1 to go on as the parent, else the exit
 * status. */
int bench_start(int argc, char **argv, const char *usage, long *calls, char *exe,
                size_t exe_len, char *count, size_t count_len);

/* Writes a config timing `entry` (1 GiB budget) into dir/name; returns
 * its path in buf, or NULL. */
const char *bench_conf_file(const char *dir, const char *name, const char *entry, char *buf,
                            size_t len);

#endif
