/*
 * scope_convert.h - the converter's one entry: journal -> HDF5 rank file
 * (and index file), as docs/format.md describes them.
 *
 * Every rank file is made by scope_convert(), whoever asks:
 *   - finalize (runtime/recorder.c) and the death handler (runtime/death.c)
 *     start the scope-h5write process (runtime/writer_spawn.c), whose main
 *     (h5write_main.c) is a call of scope_convert(): the recorder lives
 *     inside applications that may use their own HDF5, so libhdf5 is never
 *     loaded into them;
 *   - recovery (scope_recover.h, recover.c) calls it in the process of
 *     `scope recover`.
 * So a clean finalize, a death and a recovery produce the same files.
 *
 * scope_recover.h is the other header used outside this folder; the rest
 * (journal_read.h, h5writer.h, clock_model.h) is internal to it. Link scope_convert_dep (meson); it brings
 * libhdf5.
 */
#ifndef SCOPE_CONVERT_H
#define SCOPE_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "scope_writer.h"  /* the request (format/: the recorder builds it too) */

/* Converts a journal into a rank file (written under a temporary name and
 * renamed). Returns 0 or a negative SCOPE_E* code with a message in err.
 * Memory: bounded (windows of each region's arrays), whatever the journal's
 * size. Cost: two sequential passes over the journal. */
int scope_convert(const struct scope_convert_request *req);

/* Makes every /rank<N> link of the index at index_path (r < mpi_size)
 * lead somewhere: a link whose target file or group is missing is pointed
 * at the file of ranks_dir that holds /rank<N> (a host file or
 * rank<N>.h5), when there is one. For `scope recover`, after a host writer
 * failed or a rank died. Returns the number of links repaired, or a
 * negative SCOPE_E* with a message in err. Cost: opens the index and, only
 * when a link is broken, each host and rank file of the folder once. */
int scope_convert_index_repair(const char *index_path, const char *ranks_dir, char *err,
                               size_t errlen);

/* How many of the index's /rank<N> links (N < mpi_size) lead nowhere: 0
 * when every rank's data is reachable, or SCOPE_EHDF5 when the index
 * cannot be read. For `scope recover`, to tell a journal folder it cannot
 * see from one whose journals all became files. Cost: opens the index
 * and, through the links, each file once. */
int scope_convert_index_broken(const char *index_path);

/* Writes (or rewrites) the summary table of the host file `path` in place
 * from its /rank<N> groups (docs/format.md "The host summary table"), for
 * files written without it; `scope-h5write --host-summary`. Returns 0 or
 * SCOPE_E* with a message in err. Cost: reading every rank group once. */
int scope_convert_host_summary(const char *path, char *err, size_t errlen);

/* 1 after a file could not be closed (its metadata could not reach a full
 * or failing disk): libhdf5 then holds it half-open and crashes when it
 * tries again at exit, so the caller must convert nothing more in this
 * process and leave with _exit() after flushing its own output. */
int scope_convert_hdf5_broken(void);

/* What a journal's header says of the process that wrote it. */
struct scope_journal_info {
    int rank;                   /* -1 when the process never knew it */
    int64_t pid;
    int finalized;              /* it stopped during finalize */
};

/* Reads and checks a journal's header (and indexes it, as scope_convert
 * would), so that a caller can choose where the rank file goes. Returns 0
 * or SCOPE_EJOURNAL / SCOPE_EIO / SCOPE_ENOMEM / SCOPE_EVERSION with
 * "<path>: <problem>" in err. Cost: reads the chunk headers and the meta
 * chunks, not the events. */
int scope_convert_journal_info(const char *journal_path, struct scope_journal_info *out,
                               char *err, size_t errlen);

#endif /* SCOPE_CONVERT_H */
