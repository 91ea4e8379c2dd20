/*
 * journal_storage.h - the journal's relation to the storage under it:
 * reserving space before use, surviving a lost page, and saying a storage
 * fault once per job (journal_storage.c explains each).
 */
#ifndef SCOPE_JOURNAL_STORAGE_H
#define SCOPE_JOURNAL_STORAGE_H

#include <stddef.h>
#include <stdint.h>

#include "scope_format.h"

/* Makes the file system promise the bytes [off, off + len) of `fd`
 * (allocating them, growing the file if needed), so that no later store
 * into a mapping of them can fail. Safe to call from several threads for
 * disjoint ranges. Returns 0 or an errno value (ENOSPC, EDQUOT, EIO, ...).
 * Cost: one fallocate system call. */
int scope__journal_reserve(int fd, uint64_t off, uint64_t len);

/* Installs (once) a SIGBUS handler for the journal open as `fd`: a fault
 * on a page mapped from that file (truncated under us, or a storage error)
 * replaces the page with anonymous memory, so the store that faulted
 * completes, and sets *on to 0 (recording stops). Any other SIGBUS goes to
 * the handler that was there before (death.c's, the application's, or the
 * default action). Call after scope__death_arm(). Not async-signal-safe;
 * the handler is. Returns 0 or an errno value. */
int scope__journal_sigbus_arm(int fd, volatile int *on);

/* How many journal pages the handler has replaced so far; the first call
 * after a new loss also returns it in *fresh (once). Async-signal-safe. */
uint64_t scope__journal_pages_lost(int *fresh);

/* The marker file by which scope__storage_say says a fault once per job,
 * into out: "<ranks_dir>/" SCOPE_STORAGE_MARKER "<job>". Returns 1 with
 * out set, or 0 when the job has no name (outside a launcher: then rank 0
 * or a serial process says it), or -1 when it does not fit. */
int scope__storage_marker(char *out, size_t len, const char *ranks_dir, int rank);

/* Prints "scope: <msg>\n" on stderr once per job: the first process of the
 * job to call it for the ranks folder `ranks_dir` creates a marker file
 * there (O_EXCL) and prints; the others see the marker and stay silent.
 * When no marker can be made (the folder is gone or read-only) only the
 * job's rank 0 prints (`rank`, or the launcher's rank when `rank` < 0), so
 * a fault that hits every rank is still said once. Returns 1 if it printed. */
int scope__storage_say(const char *ranks_dir, int rank, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The marker files scope__storage_say leaves are named with
 * SCOPE_STORAGE_MARKER (scope_format.h); `scope recover` removes them once
 * the folder holds no journal any more. */

/* Makes `path` absolute against the current directory (the application
 * may chdir before finalize). Returns 0 or SCOPE_ELIMIT / SCOPE_EIO. */
int scope__absolute_path(const char *path, char *out, size_t outlen);

/* mkdir -p. Returns 0 or -1 with errno. */
int scope__mkdir_p(const char *dir);

#endif /* SCOPE_JOURNAL_STORAGE_H */
