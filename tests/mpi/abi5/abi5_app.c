/*
 * abi5_app.c - a program of the MPI-5 standard ABI (against abi5/mpi.h and
 * the stub libmpi_abi.so): one rank sends itself 10 int32 with tag 7,
 * receives them with MPI_STATUS_IGNORE, sends 3 doubles to MPI_PROC_NULL,
 * and reduces 2 doubles in place. check_abi5.py checks what the preload
 * recorded through its standard-ABI table.
 */
#include <stdio.h>

#include "mpi.h"

int main(int argc, char **argv)
{
    int buf[10] = { 0 }, major = 0, minor = 0;
    double d[3] = { 1, 2, 3 };
    MPI_Init(&argc, &argv);
    MPI_Abi_get_version(&major, &minor);
    MPI_Send(buf, 10, MPI_INT32_T, 0, 7, MPI_COMM_WORLD);
    MPI_Recv(buf, 10, MPI_INT32_T, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(d, 3, MPI_DOUBLE, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    printf("ABI %d.%d\n", major, minor);
    MPI_Finalize();
    return 0;
}
