/*
 * reader_internal.h - the in-memory model of an opened profile, shared by
 * the files of libscope_reader (not installed).
 *
 * A profile is a set of sources (opened HDF5 files), a sorted list of ranks
 * and of regions, and a dense region x rank matrix of cells. A cell knows
 * where its events live (a region group, or a slice of scope-profiler's
 * columnar arrays) and how many there are; the events themselves are read
 * only when asked for.
 */
#ifndef SCOPE_READER_INTERNAL_H
#define SCOPE_READER_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <hdf5.h>

#include "scope_format.h"
#include "scope_h5_read.h"   /* scope_h5_quiet, the reading rules */
#include "scope_reader.h"

/* How a source file stores its events. */
enum scope__layout {
    SCOPE__LAYOUT_GROUPS = 1,  /* /rank<N>/regions/<link>/{start,end}_times */
    SCOPE__LAYOUT_COLUMNS2,    /* schema 2: events/{start_times,end_times} */
    SCOPE__LAYOUT_COLUMNS3     /* schema 3: events/{start_deltas,durations} */
};

typedef struct scope__source {
    char *path;         /* as the user (or the index link) gave it */
    hid_t file;         /* open HDF5 file, H5I_INVALID_HID when closed */
    int layout;
    int via;            /* the index source that links to it, or -1 */
} scope__source;

/* One attribute of a rank group, read when the profile was opened
 * (rank_attrs.c), so that asking every rank for an attribute (scope
 * summary asks for five) reopens no file. */
enum scope__attr_kind {
    SCOPE__ATTR_UNCACHED = 0,   /* ask HDF5 (a type the cache does not mirror) */
    SCOPE__ATTR_INT,            /* one integer: i, and d = (double)i */
    SCOPE__ATTR_FLOAT,          /* one float: d */
    SCOPE__ATTR_STRING,         /* one string: s */
    SCOPE__ATTR_OTHER           /* anything else: not an int, float or string */
};

typedef struct scope__attr {
    char *name;
    int kind;
    int64_t i;
    double d;
    char *s;
} scope__attr;

typedef struct scope__rank {
    int rank;
    int source;         /* where it was found: names the path in EDUP */
    char *group;        /* GROUPS: path of the rank group in that source
                         * (attributes, threads table); NULL for columns */
    int attrs_cached;   /* attrs below lists every attribute of the group */
    int nattrs;
    scope__attr *attrs;
    struct scope__rank_tables *tables; /* requests and communicators,
                                        * loaded on first use (requests.c) */
} scope__rank;

typedef struct scope__cell {
    int source;
    char *group;        /* GROUPS: path of the region group in the file */
    int64_t offset;     /* COLUMNS*: first event in events/ arrays */
    int64_t n;          /* number of calls */
    int64_t first_start;/* start of the first call (INT64_MAX if none) */
    int64_t first_end;  /* its end: on equal starts the longer call, the
                         * container, orders first */
    int64_t *starts;    /* kept only when scope_profile_times() asked */
    int64_t *ends;
    int tids_loaded;    /* tids below is valid (NULL: one thread only) */
    int32_t *tids;      /* thread_ids, kept when scope_profile_thread_ids()
                         * asked */
    int unwound_loaded; /* unwound below is valid (NULL: none inferred) */
    int8_t *unwound;    /* unwound, kept when scope_profile_unwound() asked */
    int sites_loaded;   /* sites below is valid (NULL: no callsite_ids) */
    int32_t *sites;     /* merged site per call (callsites.c) */
    int moved_loaded;   /* moved below is valid (NULL: no data columns) */
    struct scope__moved *moved; /* what its MPI calls moved (moved.c) */
    int summarized;     /* the fields below are valid */
    int64_t total, min, max, max_end;
    double mean, m2;    /* m2 = sum of squared deviations from mean */
    int32_t op;         /* the group's `operation` attribute read at open, as
                           a call of the vocabulary (scope_calls.h): its id,
                           0 one this build does not know; -1 no attribute
                           (the region's name says, operation.c) */
    int32_t op_big;     /* 1: its large-count form */
} scope__cell;

