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
 * (K = 1, 2, ...); with `yield` (a process another process of this run
 * started: started_by_pid) it goes there even when path is free or an
 * earlier run's. Takes the ranks folder's lock. Returns 0 (placed at
 * path) or 1 (collision; placed holds the name used), or SCOPE_EIO /
 * SCOPE_EACCES with a message in err (tmp is then kept for EACCES). */
int scope__place_rank_file(const char *tmp, const char *path, int64_t since_ns, int yield,
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

/* Links into the open index, for every host-<name>.collision<K>.h5 of
 * ranks_dir modified at or after since_ns, each of its /rank<N> groups as
 * /rank<N> (replacing the link to the same-named host file of another
 * host). Call with the ranks folder's lock held. Returns 0 or -1. */
int scope__index_link_host_collisions(int64_t index, const char *ranks_dir, int64_t since_ns);

/* After a host file went to a collision name: if this run's index exists,
 * relinks its ranks there (under the lock); otherwise rank 0 will when it
 * writes the index. Returns 0 or SCOPE_EHDF5. */
int scope__index_note_host_collision(const char *index_path, const char *ranks_dir,
                                     int64_t since_ns);

/* --- h5writer.c: one journal at a time, for host files (host_file.c) --- */

/* The interposition table last written into a host file, so that the next
 * rank with the same table (the usual case: one program and one config on
 * every rank of a host) gets a hard link to it instead of a copy
 * (rank_tables.c). Owned by host_file.c for one file. */
struct scope__shared_table {
    char path[40];          /* "/rank<N>/interposition", "" = none yet */
    char **rows;            /* a copy of its cells, 6 per row */
    size_t n_cells;
};

/* Frees the copy; the struct is then empty and reusable. */
void scope__shared_table_free(struct scope__shared_table *t);

struct conv;

/* Opens a journal for conversion (its clock model applied); with `events`
 * also runs pass 1 (the calls per region), which writing its rank group
 * needs; without, only what /metadata and the index need. Returns 0 with
 * *out set, or a negative SCOPE_E* with a message in req->err. */
int scope__conv_open(struct conv **out, const struct scope_convert_request *req,
                     const char *journal, int events);
int scope__conv_rank(const struct conv *c);
/* Files written since this (CLOCK_REALTIME ns) are this run's: the
 * process's start, or that of the process of this run that started it. */
int64_t scope__conv_since(const struct conv *c);
/* 1 when the journal's process was started by another process of this run
 * (rank attribute started_by_pid): it takes a collision name, never
 * /rank<N> (docs/format.md). */
int scope__conv_yields_rank(const struct conv *c);
/* The run's index path into buf ("" when the journal has none). */
void scope__conv_output(const struct conv *c, char *buf, size_t len);
/* The root attributes and /metadata of the journal's process into file. */
int scope__conv_write_metadata(struct conv *c, int64_t file);
/* /rank<N> of the journal into file (pass 2); its interposition table
 * shared with the ranks written before through `shared` (may be NULL).
 * Returns 0 or SCOPE_E*. */
int scope__conv_write_rank(struct conv *c, int64_t file, struct scope__shared_table *shared);
void scope__conv_free(struct conv *c);

/* Creates `tmp` for a file that will be `path` (removing a stale tmp).
 * Returns the file or a negative SCOPE_E* with the reason in req->err. */
int64_t scope__conv_create(const struct scope_convert_request *req, const char *tmp,
                           const char *path);
/* Closes a file written under `tmp` and fsyncs it when rc == 0; on any
 * failure removes tmp and puts the storage's reason in req->err. Returns
 * rc or the first error. */
int scope__conv_close_sync(const struct scope_convert_request *req, int64_t f, int rc,
                           const char *tmp, const char *path);

/* The index of `c`'s run at `path`: /metadata from c, and for each rank r
 * of the run an external link /rank<r> to /rank<r> in files[r] (a name in
 * the ranks folder, the folder of rank_path), or in rank<r>.h5 when
 * r >= n_files or files[r] is NULL or "". Returns 0 or SCOPE_E*. */
int scope__conv_write_index(struct conv *c, const char *path, const char *rank_path,
                            const char *const *files, size_t n_files);

/* Around each request (convert.c): _begin makes HDF5's failures silent and
 * keeps the first errno its file driver meets (so messages name the
 * storage's reason); _end closes libhdf5 unless a file could not be
 * closed after such a failure (scope_convert_hdf5_broken), and returns
 * rc. */
void scope__conv_errors_begin(void);
int scope__conv_errors_end(int rc);

/* The modes of scope_convert() (scope_writer.h), one function each, which
 * convert.c dispatches to; each returns 0 or SCOPE_E* with a message in
 * req->err. */

/* SCOPE_CONVERT_RANK: the journal into its rank file, and the index when
 * req->index_path is set (h5writer.c). */
int scope__convert_rank(const struct scope_convert_request *req);

/* SCOPE_CONVERT_INDEX_ONLY: the rank file is already in place; only the
 * index (h5writer.c). */
int scope__convert_index_only(const struct scope_convert_request *req);

/* --- host_file.c --- */

/* SCOPE_CONVERT_HOST: every journal into one host file (docs/format.md
 * "The files of a run"), one at a time. */
int scope__convert_host(const struct scope_convert_request *req);

/* SCOPE_CONVERT_APPEND: adds the journal's group to the host file under
 * the host's lock and links it in the index (host_append.c). */
int scope__convert_host_append(const struct scope_convert_request *req);

/* --- host_summary.c --- */

/* (Re)writes /scope_host_summary of the open host file `file` from all of
 * its /rank<N> groups (any old table is deleted first). Writes none when
 * a group holds something the reader would not answer from a table (the
 * reader then reads the groups). Returns 0 (written or not needed), or
 * SCOPE_ENOMEM / SCOPE_EHDF5 (nothing stale is left behind on EHDF5
 * unless even deleting failed). Cost: a read of every rank group, about
 * what the reader's open of the file costs. */
int scope__host_summary_write(int64_t file);

#endif /* SCOPE_H5WRITER_H */
