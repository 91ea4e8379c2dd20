/*
 * prog_rma.c - one-sided MPI calls whose bytes and targets are known by
 * hand, for check_rma.py (the formulas are repeated there). 4 ranks;
 * next = rank+1, prev = rank-1 (mod 4).
 *
 *   world window  MPI_Win_create of 64 ints on MPI_COMM_WORLD, fences:
 *                 MPI_Put of rank+1 ints to next; MPI_Get of 3 ints from
 *                 prev; MPI_Accumulate (MPI_SUM) of 5 ints into rank 0;
 *                 MPI_Get_accumulate of 2 ints (result 2 ints) with next;
 *                 MPI_Get_accumulate with MPI_NO_OP (a fetch: origin 0
 *                 ints, result 4 ints) from prev; MPI_Fetch_and_op of one
 *                 int with rank 0, then with MPI_NO_OP (a fetch) from rank
 *                 1; MPI_Compare_and_swap of one int with
 *                 rank 1; MPI_Put to MPI_PROC_NULL (nothing moves)
 *   split window  MPI_Comm_split with reversed keys (split rank = 3 -
 *                 world rank), MPI_Win_allocate of 16 ints on it, a
 *                 passive epoch (MPI_Win_lock_all): MPI_Rput of 1 int to
 *                 split rank 0 (world 3), MPI_Rget of 2 ints from split
 *                 rank 1 (world 2), MPI_Raccumulate of 3 ints into split
 *                 rank 2 (world 1), MPI_Rget_accumulate of 1 int (result
 *                 1 int) with split rank 3 (world 0), MPI_Rget_accumulate
 *                 with MPI_NO_OP (a fetch of 2 ints) from split rank 2
 *                 (world 1), each completed by MPI_Wait: targets must
 *                 come out as world ranks
 *   shared window MPI_Win_allocate_shared of 4 doubles on MPI_COMM_WORLD:
 *                 MPI_Put of 1 double to next
 *   large count   (MPI 4 libraries: MPICH) MPI_Put_c of 2 ints to next
 *                 on the world window
 *   bad type      MPI_Put with MPI_DATATYPE_NULL under MPI_ERRORS_RETURN
 *                 on the world window: refused, the error class printed
 *                 (the same with and without scope), the call recorded without
 *                 data
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
    int wbuf[64] = { 0 }, obuf[16] = { 0 }, rbuf[16] = { 0 };

    MPI_Win win;
    MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(obuf, rank + 1, MPI_INT, next, 0, rank + 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get(rbuf, 3, MPI_INT, prev, 8, 3, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Accumulate(obuf, 5, MPI_INT, 0, 16, 5, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Get_accumulate(obuf, 2, MPI_INT, rbuf, 2, MPI_INT, next, 24, 2, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, rbuf, 4, MPI_INT, prev, 28, 4, MPI_INT, MPI_NO_OP, win);
    MPI_Win_fence(0, win);
    MPI_Fetch_and_op(obuf, rbuf, MPI_INT, 0, 40, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Fetch_and_op(NULL, rbuf, MPI_INT, 1, 40, MPI_NO_OP, win);
    MPI_Win_fence(0, win);
    MPI_Compare_and_swap(obuf, obuf + 1, rbuf, MPI_INT, 1, 44, win);
    MPI_Win_fence(0, win);
    MPI_Put(obuf, 7, MPI_INT, MPI_PROC_NULL, 0, 7, MPI_INT, win);
    MPI_Win_fence(0, win);
#if MPI_VERSION >= 4
    MPI_Put_c(obuf, 2, MPI_INT, next, 48, 2, MPI_INT, win);
    MPI_Win_fence(0, win);
#endif
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int rc = MPI_Put(obuf, 1, MPI_DATATYPE_NULL, next, 0, 1, MPI_INT, win);
    /* the class: MPICH's codes also number the error's message, run by run */
    int cls = 0;
    MPI_Error_class(rc, &cls);
    printf("bad type: %s, class %d\n", rc == MPI_SUCCESS ? "accepted" : "refused", cls);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);

    MPI_Comm split;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &split);
    int *abuf;
    MPI_Win swin;
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, split, &abuf, &swin);
    MPI_Win_lock_all(0, swin);
    MPI_Request rq;
    MPI_Rput(obuf, 1, MPI_INT, 0, rank, 1, MPI_INT, swin, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Rget(rbuf, 2, MPI_INT, 1, 4, 2, MPI_INT, swin, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Raccumulate(obuf, 3, MPI_INT, 2, 8, 3, MPI_INT, MPI_SUM, swin, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Rget_accumulate(obuf, 1, MPI_INT, rbuf, 1, MPI_INT, 3, 12, 1, MPI_INT, MPI_SUM, swin, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Rget_accumulate(NULL, 0, MPI_INT, rbuf, 2, MPI_INT, 2, 12, 2, MPI_INT, MPI_NO_OP, swin,
                        &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(swin);
    MPI_Win_free(&swin);
    MPI_Comm_free(&split);

    double *sh;
    MPI_Win shwin;
    MPI_Win_allocate_shared(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &sh, &shwin);
    MPI_Win_fence(0, shwin);
    double one = 1.0;
    MPI_Put(&one, 1, MPI_DOUBLE, next, 0, 1, MPI_DOUBLE, shwin);
    MPI_Win_fence(0, shwin);
    MPI_Win_free(&shwin);

    MPI_Finalize();
    return 0;
}