typedef struct scope__region {
    char *name;
    int64_t first_start;
    int64_t first_end;  /* of the call that starts first (the longest on a tie) */
    int32_t call;       /* what the region is: a call id of the vocabulary
                           (scope_calls.h), 0 none (operation.c) */
    int32_t big;        /* 1: the call's large-count form */
    char *operation;    /* its stored name ("MPI_Send_c"), NULL when none */
} scope__region;

struct scope_profile {
    scope__source *sources;
    int nsources;
    scope__rank *ranks;         /* ascending by rank */
    int nranks;
    scope__region *regions;     /* by first start, then name */
    int nregions;
    scope__cell **cells;        /* [region * nranks + rank_index], NULL = none */
    int have_run_start;
    int64_t run_start;
    int have_max_end;
    int64_t max_end;
    int meta_source;            /* first source with /metadata, or -1 */
    int *missing;               /* ranks an index links to whose rank file
                                   was never written (its journal is kept),
                                   or whose host file is missing */
    char **missing_files;       /* [nmissing]: the file each one links to */
    int nmissing;
    int nopen;                  /* sources whose file is open */
    struct scope__sites *sites; /* call sites, loaded on first use
                                 * (callsites.c); NULL before */
    struct scope__run_comms *run_comms; /* the run's communicators across
                                 * ranks (run_comms.c), on first use */
    struct scope__io *io;       /* what I/O calls did, loaded on first use
                                 * (io_columns.c); NULL before */
};

/* Loads (once) the merged site of each call of the cell of (region, rank
 * index k) into its `sites` (callsites.c); *cell is that cell or NULL. */
int scope__cell_sites(scope_profile *p, int region, int k, scope__cell **cell);

/* A cell's data columns (moved.c), read on first use: each call's bytes,
 * partners (world ranks), tag and communicator id. */
struct scope__moved {
    int64_t *sent, *received;
    int32_t *dest, *source, *tag, *comm;
    int64_t *self;          /* bytes_to_self: NULL where the region has none */
};

/* Frees a cell's data columns (moved.c; profile_close.c calls it). */
void scope__moved_free(struct scope__moved *m);

/* Reads (once) the data columns of cell c into c->moved, which stays NULL
 * for a cell without them (moved.c). Returns 0 or an error. */
int scope__cell_moved(scope_profile *p, scope__cell *c);
/* Cell c's data columns without keeping them: *out views c->moved when
 * the cell has them loaded already, else bufs' arrays (caller's, room for
 * c->n each; its self is not read), filled; out->bytes_sent NULL when the
 * region has none. For a pass over every rank that reuses its buffers.
 * Returns 0 or an error. */
int scope__cell_moved_view(scope_profile *p, scope__cell *c, const struct scope__moved *bufs,
                           struct scope__moved *out);

/* Calls f(ctx, world rank, cell) for each cell of `region` on `rank` (or
 * SCOPE_ALL_RANKS) that has data columns, loading them (moved.c). 0, or
 * the error of the region/rank check or of a load. */
int scope__each_moved_cell(scope_profile *p, int region, int rank,
                           void (*f)(void *ctx, int rank, const scope__cell *c), void *ctx);

/* The bytes_to_self column of (region, rank) into *self: NULL where the
 * region has none (docs/format.md; moved.c). Returns 0 or an error. */
int scope__moved_self(scope_profile *p, int region, int rank, const int64_t **self);

/* What a region is (operation.c), by the vocabulary of intercepted calls
 * (format/scope_calls.h). _read_operation reads a region group's
 * `operation` attribute into *op (a call id, 0 one this build does not
 * know, -1 no attribute) and *big: 0 or an error. _regions_operations
 * fills each region's call, big and operation once the cells are placed
 * (finish()): the attribute of its lowest rank that has one, else its
 * name: 0 or SCOPE_ENOMEM. _region_call is region r's row (row 0: none).
 * The rules, each written once: _starts (MPI_Start, MPI_Startall),
 * _starts_several (MPI_Startall: an array of requests, whose call's
 * columns hold the sends' bytes together),
 * _p2p (moves point-to-point messages: sends, receives, send-receives in
 * every form but the persistent inits, and starts), _one_sided,
 * _collective (a collective or neighbourhood call, not an init),
 * _coll_shape (a collective's enum scope_coll_shape, SCOPE_COLL_NONE for
 * any other call) and _coll_shape_pairwise (a shape with pairs in the
 * collective matrix). */
