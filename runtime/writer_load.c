/*
 * writer_load.c - loading libscope_h5writer.so privately and running it.
 *
 * The writer links libhdf5. Loading it with dlopen would put that libhdf5
 * into the application's global symbol scope, where it could collide with
 * the application's own HDF5 (another version, another build). dlmopen with
 * LM_ID_NEWLM gives it a link-map namespace of its own: its libhdf5, libz
 * and even its libc copy are invisible to the application. Nothing but
 * paths and a message buffer crosses the boundary, so no memory allocated
 * on one side is freed on the other.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5writer.h"
#include "scope_error.h"

#define WRITER_NAME "libscope_h5writer.so"

static void *try_load(const char *path)
{
    if (access(path, R_OK) != 0)
        return NULL;
    return dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
}

/* Finds and loads the writer. Returns the handle, or NULL with a message
 * naming every place tried. */
static void *load_writer(char *err, size_t errlen)
{
    const char *env = getenv("SCOPE_H5WRITER");
    if (env && *env) {
        void *h = try_load(env);
        if (!h)
            snprintf(err, errlen, "SCOPE_H5WRITER=%s: %s", env,
                     access(env, R_OK) ? "no such file" : dlerror());
        return h;
    }
    Dl_info info;
    if (!dladdr((void *)load_writer, &info) || !info.dli_fname) {
        snprintf(err, errlen, "cannot locate the recorder library to find " WRITER_NAME);
        return NULL;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    static const char *const rel[] = { "", "/../runtime", "/scope" };
    char path[PATH_MAX + 64];
    const char *last_err = NULL;
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        snprintf(path, sizeof path, "%s%s/" WRITER_NAME, dir, rel[i]);
        if (access(path, R_OK) != 0)
            continue;
        void *h = try_load(path);
        if (h)
            return h;
        last_err = dlerror();
    }
    snprintf(err, errlen, "cannot load " WRITER_NAME " (looked in %s, %s/../runtime, %s/scope)%s%s",
             dir, dir, dir, last_err ? ": " : "", last_err ? last_err : "");
    return NULL;
}

int scope__writer_run(const struct scope_writer_request *req)
{
    void *h = load_writer(req->err, req->errlen);
    if (!h)
        return SCOPE_ENOWRITER;
    scope_writer_convert_fn fn = (scope_writer_convert_fn)dlsym(h, SCOPE_WRITER_CONVERT_SYMBOL);
    if (!fn) {
        snprintf(req->err, req->errlen, WRITER_NAME " has no " SCOPE_WRITER_CONVERT_SYMBOL);
        dlclose(h);
        return SCOPE_ENOWRITER;
    }
    int rc = fn(req);
    dlclose(h);
    return rc;
}
