/*
 * scope_format.h - every name scope puts on disk, in one place: the groups,
 * datasets and attributes of the HDF5 profile files, the region kinds and
 * their stored names. docs/format.md is the specification; this header is
 * its vocabulary in C. The converter (convert/) writes with these names
 * and the reader (reader/) reads with them, so the two cannot drift apart;
 * a name changed here changes the format (bump SCOPE_FORMAT_VERSION and
 * say so in docs/format.md).
 *
 * The journal's layout (the recorder's on-disk buffer) is journal.h in
 * this folder, and the error codes every library returns are
 * scope_error.h: both sides of the format build on all three. The rules
 * that make file names of these pieces (rank, host, journal, temporary
 * and link names) are scope_paths.h, included at the end. Header-only,
 * libc only: the recorder includes it inside the profiled process.
 */
#ifndef SCOPE_FORMAT_H
#define SCOPE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- file-level attributes (on "/" of every scope file) --- */
#define SCOPE_FORMAT_VERSION 1           /* value of SCOPE_A_FORMAT */
#define SCOPE_A_FORMAT "scope_format"
#define SCOPE_A_SCHEMA "scope_profiler_schema" /* the Python package's schema */

/* --- files in the ranks folder ("<output stem>.ranks/") --- */
#define SCOPE_RANKS_SUFFIX ".ranks"
#define SCOPE_JOURNAL_PREFIX "journal."   /* journal.<host>.<pid>, format: journal.h */
#define SCOPE_JOURNAL_POINTER_PREFIX "journals." /* journals.<host>: one line
                                            naming the folder that holds the
                                            host's journals when it is not the
                                            ranks folder (SCOPE_JOURNAL_DIR) */
#define SCOPE_HOST_FILE_PREFIX "host-"  /* host-<hostname>.h5: every rank of one
                                            host (docs/format.md) */
#define SCOPE_STORAGE_MARKER ".scope_fault." /* .scope_fault.<job>: a storage
                                            fault was said once for the job;
                                            `scope recover` removes it */

/* --- groups and tables --- */
#define SCOPE_G_METADATA "metadata"       /* in every file; the index's is the run's */
#define SCOPE_G_RANK_FMT "rank%d"         /* /rank<N> */
#define SCOPE_G_RANK_PREFIX "rank"
#define SCOPE_G_COLLISION_SUFFIX ".collision" /* rank<N>.collision<K>(.h5) */
#define SCOPE_G_REGIONS "regions"         /* /rank<N>/regions/<encoded name> */
#define SCOPE_T_THREADS "threads"         /* /rank<N>/threads */
#define SCOPE_T_INTERPOSITION "interposition"
#define SCOPE_T_CALLSITES "callsites"     /* /rank<N>/callsites, one row per frame */
/* /scope_host_summary of a host file: a cache of what the reader's open
 * reads from every /rank<N> group in the file (docs/format.md "The host
 * summary table"); the rank groups stay the truth. */
#define SCOPE_G_HOST_SUMMARY "scope_host_summary"
#define SCOPE_HS_VERSION_ATTR "version"
#define SCOPE_HS_CHECKSUM_ATTR "checksum" /* int64: scope_hs_hash() of the four datasets */
#define SCOPE_HOST_SUMMARY_VERSION 2      /* its `version` attribute */
#define SCOPE_HS_RANKS "ranks"            /* int64 [R][4] */
#define SCOPE_HS_ATTRS "attrs"            /* int64 [A][5] */
#define SCOPE_HS_CELLS "cells"            /* int64 [C][13] */
#define SCOPE_HS_STRINGS "strings"        /* uint8 [S], NUL-terminated strings */
#define SCOPE_HS_RANK_COLS 4
#define SCOPE_HS_ATTR_COLS 5
#define SCOPE_HS_CELL_COLS 13
#define SCOPE_HS_CELL_COLS_V1 12          /* version 1: no `operation` column */
/* attrs column `kind`: what the reader's rank attribute cache holds */
#define SCOPE_HS_KIND_INT 1               /* i, and d = (double)i */
#define SCOPE_HS_KIND_FLOAT 2             /* d */
#define SCOPE_HS_KIND_STRING 3            /* s */
#define SCOPE_HS_KIND_OTHER 4             /* not one int, float or string */

