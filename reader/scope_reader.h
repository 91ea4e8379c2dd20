/*
 * scope_reader.h - libscope_reader: opens scope profiles (docs/format.md) and
 * answers what they hold: the regions, the ranks, every call's start and
 * end, and per-region statistics. The `scope` tool, the tests and the
 * Python module all read profiles through this API and nothing else.
 *
 *     scope_profile *p;
 *     if (scope_profile_open("scope_profile.h5", &p) < 0)
 *         fprintf(stderr, "%s\n", scope_reader_errmsg());
 *     for (int r = 0; r < scope_profile_region_count(p); r++) {
 *         scope_stats s;
 *         scope_profile_stats(p, r, SCOPE_ALL_RANKS, &s);
 *         printf("%s %lld calls\n", scope_profile_region_name(p, r),
 *                (long long)s.calls);
 *     }
 *     scope_profile_close(p);
 *
 * What it opens: an index file (its /rank<N> external links are followed
 * relative to the index file's folder, into rank files or host files), a
 * merged file, one rank file, one host file, a folder (every rank<N>.h5
 * and host-<name>.h5 in it), scope-profiler's schema 1, 2 and 3 files, or
 * several of these at once, merged by rank.
 *
 * Cost of opening: per file, not per rank. Each file is opened once;
 * every rank group's attributes and every region of up to 65,536 calls
 * are read then, once, so per-rank attributes and statistics need no
 * further file access (larger regions are read when asked for). At most
 * 16 files stay open.
 *
 * Conventions:
 *  - Every function that can fail returns a negative SCOPE_E* code
 *    (scope_error.h); scope_reader_errmsg() then gives a one-line message
 *    that names the path and the problem. The reader never prints.
 *  - `region` arguments are region indices, 0 .. region_count-1, in the
 *    order of each region's first start across all ranks (ties by name).
 *  - `rank` arguments are MPI rank numbers (as in the file), or
 *    SCOPE_ALL_RANKS where the function says so.
 *  - Times are int64 nanoseconds on the recording clock (CLOCK_MONOTONIC).
 *  - A profile may be used by one thread at a time; different profiles are
 *    independent. Event arrays are read lazily, per (region, rank), on
 *    first use, so memory stays proportional to what is asked for.
 *  - Plain types and pointers only, so the API is easy to bind with ctypes.
 */
#ifndef SCOPE_READER_H
#define SCOPE_READER_H

#include <stdint.h>

#include "scope_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SCOPE_READER_API __attribute__((visibility("default")))
#else
#define SCOPE_READER_API
#endif

/* Pass as `rank` to aggregate over every rank. */
#define SCOPE_ALL_RANKS (-1)

typedef struct scope_profile scope_profile;

/* Statistics of the durations (end - start) of a set of calls.
 * std_ns is the POPULATION standard deviation (ddof = 0): 0 for one call,
 * not NaN as pandas' default ddof = 1 would give. When calls == 0 every
 * field is 0. mean_ns and std_ns are computed stably (exact int64 sums,
 * two-pass deviations, Chan's formula to combine ranks). */
typedef struct scope_stats {
    int64_t calls;
    int64_t total_ns;
    int64_t min_ns;
    int64_t max_ns;
    double mean_ns;
    double std_ns;
} scope_stats;

/* The message of the last failure in this thread ("" if none yet), e.g.
 * "data/run.h5: file is truncated or damaged (HDF5: truncated file ...)".
 * Valid until the next reader call in the same thread. Never NULL. */
SCOPE_READER_API const char *scope_reader_errmsg(void);

/* Opens one path (file or folder). On success stores a new profile in *out
 * and returns 0. Errors: SCOPE_ENOENT (missing path, folder without rank
 * files, index link to a missing rank file), SCOPE_ENOTHDF5, SCOPE_EFORMAT
 * (HDF5 but not a profile), SCOPE_ETRUNC, SCOPE_EVERSION, SCOPE_EDUP,
 * SCOPE_EHDF5, SCOPE_ENOMEM, SCOPE_EINVAL. Cost: reads every rank's region
 * list and dataset sizes, not the event data. */
SCOPE_READER_API int scope_profile_open(const char *path, scope_profile **out);

/* Opens several paths as one profile, merged by rank. The same rank in two
 * paths is SCOPE_EDUP, and the message names both. npaths >= 1. */
SCOPE_READER_API int scope_profile_open_paths(const char *const *paths,
                                              int npaths, scope_profile **out);

/* Frees everything, and the buffers scope_call_stack_free() keeps for the
 * next call stack; NULL is a no-op. */
SCOPE_READER_API void scope_profile_close(scope_profile *p);

