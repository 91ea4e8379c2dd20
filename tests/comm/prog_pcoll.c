/*
 * prog_pcoll.c - the C program of check_pcoll.py: persistent collectives
 * under both MPIs. MPI 4 libraries (MPICH 4.0) have MPI_Bcast_init &
 * co; Open MPI 4.1 has them as the extension MPIX_Bcast_init & co
 * (<mpi-ext.h>, OMPI_HAVE_MPI_EXT_PCOLLREQ), with the same arguments: the
 * program is the same under both, only the names differ.
 *
 * 4 ranks, on MPI_COMM_WORLD, four persistent collectives, two of each
 * direction to a root that is not rank 0:
 *   - a broadcast of 5 doubles from rank 2;
 *   - an allreduce of 3 ints (MPI_SUM, a send buffer of its own);
 *   - a reduce of 2 ints (MPI_SUM) to rank 1;
 *   - a scatterv from rank 3 of rank + 1 ints to each rank;
 * each made once and started 10 times with MPI_Start, each start
 * completed by MPI_Wait; then all four started together with
 * MPI_Startall and completed by MPI_Waitall; then the reduce alone with
 * MPI_Startall and MPI_Wait. Then two collectives without a root:
 *   - an alltoall of 2 ints to each rank;
 *   - an allgather of 3 ints;
 * each started once with MPI_Start and MPI_Wait (MPICH 4.0.2's persistent
 * allgather, started a second time, delivers only the rank's own block);
 * then the broadcast and
 * the reduce started together with a persistent send of 6 ints to rank
 * + 1 and its receive from rank - 1 (tag 5) by one MPI_Startall,
 * completed by one MPI_Waitall; then all freed with MPI_Request_free.
 * Every start has new values, checked after its completion; each rank
 * prints "rank R: ok" or what was wrong.
 */
#include <mpi.h>
#include <stdio.h>

#if MPI_VERSION >= 4
#define BCAST_INIT MPI_Bcast_init
#define ALLREDUCE_INIT MPI_Allreduce_init
#define REDUCE_INIT MPI_Reduce_init
#define SCATTERV_INIT MPI_Scatterv_init
#define ALLTOALL_INIT MPI_Alltoall_init
#define ALLGATHER_INIT MPI_Allgather_init
#else
#include <mpi-ext.h>
#ifndef OMPI_HAVE_MPI_EXT_PCOLLREQ
#error "neither MPI 4 nor Open MPI's persistent collectives extension"
#endif
#define BCAST_INIT MPIX_Bcast_init
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define REDUCE_INIT MPIX_Reduce_init
#define SCATTERV_INIT MPIX_Scatterv_init
#define ALLTOALL_INIT MPIX_Alltoall_init
#define ALLGATHER_INIT MPIX_Allgather_init
#endif

#define N 4
static double bc[5];
static int in[3], sum[3], rin[2], rsum[2], sv[10], part[N];
static const int counts[N] = { 1, 2, 3, 4 }, displs[N] = { 0, 1, 3, 6 };
static int a2s[2 * N], a2r[2 * N], ags[3], agr[3 * N], ps[6], pr[6];

/* Fills the buffers for round k (the roots' values, each rank's
 * contributions). */
static void fill(int rank, int k)
{
    for (int i = 0; i < 5; i++)
        bc[i] = rank == 2 ? 100.0 * k + i : -1.0;
    for (int i = 0; i < 3; i++) {
        in[i] = (rank + 1) * (k + i);
        sum[i] = -1;
    }
    for (int i = 0; i < 2; i++) {
        rin[i] = (rank + 1) * (k + 2 * i);
        rsum[i] = -1;
    }
    for (int i = 0; i < 10; i++)
        sv[i] = rank == 3 ? 1000 * k + i : -1;
    for (int i = 0; i < N; i++)
        part[i] = -1;
}

/* The number of wrong values after round k on a communicator of n ranks;
 * `all`: every collective ran, else only the reduce. */
static int wrong(int rank, int n, int k, int all)
{
    int bad = 0;
    for (int i = 0; all && i < 5; i++)
        bad += bc[i] != 100.0 * k + i;
    for (int i = 0; all && i < 3; i++)
        bad += sum[i] != n * (n + 1) / 2 * (k + i);
    for (int i = 0; rank == 1 && i < 2; i++)
        bad += rsum[i] != n * (n + 1) / 2 * (k + 2 * i);
    for (int i = 0; all && i <= rank; i++)
        bad += part[i] != 1000 * k + displs[rank] + i;
    return bad;
}