/* --- per-region datasets (/rank<N>/regions/<name>/...) --- */
#define SCOPE_D_START_TIMES "start_times"
#define SCOPE_D_END_TIMES "end_times"
#define SCOPE_D_THREAD_IDS "thread_ids"
#define SCOPE_D_CALLSITE_IDS "callsite_ids"
#define SCOPE_D_BEGIN_SEQ "begin_seq"
#define SCOPE_D_DEPTH "depth"
#define SCOPE_D_UNWOUND "unwound"
/* what MPI calls moved (docs/format.md, "What MPI calls moved"): present
 * only in regions whose calls carried it */
#define SCOPE_D_BYTES_SENT "bytes_sent"         /* int64 */
#define SCOPE_D_BYTES_RECEIVED "bytes_received" /* int64 */
#define SCOPE_D_DEST "dest"                     /* int32 world rank, -1 none */
#define SCOPE_D_SOURCE "source"                 /* int32 world rank, -1 none */
#define SCOPE_D_TAG "tag"                       /* int32, SCOPE_NO_TAG none */
#define SCOPE_D_COMM "comm"                     /* int32 row of communicators, -1 none */
/* an all-to-all with per-member counts (Alltoallv, Alltoallw): what
 * bytes_sent holds of its block to itself; only in such regions */
#define SCOPE_D_BYTES_SELF "bytes_to_self"      /* int64 */
#define SCOPE_NO_TAG (-2147483647 - 1)
/* OpenMP regions (kind "omp", docs/format.md "OpenMP"): in the regions
 * whose class carries them (format/scope_omp.h) */
#define SCOPE_D_OMP_PARALLEL "omp_parallel" /* int64 an implicit task's parallel
                                               region: its call index in "omp
                                               parallel", -1 not known */
#define SCOPE_D_OMP_THREAD "omp_thread"     /* int32 an implicit task's thread
                                               number in its team */
#define SCOPE_D_OMP_COUNT "omp_count"       /* int64 a work-sharing construct's
                                               iterations (loops), -1 not known */

/* what I/O calls did (docs/format.md, "What I/O calls did"): present only
 * in regions whose calls carried it */
#define SCOPE_D_IO_FILE "io_file"               /* int32 row of files, -1 none */
#define SCOPE_D_IO_BYTES "io_bytes"             /* int64 bytes read or written */
#define SCOPE_D_IO_OFFSET "io_offset"           /* int64, -1 none */
#define SCOPE_D_IO_ISSUER "io_issuer"           /* int8 enum scope_paradigm, 0 the program */
#define SCOPE_D_IO_FAILED "io_failed"           /* int8 1: the call returned an error */

/* --- /rank<N>/files: one row per file, stream or dataset the rank's I/O
 * calls named (format/journal.h, struct scope_file_meta) --- */
#define SCOPE_G_FILES "files"
#define SCOPE_D_FILE_KIND "kind"                /* int8 enum scope_file_kind */
#define SCOPE_D_FILE_PARENT "parent"            /* int32 a dataset's file row, -1 */
#define SCOPE_D_FILE_LAYER "layer"              /* int8 enum scope_paradigm that met it first */
#define SCOPE_D_FILE_DEV "dev"                  /* int64 st_dev, 0 unknown */
#define SCOPE_D_FILE_INO "ino"                  /* int64 st_ino, 0 unknown */
#define SCOPE_D_FILE_BLOCK_SIZE "block_size"    /* int64 st_blksize, 0 unknown */
#define SCOPE_D_FILE_NAMES "names"              /* uint8, NUL-terminated names as given */
#define SCOPE_D_FILE_RESOLVED "resolved"        /* uint8, NUL-terminated resolved names */
#define SCOPE_D_FILE_FS_TYPES "fs_types"        /* uint8, NUL-terminated file system types */
#define SCOPE_D_FILE_MOUNTS "mounts"            /* uint8, NUL-terminated mount points */
/* the `kind` column's values (and the journal's file rows') */
enum scope_file_kind {
    SCOPE_FILE_REGULAR = 0,     /* a regular file */
    SCOPE_FILE_STREAM = 1,      /* a standard stream: <STDIN>, <STDOUT>, <STDERR> */
    SCOPE_FILE_DATASET = 2,     /* an HDF5 dataset (its file is `parent`) */
    SCOPE_FILE_OTHER = 3,       /* the calls on files past the table's bound, together */
    SCOPE_FILE_KINDS
};