/* Number of distinct regions (by true name) over all ranks. */
SCOPE_READER_API int scope_profile_region_count(const scope_profile *p);

/* The region's true name (decoded per docs/format.md), owned by the profile;
 * NULL if `region` is out of range. */
SCOPE_READER_API const char *scope_profile_region_name(const scope_profile *p,
                                                       int region);

/* What the region's calls are: the MPI function by the standard's C name,
 * "_c" for the large-count form ("MPI_Isend", "MPI_Send_c",
 * "MPI_Bcast_init"), as the file says (the region's `operation`
 * attribute, docs/format.md "Operations") or, in a file without it, as
 * the region's name says (PMPI_, MPIX_ and Fortran spellings read as the
 * C name); NULL when the region is no call of scope's vocabulary (a
 * function, a manual region, MPI_Comm_rank) or out of range. Owned by the
 * profile. Read at open: costs nothing. */
SCOPE_READER_API const char *scope_profile_region_operation(scope_profile *p, int region);

/* The index of the region called `name`, or SCOPE_ENOTFOUND. */
SCOPE_READER_API int scope_profile_region_index(const scope_profile *p,
                                                const char *name);

/* Number of ranks, and the i-th rank number (ascending), or SCOPE_ENOTFOUND
 * if i is out of range. */
SCOPE_READER_API int scope_profile_rank_count(const scope_profile *p);
SCOPE_READER_API int scope_profile_rank(const scope_profile *p, int i);

/* Ranks an index file links to whose file is missing: a rank file never
 * written (the disk filled or failed between two ranks' conversions: the
 * rank's journal is still beside the rank files, for `scope recover`), or
 * a host file (host-<name>.h5, all ranks of one host) that is missing.
 * They are not part of the profile; the other ranks are. Count, and the
 * i-th (in the order of the index's links), or SCOPE_ENOTFOUND if i is
 * out of range. */
SCOPE_READER_API int scope_profile_missing_rank_count(const scope_profile *p);
SCOPE_READER_API int scope_profile_missing_rank(const scope_profile *p, int i);
/* The file the i-th missing rank's link names (beside the index, as
 * opened), owned by the profile; NULL if i is out of range. */
SCOPE_READER_API const char *scope_profile_missing_rank_file(const scope_profile *p,
                                                             int i);

/* The file that holds `rank`'s group: a rank file, a host file, a merged
 * file, ... (for an index, the file its link names, beside the index, as
 * opened; otherwise the path as given), owned by the profile; NULL for an
 * unknown rank. Lets a caller reopen only the files of some ranks (a Dask
 * partition per host file, scope_reader.dask_frames). Cost: O(log ranks). */
SCOPE_READER_API const char *scope_profile_rank_file(const scope_profile *p, int rank);

/* Calls of `region` on `rank` (or SCOPE_ALL_RANKS); 0 when the rank never
 * entered it. Reads no event data. Negative SCOPE_ENOTFOUND for a bad
 * region index or an unknown rank. */
SCOPE_READER_API int64_t scope_profile_calls(const scope_profile *p,
                                             int region, int rank);

/* The raw start and end times (ns) of `region` on one `rank`, in the file's
 * order (sorted by start). The arrays belong to the profile and stay valid
 * until scope_profile_close(); *starts and *ends are NULL when *n == 0.
 * Loads them on first use (cost: one HDF5 read of 2 * n int64). */
SCOPE_READER_API int scope_profile_times(scope_profile *p, int region, int rank,
                                         const int64_t **starts,
                                         const int64_t **ends, int64_t *n);

/* Duration statistics of `region` on `rank` or SCOPE_ALL_RANKS. Computed
 * once per (region, rank) and cached; the event data read for it is freed
 * again unless scope_profile_times() asked for it. */
SCOPE_READER_API int scope_profile_stats(scope_profile *p, int region, int rank,
                                         scope_stats *out);

/* The moments the reader keeps per (region, rank) to combine ranks
 * exactly: n rows of columns, in the caller's memory (m2: the sum of
 * squared deviations from mean_ns). For a caller that splits a profile's
 * calls itself (the Python module's Dask summary, one partition per host
 * file) and must get scope_profile_stats()'s numbers bit for bit. */
typedef struct scope_moments {
    int64_t n;
    int64_t *calls, *total_ns, *min_ns, *max_ns;
    double *mean_ns, *m2;
} scope_moments;

/* Row g of *out (out->n rows) from the durations [lo[g], hi[g]) in call
 * order, as the reader computes one (region, rank): the same function
 * (format/scope_h5_read.h scope_call_stats_of). Returns 0 or SCOPE_EINVAL
 * (NULL columns, a segment out of order, durations whose sum overflows
 * int64). Cost: two passes over the durations. */
