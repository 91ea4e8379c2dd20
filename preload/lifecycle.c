/*
 * lifecycle.c - what libscope_preload.so does in a process it lands in,
 * from the constructor to the written file.
 *
 * With LD_PRELOAD set for `mpirun ./app`, the preload is loaded into
 * mpirun, its daemons, every shell and helper they start, and the ranks.
 * So the constructor does little: read the config (SCOPE_CONFIG or the
 * built-in default, with SCOPE_* variables applied), note the executable,
 * and decide whether this process is a target. A target starts the
 * recorder at once (scope_init only takes the run start time; no file
 * exists until the first event). A non-target does nothing more, unless it
 * calls MPI_Init later: a process that called MPI_Init always writes.
 *
 * Which processes write a file:
 *   - a process that called MPI_Init: always, at MPI_Finalize (or at exit
 *     if it never finalizes), as rank N of the size learned through PMPI;
 *   - any other process: only if it is a target and recorded something,
 *     at exit, as rank 0 of 1 (the recorder writes nothing without events).
 *
 * A broken config disables the preload in the process: the MPI calls are
 * forwarded untouched and the program behaves as without the preload. The
 * error is printed once per job: by the first process of the tree that
 * sees it (children inherit SCOPE__CONFIG_ERROR_SHOWN), and among MPI ranks
 * started without a preloaded launcher, by rank 0 only.
 *
 * A config error is printed by the first process of the tree even if it is
 * a shell: with a broken config nothing tells targets from helpers, and
 * the user must learn at once that the whole job goes unprofiled.
 *
 * The interposition engine's "matched no function" warnings, by contrast,
 * wait until the process is known to record: rank 0 prints them at
 * MPI_Init (libraries are loaded by then), a serial target at exit, and
 * only if the config is about it (an entry matched, or `include` names
 * it). A shell, `ls` or `hostname` prints nothing and writes nothing.
 *
 * Nothing here may exit, abort, or print other than those lines and the
 * SCOPE_VERBOSE progress lines.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "interpose.h"
#include "log.h"
#include "clock.h"
#include "lent.h"
#include "lifecycle.h"
#include "scope_config.h"
#include "scope_internal.h"
#include "patch.h"
#include "self_depth.h"
#include "settings.h"
#include "shadow_stack.h"
#include "symbol_next.h"

/* Set in the environment once a config error was printed, so that the
 * processes the printing one starts stay silent. */
#define ERROR_SHOWN_VAR "SCOPE__CONFIG_ERROR_SHOWN"

typedef enum preload_phase {
    PHASE_OFF = 0,   /* not initialised, or disabled for good */
    PHASE_IDLE,      /* config loaded, not recording (not a target yet) */
    PHASE_RECORDING, /* scope_init done */
    PHASE_DONE       /* scope_finalize done */
} preload_phase;

static struct {
    preload_phase phase;
    scope_config *cfg; /* kept for the life of the process */
    int verbose;
    int32_t span_id;   /* SCOPE__SPAN_REGION, -1 until MPI_Init */
    int span_open;
    int rank, size;
    int mpi_seen;      /* MPI_Init was called: warnings are its business */
    pid_t recorder_pid; /* a forked child inherits the atexit handler */
    scope__launcher launcher; /* read at load, before MPI_Init can add to
                                 the environment (an Open MPI singleton
                                 sets PMIX_RANK for itself) */
    char exe[PATH_MAX];
} preload = { .span_id = -1, .size = 1 };

/* What the MPI capture lends the others (lent.h): set by its constructor. */
const struct scope__mpi_lent *scope__mpi_lent;

/* Prints "scope: <file>:<line>:<col>: <problem>" unless an ancestor or
 * another rank does. */
static void report_config_error(const char *msg)
{
    if (getenv(ERROR_SHOWN_VAR) != NULL)
        return;
    int rank = scope__launcher_rank();
    if (rank > 0)
        return;
    char line[1200];
    int n = snprintf(line, sizeof line, "scope: %s\n", msg);
    if (n > 0) {
        if ((size_t)n >= sizeof line)
            n = (int)sizeof line - 1;
        ssize_t w = write(STDERR_FILENO, line, (size_t)n);
        (void)w;
    }
    setenv(ERROR_SHOWN_VAR, "1", 1); /* children are started after this */
}