/* --- /rank<N>/communicators: one row per communicator the rank used --- */
#define SCOPE_G_COMMUNICATORS "communicators"
#define SCOPE_D_COMM_SIZE "size"                /* int32 [n] */
#define SCOPE_D_COMM_REMOTE_SIZE "remote_size"  /* int32 [n], 0 intracommunicator */
#define SCOPE_D_COMM_MEMBERS_START "members_start" /* int64 [n + 1] into members */
#define SCOPE_D_COMM_MEMBERS "members"          /* int32 world ranks, local then remote */
#define SCOPE_D_COMM_NAMES "names"              /* uint8, n NUL-terminated names */
#define SCOPE_D_COMM_CREATORS "creators"        /* uint8, n NUL-terminated creating calls */

/* --- /rank<N>/requests: one row per completed nonblocking request --- */
#define SCOPE_G_REQUESTS "requests"
#define SCOPE_D_REQ_POST_REGION "post_region"   /* int32 row of region_names */
#define SCOPE_D_REQ_POST_CALL "post_call"       /* int64 the post's index in its region */
#define SCOPE_D_REQ_DONE_REGION "done_region"   /* int32 the completing call's region */
#define SCOPE_D_REQ_DONE_CALL "done_call"       /* int64 and its index there */
#define SCOPE_D_REQ_CANCELLED "cancelled"       /* int8 1: a cancelled request */
#define SCOPE_D_REQ_REGION_NAMES "region_names" /* uint8, NUL-terminated names */
#define SCOPE_D_REQ_COLLECTIVE "collective"     /* int8 enum scope_coll_shape */
#define SCOPE_D_REQ_ROOT "root"                 /* int32 a started collective's root */
/* (and SCOPE_D_SOURCE, SCOPE_D_TAG, SCOPE_D_BYTES_RECEIVED of the status) */

/* Which collective a started persistent collective is (MPI_Bcast_init &
 * co started by MPI_Start or MPI_Startall): its shape in the byte model
 * of docs/format.md, the one thing the collective matrix needs to give
 * its start the blocking call's pairs. The values of the requests'
 * `collective` column and of the journal's collective post records;
 * 0 for every other request (and in files before the column). */
enum scope_coll_shape {
    SCOPE_COLL_NONE = 0,        /* not a started persistent collective */
    SCOPE_COLL_NO_PAIRS = 1,    /* Allreduce, Reduce_scatter(_block), Scan, Exscan,
                                   Barrier, neighbourhood collectives */
    SCOPE_COLL_ONE_TO_ALL = 2,  /* Bcast, Scatter, Scatterv */
    SCOPE_COLL_ALL_TO_ONE = 3,  /* Gather, Gatherv, Reduce */
    SCOPE_COLL_ALL_EQUAL = 4,   /* Alltoall */
    SCOPE_COLL_ALL_SAME = 5,    /* Allgather, Allgatherv */
    SCOPE_COLL_ALL_SPREAD = 6,  /* Alltoallv, Alltoallw */
    SCOPE_COLL_SHAPES = 7
};

/* The preload's region spanning each rank's MPI part of the run, from
 * MPI_Init's entry to MPI_Finalize's (kind manual: no MPI call). */
#define SCOPE_MPI_SPAN_REGION "MPI_Init..MPI_Finalize"

/* MPI_COMM_WORLD in /rank<N>/communicators: its name, and the creator
 * the preload gives it. */
