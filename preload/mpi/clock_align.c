/*
 * clock_align.c - measures each host's clock against rank 0's host, at
 * MPI_Init and at MPI_Finalize, so that the converter can put every rank's
 * timestamps on one timeline (docs/clocks.md).
 *
 * Why this way:
 * - Private communicators carry every message: whatever the application
 *   posts (MPI_ANY_SOURCE/MPI_ANY_TAG on MPI_COMM_WORLD included) can never
 *   match one of ours. They are the host split and the leaders' split,
 *   both made from MPI_COMM_WORLD directly: a duplicate of it first cost
 *   one more communicator creation, a collective over every rank, and no
 *   message of ours ever travels on MPI_COMM_WORLD. Only collectives do
 *   (the splits, the settling barrier), and only inside MPI_Init and
 *   MPI_Finalize, where the application can have none in flight.
 * - One rank per host measures (the lowest rank of each
 *   MPI_COMM_TYPE_SHARED split); the ranks of a host read one clock, so
 *   they take the leader's result by a broadcast on the host communicator.
 * - The host leaders form a tree (fan-out 16, SCOPE_CLOCK_FANOUT): each
 *   ping-pongs with its parent (Cristian's method): the exchange with the
 *   smallest round trip wins; offset = the parent's clock read when it
 *   answered minus the local clock at the middle of that round trip, and
 *   the true offset is within half the round trip of it (the parent read
 *   its clock somewhere inside the round trip). Offsets to rank 0 and
 *   their bounds add up along the path.
 * - A parent answers all its children at once, so up to 16 hosts cost
 *   about one edge's time, and 10,000 hosts four levels of it
 *   (docs/clocks.md).
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
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sched.h>
#include <time.h>

#include "clock.h"
#include "mpi_abi.h"
#include "pmpi.h"
#include "log.h"
#include "log.h"
#include "scope_internal.h"
#include "settings.h"

/* Round trips per edge of the tree: at MPI_Init a WARMUP first
 * (connection set-up, cold caches; at MPI_Finalize the connection exists
 * and the first round trip counts), then until one was as short as
 * GOOD_RTT_NS (near loopback's floor: a bound of 20 us or less, no point
 * in more), or at least MIN_ROUNDS were made and: the shortest stopped
 * improving by more than a tenth (STALE_ROUNDS without such an
 * improvement) and is under FAIR_RTT_NS; or FAIR_EDGE_NS were spent with
 * one under FAIR_RTT_NS (when cores are short, round trips scatter and
 * the minimum keeps improving a little: more rounds buy little); or
 * MAX_ROUNDS; or MAX_EDGE_NS spent with one under POOR_RTT_NS; or
 * LAST_EDGE_NS spent. On a busy machine (ranks waiting for a core, round
 * trips of milliseconds) one exchange where both sides happened to run
 * at once is all it takes, so while the bound is poor more tries are
 * worth it, but not without end. The bound is half the kept round trip
 * whatever the number of rounds: stopping early costs precision, never
 * honesty. */
#define WARMUP 1
#define MIN_ROUNDS 2
#define STALE_ROUNDS 2
#define MAX_ROUNDS 100
#define GOOD_RTT_NS 40000
#define FAIR_RTT_NS 1000000
#define POOR_RTT_NS 1500000
#define FAIR_EDGE_NS 2000000
#define MAX_EDGE_NS 20000000
#define LAST_EDGE_NS 200000000
/* Children per parent in the tree of host leaders: a parent answers all
 * its children at once, so a level costs about one edge's time when the
 * parent's link is not the bottleneck; 16 keeps 10,000 hosts at depth 4
 * (docs/clocks.md). SCOPE_CLOCK_FANOUT (tests, bench) sets it, 1 to 64: its
 * default and bounds are the settings table's (base/settings_table.c); the
 * arrays below are sized for the bound. */
#define MAX_FANOUT 64
#define TAG_PING 1
#define TAG_PONG 2
#define TAG_RESULT 3
#define IDLE_SLEEP_NS 20000 /* between polls while waiting: the first */
#define IDLE_MAX_NS 1000000 /* sleeps double up to this */
#define SETTLE_MAX_NS 4000000 /* in scope__clock_align_settle: see there */
#define SETTLE_SLEEP_NS 50000000 /* at init, then it polls yielding the core */
#define SPIN_NS 2000000     /* polling before sleeping, in an exchange */

