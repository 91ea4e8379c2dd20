/*
 * mpi_manual.c - an MPI program linked with libscope.so that marks its
 * own regions ("phase", 5 calls) and calls work() 7 times, which the
 * config times. Under the preload both must land in one rank file per
 * rank: libscope's API is interposed by the preload's recorder.
 */
#include <mpi.h>
#include <scope.h>
#include <stdio.h>

volatile int sink;

__attribute__((noinline)) void work(int i)
{
    for (int k = 0; k < 10; k++)
        sink += i * k;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int32_t phase = scope_region("phase");
    for (int i = 0; i < 5; i++) {
        scope_begin(phase);
        if (i < 4)
            work(i);
        scope_end(phase);
    }
    work(10);
    work(11);
    work(12);
    MPI_Finalize();
    return 0;
}