#define SCOPE_COMM_WORLD_NAME "MPI_COMM_WORLD"
#define SCOPE_COMM_WORLD_CREATOR "MPI_Init"

/* --- per-region attributes --- */
#define SCOPE_A_NAME "name"
#define SCOPE_A_KIND "kind"
#define SCOPE_A_SYMBOL "symbol"
#define SCOPE_A_OBJECT "object"
#define SCOPE_A_OPERATION "operation"   /* an MPI region's call: "MPI_Isend", "MPI_Send_c" */

/* --- /metadata and /rank<N> attributes --- */
#define SCOPE_A_START_TIME_NS "start_time_ns"
#define SCOPE_A_FINALIZE_TIME_NS "finalize_time_ns"
#define SCOPE_A_MPI_SIZE "mpi_size"
#define SCOPE_A_HOSTNAME "hostname"
#define SCOPE_A_TIMESTAMP "timestamp"
#define SCOPE_A_RANK "rank"
#define SCOPE_A_PID "pid"
#define SCOPE_A_DROPPED_EVENTS "dropped_events"
#define SCOPE_A_UNTERMINATED_CALLS "unterminated_calls"
#define SCOPE_A_COMPLETE "complete"
#define SCOPE_A_DIED_SIGNAL "died_signal"
#define SCOPE_A_MPI_ABORT_ERRORCODE "mpi_abort_errorcode"
#define SCOPE_A_UNRECORDED_CALLS "unrecorded_calls"
#define SCOPE_A_STARTED_BY_PID "started_by_pid"
#define SCOPE_A_STARTED_BY_START_NS "started_by_start_ns"
#define SCOPE_A_CLOCK_RESOLUTION_NS "clock_resolution_ns"
#define SCOPE_A_RANK_COLLISIONS "rank_collisions"
#define SCOPE_A_MPI_DATA "mpi_data"   /* int64 1: some region has the data columns */
#define SCOPE_A_IO_DATA "io_data"     /* int64 1: some region has the I/O columns */
#define SCOPE_A_IO_FILES_PAST_BOUND "io_files_past_bound" /* int64 opens of files the
                                         recorder's file table had no room for */

/* --- clock alignment (docs/clocks.md) --- */
#define SCOPE_A_CLOCK_ALIGNED "clock_aligned"
#define SCOPE_A_CLOCK_HOST_INDEX "clock_host_index"
#define SCOPE_A_CLOCK_HOSTS "clock_hosts"
#define SCOPE_A_CLOCK_DRIFT_PPM "clock_drift_ppm"
#define SCOPE_A_CLOCK_ERROR_NS "clock_error_ns"
#define SCOPE_A_CLOCK_SPAN_ERROR_NS "clock_span_error_ns"
#define SCOPE_A_CLOCK_REFERENCE "clock_reference"

/* --- columns of the compound tables --- */
#define SCOPE_C_INDEX "index"             /* threads */
#define SCOPE_C_TID "tid"
#define SCOPE_C_NAME "name"
#define SCOPE_C_START_NS "start_ns"
#define SCOPE_C_END_NS "end_ns"
#define SCOPE_C_ID "id"                   /* callsites */
#define SCOPE_C_FRAME "frame"
#define SCOPE_C_DEPTH "depth"
#define SCOPE_C_OFFSET "offset"
#define SCOPE_C_BUILD_ID "build_id"
#define SCOPE_C_OBJECT "object"
#define SCOPE_C_PATTERN "pattern"         /* interposition, also symbol, object */
#define SCOPE_C_SYMBOL "symbol"
#define SCOPE_C_METHOD "method"
#define SCOPE_C_STATUS "status"
#define SCOPE_C_REASON "reason"