typedef scope__mpi_handle handle;

/* What a host's leader measured, as broadcast to the host's ranks. */
enum { B_HOST, B_HOSTS, B_LOCAL, B_OFFSET, B_ERROR, B_RTT, B_WORST, B_COST, B_ROUNDS, B_LEN };

static struct {
    int ready;                  /* the init step completed: comms exist */
    const scope__mpi_abi *abi;
    const struct scope__pmpi *pm; /* ibarrier optional: scope__clock_align_settle */
    int comms;                  /* host, leaders exist until release */
    handle host, leaders;       /* leaders: comm_null on non-leaders */
    int host_rank, leader_rank, n_leaders;
    int fanout;        /* children per parent in the leaders' tree */
    int64_t n_hosts;   /* hosts in the run, known to every rank after init */
} A;

/* Looks up every PMPI function used here. Returns 0, or -1 when one is
 * missing (then nobody aligns: the library is the same on every rank). */
static int resolve(void)
{
    A.abi = scope__mpi_abi_get();
    A.pm = scope__pmpi();
    if (!A.abi || !A.pm->comm_split_type || !A.pm->comm_split || !A.pm->comm_rank ||
        !A.pm->comm_size || !A.pm->send || !A.pm->comm_free || !A.pm->ibcast ||
        !A.pm->irecv || !A.pm->test)
        return -1;
    return 0;
}

/* SCOPE_CLOCK_FANOUT: a whole number 1..MAX_FANOUT, else the default, said
 * once by rank 0.
 * Every rank reads the same environment (the launcher passes it on), so
 * every leader builds the same tree. */
static int read_fanout(void)
{
    char then[32];
    snprintf(then, sizeof then, "using %s", scope__setting_def(SCOPE_SET_CLOCK_FANOUT)->dflt);
    if (scope__launcher_rank() <= 0)
        scope__setting_say(SCOPE_SET_CLOCK_FANOUT, then);
    uint64_t k = scope__setting_u(SCOPE_SET_CLOCK_FANOUT);
    return k > MAX_FANOUT ? MAX_FANOUT : (int)k;
}

/* Sleeps *ns, the pause between polls once spinning is over, and doubles
 * it up to IDLE_MAX_NS for the next time. Growing: the ranks that only
 * wait (a host's other ranks, for the whole step; leaders, for their
 * turn) must not wake every 20 us for milliseconds: with 16 ranks per
 * core each wake-up (and Open MPI's sched_yield in the poll when it
 * yields when idle) takes the core from the two leaders being timed. A
 * waiter learns the result at most IDLE_MAX_NS late. */
static void idle_pause(long *ns, long max_ns)
{
    struct timespec ts = { 0, *ns };
    nanosleep(&ts, NULL);
    if (*ns < max_ns)
        *ns = *ns * 2 > max_ns ? max_ns : *ns * 2;
}

/* Waits for a request: polls for spin_ns, yielding the core between
 * polls, then polls with short sleeps instead of MPI's busy polling.
 * While a leader waits for its turn (and the host's other ranks wait for
 * the result, spin_ns 0), its spinning would, on a machine with fewer
 * cores than ranks, delay the very messages being timed. In the exchange
 * itself (spin_ns > 0) a quiet machine answers while we poll (a yield
 * with nothing else to run returns at once); on a busy one the yield
 * hands the core to whoever must run for the answer to come (the peer,
 * the kernel's network work) instead of keeping it to the end of our
 * time slice, and a process that sleeps is woken promptly by the
 * scheduler when its turn comes. With yield_after_ns > 0, polls yielding
 * again once that long has passed (wait_settle says why). Returns 0 or an
 * MPI error code. */
static int wait_req_max(handle req, int64_t spin_ns, long max_pause_ns, int64_t yield_after_ns)
{
    req = scope__mpi_handle_out(A.abi, req);
    int timed = spin_ns > 0 || yield_after_ns > 0;
    int64_t t0 = timed ? scope__mono_ns() : 0;
    long pause_ns = IDLE_SLEEP_NS;
    for (;;) {
        int done = 0;
        int rc = A.pm->test(&req, &done, A.abi->status_ignore);
        if (rc != 0 || done)
            return rc;
        int64_t spent = timed ? scope__mono_ns() - t0 : 0;
        if (spent < spin_ns || (yield_after_ns > 0 && spent >= yield_after_ns))
            sched_yield();
        else
            idle_pause(&pause_ns, max_pause_ns);
    }
}

