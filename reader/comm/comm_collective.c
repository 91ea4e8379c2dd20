/*
 * comm_collective.c - the rank-to-rank traffic of collective calls
 * (scope_profile_comm_matrix_kind with SCOPE_COMM_COLLECTIVE), read from
 * each rank's own columns by the byte model of docs/format.md ("What MPI
 * calls moved"): a rank's columns say what its buffers held, so a pair's
 * share is exact where the model names the partner (the root of a rooted
 * collective, every member's equal block of MPI_Alltoall and
 * MPI_Allgather) and spread evenly where it does not (the per-pair counts
 * of MPI_Alltoallv and MPI_Alltoallw are not recorded: what a rank sent
 * the others, its bytes less its block to itself (bytes_to_self), is
 * spread over them, so that its row total is exact). Reductions over all members (MPI_Allreduce,
 * MPI_Reduce_scatter, scans), barriers, neighbourhood collectives and
 * intercommunicators have no pairwise meaning here and are left out.
 * A started persistent collective (MPI_Bcast_init & co, started by
 * MPI_Start or by MPI_Startall with any other requests) counts as its
 * blocking call, in the region of the call that started it: its request
 * row says which collective it is (the `collective` column: its shape),
 * its root and the bytes its share needs, and the starting call's row its
 * communicator. In files before that column, or for a start whose request
 * has no row (never completed, or completed where it was not followed),
 * the starting call's own row is read instead: it names a root (and no
 * tag) only for a single rooted collective, whose direction the member's
 * own bytes say (a member other than the root only receives from it in
 * MPI_Bcast and MPI_Scatter(v), only sends to it in MPI_Gather(v) and
 * MPI_Reduce); the rest have no pairs there.
 *
 * Apart from comm.c because it is the only part of the matrices that
 * needs the communicators' members.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_format.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"

/* Calls f(ctx, from, to, bytes) for each pairwise share of one collective
 * of `rank` (shape `sh`, its root, what it sent and received, its
 * communicator's members; `self`, an all-to-all with per-member counts'
 * block to itself, -1 unknown). A share of 0 bytes is a message all the
 * same (docs/format.md: one rule for the three matrices), so that a
 * call's messages do not depend on its counts. */
static void shares(int sh, int rank, int32_t root, int64_t sent, int64_t received,
                   int64_t self, const int32_t *members, int32_t m,
                   void (*f)(void *ctx, int s, int d, int64_t bytes), void *ctx)
{
    switch (sh) {
    case SCOPE_COLL_ONE_TO_ALL:
        if (root >= 0 && root != rank)
            f(ctx, root, rank, received);
        return;
    case SCOPE_COLL_ALL_TO_ONE:
        if (root >= 0 && root != rank)
            f(ctx, rank, root, sent);
        return;
    case SCOPE_COLL_ALL_SPREAD:
        if (self >= 0 && self <= sent) {
            /* what went to the others, exactly: spread over them, the
             * remainder a byte each to the first ones */
            int32_t others = 0;
            for (int32_t k = 0; k < m; k++)
                others += members[k] != rank;
            if (!others)
                return;
            int64_t rest = sent - self, each = rest / others, extra = rest % others;
            for (int32_t k = 0; k < m; k++)
                if (members[k] != rank)
                    f(ctx, rank, members[k], each + (extra-- > 0 ? 1 : 0));
            return;
        }
        /* a file before bytes_to_self, or a started one: as Alltoall */
        __attribute__((fallthrough));
    case SCOPE_COLL_ALL_EQUAL:
        if (m <= 0)
            return;
        for (int32_t k = 0; k < m; k++)
            if (members[k] != rank)
                f(ctx, rank, members[k], sent / m);
        return;
    case SCOPE_COLL_ALL_SAME:
        for (int32_t k = 0; k < m; k++)
            if (members[k] != rank)
                f(ctx, rank, members[k], sent);
        return;
    default:
        return;
    }
}

/* The shares of call i of a collective region of `rank` (shape `sh`), or
 * of a start read from its own row (`started`: no request row says what
 * it started): only a single rooted collective's start names a root
 * (moved.c's rule: a destination without a tag), and its direction is
 * then its bytes'. */