SCOPE_READER_API int scope_moments_of(const int64_t *durations, const int64_t *lo,
                                      const int64_t *hi, scope_moments *out);

/* out[g] for g < ngroups: the statistics of rows [lo[g], hi[g]) of `rows`
 * combined in order, as scope_profile_stats() combines a region's ranks
 * in ascending rank order (the same update). Returns 0 or SCOPE_EINVAL.
 * Cost: one pass over the rows. */
SCOPE_READER_API int scope_moments_combine(const scope_moments *rows, const int64_t *lo,
                                           const int64_t *hi, int64_t ngroups,
                                           scope_stats *out);

/* Sum of the durations of every call of every region on `rank` (or
 * SCOPE_ALL_RANKS). Nested regions are counted once per region, so this can
 * exceed the rank's wall time. */
SCOPE_READER_API int scope_profile_rank_total_ns(scope_profile *p, int rank,
                                                 int64_t *out);

/* The run start time: /metadata start_time_ns (the earliest one when
 * several files carry one), else the earliest /rank<N> start_time_ns.
 * SCOPE_ENOTFOUND when no file records one (scope-profiler files). */
SCOPE_READER_API int scope_profile_run_start_ns(const scope_profile *p,
                                                int64_t *out);

/* Earliest call start / latest call end over every region and rank.
 * SCOPE_ENOTFOUND when the profile holds no calls. max_end reads every end
 * time (once). */
SCOPE_READER_API int scope_profile_min_start_ns(const scope_profile *p,
                                                int64_t *out);
SCOPE_READER_API int scope_profile_max_end_ns(scope_profile *p, int64_t *out);

/* The zero of relative times: the run start, else the earliest call start.
 * SCOPE_ENOTFOUND when neither exists. */
SCOPE_READER_API int scope_profile_time_origin_ns(const scope_profile *p,
                                                  int64_t *out);

/* Width of the profiled window: max end - min start, the denominator of a
 * region's share of the run. 0 when the profile holds no calls. */
SCOPE_READER_API int scope_profile_time_span_ns(scope_profile *p, int64_t *out);

/* ------------------------------------------------------------------ */
/* Run-level facts and file attributes (profile_attrs.c)               */

/* Integer and string attributes of the run's /metadata group (the first
 * opened file that has one) and of one rank's /rank<N> group, e.g.
 * "mpi_size", "hostname"; rank attributes "dropped_events", "complete",
 * "unterminated_calls", "pid". Strings are copied into buf (always
 * NUL-terminated when len > 0) and the return value is the string's full
 * length, as snprintf does, so a caller can retry with a larger buffer.
 * SCOPE_ENOTFOUND when the attribute (or /metadata) is missing or has
 * another type; SCOPE_ENOTFOUND for an unknown rank. Cost: one attribute
 * read (the file is reopened if it was closed). */
SCOPE_READER_API int scope_profile_metadata_int(scope_profile *p,
                                                const char *name,
                                                int64_t *out);
SCOPE_READER_API int scope_profile_metadata_string(scope_profile *p,
                                                   const char *name,
                                                   char *buf, int64_t len);
SCOPE_READER_API int scope_profile_rank_attr_int(scope_profile *p, int rank,
                                                 const char *name,
                                                 int64_t *out);
SCOPE_READER_API int scope_profile_rank_attr_string(scope_profile *p,
                                                    int rank,
                                                    const char *name,
                                                    char *buf, int64_t len);
/* A numeric (float or integer) rank attribute as a double, e.g.
 * "overhead_inside_ns". Same errors and cost as scope_profile_rank_attr_int. */
SCOPE_READER_API int scope_profile_rank_attr_double(scope_profile *p,
                                                    int rank,
                                                    const char *name,
                                                    double *out);

/* The recording clock's step in ns, measured when recording started
 * (/rank<N> attribute clock_resolution_ns, docs/format.md): for one rank,
 * or the coarsest over the ranks that state it with SCOPE_ALL_RANKS.
 * Durations below it mean little; calls shorter than it last 0 ns.
 * Returns 0, or SCOPE_ENOTFOUND when no such rank states it (files of
 * older versions and of other tools). Cost: one attribute read per rank. */
SCOPE_READER_API int scope_profile_clock_resolution_ns(scope_profile *p,
                                                       int rank,
                                                       int64_t *out);

/* ------------------------------------------------------------------ */
/* Selecting regions (region_select.c)                                 */

