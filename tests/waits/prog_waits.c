/*
 * prog_waits.c - an MPI program (4 ranks) with waits built in, for
 * check_waits.py (issue 29). Each phase is closed by an MPI_Allreduce, so
 * that one phase's lateness does not leak into the next's pattern.
 *
 *   waits (default):
 *     A  rank 1 sleeps 100 ms before each of 10 MPI_Send to rank 0:
 *        ten late-sender waits of ~100 ms in rank 0's MPI_Recv, for rank 1
 *     B  rank 2 sleeps 100 ms before each of 5 MPI_Barrier: ranks 0, 1,
 *        3 wait ~100 ms at each, for rank 2
 *     C  rank 3 MPI_Ssend's 5 times to rank 2, which sleeps 100 ms before
 *        each MPI_Recv: five late-receiver waits of ~100 ms, for rank 2
 *     D  root 3 sleeps 100 ms before each of 3 MPI_Bcast: late broadcast
 *        of ~100 ms on ranks 0-2, for rank 3
 *     E  rank 1 sleeps 100 ms before each of 3 MPI_Reduce to root 0:
 *        early reduce of ~100 ms on rank 0, for rank 1
 *   C, D and E start each step with an MPI_Allreduce: a synchronous send
 *   completes when the receiver's acknowledgement arrives, which Open MPI
 *   may send only at the receiver's next MPI call, so back-to-back steps
 *   would overlap (the analysis would be right, the designed lateness not).
 *   The sleeps are long beside the scheduling delays of 4 ranks on 2
 *   cores (up to ~12 ms seen with MPICH, whose ranks poll without
 *   yielding: a late rank may be late by more or less than its sleep).
 *     F  matching only: ranks 1-3 send 2 messages each to rank 0, which
 *        receives them with MPI_ANY_SOURCE/MPI_ANY_TAG; 3 rounds of an
 *        Irecv + Isend + Waitall ring; 3 rounds of an MPI_Sendrecv ring
 *     G  rank 2 sleeps 100 ms before each of 3 MPI_Iallreduce, which every
 *        rank completes with MPI_Wait: ranks 0, 1, 3 wait ~100 ms at N x N
 *        in that MPI_Wait, for rank 2
 *     H  a ring of persistent requests (MPI_Recv_init from the previous
 *        rank, MPI_Send_init to the next, tag 50) started 3 times by one
 *        MPI_Startall each and completed by MPI_Waitall; rank 1 sleeps
 *        100 ms before each start: rank 2's MPI_Waitall waits ~100 ms,
 *        late sender rank 1
 *   kill: rank 0 sends 5 messages to rank 3, which receives 2, sends one
 *     back, and dies of SIGSEGV; ranks 0-2 then block in a barrier until
 *     the launcher ends them.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Sleeps n ms and prints how long it really slept: the lateness the
 * checker expects back (a loaded machine oversleeps). */
static void ms(char phase, int i, int n)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    usleep((useconds_t)n * 1000u);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("slept %c %d %lld\n", phase, i,
           (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
}

static void phase_end(void)
{
    int x = 1, y;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

static void waits(int rank)
{
    int x = rank, y = 0;
    MPI_Status st;
    phase_end(); /* MPI_Init returns at different times */
    for (int i = 0; i < 10; i++) { /* A */
        if (rank == 1) {
            ms('A', i, 100);
            MPI_Send(&i, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        } else if (rank == 0) {
            MPI_Recv(&y, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &st);
        }
    }
    phase_end();
    for (int i = 0; i < 5; i++) { /* B */
        if (rank == 2)
            ms('B', i, 100);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    phase_end();
    for (int i = 0; i < 5; i++) { /* C */
        phase_end(); /* each send starts afresh (below) */
        if (rank == 3) {
            MPI_Ssend(&i, 1, MPI_INT, 2, 3, MPI_COMM_WORLD);
        } else if (rank == 2) {
            ms('C', i, 100);
            MPI_Recv(&y, 1, MPI_INT, 3, 3, MPI_COMM_WORLD, &st);
        }
    }
    phase_end();
    for (int i = 0; i < 3; i++) { /* D */
        phase_end();
        if (rank == 3)
            ms('D', i, 100);
        MPI_Bcast(&x, 1, MPI_INT, 3, MPI_COMM_WORLD);
    }
    phase_end();
    for (int i = 0; i < 3; i++) { /* E */
        phase_end();
        if (rank == 1)
            ms('E', i, 100);
        MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    phase_end();
    /* F */
    if (rank == 0) {
        for (int i = 0; i < 6; i++)
            MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    } else {
        for (int i = 0; i < 2; i++)
            MPI_Send(&x, 1, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD);
    }
    /* before the ring: rank 0's MPI_ANY_TAG receives would take rank 3's
     * ring message otherwise, and the ring would wait for ever */
    phase_end();
    int size = 4, nxt = (rank + 1) % size, prv = (rank + size - 1) % size;
    for (int i = 0; i < 3; i++) {
        MPI_Request rq[2];
        MPI_Irecv(&y, 1, MPI_INT, prv, 20, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(&x, 1, MPI_INT, nxt, 20, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    for (int i = 0; i < 3; i++)
        MPI_Sendrecv(&x, 1, MPI_INT, nxt, 30, &y, 1, MPI_INT, prv, 30, MPI_COMM_WORLD, &st);
    phase_end();
    for (int i = 0; i < 3; i++) { /* G */
        MPI_Request rq;
        phase_end();
        if (rank == 2)
            ms('G', i, 100);
        MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    phase_end();
    MPI_Request pr[2]; /* H */
    MPI_Recv_init(&y, 1, MPI_INT, prv, 50, MPI_COMM_WORLD, &pr[0]);
    MPI_Send_init(&x, 1, MPI_INT, nxt, 50, MPI_COMM_WORLD, &pr[1]);
    for (int i = 0; i < 3; i++) {
        phase_end();
        if (rank == 1)
            ms('H', i, 100);
        MPI_Startall(2, pr);
        MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);
    phase_end();
    printf("rank %d done\n", rank);
}

static void die(int rank)
{
    int x = rank, y = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < 5; i++)
            MPI_Send(&x, 1, MPI_INT, 3, 40, MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_INT, 3, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 3) {
        for (int i = 0; i < 2; i++)
            MPI_Recv(&y, 1, MPI_INT, 0, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 0, 41, MPI_COMM_WORLD);
        printf("rank 3 dies\n");
        fflush(stdout);
        sleep(1); /* the message reaches rank 0 first */
        raise(SIGSEGV);
    }
    printf("rank %d waits to be ended\n", rank);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "prog_waits: run with 4 ranks\n");
        MPI_Finalize();
        return 2;
    }
    if (argc > 1 && strcmp(argv[1], "kill") == 0)
        die(rank);
    else
        waits(rank);
    MPI_Finalize();
    return 0;
}
