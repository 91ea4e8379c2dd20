/*
 * pmpi.h - the one table of the PMPI entry points the preload calls for
 * its own work (the ABI's detection, rank and size at init, the library's
 * version, clock alignment, host files, the argument capture's queries):
 * each looked up once, as the
 * next definition after the preload (symbol_next.c), so a tool wrapping
 * MPI_* never sees scope's own messages. The preload never links libmpi
 * and includes no mpi.h: handles are scope__mpi_handle (mpi_handle.h),
 * with the values of the ABI detected at run time (mpi_abi.h, whose
 * detection asks this table which library defines PMPI_Comm_rank). The
 * argument capture copies the few it calls on every recorded call, past
 * their own trampolines (mpi_comms.h, scope__P).
 */
#ifndef SCOPE_PMPI_H
#define SCOPE_PMPI_H

#include <stdint.h>

#include "mpi_handle.h"

/* The base name of the objects asked first for an MPI name in the link
 * map (symbol_next.h): libmpi.so*, so that the answer does not depend on
 * load order when several objects define the name. */
#define SCOPE__MPI_LIBRARY_FIRST "libmpi.so"

/* An attribute's copy and delete callbacks (MPI_Comm_create_keyval,
 * MPI_Win_create_keyval), in scope__mpi_handle terms. */
typedef int (*scope__attr_copy_fn)(scope__mpi_handle, int, void *, void *, void *, int *);
typedef int (*scope__attr_delete_fn)(scope__mpi_handle, int, void *, void *);

struct scope__pmpi {
    int (*comm_rank)(scope__mpi_handle, int *); /* NULL: no MPI library mapped yet */
    int (*comm_size)(scope__mpi_handle, int *);
    int (*comm_split)(scope__mpi_handle, int, int, scope__mpi_handle *);
    int (*comm_split_type)(scope__mpi_handle, int, int, scope__mpi_handle, scope__mpi_handle *);
    int (*comm_free)(scope__mpi_handle *);
    int (*comm_group)(scope__mpi_handle, scope__mpi_handle *);
    int (*group_translate_ranks)(scope__mpi_handle, int, const int *, scope__mpi_handle, int *);
    int (*group_free)(scope__mpi_handle *);
    int (*send)(const void *, int, scope__mpi_handle, int, int, scope__mpi_handle);
    int (*irecv)(void *, int, scope__mpi_handle, int, int, scope__mpi_handle,
                 scope__mpi_handle *);
    int (*test)(scope__mpi_handle *, int *, void *);
    int (*ibarrier)(scope__mpi_handle, scope__mpi_handle *);
    int (*ibcast)(void *, int, scope__mpi_handle, int, scope__mpi_handle, scope__mpi_handle *);
    int (*igather)(const void *, int, scope__mpi_handle, void *, int, scope__mpi_handle, int,
                   scope__mpi_handle, scope__mpi_handle *);
    int (*igatherv)(const void *, int, scope__mpi_handle, void *, const int *, const int *,
                    scope__mpi_handle, int, scope__mpi_handle, scope__mpi_handle *);
    int (*get_library_version)(char *, int *);
    int (*abi_get_version)(int *, int *); /* the MPI-5 standard ABI's; may be NULL */
    /* what the argument capture (mpi_comms.c, mpi_rma.c) asks of MPI */
    int (*type_size)(scope__mpi_handle, int *);
    int (*get_count)(const void *, scope__mpi_handle, int *);
    int (*get_count_c)(const void *, scope__mpi_handle, int64_t *);  /* MPI 4; may be NULL */
    int (*test_cancelled)(const void *, int *);
    int (*comm_remote_size)(scope__mpi_handle, int *);
    int (*comm_test_inter)(scope__mpi_handle, int *);
    int (*comm_remote_group)(scope__mpi_handle, scope__mpi_handle *);
    int (*comm_get_name)(scope__mpi_handle, char *, int *);
    int (*comm_create_keyval)(scope__attr_copy_fn, scope__attr_delete_fn, int *, void *);
    int (*comm_set_attr)(scope__mpi_handle, int, void *);
    int (*topo_test)(scope__mpi_handle, int *);
    int (*cartdim_get)(scope__mpi_handle, int *);
    int (*cart_shift)(scope__mpi_handle, int, int, int *, int *);
    int (*graph_neighbors_count)(scope__mpi_handle, int, int *);
    int (*dist_graph_neighbors_count)(scope__mpi_handle, int *, int *, int *);
    int (*group_size)(scope__mpi_handle, int *);
    int (*win_get_group)(scope__mpi_handle, scope__mpi_handle *);  /* MPI 2 one-sided; may be NULL */
    int (*win_create_keyval)(scope__attr_copy_fn, scope__attr_delete_fn, int *, void *);
    int (*win_set_attr)(scope__mpi_handle, int, void *);
};

/* The table, looked up on the first call that finds an MPI library (a
 * field the library lacks is NULL: each user checks the ones it needs).
 * While no object defines PMPI_Comm_rank every field is NULL and the
 * next call looks again, at the cost of that one lookup. Call it outside
 * signal handlers: the lookups may take the loader's lock. Thread-safe;
 * one atomic load once the table is built. */
const struct scope__pmpi *scope__pmpi(void);

#endif
