/*
 * scope_reader_waits.h - who waited for whom: every point-to-point message
 * of a profile matched to the receive that got it, and the wait states of
 * its MPI calls (late sender, late receiver, wait at barrier and at N x N
 * collectives, late broadcast, early reduce), each with the rank waited
 * for, from the calls' times on the run's one aligned timeline.
 * docs/analysis.md ("Wait states") gives the definitions. Part of
 * libscope_reader; include it after scope_reader.h.
 *
 *     scope_waits *w;
 *     if (scope_profile_waits(p, 0, &w) == 0) {
 *         const scope_wait_row *rows;
 *         int64_t n = scope_waits_rows(w, &rows);
 *         for (int64_t i = 0; i < n; i++)
 *             printf("rank %d waited %lld ns in %s for rank %d (%s)\n",
 *                    rows[i].rank, (long long)rows[i].time_ns,
 *                    scope_profile_region_name(p, rows[i].region),
 *                    rows[i].waited_for,
 *                    scope_wait_pattern_name(rows[i].pattern));
 *         scope_waits_free(w);
 *     }
 *
 * It needs what the MPI calls moved (docs/format.md): a profile recorded
 * without it (SCOPE_MPI_DATA=0, older versions) has no wait states.
 */
#ifndef SCOPE_READER_WAITS_H
#define SCOPE_READER_WAITS_H

#include <stdint.h>

#include "scope_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum scope_wait_pattern {
    SCOPE_WAIT_LATE_SENDER = 0,   /* a receive (or its wait) began before the send */
    SCOPE_WAIT_LATE_RECEIVER,     /* a send that completed only once the receive was posted */
    SCOPE_WAIT_AT_BARRIER,        /* MPI_Barrier: own entry to the last rank's */
    SCOPE_WAIT_AT_NXN,            /* Allreduce, Alltoall*, Allgather*, Reduce_scatter* */
    SCOPE_WAIT_LATE_BROADCAST,    /* Bcast, Scatter(v): a rank in before its root */
    SCOPE_WAIT_EARLY_REDUCE,      /* Reduce, Gather(v): the root in before the last rank */
    SCOPE_WAIT_PATTERNS
} scope_wait_pattern;

/* "late_sender", "late_receiver", "wait_at_barrier", "wait_at_nxn",
 * "late_broadcast", "early_reduce"; NULL out of range. Pure. */
SCOPE_READER_API const char *scope_wait_pattern_name(int pattern);

/* scope_profile_waits flags: do not keep one row per matched message
 * (scope_waits_messages then gives none; the counts stay), for runs with
 * more messages than memory. */
#define SCOPE_WAITS_NO_MESSAGES 1

typedef struct scope_waits scope_waits;

/* Matches the messages and computes the wait states of the whole profile,
 * within the default memory budget (scope_profile_waits_budget with 0).
 * Returns 0 with *out set (free it with scope_waits_free), SCOPE_EINVAL,
 * SCOPE_ENOMEM, SCOPE_EIO (a temporary file failed), or a read error of
 * the MPI regions' columns. A profile without MPI data gives an empty
 * result (scope_waits_has_data() 0). */
SCOPE_READER_API int scope_profile_waits(scope_profile *p, int flags, scope_waits **out);

/* The same within `memory_bytes` (0: the default, 1 GiB or a quarter of
 * the machine's memory when less). Cost: reads each rank's MPI regions
 * (times, data columns, requests) once, one rank at a time, and drops
 * what it read unless the caller had it cached; O(m) in the MPI calls m
 * plus sorts of what was not in order. Memory: 4 bytes per MPI call (its
 * longest wait), 40 per waiting call, 112 per matched message unless
 * SCOPE_WAITS_NO_MESSAGES, and the ends being matched: about 160 bytes
 * per point-to-point end and 48 per collective call. When those exceed
 * the budget, the ends are matched in buckets of (sender, receiver) pairs
 * and of communicators, the buckets waiting their turn in unlinked
 * temporary files ($TMPDIR, else /tmp): memory stays near the budget,
 * except that one communicator's collective calls are held together. The
 * results do not depend on the budget, only the order of the messages.
 * A profile with I/O columns also has each waited-for rank's I/O calls
 * read once (kept cached with the profile), and the times of the MPI
 * regions that waited again, for scope_waits_rows_io. */
SCOPE_READER_API int scope_profile_waits_budget(scope_profile *p, int flags,
                                                int64_t memory_bytes, scope_waits **out);
SCOPE_READER_API void scope_waits_free(scope_waits *w);

/* 1 when the profile recorded what its MPI calls moved, else 0. */
SCOPE_READER_API int scope_waits_has_data(const scope_waits *w);

/* Waiting time of one (rank, region, pattern, waited-for rank): the
 * instances whose wait exceeds the clock bound between the two ranks and
 * their time, and the instances that waited no more than that bound
 * (their time is not a number the clocks can give, so it is not added).
 * Rows sorted by time, largest first. */
typedef struct scope_wait_row {
    int32_t rank, region, pattern, waited_for;
    int64_t instances;      /* waits above the bound */
    int64_t time_ns;        /* their sum */
    int64_t within_bound;   /* waits of at most the bound */
} scope_wait_row;
SCOPE_READER_API int64_t scope_waits_rows(const scope_waits *w, const scope_wait_row **rows);

/* One waiting call: a blocking MPI call (or the MPI_Wait* completing a
 * nonblocking one) that waited, the longest of its waits when it
 * completed several messages. `call` indexes scope_profile_times() of
 * (region, rank). Sorted by rank, region, call. */