static int wait_req(handle req, int64_t spin_ns)
{
    return wait_req_max(req, spin_ns, IDLE_MAX_NS, 0);
}

/* Receives n int64 from `peer` on the leaders' communicator, spinning
 * for spin_ns first (see wait_req). Returns 0 or an MPI error code. */
static int recv_leader(int64_t *buf, int n, int peer, int tag, int64_t spin_ns)
{
    handle req = 0;
    int rc = A.pm->irecv(buf, n, A.abi->dt_int64, peer, tag, A.leaders, &req);
    return rc != 0 ? rc : wait_req(req, spin_ns);
}

/* A parent's side of the tree step: answers the pings of its children
 * leaders first..first+n-1, all at once, with {its clock read when the
 * ping arrived, `arrived`}, until every child said it is done (ping[0] =
 * 0, then ping[1] = the child's edge bound, ping[2] = the worst path
 * bound below the child, ping[3] = when the last leader of the child's
 * subtree entered the step, on our clock). *worst = the worst path bound
 * below this leader; *latest = when the last leader of this subtree
 * (this one included: `arrived`) entered the step. Returns 0 or an MPI
 * error code. */
static int serve_children(int first, int n, int64_t arrived, int64_t *worst, int64_t *latest)
{
    const scope__mpi_abi *abi = A.abi;
    int64_t ping[MAX_FANOUT][4];
    handle req[MAX_FANOUT];
    int live[MAX_FANOUT];
    *worst = 0;
    *latest = arrived;
    for (int c = 0; c < n; c++) {
        req[c] = 0;
        int rc = A.pm->irecv(ping[c], 4, abi->dt_int64, first + c, TAG_PING, A.leaders, &req[c]);
        if (rc != 0)
            return rc;
        req[c] = scope__mpi_handle_out(abi, req[c]);
        live[c] = 1;
    }
    int active = n;
    int64_t last = 0; /* last ping: spin for SPIN_NS after it */
    while (active > 0) {
        int any = 0;
        for (int c = 0; c < n; c++) {
            if (!live[c])
                continue;
            int done = 0;
            int rc = A.pm->test(&req[c], &done, abi->status_ignore);
            if (rc != 0)
                return rc;
            if (!done)
                continue;
            int64_t now = scope__mono_ns();
            any = 1;
            last = now;
            if (ping[c][0] == 0) {
                if (ping[c][1] + ping[c][2] > *worst)
                    *worst = ping[c][1] + ping[c][2];
                if (ping[c][3] > *latest)
                    *latest = ping[c][3];
                live[c] = 0;
                active--;
                continue;
            }
            int64_t pong[2] = { now, arrived };
            rc = A.pm->send(pong, 2, abi->dt_int64, first + c, TAG_PONG, A.leaders);
            req[c] = 0;
            if (rc == 0)
                rc = A.pm->irecv(ping[c], 4, abi->dt_int64, first + c, TAG_PING, A.leaders, &req[c]);
            if (rc != 0)
                return rc;
            req[c] = scope__mpi_handle_out(abi, req[c]);
        }
        /* short sleeps, not growing ones: a child's first ping waits for
         * this one to wake, and that wait counts in the cost */
        if (!any && scope__mono_ns() - (last ? last : arrived) >= SPIN_NS)
            idle_pause(&(long){ IDLE_SLEEP_NS }, IDLE_MAX_NS);
        else if (!any)
            sched_yield();
    }
    return 0;
}

/* A child's side: ping-pongs with its parent leader and keeps the
 * tightest exchange: b[B_LOCAL] its middle, b[B_OFFSET] the parent's
 * clock minus ours there, b[B_ERROR] half its round trip (rounded up: a
 * bound), b[B_RTT] the round trip; b[B_COST] = the time from when both
 * sides had entered the step to the end (the wait for a late parent is
 * the application's imbalance, not alignment: the parent's entry time,
 * on its clock, is put on ours with the offset just measured). Then
 * tells the parent it is done, with that bound, `worst_below` and
 * `latest` (this subtree's last entry into the step, on our clock) put
 * on the parent's clock. Returns 0 or an MPI error code. */