/* Stores in out[] (room for scope_profile_region_count() ints) the
 * regions, in region order, whose name matches at least one `include`
 * pattern (all regions when ninclude == 0) and no `exclude` pattern.
 * Patterns are POSIX extended regular expressions that match anywhere in
 * the name (like Python's re.search): anchor with ^...$ for a whole name.
 * Returns the number stored, or SCOPE_EINVAL for a bad pattern (the
 * message quotes it). Cost: one regexec per (region, pattern). */
SCOPE_READER_API int scope_profile_select_regions(const scope_profile *p,
                                                  const char *const *include,
                                                  int ninclude,
                                                  const char *const *exclude,
                                                  int nexclude, int *out);

/* ------------------------------------------------------------------ */
/* More statistics (region_stats.c)                                    */

/* Percentiles of the durations of `region` on `rank` (or SCOPE_ALL_RANKS):
 * out[i] = the qs[i]-th percentile, qs[i] in [0, 100], interpolated
 * linearly between the closest ranks (numpy's default), in ns. 0 when the
 * region has no calls there. SCOPE_EINVAL for q outside [0, 100]. Cost:
 * reads the durations and sorts them once per call (n log n). */
SCOPE_READER_API int scope_profile_percentiles(scope_profile *p, int region,
                                               int rank, const double *qs,
                                               int nq, double *out);

/* How evenly a region's time is spread over the ranks that entered it,
 * from the per-rank totals (sum of durations on each rank). */
typedef struct scope_balance {
    int32_t ranks;          /* ranks that entered the region */
    int32_t max_rank;       /* the rank with the largest total (lowest on ties) */
    int32_t min_rank;       /* the rank with the smallest total */
    int32_t reserved;
    int64_t max_ns;
    int64_t min_ns;
    double mean_ns;
    double imbalance;       /* max / mean: the standard HPC load imbalance,
                             * 1.0 = perfectly even; 0 when no calls */
    double max_min_ratio;   /* max / min, what the tutorial prints as
                             * "imbalance" (1.60x); 0 when no calls or when
                             * the smallest total is 0 */
} scope_balance;

SCOPE_READER_API int scope_profile_balance(scope_profile *p, int region,
                                           scope_balance *out);

/* ------------------------------------------------------------------ */
/* Threads (profile_attrs.c)                                           */

/* The thread lane of each call of `region` on `rank`, in the order of
 * scope_profile_times(): an index into the rank's threads table. *tids is
 * NULL (and every call is on lane 0) when the rank recorded on one thread
 * or the file stores no thread_ids. Kept until close. */
SCOPE_READER_API int scope_profile_thread_ids(scope_profile *p, int region,
                                              int rank, const int32_t **tids,
                                              int64_t *n);

/* Whether each call of `region` on `rank` ended where it returned: in the
 * order of scope_profile_times(), 1 for a call whose end was inferred, not
 * seen (longjmp or an exception out of it, thread exit, exit or a crash
 * while it was open, an enclosing call ending first; its end time is when
 * scope noticed), else 0 (the `unwound` dataset, docs/format.md).
 * *unwound is NULL (no end was inferred) when the region stores none
 * there. Kept until close; the profile owns it. Returns 0, SCOPE_EINVAL,
 * SCOPE_ENOTFOUND (unknown region or rank), or SCOPE_EFORMAT (a value
 * other than 0 or 1, or the wrong length). Cost: one HDF5 read of n
 * values on first use. */
SCOPE_READER_API int scope_profile_unwound(scope_profile *p, int region,
                                           int rank, const int8_t **unwound,
                                           int64_t *n);

/* ------------------------------------------------------------------ */
/* Events: one record per call (events.c)                              */

/* Which zero relative times are measured from. */
enum scope_time_mode {
    SCOPE_TIME_RELATIVE = 0, /* scope_profile_time_origin_ns(): run start,
                              * else first call start (the default) */
    SCOPE_TIME_ABSOLUTE = 1, /* the recorded clock values */
    SCOPE_TIME_ORIGIN = 2    /* relative to scope_event_query.origin_ns */
};

/* What scope_profile_events_open() selects. Zero-initialised = every
 * region, every rank, relative times, no call ids. */
typedef struct scope_event_query {
    const char *const *include; /* regexes, as scope_profile_select_regions */
    int32_t ninclude;
    int32_t nexclude;
    const char *const *exclude;
    const int32_t *ranks;       /* NULL = every rank */
    int32_t nranks;
    int32_t time_mode;          /* enum scope_time_mode */
    int64_t origin_ns;          /* for SCOPE_TIME_ORIGIN */
    int32_t call_ids;           /* 1 = fill call_id/parent_id (builds each
                                 * selected rank's call stack: n log regions time,
                                 * 16 bytes per event of those ranks) */
    int32_t call_sites;         /* 1 = fill scope_event.site (loads the call
                                 * site tables, and keeps 4 bytes per call of
                                 * regions that store sites until close) */
} scope_event_query;

