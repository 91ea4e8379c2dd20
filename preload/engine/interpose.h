/*
 * interpose.h - the function-interposition engine's driver: config entries
 * -> matching functions in every loaded object -> inline patch or GOT
 * rewrite -> report (stderr with verbose, /rank<N>/interposition always).
 *
 * The preload's constructor calls scope__interpose_apply() once, after
 * scope_init(), while the process is still single-threaded; dlopen_hook.c
 * calls scope__interpose_new_objects() after each dlopen/dlmopen. What a
 * function is beyond its name is the captures' (capture.h).
 */
#ifndef SCOPE_INTERPOSE_H
#define SCOPE_INTERPOSE_H

#include "scope_config.h"

/* Instruments every function the config's entries name in the objects
 * loaded now, and keeps `cfg` (which must outlive the process's use of the
 * engine) for objects loaded later. Prints one line per entry to stderr
 * when cfg->verbose (rank 0 only). The warning for an entry that matched
 * nothing is kept, not printed: scope__interpose_warn_unmatched prints it
 * once the process is known to record. Returns the number of functions instrumented, or
 * a negative SCOPE_E* code when the engine itself cannot start (no
 * disassembler, out of memory). Cost: reads the symbol table of every
 * loaded object once; linear disassembly of each matched function. */
int scope__interpose_apply(const scope_config *cfg);

/* Looks at objects loaded since the last call (after a dlopen) and
 * instruments what the config names in them, with a patch sequence that
 * is safe while other threads run. Returns as scope__interpose_apply. */
int scope__interpose_new_objects(void);

/* Forgets the objects that are no longer loaded (after a dlclose), so that
 * one loaded again, maybe at the same address, is instrumented again. */
void scope__interpose_forget_unloaded(void);

/* 1 when some entry matched a function in this process (instrumented or
 * refused), 0 otherwise: a process with no match is a helper the config is
 * not about (a shell's `ls`). */
int scope__interpose_matched_any(void);

/* Prints, once per process, the "matched no function loaded at start"
 * warning of every entry (from the config file, not the built-in list)
 * that still matches nothing, also after the libraries dlopen'ed since,
 * but for entries of kind `skip_kind` (SCOPE_KIND_*; -1: none): a process
 * that never called MPI_Init leaves out the kind-mpi ones. The caller
 * decides it is the job's one printer (rank 0). Cost: one write(2) per
 * warning. */
void scope__interpose_warn_unmatched(int skip_kind);

#endif /* SCOPE_INTERPOSE_H */
