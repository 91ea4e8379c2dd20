/*
 * journal_dir.h - where the journals live during the run: the ranks
 * folder (the default) or a separate folder, SCOPE_JOURNAL_DIR, usually
 * node-local storage; and the pointer file that tells `scope recover`
 * where a host's journals are (journal_dir.c explains why).
 */
#ifndef SCOPE_JOURNAL_DIR_H
#define SCOPE_JOURNAL_DIR_H

#include <stddef.h>

/* Chooses the journal folder: `setting` (SCOPE_JOURNAL_DIR's value, NULL
 * or "" = unset), named `origin` in messages, when it is an absolute path
 * of an existing, writable folder; else `ranks_dir`. A bad value is said
 * on stderr (by the job's rank 0, or by every process outside a launcher)
 * naming the problem, and the ranks folder is used. Writes the choice to
 * `out`. Returns 1 for a separate folder, 0 for the ranks folder. Cost: a
 * stat and an access. */
int scope__journal_dir_choose(const char *setting, const char *origin, const char *ranks_dir,
                              char *out, size_t outlen);

/* Leaves "<ranks_dir>/journals.<host>" naming `journal_dir` (one line),
 * unless it already does. Returns 0 or an errno value. Cost: one open and
 * read; a write and a rename the first time on the host. */
int scope__journal_pointer_note(const char *ranks_dir, const char *host, const char *journal_dir);

/* Removes "<ranks_dir>/journals.<host>" when `journal_dir` holds no
 * journal of `host` any more (the host's journals all became files).
 * Cost: one readdir of the (node-local) journal folder. */
void scope__journal_pointer_drop(const char *ranks_dir, const char *host, const char *journal_dir);

#endif /* SCOPE_JOURNAL_DIR_H */
