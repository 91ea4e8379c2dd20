/*
 * out_file.c - the one way `scope` commands write an output file (export,
 * report, plot): into "<path>.tmp.<pid>" in the same folder, every write
 * checked, fsync'd, then renamed over the final name. A full disk, a quota
 * or a read-only file system then fails with its reason and leaves the
 * final name as it was (an earlier output stays whole); a crash leaves
 * only a temporary file that `scope recover` knows to remove. The rename
 * stays in one folder, hence in one file system, so it is atomic.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out_file.h"
#include "scope_format.h"

int scope__out_open(scope__out_file *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    int fd = -1;
    size_t tlen = strlen(path) + 32;
    if (!(o->path = strdup(path)) || !(o->tmp = malloc(tlen)) ||
        scope_tmp_path(o->tmp, tlen, path, (long)getpid()) < 0) {
        errno = ENOMEM;
        goto fail;
    }
    fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 || !(o->f = fdopen(fd, "w")))
        goto fail;
    return 0;

fail:;
    int e = errno;
    if (fd >= 0) {
        close(fd);
        unlink(o->tmp);
    }
    fprintf(stderr, "scope: %s: cannot create: %s\n", path, strerror(e));
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    return 1;
}

int scope__out_close(scope__out_file *o, int ok, const char *what)
{
    int e = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = errno ? errno : EIO;
    if (!o->tmp) { /* stdout */
        if (ok && e)
            fprintf(stderr, "scope: cannot write the %s: %s\n", what, strerror(e));
        return ok && !e ? 0 : 1;
    }
    if (!e && ok && fsync(fileno(o->f)) < 0)
        e = errno;
    if (fclose(o->f) != 0 && !e)
        e = errno;
    if (!e && ok && rename(o->tmp, o->path) < 0)
        e = errno;
    if (e || !ok)
        unlink(o->tmp);
    if (e && ok)
        fprintf(stderr, "scope: %s: cannot write the %s: %s\n", o->path, what, strerror(e));
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    return ok && !e ? 0 : 1;
}

int scope__out_write(const char *path, const char *what, int (*write)(FILE *f, void *ctx),
                     void *ctx)
{
    scope__out_file of;
    if (scope__out_open(&of, path) != 0)
        return 1;
    int status = write(of.f, ctx);
    if (scope__out_close(&of, status == 0, what) != 0)
        status = 1;
    return status;
}
