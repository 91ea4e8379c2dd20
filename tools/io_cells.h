/*
 * io_cells.h - what one I/O call did, for the listings that print calls
 * one by one (`scope events --io`, the Chrome trace, the OTF2 export):
 * its layer, file name, bytes and offset, from the reader's I/O columns
 * and the rank's file table (reader/scope_reader_io.h), looked up once
 * per (region, rank) as the calls of a listing come grouped by them.
 */
#ifndef SCOPE_TOOLS_IO_CELLS_H
#define SCOPE_TOOLS_IO_CELLS_H

#include <stdint.h>

#include "scope_reader.h"
#include "scope_reader_io.h"

typedef struct {
    int layer;                  /* SCOPE_IO_POSIX .. SCOPE_IO_HDF5 */
    int32_t file;               /* row of the rank's file table, -1 none */
    const char *file_name;      /* as scope__io_row_name; "" none */
    int64_t bytes;
    int64_t offset;             /* -1 none */
    int failed;
} scope__io_cell;

typedef struct {
    scope_profile *p;
    int region, rank;           /* of cols; region -1: none yet */
    int layer;                  /* the region's, 0: not an I/O call */
    scope_io_columns cols;
    int files_rank;             /* of files; -1: none yet */
    scope_io_files files;
    char **names;               /* files' display names (scope__io_row_name) */
} scope__io_cache;

/* Row `row` of a rank's file table by the name `scope io` shows it
 * (reader/io_filemap.c): a regular file's resolved name, else the name as
 * given; an HDF5 dataset's file's name, ':', its path. malloc'd; NULL
 * when out of memory. */
char *scope__io_row_name(const scope_io_files *f, int row);

/* Starts an empty cache of `p`; _free frees what it holds. */
void scope__io_cache_init(scope__io_cache *c, scope_profile *p);
void scope__io_cache_free(scope__io_cache *c);

/* What call `call` of (region, rank) did: 1 and *out filled when it is an
 * I/O call with its columns (file_name the cache's until the rank
 * changes), 0 for any other call, -1 on a read error (the reader's
 * message is set) or -2 out of memory. Cost: the region's and the rank's
 * columns read once when (region, rank) changes; O(1) otherwise. */
int scope__io_cell_of(scope__io_cache *c, int region, int rank, int64_t call,
                      scope__io_cell *out);

#endif
