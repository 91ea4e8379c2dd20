/*
 * clock_align.c - measures each host's clock against rank 0's host, at
 * MPI_Init and at MPI_Finalize, so that the converter can put every rank's
 * timestamps on one timeline (docs/clocks.md).
 *
 * Why this way:
 * - A private communicator (PMPI_Comm_dup of MPI_COMM_WORLD) carries every
 *   message: whatever the application posts (MPI_ANY_SOURCE/MPI_ANY_TAG on
 *   MPI_COMM_WORLD included) it can never match one of ours.
 * - One rank per host measures (the lowest rank of each
 *   MPI_COMM_TYPE_SHARED split); the ranks of a host read one clock, so
 *   they take the leader's result by a broadcast on the host communicator.
 * - The host leaders ping-pong with rank 0 (Cristian's method): the
 *   exchange with the smallest round trip wins; offset = rank 0's clock
 *   read when it answered minus the local clock at the middle of that
 *   round trip, and the true offset is within half the round trip of it
 *   (rank 0 read its clock somewhere inside the round trip).
 * - Rank 0 serves the hosts one after the other: cost grows linearly with
 *   hosts (WARMUP + MIN_ROUNDS to MAX_ROUNDS round trips each).
 *   docs/clocks.md gives the tree that replaces it for thousands of hosts.
 * - The clock read is scope__mono_ns(): CLOCK_MONOTONIC, which is what the
 *   converter maps the recorder's ticks to (TSC ticks through calibration
 *   pairs read against CLOCK_MONOTONIC, runtime/clock.c), so an offset
 *   measured here applies to the recorded timestamps as they are
 *   converted. It includes SCOPE_CLOCK_DRIFT_PPM (tests).
 *
 * MPI is reached only through PMPI_* pointers looked up at run time, with
 * handles from the ABI table of mpi_abi.h: no mpi.h here. The calls are
 * made from the preload's own code, so the interposition engine does not
 * record them as the application's.
 */
#include "clock_align.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "clock.h"
#include "mpi_abi.h"
#include "preload_state.h"
#include "scope_internal.h"

/* Round trips per host: at least MIN_ROUNDS after WARMUP (connection
 * set-up, cold caches), then more while the shortest round trip keeps
 * improving (STALE_ROUNDS without a better one end it), until one was as
 * short as GOOD_RTT_NS, or MAX_ROUNDS, or MAX_HOST_NS spent. A quiet
 * network needs the minimum; on a busy machine (ranks waiting for a core)
 * one exchange where both sides happened to run at once is all it takes,
 * so a few more tries are worth it, but not without end. */
#define WARMUP 2
#define MIN_ROUNDS 10
#define STALE_ROUNDS 8
#define MAX_ROUNDS 100
#define GOOD_RTT_NS 40000
#define MAX_HOST_NS 20000000
#define TAG_PING 1
#define TAG_PONG 2
#define TAG_GO 3
#define IDLE_SLEEP_NS 20000 /* between polls while waiting */
#define SPIN_NS 100000      /* polling before sleeping, in an exchange */

typedef scope__mpi_handle handle;
typedef int (*comm_dup_fn)(handle, handle *);
typedef int (*comm_split_type_fn)(handle, int, int, handle, handle *);
typedef int (*comm_split_fn)(handle, int, int, handle *);
typedef int (*comm_query_fn)(handle, int *);
typedef int (*send_fn)(const void *, int, handle, int, int, handle);
typedef int (*comm_free_fn)(handle *);
typedef int (*ibcast_fn)(void *, int, handle, int, handle, handle *);
typedef int (*irecv_fn)(void *, int, handle, int, int, handle, handle *);
typedef int (*test_fn)(handle *, int *, void *);

/* What a host's leader measured, as broadcast to the host's ranks. */
enum { B_HOST, B_HOSTS, B_LOCAL, B_OFFSET, B_ERROR, B_RTT, B_WORST, B_COST, B_LEN };

