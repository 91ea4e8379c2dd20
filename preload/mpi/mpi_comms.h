/*
 * mpi_comms.h - MPI through PMPI for the argument capture, and the
 * communicators it has seen (mpi_comms.c): the PMPI functions read on
 * every recorded call, datatype sizes and counts, each communicator's
 * world ranks, creating call and neighbourhood. The byte model
 * (mpi_moved.c), the capture and the windows (mpi_windows.c) use it; it
 * uses none of them (docs/format.md "What MPI calls moved" is the
 * contract).
 */
#ifndef SCOPE_MPI_COMMS_H
#define SCOPE_MPI_COMMS_H

#include <stdatomic.h>
#include <stdint.h>

#include "mpi_abi.h"

/* ----------------------------------------------------- MPI, through PMPI */

typedef int (*scope__type_size_fn)(scope__mpi_handle, int *);
typedef int (*scope__get_count_fn)(const void *, scope__mpi_handle, int *);
typedef int (*scope__get_count_c_fn)(const void *, scope__mpi_handle, int64_t *);
typedef int (*scope__comm_int_fn)(scope__mpi_handle, int *);
typedef int (*scope__comm_group_fn)(scope__mpi_handle, scope__mpi_handle *);
typedef int (*scope__test_cancelled_fn)(const void *, int *);

/* The PMPI functions the byte model calls on every recorded call, copied
 * from pmpi.h's one table by scope__pmpi_ready(), past their own
 * trampolines when the config patched them too (the rest are asked of
 * that table directly). Valid once scope__pmpi_ready() said 1. */
struct scope__capture_pmpi {
    scope__type_size_fn type_size;
    scope__get_count_fn get_count;
    scope__get_count_c_fn get_count_c;  /* MPI 4: sizes past 2 GiB; NULL before */
    scope__test_cancelled_fn test_cancelled;
    scope__comm_group_fn win_get_group; /* NULL: one-sided calls get no target */
};
extern struct scope__capture_pmpi scope__P;

/* Looks the PMPI functions up once (every thread); returns 1 when the
 * capture can run, else 0 (then nothing is recorded beyond times). */
int scope__pmpi_ready(void);

/* The ABI's builtin_type_sizes, set once the capture can run. */
extern int scope__mpi_builtin_type_sizes;

/* Open MPI's predefined datatypes are objects in libmpi's own data
 * (MPI_INT is &ompi_mpi_int), or in the program's when it was linked with
 * copy relocations; derived ones are allocated. A handle inside either
 * writable segment is predefined, never freed, and its size never
 * changes, so it is asked of MPI once and kept in a small cache (the
 * handle in the upper 48 bits, its size in the lower 16). The spans are 0
 * where unknown, and for the other ABIs. */
extern uintptr_t scope__mpi_predef_lo[2], scope__mpi_predef_span[2];
#define SCOPE_MPI_TSIZE_SLOTS 64u
extern _Atomic uint64_t scope__mpi_tsize[SCOPE_MPI_TSIZE_SLOTS];

static inline int scope__mpi_predefined(uint64_t type)
{
    return type - scope__mpi_predef_lo[0] < scope__mpi_predef_span[0] ||
           type - scope__mpi_predef_lo[1] < scope__mpi_predef_span[1];
}

/* Learns the ABI's datatype shortcuts once the capture can run: MPICH's
 * sizes in handles, Open MPI's predefined segment (dl_iterate_phdr once). */
void scope__mpi_types_ready(void);

/* scope__mpi_type_size() past its shortcuts: MPI_Type_size, kept in the
 * cache when `type` is a predefined one. */
int64_t scope__mpi_type_size_slow(uint64_t type);

static inline uint32_t scope__mpi_tsize_slot(uint64_t type)
{
    return (uint32_t)((type * 0x9e3779b97f4a7c15ull) >> 58) & (SCOPE_MPI_TSIZE_SLOTS - 1);
}

/* The size of `type` (MPI_Type_size; 0 when MPI says none). Only for a
 * datatype MPI has just accepted. MPICH's predefined datatypes say their
 * size in their handle (kind "builtin", datatype: bits 26..31 0x13; the
 * size in bits 8..15, as MPICH's own MPIR_Datatype_get_basic_size reads
 * it), which costs a shift instead of a call; Open MPI's predefined ones
 * a load from the cache above. */
