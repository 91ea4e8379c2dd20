/*
 * mpi_capture_state.h - the argument capture's per-thread state
 * (mpi_capture_state.c), shared by the files of the capture:
 * mpi_capture_hot.c (the entry and exit of every captured call, with
 * paths of their own for the calls a request-driven code makes most:
 * MPI_Isend & co, MPI_Irecv, MPI_Wait) and mpi_capture.c (the byte model
 * of every other call, the completion calls of many requests, persistent
 * requests). Internal to the preload.
 */
#ifndef SCOPE_MPI_CAPTURE_STATE_H
#define SCOPE_MPI_CAPTURE_STATE_H

#include <stdint.h>
#include <string.h>

#include "arch_trampoline.h"
#include "journal.h"
#include "mpi_abi.h"
#include "mpi_capture.h"
#include "mpi_comms.h"
#include "mpi_requests.h"
#include "scope_calls.h"
#include "scope_internal.h"

/* Arguments copied at a captured call's entry: the most a call the byte
 * model covers takes (MPI_Rget_accumulate); mpi_hook.c captures no call
 * with more. */
#define SCOPE_CAPTURE_MAX_ARGS 13

/* The records of the call being captured (its data record, a post, its
 * completions), written together when the capture ends: one check of the
 * journal's room for all of them. */
#define SCOPE_CAPTURE_MAX_OUT 16
struct scope__capture_out {
    unsigned n;
    struct scope_rec r[SCOPE_CAPTURE_MAX_OUT];
};

/* What a thread needs beyond its state only when it completes requests
 * or follows a Fortran binding's C call: allocated once, on first need. */
#define SCOPE_CAPTURE_MAX_FOLLOW 256    /* requests of one completion call followed */
#define SCOPE_CAPTURE_MAX_PENDING 64    /* records waiting for an outer call's end */
struct scope__capture_ext {
    uint64_t handles[SCOPE_CAPTURE_MAX_FOLLOW];     /* the requests as the call got them */
    int nhandles;
    unsigned char statuses[SCOPE_CAPTURE_MAX_FOLLOW * 32];  /* for MPI_STATUSES_IGNORE */
    struct scope_rec pending[SCOPE_CAPTURE_MAX_PENDING];    /* scope__cap.npending of them */
};

#define SCOPE_MPI_OPEN_COUNT 0xffu
#define SCOPE_MPI_OPEN_FORTRAN SCOPE_MPI_OP_FORTRAN /* the op's bit: copied as is.
                                            Stays set once the count is 0: the
                                            next outermost call rewrites it */

_Static_assert((SCOPE_MPI_OPEN_FORTRAN & SCOPE_MPI_OPEN_COUNT) == 0, "the bit is not the count's");

/* One per thread: MPI calls do not nest in the recording. The status is
 * large enough for every ABI's MPI_Status (20 and 24 bytes). One struct,
 * so that the hot path finds all of it from one thread pointer. */
struct scope__mpi_state {
    uint32_t open;              /* the MPI calls entered and not left (the
                                   engine's frames of this capture) in
                                   SCOPE_MPI_OPEN_COUNT, and whether the
                                   outermost is a Fortran binding */
    uint32_t op;                /* the call being captured (mpi_capture.h), 0: none */
    uint32_t npending;          /* records a followed call keeps for the end
                                   of the call around it (in the extension) */
    const scope__mpi_abi *abi;  /* found at the entry, for the exit */
    uint64_t comm_handle;       /* the last communicator looked up, and */
    const struct scope__comm *comm;         /* its entry (scope__capture_comm) */
    uint64_t req;               /* MPI_Wait: the request as the call got it;
                                   a matched receive: its message */
    uint64_t a[SCOPE_CAPTURE_MAX_ARGS];
    uint64_t status[8];
    struct scope__capture_out out;
};
/* This thread's state (mpi_capture_state.c), and its extension: NULL
 * until scope__capture_ext() made it. */
extern __thread struct scope__mpi_state scope__cap __attribute__((tls_model("initial-exec")));
extern __thread struct scope__capture_ext *scope__cap_ext __attribute__((tls_model("initial-exec")));

/* This thread's extension, made at its first need; NULL when out of
 * memory. */
struct scope__capture_ext *scope__capture_ext(void);

/* The handle stored at `p` (a request, a communicator returned through a
 * pointer): 4 or 8 bytes by the ABI, read with a fixed-size load. */
static inline uint64_t scope__capture_handle_at(const scope__mpi_abi *abi, const void *p)
{
    if (abi->handle_size == 8) {
        uint64_t h;
        memcpy(&h, p, sizeof h);
        return h;
    }
    uint32_t h;
    memcpy(&h, p, sizeof h);
    return h;
}

/* Where argument i of the call lives: the first ones in the saved
 * registers below `saved` (on x86-64 rdi at saved[-1] ... r9 at saved[-6];
 * arch_trampoline.h), the rest on the caller's stack above the
 * return-address slot. */
static inline uint64_t *scope__capture_arg_at(uint64_t *saved, uintptr_t *slot, int i)
{
    return i < SCOPE_ARCH_SAVED_ARGS ? &saved[-1 - i]
                                     : (uint64_t *)&slot[1 + (i - SCOPE_ARCH_SAVED_ARGS)];
}

/* What a completion of a request posted on communicator cm (NULL: none,
 * a one-sided request) needs to translate a receive's source: its world
 * ranks, the remote group's for an intercommunicator. `recv`: a receive
 * whose status is to be read at its completion. */
static inline struct scope__req scope__capture_req(const struct scope__comm *cm, int recv)
{
    if (!cm)
        return (struct scope__req){ 0, recv, NULL, 0, 0 };
    int inter = cm->remote_size > 0;
    return (struct scope__req){ 0, recv, cm->world, inter ? cm->remote_size : cm->size,
                                inter ? cm->size : 0 };
}

/* mpi_capture.c: every call the hot paths do not take. The entry copies
 * the arguments of call `row` (the ABI is ready); the exit turns those of
 * operation `op` into records and writes them (or keeps them, with
 * `keep`). */
void scope__capture_generic_enter(const struct scope_call_row *row, const scope__mpi_abi *abi,
                                  uint64_t *saved, uintptr_t *slot);
void scope__capture_generic_exit(const scope__mpi_abi *abi, uint32_t op, int keep);

/* Keeps n records of a followed call for its outer call's end
 * (scope__mpi_capture_flush); beyond SCOPE_CAPTURE_MAX_PENDING they are
 * lost. */
void scope__capture_keep(const struct scope_rec *r, unsigned n);

/* Writes a call's n records to the journal now, or, with `keep` (a
 * silent call inside another), keeps them for the outer call's end. */
static inline void scope__capture_put(const struct scope_rec *r, unsigned n, int keep)
{
    if (keep)
        scope__capture_keep(r, n);
    else
        scope__record_data_recs(r, n);
}

/* mpi_capture.c: the completion record of request `handle` (what a
 * receive's `status` says, NULL when none) into *out. Returns 1, or 0
 * when the request is not followed. */
int scope__capture_completion(const scope__mpi_abi *abi, uint64_t handle, const void *status,
                              struct scope_rec *out);

#endif
