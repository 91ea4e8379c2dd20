/*
 * mpi_abi.h - everything the preload must know about one MPI ABI, in one
 * table per ABI (Open MPI, the MPICH family, the MPI-5 standard ABI). The preload never includes mpi.h for values: it calls MPI
 * only through PMPI_* symbols looked up at run time, with handles and
 * constants taken from the table chosen for this process.
 *
 * Handles are carried as scope__mpi_handle (uint64_t, mpi_handle.h). On x86-64 and
 * aarch64 (little-endian, handles passed in integer registers) a 4-byte
 * MPICH handle and an 8-byte Open MPI pointer both fit: a handle passed by
 * value is truncated by the callee's own type; a handle returned through a
 * pointer (MPI_Comm *newcomm) must be read with handle_size bytes into a
 * zeroed scope__mpi_handle (scope__mpi_handle_out does that).
 */
#ifndef SCOPE_MPI_ABI_H
#define SCOPE_MPI_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "mpi_handle.h" /* scope__mpi_handle */

typedef enum scope__mpi_abi_kind {
    SCOPE_MPI_ABI_NONE = 0,   /* no MPI library in the process */
    SCOPE_MPI_ABI_OPENMPI,    /* libmpi.so.40 */
    SCOPE_MPI_ABI_MPICH,      /* libmpich.so.12, Intel MPI's libmpi.so.12, Cray, MVAPICH */
    SCOPE_MPI_ABI_STANDARD,   /* the MPI-5 standard ABI (libmpi_abi.so): a library whose
                                 MPI_Abi_get_version answers 1.0 or later */
} scope__mpi_abi_kind;

typedef struct scope__mpi_abi {
    scope__mpi_abi_kind kind;
    const char *name;          /* "Open MPI", "MPICH" : stored in /metadata */
    size_t handle_size;        /* 8 (Open MPI: pointers) or 4 (MPICH: int) */
    scope__mpi_handle comm_world;
    scope__mpi_handle comm_null;
    scope__mpi_handle info_null;
    scope__mpi_handle dt_byte;
    scope__mpi_handle dt_double;
    scope__mpi_handle dt_int64;    /* MPI_INT64_T */
    int comm_type_shared;          /* MPI_COMM_TYPE_SHARED: 0 Open MPI, 1 MPICH */
    int undefined;                 /* MPI_UNDEFINED */
    void *status_ignore;           /* MPI_STATUS_IGNORE: NULL Open MPI, (void*)1 MPICH */
    size_t status_size;            /* sizeof(MPI_Status) */
    /* added beyond the shared contract */
    int success;                   /* MPI_SUCCESS: 0 in both */
    int err_other;                 /* MPI_ERR_OTHER: 16 Open MPI, 15 MPICH */
    size_t library_version_max;    /* MPI_MAX_LIBRARY_VERSION_STRING: 256, 8192 */
    /* what the argument capture (mpi_capture.c) must recognise */
    uintptr_t in_place;            /* MPI_IN_PLACE: 1 Open MPI, -1 MPICH */
    int proc_null;                 /* MPI_PROC_NULL: -2, -1 */
    int any_source;                /* MPI_ANY_SOURCE: -1, -2 */
    int root;                      /* MPI_ROOT: -4, -3 */
    size_t status_source_off;      /* offsetof(MPI_Status, MPI_SOURCE): 0, 8 */
    size_t status_tag_off;         /* offsetof(MPI_Status, MPI_TAG): 4, 12 */
    scope__mpi_handle op_no_op;    /* MPI_NO_OP: an Open MPI object, 0x5800000e */
    int topo_cart, topo_graph, topo_dist_graph;   /* MPI_Topo_test's answers: 1 2 3, 2 1 3 */
    int status_layout;             /* how a status holds its size: scope__mpi_status_size() */
    int builtin_type_sizes;        /* MPICH: a predefined datatype's handle holds
                                      its size (mpi.h: 0x4c00SS..., SS bytes) */
} scope__mpi_abi;

/* Where a status keeps the size received and the cancelled bit. Both
 * families' layouts are part of their frozen ABIs (Open MPI's
 * ompi_status_public_t, MPICH's MPI_Status in every libmpi.so.12), so the
 * capture reads them instead of calling PMPI_Get_count and
 * PMPI_Test_cancelled at every completed receive; the standard ABI's
 * internals are opaque and go through PMPI. */
enum {
    SCOPE_STATUS_OPAQUE = 0,    /* ask PMPI */
    SCOPE_STATUS_MPICH,         /* int count_lo, int count_hi_and_cancelled (bit 0), ... */
    SCOPE_STATUS_OPENMPI,       /* ..., int _cancelled at 12, size_t _ucount at 16 */
};

/* The bytes a completed status says arrived and whether it was
 * cancelled, read in place. Returns 1, or 0 for an opaque layout (the
 * caller asks PMPI). Pure; a few loads. */
static inline int scope__mpi_status_size(const scope__mpi_abi *abi, const void *status,
                                         int64_t *bytes, int *cancelled)
{
    const unsigned char *s = status;
    if (abi->status_layout == SCOPE_STATUS_OPENMPI) {
        int c;
        uint64_t n;
        __builtin_memcpy(&c, s + 12, sizeof c);
        __builtin_memcpy(&n, s + 16, sizeof n);
        *cancelled = c != 0;
        *bytes = (int64_t)n;
        return 1;
    }
    if (abi->status_layout == SCOPE_STATUS_MPICH) {
        uint32_t lo, hi;
        __builtin_memcpy(&lo, s, sizeof lo);
        __builtin_memcpy(&hi, s + 4, sizeof hi);
        *cancelled = (int)(hi & 1u);
        *bytes = (int64_t)(((uint64_t)(hi >> 1) << 32) | lo);
        return 1;
    }
    return 0;
}

/* The ABI of the MPI library loaded in this process, decided once (at the
 * first intercepted MPI call, or when libmpi is already mapped). Returns
 * NULL when the process has no MPI library or speaks an unknown ABI. */
const scope__mpi_abi *scope__mpi_abi_get(void);

/* Path of the MPI library the preload's PMPI calls go to (the object that
 * defines PMPI_Comm_rank), once scope__mpi_abi_get() found one; else NULL.
 * The string belongs to the loader. */
const char *scope__mpi_abi_library(void);

/* The ABI a library speaks, from its file name alone: "libmpi.so.40" ->
 * Open MPI; "libmpich.so.12", "libmpi.so.12" (Intel MPI, MVAPICH),
 * "libmpi_cray.so.12" -> MPICH; anything else -> SCOPE_MPI_ABI_NONE (then
 * scope__mpi_abi_get() asks the library's symbols). Pure; for tests. */
scope__mpi_abi_kind scope__mpi_abi_kind_of_name(const char *path);

/* Reads a handle an MPI call wrote through a pointer: `out` must have been
 * zeroed before the call; for 4-byte handles only the low half was written. */
static inline scope__mpi_handle scope__mpi_handle_out(const scope__mpi_abi *abi, scope__mpi_handle out)
{
    return abi->handle_size == 4 ? (out & 0xffffffffu) : out;
}

#endif
