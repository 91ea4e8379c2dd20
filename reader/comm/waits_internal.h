/*
 * waits_internal.h - what the files of the wait-state analysis share
 * (not installed): waits.c gathers every rank's MPI calls and builds the
 * result, waits_p2p.c matches messages, waits_coll.c matches collective
 * instances. Each side adds candidate waits (waits_cand.c, which keeps
 * the longest per call); waits.c adds them up.
 */
#ifndef SCOPE_WAITS_INTERNAL_H
#define SCOPE_WAITS_INTERNAL_H

#include <stdint.h>

#include "scope_reader.h"
#include "scope_reader_waits.h"

/* What an MPI region does, for the analysis (waits.c, from its call's row
 * in the vocabulary). */
enum scope__wop {
    SCOPE__W_NONE = 0,
    SCOPE__W_SEND,          /* blocking sends: kind below */
    SCOPE__W_ISEND,
    SCOPE__W_RECV,          /* MPI_Recv, MPI_Mrecv */
    SCOPE__W_IRECV,         /* MPI_Irecv, MPI_Imrecv */
    SCOPE__W_SENDRECV,
    SCOPE__W_ISENDRECV,     /* MPI_Isendrecv(_replace): both ends, one request */
    SCOPE__W_START,         /* one persistent request */
    SCOPE__W_STARTALL,
    SCOPE__W_WAIT,          /* MPI_Wait* */
    SCOPE__W_TEST,          /* MPI_Test* */
    SCOPE__W_BARRIER,
    SCOPE__W_NXN,
    SCOPE__W_ONE2N,         /* Bcast, Scatter(v) */
    SCOPE__W_N2ONE,         /* Reduce, Gather(v) */
    SCOPE__W_COLL_OTHER     /* Scan, Exscan (and their nonblocking forms):
                               in the instance order, no wait of their own */
};

/* A collective region's kind (gather): its nonblocking form (MPI_I...),
 * whose waiting happens in the MPI_Wait* that completes its request. */
#define SCOPE__K_NONBLOCKING_COLL 1

/* How a send completes. COMBINED: the send half of MPI_Sendrecv, whose
 * call also waits for its own receive, so its end says nothing about when
 * its receiver posted: it is never taken as a late receiver. */
enum scope__send_kind { SCOPE__K_STD = 0, SCOPE__K_SYNC, SCOPE__K_BUF, SCOPE__K_READY,
                        SCOPE__K_COMBINED };

/* One end of a point-to-point message, what matching and the waits need:
 * 56 bytes, since a run has millions and each is written once and read a
 * few times (their volume, zeroed by the kernel on first touch and on a
 * virtual machine backed by the host at its first write, is most of the
 * analysis's system time). No padding: ends go to temporary files. */
struct scope__p2p {
    int64_t post;               /* the posting call's start */
    int64_t done_call;          /* the call that completed it (the posting
                                   call itself for a blocking one) */
    int64_t done_start, done_end;
    int32_t s, r, comm, tag;    /* sender, receiver (world), run's comm id, tag */
    int32_t done_region;        /* of the completing call, -1 none */
    uint8_t kind;               /* scope__send_kind (sends) */
    uint8_t wild;               /* a receive whose tag is unknown (Sendrecv) */
    uint8_t matched;
    uint8_t blocks;             /* the completing call blocked for it (a
                                   blocking call, or an MPI_Wait*) */
};

/* What only a message row needs of an end: gathered, in a stream of its
 * own parallel to the ends', only when the caller asked for the messages
 * (most callers do not: 24 bytes less per end to fault in). */
struct scope__p2p_msg {
    int64_t call;               /* the posting call: index in its region */
    int64_t bytes;
    int32_t region;             /* of the posting call */
    uint8_t pad[4];             /* named, so that initialisers zero it */
};

/* One collective call: 80 bytes, no padding the initialisers leave
 * undefined (they go to temporary files). Its entry is its start; it
 * waits in [wstart, wend] of call (wregion, wcall): the call itself for a
 * blocking one, the MPI_Wait* that completed a nonblocking one's request
 * (wregion -1: not completed by a call that blocked, so no wait). */
struct scope__coll {
    int64_t call;
    int64_t start, end;
    int64_t wstart, wend, wcall;
    int32_t comm, rank, region;
    int32_t root;               /* world rank, -1 none */
    int32_t name_class;         /* region name without _c, as an id */
    int32_t wregion;
    uint8_t op;                 /* scope__wop */
    uint8_t pad[7];
};

/* One wait found: (rank, region, call) waited wait_ns for waited_for,
 * from the start of that call on (every pattern's wait begins there). */
struct scope__cand {
    int32_t rank, region;
    int64_t call;
    int32_t pattern, waited_for;
    int64_t wait_ns, bound_ns;
};

/* The candidates, and for each MPI call of the profile the longest one
 * (best[off[rank index * nreg + region] + call], -1 none): a call waits
 * once, and walking best[] in order gives the calls sorted by (rank,
 * region, call) without a sort. */
struct scope__cand_list {
    struct scope__cand *v;
    int64_t n, cap;
    int32_t *best;
    int64_t *off;               /* -1: the cell has no slots */
    int nreg;
    const int32_t *index_of;    /* rank -> profile rank index (scope_waits) */
    int world;
};

