/*
 * prog_otf2.c - the MPI program of tests/otf2: 4 ranks (any even number
 * works), each with two extra threads, whose every message, collective
 * and call is known in advance to check_otf2.py, so the OTF2 archive
 * `scope export --to otf2` makes of its profile can be checked record by
 * record:
 *   - on the main thread: outer() calling inner() 3 times; a ring of
 *     blocking sends and receives (tag 7); nonblocking ones completed by
 *     MPI_Waitall (tag 9) and by MPI_Wait (tag 10); MPI_Sendrecv (tag 3);
 *     MPI_Bcast (root 1), MPI_Reduce (root 2), MPI_Allreduce,
 *     MPI_Gather (root 0), MPI_Barrier; a split into even and odd ranks
 *     with a message to the other member (tag 5) and an MPI_Allreduce on
 *     it; persistent requests started by MPI_Start and MPI_Startall (tag
 *     91); a receive from MPI_ANY_SOURCE/MPI_ANY_TAG (tag 12); a send to
 *     MPI_PROC_NULL; a freed MPI_Isend (tag 51); a cancelled MPI_Irecv;
 *     an intercommunicator between the halves (a message, tag 71, and a
 *     broadcast from world rank 0); jumper(), left by
 *     longjmp (its end is inferred: unwound);
 *   - on each extra thread: thread_work() calling leaf() 5 times.
 */
#include <mpi.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile int sink;
static jmp_buf jb;

NOINLINE void inner(int k)
{
    for (int i = 0; i < 1000 * (k + 1); i++)
        sink += i;
}

NOINLINE void outer(void)
{
    for (int k = 0; k < 3; k++)
        inner(k);
}

NOINLINE void leaf(int k)
{
    for (int i = 0; i < 500 * (k + 1); i++)
        sink += i;
}

NOINLINE void thread_work(void)
{
    for (int k = 0; k < 5; k++)
        leaf(k);
}

NOINLINE void jumper(void)
{
    sink++;
    longjmp(jb, 1);
}

static void *thread_main(void *arg)
{
    (void)arg;
    thread_work();
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, r, n;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int nxt = (r + 1) % n, prv = (r + n - 1) % n;
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, thread_main, NULL);

    outer();

    /* ring of blocking calls: 4 * (r + 1) ints to the next rank */
    int sbuf[64] = { 0 }, rbuf[64];
    if (r % 2 == 0) {
        MPI_Send(sbuf, 4 * (r + 1), MPI_INT, nxt, 7, MPI_COMM_WORLD);
        MPI_Recv(rbuf, 64, MPI_INT, prv, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rbuf, 64, MPI_INT, prv, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, 4 * (r + 1), MPI_INT, nxt, 7, MPI_COMM_WORLD);
    }

    /* nonblocking, completed by one MPI_Waitall: 2 ints */
    MPI_Request rq[2];
    int ib[2] = { r, r }, ob[2];
    MPI_Irecv(ob, 2, MPI_INT, prv, 9, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(ib, 2, MPI_INT, nxt, 9, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);

    /* nonblocking, each completed by an MPI_Wait: 3 doubles */
    double db[3] = { 1, 2, 3 }, dr[3];
    MPI_Irecv(dr, 3, MPI_DOUBLE, prv, 10, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(db, 3, MPI_DOUBLE, nxt, 10, MPI_COMM_WORLD, &rq[1]);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);

    /* sendrecv: 5 ints to the next, from the previous */
    MPI_Sendrecv(sbuf, 5, MPI_INT, nxt, 3, rbuf, 5, MPI_INT, prv, 3,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    long big[8] = { 0 }, bigr[8 * 64];
    MPI_Bcast(big, 8, MPI_LONG, 1, MPI_COMM_WORLD);
    MPI_Reduce(big, bigr, 4, MPI_LONG, MPI_SUM, 2, MPI_COMM_WORLD);
    MPI_Allreduce(big, bigr, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Gather(big, 1, MPI_LONG, bigr, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);

    /* persistent requests: each started by MPI_Start, then both by
     * MPI_Startall: 2 ints to the next rank, tag 91 */
    MPI_Request pr[2];
    MPI_Recv_init(ob, 2, MPI_INT, prv, 91, MPI_COMM_WORLD, &pr[0]);
    MPI_Send_init(ib, 2, MPI_INT, nxt, 91, MPI_COMM_WORLD, &pr[1]);
    MPI_Start(&pr[0]);
    MPI_Start(&pr[1]);
    MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
    MPI_Startall(2, pr);
    MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);

    /* a receive from any source with any tag (every earlier message has
     * arrived, so it can only be the previous rank's tag 12) */
    MPI_Irecv(ob, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
    MPI_Send(ib, 1, MPI_INT, nxt, 12, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);

    /* a send to nobody; a send whose request is freed (no completion
     * follows it); a receive cancelled before anything matched it */
    MPI_Send(ib, 1, MPI_INT, MPI_PROC_NULL, 13, MPI_COMM_WORLD);
    MPI_Isend(ib, 1, MPI_INT, nxt, 51, MPI_COMM_WORLD, &rq[1]);
    MPI_Request_free(&rq[1]);
    MPI_Recv(ob, 1, MPI_INT, prv, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Irecv(ob, 1, MPI_INT, prv, 99, MPI_COMM_WORLD, &rq[0]);
    MPI_Cancel(&rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);

    /* even and odd ranks; in each, rank k of the split is world 2k + r%2 */
    MPI_Comm half;
    int hr, hn;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    if (hn > 1) {
        int other = (hr + 1) % hn, from = (hr + hn - 1) % hn;
        MPI_Sendrecv(sbuf, 6, MPI_INT, other, 5, rbuf, 6, MPI_INT, from, 5, half,
                     MPI_STATUS_IGNORE);
    }
    MPI_Allreduce(big, bigr, 1, MPI_LONG, MPI_SUM, half);
    /* the two halves joined by an intercommunicator: one int from each
     * even rank to the odd rank of the same index; then 5 ints broadcast
     * from world rank 0 (MPI_ROOT; the other even ranks pass
     * MPI_PROC_NULL) to the odd ranks (root 0 of their remote group).
     * The export writes no MPI records for them (docs/export.md). */
    MPI_Comm inter;
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, r % 2 ? 0 : 1, 77, &inter);
    if (r % 2 == 0)
        MPI_Send(ib, 1, MPI_INT, hr, 71, inter);
    else
        MPI_Recv(ob, 1, MPI_INT, hr, 71, inter, MPI_STATUS_IGNORE);
    MPI_Bcast(sbuf, 5, MPI_INT, r % 2 ? 0 : r == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    if (!setjmp(jb))
        jumper();

    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    printf("rank %d done\n", r);
    MPI_Finalize();
    return 0;
}
