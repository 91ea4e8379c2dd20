/*
 * death.h - the recorder's last words when a signal kills the process
 * (death.c explains what it does and does not do).
 */
#ifndef SCOPE_DEATH_H
#define SCOPE_DEATH_H

#include "journal.h"

/* Installs the handlers (once; only for signals whose disposition is still
 * the default, and not when SCOPE_SIGNALS=0) and records what the handler
 * needs to write this process's rank file: the journal header, the
 * recording flag, the writer executable (NULL: none, leave the journal),
 * and the paths. Call again when the rank (hence the paths) changes. Not
 * async-signal-safe; the handler it installs is. */
void scope__death_arm(struct scope_journal_header *hdr, volatile int *on, const char *writer,
                      const char *journal, const char *rank_file, const char *index);

/* From now on a fatal signal only kills the process (after finalize, or
 * in a fork child). */
void scope__death_disarm(void);

#endif /* SCOPE_DEATH_H */