/* At exit of a process that recorded without MPI (a serial target): the
 * "matched nothing" warnings, once per job (launcher rank 0 or none). A
 * target the config is not about (no entry matched a function in it, and
 * no `include` named it) stays silent: `ls` or `hostname` in a job script
 * are targets by the default rule. */
static void warn_unmatched_at_exit(void)
{
    if (preload.mpi_seen || getpid() != preload.recorder_pid || scope__launcher_rank() > 0)
        return;
    if (preload.cfg->n_include_exe > 0 || scope__interpose_matched_any())
        scope__interpose_warn_unmatched(SCOPE_KIND_MPI);   /* not for a serial program */
}

/* The calls this process could not record (shadow_stack.h: a signal
 * handler's, landing in the trampoline's bookkeeping; past the shadow
 * stack's depth), as the rank attribute unrecorded_calls, before the
 * journal is finished. Nothing when there are none. */
static void note_unrecorded(void)
{
    uint64_t n = scope__shadow_interrupted() + scope__shadow_overflows();
    if (n == 0)
        return;
    char v[32];
    snprintf(v, sizeof v, "%llu", (unsigned long long)n);
    scope__set_metadata("rank/" SCOPE_A_UNRECORDED_CALLS, v);
}

/* A process without MPI that a process of this run started (a rank's or a
 * program's system("mkdir ..."), popen, posix_spawn: the children a broad
 * config such as `malloc` records too) leaves /rank<N> to that process,
 * whichever ends first: the attribute started_by_pid tells the writer to
 * keep it as /rank<N>.collision<K> (docs/format.md). Before, the child
 * usually ended first and took the name, and the program the user ran
 * became the collision that `scope summary` leaves out. */
static void note_started_by(void)
{
    if (preload.mpi_seen)
        return;                         /* an MPI rank keeps its rank */
    int64_t start = 0;
    long pid = scope__rec_recording_ancestor(&start);
    if (pid <= 0)
        return;
    char v[32];
    snprintf(v, sizeof v, "%ld", pid);
    scope__set_metadata("rank/" SCOPE_A_STARTED_BY_PID, v);
    /* the run began with that process: files written since are this
     * run's, even those written before this process started */
    snprintf(v, sizeof v, "%lld", (long long)start);
    scope__set_metadata("rank/" SCOPE_A_STARTED_BY_START_NS, v);
}

/* Registered after the recorder's own exit handler, so it runs before the
 * recorder finishes the journal of a process that never called
 * MPI_Finalize. */
static void warn_at_exit(void)
{
    scope__self_enter();
    if (preload.phase == PHASE_RECORDING && getpid() == preload.recorder_pid) {
        note_unrecorded();
        note_started_by();
    }
    warn_unmatched_at_exit();
    scope__self_leave();
}

/* Measures the patched path's cost per call (runtime/calibrate.c) through
 * a trampoline stub of the calibration's reference body, recorded under
 * region 0 into a throwaway buffer; the stub stays unused afterwards. */
static void calibrate_patched(void)
{
    uintptr_t stub;
    int made = scope__patch_got_stub((uintptr_t)scope__calibrate_body, 0, SCOPE_FN_CALIBRATE,
                                     &stub) == 0;
    scope__calibrate_patched(made ? (void (*)(void))stub : NULL, scope__tramp_call_mode
                             ? "trampoline (call mode)" : "trampoline (redirect mode)");
}

/* The whole calibration (runtime/calibrate.c): the patched path's when
 * the interposition engine started (the C API pair's only at the end, and
 * only if the program used the C API), else the C API pair's, the path
 * MPI_Init's wrapper records through. Handed to the runtime before
 * scope_init() so that it runs only when this process instruments or
 * records something (scope__calibrate_later). */
static int engine_started;

