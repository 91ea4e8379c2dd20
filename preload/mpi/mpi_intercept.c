/*
 * mpi_intercept.c - the preload's definitions of MPI_Init, MPI_Init_thread,
 * MPI_Finalize, MPI_Abort and their PMPI_ names: the points where an MPI
 * process's recording starts (rank and size become known) and stops (its
 * file is written before MPI_Finalize, or MPI_Abort, is forwarded: an
 * abort ends the process with _exit, past every exit handler).
 *
 * Both names are interposed because Open MPI's Fortran bindings call
 * PMPI_Init directly, and a PMPI-level tool may sit between MPI_Init and
 * PMPI_Init. Each definition forwards to the next definition of the same
 * name (this file's table, each looked up once: scope__next_cached). A
 * thread-local depth makes a nested path (MPI_Init -> ... -> PMPI_Init)
 * count once: only the outermost call records. The same table is the MPI
 * capture's `wrapped` names (mpi_hook.c): the engine never patches them.
 *
 * No mpi.h is included: the same preload serves every MPI ABI (mpi_abi.h),
 * so the few MPI values used here come from the table of the ABI detected
 * at run time. The preload does not link libmpi (a non-MPI process must
 * never load it); every MPI function is looked up at run time, the PMPI
 * ones it calls for itself in pmpi.h's table.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "clock.h"
#include "clock_align.h"
#include "host_files.h"
#include "log.h"
#include "mpi_capture.h"
#include "mpi_capture_state.h"
#include "mpi_abi.h"
#include "mpi_intercept.h"
#include "pmpi.h"
#include "lifecycle.h"
#include "scope_calls.h"
#include "scope_config.h"
#include "scope_internal.h"
#include "self_depth.h"
#include "symbol_next.h"

/* MPI_SUCCESS, before a table is known: 0 in every ABI. MPI_ERR_OTHER
 * when no MPI library is there to ask (MPICH's value; any non-zero code
 * says "failed"). */
#define MPI_SUCCESS_ANY 0
#define MPI_ERR_OTHER_NO_ABI 15

typedef int (*init_fn)(int *, char ***);
typedef int (*init_thread_fn)(int *, char ***, int, int *);
typedef int (*finalize_fn)(void);
typedef int (*abort_fn)(scope__mpi_handle, int);

/* The interposed names, exported (the library is built with hidden
 * visibility; exports.map lists them). mpi.h used to declare them. */
#define INTERPOSED __attribute__((visibility("default")))
INTERPOSED int MPI_Init(int *argc, char ***argv);
INTERPOSED int PMPI_Init(int *argc, char ***argv);
INTERPOSED int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
INTERPOSED int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided);
INTERPOSED int MPI_Finalize(void);
INTERPOSED int PMPI_Finalize(void);
INTERPOSED int MPI_Abort(scope__mpi_handle comm, int errorcode);
INTERPOSED int PMPI_Abort(scope__mpi_handle comm, int errorcode);

/* The calls defined here, each under its C name and its PMPI_ name (the
 * vocabulary's row names the call: format/calls_mpi.def), each forwarded
 * to its next definition. */
enum next_id {
    NEXT_MPI_INIT,
    NEXT_PMPI_INIT,
    NEXT_MPI_INIT_THREAD,
    NEXT_PMPI_INIT_THREAD,
    NEXT_MPI_FINALIZE,
    NEXT_PMPI_FINALIZE,
    NEXT_MPI_ABORT,
    NEXT_PMPI_ABORT,
    NEXT_COUNT
};
static const int call_of[NEXT_COUNT / 2] = { SCOPE_CALL_MPI_Init, SCOPE_CALL_MPI_Init_thread,
                                             SCOPE_CALL_MPI_Finalize, SCOPE_CALL_MPI_Abort };

const char *scope__mpi_wrapped[NEXT_COUNT + 1];
static char profiling_names[NEXT_COUNT / 2][32];

void scope__mpi_intercept_names(void)
{
    for (int k = 0; k < NEXT_COUNT / 2; k++) {
        const char *c = scope_call_at(call_of[k])->name;
        snprintf(profiling_names[k], sizeof profiling_names[k], "P%s", c);
        scope__mpi_wrapped[2 * k] = c;
        scope__mpi_wrapped[2 * k + 1] = profiling_names[k];
    }
}

/* The region of `id`: its call's C name (the PMPI_ name is the same call). */
static const char *call_name(enum next_id id)
{
    return scope_call_at(call_of[id / 2])->name;
}

/* What each name was found to be; NULL until found. */
static void *next_found[NEXT_COUNT];

static void *next(enum next_id id)
{
    return scope__next_cached(&next_found[id], scope__mpi_wrapped[id], SCOPE__MPI_LIBRARY_FIRST);
}

/* Depth of interposed MPI lifecycle calls on this thread. initial-exec:
 * the preload is loaded at start-up, and reading it must not allocate. */
static __thread int mpi_depth __attribute__((tls_model("initial-exec")));

int scope__mpi_busy(void)
{
    return mpi_depth > 0 || (scope__cap.open & SCOPE_MPI_OPEN_COUNT) != 0;
}

