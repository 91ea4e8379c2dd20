/*
 * mpi_capture_state.h - the argument capture's per-thread state, shared by
 * its two files: mpi_capture_hot.c (the entry and exit of every captured
 * call, with paths of their own for the calls a request-driven code makes
 * most: MPI_Isend & co, MPI_Irecv, MPI_Wait) and mpi_capture.c (the byte
 * model of every other call, the completion calls of many requests,
 * persistent requests). Internal to the preload.
 */
#ifndef SCOPE_MPI_CAPTURE_STATE_H
#define SCOPE_MPI_CAPTURE_STATE_H

#include <stdint.h>
#include <string.h>

#include "arch_trampoline.h"
#include "journal.h"
#include "mpi_abi.h"
#include "mpi_comms.h"
#include "mpi_ops.h"
#include "mpi_requests.h"
#include "scope_internal.h"

#define SCOPE_CAPTURE_MAX_ARGS 13

/* The records of the call being captured (its data record, a post, its
 * completions), written together when the capture ends: one check of the
 * journal's room for all of them. */
#define SCOPE_CAPTURE_MAX_OUT 16
struct scope__capture_out {
    unsigned n;
    struct scope_rec r[SCOPE_CAPTURE_MAX_OUT];
};

/* One per thread: MPI calls do not nest in the recording. The status is
 * large enough for every ABI's MPI_Status (20 and 24 bytes). One struct,
 * so that the hot path finds all of it from one thread pointer. */
struct scope__capture {
    uint32_t op;
    int big;                    /* counts are MPI_Counts (a large-count call) */
    const scope__mpi_abi *abi;  /* found at the entry, for the exit */
    const struct scope__comm *used_comm;    /* what the last bytes_of()
                                               measured against */
    uint64_t comm_handle;       /* the last communicator looked up, and */
    const struct scope__comm *comm;         /* its entry (scope__capture_comm) */
    uint64_t req;               /* MPI_Wait: the request as the call got it */
    uint64_t a[SCOPE_CAPTURE_MAX_ARGS];
    uint64_t status[8];
    struct scope__capture_out out;
};
/* (defined in mpi_capture.c) */
extern __thread struct scope__capture scope__cap __attribute__((tls_model("initial-exec")));

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

/* Communicator h's entry (scope__mpi_comm_get), the thread's last one
 * straight from the capture: a program talks on few communicators, and
 * the entry's own handle says whether it still is h's (a freed
 * communicator's entry changes handle). NULL when it cannot be made. */
static inline const struct scope__comm *scope__capture_comm(const scope__mpi_abi *abi, uint64_t h)
{
    struct scope__capture *c = &scope__cap;
    const struct scope__comm *e = c->comm;
    if (abi->handle_size == 4)
        h &= 0xffffffffu;   /* an int handle: the register's upper half is not its */
    if (e && h == c->comm_handle && atomic_load_explicit(&e->handle, memory_order_acquire) == h)
        return e;
    e = scope__mpi_comm_get(abi, h);
    c->comm = e;
    c->comm_handle = h;
    return e;
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
 * the arguments of operation o (the ABI is ready); the exit turns them
 * into records and writes them (or keeps them, with `keep`). */
void scope__capture_generic_enter(const struct scope__mpi_op *o, const scope__mpi_abi *abi,
                                  uint64_t *saved, uintptr_t *slot);
void scope__capture_generic_exit(const scope__mpi_abi *abi, uint32_t op, int keep);

/* mpi_capture.c: keeps n records of a silent call for its outer call's
 * end (scope__mpi_capture_flush). */
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