static struct {
    int ready;                  /* the init step completed: comms exist */
    const scope__mpi_abi *abi;
    comm_dup_fn comm_dup;
    comm_split_type_fn comm_split_type;
    comm_split_fn comm_split;
    comm_query_fn comm_rank, comm_size;
    send_fn send;
    comm_free_fn comm_free;
    ibcast_fn ibcast;
    irecv_fn irecv;
    test_fn test;
    int comms;                  /* dup, host, leaders exist until release */
    handle dup, host, leaders;  /* leaders: comm_null on non-leaders */
    int host_rank, leader_rank, n_leaders;
    int64_t n_hosts;   /* hosts in the run, known to every rank after init */
} A;

/* Looks up every PMPI function used here. Returns 0, or -1 when one is
 * missing (then nobody aligns: the library is the same on every rank). */
static int resolve(void)
{
    A.abi = scope__mpi_abi_get();
    A.comm_dup = (comm_dup_fn)scope__next_symbol("PMPI_Comm_dup");
    A.comm_split_type = (comm_split_type_fn)scope__next_symbol("PMPI_Comm_split_type");
    A.comm_split = (comm_split_fn)scope__next_symbol("PMPI_Comm_split");
    A.comm_rank = (comm_query_fn)scope__next_symbol("PMPI_Comm_rank");
    A.comm_size = (comm_query_fn)scope__next_symbol("PMPI_Comm_size");
    A.send = (send_fn)scope__next_symbol("PMPI_Send");
    A.comm_free = (comm_free_fn)scope__next_symbol("PMPI_Comm_free");
    A.ibcast = (ibcast_fn)scope__next_symbol("PMPI_Ibcast");
    A.irecv = (irecv_fn)scope__next_symbol("PMPI_Irecv");
    A.test = (test_fn)scope__next_symbol("PMPI_Test");
    if (!A.abi || !A.comm_dup || !A.comm_split_type || !A.comm_split || !A.comm_rank ||
        !A.comm_size || !A.send || !A.comm_free || !A.ibcast ||
        !A.irecv || !A.test)
        return -1;
    return 0;
}

/* Waits for a request: polls for spin_ns, then polls with short sleeps
 * instead of MPI's busy polling. While one host is measured every other
 * rank of the job waits (spin_ns 0), and on a machine with fewer cores
 * than ranks their spinning would delay the very messages being timed. In
 * the exchange itself (spin_ns > 0) a quiet machine answers while we
 * spin; on a busy one, a process that sleeps is woken promptly by the
 * scheduler when its turn comes, where a spinning one waits for the end
 * of its neighbours' time slices. Returns 0 or an MPI error code. */
static int wait_req(handle req, int64_t spin_ns)
{
    req = scope__mpi_handle_out(A.abi, req);
    int64_t t0 = spin_ns > 0 ? scope__mono_ns() : 0;
    for (;;) {
        int done = 0;
        int rc = A.test(&req, &done, A.abi->status_ignore);
        if (rc != 0 || done)
            return rc;
        if (spin_ns > 0 && scope__mono_ns() - t0 < spin_ns)
            continue;
        struct timespec ts = { 0, IDLE_SLEEP_NS };
        nanosleep(&ts, NULL);
    }
}

static int wait_idle(handle req)
{
    return wait_req(req, 0);
}

/* Receives n int64 from `peer` on the leaders' communicator, spinning
 * first (see wait_req). Returns 0 or an MPI error code. */
static int recv_quick(int64_t *buf, int n, int peer, int tag)
{
    handle req = 0;
    int rc = A.irecv(buf, n, A.abi->dt_int64, peer, tag, A.leaders, &req);
    return rc != 0 ? rc : wait_req(req, SPIN_NS);
}

/* Rank 0's side for one host leader: answers each ping with its clock,
 * then takes the leader's error bound. Returns 0 or an MPI error code. */