void scope__mpi_foreign_enter(void)
{
    scope__cap.open++;
}

void scope__mpi_foreign_leave(void)
{
    if (scope__cap.open & SCOPE_MPI_OPEN_COUNT)
        scope__cap.open--;
}

/* Region id for one lifecycle call, interned on first use. The region is
 * named for the MPI_ function even when the PMPI_ name was called (that is
 * the call the program made); `symbol` keeps the name really intercepted. */
static int32_t lifecycle_region(const char *region, const char *symbol, const void *fn)
{
    return scope__region_ex(region, SCOPE_KIND_MPI, symbol, scope__object_of(fn));
}

/* Rank and size in MPI_COMM_WORLD through PMPI, with the ABI's handle.
 * Returns 1, or 0 when MPI could not say (unknown ABI, no PMPI): the
 * caller then keeps the launcher's rank. */
static int learn_rank(const scope__mpi_abi *abi, int *rank, int *size)
{
    if (abi == NULL)
        return 0;
    const struct scope__pmpi *pm = scope__pmpi();
    if (pm->comm_rank == NULL || pm->comm_size == NULL || abi->comm_world == 0)
        return 0;
    int r = -1, s = -1;
    if (pm->comm_rank(abi->comm_world, &r) != abi->success ||
        pm->comm_size(abi->comm_world, &s) != abi->success || r < 0 || s <= r)
        return 0;
    *rank = r;
    *size = s;
    return 1;
}

/* Stores in /metadata which MPI this process ran on: the ABI table chosen
 * (mpi_abi), the library's path (mpi_library) and its own description
 * (mpi_library_version, from PMPI_Get_library_version). Once per process,
 * after a successful init. */
static void note_library(const scope__mpi_abi *abi)
{
    if (abi == NULL) {
        scope__set_metadata("mpi_abi", "unknown");
        return;
    }
    scope__set_metadata("mpi_abi", abi->name);
    const char *lib = scope__mpi_abi_library();
    if (lib != NULL)
        scope__set_metadata("mpi_library", lib);
    int (*version)(char *, int *) = scope__pmpi()->get_library_version;
    char *buf = version ? calloc(1, abi->library_version_max + 1) : NULL;
    int len = 0;
    if (buf != NULL && version(buf, &len) == abi->success) {
        size_t n = strnlen(buf, abi->library_version_max);
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
            n--; /* Open MPI and MPICH end it with newlines */
        buf[n] = '\0';
        scope__set_metadata("mpi_library_version", buf);
    }
    free(buf);
}

/* The arguments of either init call. */
typedef struct init_args {
    int thread; /* 1: MPI_Init_thread */
    int *argc;
    char ***argv;
    int required;
    int *provided;
} init_args;

static int call_init(void *fn, const init_args *a)
{
    if (fn == NULL)
        return MPI_ERR_OTHER_NO_ABI; /* no MPI library defines it: cannot
                                        happen when the program linked */
    if (a->thread)
        return ((init_thread_fn)fn)(a->argc, a->argv, a->required, a->provided);
    return ((init_fn)fn)(a->argc, a->argv);
}

/* What the forwarding wrappers return when no MPI library defines the
 * name (cannot happen when the program linked one): the ABI's
 * MPI_ERR_OTHER if it is known. */
static int no_library(void)
{
    const scope__mpi_abi *abi = scope__mpi_abi_get();
    return abi ? abi->err_other : MPI_ERR_OTHER_NO_ABI;
}

/* CPU time of the children this process has waited for (the writer that
 * finalize starts and waits for), in ns. */
