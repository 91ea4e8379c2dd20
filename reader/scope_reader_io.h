/*
 * scope_reader_io.h - what the I/O calls of a profile did (docs/format.md,
 * "What I/O calls did"): per call, the file, bytes, offset and the layer
 * that issued it; per rank, its file table; and the analysis at Darshan's
 * level (docs/io.md): per (file, layer, rank) counters, access sizes and
 * patterns, per shared file the spread over its ranks, per host and per
 * file system totals, bytes over time. Part of libscope_reader; include it
 * after scope_reader.h.
 *
 *     scope_io_report *r;
 *     scope_profile_io_report(p, NULL, &r);
 *     for (int64_t i = 0; i < r->nrecords; i++) {
 *         const scope_io_record *x = &r->records[i];
 *         printf("%s %s rank %d: %lld bytes written\n", r->files[x->file].name,
 *                scope_io_layer_name(x->layer), x->rank, (long long)x->bytes_written);
 *     }
 *     scope_io_report_free(r);
 *
 * Profiles without these columns (before I/O was recorded, or runs with
 * io = off) read as doing no I/O: an empty report.
 */
#ifndef SCOPE_READER_IO_H
#define SCOPE_READER_IO_H

#include <stdint.h>

#include "scope_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The layers (the I/O paradigms of format/scope_calls.h, same numbers). */
#define SCOPE_IO_POSIX 2
#define SCOPE_IO_STDIO 3
#define SCOPE_IO_MPIIO 4
#define SCOPE_IO_HDF5 5
#define SCOPE_IO_LAYERS 6           /* arrays indexed by layer have this many */

/* Darshan's ten access-size bins: [0, 100), [100, 1 Ki), [1 Ki, 10 Ki),
 * [10 Ki, 100 Ki), [100 Ki, 1 Mi), [1 Mi, 4 Mi), [4 Mi, 10 Mi),
 * [10 Mi, 100 Mi), [100 Mi, 1 Gi), [1 Gi, ...) bytes (Ki = 1024). */
#define SCOPE_IO_SIZE_BINS 10
/* How many of the most common access sizes and strides a record keeps. */
#define SCOPE_IO_COMMON 4

/* "posix", "stdio", "mpiio", "hdf5"; NULL for any other number. */
SCOPE_READER_API const char *scope_io_layer_name(int layer);
/* The stored name of a call class (format/scope_calls.h: "io_read",
 * "io_write", "io_open", ...; scope_io_calls.cls); NULL out of range. */
SCOPE_READER_API const char *scope_io_class_name(int cls);
/* The bin of an access of `bytes` (0 .. SCOPE_IO_SIZE_BINS - 1). */
SCOPE_READER_API int scope_io_size_bin(int64_t bytes);
/* The bin's lower bound in bytes (0, 100, 1024, ...); -1 out of range. */
SCOPE_READER_API int64_t scope_io_size_bin_low(int bin);

/* --- per call ------------------------------------------------------------ */

/* The I/O columns of one (region, rank), in the order of
 * scope_profile_times(). All NULL (n still the calls) when the region has
 * none. The arrays belong to the profile until close. */
typedef struct scope_io_columns {
    int64_t n;
    const int32_t *file;            /* row of the rank's file table, -1 none */
    const int64_t *bytes;
    const int64_t *offset;          /* -1 none */
    const int8_t *issuer;           /* the layer that issued the call, 0 the program */
    const int8_t *failed;           /* 1: the call returned an error */
} scope_io_columns;

SCOPE_READER_API int scope_profile_io_columns(scope_profile *p, int region, int rank,
                                              scope_io_columns *out);

/* Bytes read and written by the calls of I/O region `region` on `rank`
 * (or SCOPE_ALL_RANKS): the sum of io_bytes of its calls, as read for a
 * read call (read, fread, MPI_File_read_at_all, H5Dread) and as written
 * for a write call; 0 and 0 for any other region (an open, an mmap, a
 * function that is no I/O call). What `scope summary` and `scope
 * callsites` print beside bytes sent and received. Returns 0 or a read
 * error. Cost: the region's io_bytes columns, read once and kept. */
SCOPE_READER_API int scope_profile_io_bytes(scope_profile *p, int region, int rank,
                                            int64_t *read, int64_t *written);

/* 1 when some rank of the profile has I/O columns (its `io_data`
 * attribute), else 0. Cost: one cached attribute per rank. */
