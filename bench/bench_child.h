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

/* The child: the best of 3 rounds of `calls` calls of bench_target,
 * printed in ns per call on stdout. Returns 0. */
int bench_child(long calls);

/* Two reads of the recorder's clock, best of 5 rounds of n, in ns. */
double bench_two_reads_ns(long n);

/* Runs argv with extra environment (name, value, ..., NULL) and returns
 * the ns per call the child printed last, or a negative value. */
double bench_run(char *const argv[], const char *const env[]);

/* Writes a config timing `entry` (1 GiB budget) into dir/name; returns
 * its path in buf, or NULL. */
const char *bench_conf_file(const char *dir, const char *name, const char *entry, char *buf,
                            size_t len);

#endif
