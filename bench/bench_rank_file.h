/*
 * bench_rank_file.h - what the MPI programs the Python benchmarks run
 * (exit_prog.c, finalize_prog.c) share (bench_rank_file.c): the wall
 * clock they stamp their steps with, their CPU times, and the one line
 * each rank appends to the file the benchmark reads back.
 */
#ifndef SCOPE_BENCH_RANK_FILE_H
#define SCOPE_BENCH_RANK_FILE_H

#include <sys/time.h>

/* CLOCK_REALTIME in ns: comparable between the ranks of one machine. */
long long bench_now_ns(void);

/* A struct timeval in microseconds. */
long long bench_usec(struct timeval tv);

/* The user and system CPU time of this process and of its waited-for
 * children (the writers a rank ran), in microseconds. */
void bench_cpu_us(long long *user, long long *sys);

/* Appends `line` to the file `path` in one O_APPEND write, so that the
 * ranks' lines do not mix. Returns 0, or 1 after perror. */
int bench_append_line(const char *path, const char *line);

#endif
