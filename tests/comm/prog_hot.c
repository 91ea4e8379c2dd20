/*
 * prog_hot.c - the calls the capture takes paths of its own for
 * (preload/mpi/mpi_capture_hot.c: MPI_Isend & co, MPI_Irecv, MPI_Wait,
 * MPI_Allreduce, MPI_Scan, MPI_Exscan), in every case those paths must
 * tell apart, for check_hot.py. Every value follows from the rank alone
 * (the formulas are repeated in the check). 4 ranks; next = rank+1,
 * prev = rank-1 (mod 4).
 *
 *   ring      MPI_Irecv of 3 ints from prev, MPI_Isend of 3 ints to next
 *             (tag 5), each completed by MPI_Wait with a status
 *   ignore    MPI_Irecv of up to 4 ints from MPI_ANY_SOURCE/MPI_ANY_TAG,
 *             MPI_Isend of 2 ints to next (tag 6); MPI_Wait with
 *             MPI_STATUS_IGNORE: source, tag and size from the status
 *   bigtag    MPI_Irecv and MPI_Issend of 1 int, tag 20000: past the
 *             one-record form of a post (journal.h), two records
 *   procnull  MPI_Isend and MPI_Irecv of 5 ints to and from
 *             MPI_PROC_NULL, each waited for
 *   comms     three rounds of a send on MPI_COMM_WORLD (tag 9, to next)
 *             and one on a communicator split with reversed keys (tag 8,
 *             to its rank + 1, world rank prev), each a 1-int MPI_Isend
 *             with its MPI_Irecv; the split is freed and another made with
 *             the ranks in order (MPICH gives it the freed handle): one
 *             more round on it (tag 10, to its rank + 1, world rank next)
 *   reduce    MPI_Allreduce of 3 ints, twice; of 2 elements of a
 *             contiguous type of 2 doubles (32 bytes, a user's operation); in place, of 4
 *             doubles; on the second split, of 1 double; MPI_Scan of 1 int;
 *             MPI_Exscan of 2 ints
 *   error     under MPI_ERRORS_RETURN, MPI_Isend and MPI_Allreduce with
 *             MPI_DATATYPE_NULL: the error class is printed (the same with
 *             and without scope), the calls are recorded without data;
 *             MPI_Wait of MPI_REQUEST_NULL
 *   large     (MPI 4 libraries: MPICH) MPI_Irecv_c/MPI_Isend_c of 2
 *             doubles (tag 12), each waited for; MPI_Allreduce_c of 3 ints
 */
#include <mpi.h>
#include <stdio.h>

/* a reduction of the pairs (predefined operations take only predefined
 * datatypes) */
static void keep_max(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    double *a = in, *b = inout;
    for (int i = 0; i < 2 * *len; i++)
        b[i] = a[i] > b[i] ? a[i] : b[i];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int ib[16] = { 0 }, ob[16] = { 0 };
    double db[16] = { 0 };
    MPI_Request rq, sq;
    MPI_Status st;

    /* ring */
    MPI_Irecv(ib, 3, MPI_INT, prev, 5, MPI_COMM_WORLD, &rq);
    MPI_Isend(ob, 3, MPI_INT, next, 5, MPI_COMM_WORLD, &sq);
    MPI_Wait(&sq, &st);
    MPI_Wait(&rq, &st);

    /* ignore */
    MPI_Irecv(ib, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
    MPI_Isend(ob, 2, MPI_INT, next, 6, MPI_COMM_WORLD, &sq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Wait(&sq, MPI_STATUS_IGNORE);

    /* bigtag */
    MPI_Irecv(ib, 1, MPI_INT, prev, 20000, MPI_COMM_WORLD, &rq);
    MPI_Issend(ob, 1, MPI_INT, next, 20000, MPI_COMM_WORLD, &sq);
    MPI_Wait(&sq, &st);
    MPI_Wait(&rq, &st);

    /* procnull */
    MPI_Isend(ob, 5, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &sq);
    MPI_Wait(&sq, &st);
    MPI_Irecv(ib, 5, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);

    /* comms: the world and a reversed split, alternately */
    MPI_Comm rev, fwd;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    int rr;
    MPI_Comm_rank(rev, &rr);
    for (int i = 0; i < 3; i++) {
        MPI_Irecv(ib, 1, MPI_INT, prev, 9, MPI_COMM_WORLD, &rq);
        MPI_Isend(ob, 1, MPI_INT, next, 9, MPI_COMM_WORLD, &sq);
        MPI_Wait(&sq, &st);
        MPI_Wait(&rq, &st);
        MPI_Irecv(ib, 1, MPI_INT, (rr + size - 1) % size, 8, rev, &rq);
        MPI_Isend(ob, 1, MPI_INT, (rr + 1) % size, 8, rev, &sq);
        MPI_Wait(&sq, &st);
        MPI_Wait(&rq, &st);
    }
    MPI_Comm_free(&rev);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &fwd);
    MPI_Irecv(ib, 1, MPI_INT, prev, 10, fwd, &rq);
    MPI_Isend(ob, 1, MPI_INT, next, 10, fwd, &sq);
    MPI_Wait(&sq, &st);
    MPI_Wait(&rq, &st);

    /* reduce */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    MPI_Allreduce(ob, ib, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(ob, ib, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Op pmax;
    MPI_Op_create(keep_max, 1, &pmax);
    MPI_Allreduce(db, db + 8, 2, pair, pmax, MPI_COMM_WORLD);
    MPI_Op_free(&pmax);
    MPI_Allreduce(MPI_IN_PLACE, db, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(db, db + 1, 1, MPI_DOUBLE, MPI_SUM, fwd);
    MPI_Scan(ob, ib, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(ob, ib, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Type_free(&pair);
    MPI_Comm_free(&fwd);

    /* error */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Isend(ob, 1, MPI_DATATYPE_NULL, next, 1, MPI_COMM_WORLD, &sq);
    MPI_Error_class(rc, &cls);
    printf("rank %d: MPI_Isend with MPI_DATATYPE_NULL: class %d\n", rank, cls);
    rc = MPI_Allreduce(ob, ib, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    printf("rank %d: MPI_Allreduce with MPI_DATATYPE_NULL: class %d\n", rank, cls);
    rq = MPI_REQUEST_NULL;
    MPI_Wait(&rq, &st);

#if MPI_VERSION >= 4
    /* large */
    MPI_Irecv_c(db, 2, MPI_DOUBLE, prev, 12, MPI_COMM_WORLD, &rq);
    MPI_Isend_c(db + 4, 2, MPI_DOUBLE, next, 12, MPI_COMM_WORLD, &sq);
    MPI_Wait(&sq, &st);
    MPI_Wait(&rq, &st);
    MPI_Allreduce_c(ob, ib, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#endif
    MPI_Finalize();
    return 0;
}
