/*
 * scope_reader_comm.h - what the MPI calls of a profile moved: per-call
 * bytes, partners, tags and communicators (docs/format.md, "What MPI calls
 * moved"), byte totals, the rank-to-rank matrix of point-to-point traffic
 * and message-size histograms. Part of libscope_reader; include it after
 * scope_reader.h.
 *
 *     int64_t sent, received;
 *     scope_profile_bytes(p, region, SCOPE_ALL_RANKS, &sent, &received);
 *
 *     int n = scope_profile_world_size(p);
 *     int64_t *msgs = calloc(n * n, 8), *bytes = calloc(n * n, 8);
 *     scope_profile_comm_matrix(p, SCOPE_COMM_ALL_REGIONS, n, msgs, bytes);
 *     // msgs[s * n + r]: messages world rank s sent to world rank r
 *
 * Profiles written before this data existed, and regions that are not MPI
 * calls, read as moving nothing: zeros, empty matrices.
 */
#ifndef SCOPE_READER_COMM_H
#define SCOPE_READER_COMM_H

#include <stdint.h>

#include "scope_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* No partner (dest, source), no tag, no communicator in the columns. */
#define SCOPE_NO_RANK (-1)
#define SCOPE_NO_TAG_VALUE (-2147483647 - 1)
#define SCOPE_NO_COMM (-1)
/* scope_profile_comm_matrix: every point-to-point region. */
#define SCOPE_COMM_ALL_REGIONS (-1)
/* Kinds of traffic a matrix or histogram shows (the _kind functions). */
#define SCOPE_COMM_P2P 0            /* sends and receives, counted at the sender */
#define SCOPE_COMM_ONE_SIDED 1      /* MPI_Put, MPI_Get, ..., recorded at the origin */
#define SCOPE_COMM_COLLECTIVE 2     /* rooted collectives, MPI_Alltoall(v/w), MPI_Allgather(v)
                                       (and their nonblocking forms, and the starts of
                                       persistent ones by MPI_Start or MPI_Startall), each
                                       rank's share by the byte model of docs/format.md */
#define SCOPE_COMM_KINDS 3

/* The name of a kind of traffic ("p2p", "one-sided", "collective": how
 * the Python module and the tools call them), NULL out of range. Pure. */
SCOPE_READER_API const char *scope_comm_kind_name(int kind);

/* Buckets of scope_profile_size_histogram: bucket 0 holds 0-byte
 * messages, bucket k >= 1 sizes in [2^(k-1), 2^k). */
#define SCOPE_SIZE_BUCKETS 64

/* The data columns of one (region, rank), in the order of
 * scope_profile_times(). All NULL (n still the calls) when the region
 * records none. The arrays belong to the profile until close. */
typedef struct scope_moved {
    int64_t n;
    const int64_t *bytes_sent, *bytes_received;
    const int32_t *dest, *source;   /* world ranks, SCOPE_NO_RANK; with no tag (a
                                       collective's, also a started persistent one's)
                                       both are the root, never a partner */
    const int32_t *tag;             /* SCOPE_NO_TAG_VALUE when none */
    const int32_t *comm;            /* row of the rank's communicators, SCOPE_NO_COMM */
} scope_moved;

/* Loads (once) and returns the data columns of `region` on `rank`.
 * Returns 0, SCOPE_EINVAL, SCOPE_ENOTFOUND (unknown region or rank), or
 * SCOPE_EFORMAT (a column of the wrong length). Cost: one HDF5 read per
 * column on first use. */
SCOPE_READER_API int scope_profile_moved(scope_profile *p, int region, int rank,
                                         scope_moved *out);

/* Bytes sent and received by the calls of `region` on `rank` (or
 * SCOPE_ALL_RANKS), by the byte model of docs/format.md; 0 and 0 for a
 * region without data. Returns 0 or as scope_profile_moved. */
SCOPE_READER_API int scope_profile_bytes(scope_profile *p, int region, int rank,
                                         int64_t *sent, int64_t *received);

/* 1 when some rank of the profile records what its MPI calls moved (its
 * `mpi_data` attribute), else 0. Cost: one cached attribute per rank. */
SCOPE_READER_API int scope_profile_has_moved(scope_profile *p);