static int measure_edge(int parent, int warmup, int64_t worst_below, int64_t latest, int64_t *b)
{
    const scope__mpi_abi *abi = A.abi;
    int64_t best = INT64_MAX, start = scope__mono_ns(), parent_in = 0;
    int last_better = 0;
    for (int i = 0;; i++) {
        if (best <= GOOD_RTT_NS ||
            (i >= warmup + MIN_ROUNDS &&
             ((i - last_better >= STALE_ROUNDS && best <= FAIR_RTT_NS) ||
              (scope__mono_ns() - start >= FAIR_EDGE_NS && best <= FAIR_RTT_NS) ||
              i >= warmup + MAX_ROUNDS ||
              (scope__mono_ns() - start >= MAX_EDGE_NS && best <= POOR_RTT_NS) ||
              scope__mono_ns() - start >= LAST_EDGE_NS)))
            break;
        int64_t ping[4] = { 1, 0, 0, 0 }, pong[2] = { 0, 0 };
        int64_t t1 = scope__mono_ns();
        int rc = A.pm->send(ping, 4, abi->dt_int64, parent, TAG_PING, A.leaders);
        if (rc == 0)
            rc = recv_leader(pong, 2, parent, TAG_PONG, SPIN_NS);
        int64_t t2 = scope__mono_ns();
        if (rc != 0)
            return rc;
        if (i >= warmup && t2 - t1 < best) {
            /* stable = no improvement by more than a tenth lately */
            if (best == INT64_MAX || (t2 - t1) < best - best / 10)
                last_better = i;
            best = t2 - t1;
            int64_t mid = t1 + (t2 - t1) / 2;
            b[B_LOCAL] = mid;
            b[B_OFFSET] = pong[0] - mid;
            b[B_ERROR] = (t2 - t1 + 1) / 2;
            b[B_RTT] = t2 - t1;
        }
        parent_in = pong[1];
        b[B_ROUNDS] = i + 1;
    }
    int64_t both_in = parent_in - b[B_OFFSET];
    b[B_COST] = scope__mono_ns() - (both_in > start ? both_in : start);
    int64_t done[4] = { 0, b[B_ERROR], worst_below, latest + b[B_OFFSET] };
    return A.pm->send(done, 4, abi->dt_int64, parent, TAG_PING, A.leaders);
}

/* A host leader's part of one measurement: the leaders form a tree
 * (leader i's parent is (i - 1) / fanout). Bottom-up, each leader first
 * answers its children (all at once), then measures its own clock against
 * its parent's; a parent thus waits for its subtree, never the reverse.
 * Top-down, rank 0 sends (offset 0, bound 0, worst bound) and each leader
 * adds its edge to its parent's offset and bound (offsets compose along
 * the path, and so do their bounds) before passing them on. Fills b[].
 * b[B_COST]: on rank 0, the whole step from when the last leader entered
 * it (entry times travel up the tree, each put on the parent's clock) to
 * the end; elsewhere, the edge's cost (measure_edge). Returns 0 or an
 * MPI error code. */
