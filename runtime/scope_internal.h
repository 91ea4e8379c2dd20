/*
 * scope_internal.h - recorder entry points for the rest of scope (the
 * preload and the tools), beyond the public scope.h. Not installed.
 */
#ifndef SCOPE_INTERNAL_H
#define SCOPE_INTERNAL_H

#include <stddef.h>

#include "scope.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Like scope_region(), but with the attributes docs/format.md stores on a region
 * group: kind (0 function, 1 mpi, 2 manual, 3 omp, 4 io), the patched symbol (mangled)
 * and the object that defines it (either may be NULL). The first call for a
 * name fixes its attributes. */
SCOPE_API int32_t scope__region_ex(const char *name, int kind, const char *symbol,
                         const char *object);

/* Adds a string to the run's /metadata (e.g. "config"); later values for
 * the same key replace earlier ones. Returns 0 or SCOPE_E*. */
SCOPE_API int scope__set_metadata(const char *key, const char *value);

/* Adds one row to this rank's /rank<N>/interposition table (docs/format.md):
 * a config pattern, the symbol and object it matched (empty when none),
 * the method ("inline", "got", "symbol"), the status ("patched",
 * "refused", "not found") and why. NULL means "". Returns 0 or SCOPE_E*. */
SCOPE_API int scope__note_interposition(const char *pattern, const char *symbol,
                                        const char *object, const char *method,
                                        const char *status, const char *reason);

/* Stops recording in this process for good without writing anything
 * (used in a fork child and when a process turns out not to be a target).
 * Removes the journal if this process created it. */
SCOPE_API void scope__disable(void);

/* Finalize in two halves, for host files (preload/mpi/host_files.c): the
 * first stops recording and completes this process's journal, keeps it on
 * disk for the host's writer and puts its path in `journal`. Returns 1
 * (a journal), 0 (nothing recorded, or not this process's recorder) or
 * SCOPE_ELIMIT (path too long: the journal is kept for `scope recover`).
 * The second, on the host's leader, writes the n journals (its own first)
 * into <ranks folder>/<host_file> with scope-h5write, and on rank 0 the
 * index, whose /rank<r> links to links[r] (NULL: rank<r>.h5). A failure is
 * said once per job; whatever was not written stays as journals. Returns
 * 0 or a negative SCOPE_E*. Cost: one writer process per host. */
SCOPE_API int scope__finalize_journal(char *journal, size_t len);

/* scope_finalize() for a process about to end without finalizing (the
 * preload's MPI_Abort): the same rank file, but marked complete = 0, since
 * the program's run ends early, and the index whatever the rank (rank 0
 * may be killed before it writes it; the index links every rank's file,
 * under the ranks folder's lock, so two writers of it agree). Calls still
 * open are closed at this moment, counted as unterminated. Returns 0 or a
 * negative SCOPE_E*; the journal is kept when writing fails. Cost: one
 * writer process, waited for. */
SCOPE_API int scope__finalize_abandoned(void);
SCOPE_API int scope__finalize_host(const char *host_file, const char *const *journals, size_t n,
                                   const char *const *links, size_t n_links);

/* Records a begin (is_end 0) or end with a given timestamp in clock ticks
 * (ns when SCOPE_CLOCK=monotonic). For importers and for tests that need
 * exact values; ticks must not decrease on a thread, 0 is ignored. */
SCOPE_API void scope__record_at(int32_t id, int is_end, uint64_t ticks);

/* Like scope_end(), but marks the end as inferred, not observed (the
 * record's aux is SCOPE_REC_UNWOUND): the preload closes with it the calls
 * that longjmp or a C++ exception unwound. Same cost as scope_end(). */
SCOPE_API void scope__end_unwound(int32_t id);

/* The same, ended at clock `ticks` (scope__ticks()), or at the end of the
 * thread's latest record if that is later: a call an exception left ends
 * at the throw, unless something recorded during the unwinding ran
 * later. */
SCOPE_API void scope__end_unwound_at(int32_t id, uint64_t ticks);

/* This process's rank as its launcher announced it in the environment
 * (Open MPI, PMIx, MPICH's PMI, Slurm), or -1 when not under a launcher.
 * Used to print job-wide messages once (rank 0) before MPI_Init. */
SCOPE_API int scope__launcher_rank(void);

/* The config file's journal folder (`journal_dir`, docs/config.md) and
 * where it was set ("<file>:<line>"), for the next scope_init;
 * SCOPE_JOURNAL_DIR wins over it. NULL or "" = none. */
SCOPE_API void scope__set_journal_dir(const char *dir, const char *origin);

