/*
 * open_builder.h - the state of one scope_profile_open_paths() call, shared
 * by profile_open.c (which fills it, file by file), host_summary.c (from a
 * host file's summary table) and open_workers.c (from worker processes'
 * results), through open_builder.c. Not installed.
 */
#ifndef SCOPE_OPEN_BUILDER_H
#define SCOPE_OPEN_BUILDER_H

#include "reader_internal.h"

/* One (region name, rank) found while scanning; sorted and merged into the
 * profile's regions and cell matrix by finish(). */
typedef struct {
    char *name;
    int rank;
    int region;         /* set by finish(): index among names, sorted */
    scope__cell *cell;
} found_cell;

typedef struct builder {
    scope_profile *p;
    found_cell *found;
    size_t nfound, capfound;
    int names_moved;    /* found[].name now point at regions[].name */
    int have_meta_start, have_rank_start;
    int64_t meta_start, rank_start;
    /* The files an index's external links name, by path (open
     * addressing, power-of-two size): each is stat'ed and opened once
     * however many ranks it holds. */
    struct target { char *path; int source; } *targets; /* source -1: missing */
    size_t ntargets, captargets;
    /* The links of one index, followed file by file (add_groups_file). */
    struct pending { int source, rank; char *obj; } *pending;
    size_t npending, cappending;
} builder;

/* open_builder.c. Grows *arr (of *cap elements of `size` bytes) to hold
 * n + 1: 0 or SCOPE_ENOMEM. */
int scope__open_grow(void *arr, size_t *cap, size_t n, size_t size);

/* open_builder.c. _add_rank appends rank `rank` of `source` (group path
 * copied, may be NULL); _add_cell appends a found cell and takes `name`
 * (freed on failure too); _note_start keeps the least start. 0 or
 * SCOPE_ENOMEM. */
int scope__open_add_rank(builder *b, int rank, int source, const char *group);
int scope__open_add_cell(builder *b, char *name, int rank, int source,
                         const char *group, int64_t offset, int64_t n,
                         int64_t first_start, int64_t first_end);
void scope__open_note_start(int *have, int64_t *min, int64_t v);

/* Adds pending link i (b->pending[i]) in the calling process: opens its
 * file (kept among the open ones) and reads its rank group. */
typedef int (*scope__follow_fn)(builder *b, size_t i);

/* open_workers.c: adds b->pending[0 .. npending) through `one`, split
 * among worker processes when that pays (see there). Returns 1 with *rc
 * set when it did the work (the result is exactly what calling `one` on
 * every item in order gives, first error included), 0 when the caller
 * should do it serially (few items, one job, a threaded process). */
int scope__follow_parallel(builder *b, scope__follow_fn one, int *rc);

#endif
