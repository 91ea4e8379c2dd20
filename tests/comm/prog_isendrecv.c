/*
 * prog_isendrecv.c - MPI 4's nonblocking send-receive (MPI_Isendrecv,
 * MPI_Isendrecv_replace), for check_isendrecv.py. MPICH 4.0 has them,
 * Open MPI 4.1 does not: the program looks the symbol up (dlsym), so that
 * it builds against either mpi.h, and without it says
 * "MPI_Isendrecv: none" and does nothing more. Every value follows from
 * the rank alone (the formulas are repeated in the check). 4 ranks;
 * next = rank+1, prev = rank-1 (mod 4). Each completion is given a
 * status, and each rank writes the statuses it got into
 * isendrecv_status_<rank>.txt ("K source tag bytes" a line, K in the order
 * below), not on stdout: MPICH 4.0 completes these requests with another
 * receive's status (not this one's: the bytes, source and tag of some
 * earlier receive of the process, the preload's own at MPI_Init
 * included), which the check then compares what the capture read with.
 *
 *   ring      MPI_Isendrecv: 4 ints to next (tag 31), 4 from prev (tag 31),
 *             MPI_Wait with a status
 *   any       MPI_Isendrecv: 2 ints to next (tag 32), up to 4 from
 *             MPI_ANY_SOURCE/MPI_ANY_TAG, MPI_Wait: source and size from
 *             the status
 *   replace   MPI_Isendrecv_replace of 3 doubles, to next and from prev
 *             (tag 33), MPI_Wait
 *   halves    two MPI_Isendrecv of 1 int, tag 34: one sends to next and
 *             receives from MPI_PROC_NULL, the other sends to MPI_PROC_NULL
 *             and receives from prev; both completed by one MPI_Waitall
 *             (statuses 3 and 4)
 *   split     a communicator split with reversed keys: MPI_Isendrecv of 1
 *             int to its rank + 1 (world rank prev) from its rank - 1
 *             (world rank next), tag 35, MPI_Wait
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

typedef int (*isendrecv_fn)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype,
                            int, int, MPI_Comm, MPI_Request *);
typedef int (*isendrecv_replace_fn)(void *, int, MPI_Datatype, int, int, int, int, MPI_Comm,
                                    MPI_Request *);

/* Writes status k (what the completion said) to the rank's file. */
static void keep(FILE *f, int k, const MPI_Status *st)
{
    int n = 0;
    MPI_Get_count(st, MPI_BYTE, &n);
    fprintf(f, "%d %d %d %d\n", k, st->MPI_SOURCE, st->MPI_TAG, n);
}

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
    isendrecv_fn isendrecv = (isendrecv_fn)dlsym(RTLD_DEFAULT, "MPI_Isendrecv");
    isendrecv_replace_fn isendrecv_replace =
        (isendrecv_replace_fn)dlsym(RTLD_DEFAULT, "MPI_Isendrecv_replace");
    if (!isendrecv || !isendrecv_replace) {
        if (rank == 0)
            printf("MPI_Isendrecv: none\n");
        MPI_Finalize();
        return 0;
    }
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int ib[8] = { 0 }, ob[8];
    double db[4];
    for (int i = 0; i < 8; i++)
        ob[i] = 100 * rank + i;
    for (int i = 0; i < 4; i++)
        db[i] = rank + 0.25 * i;
    MPI_Request rq[2];
    MPI_Status st, sts[2];
    char name[64];
    snprintf(name, sizeof name, "isendrecv_status_%d.txt", rank);
    FILE *f = fopen(name, "w");
    if (!f) {
        printf("rank %d: cannot write %s\n", rank, name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* ring */
    isendrecv(ob, 4, MPI_INT, next, 31, ib, 4, MPI_INT, prev, 31, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], &st);
    keep(f, 0, &st);
    bad += check(rank, "ring", ib[3], 100 * prev + 3);

    /* any */
    isendrecv(ob, 2, MPI_INT, next, 32, ib, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
              &rq[0]);
    MPI_Wait(&rq[0], &st);
    keep(f, 1, &st);
    bad += check(rank, "any", ib[1], 100 * prev + 1);

    /* replace */
    isendrecv_replace(db, 3, MPI_DOUBLE, next, 33, prev, 33, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], &st);
    keep(f, 2, &st);
    bad += check(rank, "replace", (int)(4 * db[2]), 4 * prev + 2);

    /* halves */
    isendrecv(ob, 1, MPI_INT, next, 34, ib, 1, MPI_INT, MPI_PROC_NULL, 34, MPI_COMM_WORLD, &rq[0]);
    isendrecv(ob, 1, MPI_INT, MPI_PROC_NULL, 34, ib + 1, 1, MPI_INT, prev, 34, MPI_COMM_WORLD,
              &rq[1]);
    MPI_Waitall(2, rq, sts);
    keep(f, 3, &sts[0]);
    keep(f, 4, &sts[1]);
    bad += check(rank, "halves", ib[1], 100 * prev);

    /* split */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
    int rrank;
    MPI_Comm_rank(rev, &rrank);
    isendrecv(ob, 1, MPI_INT, (rrank + 1) % size, 35, ib, 1, MPI_INT, (rrank + size - 1) % size, 35,
              rev, &rq[0]);
    MPI_Wait(&rq[0], &st);
    keep(f, 5, &st);
    bad += check(rank, "split", ib[0], 100 * next);
    MPI_Comm_free(&rev);
    fclose(f);

    printf("rank %d: %s\n", rank, bad ? "wrong" : "exchanged as sent");
    MPI_Finalize();
    return bad != 0;
}
