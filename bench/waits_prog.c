/*
 * waits_prog.c - the MPI traffic bench_waits.py profiles and then matches:
 * N steps of a ring (MPI_Irecv from the left, MPI_Isend to the right,
 * MPI_Waitall), an MPI_Sendrecv the other way, and every 16 steps an
 * MPI_Allreduce: 4 point-to-point calls per step and rank, with requests.
 * Built by bench_waits.py with the MPI's wrapper compiler.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int nxt = (rank + 1) % size, prv = (rank + size - 1) % size;
    int x = rank, y = 0, z = 0;
    for (long i = 0; i < n; i++) {
        MPI_Request rq[2];
        MPI_Irecv(&y, 1, MPI_INT, prv, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(&x, 1, MPI_INT, nxt, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        MPI_Sendrecv(&x, 1, MPI_INT, prv, 2, &z, 1, MPI_INT, nxt, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (i % 16 == 15)
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
