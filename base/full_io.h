/*
 * full_io.h - whole reads and writes at an offset (full_io.c), for the
 * journal's writer (runtime/recorder_journal.c) and reader
 * (convert/journal_read.c) and whoever else needs all of a transfer.
 */
#ifndef SCOPE_FULL_IO_H
#define SCOPE_FULL_IO_H

#include <stddef.h>
#include <stdint.h>

/* Reads exactly `len` bytes of `fd` at `off` into buf, retrying after
 * EINTR and short reads. Returns 0, or an errno value (EIO at the end of
 * the file). Cost: one pread per piece. */
int scope__pread_full(int fd, void *buf, size_t len, uint64_t off);

/* Writes exactly `len` bytes of buf to `fd` at `off`, likewise. Returns 0
 * or an errno value (EIO when the system writes nothing). */
int scope__pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

#endif /* SCOPE_FULL_IO_H */
