/*
 * prog_comms.c - MPI programs whose communicators the OTF2 export must
 * define right (check_otf2_comms.py), one per mode:
 *
 *   dup    (2 ranks) MPI_Comm_dup of the world, MPI_Barrier on the dup,
 *          then on the world: the first communicator used is not the world
 *   order  (4 ranks) communicators made and first used in an order of the
 *          program's own: a reversed split of the world, a split of that
 *          into halves (even and odd world ranks), a dup of the halves;
 *          a barrier on the dup, an allreduce on the halves, a broadcast
 *          from rank 0 of the reversed one (world rank 3), a ring of
 *          sends on the dup, and the world last
 *   nbc    (4 ranks) nonblocking collectives: MPI_Iallreduce on the world,
 *          MPI_Ibcast from world rank 2, MPI_Ibarrier on the halves, each
 *          completed by MPI_Wait
 *   inter  (4 ranks) two dups of the world used in turn (the second
 *          first), an intercommunicator between the even and odd halves,
 *          a message from each even rank to its odd partner over it, and
 *          a barrier on the world
 *
 * Each rank prints "rank R done".
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void dup_mode(void)
{
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Barrier(d);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&d);
}

static void order_mode(int rank, int size)
{
    MPI_Comm rev, half, half2;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    MPI_Comm_split(rev, rank % 2, rank, &half);
    MPI_Comm_dup(half, &half2);
    MPI_Barrier(half2);
    int v = rank, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, half);
    MPI_Bcast(&v, 1, MPI_INT, 0, rev);
    int hr, hs;
    MPI_Comm_rank(half2, &hr);
    MPI_Comm_size(half2, &hs);
    int to = (hr + 1) % hs, from = (hr + hs - 1) % hs, got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, to, 7, &got, 1, MPI_INT, from, 7, half2, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&half2);
    MPI_Comm_free(&half);
    MPI_Comm_free(&rev);
}

static void nbc_mode(int rank)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Request rq;
    int v = rank, sum = 0;
    MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    double d[4] = { 0 };
    MPI_Ibcast(d, 4, MPI_DOUBLE, 2, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Ibarrier(half, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Comm_free(&half);
}

static void inter_mode(int rank)
{
    MPI_Comm d1, d2, half, inter;
    MPI_Comm_dup(MPI_COMM_WORLD, &d1);
    MPI_Comm_dup(MPI_COMM_WORLD, &d2);
    MPI_Barrier(d2);
    MPI_Barrier(d1);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    /* the other half's leader is world rank 1 (for the evens) or 0 */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 5, &inter);
    int hr, v = rank;
    MPI_Comm_rank(half, &hr);
    if (rank % 2 == 0)
        MPI_Send(&v, 1, MPI_INT, hr, 9, inter);
    else
        MPI_Recv(&v, 1, MPI_INT, hr, 9, inter, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Comm_free(&d2);
    MPI_Comm_free(&d1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "dup") == 0)
        dup_mode();
    else if (strcmp(mode, "order") == 0)
        order_mode(rank, size);
    else if (strcmp(mode, "nbc") == 0)
        nbc_mode(rank);
    else if (strcmp(mode, "inter") == 0)
        inter_mode(rank);
    else if (rank == 0)
        fprintf(stderr, "usage: prog_comms dup|order|nbc|inter\n");
    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