SCOPE_READER_API int scope_profile_has_io(scope_profile *p);

/* The layer of an I/O region (by its name: write -> SCOPE_IO_POSIX,
 * MPI_File_write_at_all_c -> SCOPE_IO_MPIIO, ...), 0 for any other. Pure. */
SCOPE_READER_API int scope_region_io_layer(const char *name);

/* A rank's file table (/rank<N>/files): row i, as the rank's io_file
 * column numbers it. n = 0 (arrays NULL) when the rank has none. The
 * arrays belong to the profile until close. */
typedef struct scope_io_files {
    int n;
    const int8_t *kind;             /* 0 regular file, 1 standard stream, 2 HDF5 dataset,
                                       3 the files past the table's bound, together */
    const int32_t *parent;          /* a dataset's file row; -1 */
    const int8_t *layer;            /* the layer of the call that met it first */
    const int64_t *dev, *ino, *block_size;  /* 0: not known */
    const char *const *name;        /* as the program gave it (any bytes but NUL) */
    const char *const *resolved;    /* "" when not known */
    const char *const *fs_type;     /* "" when not known */
    const char *const *mount;
} scope_io_files;

SCOPE_READER_API int scope_profile_io_files(scope_profile *p, int rank, scope_io_files *out);

/* Every I/O call of `rank` (or SCOPE_ALL_RANKS) in time order (start,
 * then the journal's order), one row per call, as columns malloc'd for
 * the caller (scope_io_calls_free). `file` is an index into the run's
 * file list (scope_io_report.files of the same options), -1 none. */
typedef struct scope_io_calls {
    int64_t n;
    int32_t nfiles;                 /* the run's file list, as the report of the same */
    char **file_names;              /* options names them (file indexes it) */
    int32_t *rank, *thread, *region, *layer, *issuer, *file, *cls;  /* cls: enum
                                       scope_call_class of format/scope_calls.h */
    int8_t *failed;
    int64_t *start_ns, *end_ns, *bytes, *offset;
} scope_io_calls;

/* --- the analysis -------------------------------------------------------- */

/* What a report covers; NULL means everything. */
typedef struct scope_io_options {
    unsigned layers;                /* bit (1 << layer) per layer wanted; 0: all */
    const int *ranks;               /* the ranks wanted, NULL: all */
    int nranks;
    int heat_bins;                  /* time bins of the heat map; 0: 100 */
} scope_io_options;

/* One file of the run, as every rank that named it shares it: the same
 * resolved name (else the same name as given); a dataset is its file's
 * name and its path. */
typedef struct scope_io_file {
    const char *name;               /* resolved name, else as given (display form) */
    const char *given;              /* as the first rank that named it gave it */
    const char *fs_type, *mount;    /* "" when not known */
    int64_t block_size;             /* the first non-zero one a rank saw, 0 none */
    int32_t kind;                   /* as scope_io_files.kind */
    int32_t parent;                 /* a dataset's file (index here), -1 */
    int32_t nranks;                 /* ranks whose calls named it */
    int32_t reserved;
    int64_t bytes_read, bytes_written;  /* of its largest layer's records, all ranks */
} scope_io_file;

/* One (file, layer, rank): Darshan's counters. Counts are of calls that
 * succeeded; a failed call counts in `errors` and its time in meta_time.
 * The access pattern (max_byte_*, consec_*, seq_*, rw_switches, unaligned,
 * strides) is of calls with a byte offset: POSIX and stdio. */
