/*
 * lifecycle.h - the process's lifecycle (lifecycle.c), as the
 * captures that drive it see it: the MPI capture's interception of
 * MPI_Init and MPI_Finalize (mpi/mpi_intercept.c) starts and ends a rank's
 * recording through these calls. Internal to preload/; nothing here is
 * exported from the shared object (exports.map lists what is).
 */
#ifndef SCOPE_PRELOAD_LIFECYCLE_H
#define SCOPE_PRELOAD_LIFECYCLE_H

#include <stdint.h>

/* Name of the region that spans a rank's time from the entry of MPI_Init
 * (or MPI_Init_thread) to the entry of MPI_Finalize. Kind "manual": it is
 * not one function call, and a summary that adds up "mpi" time must not
 * count it. Documented in preload/README.md. */
#define SCOPE__SPAN_REGION "MPI_Init..MPI_Finalize"

/* --- lifecycle.c ------------------------------------------------------- */

/* Called at the entry of the outermost MPI_Init/MPI_Init_thread: makes sure
 * the recorder is running in this process even if its executable is not a
 * target (a process that calls MPI_Init always writes) and opens the span
 * region. Returns 1 when recording is on, 0 when the preload is disabled in
 * this process (config error, recorder failure). May allocate (once). */
int scope__preload_mpi_starting(void);

/* Called when the outermost init call returned: ok = 1 with the rank and
 * size learned through PMPI, ok = 0 when MPI_Init failed (the span is then
 * closed at once: no MPI_Finalize will come). */
void scope__preload_mpi_started(int ok, int rank, int size);

/* Called at the entry of the outermost MPI_Finalize, before it is
 * forwarded: closes the span, stops recording and writes this rank's file
 * (and the index on rank 0) with `write` (NULL: scope_finalize; with host
 * files, mpi/host_files.h's, which hands the journal to the host's leader
 * and waits for the ranks of its own host, never for another host).
 * Does nothing when recording is off. Cost: linear in the recorded
 * events. */
void scope__preload_mpi_finalizing(int (*write)(void));

/* Called at the entry of the outermost MPI_Abort, before it is forwarded:
 * MPI_Abort ends the process without running exit handlers, and usually
 * the job with it. Records the call (region `region`, intercepted as
 * `symbol` in the object of `fn`; left open: it does not return), keeps
 * the error code as the rank attribute mpi_abort_errorcode, and writes
 * this rank's file at once, marked complete = 0, without any MPI
 * communication: the other ranks may be dead or about to be. Does nothing
 * when recording is off. Cost: one writer process, waited for. */
void scope__preload_mpi_aborting(int errorcode, const char *region, const char *symbol,
                                 const void *fn);

/* What the lifecycle tells the captures that watch it
 * (scope__lifecycle_watch), in this order for a process: */
enum scope__lifecycle_event {
    /* the recorder runs (a target, or MPI_Init in any process), with the
     * program's libraries loaded, before the engine instruments them; a
     * capture whose events come from elsewhere than the engine starts
     * here (the OpenMP tool: an OpenMP program is recorded as such) */
    SCOPE_LIFECYCLE_STARTED = 1,
    /* the process records for a reason of its own: the config names
     * something in it (after the engine instrumented it), or MPI_Init
     * started; may come more than once (a target that then calls
     * MPI_Init). The I/O capture starts here, so that a shell or
     * `hostname` under the preload writes nothing */
    SCOPE_LIFECYCLE_RECORDS = 2,
    /* recording stops for good, before the rank's file is written
     * (MPI_Finalize, MPI_Abort) */
    SCOPE_LIFECYCLE_STOPPING = 3,
};

/* The one way a capture learns when this process records (the OpenMP
 * tool, omp/omp_tool.c; the I/O capture, io/io_hook.c): it registers a
 * hook, from a constructor of priority SCOPE_CAPTURE_CTOR_PRIORITY
 * (engine/capture.h), before the preload's own constructor runs, and is
 * called with each event above. Slow path; hooks run in registration
 * order. Up to 4 hooks; a fifth is ignored. Nothing of the lifecycle
 * lists the captures, and the engine knows nothing of the lifecycle. */
void scope__lifecycle_watch(void (*fn)(enum scope__lifecycle_event ev));

#endif /* SCOPE_PRELOAD_LIFECYCLE_H */