typedef struct scope_event {
    int64_t start_ns;       /* per the query's time mode */
    int64_t end_ns;
    int64_t call_index;     /* index among the region's calls on this rank */
    int64_t call_id;        /* index in the rank's call stack (all threads),
                             * -1 unless the query asked for call ids */
    int64_t parent_id;      /* call_id of the enclosing call, -1 if none */
    int32_t region;
    int32_t rank;
    int32_t thread;         /* thread lane, 0 when one thread */
    int32_t site;           /* merged call site (scope_profile_site_frames),
                             * -1 when the call has none or the query did
                             * not ask for call_sites */
} scope_event;

typedef struct scope_events scope_events;

/* Starts an iteration over the selected calls in region order, then rank,
 * then call order. Reads one (region, rank) at a time, so memory does not
 * grow with the run (except call ids, see above). Errors: SCOPE_EINVAL (bad
 * regex), SCOPE_ENOTFOUND (unknown rank, or RELATIVE with no origin),
 * SCOPE_EOVERLAP (call ids asked, calls overlap partially), I/O errors. */
SCOPE_READER_API int scope_profile_events_open(scope_profile *p,
                                               const scope_event_query *q,
                                               scope_events **out);
/* Number of events the iteration yields in all (known without reading). */
SCOPE_READER_API int64_t scope_events_count(const scope_events *it);
/* Fills up to cap events; returns how many (0 at the end) or SCOPE_E*. */
SCOPE_READER_API int64_t scope_events_read(scope_events *it, scope_event *buf,
                                           int64_t cap);
SCOPE_READER_API void scope_events_close(scope_events *it);

/* ------------------------------------------------------------------ */
/* Event columns: the same calls as one array per field                 */
/* (event_columns.c), for numpy, pandas and other column stores          */

/* Which columns scope_profile_event_columns() makes: an OR of these. The
 * _NS times are int64 nanoseconds and the _S times float64 seconds
 * (the _NS value / 1e9, exactly as numpy divides), both per the query's
 * time mode; durations are end - start, computed in int64. */
enum scope_event_column {
    SCOPE_COL_REGION = 1 << 0,       /* int32 region index: the name id */
    SCOPE_COL_RANK = 1 << 1,         /* int32 MPI rank */
    SCOPE_COL_THREAD = 1 << 2,       /* int32 thread lane, 0 when one */
    SCOPE_COL_START_NS = 1 << 3,     /* int64 */
    SCOPE_COL_END_NS = 1 << 4,       /* int64 */
    SCOPE_COL_DURATION_NS = 1 << 5,  /* int64 */
    SCOPE_COL_START_S = 1 << 6,      /* double */
    SCOPE_COL_END_S = 1 << 7,        /* double */
    SCOPE_COL_DURATION_S = 1 << 8,   /* double */
    SCOPE_COL_CALL_INDEX = 1 << 9,   /* int64 index among the region's
                                      * calls on the rank */
    SCOPE_COL_CALL_ID = 1 << 10,     /* int64 index in the rank's call stack
                                      * (scope_profile_call_stack, every
                                      * thread), as scope_event.call_id */
    SCOPE_COL_PARENT_ID = 1 << 11,   /* int64 call id of the enclosing call,
                                      * -1 for a root */
    SCOPE_COL_DEPTH = 1 << 12,       /* int32 nesting depth, 0 for a root */
    SCOPE_COL_SITE = 1 << 13,        /* int32 merged call site, -1 none */
    SCOPE_COL_SELF_NS = 1 << 14,     /* int64 duration minus the children's
                                      * (call stack columns only) */
    SCOPE_COL_SELF_S = 1 << 15       /* double, the same in seconds */
};

/* Keeps the calls that overlap [from_ns, to_ns] (both ends included):
 * end >= from_ns and start <= to_ns, in the query's time mode, so a
 * window in relative times is given in relative ns. */
typedef struct scope_time_window {
    int64_t from_ns;
    int64_t to_ns;
} scope_time_window;

/* The columns of scope_profile_event_columns(): n rows, and one array of n
 * values per requested column (NULL for the others). Every array is
 * malloc'd by the reader for the caller, who owns it: take one by copying
 * its pointer and setting the field to NULL, free it with
 * scope_reader_free(); scope_event_columns_free() frees what is left. */
