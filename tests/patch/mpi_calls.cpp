// mpi_calls.cpp - mpi_calls.c built as C++ (the same MPI calls from a C++ program).
#include "mpi_calls.c"
