/*
 * hosts_prog.c - the workload of the simulated-hosts tests (check_hosts.py):
 * ranks that do different amounts of work between K barriers, then a ring
 * of point-to-point messages, so that the aligned file can be checked
 * against what MPI guarantees about order: nobody leaves barrier k before
 * the last rank entered it, and a receive never ends before the matching
 * send started.
 *
 *   hosts_prog K UNIT_US ROUNDS [CRASH_RANK]
 *
 * Between barriers rank r spins ((r + k) % size) * UNIT_US microseconds;
 * in ring round i rank r spins r * UNIT_US / 4, then sends one int to
 * r + 1 (tag i) and receives from r - 1 (tag i): exactly ROUNDS MPI_Send
 * and ROUNDS MPI_Recv calls per rank, the i-th send of rank r matching the
 * i-th receive of rank r + 1. Prints "rank R host H" per rank. Exits 0.
 * With CRASH_RANK, that rank kills itself with SIGKILL after the barriers
 * (the others then wait in the ring until mpirun ends them): nobody
 * reaches MPI_Finalize.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

static void spin_us(long us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    int k_max = argc > 1 ? atoi(argv[1]) : 5;
    long unit = argc > 2 ? atol(argv[2]) : 2000;
    int rounds = argc > 3 ? atoi(argv[3]) : 5;
    int crash = argc > 4 ? atoi(argv[4]) : -1;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int k = 0; k < k_max; k++) {
        spin_us(((rank + k) % size) * unit);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == crash)
        raise(SIGKILL);
    for (int i = 0; i < rounds; i++) {
        int out = rank * 1000 + i, in = -1;
        spin_us(rank * unit / 4);
        MPI_Send(&out, 1, MPI_INT, (rank + 1) % size, i, MPI_COMM_WORLD);
        MPI_Recv(&in, 1, MPI_INT, (rank + size - 1) % size, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in != ((rank + size - 1) % size) * 1000 + i)
            return 2;
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    printf("rank %d host %s\n", rank, host);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