static int serve_host(int leader, int64_t *error)
{
    const scope__mpi_abi *abi = A.abi;
    int64_t go = 0;
    int rc0 = A.send(&go, 1, abi->dt_int64, leader, TAG_GO, A.leaders);
    if (rc0 != 0)
        return rc0;
    for (;;) {
        /* ping[0]: 1 = answer me, 0 = done and ping[1] is the bound */
        int64_t ping[2], now;
        int rc = recv_quick(ping, 2, leader, TAG_PING);
        now = scope__mono_ns();
        if (rc != 0)
            return rc;
        if (ping[0] == 0) {
            *error = ping[1];
            return 0;
        }
        rc = A.send(&now, 1, abi->dt_int64, leader, TAG_PONG, A.leaders);
        if (rc != 0)
            return rc;
    }
}

/* A host leader's side: ping-pongs with rank 0 and keeps the tightest
 * exchange in b[]. Returns 0 or an MPI error code. */
static int measure_host(int64_t *b)
{
    const scope__mpi_abi *abi = A.abi;
    int64_t best = INT64_MAX, go = 0;
    handle req = 0;
    int rc0 = A.irecv(&go, 1, abi->dt_int64, 0, TAG_GO, A.leaders, &req);
    if (rc0 == 0)
        rc0 = wait_idle(req); /* our turn */
    if (rc0 != 0)
        return rc0;
    int64_t start = scope__mono_ns();
    int last_better = 0;
    for (int i = 0;; i++) {
        if (i >= WARMUP + MIN_ROUNDS &&
            (best <= GOOD_RTT_NS || i - last_better >= STALE_ROUNDS ||
             i >= WARMUP + MAX_ROUNDS || scope__mono_ns() - start >= MAX_HOST_NS))
            break;
        int64_t ping[2] = { 1, 0 }, remote = 0;
        int64_t t1 = scope__mono_ns();
        int rc = A.send(ping, 2, abi->dt_int64, 0, TAG_PING, A.leaders);
        if (rc == 0)
            rc = recv_quick(&remote, 1, 0, TAG_PONG);
        int64_t t2 = scope__mono_ns();
        if (rc != 0)
            return rc;
        if (i >= WARMUP && t2 - t1 < best) {
            best = t2 - t1;
            last_better = i;
            int64_t mid = t1 + (t2 - t1) / 2;
            b[B_LOCAL] = mid;
            b[B_OFFSET] = remote - mid;
            b[B_ERROR] = (t2 - t1 + 1) / 2; /* rounded up: a bound */
            b[B_RTT] = t2 - t1;
        }
    }
    b[B_COST] = scope__mono_ns() - start;
    int64_t done[2] = { 0, b[B_ERROR] };
    return A.send(done, 2, abi->dt_int64, 0, TAG_PING, A.leaders);
}

/* One measurement on every rank; `when` is "init" or "finalize". Stores
 * the result as journal metadata (scope.clock.<when>, runtime/
 * clock_model.h). Returns 0 or an MPI error code. */
static int measure_body(const char *when)
{
    const scope__mpi_abi *abi = A.abi;
    int64_t b[B_LEN] = {0};
    handle req = 0;
    int rc = 0;
    if (A.n_hosts == 1 && strcmp(when, "finalize") == 0) {
        /* One host (every rank learnt it at init): nothing to measure, and
         * no collective step, so a rank's file never waits for another
         * rank to reach MPI_Finalize. Offset 0, exact, as at init. */
        b[B_HOSTS] = 1;
        b[B_LOCAL] = scope__mono_ns();
        goto store;
    }
    if (A.host_rank == 0) {
        b[B_HOST] = A.leader_rank;
        b[B_HOSTS] = A.n_leaders;
        if (A.leader_rank == 0) {
            b[B_LOCAL] = scope__mono_ns(); /* the reference: offset 0, exact */
            int64_t t0 = scope__mono_ns();
            for (int h = 1; h < A.n_leaders && rc == 0; h++) {
                int64_t e = 0;
                rc = serve_host(h, &e);
                if (e > b[B_WORST])
                    b[B_WORST] = e;
            }
            b[B_COST] = scope__mono_ns() - t0; /* serving every host */
        } else {
            rc = measure_host(b);
        }
        if (rc == 0)
            rc = A.ibcast(&b[B_WORST], 1, abi->dt_int64, 0, A.leaders, &req);
        if (rc == 0)
            rc = wait_idle(req);
    }
    req = 0;
    if (rc == 0)
        rc = A.ibcast(b, B_LEN, abi->dt_int64, 0, A.host, &req);
    if (rc == 0)
        rc = wait_idle(req);
    if (rc != 0)
        return rc;
    A.n_hosts = b[B_HOSTS];
store:;
    int64_t cost = b[B_COST];
    char key[64], val[256];
    snprintf(key, sizeof key, "scope.clock.%s", when);
    snprintf(val, sizeof val, "%lld %lld %lld %lld %lld", (long long)b[B_LOCAL],
             (long long)b[B_OFFSET], (long long)b[B_ERROR], (long long)b[B_RTT],
             (long long)cost);
    scope__set_metadata(key, val);
    snprintf(val, sizeof val, "%lld %lld", (long long)b[B_HOST], (long long)b[B_HOSTS]);
    scope__set_metadata("scope.clock.host", val);
    snprintf(key, sizeof key, "scope.clock.worst_%s", when);
    snprintf(val, sizeof val, "%lld", (long long)b[B_WORST]);
    scope__set_metadata(key, val);
    scope__preload_log("clock at %s: host %lld of %lld, offset %lld ns, within %lld ns (%lld ns spent)",
                       when, (long long)b[B_HOST], (long long)b[B_HOSTS], (long long)b[B_OFFSET],
                       (long long)b[B_ERROR], (long long)cost);
    return 0;
}

