/*
 * prog_slow.c - the MPI program of tests/compare: every rank calls step()
 * 10 times; step() calls kernel() and other(), each sleeping 1 ms. Run
 * with the argument "after", kernel() sleeps 2 ms more per call: the one
 * change `scope diff` must find (in kernel and in its caller step, and
 * nowhere else). setup() stays as it is; the final MPI_Barrier is not
 * timed (check_mpi.py says why).
 */
#include <mpi.h>
#include <string.h>
#include <time.h>

static int extra_ms;

static void nap(long us)
{
    struct timespec t = { 0, us * 1000 };
    while (nanosleep(&t, &t) != 0)
        ;
}

__attribute__((noinline)) void kernel(void)
{
    nap(1000 + 1000L * extra_ms);
}

__attribute__((noinline)) void other(void)
{
    nap(1000);
}

__attribute__((noinline)) void step(void)
{
    kernel();
    other();
}

__attribute__((noinline)) void setup(void)
{
    nap(500);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    extra_ms = argc > 1 && !strcmp(argv[1], "after") ? 2 : 0;
    setup();
    for (int i = 0; i < 10; i++)
        step();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
