/*
 * mpi_lent.c - what the MPI capture lends the other captures
 * (../lent.h): the I/O capture's MPI-IO calls read their handles,
 * datatypes and statuses through the same ABI tables and datatype sizes
 * as the MPI capture's own calls (one preload for every ABI), and the MPI
 * calls made inside an MPI-IO call are the library's, as inside any timed
 * MPI call.
 */
#include <stdatomic.h>

#include "lent.h"
#include "mpi_abi.h"
#include "mpi_capture.h"
#include "mpi_capture_state.h"
#include "mpi_comms.h"

static const scope__mpi_abi *abi_ready(void)
{
    static _Atomic int types;
    const scope__mpi_abi *abi = scope__mpi_abi_get();
    if (!abi || !scope__pmpi_ready())
        return NULL;
    if (!atomic_load_explicit(&types, memory_order_acquire)) {
        scope__mpi_types_ready();
        atomic_store_explicit(&types, 1, memory_order_release);
    }
    return abi;
}

static int ready(void)
{
    return abi_ready() != NULL;
}

static uint64_t handle(uint64_t reg)
{
    const scope__mpi_abi *abi = abi_ready();
    return abi && abi->handle_size == 4 ? (uint32_t)reg : reg;
}

static uint64_t handle_at(const void *p)
{
    const scope__mpi_abi *abi = abi_ready();
    return abi && p ? scope__capture_handle_at(abi, p) : 0;
}

static int64_t bytes(uint64_t count, uint64_t type, int big)
{
    int64_t n = scope__mpi_cnt(big, count);
    return n && abi_ready() ? n * scope__mpi_type_size(handle(type)) : 0;
}

static int status_bytes(const void *status, int64_t *n)
{
    const scope__mpi_abi *abi = abi_ready();
    int cancelled;
    return abi && status && status != abi->status_ignore &&
           scope__mpi_status_size(abi, status, n, &cancelled);
}

static int failed(int32_t ret)
{
    const scope__mpi_abi *abi = abi_ready();
    return ret != (abi ? abi->success : 0);
}

static const struct scope__mpi_lent lent = {
    .busy = scope__mpi_busy,
    .foreign_enter = scope__mpi_foreign_enter,
    .foreign_leave = scope__mpi_foreign_leave,
    .ready = ready,
    .handle = handle,
    .handle_at = handle_at,
    .bytes = bytes,
    .status_bytes = status_bytes,
    .failed = failed,
};

void scope__mpi_lend(void)
{
    scope__mpi_lent = &lent;
}
