/*
 * scope_reader.h - libscope_reader: opens scope profiles (FORMAT.md) and
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
 * relative to the index file's folder), a merged file, one rank file, a
 * folder (every rank<N>.h5 in it), scope-profiler's schema 1, 2 and 3
 * files, or several of these at once, merged by rank.
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

/* Frees everything; NULL is a no-op. */
SCOPE_READER_API void scope_profile_close(scope_profile *p);

/* Number of distinct regions (by true name) over all ranks. */
SCOPE_READER_API int scope_profile_region_count(const scope_profile *p);

/* The region's true name (decoded per FORMAT.md), owned by the profile;
 * NULL if `region` is out of range. */
SCOPE_READER_API const char *scope_profile_region_name(const scope_profile *p,
                                                       int region);

/* The index of the region called `name`, or SCOPE_ENOTFOUND. */
SCOPE_READER_API int scope_profile_region_index(const scope_profile *p,
                                                const char *name);

/* Number of ranks, and the i-th rank number (ascending), or SCOPE_ENOTFOUND
 * if i is out of range. */
SCOPE_READER_API int scope_profile_rank_count(const scope_profile *p);
SCOPE_READER_API int scope_profile_rank(const scope_profile *p, int i);

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

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_READER_H */
