/*
 * hosts_messages.c - an application that receives with MPI_ANY_SOURCE and
 * MPI_ANY_TAG on MPI_COMM_WORLD while scope aligns clocks (inside MPI_Init
 * and MPI_Finalize, through hosts_layer.c): it must see only its own
 * messages. Each rank sends {rank, 4242} with tag 100 + rank to rank + 1;
 * the receive posted in MPI_Init must get exactly that from rank - 1.
 * Prints per rank "rank R init: clean" or "... init: STOLEN ...", then
 * the layer prints the finalize verdict. Exits 0.
 */
#include <stdio.h>

#include <mpi.h>

#include "hosts_layer.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, done = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long *buf;
    MPI_Request *req = hosts_layer_init_request(&buf);
    MPI_Status st;
    MPI_Test(req, &done, &st); /* nothing of ours was sent yet */
    int early = done;
    MPI_Barrier(MPI_COMM_WORLD);
    long long msg[2] = { rank, 4242 };
    MPI_Send(msg, 2, MPI_LONG_LONG, (rank + 1) % size, 100 + rank, MPI_COMM_WORLD);
    if (!early)
        MPI_Wait(req, &st);
    int prev = (rank + size - 1) % size;
    if (!early && st.MPI_SOURCE == prev && st.MPI_TAG == 100 + prev && buf[0] == prev &&
        buf[1] == 4242)
        printf("rank %d init: clean\n", rank);
    else
        printf("rank %d init: STOLEN source %d tag %d value %lld\n", rank, st.MPI_SOURCE,
               st.MPI_TAG, buf[0]);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    hosts_layer_watch_finalize();
    MPI_Finalize();
    return 0;
}
