/*
 * comm_collective.c - the rank-to-rank traffic of collective calls
 * (scope_profile_comm_matrix_kind with SCOPE_COMM_COLLECTIVE), read from
 * each rank's own columns by the byte model of docs/format.md ("What MPI
 * calls moved"): a rank's columns say what its buffers held, so a pair's
 * share is exact where the model names the partner (the root of a rooted
 * collective, every member's equal block of MPI_Alltoall and
 * MPI_Allgather) and spread evenly where it does not (the per-pair counts
 * of MPI_Alltoallv and MPI_Alltoallw are not recorded; their row totals
 * stay exact). Reductions over all members (MPI_Allreduce,
 * MPI_Reduce_scatter, scans), barriers, neighbourhood collectives and
 * intercommunicators have no pairwise meaning here and are left out.
 * An MPI_Start (or MPI_Startall of one request) of a rooted persistent
 * collective names its root as the blocking call does, but not which
 * collective it started: the member's own bytes say the direction (a
 * member other than the root only receives from it in MPI_Bcast and
 * MPI_Scatter(v), only sends to it in MPI_Gather(v) and MPI_Reduce), so
 * its share is the blocking call's.
 *
 * Apart from comm.c because it is the only part of the matrices that
 * needs the communicators' members.
 */
#include <string.h>
#include <strings.h>

#include "reader_internal.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"

enum shape {
    NOT_PAIRWISE = 0,   /* not a collective */
    NO_PAIRS,       /* a collective the model names no pair of: reductions
                       to all, scans, barriers, neighbourhood collectives
                       (many partners, no partner column) */
    ONE_TO_ALL,     /* Bcast, Scatter(v): the root to each other member */
    ALL_TO_ONE,     /* Gather(v), Reduce: each other member to the root */
    ALL_EQUAL,      /* Alltoall: one equal block to each member */
    ALL_SAME,       /* Allgather(v): the rank's one block to each member */
    ALL_SPREAD,     /* Alltoallv, Alltoallw: spread evenly (counts not recorded) */
    STARTED,        /* MPI_Start(all): a rooted persistent collective's start */
};

/* The shape of a collective region by its name: MPI_<Op>, its
 * nonblocking MPI_I<op> and their large-count _c forms; MPI_Start(all),
 * which may have started a persistent collective. */
static enum shape shape_of(const char *name)
{
    static const struct {
        const char *op;
        enum shape s;
    } t[] = {
        { "Bcast", ONE_TO_ALL }, { "Scatter", ONE_TO_ALL }, { "Scatterv", ONE_TO_ALL },
        { "Gather", ALL_TO_ONE }, { "Gatherv", ALL_TO_ONE }, { "Reduce", ALL_TO_ONE },
        { "Alltoall", ALL_EQUAL }, { "Allgather", ALL_SAME }, { "Allgatherv", ALL_SAME },
        { "Alltoallv", ALL_SPREAD }, { "Alltoallw", ALL_SPREAD },
        { "Start", STARTED }, { "Startall", STARTED },
        { "Allreduce", NO_PAIRS }, { "Reduce_scatter", NO_PAIRS },
        { "Reduce_scatter_block", NO_PAIRS }, { "Scan", NO_PAIRS }, { "Exscan", NO_PAIRS },
        { "Barrier", NO_PAIRS }, { "Neighbor_allgather", NO_PAIRS },
        { "Neighbor_allgatherv", NO_PAIRS }, { "Neighbor_alltoall", NO_PAIRS },
        { "Neighbor_alltoallv", NO_PAIRS }, { "Neighbor_alltoallw", NO_PAIRS },
    };
    const char *s;
    size_t n;
    if (!scope__mpi_op_name(name, &s, &n))
        return NOT_PAIRWISE;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < sizeof t / sizeof *t; i++)
            if (strlen(t[i].op) == n && (!pass || t[i].s != STARTED) &&
                (pass ? strncasecmp(s, t[i].op, n) : strncmp(s, t[i].op, n)) == 0)
                return t[i].s;
        if (pass || n < 2 || s[0] != 'I')
            break;
        s++, n--;   /* MPI_Ibcast: "bcast" after the I */
    }
    return NOT_PAIRWISE;
}

