/*
 * scope-demo.c - the small MPI application the README's first command
 * profiles (tools/demo.sh): a few phases of different cost, with a load
 * imbalance between ranks, so the first `scope summary` has something to
 * show.
 *
 *   setup_grid       cheap, the same on every rank
 *   compute_step     the main kernel; rank r does (r + 1) units of work,
 *                    so the last rank is the slowest
 *   exchange_halo    MPI_Sendrecv with both neighbours on a ring
 *   reduce_residual  MPI_Allreduce: here the fast ranks wait for the slow
 *   write_checkpoint local work, rank r does (size - r) units: the
 *                    imbalance reversed, with no collective after it, so
 *                    ranks reach MPI_Finalize at different times
 *
 * The phase functions are named in tools/demo/demo.conf; they are noinline
 * so that each stays one function in the binary. Prints one line per rank
 * ("rank r: residual x") and exits with 0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define N 4096          /* points per rank */
#define STEPS 20        /* iterations of the main loop */
#define UNIT 3000       /* sweeps of the grid per unit of work */

static double grid[N + 2], next[N + 2];

__attribute__((noinline)) void setup_grid(int rank)
{
    for (int i = 0; i < N + 2; i++)
        grid[i] = sin((double)(i + rank * N) * 1e-3);
}

/* One relaxation sweep, repeated `units` * UNIT times. */
__attribute__((noinline)) void compute_step(int units)
{
    for (int u = 0; u < units * UNIT; u++) {
        for (int i = 1; i <= N; i++)
            next[i] = 0.5 * grid[i] + 0.25 * (grid[i - 1] + grid[i + 1]);
        for (int i = 1; i <= N; i++)
            grid[i] = next[i];
    }
}

__attribute__((noinline)) void exchange_halo(int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Sendrecv(&grid[N], 1, MPI_DOUBLE, right, 0, &grid[0], 1, MPI_DOUBLE, left, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&grid[1], 1, MPI_DOUBLE, left, 1, &grid[N + 1], 1, MPI_DOUBLE, right, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) double reduce_residual(void)
{
    double local = 0, global = 0;
    for (int i = 1; i <= N; i++)
        local += fabs(grid[i] - 0.5 * (grid[i - 1] + grid[i + 1]));
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

__attribute__((noinline)) double write_checkpoint(int units)
{
    double sum = 0;
    for (int u = 0; u < units * UNIT * 4; u++)
        for (int i = 1; i <= N; i++)
            sum += grid[i] * 1e-9;
    return sum;
}

int main(int argc, char **argv)
{
    int rank, size;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    setup_grid(rank);
    double residual = 0;
    for (int step = 0; step < STEPS; step++) {
        compute_step(rank + 1);
        exchange_halo(rank, size);
        residual = reduce_residual();
    }
    double check = write_checkpoint(size - rank);
    printf("rank %d: residual %.6g (checksum %.3g)\n", rank, residual, check);
    MPI_Finalize();
    return 0;
}