/* What a launcher announced (launcher.c). */
typedef struct scope__launcher {
    int rank;              /* -1: no launcher variable */
    int size;              /* -1: not announced (PMIx) or inconsistent */
    const char *rank_var;  /* e.g. "PMI_RANK"; NULL when rank is -1 */
    const char *size_var;  /* e.g. "PMI_SIZE"; NULL when size is -1 */
    const char *launcher;  /* e.g. "Open MPI", "Slurm" */
} scope__launcher;

/* Reads the launcher variables from envp ("NAME=value" strings; NULL =
 * this process's environment), in the order OMPI_COMM_WORLD_RANK/SIZE,
 * PMI_RANK/SIZE, PMIX_RANK, MV2_COMM_WORLD_RANK/SIZE, PALS_RANKID,
 * ALPS_APP_PE, FLUX_TASK_RANK/FLUX_JOB_SIZE, JSM_NAMESPACE_RANK/SIZE,
 * SLURM_PROCID/NTASKS:
 * the first set whose rank is a whole non-negative number wins. Returns 1
 * with *out filled, 0 when no set applies (*out then says rank -1). */
SCOPE_API int scope__launcher_from(char *const *envp, scope__launcher *out);

/* --- call sites (docs/format.md, /rank<N>/callsites) ------------------- */

#define SCOPE_CALLSITE_MAX_DEPTH 16

/* One frame of a call path, as it means something in another process:
 * the object's GNU build-id in hex ("" when it has none), its path, and
 * the return address's offset from the object's load base. */
typedef struct scope__frame {
    const char *build_id;
    const char *object;
    uint64_t offset;
} scope__frame;

/* Returns the id (>= 1) of the call path frames[0..depth) (frame 0 is the
 * immediate caller), defining it on first use: the same path always gets
 * the same id in this process. Takes the recorder lock and allocates:
 * call it when a path is first seen, never per call. depth 1..16.
 * Negative SCOPE_E* (EINVAL, ENOMEM) on failure. */
SCOPE_API int32_t scope__callsite_define(const scope__frame *frames, int depth);

/* scope_begin() of region `id` with call site `site` (from
 * scope__callsite_define; 0 = none, then it is scope_begin). Same cost as
 * scope_begin: no lock, no malloc, no system call in the steady state.
 * The matching end is a separate record (journal.h). */
SCOPE_API void scope__begin_site(int32_t id, int32_t site);

/* scope_begin() of region `id` whose record's aux is `aux`: a call site
 * (as scope__begin_site) or an OpenMP region's value (format/journal.h).
 * Same cost as scope_begin(). */
SCOPE_API void scope__begin_aux(int32_t id, uint32_t aux);

/* scope_end() of region `id` as a record of its own whose aux carries
 * `aux` (bit 0, SCOPE_REC_UNWOUND, cleared): an OpenMP region's value
 * (format/journal.h). Returns the end's clock (scope__ticks()), read
 * once. Same cost as scope_end(). */
SCOPE_API uint64_t scope__end_aux(int32_t id, uint32_t aux);

/* scope__begin_site() and scope_end() at clock `ticks` (scope__ticks())
 * read by the caller: the preload's trampoline reads the counter itself,
 * first thing in its entry and exit paths, where the ordering fence waits
 * for nothing but the work it orders (docs/performance.md). The caller
 * keeps a thread's ticks from decreasing. Same cost as scope__begin_site()
 * and scope_end() without their clock read. */
SCOPE_API void scope__begin_site_at(int32_t id, int32_t site, uint64_t ticks);
SCOPE_API void scope__end_at(int32_t id, uint64_t ticks);

/* Records what the call that just ended on this thread moved (format/
 * journal.h, data records): call it right after that call's scope_end(),
 * with nothing recorded between. One record (two when a value does not
 * fit the compact form); no lock, no malloc, no system call in the steady
 * state. */
struct scope_call_data;
SCOPE_API void scope__record_data(const struct scope_call_data *d);

/* Records one data record as encoded (format/journal.h: a packed data
 * record, or a request record): `word` must be a data record's (else
 * nothing is recorded); the mark bit is added to `ticks`. Same cost and
 * rules as scope__record_data(). */
SCOPE_API void scope__record_data_raw(uint64_t ticks, uint32_t word, uint32_t aux);

/* Records `n` data records as encoded, in order (what one call moved: its
 * data record, a request's post or completions): each `word` must be a
 * data record's (others are skipped); the mark bit is added to each
 * `ticks`. One check of room for all of them, so it costs about a store
 * per record in the steady state; same rules as scope__record_data(). */
