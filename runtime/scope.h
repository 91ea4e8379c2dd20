/*
 * scope.h - the core region recorder: the public API for programs that mark
 * their own regions, and the base the LD_PRELOAD agent is built on.
 *
 *     scope_init(NULL);                       // optional: first use inits
 *     int32_t solve = scope_region("solve");  // intern once, keep the id
 *     scope_begin(solve);
 *     ...
 *     scope_end(solve);
 *     scope_finalize();                       // optional: runs at exit too
 *
 * Or, in C, a region that cannot be left open by an early return:
 *
 *     void step(void) { SCOPE_SCOPED("step"); ... }
 *
 * Recording (scope_begin/scope_end) takes no lock, calls no malloc and makes
 * no system call in the steady state: it reads the clock and stores 16 bytes
 * into a per-thread chunk of a memory-mapped journal file. A thread's first
 * event and every chunk switch (each 64 Ki events by default) take a slower
 * path that maps a new chunk. Finalize turns the journal into the per-rank
 * HDF5 file (and, on rank 0, the index file) described in docs/format.md.
 *
 * Link with `pkg-config --libs scope`. All functions are thread-safe.
 */
#ifndef SCOPE_H
#define SCOPE_H

#include <stdint.h>
#include <stddef.h>

#include "scope_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCOPE_VERSION_STRING "0.1.0"

/* Exported from libscope.so even though the runtime builds hidden. */
#define SCOPE_API __attribute__((visibility("default")))

/* Options for scope_init(). Zero or NULL fields take the default, which is
 * itself overridden by the environment variable named beside it. */
typedef struct scope_options {
    /* Index file path; rank files go to "<output without .h5>.ranks/".
     * Default "scope_profile.h5"; env SCOPE_OUTPUT. */
    const char *output;
    /* Upper bound, in bytes, on the memory the recorder maps for event
     * buffers. Default 64 MiB; env SCOPE_MEMORY_BUDGET wins (a byte count
     * as in the config: 64M, 1GiB; a bad value is said and ignored). */
    uint64_t memory_budget;
    /* Text stored as /metadata "config" (the preload passes its config). */
    const char *config_text;
} scope_options;

/* Starts the recorder: takes the run start time, prepares the journal
 * lazily (no file is created until the first event). Calling it again is a
 * no-op that returns 0. Returns 0 or a negative SCOPE_E* code. */
SCOPE_API int scope_init(const scope_options *opts);

/* Stops recording and writes this process's rank file (and the index file
 * on rank 0) under temporary names, renamed when complete, then removes the
 * journal. Idempotent; also runs automatically at normal process exit.
 * Cost: linear in the number of recorded events. Returns 0 or SCOPE_E*. */
SCOPE_API int scope_finalize(void);

/* Returns the id (>= 0) of the region called `name`, creating it on first
 * use; the same name always gives the same id. Takes a lock and may
 * allocate: call it once per region, not per event. Negative SCOPE_E* on
 * failure (NULL or empty name, out of memory). Initialises the recorder
 * with default options when scope_init() was not called. */
SCOPE_API int32_t scope_region(const char *name);

/* Marks the start and end of one call of region `id` on the calling thread.
 * Regions nest and may recurse; scope_end closes the innermost open call of
 * `id`. Invalid ids and calls after finalize are ignored. A few ns each. */
SCOPE_API void scope_begin(int32_t id);
SCOPE_API void scope_end(int32_t id);

/* Events this process could not record (budget exhausted, disk full). */
SCOPE_API uint64_t scope_dropped_events(void);

/* Tells the recorder this process is MPI rank `rank` of `size`. The preload
 * calls it after MPI_Init; a program that calls it itself must do so before
 * scope_finalize(). Default: rank 0 of 1. */
SCOPE_API void scope_set_rank(int rank, int size);

/* --- scoped regions for C (GCC/Clang `cleanup` attribute) --------------- */

typedef struct scope_scoped { int32_t id; } scope_scoped;

/* Helpers for SCOPE_SCOPED; not meant to be called directly. */
SCOPE_API scope_scoped scope_scoped_begin(int32_t *cached_id, const char *name);
SCOPE_API void scope_scoped_end(scope_scoped *s);

#define SCOPE__CAT2(a, b) a##b
#define SCOPE__CAT(a, b) SCOPE__CAT2(a, b)
/* Opens region `name` until the end of the enclosing block. The id is
 * interned on first execution and cached in a static. */
#define SCOPE_SCOPED(name)                                                     \
    static int32_t SCOPE__CAT(scope__id_, __LINE__) = -1;                      \
    scope_scoped SCOPE__CAT(scope__guard_, __LINE__)                           \
        __attribute__((cleanup(scope_scoped_end), unused)) =                   \
            scope_scoped_begin(&SCOPE__CAT(scope__id_, __LINE__), (name))

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_H */
