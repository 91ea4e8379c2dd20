/*
 * h5writer.h - journal to HDF5: the only part of the recorder that touches
 * HDF5.
 *
 * The recorder lives inside applications that may use their own, different
 * HDF5, so it never links libhdf5: at finalize it starts the scope-h5write
 * process (writer_spawn.c) and hands it nothing but paths; the writer reads
 * the journal from disk and writes the rank file (and the index file).
 * `scope recover` links the same conversion code, so a clean finalize and
 * a recovery produce the same files.
 */
#ifndef SCOPE_H5WRITER_H
#define SCOPE_H5WRITER_H

#include <stddef.h>
#include <stdint.h>

struct scope_writer_request {
    const char *journal_path;   /* the journal to convert */
    const char *rank_path;      /* final rank file path; NULL = derive from
                                   the journal's output and rank */
    const char *index_path;     /* write the index here too; NULL = don't */
    int complete;               /* 1 after a clean finalize, 0 recovered */
    int index_only;             /* the rank file is already in place at
                                   rank_path: write only the index */
    char *err;                  /* message buffer, "<path>: <problem>" */
    size_t errlen;
};

/* Converts a journal into a rank file (written under a temporary name and
 * renamed). Returns 0 or a negative SCOPE_E* code with a message in err.
 * Memory: bounded (windows of each region's arrays), whatever the journal's
 * size. Cost: two sequential passes over the journal. */
int scope_writer_convert(const struct scope_writer_request *req);

/* 1 after a file could not be closed (its metadata could not reach a full
 * or failing disk): libhdf5 then holds it half-open and crashes when it
 * tries again at exit, so the caller must leave with _exit() after
 * flushing its own output. */
int scope_writer_hdf5_broken(void);

#define SCOPE_WRITER_EXE "scope-h5write"

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

/* Runs the conversion in a scope-h5write child process and waits for it
 * (recorder side). The executable is $SCOPE_H5WRITER, else found next to
 * the object that contains the recorder, in ../runtime/ or in scope/
 * relative to it. Returns 0 or SCOPE_ENOWRITER / SCOPE_EIO / SCOPE_ENOMEM
 * with a message in req->err. */
int scope__writer_run(const struct scope_writer_request *req);

/* The environment without LD_PRELOAD (the profiler does not profile its
 * own writer): a malloc'd array whose strings belong to environ, or NULL. */
char **scope__child_environment(void);

/* Finds the scope-h5write executable as scope__writer_run does. Returns 0
 * with the path in out, or SCOPE_ENOWRITER with the places tried in err. */
int scope__writer_find(char *out, size_t outlen, char *err, size_t errlen);

#endif /* SCOPE_H5WRITER_H */
