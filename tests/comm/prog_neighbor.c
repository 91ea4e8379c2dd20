/*
 * prog_neighbor.c - collectives whose blocks differ per partner, for
 * check_neighbor.py (the formulas are repeated there). 4 ranks.
 *
 *   alltoallw   MPI_Alltoallw and MPI_Ialltoallw on MPI_COMM_WORLD: rank i
 *               sends j+1 ints to an even rank j, j+1 doubles to an odd
 *               one (so rank j receives j+1 of its type from everybody)
 *   cart        MPI_Cart_create, 1-D, 4 ranks, not periodic: rank 0's
 *               lower and rank 3's upper neighbour are MPI_PROC_NULL.
 *               MPI_Neighbor_allgather of 3 ints; MPI_Neighbor_allgatherv
 *               of 2 ints; MPI_Neighbor_alltoall of 2 doubles (and
 *               MPI_Ineighbor_alltoall); MPI_Neighbor_alltoallv of 2 ints
 *               down and 3 up; MPI_Neighbor_alltoallw of 3 ints down and
 *               1 double up
 *   dist graph  MPI_Dist_graph_create_adjacent: rank r receives from r-1
 *               and r-2, sends to r+1 and r+2 (mod 4): MPI_Neighbor_alltoall
 *               of 1 int, MPI_Neighbor_allgather of 5 ints
 *   graph       MPI_Graph_create, a ring (neighbours r-1, r+1):
 *               MPI_Neighbor_allgather of 1 double
 *   large count (MPI 4 libraries: MPICH) MPI_Neighbor_alltoallv_c as the
 *               Cartesian MPI_Neighbor_alltoallv, MPI_Alltoallw_c as
 *               MPI_Alltoallw
 *   persistent  (MPI 4 libraries: MPICH) MPI_Bcast_init of 6 ints from
 *               root 2, started 3 times with MPI_Start; MPI_Allreduce_init
 *               of 4 doubles started once; then both with MPI_Startall
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static char sbuf[4096], rbuf[4096];
    MPI_Request rq;

    int sc[4], sd[4], rc[4], rd[4];
    MPI_Datatype st[4], rt[4];
    int off = 0;
    for (int j = 0; j < size; j++) {
        sc[j] = j + 1;
        st[j] = j % 2 == 0 ? MPI_INT : MPI_DOUBLE;
        sd[j] = off;
        off += sc[j] * (j % 2 == 0 ? 4 : 8);
        rc[j] = rank + 1;
        rt[j] = rank % 2 == 0 ? MPI_INT : MPI_DOUBLE;
        rd[j] = j * (rank + 1) * (rank % 2 == 0 ? 4 : 8);
    }
    MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD);
    MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);

    MPI_Comm cart;
    int dims[1] = { size }, periods[1] = { 0 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Neighbor_allgather(sbuf, 3, MPI_INT, rbuf, 3, MPI_INT, cart);
    int gc[2] = { 2, 2 }, gd[2] = { 0, 2 };
    MPI_Neighbor_allgatherv(sbuf, 2, MPI_INT, rbuf, gc, gd, MPI_INT, cart);
    MPI_Neighbor_alltoall(sbuf, 2, MPI_DOUBLE, rbuf, 2, MPI_DOUBLE, cart);
    MPI_Ineighbor_alltoall(sbuf, 2, MPI_DOUBLE, rbuf, 2, MPI_DOUBLE, cart, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    int vsc[2] = { 2, 3 }, vsd[2] = { 0, 2 }, vrc[2] = { 3, 2 }, vrd[2] = { 0, 3 };
    MPI_Neighbor_alltoallv(sbuf, vsc, vsd, MPI_INT, rbuf, vrc, vrd, MPI_INT, cart);
    int wsc[2] = { 3, 1 }, wrc[2] = { 1, 3 };
    MPI_Aint wsd[2] = { 0, 16 }, wrd[2] = { 0, 16 };
    MPI_Datatype wst[2] = { MPI_INT, MPI_DOUBLE }, wrt[2] = { MPI_DOUBLE, MPI_INT };
    MPI_Neighbor_alltoallw(sbuf, wsc, wsd, wst, rbuf, wrc, wrd, wrt, cart);

    MPI_Comm dg;
    int srcs[2] = { (rank + size - 1) % size, (rank + size - 2) % size };
    int dsts[2] = { (rank + 1) % size, (rank + 2) % size };
    /* Open MPI's MPI_UNWEIGHTED is a sentinel address ((int *)2) that GCC
     * takes for an empty array the call reads; MPI never reads it */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED, 2, dsts,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg);
#pragma GCC diagnostic pop
    MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, dg);
    MPI_Neighbor_allgather(sbuf, 5, MPI_INT, rbuf, 5, MPI_INT, dg);

    MPI_Comm gr;
    int index[4] = { 2, 4, 6, 8 }, edges[8] = { 3, 1, 0, 2, 1, 3, 2, 0 };
    MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &gr);
    MPI_Neighbor_allgather(sbuf, 1, MPI_DOUBLE, rbuf, 1, MPI_DOUBLE, gr);

#if MPI_VERSION >= 4
    /* the large-count forms: MPI_Count counts, MPI_Aint displacements */
    MPI_Count csc[2] = { 2, 3 }, crc[2] = { 3, 2 }, wsc4[4], wrc4[4];
    MPI_Aint csd[2] = { 0, 8 }, crd[2] = { 0, 12 }, wsd4[4], wrd4[4];
    MPI_Neighbor_alltoallv_c(sbuf, csc, csd, MPI_INT, rbuf, crc, crd, MPI_INT, cart);
    for (int j = 0; j < size; j++) {
        wsc4[j] = sc[j];
        wrc4[j] = rc[j];
        wsd4[j] = sd[j];
        wrd4[j] = rd[j];
    }
    MPI_Alltoallw_c(sbuf, wsc4, wsd4, st, rbuf, wrc4, wrd4, rt, MPI_COMM_WORLD);

    MPI_Request rb, ra, both[2];
    MPI_Bcast_init(sbuf, 6, MPI_INT, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &rb);
    for (int i = 0; i < 3; i++) {
        MPI_Start(&rb);
        MPI_Wait(&rb, MPI_STATUS_IGNORE);
    }
    double in[4] = { 1, 2, 3, 4 }, sum[4];
    MPI_Allreduce_init(in, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ra);
    MPI_Start(&ra);
    MPI_Wait(&ra, MPI_STATUS_IGNORE);
    both[0] = rb;
    both[1] = ra;
    MPI_Startall(2, both);
    MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
    MPI_Request_free(&both[0]);
    MPI_Request_free(&both[1]);
#endif

    MPI_Comm_free(&gr);
    MPI_Comm_free(&dg);
    MPI_Comm_free(&cart);
    printf("done\n");
    MPI_Finalize();
    return 0;
}