static void call_shares(int sh, int started, int rank, const scope_moved *mv,
                        const int64_t *self, int64_t i, const int32_t *members, int32_t m,
                        void (*f)(void *ctx, int s, int d, int64_t bytes), void *ctx)
{
    int32_t root = scope_moved_root(mv->dest[i], mv->source[i], mv->tag[i]);
    if (started) {
        /* moving nothing either way, it says no direction: no pair */
        if (root < 0 || root == rank || (mv->bytes_received[i] <= 0 && mv->bytes_sent[i] <= 0))
            return;
        sh = mv->bytes_received[i] > 0 ? SCOPE_COLL_ONE_TO_ALL : SCOPE_COLL_ALL_TO_ONE;
    }
    shares(sh, rank, root, mv->bytes_sent[i], mv->bytes_received[i], self ? self[i] : -1, members,
           m, f, ctx);
}

/* The members of row c of the rank's communicators; 0 when the row is
 * unknown or an intercommunicator (no pairs there). */
static int members_of(const scope_communicators *ct, int32_t c, const int32_t **members,
                      int32_t *m)
{
    if (c < 0 || c >= ct->n || ct->remote_size[c] > 0)
        return 0;
    *members = ct->members + ct->members_start[c];
    *m = (int32_t)(ct->members_start[c + 1] - ct->members_start[c]);
    return 1;
}

/* The shares of the persistent collectives that region `r` (MPI_Start or
 * MPI_Startall) started on `rank`, from the request rows that say which
 * each was; marks their calls in done[] (mv->n long), whose own rows are
 * then not read. Returns 0 or an error. */
static int started_shares(scope_profile *p, int r, int rank, const scope_moved *mv,
                          const scope_communicators *ct, char *done,
                          void (*f)(void *ctx, int s, int d, int64_t bytes), void *ctx)
{
    scope_requests rq;
    int rc = scope_profile_requests(p, rank, &rq);
    if (rc < 0 || !rq.collective || !rq.root || !rq.bytes_sent)
        return rc;      /* a file before the columns: the calls' rows */
    for (int64_t j = 0; j < rq.n; j++) {
        int64_t call = rq.post_call[j];
        if (rq.post_region[j] != r || rq.collective[j] <= 0 || call < 0 || call >= mv->n)
            continue;
        done[call] = 1;
        const int32_t *members;
        int32_t m;
        if (!members_of(ct, mv->comm[call], &members, &m))
            continue;
        shares(rq.collective[j], rank, rq.root[j], rq.bytes_sent[j],
               rq.bytes_received[j], -1, members, m, f, ctx);
    }
    return 0;
}

int scope__each_collective_share(scope_profile *p, int region, int rank,
                                 void (*f)(void *ctx, int s, int d, int64_t bytes), void *ctx)
{
    int nreg = scope_profile_region_count(p);
    if (region != SCOPE_COMM_ALL_REGIONS && (region < 0 || region >= nreg))
        return scope__fail(SCOPE_ENOTFOUND, "no region %d", region);
    for (int r = 0; r < nreg; r++) {
        const struct scope_call_row *call = scope__region_call(p, r);
        int started = scope__call_starts(call), sh = scope__call_coll_shape(call);
        int pairwise = (region == SCOPE_COMM_ALL_REGIONS || r == region) &&
                       (started || scope__coll_shape_pairwise(sh));
        for (int k = 0; pairwise && k < scope_profile_rank_count(p); k++) {
            int rk = scope_profile_rank(p, k);
            if ((rank != SCOPE_ALL_RANKS && rk != rank) || scope_profile_calls(p, r, rk) <= 0)
                continue;
            scope_moved mv;
            scope_communicators ct;     /* loaded once per rank by the reader */
            const int64_t *self = NULL;
            int rc = scope_profile_moved(p, r, rk, &mv);
            if (rc == 0)
                rc = scope__moved_self(p, r, rk, &self);
            if (rc == 0 && mv.n && mv.comm)
                rc = scope_profile_communicators(p, rk, &ct);
            if (rc < 0)
                return rc;
            if (!mv.comm)
                continue;
            char *done = NULL;
            if (started) {
                if (!(done = calloc((size_t)(mv.n ? mv.n : 1), 1)))
                    return scope__fail(SCOPE_ENOMEM, "out of memory");
                if ((rc = started_shares(p, r, rk, &mv, &ct, done, f, ctx)) < 0) {
                    free(done);
                    return rc;
                }
            }
            for (int64_t i = 0; i < mv.n; i++) {
                const int32_t *members;
                int32_t m;
                if ((!done || !done[i]) && members_of(&ct, mv.comm[i], &members, &m))
                    call_shares(sh, started, rk, &mv, self, i, members, m, f, ctx);
            }
            free(done);
        }
    }
    return 0;
}
