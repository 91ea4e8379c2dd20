/*
 * prog_pcoll.c - the C program of check_pcoll.py: persistent collectives
 * under both MPIs. MPI 4 libraries (MPICH 4.0) have MPI_Bcast_init &
 * co; Open MPI 4.1 has them as the extension MPIX_Bcast_init & co
 * (<mpi-ext.h>, OMPI_HAVE_MPI_EXT_PCOLLREQ), with the same arguments: the
 * program is the same under both, only the names differ.
 *
 * 4 ranks, on MPI_COMM_WORLD:
 *   - a broadcast of 5 doubles from rank 2 and an allreduce of 3 ints
 *     (MPI_SUM, a send buffer of its own), each made once and started 10
 *     times with MPI_Start, each start completed by MPI_Wait;
 *   - both started once more together with MPI_Startall, completed by
 *     MPI_Waitall; then both freed with MPI_Request_free.
 * Every start has new values, checked after its completion; each rank
 * prints "rank R: ok" or what was wrong.
 */
#include <mpi.h>
#include <stdio.h>

#if MPI_VERSION >= 4
#define BCAST_INIT MPI_Bcast_init
#define ALLREDUCE_INIT MPI_Allreduce_init
#else
#include <mpi-ext.h>
#ifndef OMPI_HAVE_MPI_EXT_PCOLLREQ
#error "neither MPI 4 nor Open MPI's persistent collectives extension"
#endif
#define BCAST_INIT MPIX_Bcast_init
#define ALLREDUCE_INIT MPIX_Allreduce_init
#endif

static double bc[5];
static int in[3], sum[3];

/* Fills the buffers for round k (the root's broadcast values, each rank's
 * allreduce contribution). */
static void fill(int rank, int k)
{
    for (int i = 0; i < 5; i++)
        bc[i] = rank == 2 ? 100.0 * k + i : -1.0;
    for (int i = 0; i < 3; i++) {
        in[i] = (rank + 1) * (k + i);
        sum[i] = -1;
    }
}

/* The number of wrong values after round k on a communicator of n ranks. */
static int wrong(int n, int k)
{
    int bad = 0;
    for (int i = 0; i < 5; i++)
        bad += bc[i] != 100.0 * k + i;
    for (int i = 0; i < 3; i++)
        bad += sum[i] != n * (n + 1) / 2 * (k + i);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, n, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Request r[2];
    BCAST_INIT(bc, 5, MPI_DOUBLE, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    ALLREDUCE_INIT(in, sum, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    for (int k = 0; k < 10; k++) {
        fill(rank, k);
        MPI_Start(&r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Start(&r[1]);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        bad += wrong(n, k);
    }
    fill(rank, 10);
    MPI_Startall(2, r);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    bad += wrong(n, 10);
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    if (bad)
        printf("rank %d: %d wrong values\n", rank, bad);
    else
        printf("rank %d: ok\n", rank);
    MPI_Finalize();
    return 0;
}