static int64_t children_cpu_ns(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
        return 0;
    return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
           ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/* Where scope's part of MPI_Init or MPI_Finalize stands: its wall-clock
 * start (bench/bench_finalize.py spans the part over the job's ranks with
 * it), the times of its steps, and the CPU time spent so far by this
 * thread and by the children it waited for. */
struct part {
    struct timespec real;
    int64_t t[4];           /* t[0] < t[1] < t[2] < t[3]: the three steps */
    int64_t cpu, child;     /* at t[0] */
};

static void part_begin(struct part *p)
{
    clock_gettime(CLOCK_REALTIME, &p->real);
    p->cpu = scope__thread_cpu_ns();
    p->child = children_cpu_ns();
    p->t[0] = scope__mono_ns();
}

/* SCOPE_VERBOSE's account of a part: its three steps (the clocks, the
 * host names or files, the wait for every rank), the CPU it took (the
 * work, as against the waiting: on a machine with fewer cores than ranks
 * the wall time is mostly the others' turns) and, for a host's writer,
 * the writer's CPU. */
static void say_part(const char *step, const char *middle, const struct part *p)
{
    double cpu = 1e-6 * (double)(scope__thread_cpu_ns() - p->cpu);
    double child = 1e-6 * (double)(children_cpu_ns() - p->child);
    const int64_t *t = p->t;
    scope__preload_log("%s: scope's part %.1f ms (clocks %.1f, %s %.1f, waiting for every "
                       "rank %.1f; CPU %.1f ms, its writer's %.1f ms), from %lld.%09ld s", step,
                       1e-6 * (double)(t[3] - t[0]), 1e-6 * (double)(t[1] - t[0]), middle,
                       1e-6 * (double)(t[2] - t[1]), 1e-6 * (double)(t[3] - t[2]), cpu, child,
                       (long long)p->real.tv_sec, p->real.tv_nsec);
}

/* Shared body of the four init entry points. The outermost call records
 * the call (the region of its C name) around the forwarded one, then
 * learns rank and size and opens the span region; nested calls only
 * forward. */
static int intercept_init(enum next_id id, const init_args *a)
{
    void *fn = next(id);
    if (mpi_depth > 0)
        return call_init(fn, a);
    mpi_depth++;

    /* scope's own work (self_depth.h), but not the forwarded call: what
     * the real MPI_Init calls is the program's */
    scope__self_enter();
    int recording = scope__preload_mpi_starting(); /* opens the span */
    int32_t init_id = recording ? lifecycle_region(call_name(id), scope__mpi_wrapped[id], fn) : -1;
    if (init_id >= 0)
        scope_begin(init_id);
    scope__self_leave();
    int rc = call_init(fn, a);
    if (init_id >= 0)
        scope_end(init_id);
    scope__self_enter();
    if (recording) {
        int rank = -1, size = -1;
        const scope__mpi_abi *abi = rc == MPI_SUCCESS_ANY ? scope__mpi_abi_get() : NULL;
        if (rc == MPI_SUCCESS_ANY) {
            learn_rank(abi, &rank, &size);
            note_library(abi);
        }
        scope__preload_mpi_started(rc == MPI_SUCCESS_ANY, rank, size);
        if (rc == MPI_SUCCESS_ANY) {
            struct part p;
            part_begin(&p);
            scope__clock_align_init(); /* collective: every recording rank */
            p.t[1] = scope__mono_ns();
            scope__host_files_init();  /* collective too, on its communicators */
            p.t[2] = scope__mono_ns();
            scope__clock_align_settle(1); /* no rank spins in MPI while others align */
            p.t[3] = scope__mono_ns();
            say_part("init", "host names", &p);
        }
    }
    scope__self_leave();
    mpi_depth--;
    return rc;
}

static int intercept_finalize(enum next_id id)
{
    void *fn = next(id);
    if (mpi_depth == 0) {
        mpi_depth++;
        scope__self_enter();
        /* Before forwarding: after MPI_Finalize a process may be torn down
         * by its launcher, and the file must already be complete. */
        struct part p;
        part_begin(&p);
        scope__clock_align_finalize();
        p.t[1] = scope__mono_ns();
        /* host files use the comms */
        scope__preload_mpi_finalizing(scope__host_files_active() ? scope__host_files_finalize : NULL);
        p.t[2] = scope__mono_ns();
        scope__clock_align_settle(0); /* nobody spins in MPI_Finalize meanwhile */
        p.t[3] = scope__mono_ns();
        scope__clock_align_release();
        say_part("finalize", "files", &p);
        scope__self_leave();
        mpi_depth--;
    }
    if (fn == NULL)
        return no_library();
    mpi_depth++;
    int rc = ((finalize_fn)fn)();
    mpi_depth--;
    return rc;
}

/* MPI_Abort: the profile first (scope__preload_mpi_aborting), then the
 * real call, which normally does not return. */
static int intercept_abort(enum next_id id, scope__mpi_handle comm, int errorcode)
{
    void *fn = next(id);
    if (mpi_depth == 0) {
        mpi_depth++;
        scope__self_enter();
        scope__preload_mpi_aborting(errorcode, call_name(id), scope__mpi_wrapped[id], fn);
        scope__self_leave();
        mpi_depth--;
    }
    if (fn == NULL)
        return no_library();
    mpi_depth++;
    int rc = ((abort_fn)fn)(comm, errorcode);
    mpi_depth--;
    return rc;
}

int MPI_Init(int *argc, char ***argv)
{
    init_args a = { 0, argc, argv, 0, NULL };
    return intercept_init(NEXT_MPI_INIT, &a);
}

int PMPI_Init(int *argc, char ***argv)
{
    init_args a = { 0, argc, argv, 0, NULL };
    return intercept_init(NEXT_PMPI_INIT, &a);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    init_args a = { 1, argc, argv, required, provided };
    return intercept_init(NEXT_MPI_INIT_THREAD, &a);
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    init_args a = { 1, argc, argv, required, provided };
    return intercept_init(NEXT_PMPI_INIT_THREAD, &a);
}

int MPI_Finalize(void)
{
    return intercept_finalize(NEXT_MPI_FINALIZE);
}

int PMPI_Finalize(void)
{
    return intercept_finalize(NEXT_PMPI_FINALIZE);
}

int MPI_Abort(scope__mpi_handle comm, int errorcode)
{
    return intercept_abort(NEXT_MPI_ABORT, comm, errorcode);
}

int PMPI_Abort(scope__mpi_handle comm, int errorcode)
{
    return intercept_abort(NEXT_PMPI_ABORT, comm, errorcode);
}