static void calibrate_all(void)
{
    if (engine_started)
        calibrate_patched();
    else
        scope__calibrate();
}

/* The captures that watch whether this process records
 * (scope__lifecycle_watch: the one way a capture learns it). Filled by
 * constructors before the preload's own runs, read after: no lock. */
#define MAX_WATCHERS 4
static void (*watchers[MAX_WATCHERS])(enum scope__lifecycle_event ev);
static int n_watchers;

void scope__lifecycle_watch(void (*fn)(enum scope__lifecycle_event ev))
{
    if (fn && n_watchers < MAX_WATCHERS)
        watchers[n_watchers++] = fn;
}

static void tell_watchers(enum scope__lifecycle_event ev)
{
    for (int i = 0; i < n_watchers; i++)
        watchers[i](ev);
}

/* Starts the recorder with the config's options. Returns 1 when recording,
 * 0 when the recorder refused (the preload is then off in this process). */
static int start_recording(void)
{
    int64_t c0 = scope__thread_cpu_ns(); /* for SCOPE_VERBOSE's account */
    char origin[PATH_MAX + 32] = "SCOPE_JOURNAL_DIR";
    if (preload.cfg->journal_dir_from.source == SCOPE_SRC_FILE)
        snprintf(origin, sizeof origin, "journal_dir (%s:%d)",
                 preload.cfg->path ? preload.cfg->path : "<config>",
                 preload.cfg->journal_dir_from.line);
    scope__set_journal_dir(preload.cfg->journal_dir, origin);
    scope_options opts = {
        .output = preload.cfg->output,
        .memory_budget = preload.cfg->memory_budget,
        .config_text = preload.cfg->text,
    };
    scope__calibrate_later(calibrate_all);
    int rc = scope_init(&opts);
    int64_t c1 = scope__thread_cpu_ns();
    if (rc < 0) {
        scope__preload_log("%s: cannot start recording: %s", preload.exe, scope_strerror(rc));
        preload.phase = PHASE_OFF;
        return 0;
    }
    preload.phase = PHASE_RECORDING;
    scope__preload_log("%s: recording", preload.exe);
    tell_watchers(SCOPE_LIFECYCLE_STARTED);
    preload.recorder_pid = getpid();
    atexit(warn_at_exit);
    int64_t c2 = scope__thread_cpu_ns();
    rc = scope__interpose_apply(preload.cfg);
    int64_t c3 = scope__thread_cpu_ns();
    if (rc < 0)
        scope__preload_log("%s: interposition engine: %s", preload.exe, scope_strerror(rc));
    engine_started = rc >= 0;
    /* a process the config is about records its I/O from the start; one
     * that records only for MPI, from MPI_Init (scope__preload_mpi_starting) */
    int records_now = preload.cfg->n_include_exe > 0 || scope__interpose_matched_any();
    if (records_now)
        tell_watchers(SCOPE_LIFECYCLE_RECORDS);
    else
        scope__preload_log("%s: the config names none of its functions: records from "
                           "MPI_Init, if it calls it", preload.exe);
    /* nothing instrumented, or only the captures' own functions (which
     * wait for a reason to record): calibrate at the first dlopen that
     * instruments something (dlopen_hook.c), or before the journal is
     * finished if the process recorded anyway (MPI_Init, the C API), else
     * never */
    char cal[64] = "deferred: nothing instrumented";
    if (rc < 0 || (rc > 0 && records_now)) {
        scope__calibrate_pending();
        snprintf(cal, sizeof cal, "%.1f ms", 1e-6 * (double)(scope__thread_cpu_ns() - c3));
    }
    int64_t c4 = scope__thread_cpu_ns();
    scope__preload_log("%s: recording started in %.1f ms CPU (recorder and its clock %.1f ms; "
                       "start-up %.1f ms; calibration %s)", preload.exe,
                       1e-6 * (double)(c4 - c0), 1e-6 * (double)(c1 - c0),
                       1e-6 * (double)(c3 - c2), cal);
    return 1;
}

