/*
 * prog_compensate_patched.c - known work for the compensation test of the
 * patched path (test_compensate_patched.py): the same parent and tiny
 * calls as prog_compensate.c, but timed by the preload, which patches the
 * functions `parent` and `tiny` (not by scope_begin/scope_end), next to
 * copies of them the config does not name, timed bare in the same run.
 *
 * Each round, interleaved so that a slow stretch of the machine hits both:
 *   - bare:     K calls of tiny_bare() timed as a whole (its true mean),
 *               then parent_bare(K) (its true self time is that loop minus
 *               K tiny_bare calls);
 *   - recorded: parent(K), which calls tiny() K times; both patched.
 * Prints one line per round: "bare <tiny loop ns> <parent loop ns>".
 *
 * usage: prog_compensate_patched ROUNDS K
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned sink;

/* Dependent arithmetic: its time does not depend on memory, and the
 * compiler cannot drop it. */
static __attribute__((noinline)) void work(unsigned n)
{
    unsigned x = sink;
    for (unsigned i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        __asm__ volatile("" : "+r"(x));
    }
    sink = x;
}

/* The timed pair (the config names them) and their bare twins. noipa: the
 * calls must stay calls of these very functions. */
__attribute__((noipa)) void tiny(void)
{
    work(40);
}

__attribute__((noipa)) void tiny_bare(void)
{
    work(40);
}

__attribute__((noipa)) void parent(int k)
{
    for (int i = 0; i < k; i++) {
        work(100);
        tiny();
    }
}

__attribute__((noipa)) void parent_bare(int k)
{
    for (int i = 0; i < k; i++) {
        work(100);
        tiny_bare();
    }
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
        fprintf(stderr, "usage: prog_compensate_patched ROUNDS K\n");
        return 2;
    }
    int rounds = atoi(argv[1]), k = atoi(argv[2]);
    if (rounds < 1 || k < 1) {
        fprintf(stderr, "prog_compensate_patched: ROUNDS and K must be >= 1\n");
        return 2;
    }
    for (int r = 0; r < rounds; r++) {
        double t0 = now_ns();
        for (int i = 0; i < k; i++)
            tiny_bare();
        double t1 = now_ns();
        parent_bare(k);
        double t2 = now_ns();
        printf("bare %.0f %.0f\n", t1 - t0, t2 - t1);
        parent(k);
    }
    return 0;
}
