/*
 * io_internal.h - what the files of the I/O analysis share (io_columns.c
 * loads, io_report.c and io_calls.c analyse): the per-call columns of each
 * (region, rank), each rank's file table, and what each region is as an
 * I/O call, all read on first use and kept with the profile until close.
 * Not installed.
 */
#ifndef SCOPE_IO_INTERNAL_H
#define SCOPE_IO_INTERNAL_H

#include <stdint.h>

#include "reader_internal.h"
#include "scope_reader_io.h"

/* One (region, rank)'s I/O columns (docs/format.md "What I/O calls did"). */
struct scope__io_cols {
    int32_t *file;
    int64_t *bytes, *offset;
    int8_t *issuer, *failed;
};

/* One rank's file table. */
struct scope__io_files {
    int n;
    int8_t *kind, *layer;
    int32_t *parent;
    int64_t *dev, *ino, *block_size;
    char **name, **resolved, **fs_type, **mount;
};

/* What a region is as an I/O call, from its name (format/scope_calls.h). */
struct scope__io_region {
    int8_t layer;           /* SCOPE_IO_POSIX .. SCOPE_IO_HDF5; 0: not an I/O call */
    int8_t cls;             /* enum scope_call_class */
    int8_t form;            /* enum scope_call_form */
    uint8_t flags;          /* SCOPE_IOF_* */
};

struct scope__io {
    struct scope__io_cols **cols;       /* [region * nranks + k] */
    uint8_t *cols_loaded;
    struct scope__io_files **files;     /* [k] */
    uint8_t *files_loaded;
    struct scope__io_region *regions;   /* [region] */
};

/* The profile's I/O state, made on first use. 0 or SCOPE_ENOMEM. */
int scope__io_state(scope_profile *p, struct scope__io **out);
/* The I/O columns of (region, rank index k), loaded once; *out NULL when
 * the cell has none. 0 or a read error. */
int scope__io_cell(scope_profile *p, int region, int k, const struct scope__io_cols **out);
/* Rank index k's file table, loaded once; *out NULL when it has none. */
int scope__io_rank_files(scope_profile *p, int k, const struct scope__io_files **out);
/* What region `region` is (its layer 0 when not an I/O call). */
const struct scope__io_region *scope__io_region(scope_profile *p, int region);
/* Frees the state (profile_close.c). */
void scope__io_free(scope_profile *p);

/* One I/O call of a rank, as io_report.c and io_calls.c walk them. */
struct scope__io_call {
    int64_t start, end, seq, bytes, offset;
    int32_t region, row, idx, thread;
    int8_t issuer, failed;
};

/* Every I/O call of rank index k in time order (the journal's order where
 * the rank stores it, else start, the longer call first, region, index)
 * into a new malloc'd *calls (*n of them; NULL when none); with
 * `threads`, each call's lane too. 0 or an error. */
int scope__io_rank_calls(scope_profile *p, int k, int threads, struct scope__io_call **calls,
                         int64_t *n);

/* The rank indices `opt` chooses (NULL: all), ascending, each once, into
 * a new malloc'd *ks (*n of them). 0, SCOPE_ENOTFOUND (an unknown rank)
 * or SCOPE_ENOMEM (io_report.c). */
int scope__io_chosen_ranks(scope_profile *p, const scope_io_options *opt, int **ks, int *n);

/* The run's file list as a report builds it: each rank's rows mapped to
 * one index per file (regular files by resolved name, else by name;
 * streams by name; datasets by their file and path), sorted by display
 * name at the end. */
struct scope__io_filemap;
struct scope__io_filemap *scope__io_filemap_new(void);
/* The run index of row `row` of rank index k's table (mapping its dataset
 * parents first); -1 for a row the table lacks. < -1 on ENOMEM. */
int scope__io_filemap_row(struct scope__io_filemap *m, const struct scope__io_files *t, int row);
/* Finishes: sorts the files by display name, hands out the list
 * (scope_io_file, strings owned by the list) and fills remap[old] = new
 * (room for the count). 0 or SCOPE_ENOMEM. */
int scope__io_filemap_finish(struct scope__io_filemap *m, scope_io_file **files, int32_t *n,
                             int32_t **remap);
void scope__io_filemap_free(struct scope__io_filemap *m);
/* Frees the strings of a finished list (kept in one block). */
void scope__io_files_list_free(scope_io_file *files, int32_t n);

#endif