typedef struct scope_event_columns {
    int64_t n;
    int32_t *region;
    int32_t *rank;
    int32_t *thread;
    int32_t *depth;
    int32_t *site;
    int32_t reserved;
    int64_t *start_ns;
    int64_t *end_ns;
    int64_t *duration_ns;
    int64_t *call_index;
    int64_t *call_id;
    int64_t *parent_id;
    double *start_s;
    double *end_s;
    double *duration_s;
    int64_t *self_ns;
    double *self_s;
} scope_event_columns;

/* The calls q selects (its include, exclude, ranks and time mode; NULL =
 * every call, relative times), kept by `window` when it is not NULL, as
 * `columns` (enum scope_event_column bits; q's call_ids and call_sites are
 * not read: the bits say what to make). Rows are in the order of
 * scope_events_read(): region, then rank, then call index. Fills *out
 * (zeroed first; all NULL and n = 0 on failure) and returns 0, or
 * SCOPE_EINVAL (bad pattern, rank list, bit or window), SCOPE_ENOTFOUND
 * (unknown rank), SCOPE_EOVERLAP / SCOPE_EFORMAT (call stack columns on a
 * rank whose nesting cannot be rebuilt), SCOPE_ENOMEM, I/O errors naming
 * the file. Cost: one read of each selected (region, rank)'s times, in
 * C, at memory speed; CALL_ID, PARENT_ID or DEPTH build each selected
 * rank's call stack instead (scope_profile_call_stack: that rank's every
 * region), one rank at a time, in one buffer of 64 bytes per call of the
 * largest selected rank. Memory: the requested columns (4 or 8
 * bytes per row each); a window's rejected rows are never touched, so
 * they take no memory, except with call stack columns, where the rows of
 * the selected regions are written first and then compacted. */
SCOPE_READER_API int scope_profile_event_columns(scope_profile *p,
                                                 const scope_event_query *q,
                                                 const scope_time_window *window,
                                                 uint32_t columns,
                                                 scope_event_columns *out);
/* Frees every column still in c and zeroes it; NULL is a no-op. */
SCOPE_READER_API void scope_event_columns_free(scope_event_columns *c);
/* Frees one column taken out of a scope_event_columns; NULL is a no-op. */
SCOPE_READER_API void scope_reader_free(void *column);

struct scope_call_stack;    /* scope_call_stack, below */

/* The calls of a call stack (scope_profile_call_stack, compensated or
 * not) as columns, one row per call in the stack's order, so call_id is
 * the row and parent_id the parent's row (-1 for a root): every bit but
 * SCOPE_COL_RANK and SCOPE_COL_SITE (SCOPE_EINVAL), times minus shift_ns
 * (durations and self times are not shifted).
 * Fills *out as scope_profile_event_columns() does (the caller owns the
 * arrays). Cost: one pass over the stack; memory: the columns. 0,
 * SCOPE_EINVAL, SCOPE_ENOMEM. */
SCOPE_READER_API int scope_call_stack_columns(const struct scope_call_stack *cs,
                                              int64_t shift_ns, uint32_t columns,
                                              scope_event_columns *out);

/* ------------------------------------------------------------------ */
/* The call stack of a rank: the journal's order, or containment       */

/* Pass as `thread` to take every thread lane of the rank. */
#define SCOPE_ALL_THREADS (-1)

typedef struct scope_call {
    int64_t start_ns;       /* recorded clock values */
    int64_t end_ns;
    int64_t self_ns;        /* duration minus the durations of its children */
    int64_t call_index;     /* index among the region's calls on this rank */
    int64_t parent;         /* index of the enclosing call, -1 for a root */
    int32_t region;
    int32_t thread;         /* lane: nesting is only ever within one lane */
    int32_t depth;          /* 0 for a root */
    int32_t reserved;
} scope_call;

typedef struct scope_call_stack scope_call_stack;

/* The calls of `rank` on lane `thread` (or SCOPE_ALL_THREADS), sorted by
 * start. docs/format.md "Call order and ties" has the rule: when every
 * region of the rank stores the journal's order (begin_seq and depth,
 * written by scope when a thread's timestamps tied), calls are in that
 * order and each is the child of the open call one level up, exactly as
 * recorded whatever the clock's resolution; a depth or times that
 * contradict it are SCOPE_EFORMAT / SCOPE_EOVERLAP. Otherwise by
 * containment: ties in start put the longer call first, so it becomes the
 * parent, then thread, region, call index; a call that starts while
 * another call of the same lane is open is its child; a call that starts
 * inside another and ends after it is SCOPE_EOVERLAP, and the message
 * names both calls; a call starting exactly when another ends is not its
 * child. Cost:
 * reads every region of the rank; n log(regions) time when each region's
 * calls are in start order (as files keep them; else n log n), about 120
 * bytes per call while building (16 more with a stored order), 64 after. */