struct scope_waits {
    int has_data;
    int flags;
    scope_wait_row *rows;
    int64_t nrows;
    scope_wait_call *calls;
    int64_t ncalls;
    scope_message *msgs;
    int64_t nmsgs, capmsgs;
    scope_unmatched *unmatched;
    int64_t nunmatched;
    scope_waits_totals totals;
    char **comm_names;
    int ncomms;
    /* per profile rank index: clock facts for the bound */
    int nranks;
    int32_t *rank_of;           /* profile rank index -> rank */
    int64_t *err_ns;
    int32_t *host;              /* clock_host_index, -1 unknown */
    int8_t *aligned;            /* clock_aligned, -1 unknown */
    char **hostname;
    int world;                  /* ranks span 0..world-1 */
    int32_t *index_of;          /* rank -> profile rank index, -1 */
    /* what the waited-for ranks did in I/O (waits_io.c): one per row,
     * in the rows' order; the run's totals; the files they name */
    scope_wait_io *rows_io;
    scope_wait_io io_totals;
    char **io_files;
    int32_t nio_files;
    int has_io;
};

/* One wait above its clock bound, for waits_io.c: its interval and row. */
struct scope__wait_span {
    int64_t start, end;
    int64_t row;                /* index into w->rows */
};

/* The buckets of gathered ends (waits_spill.c): per bucket, five
 * streams (sends, receives, collective calls, and the sends' and
 * receives' message parts, element i of one the end i's; empty without
 * messages), each in memory up to its
 * capacity and beyond it appended to an unlinked temporary file. */
enum { SCOPE__S_SENDS, SCOPE__S_RECVS, SCOPE__S_COLL, SCOPE__S_SENDS_MSG, SCOPE__S_RECVS_MSG,
       SCOPE__STREAMS };

struct scope__stream {
    void *buf;
    int64_t n, cap;             /* elements in buf, its capacity */
    int64_t in_file;            /* elements written out before buf's */
    size_t elem;
    int fd;                     /* -1: none yet */
    int presized;               /* one bucket: cap is the counted total */
};

struct scope__spill {
    int nbuckets;
    int spilled;                /* something went to a file */
    struct scope__stream *b;    /* [bucket * SCOPE__STREAMS + stream] */
};

/* nbuckets == 1: presize[stream] elements of each stream, allocated once
 * (no file). More: each stream holds `share` bytes in memory before it
 * writes them out. Returns 0 or SCOPE_ENOMEM. */
int scope__spill_init(struct scope__spill *sp, int nbuckets, const int64_t *presize,
                      int64_t share);
/* *slot: the next element of (bucket, stream), for the caller to fill.
 * Returns 0, SCOPE_ENOMEM, or SCOPE_EIO (the temporary file failed; the
 * message names it). */
int scope__spill_slot(struct scope__spill *sp, int bucket, int stream, void **slot);
/* Every element of (bucket, stream) in append order, in one array that
 * the caller frees (*out; NULL when none); the stream is empty after.
 * Returns their count, or SCOPE_ENOMEM / SCOPE_EIO. Cost: one read of
 * what was written out. */
int64_t scope__spill_take(struct scope__spill *sp, int bucket, int stream, void **out);
/* 1 when something went to a file. */
int scope__spill_spilled(const struct scope__spill *sp);
void scope__spill_free(struct scope__spill *sp);

/* The clock bound between two ranks' times (waits_cand.c): 0 on one host,
 * INT64_MAX when they cannot be compared (an unaligned host). */
int64_t scope__waits_bound(struct scope_waits *w, int32_t a, int32_t b);
int scope__cand_add(struct scope__cand_list *l, const struct scope__cand *c);

/* Matches sends to receives (waits_p2p.c): sorts both arrays, marks the
 * matched ones, adds the messages to w (unless SCOPE_WAITS_NO_MESSAGES;
 * then smsg and rmsg, the ends' message parts, may be NULL), the
 * unmatched counts, and the late-sender / late-receiver candidates.
 * Returns 0 or SCOPE_ENOMEM. */
int scope__waits_match_p2p(struct scope_waits *w, struct scope__p2p *sends,
                           const struct scope__p2p_msg *smsg, int64_t ns,
                           struct scope__p2p *recvs, const struct scope__p2p_msg *rmsg,
                           int64_t nr, struct scope__cand_list *cands);

/* Matches the collective calls of every communicator by order
 * (waits_coll.c); members[c] lists communicator c's world ranks
 * (msize[c] of them, 0: not analysed, an intercommunicator). Returns 0
 * or SCOPE_ENOMEM. */
int scope__waits_match_coll(struct scope_waits *w, struct scope__coll *calls, int64_t n,
                            const int32_t *const *members, const int32_t *msize, int ncomms,
                            struct scope__cand_list *cands);

/* The calls' longest waits (l->best) folded into w->calls and w->rows,
 * the rows' I/O shares (scope__waits_io) and their sort, longest first
 * (waits_fold.c). Returns 0 or a negative SCOPE_E* code. */
int scope__waits_fold(struct scope_waits *w, struct scope__cand_list *l, scope_profile *p);

/* Fills w->rows_io (zeroed, w->nrows of them, already allocated), the
 * I/O totals and the file list: for each waited-for rank, the time it
 * spent in its outermost I/O calls during the waits of each row
 * (waits_io.c). spans[0..n) are the waits above their bound; rows index
 * w->rows as they stand (before their sort). A profile without I/O
 * columns costs nothing. Returns 0 or a negative SCOPE_E* code. */
int scope__waits_io(struct scope_waits *w, scope_profile *p, struct scope__wait_span *spans,
                    int64_t n);

_Static_assert(sizeof(struct scope__p2p) == 56, "an end has no hidden padding");
_Static_assert(sizeof(struct scope__p2p_msg) == 24, "a message part has no hidden padding");
_Static_assert(sizeof(struct scope__coll) == 80, "a collective call has no hidden padding");

#endif /* SCOPE_WAITS_INTERNAL_H */
