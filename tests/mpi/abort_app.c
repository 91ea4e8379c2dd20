/*
 * abort_app.c - an MPI program that ends in MPI_Abort (tests/mpi/
 * check_abort.py): every rank calls work() 5 times, MPI_Comm_rank once and
 * MPI_Barrier once; then rank A (argv[1]) prints a line and calls
 * MPI_Abort(MPI_COMM_WORLD, CODE) (argv[2]) while the others wait in a
 * second MPI_Barrier, where the abort kills them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int work(int x)
{
    volatile int s = 0;
    for (int i = 0; i < 1000; i++)
        s += i * x;
    return s;
}

int main(int argc, char **argv)
{
    int rank, who = argc > 1 ? atoi(argv[1]) : 1, code = argc > 2 ? atoi(argv[2]) : 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 5; i++)
        work(i);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == who) {
        printf("abort_app: rank %d aborting with %d\n", rank, code);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
