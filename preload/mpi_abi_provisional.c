/*
 * mpi_abi_provisional.c - PROVISIONAL stand-in for preload/mpi_abi.c, the
 * per-ABI tables of mpi_abi.h, so that the clock alignment (clock_align.c)
 * can be written against the contract of mpi_abi.h before the real
 * implementation (the "every MPI" work) is merged. It knows Open MPI only:
 * handles are the addresses of Open MPI's predefined objects, looked up at
 * run time (the preload never links libmpi), in the global scope first
 * because an executable may hold a copy relocation of them.
 *
 * It will be replaced by the real preload/mpi_abi.c; the integrator drops
 * this file at merge (and its line in preload/meson.build).
 */
#include <stddef.h>

#include "mpi_abi.h"
#include "preload_state.h"

static scope__mpi_abi openmpi = {
    .kind = SCOPE_MPI_ABI_OPENMPI,
    .name = "Open MPI",
    .handle_size = 8,
    .comm_type_shared = 0,      /* OMPI_COMM_TYPE_NODE == MPI_COMM_TYPE_SHARED */
    .undefined = -32766,
    .status_ignore = NULL,
    .status_size = 24,          /* MPI_SOURCE, MPI_TAG, MPI_ERROR, _cancelled, size_t _ucount */
};

/* Returns the Open MPI table once every handle resolved, else NULL (no
 * libmpi.so.40 in the process). Concurrent first calls resolve twice and
 * store the same values. Cost: six dlsym the first time. */
const scope__mpi_abi *scope__mpi_abi_get(void)
{
    static int state; /* 0 unknown, 1 ready, -1 none */
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (s != 0)
        return s > 0 ? &openmpi : NULL;
    static const char *const names[6] = { "ompi_mpi_comm_world", "ompi_mpi_comm_null",
                                          "ompi_mpi_info_null", "ompi_mpi_byte",
                                          "ompi_mpi_double", "ompi_mpi_int64_t" };
    scope__mpi_handle *slots[6] = { &openmpi.comm_world, &openmpi.comm_null,
                                    &openmpi.info_null, &openmpi.dt_byte,
                                    &openmpi.dt_double, &openmpi.dt_int64 };
    for (int i = 0; i < 6; i++) {
        void *p = scope__global_symbol(names[i]);
        if (p == NULL) {
            __atomic_store_n(&state, -1, __ATOMIC_RELEASE);
            return NULL;
        }
        *slots[i] = (scope__mpi_handle)(uintptr_t)p;
    }
    __atomic_store_n(&state, 1, __ATOMIC_RELEASE);
    return &openmpi;
}
