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