typedef struct scope_io_record {
    int32_t file;                   /* index into scope_io_report.files */
    int32_t layer;                  /* SCOPE_IO_POSIX .. SCOPE_IO_HDF5 */
    int32_t rank;
    int32_t reserved;
    int64_t opens, closes, reads, writes, seeks, stats, syncs, mmaps, dups, metas, errors;
    int64_t bytes_read, bytes_written;
    double read_time, write_time, meta_time;    /* seconds */
    int64_t max_byte_read, max_byte_written;    /* largest offset + size - 1, -1 none */
    int64_t consec_reads, consec_writes;        /* starting where the previous one ended */
    int64_t seq_reads, seq_writes;              /* starting at or past it */
    int64_t rw_switches;                        /* a read after a write or back */
    int64_t unaligned;                          /* offset not a multiple of the block size */
    int64_t size_read[SCOPE_IO_SIZE_BINS], size_written[SCOPE_IO_SIZE_BINS];
    int64_t access_size[SCOPE_IO_COMMON], access_count[SCOPE_IO_COMMON];
    int64_t stride[SCOPE_IO_COMMON], stride_count[SCOPE_IO_COMMON];
    /* bytes by the layer that issued the calls: [0] the program itself,
     * [SCOPE_IO_STDIO] a write inside fwrite or exit's flush, ... */
    int64_t issued_read[SCOPE_IO_LAYERS], issued_written[SCOPE_IO_LAYERS];
    int64_t first_ns, last_ns;      /* the first call's start, the last call's end */
    int64_t open_ns, close_ns;      /* the first open's start, the last close's end; -1 none */
    /* of the reads and writes: collective ones (MPI_File_*_all, _ordered),
     * nonblocking ones (MPI_File_i*), split collectives (their _begin);
     * the others are independent */
    int64_t coll_reads, coll_writes, nb_reads, nb_writes, split_reads, split_writes;
} scope_io_record;

/* A shared file's spread over its ranks, per (file, layer): Darshan's
 * fastest and slowest rank by I/O time (read + write + meta), their bytes,
 * and the variances over the ranks. */
typedef struct scope_io_spread {
    int32_t file, layer, nranks;
    int32_t fastest_rank, slowest_rank;
    int32_t reserved;
    double fastest_time, slowest_time;          /* seconds */
    int64_t fastest_bytes, slowest_bytes;
    double time_variance, bytes_variance;       /* population variances over the ranks */
    int64_t bytes;                              /* read + written, all ranks */
    double time;                                /* seconds, all ranks */
} scope_io_spread;

/* Totals of a host or a file system, and of a rank. Times count only the
 * calls no other I/O layer issued (a write inside fwrite is in fwrite's),
 * bytes likewise, so that nothing is counted twice. */
typedef struct scope_io_total {
    const char *name;               /* host name, file system type, or NULL (ranks) */
    const char *mount;              /* a file system's mount point; NULL otherwise */
    int32_t rank;                   /* a rank's; -1 otherwise */
    int32_t nfiles;                 /* files (not datasets) its calls named */
    int64_t calls, bytes_read, bytes_written;
    double time;                    /* seconds */
} scope_io_total;

typedef struct scope_io_report {
    int32_t nfiles;
    scope_io_file *files;
    int64_t nrecords;
    scope_io_record *records;       /* by file, layer, rank; H5D calls count on their file */
    int64_t ndatasets;
    scope_io_record *datasets;      /* the H5D calls per (dataset, rank): layer hdf5 */
    int32_t nspreads;
    scope_io_spread *spreads;       /* (file, layer) pairs that more than one rank named */
    int32_t nranks, nhosts, nfs;
    scope_io_total *ranks, *hosts, *fs;
    /* bytes over time: heat_bins bins of equal width from heat_start_ns
     * over heat_span_ns, one row per rank of `ranks` (same order):
     * heat_read[r * heat_bins + b]; a call's bytes are spread over the
     * bins its duration covers, in proportion */
    int32_t heat_bins;
    int64_t heat_start_ns, heat_span_ns;
    double *heat_read, *heat_written;
    /* what the recorder could not keep apart: opens of files past its
     * table's bound (their calls count under one file of kind 3) */
    int64_t files_past_bound;
} scope_io_report;

/* Builds the report of `p` for `opt` (NULL: everything). Returns 0,
 * SCOPE_EINVAL, SCOPE_ENOTFOUND (an unknown rank), SCOPE_ENOMEM, or a
 * read error. Cost: one pass over every I/O call of the chosen ranks,
 * one rank at a time (its calls merged in time order); memory: the run's
 * records and files, plus one rank's I/O calls. */
SCOPE_READER_API int scope_profile_io_report(scope_profile *p, const scope_io_options *opt,
                                             scope_io_report **out);
SCOPE_READER_API void scope_io_report_free(scope_io_report *r);

/* Every I/O call of the ranks `opt` chooses (NULL: all) in time order,
 * with `file` an index into the file list of the report of the same
 * options. Fills *out (zeroed first; freed again on error). */
SCOPE_READER_API int scope_profile_io_calls(scope_profile *p, const scope_io_options *opt,
                                            scope_io_calls *out);
SCOPE_READER_API void scope_io_calls_free(scope_io_calls *c);

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_READER_IO_H */
