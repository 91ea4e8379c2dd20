/*
 * h5writer.h - the converter's internals shared between its files: where a
 * finished rank file goes (placement.c) and how the index links
 * collisions. The entry point for everyone outside convert/ is
 * scope_convert.h.
 */
#ifndef SCOPE_H5WRITER_H
#define SCOPE_H5WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "scope_convert.h"

/* --- placement.c: rank files are never replaced by one of the same run --- */

/* Takes an exclusive flock on folder `dir` (the ranks folder): every
 * placement decision and index update of a run holds it. Returns the fd to
 * give to scope__ranks_unlock, or -1 (no lock could be had; callers go on
 * unlocked). Blocks while another writer holds it (milliseconds). */
int scope__ranks_lock(const char *dir);
void scope__ranks_unlock(int fd);

/* Renames the finished rank file `tmp` to `path` without replacing a rank
 * file another process of this run wrote (one modified at or after
 * since_ns, this process's start in CLOCK_REALTIME ns); an earlier run's
 * file or a symlink is replaced, anything that is not a scope profile is
 * refused. On a collision the file goes to "<path minus .h5>.collision<K>.h5"
 * (K = 1, 2, ...). Takes the ranks folder's lock. Returns 0 (placed at
 * path) or 1 (collision; placed holds the name used), or SCOPE_EIO /
 * SCOPE_EACCES with a message in err (tmp is then kept for EACCES). */
int scope__place_rank_file(const char *tmp, const char *path, int64_t since_ns,
                           char *placed, size_t placed_len, char *err, size_t errlen);

/* Links into the open index every rank<N>.collision<K>.h5 of ranks_dir
 * modified at or after since_ns, as /rank<N>.collision<K>, and sets
 * /metadata rank_collisions to the number of such links. Call with the
 * ranks folder's lock held. Returns 0 or -1 (HDF5 failure). */
int scope__index_link_collisions(int64_t index, const char *ranks_dir, int64_t since_ns);

/* After a collision on a rank other than 0: if this run's index already
 * exists, adds the new link and count to it (under the lock); otherwise
 * rank 0 will when it writes the index. Returns 0 or SCOPE_EHDF5. */
int scope__index_note_collision(const char *index_path, const char *ranks_dir, int64_t since_ns);

#endif /* SCOPE_H5WRITER_H */