static int pairwise(enum shape s)
{
    return s != NOT_PAIRWISE && s != NO_PAIRS;
}

int scope_region_is_collective_pairwise(const char *name)
{
    return pairwise(shape_of(name));
}

int scope_region_is_collective(const char *name)
{
    enum shape s = shape_of(name);
    return s != NOT_PAIRWISE && s != STARTED;
}

/* Calls f(ctx, from, to, bytes) for each pairwise share of one call of
 * `rank` (shape `sh`, its columns at i, its communicator's members). */
static void shares(enum shape sh, int rank, const scope_moved *mv, int64_t i,
                   const int32_t *members, int32_t m,
                   void (*f)(void *ctx, int s, int d, int64_t bytes), void *ctx)
{
    int32_t root = mv->dest[i] >= 0 ? mv->dest[i] : mv->source[i];
    switch (sh) {
    case ONE_TO_ALL:
        if (root >= 0 && root != rank && mv->bytes_received[i] > 0)
            f(ctx, root, rank, mv->bytes_received[i]);
        return;
    case ALL_TO_ONE:
        if (root >= 0 && root != rank && mv->bytes_sent[i] > 0)
            f(ctx, rank, root, mv->bytes_sent[i]);
        return;
    case ALL_EQUAL:
    case ALL_SPREAD:
        if (m <= 0 || mv->bytes_sent[i] <= 0)
            return;
        for (int32_t k = 0; k < m; k++)
            if (members[k] != rank)
                f(ctx, rank, members[k], mv->bytes_sent[i] / m);
        return;
    case ALL_SAME:
        if (mv->bytes_sent[i] <= 0)
            return;
        for (int32_t k = 0; k < m; k++)
            if (members[k] != rank)
                f(ctx, rank, members[k], mv->bytes_sent[i]);
        return;
    case STARTED:
        /* a tag: a point-to-point request; no root: a collective without
         * one, or several requests started together (no partner) */
        if (mv->tag[i] != SCOPE_NO_TAG_VALUE || root < 0 || root == rank)
            return;
        if (mv->bytes_received[i] > 0)
            f(ctx, root, rank, mv->bytes_received[i]);
        else if (mv->bytes_sent[i] > 0)
            f(ctx, rank, root, mv->bytes_sent[i]);
        return;
    default:
        return;
    }
}

int scope__each_collective_share(scope_profile *p, int region, int rank,
                                 void (*f)(void *ctx, int s, int d, int64_t bytes), void *ctx)
{
    int nreg = scope_profile_region_count(p);
    if (region != SCOPE_COMM_ALL_REGIONS && (region < 0 || region >= nreg))
        return scope__fail(SCOPE_ENOTFOUND, "no region %d", region);
    for (int r = 0; r < nreg; r++) {
        enum shape sh = region == SCOPE_COMM_ALL_REGIONS || r == region
                            ? shape_of(scope_profile_region_name(p, r)) : NOT_PAIRWISE;
        for (int k = 0; pairwise(sh) && k < scope_profile_rank_count(p); k++) {
            int rk = scope_profile_rank(p, k);
            if ((rank != SCOPE_ALL_RANKS && rk != rank) || scope_profile_calls(p, r, rk) <= 0)
                continue;
            scope_moved mv;
            scope_communicators ct;     /* loaded once per rank by the reader */
            int rc = scope_profile_moved(p, r, rk, &mv);
            if (rc == 0 && mv.n && mv.comm)
                rc = scope_profile_communicators(p, rk, &ct);
            if (rc < 0)
                return rc;
            for (int64_t i = 0; mv.comm && i < mv.n; i++) {
                int32_t c = mv.comm[i];
                if (c < 0 || c >= ct.n || ct.remote_size[c] > 0)
                    continue;   /* unknown, or an intercommunicator */
                const int32_t *members = ct.members + ct.members_start[c];
                int32_t m = (int32_t)(ct.members_start[c + 1] - ct.members_start[c]);
                shares(sh, rk, &mv, i, members, m, f, ctx);
            }
        }
    }
    return 0;
}
