/*
 * mpi_intercept.c - the preload's definitions of MPI_Init, MPI_Init_thread,
 * MPI_Finalize and their PMPI_ names: the points where an MPI process's
 * recording starts (rank and size become known) and stops (its file is
 * written before MPI_Finalize is forwarded).
 *
 * Both names are interposed because Open MPI's Fortran bindings call
 * PMPI_Init directly, and a PMPI-level tool may sit between MPI_Init and
 * PMPI_Init. Each definition forwards to the next definition of the same
 * name. A thread-local depth makes a nested path (MPI_Init -> ... ->
 * PMPI_Init) count once: only the outermost call records.
 *
 * mpi.h is included for the prototypes and constants only. The preload
 * does not link libmpi (a non-MPI process must never load it), so no MPI
 * symbol is referenced directly; MPI_COMM_WORLD, which Open MPI defines as
 * the address of a global object, is looked up at run time as well.
 */
#include <dlfcn.h>
#include <stdlib.h>

#include <mpi.h>

#include "clock_align.h"
#include "preload_state.h"
#include "scope_config.h"
#include "scope_internal.h"

typedef int (*init_fn)(int *, char ***);
typedef int (*init_thread_fn)(int *, char ***, int, int *);
typedef int (*finalize_fn)(void);
typedef int (*comm_query_fn)(MPI_Comm, int *);

/* Depth of interposed MPI lifecycle calls on this thread. initial-exec:
 * the preload is loaded at start-up, and reading it must not allocate. */
static __thread int mpi_depth __attribute__((tls_model("initial-exec")));

/* The next definition of each interposed name, looked up on first use. */
typedef struct next_fn {
    const char *name;
    void *fn;
} next_fn;

static next_fn next_MPI_Init = { "MPI_Init", NULL };
static next_fn next_PMPI_Init = { "PMPI_Init", NULL };
static next_fn next_MPI_Init_thread = { "MPI_Init_thread", NULL };
static next_fn next_PMPI_Init_thread = { "PMPI_Init_thread", NULL };
static next_fn next_MPI_Finalize = { "MPI_Finalize", NULL };
static next_fn next_PMPI_Finalize = { "PMPI_Finalize", NULL };

/* Returns the cached next definition, looking it up the first time.
 * Concurrent first calls look it up twice and store the same value. */
static void *resolve(next_fn *next)
{
    void *fn = __atomic_load_n(&next->fn, __ATOMIC_ACQUIRE);
    if (fn == NULL) {
        fn = scope__next_symbol(next->name);
        __atomic_store_n(&next->fn, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

/* Region id for one lifecycle call, interned on first use. The region is
 * named for the MPI_ function even when the PMPI_ name was called (that is
 * the call the program made); `symbol` keeps the name really intercepted. */
static int32_t lifecycle_region(const char *region, const char *symbol, const void *fn)
{
    return scope__region_ex(region, SCOPE_KIND_MPI, symbol, scope__object_of(fn));
}

/* Rank and size in MPI_COMM_WORLD through PMPI. Falls back to the launcher's
 * environment, then to rank 0 of 1, so a process always gets a rank. */
static void learn_rank(int *rank, int *size)
{
    *rank = 0;
    *size = 1;
    comm_query_fn comm_rank = (comm_query_fn)scope__next_symbol("PMPI_Comm_rank");
    comm_query_fn comm_size = (comm_query_fn)scope__next_symbol("PMPI_Comm_size");
#ifdef OPEN_MPI
    /* MPI_COMM_WORLD is &ompi_mpi_comm_world; the executable may own the
     * object through a copy relocation, which only the global lookup sees. */
    MPI_Comm world = (MPI_Comm)scope__global_symbol("ompi_mpi_comm_world");
#else
    MPI_Comm world = MPI_COMM_WORLD; /* an integer constant elsewhere */
#endif
    if (comm_rank != NULL && comm_size != NULL && world != NULL) {
        int r = -1, s = -1;
        if (comm_rank(world, &r) == MPI_SUCCESS && comm_size(world, &s) == MPI_SUCCESS
            && r >= 0 && s > r) {
            *rank = r;
            *size = s;
            return;
        }
    }
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    const char *s = getenv("OMPI_COMM_WORLD_SIZE");
    if (r != NULL && s != NULL && atoi(s) > atoi(r) && atoi(r) >= 0) {
        *rank = atoi(r);
        *size = atoi(s);
        scope__preload_log("rank learned from the launcher's environment");
    }
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
        return MPI_ERR_OTHER; /* no MPI library defines it: cannot happen
                                 when the program linked, never abort */
    if (a->thread)
        return ((init_thread_fn)fn)(a->argc, a->argv, a->required, a->provided);
    return ((init_fn)fn)(a->argc, a->argv);
}

/* Shared body of the four init entry points. The outermost call records
 * `region` around the forwarded call, then learns rank and size and opens
 * the span region; nested calls only forward. */
static int intercept_init(next_fn *next, const char *region, const init_args *a)
{
    void *fn = resolve(next);
    if (mpi_depth > 0)
        return call_init(fn, a);
    mpi_depth++;

    int recording = scope__preload_mpi_starting(); /* opens the span */
    int32_t init_id = recording ? lifecycle_region(region, next->name, fn) : -1;
    if (init_id >= 0)
        scope_begin(init_id);
    int rc = call_init(fn, a);
    if (init_id >= 0)
        scope_end(init_id);
    if (recording) {
        int rank = 0, size = 1;
        if (rc == MPI_SUCCESS)
            learn_rank(&rank, &size);
        scope__preload_mpi_started(rc == MPI_SUCCESS, rank, size);
        if (rc == MPI_SUCCESS)
            scope__clock_align_init(); /* collective: every recording rank */
    }
    mpi_depth--;
    return rc;
}

static int intercept_finalize(next_fn *next)
{
    void *fn = resolve(next);
    if (mpi_depth == 0) {
        mpi_depth++;
        /* Before forwarding: after MPI_Finalize a process may be torn down
         * by its launcher, and the file must already be complete. */
        scope__clock_align_finalize();
        scope__preload_mpi_finalizing();
        mpi_depth--;
    }
    if (fn == NULL)
        return MPI_ERR_OTHER;
    mpi_depth++;
    int rc = ((finalize_fn)fn)();
    mpi_depth--;
    return rc;
}

int MPI_Init(int *argc, char ***argv)
{
    init_args a = { 0, argc, argv, 0, NULL };
    return intercept_init(&next_MPI_Init, "MPI_Init", &a);
}

int PMPI_Init(int *argc, char ***argv)
{
    init_args a = { 0, argc, argv, 0, NULL };
    return intercept_init(&next_PMPI_Init, "MPI_Init", &a);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    init_args a = { 1, argc, argv, required, provided };
    return intercept_init(&next_MPI_Init_thread, "MPI_Init_thread", &a);
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    init_args a = { 1, argc, argv, required, provided };
    return intercept_init(&next_PMPI_Init_thread, "MPI_Init_thread", &a);
}

int MPI_Finalize(void)
{
    return intercept_finalize(&next_MPI_Finalize);
}

int PMPI_Finalize(void)
{
    return intercept_finalize(&next_PMPI_Finalize);
}
