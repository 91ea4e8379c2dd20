/*
 * mpi_windows.h - the windows one-sided calls name (mpi_windows.c): each
 * window's communicator row and its members' world ranks, for the byte
 * model (mpi_moved.c), which calls it and is not called back.
 */
#ifndef SCOPE_MPI_WINDOWS_H
#define SCOPE_MPI_WINDOWS_H

#include <stdatomic.h>
#include <stdint.h>

#include "mpi_abi.h"
#include "mpi_comms.h"

struct scope__win {
    _Atomic uint64_t handle;    /* 0 free, 1 freed (probes go on) */
    int32_t comm;               /* row of the communicator table */
    int32_t size;
    int32_t *world;             /* the group's members' world ranks */
};

/* The table of windows (mpi_windows.c), open addressing by handle. */
#define SCOPE_MPI_WIN_SLOTS 1024u     /* a power of two */
extern struct scope__win scope__mpi_wins[SCOPE_MPI_WIN_SLOTS];

static inline uint32_t scope__mpi_win_hash(uint64_t h)
{
    return (uint32_t)((h * 0x9e3779b97f4a7c15ull) >> 54) & (SCOPE_MPI_WIN_SLOTS - 1);
}

/* scope__mpi_win_get() past its own slot: the probe, then learning the
 * window. */
const struct scope__win *scope__mpi_win_find(const scope__mpi_abi *abi, uint64_t h);

/* Window h (a handle MPI has just accepted): its entry, learnt at its
 * creation, else now from MPI_Win_get_group; NULL when it cannot be
 * known. Lock-free once known; a window in its own slot costs a load. */
static inline const struct scope__win *scope__mpi_win_get(const scope__mpi_abi *abi, uint64_t h)
{
    if (abi->handle_size == 4)
        h &= 0xffffffffu;
    const struct scope__win *e = &scope__mpi_wins[scope__mpi_win_hash(h)];
    if (h && atomic_load_explicit(&e->handle, memory_order_acquire) == h)
        return e;
    return scope__mpi_win_find(abi, h);
}

/* A window was made on communicator c (MPI accepted the call): its
 * handle is at wp (the call's output argument; NULL: none). Learns its
 * members. An intercommunicator's windows are not followed. */
void scope__mpi_win_created(const scope__mpi_abi *abi, const struct scope__comm *c,
                            const void *wp);

#endif