struct scope_call_row;
int scope__read_operation(hid_t g, int32_t *op, int32_t *big);
int scope__regions_operations(scope_profile *p);
const struct scope_call_row *scope__region_call(const scope_profile *p, int r);
int scope__call_starts(const struct scope_call_row *c);
int scope__call_starts_several(const struct scope_call_row *c);
int scope__call_p2p(const struct scope_call_row *c);
int scope__call_one_sided(const struct scope_call_row *c);
int scope__call_collective(const struct scope_call_row *c);
int scope__call_coll_shape(const struct scope_call_row *c);
int scope__coll_shape_pairwise(int shape);

/* Frees the run's communicators (run_comms.c; profile_close.c calls it). */
struct scope__run_comms;
void scope__run_comms_free(struct scope__run_comms *cs, int nranks);

/* Frees a rank's requests and communicators (requests.c). */
void scope__rank_tables_free(struct scope__rank_tables *t);

/* Drops the cached times (times != 0) and data columns (moved != 0) of a
 * cell (profile_close.c), so that a pass over every rank (the wait states)
 * holds one rank's columns at a time; the next use reads them again.
 * Only for what that pass loaded itself: pointers handed out before stay
 * the caller's. */
void scope__cell_forget(scope__cell *c, int times, int moved);
/* Likewise for rank index k's requests and communicators (requests.c). */
void scope__rank_tables_forget(scope_profile *p, int k);

/* Frees what callsites.c loaded (profile_close.c calls it). */
void scope__sites_free(struct scope__sites *s);
/* Frees what io_columns.c loaded (profile_close.c calls it). */
void scope__io_free(scope_profile *p);

/* Error message (thread-local). Both return `code` so a caller can write
 * `return scope__fail(...)`. */
