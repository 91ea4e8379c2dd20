/*
 * mpi_moved.h - the byte model (mpi_moved.c): what an MPI call moved,
 * read from its own arguments at the positions its row of the vocabulary
 * names (format/scope_calls.h), as docs/format.md "What MPI calls moved"
 * defines it. The capture (mpi_capture.c) copies the arguments at the
 * call's entry and asks this at its exit; this file knows no request,
 * journal record or thread state.
 */
#ifndef SCOPE_MPI_MOVED_H
#define SCOPE_MPI_MOVED_H

#include <stdint.h>

#include "journal.h"
#include "mpi_abi.h"
#include "mpi_comms.h"
#include "scope_calls.h"

/* The arguments of one call, as the capture copied them. */
struct scope__mpi_args {
    const scope__mpi_abi *abi;
    const struct scope_call_row *row;   /* the call (its class, form, roles) */
    const uint64_t *a;                  /* a[i]: its argument i */
    int big;                            /* the large-count form: counts are MPI_Counts */
    const struct scope__comm *comm;     /* a call that names no communicator (a
                                           matched receive): the one it is on,
                                           else NULL */
};

/* 1 when the model says what calls of `row` moved (or what they mean to
 * the calls that follow: a communicator or a window made, a request
 * completed), so that the capture copies their arguments; 0 for calls it
 * only times. Pure. */
int scope__mpi_model_covers(const struct scope_call_row *row);

/* What call m moved, into d (whose fields start as "nothing": 0 bytes,
 * SCOPE_DATA_NO_RANK, SCOPE_DATA_NO_TAG). *used is set to the
 * communicator measured against (a post's completion translates its
 * source through it; NULL for one-sided calls and windows). Returns 0,
 * or -1 when nothing is to be recorded. Only for a call MPI accepted.
 * Cost: a datatype size per datatype described, a walk of a count array,
 * the communicator's lookup. */
int scope__mpi_moved(const struct scope__mpi_args *m, struct scope_call_data *d,
                     const struct scope__comm **used);

/* Of what all-to-all call m with per-member counts (MPI_Alltoallv,
 * Alltoallw and their nonblocking forms; 0 for any other) sent on
 * intracommunicator c, the bytes of the rank's block to itself (with
 * MPI_IN_PLACE: its receive block), for its self record (journal.h).
 * Only for a call MPI accepted. Cost: one or two datatype sizes. */
int64_t scope__mpi_self_bytes(const struct scope__mpi_args *m, const struct scope__comm *c);

/* The bytes a receive's status says arrived (0 when none), and whether it
 * was cancelled. */
int64_t scope__mpi_status_bytes(const scope__mpi_abi *abi, const void *status, int *cancelled);

#endif