static void find_executable(void)
{
    ssize_t n = readlink("/proc/self/exe", preload.exe, sizeof preload.exe - 1);
    if (n > 0) {
        preload.exe[n] = '\0';
        return;
    }
    snprintf(preload.exe, sizeof preload.exe, "%s", program_invocation_name);
}

/* A relative SCOPE_CONFIG names a file in the directory the job was
 * started from; a child that runs elsewhere (a shell script's `cd`,
 * pyenv's shims, mpirun -wdir) would look for it there and report it
 * missing, once per process. The first process that reads it pins the
 * absolute path into the environment its children inherit. */
static void pin_config_path(void)
{
    /* the entry is replaced in place: a shell reads its variables from
     * main's envp, the array environ starts as, which setenv() would
     * leave behind when it copies the array */
    static char pinned[PATH_MAX + sizeof "SCOPE_CONFIG="];
    const char *p = scope__setting_text(SCOPE_SET_CONFIG);
    char abs[PATH_MAX];
    if (p == NULL || p[0] == '\0' || p[0] == '/' || realpath(p, abs) == NULL)
        return;
    snprintf(pinned, sizeof pinned, "SCOPE_CONFIG=%s", abs);
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "SCOPE_CONFIG=", 13) == 0) {
            *e = pinned;
            return;
        }
    }
}

/* Runs when the loader maps the preload, before main, in every process the
 * preload lands in. Cost: one small file read and parse; no file created. */
static void preload_start(void)
{
    int saved_errno = errno; /* the program must not see ours */
    scope__launcher_from(NULL, &preload.launcher);
    preload.verbose = scope__setting_u(SCOPE_SET_VERBOSE) != 0;
    scope__preload_verbose = preload.verbose;
    find_executable();

    char err[1024] = "";
    int rc;
    if (scope__tramp_mode_from_env() < 0) {
        /* a typo must not silently time with the other mode */
        scope__setting_message(SCOPE_SET_TRAMPOLINE, err, sizeof err);
        rc = SCOPE_EINVAL;
    } else {
        rc = scope__config_from_env(&preload.cfg, err, sizeof err);
    }
    if (rc < 0) {
        if (err[0] == '\0')
            snprintf(err, sizeof err, "%s", scope_strerror(rc));
        report_config_error(err);
        preload.cfg = NULL;
        preload.phase = PHASE_OFF;
        errno = saved_errno;
        return;
    }
    pin_config_path();
    preload.verbose = preload.verbose || preload.cfg->verbose;
    scope__preload_verbose = preload.verbose;
    preload.phase = PHASE_IDLE;
    if (scope__config_wants_exe(preload.cfg, preload.exe))
        start_recording();
    else
        scope__preload_log("%s: not a target", preload.exe);
    errno = saved_errno;
}

/* The start-up is scope's own work (self_depth.h): the patches go in
 * while it runs, and what libc does for it must not be recorded. */
__attribute__((constructor)) static void preload_constructor(void)
{
    scope__self_enter();
    preload_start();
    scope__self_leave();
}

int scope__preload_mpi_starting(void)
{
    preload.mpi_seen = 1;
    if (preload.phase == PHASE_IDLE)
        start_recording();
    if (preload.phase != PHASE_RECORDING)
        return 0;
    tell_watchers(SCOPE_LIFECYCLE_RECORDS);
    preload.span_id = scope__region_ex(SCOPE__SPAN_REGION, SCOPE_KIND_MANUAL, NULL, NULL);
    if (preload.span_id >= 0) {
        scope_begin(preload.span_id);
        preload.span_open = 1;
    }
    return 1;
}

/* Stores on /rank<N> where the rank came from, and a disagreement between
 * the launcher's variables and MPI (a launcher that started singletons, an
 * MPI the preload misread): rank_source, launcher_rank_variable,
 * launcher_rank and, when they differ, rank_mismatch (docs/format.md). */
