/*
 * interpose.h - the function-interposition engine's driver: config entries
 * -> matching functions in every loaded object -> inline patch or GOT
 * rewrite -> report (stderr with verbose, /rank<N>/interposition always).
 *
 * The preload's constructor calls scope__interpose_apply() once, after
 * scope_init(), while the process is still single-threaded; dlopen_hook.c
 * calls scope__interpose_new_objects() after each dlopen/dlmopen.
 */
#ifndef SCOPE_INTERPOSE_H
#define SCOPE_INTERPOSE_H

#include "scope_config.h"

/* Instruments every function the config's entries name in the objects
 * loaded now, and keeps `cfg` (which must outlive the process's use of the
 * engine) for objects loaded later. Prints one line per entry to stderr
 * when cfg->verbose, and a one-line warning (rank 0 only) for each entry
 * that matched nothing. Returns the number of functions instrumented, or
 * a negative SCOPE_E* code when the engine itself cannot start (no
 * disassembler, out of memory). Cost: reads the symbol table of every
 * loaded object once; linear disassembly of each matched function. */
int scope__interpose_apply(const scope_config *cfg);

/* Names (NULL-terminated list, static) of functions the caller already
 * times by symbol interposition (the preload's MPI_Init/Finalize
 * wrappers): a function with one of these names, or an alias of one, is
 * reported with method "symbol" and never patched. Call before apply. */
void scope__interpose_skip(const char *const *names);

/* Looks at objects loaded since the last call (after a dlopen) and
 * instruments what the config names in them, with a patch sequence that
 * is safe while other threads run. Returns as scope__interpose_apply. */
int scope__interpose_new_objects(void);

/* Forgets the objects that are no longer loaded (after a dlclose), so that
 * one loaded again, maybe at the same address, is instrumented again. */
void scope__interpose_forget_unloaded(void);

#endif /* SCOPE_INTERPOSE_H */