/* What a region is, by name: `name` is an operation
 * (scope_profile_region_operation(), the way to ask about a region) or
 * any name of an MPI function (MPI_Send, MPI_Send_c, PMPI_Send, the
 * Fortran mpi_send_), read by the one parser of scope's vocabulary of
 * calls; NULL and any other name give 0. Pure.
 *
 * scope_region_is_point_to_point: 1 for a call that moves point-to-point
 * messages: sends and receives of every mode and form (MPI_Send, MPI_Isend,
 * MPI_Recv, MPI_Irecv, MPI_Mrecv, MPI_Imrecv, MPI_Sendrecv(_replace) and
 * their nonblocking MPI_Isendrecv forms) and the starts of persistent
 * requests (MPI_Start, MPI_Startall); not the persistent inits
 * (MPI_Send_init: each start moves) nor the probes (they move nothing).
 * scope_region_is_one_sided: 1 for MPI_Put, MPI_Rput, MPI_Get, MPI_Rget,
 * MPI_Accumulate, MPI_Raccumulate, MPI_Get_accumulate,
 * MPI_Rget_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap.
 * scope_region_is_collective_pairwise: 1 for a call with pairwise shares
 * in the SCOPE_COMM_COLLECTIVE matrix (MPI_Bcast, MPI_Scatter(v),
 * MPI_Gather(v), MPI_Reduce, MPI_Alltoall(v/w), MPI_Allgather(v), their
 * nonblocking forms; MPI_Start and MPI_Startall, whose starts of such a
 * persistent collective have them).
 * scope_region_is_collective: 1 for a collective call, with pairs or not
 * (the ones above, MPI_Allreduce, MPI_Scan, MPI_Exscan,
 * MPI_Reduce_scatter(_block), MPI_Barrier, the neighbourhood collectives,
 * their nonblocking forms); not the persistent inits (they move nothing)
 * nor MPI_Start(all). */
SCOPE_READER_API int scope_region_is_point_to_point(const char *name);
SCOPE_READER_API int scope_region_is_one_sided(const char *name);
SCOPE_READER_API int scope_region_is_collective_pairwise(const char *name);
SCOPE_READER_API int scope_region_is_collective(const char *name);

/* The one rule that tells a message from a collective's root in a call's
 * columns (docs/format.md "What MPI calls moved"): every point-to-point
 * message has a tag, so a call that names a destination and a tag sent a
 * message there, and a destination or source without a tag is the root
 * of a collective (a started persistent one too, whose MPI_Start is a
 * point-to-point region), never a partner. scope_moved_sent_message: 1
 * when (dest, tag) are a message's. scope_moved_root: the root such a
 * call names (dest, else source), SCOPE_NO_RANK for a message or a call
 * without one. Pure. */
SCOPE_READER_API int scope_moved_sent_message(int32_t dest, int32_t tag);
SCOPE_READER_API int32_t scope_moved_root(int32_t dest, int32_t source, int32_t tag);

/* The number of world ranks the matrix spans: one more than the largest
 * rank or partner in the profile. Loads the data columns. */
SCOPE_READER_API int scope_profile_world_size(scope_profile *p);

/* Adds the point-to-point traffic of `region` (or SCOPE_COMM_ALL_REGIONS:
 * every point-to-point region) into n x n matrices indexed [sender * n +
 * receiver] by world rank: messages (calls that sent to a partner) and
 * bytes. Sends are counted at their sender (a receive is the same message
 * seen from the other end); a call whose columns name a dest but no tag
 * (a collective's root) is not a message. Either matrix may be NULL.
 * Returns 0, or as scope_profile_moved; SCOPE_EINVAL when n is smaller
 * than scope_profile_world_size(). */
SCOPE_READER_API int scope_profile_comm_matrix(scope_profile *p, int region, int n,
                                               int64_t *messages, int64_t *bytes);

/* As scope_profile_comm_matrix, for traffic of `kind`. SCOPE_COMM_ONE_SIDED
 * (regions: every one-sided region): the calls are recorded at their
 * origin only; [s * n + r] adds what moved from world rank s to r: what
 * an origin put or accumulated into its target (s the origin), what it got
 * from it (s the target); a call that does both (MPI_Get_accumulate,
 * MPI_Fetch_and_op, MPI_Compare_and_swap) is a message each way. Returns
 * as scope_profile_comm_matrix; SCOPE_EINVAL for an unknown kind. */
SCOPE_READER_API int scope_profile_comm_matrix_kind(scope_profile *p, int kind, int region, int n,
                                                    int64_t *messages, int64_t *bytes);