/* Round k of the collectives without a root: fills, or counts what is
 * wrong after (`check`). */
static int unrooted(int rank, int k, int check)
{
    int bad = 0;
    for (int i = 0; i < 2 * N; i++) {
        if (!check) {
            a2s[i] = 1000 * k + 100 * rank + i;
            a2r[i] = -1;
        } else {    /* block i / 2 came from rank i / 2, its block for me */
            bad += a2r[i] != 1000 * k + 100 * (i / 2) + 2 * rank + i % 2;
        }
    }
    for (int i = 0; i < 3 * N; i++) {
        if (!check && i < 3)
            ags[i] = 1000 * k + 10 * rank + i;
        if (!check)
            agr[i] = -1;
        else
            bad += agr[i] != 1000 * k + 10 * (i / 3) + i % 3;
    }
    return bad;
}

/* The persistent send's values for round k, or what is wrong with the
 * receive's (`check`: it came from rank - 1). */
static int p2p(int rank, int k, int check)
{
    int bad = 0;
    for (int i = 0; i < 6; i++) {
        if (!check) {
            ps[i] = 100 * k + 7 * rank + i;
            pr[i] = -1;
        } else {
            bad += pr[i] != 100 * k + 7 * ((rank + N - 1) % N) + i;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    int rank, n, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n != N) {
        printf("rank %d: needs %d ranks, not %d\n", rank, N, n);
        MPI_Finalize();
        return 1;
    }
    MPI_Request r[8];
    BCAST_INIT(bc, 5, MPI_DOUBLE, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    ALLREDUCE_INIT(in, sum, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    REDUCE_INIT(rin, rsum, 2, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
    SCATTERV_INIT(sv, counts, displs, MPI_INT, part, rank + 1, MPI_INT, 3, MPI_COMM_WORLD,
                  MPI_INFO_NULL, &r[3]);
    ALLTOALL_INIT(a2s, 2, MPI_INT, a2r, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[4]);
    ALLGATHER_INIT(ags, 3, MPI_INT, agr, 3, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[5]);
    MPI_Send_init(ps, 6, MPI_INT, (rank + 1) % N, 5, MPI_COMM_WORLD, &r[6]);
    MPI_Recv_init(pr, 6, MPI_INT, (rank + N - 1) % N, 5, MPI_COMM_WORLD, &r[7]);
    for (int k = 0; k < 10; k++) {
        fill(rank, k);
        for (int j = 0; j < 4; j++) {
            MPI_Start(&r[j]);
            MPI_Wait(&r[j], MPI_STATUS_IGNORE);
        }
        bad += wrong(rank, n, k, 1);
    }
    fill(rank, 10);
    MPI_Startall(4, r);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    bad += wrong(rank, n, 10, 1);
    fill(rank, 11);
    MPI_Startall(1, &r[2]);
    MPI_Wait(&r[2], MPI_STATUS_IGNORE);
    bad += wrong(rank, n, 11, 0);
    unrooted(rank, 1, 0);
    MPI_Start(&r[4]);
    MPI_Wait(&r[4], MPI_STATUS_IGNORE);
    MPI_Start(&r[5]);
    MPI_Wait(&r[5], MPI_STATUS_IGNORE);
    bad += unrooted(rank, 1, 1);
    /* two rooted collectives and a send and its receive, started together */
    MPI_Request mix[4] = { r[0], r[2], r[6], r[7] };
    fill(rank, 12);
    p2p(rank, 12, 0);
    MPI_Startall(4, mix);
    MPI_Waitall(4, mix, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 5; i++)
        bad += bc[i] != 100.0 * 12 + i;
    for (int i = 0; rank == 1 && i < 2; i++)
        bad += rsum[i] != n * (n + 1) / 2 * (12 + 2 * i);
    bad += p2p(rank, 12, 1);
    for (int j = 0; j < 8; j++)
        MPI_Request_free(&r[j]);
    if (bad)
        printf("rank %d: %d wrong values\n", rank, bad);
    else
        printf("rank %d: ok\n", rank);
    MPI_Finalize();
    return 0;
}