static int measure(const char *when)
{
    int saved_errno = errno; /* the program must not see ours */
    /* Sleeps in wait_req end within a microsecond, not the default 50 us
     * slack (which would add to every round trip); restored below. */
    int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    int rc = measure_body(when);
    if (slack > 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
    errno = saved_errno;
    return rc;
}

void scope__clock_align_init(void)
{
    if (A.ready)
        return;
    if (resolve() < 0) {
        scope__preload_log("clock alignment: the MPI library lacks a needed function; skipped");
        return;
    }
    const scope__mpi_abi *abi = A.abi;
    handle dup = 0, host = 0, leaders = 0;
    int world_rank = 0;
    if (A.comm_dup(abi->comm_world, &dup) != 0)
        return;
    dup = scope__mpi_handle_out(abi, dup);
    /* key = world rank: the host's lowest rank leads, rank 0 leads its host
     * and is rank 0 among the leaders */
    if (A.comm_rank(dup, &world_rank) != 0 ||
        A.comm_split_type(dup, abi->comm_type_shared, world_rank, abi->info_null, &host) != 0)
        goto fail_host;
    host = scope__mpi_handle_out(abi, host);
    if (A.comm_rank(host, &A.host_rank) != 0)
        goto fail_split;
    if (A.comm_split(dup, A.host_rank == 0 ? 0 : abi->undefined, world_rank, &leaders) != 0)
        goto fail_split;
    leaders = scope__mpi_handle_out(abi, leaders);
    A.dup = dup;
    A.host = host;
    A.leaders = leaders;
    A.comms = 1;
    if (A.host_rank == 0 &&
        (A.comm_rank(leaders, &A.leader_rank) != 0 || A.comm_size(leaders, &A.n_leaders) != 0))
        return; /* MPI errors are fatal by default; keep the comms */
    A.ready = 1;
    measure("init");
    return;

fail_split:
    A.comm_free(&host);
fail_host:
    A.comm_free(&dup);
}

void scope__clock_align_finalize(void)
{
    if (!A.ready)
        return;
    A.ready = 0;
    measure("finalize");
}

int scope__clock_align_comms(handle *dup, handle *host, int *host_rank, int64_t *n_hosts)
{
    if (!A.comms || A.n_hosts < 1)
        return -1;
    *dup = A.dup;
    *host = A.host;
    *host_rank = A.host_rank;
    *n_hosts = A.n_hosts;
    return 0;
}

void scope__clock_align_release(void)
{
    if (!A.comms)
        return;
    A.comms = 0;
    if (A.host_rank == 0)
        A.comm_free(&A.leaders);
    A.comm_free(&A.host);
    A.comm_free(&A.dup);
}
