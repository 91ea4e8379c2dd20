// mpi_app.cpp - the C++ program of the MPI matrix (tests/mpi): the same
// calls as mpi_app.c (work 7, MPI_Allreduce 5, MPI_Barrier 3, MPI_Comm_rank
// 1, MPI_Comm_size 1) through the C API from C++, with a C++ user function
// (the config names it `work(double)`); one line of output from rank 0,
// formatted with iostream so that the program links libstdc++ as C++
// programs do (a C++ program that needs no libstdc++ has no __cxa_demangle
// in the process, and the preload then cannot match demangled names).
#include <mpi.h>
#include <cstring>
#include <iomanip>
#include <iostream>

__attribute__((noinline)) double work(double x)
{
    __asm__ volatile("" ::: "memory");
    return x * 0.5 + 1.0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "thread") == 0) {
        int provided = -1;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double y = rank;
    for (int i = 0; i < 7; i++)
        y = work(y);
    double sum = 0;
    for (int i = 0; i < 5; i++)
        MPI_Allreduce(&y, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        std::cout << "size " << size << " sum " << std::fixed << std::setprecision(6) << sum
                  << std::endl;
    MPI_Finalize();
    return 0;
}
