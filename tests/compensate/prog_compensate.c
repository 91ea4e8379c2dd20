/*
 * prog_compensate.c - known work for the compensation test
 * (test_compensate.py): a parent that makes many tiny timed calls, next to
 * the same work timed bare in the same run.
 *
 * Each round, interleaved so that a slow stretch of the machine hits both:
 *   - bare:     K calls of tiny() timed as a whole (clock_gettime around
 *               the loop): tiny's true mean; then the parent's loop with
 *               no recording: the parent's true self time is that loop
 *               minus K tiny calls;
 *   - recorded: the same parent loop inside region "parent", each tiny()
 *               inside region "tiny" (scope_begin/scope_end).
 * Prints one line per round: "bare <tiny loop ns> <parent loop ns>" (the
 * bare loops' wall times; the test takes the least over rounds).
 *
 * usage: prog_compensate ROUNDS K
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scope.h"

static volatile unsigned sink;

/* A fixed amount of dependent arithmetic: its time does not depend on
 * memory, and the compiler cannot drop it. */
static __attribute__((noinline)) void work(unsigned n)
{
    unsigned x = sink;
    for (unsigned i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        __asm__ volatile("" : "+r"(x));
    }
    sink = x;
}

static __attribute__((noinline)) void tiny(void)
{
    work(40);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: prog_compensate ROUNDS K\n");
        return 2;
    }
    int rounds = atoi(argv[1]), k = atoi(argv[2]);
    if (rounds < 1 || k < 1) {
        fprintf(stderr, "prog_compensate: ROUNDS and K must be >= 1\n");
        return 2;
    }
    int32_t parent = scope_region("parent"), small = scope_region("tiny");
    if (parent < 0 || small < 0) {
        fprintf(stderr, "prog_compensate: scope_region failed\n");
        return 1;
    }
    /* the first event creates the journal: not inside a measured call */
    scope_begin(parent);
    scope_end(parent);
    for (int r = 0; r < rounds; r++) {
        double t0 = now_ns();
        for (int i = 0; i < k; i++)
            tiny();
        double t1 = now_ns();
        for (int i = 0; i < k; i++) {
            work(100);
            tiny();
        }
        double t2 = now_ns();
        printf("bare %.0f %.0f\n", t1 - t0, t2 - t1);

        scope_begin(parent);
        for (int i = 0; i < k; i++) {
            work(100);
            scope_begin(small);
            tiny();
            scope_end(small);
        }
        scope_end(parent);
    }
    return 0;
}