/* The non-zero cells of scope_profile_comm_matrix() in the rows of some
 * senders, as a long table: row i says that world rank sender[i] sent
 * messages[i] messages of bytes[i] bytes together to receiver[i]. The
 * arrays are malloc'd for the caller; scope_message_pairs_free() frees
 * them. */
typedef struct scope_message_pairs {
    int64_t n;
    int32_t *sender, *receiver;
    int64_t *messages, *bytes;
} scope_message_pairs;

/* The point-to-point pairs that the world ranks senders[0 .. nsenders)
 * (NULL: every rank of the profile; each counted once whatever the
 * order or repeats) sent messages to in `region` (or
 * SCOPE_COMM_ALL_REGIONS: every point-to-point region), counted exactly
 * as scope_profile_comm_matrix() counts them (the same walk: a call that
 * names a dest and a tag, and each send an MPI_Startall started, from its
 * request row), sorted by sender then receiver; pairs without a message
 * are not listed. Fills *out (zeroed first; freed again on error).
 * Returns 0, SCOPE_EINVAL, SCOPE_ENOTFOUND (an unknown region or sender),
 * SCOPE_ENOMEM, or as scope_profile_moved. Cost: one pass over the
 * selected senders' point-to-point calls (and their MPI_Startall request
 * rows); memory: the selected senders' pairs, plus one sender's distinct
 * receivers at a time, never n x n, so that a part of a large run can be
 * read alone. */
SCOPE_READER_API int scope_profile_message_pairs(scope_profile *p, int region,
                                                 const int *senders, int nsenders,
                                                 scope_message_pairs *out);

/* Frees the arrays of a scope_message_pairs and zeroes it; NULL is a
 * no-op. */
SCOPE_READER_API void scope_message_pairs_free(scope_message_pairs *pairs);

/* Adds the sizes of the messages `region` (or SCOPE_COMM_ALL_REGIONS: every
 * point-to-point region) sent on `rank` (or SCOPE_ALL_RANKS) into
 * counts[SCOPE_SIZE_BUCKETS] (see SCOPE_SIZE_BUCKETS). A call counts when
 * it sent to a partner. Returns 0 or as scope_profile_moved. */
SCOPE_READER_API int scope_profile_size_histogram(scope_profile *p, int region, int rank,
                                                  int64_t *counts);

/* As scope_profile_size_histogram, for traffic of `kind` (one-sided: each
 * direction of a call is a message, as in scope_profile_comm_matrix_kind). */
SCOPE_READER_API int scope_profile_size_histogram_kind(scope_profile *p, int kind, int region,
                                                       int rank, int64_t *counts);

/* The nonblocking requests `rank` completed (/rank<N>/requests): row i
 * says which call posted request i (a region index of this profile and
 * the call's index in scope_profile_times() order) and which MPI_Wait* /
 * MPI_Test* call completed it, and what its status said. A region the
 * file names but the profile lacks reads -1. n = 0 (arrays NULL) when the
 * rank followed none. The arrays belong to the profile until close. */
typedef struct scope_requests {
    int64_t n;
    const int32_t *post_region, *done_region;
    const int64_t *post_call, *done_call;
    const int32_t *source;          /* a receive's status; SCOPE_NO_RANK for a send */
    const int32_t *tag;             /* a receive's status; a send's own tag (SCOPE_NO_TAG_VALUE
                                       when unknown, and in files written before the send
                                       columns) */
    const int64_t *bytes_received;
    const int8_t *cancelled;        /* 1: the request was cancelled */
    /* a point-to-point send's message, from its post (the call that posted
     * it may have started several: MPI_Startall): the destination's world
     * rank (SCOPE_NO_RANK for a receive, a collective, or a file written
     * before these columns) and the bytes sent (NULL in such a file); a
     * send's `tag` is its own. A started persistent collective's
     * bytes_sent are what its pairs need (below) */
    const int32_t *dest;
    const int64_t *bytes_sent;
    /* which collective a started persistent collective (MPI_Bcast_init &
     * co started by MPI_Start or MPI_Startall) is, its shape in the byte
     * model: a value of enum scope_coll_shape (format/scope_format.h;
     * docs/format.md lists them: 1 no pairs, 2 one-to-all, 3 all-to-one,
     * 4 all-equal, 5 all-same, 6 spread); 0 for every other request; NULL
     * in files written before the column. Such a row's root is in `root`
     * (SCOPE_NO_RANK none; its dest is SCOPE_NO_RANK: no message) and the
     * bytes its pairs need are in bytes_received for a one-to-all one
     * (what this rank received), in bytes_sent for the others (what it
     * sent) */
    const int8_t *collective;
    const int32_t *root;            /* a started collective's root; SCOPE_NO_RANK for
                                       every other request; NULL as `collective` */
} scope_requests;