SCOPE_READER_API int scope_profile_call_stack(scope_profile *p, int rank,
                                              int thread,
                                              scope_call_stack **out);
SCOPE_READER_API int64_t scope_call_stack_count(const scope_call_stack *cs);
/* The calls, scope_call_stack_count() of them; owned by the stack. */
SCOPE_READER_API const scope_call *
scope_call_stack_calls(const scope_call_stack *cs);
/* The children of call `call` (indices, ascending), or the roots when
 * call == -1. SCOPE_ENOTFOUND for an index out of range. */
SCOPE_READER_API int scope_call_stack_children(const scope_call_stack *cs,
                                               int64_t call,
                                               const int64_t **kids,
                                               int64_t *n);
/* Frees cs; NULL is a no-op. The buffers of the last stack freed are kept
 * for the next stack built (their first touch, the kernel zeroing fresh
 * pages, was a third of a stack's time) until scope_profile_close(); a
 * stack freed after the last close leaves them until the process ends. */
SCOPE_READER_API void scope_call_stack_free(scope_call_stack *cs);

/* ------------------------------------------------------------------ */
/* Compensation: subtracting what recording itself cost                */

/* What recording one call cost on `rank`, measured by the process at
 * start (docs/format.md, rank attributes overhead_inside_ns and
 * overhead_caller_ns): *inside_ns inflates every recorded duration, and
 * *caller_ns is added to the caller's self time once per child call.
 * SCOPE_ENOTFOUND when the rank stores no measurement (a file written by
 * an older scope or another tool). Cost: two attribute reads. */
SCOPE_READER_API int scope_profile_overhead(scope_profile *p, int rank,
                                            double *inside_ns,
                                            double *caller_ns);

/* Subtracts a per-call overhead from every call of cs, in place: a call
 * with d descendants and k children gets
 *     duration' = duration - inside - d * (inside + caller)
 *     self'     = self - inside - k * caller
 * each clamped at 0; end_ns becomes start_ns + duration' (the nesting,
 * parent and children stay those of the recorded times). Cost: linear,
 * 8 bytes per call while it runs. SCOPE_EINVAL for NULL or a negative
 * overhead, SCOPE_ENOMEM. */
SCOPE_READER_API int scope_call_stack_compensate(scope_call_stack *cs,
                                                 double inside_ns,
                                                 double caller_ns);

/* scope_profile_call_stack() then scope_call_stack_compensate() with the
 * rank's own scope_profile_overhead(). Errors of both (SCOPE_ENOTFOUND
 * when the rank stores no measurement); same cost as the call stack. */
SCOPE_READER_API int scope_profile_call_stack_compensated(scope_profile *p,
                                                          int rank, int thread,
                                                          scope_call_stack **out);

/* The statistics of scope_profile_stats() for every region at once, from
 * compensated durations (each rank with its own measurement): out[] has
 * room for scope_profile_region_count() entries, indexed by region; rank
 * is one rank or SCOPE_ALL_RANKS. mean and std are Welford's running
 * values over the compensated durations. SCOPE_ENOTFOUND when a rank
 * stores no measurement. Cost: one compensated call stack per rank
 * (reads every region of the rank), O(regions) memory besides. */
SCOPE_READER_API int scope_profile_stats_compensated(scope_profile *p,
                                                     int rank,
                                                     scope_stats *out);

/* ------------------------------------------------------------------ */
/* Call sites (callsites.c): docs/format.md /rank<N>/callsites          */

/* One frame of a call path: `offset` is a file address of `object` (a
 * return address minus the load bias: look up offset - 1 for the call's
 * line); build_id is lowercase hex, "" when the object has none. The
 * strings belong to the profile. Frame 0 is the immediate caller of the
 * instrumented function. */
typedef struct scope_callsite_frame {
    uint64_t offset;
    const char *build_id;
    const char *object;
} scope_callsite_frame;

/* Call paths are stored per rank with per-rank ids; the reader merges
 * them into one run-wide list of "sites": two paths are the same site when
 * they have the same depth and every frame has the same offset and the
 * same build-id (the same object path when there is no build-id). Sites
 * are numbered 0 .. site_count-1 in order of (lowest rank, id there).
 *
 * scope_profile_site_count: loads every rank's callsites table on first
 * use (one HDF5 read per rank; merging is n log n in the number of paths)
 * and returns how many distinct sites the run holds (0 when none was
 * recorded), or a negative SCOPE_E* (SCOPE_EFORMAT for a damaged table:
 * ids not dense, frames out of order, depth disagreeing). */
