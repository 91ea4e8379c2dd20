/*
 * scope_recover.h - the converter's second entry: what becomes of the
 * journals that nobody finalised (`scope recover`).
 *
 * A process that records holds an exclusive flock on its journal until it
 * ends, however it ends (SIGKILL included): a journal whose lock can be
 * taken belongs to a dead process, one whose lock cannot is refused as
 * still running. Recovery is the policy around scope_convert() for such
 * journals: which file each one becomes (its rank file, beside an earlier
 * run's file, a group of its host's file, or nothing when a writer already
 * put its rank in place), the index when it is missing, the journals kept
 * apart in node-local folders (the journals.<host> pointers and the
 * folders named by the caller), the temporaries of writers that are gone,
 * the once-per-job fault markers, and the index's links repaired at the
 * end. recover.c holds all of it; the command only prints.
 *
 * Link scope_convert_dep (meson); it brings libhdf5.
 */
#ifndef SCOPE_RECOVER_H
#define SCOPE_RECOVER_H

#include <stddef.h>

/* What recovery says as it goes: a journal recovered or a leftover
 * removed (NOTE, for stdout unless quiet), or why something was refused,
 * failed or remains (PROBLEM, for stderr). `text` is one line without
 * the "scope: " a command puts before a problem, and without newline. */
enum scope_recover_say { SCOPE_RECOVER_NOTE, SCOPE_RECOVER_PROBLEM };

struct scope_recover_options {
    /* Further folders to search for this run's journals (`--journals`). */
    const char *const *journal_dirs;
    size_t n_journal_dirs;
    /* Called for every line recovery has to say; NULL = silence. */
    void (*say)(void *arg, enum scope_recover_say kind, const char *text);
    void *arg;
};

/* One recovery session: the hosts met across several paths are
 * remembered, so that a journals.<host> pointer goes only once nothing of
 * its host is left. */
struct scope_recover;

/* Starts a session; `opt` must outlive it. Returns NULL out of memory. */
struct scope_recover *scope_recover_begin(const struct scope_recover_options *opt);

/* Recovers everything found at `path`: an index file (its ranks folder is
 * searched), a ranks folder, or one journal file; in a folder, also the
 * option's journal folders and those the journals.<host> pointers name.
 * Returns 0 when every journal found was recovered (or none was found),
 * or a negative SCOPE_E* when any was refused, failed or remains (each
 * said through `say`). Adds the journals found to *found. Cost: one
 * conversion per journal (scope_convert()) and one pass over each folder. */
int scope_recover_path(struct scope_recover *r, const char *path, int *found);

void scope_recover_end(struct scope_recover *r);

#endif /* SCOPE_RECOVER_H */