/* Loads (once) and returns the request table of `rank`. Returns 0,
 * SCOPE_EINVAL, SCOPE_ENOTFOUND (no such rank), SCOPE_EFORMAT (columns of
 * different lengths). Cost: one HDF5 read per column on first use. */
SCOPE_READER_API int scope_profile_requests(scope_profile *p, int rank, scope_requests *out);

/* The communicators `rank` used (/rank<N>/communicators): row c is the
 * value of the `comm` column. Members of row c, in communicator rank
 * order (the local group, then an intercommunicator's remote group), are
 * members[members_start[c] .. members_start[c + 1]) as world ranks (-1
 * where MPI could not say). n = 0 when the rank has no table. The arrays
 * belong to the profile until close. */
typedef struct scope_communicators {
    int n;
    const int32_t *size, *remote_size;
    const int64_t *members_start;   /* n + 1 */
    const int32_t *members;
    const char *const *names;       /* "" when the program named none */
    const char *const *creators;    /* the MPI call that made it ("MPI_Comm_split";
                                       "MPI_Init" for MPI_COMM_WORLD), "" when not known */
} scope_communicators;

/* Loads (once) and returns the communicator table of `rank`. Returns as
 * scope_profile_requests. */
SCOPE_READER_API int scope_profile_communicators(scope_profile *p, int rank,
                                                 scope_communicators *out);

/* One communicator of the whole run: the same communicator on every rank
 * that used it (docs/analysis.md "Communicators": recognised by its
 * members, its name and how many like it came before it in the rank's
 * table, so two dups of one communicator stay two), numbered in order of
 * first appearance (ranks in order), MPI_COMM_WORLD always 0. The wait
 * states and the OTF2 export number a run's communicators by it. */
typedef struct scope_run_comm {
    int32_t size;               /* members of an intracommunicator; of an
                                   intercommunicator, its first group's */
    int32_t remote_size;        /* an intercommunicator's second group; 0
                                   for an intracommunicator */
    const int32_t *members;     /* size + remote_size world ranks in
                                   communicator rank order; an
                                   intercommunicator's group holding the
                                   lower first world rank first; -1 where
                                   MPI could not say */
    const char *name;           /* MPI_Comm_get_name's, "" when none */
    const char *label;          /* how tools show it: the name, or
                                   "comm<id> (<n> ranks)" when unnamed */
    const char *creator;        /* the MPI call that made it, as the first
                                   rank that used it says ("MPI_Init" for
                                   MPI_COMM_WORLD), "" when not known */
    int32_t world;              /* 1: MPI_COMM_WORLD (always number 0) */
} scope_run_comm;

/* How many communicators the run used. The first call of these three
 * numbers them: it reads every rank's communicator table, in rank order
 * (a table it loaded is let go again); later calls cost nothing. Returns
 * the count, or SCOPE_EINVAL, SCOPE_ENOMEM, or as
 * scope_profile_communicators. */
SCOPE_READER_API int scope_profile_run_comm_count(scope_profile *p);

/* Fills *out with run communicator `id` (0 .. count - 1); its arrays and
 * strings belong to the profile until close. Returns 0, SCOPE_ENOTFOUND,
 * or as scope_profile_run_comm_count. */
SCOPE_READER_API int scope_profile_run_comm(scope_profile *p, int id, scope_run_comm *out);

/* The run communicator of each row of `rank`'s table (the values of its
 * `comm` column, scope_profile_communicators): (*ids)[row], *n rows
 * (0 when the rank has no table). The array belongs to the profile until
 * close. Returns 0, SCOPE_ENOTFOUND (no such rank), or as
 * scope_profile_run_comm_count. */
SCOPE_READER_API int scope_profile_run_comm_ids(scope_profile *p, int rank, const int32_t **ids,
                                                int *n);

#ifdef __cplusplus
}
#endif

#endif /* SCOPE_READER_COMM_H */