static void note_rank_source(const scope__launcher *l, int from_mpi, int rank, int size)
{
    char buf[256];
    scope__set_metadata("rank/rank_source", from_mpi ? "PMPI_Comm_rank"
                                            : l->rank >= 0 ? l->rank_var : "none");
    if (l->rank < 0)
        return;
    scope__set_metadata("rank/launcher_rank_variable", l->rank_var);
    snprintf(buf, sizeof buf, "%d", l->rank);
    scope__set_metadata("rank/launcher_rank", buf);
    if (!from_mpi || (l->rank == rank && (l->size < 0 || l->size == size)))
        return;
    if (l->size >= 0)
        snprintf(buf, sizeof buf, "launcher: %s=%d %s=%d (%s); MPI_Comm_rank: %d of %d",
                 l->rank_var, l->rank, l->size_var, l->size, l->launcher, rank, size);
    else
        snprintf(buf, sizeof buf, "launcher: %s=%d (%s); MPI_Comm_rank: %d of %d",
                 l->rank_var, l->rank, l->launcher, rank, size);
    scope__set_metadata("rank/rank_mismatch", buf);
    scope__preload_log("%s: rank mismatch: %s", preload.exe, buf);
}

void scope__preload_mpi_started(int ok, int rank, int size)
{
    if (preload.phase != PHASE_RECORDING)
        return;
    if (!ok) {
        if (preload.span_open)
            scope_end(preload.span_id);
        preload.span_open = 0;
        scope__preload_log("MPI_Init failed: no span region");
        return;
    }
    /* MPI's answer wins; without one, the launcher's; else rank 0 of 1 */
    const scope__launcher l = preload.launcher;
    int from_mpi = rank >= 0 && size > rank;
    if (!from_mpi) {
        rank = l.rank >= 0 ? l.rank : 0;
        size = l.size > rank ? l.size : rank + 1;
        scope__preload_log("%s: MPI did not say its rank; %s", preload.exe,
                           l.rank >= 0 ? "using the launcher's" : "rank 0 of 1");
    }
    note_rank_source(&l, from_mpi, rank, size);
    preload.rank = rank;
    preload.size = size;
    scope_set_rank(rank, size);
    scope__preload_log("%s: MPI rank %d of %d", preload.exe, rank, size);
    if (rank == 0)      /* once per job, now that the libraries are loaded */
        scope__interpose_warn_unmatched(-1);
}

void scope__preload_mpi_aborting(int errorcode, const char *region, const char *symbol,
                                 const void *fn)
{
    if (preload.phase != PHASE_RECORDING)
        return;
    int32_t id = scope__region_ex(region, SCOPE_KIND_MPI, symbol, scope__object_of(fn));
    if (id >= 0)
        scope_begin(id);
    char code[24];
    snprintf(code, sizeof code, "%d", errorcode);
    scope__set_metadata("rank/" SCOPE_A_MPI_ABORT_ERRORCODE, code);
    note_unrecorded();
    tell_watchers(SCOPE_LIFECYCLE_STOPPING);
    /* its own file, also with host files: the host's leader may be the
     * next to be killed, and no message can be trusted to arrive now */
    int rc = scope__finalize_abandoned();
    preload.phase = PHASE_DONE;
    if (rc < 0)
        scope__preload_log("rank %d: MPI_Abort(%d): writing the profile failed: %s",
                           preload.rank, errorcode, scope_strerror(rc));
    else
        scope__preload_log("rank %d: MPI_Abort(%d): profile written, ending there",
                           preload.rank, errorcode);
}

void scope__preload_mpi_finalizing(int (*write)(void))
{
    if (preload.phase != PHASE_RECORDING)
        return;
    note_unrecorded();
    tell_watchers(SCOPE_LIFECYCLE_STOPPING);
    if (preload.span_open)
        scope_end(preload.span_id);
    preload.span_open = 0;
    int rc = write ? write() : scope_finalize();
    preload.phase = PHASE_DONE;
    if (rc < 0)
        scope__preload_log("rank %d: writing the profile failed: %s", preload.rank,
                           scope_strerror(rc));
    else
        scope__preload_log("rank %d: profile written", preload.rank);
}
