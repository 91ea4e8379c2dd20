/*
 * abi5_app.c - a program of the MPI-5 standard ABI (against abi5/mpi.h and
 * the stub libmpi_abi.so): one rank sends itself 10 int32 with tag 7,
 * receives them with MPI_STATUS_IGNORE, sends 3 doubles to MPI_PROC_NULL,
 * and reduces 2 doubles in place; on a window of MPI_COMM_WORLD puts 2
 * int32 into rank 0, fetches an int64 from it with MPI_NO_OP and puts 5
 * doubles to MPI_PROC_NULL; makes a 1-D Cartesian communicator (the stub's
 * lower neighbour is MPI_PROC_NULL, its upper one rank 0) and exchanges 3
 * doubles with its neighbours. check_abi5.py checks what the preload
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
    MPI_Win win;
    long v = 0, got = 0;
    MPI_Win_create(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Put(buf, 2, MPI_INT32_T, 0, 0, 2, MPI_INT32_T, win);
    MPI_Fetch_and_op(&v, &got, MPI_INT64_T, 0, 0, MPI_NO_OP, win);
    MPI_Put(d, 5, MPI_DOUBLE, MPI_PROC_NULL, 0, 5, MPI_DOUBLE, win);
    MPI_Win_free(&win);
    MPI_Comm cart;
    int dims[1] = { 1 }, periods[1] = { 0 };
    double nb[6] = { 0 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Neighbor_alltoall(nb, 3, MPI_DOUBLE, nb, 3, MPI_DOUBLE, cart);
    printf("ABI %d.%d\n", major, minor);
    MPI_Finalize();
    return 0;
}
