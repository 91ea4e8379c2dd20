/*
 * scope_merge.h - the converter's writer of merged files (merge.c): one
 * self-contained file of the layout of docs/format.md from rank groups
 * that live in other files. This is `scope merge`: a run of thousands of
 * rank files becomes one file that can be copied, mailed or archived.
 *
 * The caller says where each rank comes from (tools/cmd_merge.c asks the
 * reader); this side only writes, with the converter's HDF5 helpers and
 * its rules for temporaries, so the project has one writer of the format.
 * No reader type appears here: convert/ sits below the reader.
 */
#ifndef SCOPE_MERGE_H
#define SCOPE_MERGE_H

#include <stddef.h>
#include <stdint.h>

/* One rank of the merged file. */
struct scope_merge_rank {
    int rank;
    const char *file;   /* the file that holds its group, when group is set */
    const char *group;  /* its group in that file ("/rank3", a link's
                         * target), copied whole; NULL: a rank of a
                         * columnar scope-profiler file (schema 2/3),
                         * written from scope_merge.times */
    int64_t events;     /* its calls, for progress */
};

/* What to merge. Every string stays the caller's. */
struct scope_merge {
    const char *metadata_file;  /* /metadata copied from here; NULL: an empty group */
    const struct scope_merge_rank *ranks;
    int nranks;
    const char *const *files;   /* every file read: their sizes bound the room reserved */
    int nfiles;
    /* For ranks without a group: the region names, and the times of
     * (region, rank index i of ranks[]): *n == 0 when the rank never
     * entered it. Returns 0 or a negative SCOPE_E*; the caller keeps
     * its own message (scope_convert_merge then leaves err empty). */
    int nregions;
    const char *(*region_name)(void *ctx, int region);
    int (*times)(void *ctx, int region, int i, const int64_t **starts, const int64_t **ends,
                 int64_t *n);
    /* Told after each rank: events copied so far, and in all (may be NULL). */
    void (*progress)(void *ctx, int64_t done, int64_t total);
    void *ctx;
};

/* Writes m into one file at `path` (root attributes scope_format = 1 and
 * scope_profiler_schema = 1, /metadata, one /rank<N> group per rank, no
 * external links: H5O_COPY_EXPAND_EXT_LINK_FLAG). Groups are copied
 * whole, so attributes, thread tables, compression and unknown objects
 * survive unchanged. The file is written under scope_tmp_path()'s
 * temporary name beside `path` and renamed; the caller decides whether
 * an existing `path` may be replaced. Returns 0, or a negative SCOPE_E*
 * with "<file>: <problem>" in err (empty when times() failed: its code is
 * returned, its message is the caller's). Cost: copies every event once;
 * memory: HDF5's copy buffers plus what times() hands over. */
int scope_convert_merge(const struct scope_merge *m, const char *path, char *err,
                        size_t errlen);

#endif /* SCOPE_MERGE_H */
