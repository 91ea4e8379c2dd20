/*
 * prog_zero.c - messages of 0 bytes in each of the three matrices, for
 * check_zero.py (issue 44 item 4: one rule for all three). 4 ranks; next
 * = rank+1, prev = rank-1 (mod 4); every call moves 0 elements:
 *
 *   point to point  MPI_Send of 0 ints to next, MPI_Recv from prev
 *   collective      MPI_Bcast from root 0, three times; MPI_Reduce to
 *                   root 1; MPI_Alltoall; MPI_Allgather; MPI_Allreduce
 *                   (no pairs in the model)
 *   one-sided       MPI_Put of 0 ints to next, MPI_Get of 0 ints from
 *                   prev, each in a fence epoch of a world window
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int a[4] = { 0 }, b[4] = { 0 }, w[4] = { 0 };

    MPI_Send(a, 0, MPI_INT, next, 5, MPI_COMM_WORLD);
    MPI_Recv(b, 0, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    for (int i = 0; i < 3; i++)
        MPI_Bcast(a, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce(a, b, 0, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD);
    MPI_Alltoall(a, 0, MPI_INT, b, 0, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(a, 0, MPI_INT, b, 0, MPI_INT, MPI_COMM_WORLD);
    MPI_Allreduce(a, b, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    MPI_Win win;
    MPI_Win_create(w, sizeof w, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(a, 0, MPI_INT, next, 0, 0, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get(b, 0, MPI_INT, prev, 0, 0, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);

    printf("rank %d: done\n", rank);
    MPI_Finalize();
    return 0;
}
