/*
 * prog_comm.c - MPI traffic whose bytes, partners and tags are known by
 * hand, for check_comm.py: every value the profile must hold follows from
 * the rank and the size alone (the formulas are repeated in the check).
 *
 *   ring       MPI_Send to rank+1 of (rank+1)*100 ints, tag 7; MPI_Recv from
 *              rank-1 with MPI_STATUS_IGNORE (the capture substitutes its
 *              own status: source and size must still come out)
 *   any        MPI_Recv from MPI_ANY_SOURCE/MPI_ANY_TAG of rank 0's
 *              messages: 10*r doubles with tag 100+r from every rank r > 0
 *   alltoallv  rank i sends (i+1)*(j+1) ints to rank j
 *   gatherv    root 1 (non-zero), rank r sends r+1 doubles
 *   scatter    root size-1, 3 ints to each rank
 *   sendrecv   a 1-D halo: 5 doubles to rank+1, from rank-1, tag 3
 *   isend      MPI_Isend of 4 bytes (MPI_BYTE) to rank+1, MPI_Irecv from
 *              rank-1, completed by MPI_Waitall
 *   bcast      root 0, 16 ints; allreduce 2 doubles; barrier
 *   split      MPI_Comm_split with reversed keys, an MPI_Send of 1 int to
 *              the split rank 0 from every other member: partners must be
 *              world ranks
 *   vector     a vector type of 3 blocks of 2 ints (24 bytes) sent once
 *   proc_null  MPI_Send to MPI_PROC_NULL: no bytes, no partner
 *   requests   an MPI_Irecv from MPI_ANY_SOURCE/ANY_TAG (2 ints, tag 61,
 *              from rank-1) completed by MPI_Waitany with
 *              MPI_STATUS_IGNORE; two receives (3 and 4 ints, tags 31, 32)
 *              by MPI_Waitsome with MPI_STATUSES_IGNORE; one (5 ints, tag
 *              41) by MPI_Testall in a loop; an MPI_Isend of 6 ints (tag
 *              51) freed with MPI_Request_free, received by MPI_Recv; a
 *              receive (tag 99) cancelled and waited for
 *   persistent MPI_Recv_init/MPI_Send_init of 2 ints (tag 91, from rank-1,
 *              to rank+1), started with MPI_Startall 10 times and with
 *              MPI_Start 3 times, each completed by MPI_Waitall; then a
 *              barrier
 *   inter      an intercommunicator of the even and odd ranks: a send of 1
 *              int (tag 71) from the even side's local rank k to the odd
 *              side's k, and a broadcast of 5 ints from the even side's
 *              local rank 0 (MPI_ROOT) to the odd side
 *   dup        MPI_Comm_dup of MPI_COMM_WORLD: a Sendrecv of 1 double,
 *              tag 81, to rank+1 from rank-1
 *   large      (MPI 4 libraries: MPICH) MPI_Send_c/MPI_Recv_c of rank+1
 *              doubles to rank+1, tag 21; MPI_Allreduce_c of 3 ints
 *   bad type   MPI_Send with MPI_DATATYPE_NULL under MPI_ERRORS_RETURN:
 *              the error code is printed, the call recorded, no data
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int *ibuf = calloc(100000, sizeof *ibuf);
    double *dbuf = calloc(100000, sizeof *dbuf);

    /* ring: even ranks send first */
    int n_ring = (rank + 1) * 100, n_prev = (prev + 1) * 100;
    if (rank % 2 == 0) {
        MPI_Send(ibuf, n_ring, MPI_INT, next, 7, MPI_COMM_WORLD);
        MPI_Recv(ibuf, n_prev, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(ibuf, n_prev, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(ibuf, n_ring, MPI_INT, next, 7, MPI_COMM_WORLD);
    }

    /* any source: rank 0 receives from everybody else */
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            MPI_Status st;
            MPI_Recv(dbuf, 100000, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        }
    } else {
        MPI_Send(dbuf, 10 * rank, MPI_DOUBLE, 0, 100 + rank, MPI_COMM_WORLD);
    }

    /* alltoallv */
    int *sc = malloc(size * sizeof *sc), *sd = malloc(size * sizeof *sd);
    int *rc = malloc(size * sizeof *rc), *rd = malloc(size * sizeof *rd);
    for (int j = 0, so = 0, ro = 0; j < size; j++) {
        sc[j] = (rank + 1) * (j + 1);
        rc[j] = (j + 1) * (rank + 1);
        sd[j] = so;
        rd[j] = ro;
        so += sc[j];
        ro += rc[j];
    }
    MPI_Alltoallv(ibuf, sc, sd, MPI_INT, ibuf + 50000, rc, rd, MPI_INT, MPI_COMM_WORLD);

    /* gatherv, root 1 */
    for (int j = 0, o = 0; j < size; j++) {
        rc[j] = j + 1;
        rd[j] = o;
        o += rc[j];
    }
    MPI_Gatherv(dbuf, rank + 1, MPI_DOUBLE, dbuf + 50000, rc, rd, MPI_DOUBLE, 1, MPI_COMM_WORLD);

    /* scatter, root size-1 */
    MPI_Scatter(ibuf, 3, MPI_INT, ibuf + 90000, 3, MPI_INT, size - 1, MPI_COMM_WORLD);

    /* sendrecv halo, non-periodic */
    int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    MPI_Sendrecv(dbuf, 5, MPI_DOUBLE, up, 3, dbuf + 10, 5, MPI_DOUBLE, down, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);

    /* isend / irecv / waitall */
    MPI_Request req[2];
    MPI_Status sts[2];
    char cb[8];
    MPI_Irecv(cb, 4, MPI_BYTE, prev, 9, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(cb + 4, 4, MPI_BYTE, next, 9, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, sts);

    MPI_Bcast(ibuf, 16, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, dbuf, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);

    /* split with reversed keys: split rank 0 is world rank size-1 */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    int rr;
    MPI_Comm_rank(rev, &rr);
    if (rr == 0) {
        for (int i = 1; i < size; i++)
            MPI_Recv(ibuf, 1, MPI_INT, i, 5, rev, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(ibuf, 1, MPI_INT, 0, 5, rev);
    }
    MPI_Comm_free(&rev);

    /* a derived type: 3 blocks of 2 ints, stride 4 */
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    if (rank == 0)
        MPI_Send(ibuf, 1, vec, 1, 11, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(ibuf, 1, vec, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&vec);

    MPI_Send(ibuf, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);

    /* requests followed to their completion */
    int rb[64], sb[64] = { 0 };
    MPI_Request rq[4];
    int idx, done = 0, flag = 0;
    MPI_Irecv(rb, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(sb, 2, MPI_INT, next, 61, MPI_COMM_WORLD, &rq[1]);
    for (int i = 0; i < 2; i++)
        MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
    MPI_Irecv(rb, 3, MPI_INT, prev, 31, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(rb + 3, 4, MPI_INT, prev, 32, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(sb, 3, MPI_INT, next, 31, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(sb + 3, 4, MPI_INT, next, 32, MPI_COMM_WORLD, &rq[3]);
    while (done < 4) {
        int out, ind[4];
        MPI_Waitsome(4, rq, &out, ind, MPI_STATUSES_IGNORE);
        done += out;
    }
    MPI_Irecv(rb, 5, MPI_INT, prev, 41, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(sb, 5, MPI_INT, next, 41, MPI_COMM_WORLD, &rq[1]);
    while (!flag)
        MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE);
    MPI_Isend(sb, 6, MPI_INT, next, 51, MPI_COMM_WORLD, &rq[0]);
    MPI_Request_free(&rq[0]);
    MPI_Recv(rb, 6, MPI_INT, prev, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Status cst;
    MPI_Irecv(rb, 1, MPI_INT, prev, 99, MPI_COMM_WORLD, &rq[0]);
    MPI_Cancel(&rq[0]);
    MPI_Wait(&rq[0], &cst);

    /* persistent requests: 2 ints to rank+1 from rank-1 (tag 91), started
     * together 10 times, then one by one 3 times, then freed */
    MPI_Request pq[2];
    MPI_Status psts[2];
    MPI_Recv_init(rb, 2, MPI_INT, prev, 91, MPI_COMM_WORLD, &pq[0]);
    MPI_Send_init(sb, 2, MPI_INT, next, 91, MPI_COMM_WORLD, &pq[1]);
    for (int i = 0; i < 10; i++) {
        MPI_Startall(2, pq);
        MPI_Waitall(2, pq, psts);
    }
    for (int i = 0; i < 3; i++) {
        MPI_Start(&pq[0]);
        MPI_Start(&pq[1]);
        MPI_Waitall(2, pq, psts);
    }
    MPI_Request_free(&pq[0]);
    MPI_Request_free(&pq[1]);
    MPI_Barrier(MPI_COMM_WORLD);

    /* an intercommunicator between the even and the odd ranks: local rank
     * k of the even side sends 1 int (tag 71) to remote rank k; then the
     * even side's rank 0 broadcasts 5 ints to the odd side (MPI_ROOT; its
     * other ranks MPI_PROC_NULL) */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 70, &inter);
    int hr;
    MPI_Comm_rank(half, &hr);
    if (rank % 2 == 0)
        MPI_Send(ibuf, 1, MPI_INT, hr, 71, inter);
    else
        MPI_Recv(ibuf, 1, MPI_INT, hr, 71, inter, MPI_STATUS_IGNORE);
    MPI_Bcast(ibuf, 5, MPI_INT, rank % 2 ? 0 : (hr == 0 ? MPI_ROOT : MPI_PROC_NULL), inter);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    /* a duplicate of MPI_COMM_WORLD: 1 double to rank+1, from rank-1 */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Sendrecv(dbuf, 1, MPI_DOUBLE, next, 81, dbuf + 1, 1, MPI_DOUBLE, prev, 81, dup,
                 MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);

#if MPI_VERSION >= 4
    /* the large-count functions (MPICH 4): MPI_Count counts */
    MPI_Count big = rank + 1;
    if (rank % 2 == 0) {
        MPI_Send_c(dbuf, big, MPI_DOUBLE, next, 21, MPI_COMM_WORLD);
        MPI_Recv_c(dbuf, prev + 1, MPI_DOUBLE, prev, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv_c(dbuf, prev + 1, MPI_DOUBLE, prev, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send_c(dbuf, big, MPI_DOUBLE, next, 21, MPI_COMM_WORLD);
    }
    MPI_Allreduce_c(MPI_IN_PLACE, ibuf, (MPI_Count)3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#endif

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Send(ibuf, 1, MPI_DATATYPE_NULL, next, 1, MPI_COMM_WORLD);
    printf("rank %d bad type: %s\n", rank, err == MPI_SUCCESS ? "accepted" : "refused");

    MPI_Finalize();
    free(ibuf);
    free(dbuf);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    return 0;
}