SCOPE_READER_API int scope_profile_site_count(scope_profile *p);

/* The frames of merged site `site`: *frames (owned by the profile) and
 * *depth. SCOPE_ENOTFOUND for a site out of range. */
SCOPE_READER_API int scope_profile_site_frames(scope_profile *p, int site,
                                               const scope_callsite_frame **frames,
                                               int *depth);

/* Number of call paths stored for `rank` (its own ids 0 .. n-1), and the
 * merged site of its path `id`. SCOPE_ENOTFOUND for an unknown rank or
 * id. */
SCOPE_READER_API int scope_profile_rank_callsite_count(scope_profile *p,
                                                       int rank);
SCOPE_READER_API int scope_profile_rank_callsite_site(scope_profile *p,
                                                      int rank, int id);

/* The merged site of each call of `region` on `rank`, in the order of
 * scope_profile_times(): a site index, or -1 for a call without one.
 * *sites is NULL (every call without a site) when the region stores no
 * callsite_ids there. Kept until close. Cost: one HDF5 read of n values. */
SCOPE_READER_API int scope_profile_call_sites(scope_profile *p, int region,
                                              int rank, const int32_t **sites,
                                              int64_t *n);

/* Duration statistics of `region`'s calls on `rank` (or SCOPE_ALL_RANKS)
 * grouped by merged site: out[s] for s in 0 .. site_count-1 (the caller
 * gives room for scope_profile_site_count() entries; may be NULL when it
 * is 0), and *none (may be NULL) the calls that carry no site. Same
 * conventions as scope_stats (population std, all 0 with no calls).
 * Cost: reads the region's times and sites on each selected rank. */
SCOPE_READER_API int scope_profile_site_stats(scope_profile *p, int region,
                                              int rank, scope_stats *out,
                                              scope_stats *none);

/* ------------------------------------------------------------------ */
/* Where the data lives (profile_open.c), for a writer that copies it:  */
/* `scope merge` (the converter's scope_convert_merge() writes).        */

/* The file that holds the i-th rank (i as for scope_profile_rank()) and
 * its group there ("/rank3"; the target of an index's link, so the file
 * is a rank or host file, never the index). *group is NULL for a rank of
 * scope-profiler's columnar schemas 2/3, which have no rank group: read
 * its times with scope_profile_times(). Both strings are the profile's.
 * Returns 0 or SCOPE_ENOTFOUND when i is out of range. Cost: none. */
SCOPE_READER_API int scope_profile_rank_source(const scope_profile *p, int i,
                                               const char **file,
                                               const char **group);

/* The file whose /metadata is the run's (the first given that has one),
 * or NULL when none has. Owned by the profile. Cost: none. */
SCOPE_READER_API const char *scope_profile_metadata_file(const scope_profile *p);

/* The number of files the profile reads (indexes, rank, host and merged
 * files), and the s-th one's path (NULL when s is out of range). */
SCOPE_READER_API int scope_profile_file_count(const scope_profile *p);
SCOPE_READER_API const char *scope_profile_file(const scope_profile *p, int s);

/* ------------------------------------------------------------------ */
/* Clock alignment across hosts (clock_info.c): docs/format.md, clock_* */

/* What the file says about putting the ranks of several hosts on one
 * timeline (rank 0's host). Counts are over the profile's ranks. */
typedef struct scope_clock_info {
    int64_t hosts;            /* hosts of the run (clock_hosts); 0 when no
                                 rank carries clock attributes */
    int64_t error_ns;         /* worst bound on a stored time's distance
                                 from rank 0's host clock, between MPI_Init
                                 and MPI_Finalize (clock_error_ns of the
                                 ranks and of /metadata); -1 if unknown */
    int64_t span_error_ns;    /* the same over every rank's whole span
                                 (before MPI_Init too, extrapolated) */
    int ranks_aligned;        /* clock_aligned = 2: at init and finalize */
    int ranks_init_only;      /* 1: at init only (crashed or recovered);
                                 the drift after MPI_Init is not corrected */
    int ranks_unaligned;      /* 0: times are the host's own clock */
    int ranks_unknown;        /* no clock attributes (older or foreign
                                 files, serial runs) */
    int first_suspect_rank;   /* lowest rank that is init-only or
                                 unaligned, -1 when none */
} scope_clock_info;

/* Fills *out from the rank groups' clock_* attributes (and /metadata).
 * Returns 0 or SCOPE_EINVAL. Cost: a few attribute reads per rank. */
SCOPE_READER_API int scope_profile_clock_info(scope_profile *p,
                                              scope_clock_info *out);

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_READER_H */