typedef struct scope_wait_call {
    int32_t rank, region;
    int64_t call;
    int32_t pattern, waited_for;
    int64_t wait_ns;
    int64_t bound_ns;       /* the clock bound between the two ranks */
} scope_wait_call;
SCOPE_READER_API int64_t scope_waits_calls(const scope_waits *w, const scope_wait_call **calls);

/* One matched point-to-point message. The send side is its posting call
 * (MPI_Send, MPI_Isend, MPI_Sendrecv, MPI_Start, ...); the receive side
 * its posting call and the call that completed it (the same call for a
 * blocking receive). `comm` numbers the run's communicators
 * (scope_waits_comm_name). wait_ns: the late-sender wait of the receive,
 * or the late-receiver wait of the send (`pattern` says which), 0 none. */
typedef struct scope_message {
    int32_t sender, receiver, tag, comm;
    int64_t bytes;
    int32_t send_region, recv_region, recv_done_region;
    int64_t send_call, recv_call, recv_done_call;
    int64_t send_start_ns, send_end_ns, recv_start_ns, recv_end_ns;
    int64_t wait_ns;
    int32_t pattern;        /* SCOPE_WAIT_LATE_SENDER / _LATE_RECEIVER, -1 none */
} scope_message;
SCOPE_READER_API int64_t scope_waits_messages(const scope_waits *w, const scope_message **msgs);

/* Messages one side saw and the other did not: sends no receive matched
 * (the receiver died or never received it) and receives no send matched
 * (the sender's record is missing). One row per (rank, peer, side). */
typedef struct scope_unmatched {
    int32_t rank, peer;
    int32_t is_send;        /* 1: rank sent to peer; 0: rank received from peer */
    int64_t count;
} scope_unmatched;
SCOPE_READER_API int64_t scope_waits_unmatched(const scope_waits *w,
                                               const scope_unmatched **rows);

/* The run's totals. */
typedef struct scope_waits_totals {
    int64_t messages;           /* matched */
    int64_t unmatched_sends, unmatched_receives;
    int64_t collective_instances;   /* matched across the members */
    int64_t incomplete_collectives; /* instances some member never entered
                                       (it died) or entered as another call */
    int64_t unanalysed_calls;   /* MPI calls that could not be placed:
                                   without data, MPI_Startall's sends,
                                   intercommunicator collectives */
    int64_t waiting_ns[SCOPE_WAIT_PATTERNS];   /* above the bound */
    int64_t instances[SCOPE_WAIT_PATTERNS];
    int64_t within_bound[SCOPE_WAIT_PATTERNS];
    int64_t waiting_total_ns;   /* sum of waiting_ns */
    int64_t mpi_ns;             /* time in the analysed MPI calls */
    int64_t max_bound_ns;       /* the largest clock bound between two
                                   ranks that exchanged a message or met in
                                   a collective; -1 unknown (unaligned) */
    int comms;                  /* communicators of the run */
    int buckets;                /* the matching's buckets (1: all at once) */
    int spilled;                /* 1: buckets went through temporary files */
    /* What the analysis cost, wall (CLOCK_MONOTONIC) and this thread's CPU
     * time: gathering (reading each rank's MPI columns and request tables,
     * making the message ends) and matching (messages, collective
     * instances, wait states, the rows). */
    int64_t gather_ns, gather_cpu_ns;
    int64_t match_ns, match_cpu_ns;
} scope_waits_totals;
SCOPE_READER_API void scope_waits_totals_get(const scope_waits *w, scope_waits_totals *out);

/* What the waited-for rank was doing in I/O while the waits went on
 * (docs/analysis.md, "Waits spent in I/O"): of each wait above its
 * bound, the part of [the waiting call's start, start + wait] that the
 * waited-for rank spent inside an outermost I/O call (one no other I/O
 * layer issued: the pwrite inside MPI_File_write_at_all counts as that
 * call, once), on the same aligned timeline. I/O calls of several
 * threads that overlap count once, for the call that began first.
 * file: the file that took the largest share (an HDF5 dataset's calls
 * count on its file; a tie goes to the name that sorts first), an index
 * for scope_waits_io_file, -1 none; files:
 * how many files took part (calls without a file, such as a failed open,
 * count in io_ns only). */
typedef struct scope_wait_io {
    int64_t io_ns;          /* the waited-for rank's time in I/O during the waits */
    int64_t file_ns;        /* of it, on `file` */
    int32_t file;
    int32_t files;
} scope_wait_io;

/* One scope_wait_io per row of scope_waits_rows, in the same order
 * (io[i] is rows[i]'s); all zero (file -1) for a profile without I/O
 * columns. Returns the count (that of the rows). */
SCOPE_READER_API int64_t scope_waits_rows_io(const scope_waits *w, const scope_wait_io **io);
/* The same over every row: the run's waiting time spent in I/O, the file
 * that took the most of it. */
SCOPE_READER_API void scope_waits_io_totals(const scope_waits *w, scope_wait_io *out);
/* The name of file `file` of scope_wait_io (the name the kernel resolved,
 * else as the program gave it, as scope_io_report's files); NULL out of
 * range. */
SCOPE_READER_API const char *scope_waits_io_file(const scope_waits *w, int file);
/* 1 when the profile has I/O columns (so the scope_wait_io numbers mean
 * something), else 0. */
SCOPE_READER_API int scope_waits_has_io(const scope_waits *w);

/* "MPI_COMM_WORLD", a name the program gave, or "comm<K>" with its size;
 * the run's communicator `comm` of scope_message. NULL out of range. */
SCOPE_READER_API const char *scope_waits_comm_name(const scope_waits *w, int comm);

#ifdef __cplusplus
}
#endif

#endif /* SCOPE_READER_WAITS_H */