/* --- scope-profiler's columnar layouts (schema 2 and 3), read only --- */
#define SCOPE_S_REGION_NAMES "region_table/names"
#define SCOPE_S_INDEX_REGION_IDS "rank_region_index/region_ids"
#define SCOPE_S_INDEX_RANKS "rank_region_index/ranks"
#define SCOPE_S_INDEX_EVENT_OFFSETS "rank_region_index/event_offsets"
#define SCOPE_S_INDEX_EVENT_COUNTS "rank_region_index/event_counts"
#define SCOPE_S_EVENTS_START_TIMES "events/start_times"
#define SCOPE_S_EVENTS_END_TIMES "events/end_times"
#define SCOPE_S_EVENTS_START_DELTAS "events/start_deltas"
#define SCOPE_S_EVENTS_DURATIONS "events/durations"

/* Region kinds: the journal stores the number, the rank file the name
 * (SCOPE_A_KIND). An unknown number is stored as manual. */
enum scope_kind {
    SCOPE_KIND_FUNCTION = 0,
    SCOPE_KIND_MPI = 1,
    SCOPE_KIND_MANUAL = 2,
    SCOPE_KIND_OMP = 3,     /* an OpenMP event (format/scope_omp.h) */
    SCOPE_KIND_IO = 4,      /* an I/O call (format/calls_io.def) */
};
#define SCOPE_KIND_COUNT 5

/* The stored name of a kind ("function", "mpi", "manual", "omp", "io");
 * an out-of-range kind gives "manual", as the writer stores it. Cost:
 * none. */
static inline const char *scope_kind_name(int kind)
{
    static const char *const names[SCOPE_KIND_COUNT] = { "function", "mpi", "manual", "omp",
                                                         "io" };
    return kind >= 0 && kind < SCOPE_KIND_COUNT ? names[kind] : names[SCOPE_KIND_MANUAL];
}

/* The rank of a group named "rank<digits>" followed by exactly `suffix`
 * ("" for a group, ".h5" for a rank file), or -1: no sign, space or
 * leading character, and nothing beyond INT32_MAX, so "rank-1" and
 * "rank1x" are not ranks (unknown names are ignored, docs/format.md).
 * The reader and the converter's host summary table must agree on it.
 * Cost: O(length). */
static inline int scope_rank_of_name(const char *s, const char *suffix)
{
    const char *p = SCOPE_G_RANK_PREFIX;
    for (; *p; p++, s++)
        if (*s != *p)
            return -1;
    if (*s < '0' || *s > '9')
        return -1;
    int64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        v = v * 10 + (*s - '0');
        if (v > INT32_MAX)
            return -1;
    }
    for (; *suffix; suffix++, s++)
        if (*s != *suffix)
            return -1;
    return *s == '\0' ? (int)v : -1;
}

/* The host summary table's checksum: FNV-1a (64-bit) over the
 * little-endian bytes of ranks, attrs and cells (row by row), then the
 * strings' bytes; start with h = SCOPE_HS_HASH_SEED and feed each part in
 * that order. It catches a table damaged on disk (a reader then reads the
 * rank groups), not a deliberate edit. */
#define SCOPE_HS_HASH_SEED UINT64_C(14695981039346656037)
static inline uint64_t scope_hs_hash_i64(uint64_t h, const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            h = (h ^ (uint8_t)((uint64_t)v[i] >> (8 * k))) * UINT64_C(1099511628211);
    return h;
}

static inline uint64_t scope_hs_hash_bytes(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * UINT64_C(1099511628211);
    return h;
}

/* The checksum of a whole table: ranks, attrs and cells (n values each,
 * row by row), then the strings, in that order. */
static inline uint64_t scope_hs_checksum(const int64_t *ranks, size_t nr, const int64_t *attrs,
                                         size_t na, const int64_t *cells, size_t nc,
                                         const char *s, size_t ns)
{
    uint64_t h = scope_hs_hash_i64(SCOPE_HS_HASH_SEED, ranks, nr);
    h = scope_hs_hash_i64(h, attrs, na);
    h = scope_hs_hash_i64(h, cells, nc);
    return scope_hs_hash_bytes(h, s, ns);
}

#ifdef __cplusplus
}
#endif

/* The file-name rules built on these names, one function each. */
#include "scope_paths.h"

#endif /* SCOPE_FORMAT_H */
