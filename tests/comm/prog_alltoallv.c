/*
 * prog_alltoallv.c - all-to-all collectives with per-member counts whose
 * every block is known by hand, for check_alltoallv.py (issue 44 item 2:
 * a rank's row of the collective matrix is exactly what it sent the
 * others). 4 ranks:
 *
 *   pairs    MPI_Comm_split into {0, 1} and {2, 3}; MPI_Alltoallv of
 *            MPI_BYTE on it: the lower rank sends 1 B to itself and 3 B to
 *            the other, the upper 2 B to itself and 5 B to the other
 *   world    MPI_Alltoallv of MPI_INT on MPI_COMM_WORLD: rank r sends
 *            3r + k + 1 ints to rank k (uneven, its own block included);
 *            then the same as MPI_Ialltoallv completed by MPI_Wait
 *   typed    MPI_Alltoallw on MPI_COMM_WORLD: rank r sends k + 1 elements
 *            to rank k, MPI_INT to an even k and MPI_DOUBLE to an odd one
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            printf("needs 4 ranks\n");
        MPI_Finalize();
        return 1;
    }
    static char sb[4096], rb[4096];
    int sc[4], rc[4], sd[4], rd[4];

    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair);
    int lower = rank % 2 == 0;
    sc[0] = lower ? 1 : 5;      /* to pair rank 0 */
    sc[1] = lower ? 3 : 2;      /* to pair rank 1 */
    rc[0] = lower ? 1 : 3;      /* what pair rank 0 sends me */
    rc[1] = lower ? 5 : 2;
    sd[0] = 0, sd[1] = 16, rd[0] = 0, rd[1] = 16;
    MPI_Alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, pair);
    MPI_Comm_free(&pair);

    for (int k = 0; k < 4; k++) {
        sc[k] = 3 * rank + k + 1;
        rc[k] = 3 * k + rank + 1;
        sd[k] = rd[k] = 64 * k;
    }
    MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
    MPI_Request rq;
    MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);

    MPI_Datatype st[4], rt[4];
    for (int k = 0; k < 4; k++) {
        sc[k] = k + 1;
        st[k] = k % 2 ? MPI_DOUBLE : MPI_INT;
        rc[k] = rank + 1;
        rt[k] = rank % 2 ? MPI_DOUBLE : MPI_INT;
        sd[k] = rd[k] = 512 * k;    /* bytes */
    }
    MPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD);

    printf("rank %d: done\n", rank);
    MPI_Finalize();
    return 0;
}
