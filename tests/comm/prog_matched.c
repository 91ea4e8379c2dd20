/*
 * prog_matched.c - matched probes and receives (MPI 3: MPI_Mprobe,
 * MPI_Improbe, MPI_Mrecv, MPI_Imrecv; Open MPI and MPICH), for
 * check_matched.py. Every value follows from the rank alone (the formulas
 * are repeated in the check). 4 ranks; next = rank+1, prev = rank-1
 * (mod 4).
 *
 *   mprobe    MPI_Send of 3 ints to next (tag 21); MPI_Mprobe(prev, 21)
 *             with a status, MPI_Mrecv with a status
 *   any       MPI_Send of 5 doubles to next (tag 22); MPI_Mprobe
 *             (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_STATUS_IGNORE), MPI_Mrecv
 *             with MPI_STATUS_IGNORE: source, tag and size from the status
 *   improbe   MPI_Send of 7 ints to next (tag 23); MPI_Improbe(prev, 23)
 *             until it finds the message (how often is the machine's),
 *             MPI_Imrecv, MPI_Wait with a status
 *   split     a communicator split with reversed keys: MPI_Send of 2 ints
 *             to its rank + 1 (world rank prev, tag 24); MPI_Mprobe
 *             (MPI_ANY_SOURCE, 24) on it, MPI_Imrecv, MPI_Wait with
 *             MPI_STATUS_IGNORE: the source as a world rank (next)
 *   procnull  MPI_Mprobe of MPI_PROC_NULL: MPI_MESSAGE_NO_PROC, whose
 *             MPI_Mrecv receives nothing
 */
#include <mpi.h>
#include <stdio.h>

static int check(int rank, const char *what, int got, int want)
{
    if (got == want)
        return 0;
    printf("rank %d: %s: %d, not %d\n", rank, what, got, want);
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int ib[8] = { 0 }, ob[8];
    double db[8] = { 0 }, dob[8];
    for (int i = 0; i < 8; i++) {
        ob[i] = 100 * rank + i;
        dob[i] = rank + 0.5 * i;
    }
    MPI_Message msg;
    MPI_Status st, pst;
    MPI_Request rq;
    int flag = 0, count = 0;

    /* mprobe */
    MPI_Send(ob, 3, MPI_INT, next, 21, MPI_COMM_WORLD);
    MPI_Mprobe(prev, 21, MPI_COMM_WORLD, &msg, &pst);
    MPI_Get_count(&pst, MPI_INT, &count);
    bad += check(rank, "mprobe count", count, 3);
    MPI_Mrecv(ib, 3, MPI_INT, &msg, &st);
    bad += check(rank, "mrecv source", st.MPI_SOURCE, prev) + check(rank, "mrecv", ib[2], 100 * prev + 2);

    /* any */
    MPI_Send(dob, 5, MPI_DOUBLE, next, 22, MPI_COMM_WORLD);
    MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
    MPI_Mrecv(db, 5, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);
    bad += check(rank, "any", (int)(2 * db[4]), 2 * prev + 4);

    /* improbe */
    MPI_Send(ob, 7, MPI_INT, next, 23, MPI_COMM_WORLD);
    while (!flag)
        MPI_Improbe(prev, 23, MPI_COMM_WORLD, &flag, &msg, &pst);
    MPI_Imrecv(ib, 7, MPI_INT, &msg, &rq);
    MPI_Wait(&rq, &st);
    bad += check(rank, "imrecv tag", st.MPI_TAG, 23) + check(rank, "imrecv", ib[6], 100 * prev + 6);

    /* split */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
    int rrank;
    MPI_Comm_rank(rev, &rrank);
    MPI_Send(ob, 2, MPI_INT, (rrank + 1) % size, 24, rev);
    MPI_Mprobe(MPI_ANY_SOURCE, 24, rev, &msg, &pst);
    MPI_Imrecv(ib, 2, MPI_INT, &msg, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    bad += check(rank, "split", ib[1], 100 * next + 1);
    MPI_Comm_free(&rev);

    /* procnull */
    MPI_Mprobe(MPI_PROC_NULL, 25, MPI_COMM_WORLD, &msg, &pst);
    bad += check(rank, "no proc", msg == MPI_MESSAGE_NO_PROC, 1);
    MPI_Mrecv(ib, 4, MPI_INT, &msg, &st);
    bad += check(rank, "no proc source", st.MPI_SOURCE, MPI_PROC_NULL);

    printf("rank %d: %s\n", rank, bad ? "wrong" : "matched as sent");
    MPI_Finalize();
    return bad != 0;
}