struct scope_rec;
SCOPE_API void scope__record_data_recs(const struct scope_rec *r, unsigned n);

/* Defines the next communicator of this process's table (docs/format.md,
 * "Communicators"): `size` members and `remote_size` remote members (0 for
 * an intracommunicator), their world ranks in `world` (size + remote_size
 * of them, -1 where unknown), the call that made it and its name ("" when
 * none). Returns its id (0, 1, ...) or a negative SCOPE_E*. Takes the
 * recorder lock and allocates: once per communicator, never per call. */
SCOPE_API int32_t scope__comm_define(int32_t size, int32_t remote_size, const int32_t *world,
                                     const char *creator, const char *name);

/* Defines the next row of this process's file table (format/journal.h,
 * SCOPE_META_FILE; docs/format.md "What I/O calls did"): `m` says what it
 * is (its id field is ignored: rows are numbered 0, 1, ... in the order
 * defined), `n` its names. Returns its row or a negative SCOPE_E*
 * (SCOPE_ELIMIT when the names do not fit a meta record). Takes the
 * recorder lock: once per file, never per call. */
struct scope_file_meta;
struct scope_file_names;
SCOPE_API int32_t scope__file_define(const struct scope_file_meta *m,
                                     const struct scope_file_names *n);

/* Points this thread's recording at the records [*cur, *end) and hands
 * back where it pointed before (call again with those to restore). For
 * calibrate.c, which times real begin/end pairs into a throwaway buffer;
 * *cur must follow a record that no end matches (a chunk guard). */
struct scope_rec;
void scope__swap_records(struct scope_rec **cur, struct scope_rec **end);

/* Measures this process's cost per recorded call and stores it as the
 * rank attributes overhead_inside_ns / overhead_caller_ns / overhead_path
 * (calibrate.c). Called once by scope_init() (unless deferred, below);
 * about a millisecond. */
void scope__calibrate(void);

/* Calibration on demand, for the preload. Before scope_init(), a process
 * may hand over the whole calibration it wants (`fn`: scope__calibrate and
 * its own): scope_init() then does not calibrate, and `fn` runs once, at
 * the first scope__calibrate_pending() or, if the process recorded
 * something and it never ran, when the journal is finished (scope_finalize
 * and scope__finalize_journal, before they take the lock). A process that
 * instruments nothing at start (a shell's `ls` under the default config)
 * thus does not pay 2-4 ms of calibration it will never use. */
void scope__calibrate_later(void (*fn)(void));
/* Runs the calibration handed over, if still pending. Call it where no
 * recorded call is open on this thread (not from inside a timed call). */
void scope__calibrate_pending(void);
/* 1 while a calibration handed over has not run. */
int scope__calibrate_deferred(void);

/* The nearest ancestor of this process (its parent, or further up through
 * processes that record nothing, such as the shell of system()) whose
 * journal is in this process's journal folder: a process of this run
 * still recording. Returns its pid and sets *start_realtime_ns to its
 * start (from its journal's header), or returns 0 when none (or when this
 * process has no journal). Such a process is the one the user ran; its
 * children leave /rank<N> to it (docs/format.md, started_by_pid). Cost:
 * per ancestor an open (and a read of the header) and a read of
 * /proc/<pid>/stat. */
long scope__rec_recording_ancestor(int64_t *start_realtime_ns);

/* The reference body calibrate.c times (about 40 ns of arithmetic). */
void scope__calibrate_body(void);

/* The preload, once its trampoline is set up: measures calls of `stub`
 * (a trampoline stub of scope__calibrate_body, so the whole patched path)
 * the same way, and makes them the rank's overhead_inside_ns /
 * overhead_caller_ns, with overhead_path = `path`. The C API pair's
 * numbers go to overhead_api_inside_ns / overhead_api_caller_ns /
 * overhead_empty_pair_ns: now if scope__calibrate() ran before, else at
 * scope__calibrate_api_if_used(). When no stub could be made (`stub`
 * NULL) or the measurement fails, the C API pair's numbers are stored as
 * the rank's instead (scope__calibrate()). About a millisecond. */
void scope__calibrate_patched(void (*stub)(void), const char *path);

/* scope_region() (the program's C API) says the C API is in use. */
void scope__calibrate_note_api(void);

/* When the journal is finished (recorder.c, before it takes the lock):
 * measures and stores the C API pair's numbers if only the patched path
 * was measured and the program called scope_region(). Nothing otherwise:
 * a rank that uses only the preload is spared the millisecond. */
void scope__calibrate_api_if_used(void);

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_INTERNAL_H */