int scope__fail(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int scope__vfail(int code, const char *fmt, va_list ap);

/* HDF5 helpers (h5_util.c). Each returns 0 (or 1/0 = present/absent where
 * said), or a negative SCOPE_E* code with the message set; `fpath` is the
 * file's path, used only in messages. */
/* Sets the message "<fpath>: <what> (HDF5: <innermost HDF5 message>)" and
 * returns SCOPE_ETRUNC if HDF5 reported truncation, else `code`. */
int scope__h5_fail(int code, const char *fpath, const char *what);
int scope__h5_open_file(const char *fpath, hid_t *out);

/* The global heap guard (heap_guard.c): every global heap collection
 * (where HDF5 keeps variable-length strings) of a file opened with a
 * fapl it was put on is checked before libhdf5 uses it, and a damaged
 * one fails the read. _fapl puts it on `fapl`, over the driver already
 * set there (0, or -1 when libhdf5 refused it). _refused returns how many
 * collections this thread's reads refused so far and, with out, the last
 * one. Cost: _fapl a property copy; the check one step per object of a
 * collection as it is read. */
typedef struct {
    unsigned long count;    /* collections refused by this thread so far */
    uint64_t addr;          /* the last one's file address */
    char path[256], why[64];
} scope__heap_refusal;
int scope__heap_guard_fapl(hid_t fapl);
unsigned long scope__heap_guard_refused(scope__heap_refusal *out);
int scope__h5_attr_int64(hid_t obj, const char *name, int64_t *out);
int scope__h5_attr_string(hid_t obj, const char *name, char **out);

/* Rank attributes (rank_attrs.c). _cache reads every attribute of the
 * open rank group `g` into r (0 or SCOPE_ENOMEM; attributes it cannot
 * mirror stay UNCACHED); _lookup returns 1 with *out set, 0 when the group
 * has no such attribute, -1 when HDF5 must be asked (not cached). Cost:
 * _cache one attribute open and read each; _lookup a scan (~15 names). */
int scope__rank_attrs_cache(scope__rank *r, hid_t g);
int scope__rank_attr_lookup(const scope__rank *r, const char *name,
                            const scope__attr **out);
void scope__rank_attrs_free(scope__rank *r);
int scope__h5_len(hid_t loc, const char *dset, const char *fpath, int64_t *n);
int scope__h5_read_int64(hid_t loc, const char *dset, const char *fpath,
                         int64_t offset, int64_t count, int64_t *buf);
/* The same into int32 (HDF5 converts a wider file type, clipping). For
 * columns stored as int32: no conversion, half the memory. */
int scope__h5_read_int32(hid_t loc, const char *dset, const char *fpath,
                         int64_t offset, int64_t count, int32_t *buf);
/* The length of a 1-D dataset (errors as scope__h5_len) and, when it is
 * 1 .. max, all of it as int64 in a new malloc'd *buf; *buf stays NULL
 * when not read or when the read failed (the caller reads again where a
 * failure is reported). Cost: one dataset open for both. */
int scope__h5_len_read(hid_t loc, const char *dset, const char *fpath, int64_t max,
                       int64_t *n, int64_t **buf);
int scope__h5_read_strings(hid_t loc, const char *dset, const char *fpath,
                           char ***out, int64_t *n);
void scope__free_strings(char **s, int64_t n);
/* Reads `grp`/`name` whole as int64 into a new malloc'd *out (NULL and
 * *n = 0 when the dataset is absent). Its length must be `want` unless
 * want < 0 (SCOPE_EFORMAT naming it). */
int scope__h5_read_wide(hid_t f, const char *fpath, const char *grp, const char *name,
                        int64_t want, int64_t *n, int64_t **out);
/* n values as int32 in a new malloc'd array (NULL: out of memory). */
int32_t *scope__narrow32(const int64_t *w, int64_t n);
/* n NUL-terminated names from a uint8 dataset read as int64, as n new
 * malloc'd strings; NULL when the bytes do not hold n of them. */
char **scope__split_names(const int64_t *bytes, int64_t len, int64_t n);

/* malloc for arrays of many events (profile_data.c): from 512 KiB, whole
 * 2 MiB-aligned huge pages, marked for transparent huge pages, which cuts
 * the page faults of first touch 512-fold (they were a third of the call
 * stack's time, and most of the columns'). Freed with free(). Not
 * zeroed. */
void *scope__malloc_big(size_t bytes);
/* A buffer reused call after call (a column of rank after rank): *buf
 * grown to at least `bytes` (scope__malloc_big, its old contents
 * dropped), kept otherwise, so that its pages are faulted in once and not
 * per rank (on a virtual machine a fresh 4 KiB page cost 10-15 us at its
 * first write: most of the wait states' reading time). *cap is its size;
 * free(*buf) at the end. Returns *buf, NULL when out of memory. */
void *scope__reuse(void **buf, size_t *cap, size_t bytes);

/* Opening (profile_open.c) and event loading (profile_data.c). */
int scope__cell_load(scope_profile *p, scope__cell *c,
                     int64_t **starts, int64_t **ends);
/* The same into the caller's arrays (room for c->n each): a caller that
 * loads cell after cell reuses one buffer instead of faulting in fresh
 * pages for each (the kernel's zeroing of them was over half of the
 * event columns' time in perf). */
int scope__cell_load_into(scope_profile *p, scope__cell *c, int64_t *s, int64_t *e);
int scope__cell_summarize(scope_profile *p, scope__cell *c);
/* 0 when every call's times are sane, else SCOPE_EFORMAT naming `fpath`
 * (the one check of loaded times; profile_data.c). */
int scope__times_check(const char *fpath, const int64_t *s, const int64_t *e,
                       int64_t n);
/* Computes a cell's statistics from its checked times s, e (c->n each)
 * and marks it summarized; 0 or SCOPE_EFORMAT (a sum past int64). Used by
 * _summarize and by opening, which reads small cells' arrays once and
 * summarizes them there. */
int scope__cell_stats(scope_profile *p, scope__cell *c, const int64_t *s,
                      const int64_t *e);
/* Reads a cell's thread_ids into a new malloc'd array, or stores NULL when
 * the cell has none (one thread, or a scope-profiler file). */
/* Reads a cell's optional per-call integer column `name` (thread_ids,
 * callsite_ids): 0 with *out = NULL when the region has none; else *out
 * holds c->n values and *path the dataset's path (both malloc'd, for the
 * caller's checks and messages). EFORMAT when its length is not c->n.
 * Cost: one HDF5 read, converted through int64 (the reader's one integer
 * reading path). */
int scope__cell_read_column(scope_profile *p, scope__cell *c, const char *name,
                            int64_t **out, char **path);
/* The same for a column stored as int32 (dest, source, tag, comm), read
 * in its own width. */
int scope__cell_read_column32(scope_profile *p, scope__cell *c, const char *name,
                              int32_t **out, char **path);
/* The same into the caller's buf (room for c->n elements of `elem`
 * bytes, 8 or 4): a pass over every rank reuses one buffer instead of
 * faulting in fresh pages per rank. 1 read, 0 the region has no such
 * column, or a negative SCOPE_E*. */
int scope__cell_read_column_into(scope_profile *p, scope__cell *c, const char *name, size_t elem,
                                 void *buf);
int scope__cell_load_tids(scope_profile *p, scope__cell *c, int32_t **tids);
/* The calls of rank index k on lane `thread` (or SCOPE_ALL_THREADS) into
 * calls[] (room for every call of the rank), sorted and nested exactly as
 * scope_profile_call_stack() gives them, without the children lists;
 * *n = how many. 0 or its errors (call_stack.c). Lets a caller that walks
 * many ranks reuse one buffer: each fresh buffer's first touch costs
 * page faults and zeroing (an eighth of event_columns.c's time in perf). */
int scope__call_stack_fill(scope_profile *p, int k, int thread, scope_call *calls,
                           int64_t *n);
/* Frees the buffers scope_call_stack_free() keeps for the next call stack
 * (call_stack.c; scope_profile_close() calls it). */
void scope__call_stack_spare_release(void);
/* Called by scope__call_stack_ids with each region's loaded calls of the
 * rank (times s, e; lanes t, NULL: all 0), before the merge: a caller
 * writes its other columns from the same arrays. 0 or an error. */
typedef int (*scope__cells_fn)(void *ctx, int region, const int64_t *s, const int64_t *e,
                               const int32_t *t, int64_t n);
/* The call ids, parent ids and depths of rank index k's calls (every
 * lane), exactly as scope__call_stack_fill numbers and nests them, but
 * written straight into columns (any may be NULL): the call with call
 * index i of region r goes to row row0[r] + i, none when row0[r] < 0.
 * No 64-byte record per call is made. Times not cached are read into the
 * call_id and parent_id rows of the call when both columns are given and
 * row0[r] >= 0 (the ids overwrite them), else into s_buf, e_buf (room for
 * the rank's other calls; the caller reuses them rank after rank). Only the common case: returns 1 when done, 0 when the
 * rank needs scope__call_stack_fill (a region with the journal's order,
 * one out of start order, or calls whose nesting fails, which that path
 * reports), < 0 an error (call_stack.c). */
int scope__call_stack_ids(scope_profile *p, int k, const int64_t *row0, int64_t *call_id,
                          int64_t *parent_id, int32_t *depth, int64_t *s_buf,
                          int64_t *e_buf, scope__cells_fn each, void *ctx);
/* The cell of (region, rank index), NULL when that rank never entered it. */
static inline scope__cell *scope__cell_at(const scope_profile *p, int region,
                                          int k)
{
    return p->cells[(size_t)region * (size_t)p->nranks + (size_t)k];
}
/* The open HDF5 file of source `s` (reopened on demand; profile_data.c). */
int scope__source_file(scope_profile *p, int s, hid_t *out);
/* The open file of source s into *f and the path "group/name" into *path
 * (malloc'd; NULL when the file has no such link, so nothing to read;
 * profile_data.c). 0 or the error of opening or of memory. */
int scope__source_link(scope_profile *p, int s, const char *group, const char *name, hid_t *f,
                       char **path);
/* The index of `rank` in p->ranks, or SCOPE_ENOTFOUND (message set). */
int scope__rank_index(const scope_profile *p, int rank);
/* 0 when `region` is an index of p's regions, else SCOPE_ENOTFOUND with
 * the message every reader function gives ("no region index 7 (the
 * profile has 3)"). The one check of a caller's region index. */
int scope__check_region(const scope_profile *p, int region);
/* Both checks for one (region, rank): the rank's index, or the error of
 * the first check that fails. */
int scope__cell_index(const scope_profile *p, int region, int rank);
/* Reads column `name` of cell c into a new malloc'd array of c->n values
 * of `size` bytes (1 or 4) into *out, each checked to lie in [lo, hi]
 * (EFORMAT naming the first that does not); *out NULL when the region has
 * no such column (profile_attrs.c). */
/* 1 when some rank of p has integer attribute `name` set to non-zero
 * (the writer's marks, as mpi_data and io_data: a profile answers "is
 * there any" without visiting a region), else 0 (no profile too).
 * Cost: one cached attribute read per rank (profile_attrs.c). */
int scope__any_rank_flag(scope_profile *p, const char *name);
int scope__cell_load_narrow(scope_profile *p, scope__cell *c, const char *name, size_t size,
                            int64_t lo, int64_t hi, void **out);
/* The cell of (region, rank) into *cell (NULL: the rank has no call of
 * the region). 0, SCOPE_EINVAL (no profile) or as scope__cell_index. */
int scope__cell_get(const scope_profile *p, int region, int rank, scope__cell **cell);
/* The region check, then the rank indices [*k0, *k1) that `rank` means:
 * all of them for SCOPE_ALL_RANKS, else the one (SCOPE_ENOTFOUND when
 * absent). Returns 0 or the error of the check that failed. */
int scope__cell_span(const scope_profile *p, int region, int rank, int *k0, int *k1);

/* The pairwise shares of the collective calls of `region` (or
 * SCOPE_COMM_ALL_REGIONS) on `rank` (or SCOPE_ALL_RANKS), by the byte
 * model (comm_collective.c): f(ctx, from, to, bytes) for each. Returns 0
 * or an error. */
int scope__each_collective_share(scope_profile *p, int region, int rank,
                                 void (*f)(void *ctx, int s, int d, int64_t bytes), void *ctx);

/* What q's time mode subtracts from every time into *shift (untouched for
 * SCOPE_TIME_ABSOLUTE; 0 when the profile has no calls to take a run
 * start from). 0, SCOPE_EINVAL (unknown mode) or the time origin's error. */
int scope__query_shift(scope_profile *p, const scope_event_query *q, int64_t *shift);

/* The rank indices q selects (every rank when q names none), ascending and
 * without repeats, into *ranks (malloc'd, the caller frees it, even on
 * error) and *nranks. q->nranks is checked by the caller. 0,
 * SCOPE_ENOTFOUND (a rank not in the run) or SCOPE_ENOMEM; O(n log n). */
int scope__query_ranks(scope_profile *p, const scope_event_query *q, int **ranks, int *nranks);

/* Room for one more element in an array v of n used of *cap (elem bytes
 * each): v itself while there is room, else v realloc'd to twice *cap
 * (first when *cap is 0), *cap updated. NULL when out of memory (v and
 * *cap untouched; no message). Amortised O(1). */
static inline void *scope__grow(void *v, int64_t n, int64_t *cap, size_t elem, int64_t first)
{
    if (n < *cap)
        return v;
    int64_t c = *cap ? 2 * *cap : first;
    void *more = realloc(v, (size_t)c * elem);
    if (more)
        *cap = c;
    return more;
}

/* The order of two integers for qsort comparators: -1, 0 or 1. Comparators
 * of several keys chain it: the first key that differs decides. */
static inline int scope__cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* qsort's order of ints (rank lists). */
static inline int scope__cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

#endif /* SCOPE_READER_INTERNAL_H */
