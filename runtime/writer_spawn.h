/*
 * writer_spawn.h - the recorder's way to the converter (convert/): it runs
 * scope_convert() in a scope-h5write child process, because libhdf5 must
 * never be loaded into the profiled application (writer_spawn.c says why).
 * Only the request's type is shared with the converter, through
 * format/scope_writer.h; nothing of the converter is linked in.
 */
#ifndef SCOPE_WRITER_SPAWN_H
#define SCOPE_WRITER_SPAWN_H

#include <stddef.h>

#include "scope_writer.h"

/* Runs the conversion in a scope-h5write child process and waits for it
 * (recorder side). The executable is $SCOPE_H5WRITER, else found next to
 * the object that contains the recorder, in ../runtime/ or in scope/
 * relative to it. Returns 0 or SCOPE_ENOWRITER / SCOPE_EIO / SCOPE_ENOMEM
 * with a message in req->err. */
int scope__writer_run(const struct scope_convert_request *req);

/* Starts a scope-h5write that outlives this process (format/
 * scope_writer.h, `detach`) on `req` (a rank file or a host file),
 * removing the journal once the file is in place, and waits only until
 * it has left for a process of its own (~1 ms). It gets journal_fd (the
 * journal, with this process's lock on it, which so stays taken until
 * the writer ends) and this process's standard output and error, which
 * it holds until it ends: a launcher that reads them (mpirun, Hydra)
 * returns once the file is written. Returns 0 when it runs, or
 * SCOPE_ENOWRITER / SCOPE_EIO / SCOPE_ENOMEM (message in req->err: the
 * caller then converts with scope__writer_run, waiting). */
int scope__writer_start(const struct scope_convert_request *req,
                        const struct scope_writer_detach *detach, int journal_fd);

/* The environment without LD_PRELOAD (the profiler does not profile its
 * own writer): a malloc'd array whose strings belong to environ, or NULL. */
char **scope__child_environment(void);

/* Finds the scope-h5write executable as scope__writer_run does. Returns 0
 * with the path in out, or SCOPE_ENOWRITER with the places tried in err. */
int scope__writer_find(char *out, size_t outlen, char *err, size_t errlen);

#endif /* SCOPE_WRITER_SPAWN_H */