static int measure_tree(int warmup, int64_t *b)
{
    const scope__mpi_abi *abi = A.abi;
    int me = A.leader_rank, k = A.fanout;
    int first = me * k + 1;
    int n = first >= A.n_leaders ? 0 : (A.n_leaders - first < k ? A.n_leaders - first : k);
    int64_t worst = 0, latest = 0, up[3] = { 0, 0, 0 };
    int rc = serve_children(first, n, scope__mono_ns(), &worst, &latest);
    if (rc != 0)
        return rc;
    if (me == 0) {
        b[B_LOCAL] = scope__mono_ns(); /* the reference: offset 0, exact */
        up[2] = worst;
    } else {
        int parent = (me - 1) / k;
        rc = measure_edge(parent, warmup, worst, latest, b);
        if (rc == 0)
            rc = recv_leader(up, 3, parent, TAG_RESULT, 0);
        if (rc != 0)
            return rc;
        b[B_OFFSET] += up[0];
        b[B_ERROR] += up[1];
    }
    b[B_WORST] = up[2];
    int64_t down[3] = { b[B_OFFSET], b[B_ERROR], b[B_WORST] };
    for (int c = 0; c < n && rc == 0; c++)
        rc = A.pm->send(down, 3, abi->dt_int64, first + c, TAG_RESULT, A.leaders);
    if (me == 0)
        b[B_COST] = n > 0 ? scope__mono_ns() - latest : 0;
    return rc;
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
        rc = measure_tree(strcmp(when, "init") == 0 ? WARMUP : 0, b);
    }
    if (rc == 0)
        rc = A.pm->ibcast(b, B_LEN, abi->dt_int64, 0, A.host, &req);
    if (rc == 0)
        rc = wait_req(req, 0);
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
    scope__preload_log("clock at %s: host %lld of %lld, offset %lld ns, within %lld ns "
                       "(%lld round trips, %lld ns spent)",
                       when, (long long)b[B_HOST], (long long)b[B_HOSTS], (long long)b[B_OFFSET],
                       (long long)b[B_ERROR], (long long)b[B_ROUNDS], (long long)cost);
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
    handle host = 0, leaders = 0;
    int world_rank = 0;
    /* key = world rank: the host's lowest rank leads, rank 0 leads its host
     * and is rank 0 among the leaders */
    if (A.pm->comm_rank(abi->comm_world, &world_rank) != 0 ||
        A.pm->comm_split_type(abi->comm_world, abi->comm_type_shared, world_rank, abi->info_null,
                          &host) != 0)
        return;
    host = scope__mpi_handle_out(abi, host);
    if (A.pm->comm_rank(host, &A.host_rank) != 0)
        goto fail_split;
    if (A.pm->comm_split(abi->comm_world, A.host_rank == 0 ? 0 : abi->undefined, world_rank,
                     &leaders) != 0)
        goto fail_split;
    leaders = scope__mpi_handle_out(abi, leaders);
    A.host = host;
    A.fanout = read_fanout();
    A.leaders = leaders;
    A.comms = 1;
    if (A.host_rank == 0 &&
        (A.pm->comm_rank(leaders, &A.leader_rank) != 0 || A.pm->comm_size(leaders, &A.n_leaders) != 0))
        return; /* MPI errors are fatal by default; keep the comms */
    A.ready = 1;
    measure("init");
    return;

fail_split:
    A.pm->comm_free(&host);
}

void scope__clock_align_finalize(void)
{
    if (!A.ready)
        return;
    A.ready = 0;
    measure("finalize");
}

int scope__clock_align_wait(handle req, long max_pause_ns)
{
    return wait_req_max(req, 0, max_pause_ns, 0);
}

/* The settle's wait (clock_align.h): asleep between polls, pauses
 * growing to SETTLE_MAX_NS; with `then_yield`, only for the first
 * SETTLE_SLEEP_NS (the last leaders may still be measuring: ~20-30 ms for
 * 4 simulated hosts), then polling with sched_yield. The barrier makes
 * progress only while its ranks poll, and the ranks it has released go
 * on: at init into the application's MPI calls, where with more ranks
 * than cores they spin. A rank still asleep in the barrier then got a
 * core a few times a second, and each of the barrier's rounds waited for
 * it: at 64 ranks on 2 cores the last ranks left it 1 to 3 s after the
 * first in 5 runs of 22, never in 22 runs yielding (bench/README.md). At
 * finalize the released ranks wait asleep in MPI_Finalize's own fence,
 * and the host writers may still run: there the waiters keep sleeping
 * (yielding, one run of 22 stalled 2.6 s there). Returns 0 or an MPI
 * error code. */
static int wait_settle(handle req, int then_yield)
{
    return wait_req_max(req, 0, SETTLE_MAX_NS, then_yield ? SETTLE_SLEEP_NS : 0);
}

void scope__clock_align_settle(int then_yield)
{
    if (!A.comms || !A.pm->ibarrier)
        return;
    handle req = 0;
    int saved_errno = errno;
    if (A.pm->ibarrier(A.abi->comm_world, &req) == 0)
        wait_settle(req, then_yield);
    errno = saved_errno;
}

int scope__clock_align_comms(handle *host, handle *leaders, int *host_rank, int64_t *n_hosts)
{
    if (!A.comms || A.n_hosts < 1)
        return -1;
    *host = A.host;
    *leaders = A.leaders;
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
        A.pm->comm_free(&A.leaders);
    A.pm->comm_free(&A.host);
}