static inline int64_t scope__mpi_type_size(uint64_t type)
{
    if (scope__mpi_builtin_type_sizes && ((uint32_t)type & 0xfc000000u) == 0x4c000000u)
        return (int64_t)(((uint32_t)type >> 8) & 0xffu);
    if (scope__mpi_predefined(type)) {
        uint64_t w = atomic_load_explicit(&scope__mpi_tsize[scope__mpi_tsize_slot(type)],
                                          memory_order_relaxed);
        if (w && (w >> 16) == type)
            return (int64_t)(w & 0xffffu);
    }
    return scope__mpi_type_size_slow(type);
}

/* A count argument: an int, or an MPI_Count in the large-count (`big`)
 * functions; negative reads 0. */
static inline int64_t scope__mpi_cnt(int big, uint64_t a)
{
    int64_t v = big ? (int64_t)a : (int)(uint32_t)a;
    return v > 0 ? v : 0;
}

/* Entry i of a count array (ints, or MPI_Counts when `big`); 0 for none. */
static inline int64_t scope__mpi_count_at(int big, uint64_t counts, int i)
{
    if (!counts || i < 0)
        return 0;
    int64_t v = big ? ((const int64_t *)(uintptr_t)counts)[i] : ((const int *)(uintptr_t)counts)[i];
    return v > 0 ? v : 0;
}

/* --------------------------------------------------------- communicators */

struct scope__comm {
    _Atomic uint64_t handle;    /* 0: free slot (no ABI's handle is 0);
                                   SCOPE__COMM_GONE: freed (probes go on) */
    int32_t id;                 /* row of /rank<N>/communicators */
    int32_t size, remote_size, me;
    int32_t *world;             /* size local members, then remote_size remote */
    /* the topology's neighbours, learnt at the first neighbourhood
     * collective: 0 not yet, 1 known, -1 none (no topology, or MPI refused) */
    _Atomic int nb_state;
    int32_t indegree, outdegree;
    uint8_t *in_null, *out_null;    /* 1 where the neighbour is MPI_PROC_NULL */
};
#define SCOPE__COMM_GONE 1u     /* no ABI's communicator handle is 1 */

/* The entry of communicator h, defined on first use (its world ranks
 * translated through its group once); NULL when it cannot be (the table
 * is full, or MPI refused a query). Lock-free once defined. */
const struct scope__comm *scope__mpi_comm_get(const scope__mpi_abi *abi, uint64_t h);

/* The world rank of rank r of the local (remote = 0) or remote group, or
 * -1. Pure. */
static inline int32_t scope__mpi_world_of(const struct scope__comm *c, int r, int remote)
{
    if (remote)
        return r >= 0 && r < c->remote_size ? c->world[c->size + r] : -1;
    return r >= 0 && r < c->size ? c->world[r] : -1;
}

/* The topology neighbours of c (learnt once: MPI_Topo_test, then the
 * Cartesian shifts, the graph's or the distributed graph's neighbours).
 * Returns 1 with c's indegree/outdegree/in_null/out_null valid, or 0 when
 * c has no topology. */
int scope__mpi_comm_neighbours(const scope__mpi_abi *abi, const struct scope__comm *c);

/* A call `creator` ("MPI_Comm_split") made communicator `h` (read from
 * its output argument): the name is kept until the communicator's row is
 * defined, at its first use. Handles of MPI_COMM_NULL are ignored. */
void scope__mpi_comm_created(const scope__mpi_abi *abi, uint64_t h, const char *creator);

/* The member lists of freed communicators and windows, kept a while: a
 * request posted on one may still complete, a thread may still be
 * reading one. A ring of `size` slots (a power of two). */
struct scope__graveyard {
    int32_t *_Atomic *slot;
    uint32_t size;
    _Atomic uint32_t next;
};
/* Keeps `world` in the ring, freeing the list it pushes out. No lock
 * (MPI may hold its own when it calls an attribute's delete callback). */
void scope__mpi_bury(struct scope__graveyard *g, int32_t *world);

/* The copy callback of the keyvals that watch communicators and windows
 * (MPI_Comm_create_keyval, MPI_Win_create_keyval): a duplicate is an
 * object of its own, so the attribute is never copied. */
int scope__mpi_attr_nocopy(scope__mpi_handle old, int keyval, void *extra, void *in, void *out,
                           int *flag);

#endif
