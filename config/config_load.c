/*
 * config_load.c - where a config comes from: a file, the built-in default,
 * and the SCOPE_* variables laid over either. The
 * variables come from the process's one reading (base/settings.c): the
 * recorder sees the same values, and a malformed one is the same error.
 *
 * This is what the preload's constructor calls, inside an application that
 * did not ask for us: reading the file uses plain open/read (no stdio
 * buffers left behind), a bad variable is reported like a bad line, and
 * every path frees what it allocated.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_internal.h"

/* A config file larger than this is surely not one (and would be copied
 * into every rank's /metadata). */
#define MAX_FILE_BYTES (16u << 20)

/* A variable of the process's one reading (base/settings.c) as this
 * layer applies it: 0 unset, 1 good, or SCOPE_ECONFIG with the message
 * naming the variable and its value in err. */
static int env_setting(int id, char *err, size_t errlen)
{
    const scope_setting_value *v = scope__setting(id);
    if (v->state == SCOPE_SETTING_BAD) {
        if (errlen)
            scope__setting_message(id, err, errlen);
        return SCOPE_ECONFIG;
    }
    return v->state == SCOPE_SETTING_SET;
}

int scope__config_apply_env(scope_config *cfg, char *err, size_t errlen)
{
    char *out_copy = NULL, *jdir_copy = NULL;
    int has_out, has_jdir, has_budget, has_verbose, has_io, has_io_files, has_io_exclude;

    if (errlen)
        err[0] = '\0';
    /* Check everything before changing anything: cfg stays whole on error. */
    if ((has_budget = env_setting(SCOPE_SET_MEMORY_BUDGET, err, errlen)) < 0 ||
        (has_verbose = env_setting(SCOPE_SET_VERBOSE, err, errlen)) < 0 ||
        (has_out = env_setting(SCOPE_SET_OUTPUT, err, errlen)) < 0 ||
        (has_jdir = env_setting(SCOPE_SET_JOURNAL_DIR, err, errlen)) < 0 ||
        (has_io = env_setting(SCOPE_SET_IO, err, errlen)) < 0 ||
        (has_io_files = env_setting(SCOPE_SET_IO_FILES, err, errlen)) < 0 ||
        (has_io_exclude = env_setting(SCOPE_SET_IO_EXCLUDE, err, errlen)) < 0)
        return SCOPE_ECONFIG;
    char *iox_copy = NULL;
    if (has_io_exclude && !(iox_copy = strdup(scope__setting_text(SCOPE_SET_IO_EXCLUDE)))) {
        if (errlen)
            snprintf(err, errlen, "SCOPE_IO_EXCLUDE: out of memory");
        return SCOPE_ENOMEM;
    }
    if (has_out && !(out_copy = strdup(scope__setting_text(SCOPE_SET_OUTPUT)))) {
        free(iox_copy);
        if (errlen)
            snprintf(err, errlen, "SCOPE_OUTPUT: out of memory");
        return SCOPE_ENOMEM;
    }
    if (has_jdir && !(jdir_copy = strdup(scope__setting_text(SCOPE_SET_JOURNAL_DIR)))) {
        free(out_copy);
        free(iox_copy);
        if (errlen)
            snprintf(err, errlen, "SCOPE_JOURNAL_DIR: out of memory");
        return SCOPE_ENOMEM;
    }
    if (jdir_copy) {
        free(cfg->journal_dir);
        cfg->journal_dir = jdir_copy;
        cfg->journal_dir_from = (scope_config_origin){SCOPE_SRC_ENV, 0, "SCOPE_JOURNAL_DIR"};
    }
    if (out_copy) {
        free(cfg->output);
        cfg->output = out_copy;
        cfg->output_from = (scope_config_origin){SCOPE_SRC_ENV, 0, "SCOPE_OUTPUT"};
    }
    if (has_budget) {
        cfg->memory_budget = scope__setting_u(SCOPE_SET_MEMORY_BUDGET);
        cfg->memory_budget_from = (scope_config_origin){SCOPE_SRC_ENV, 0, "SCOPE_MEMORY_BUDGET"};
    }
    if (has_verbose) {
        cfg->verbose = (int)scope__setting_u(SCOPE_SET_VERBOSE);
        cfg->verbose_from = (scope_config_origin){SCOPE_SRC_ENV, 0, "SCOPE_VERBOSE"};
    }
    if (has_io) {
        cfg->io = SCOPE_IO_ON(scope__setting_u(SCOPE_SET_IO));
        cfg->io_from = (scope_config_origin){SCOPE_SRC_ENV, 0, "SCOPE_IO"};
    }
    if (has_io_files) {
        cfg->io_files = scope__setting_u(SCOPE_SET_IO_FILES);
        cfg->io_files_from = (scope_config_origin){SCOPE_SRC_ENV, 0, "SCOPE_IO_FILES"};
    }
    if (iox_copy) {
        free(cfg->io_exclude);
        cfg->io_exclude = iox_copy;
        cfg->io_exclude_from = (scope_config_origin){SCOPE_SRC_ENV, 0, "SCOPE_IO_EXCLUDE"};
    }
    return 0;
}

/* Maps a read failure to the shared error table. */
static int errno_code(int e)
{
    switch (e) {
    case ENOENT: case ENOTDIR: return SCOPE_ENOENT;
    case EACCES: case EPERM: return SCOPE_EACCES;
    case ENOMEM: return SCOPE_ENOMEM;
    default: return SCOPE_EIO;
    }
}

/* -errno, never 0 even if a failing call left errno unset. */
static long neg_errno(void)
{
    return errno > 0 ? -(long)errno : -EIO;
}

/* Reads the whole file into a malloc'd NUL-terminated buffer. Returns the
 * length, or -errno. */
static long read_file(const char *path, char **out)
{
    struct stat st;
    char *buf = NULL;
    size_t len = 0, cap;
    long rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return neg_errno();
    if (fstat(fd, &st) < 0) {
        rc = neg_errno();
        goto fail_fd;
    }
    if (S_ISDIR(st.st_mode)) {
        rc = -EISDIR;
        goto fail_fd;
    }
    /* st_size is only a hint (pipes, /proc report 0): grow as needed. */
    cap = st.st_size > 0 && (uint64_t)st.st_size < MAX_FILE_BYTES ? (size_t)st.st_size + 1 : 4096;
    if (!(buf = malloc(cap + 1))) {
        rc = -ENOMEM;
        goto fail_fd;
    }
    for (;;) {
        if (len == cap) {
            if (cap >= MAX_FILE_BYTES) {
                rc = -EFBIG;
                goto fail_buf;
            }
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                rc = -ENOMEM;
                goto fail_buf;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = neg_errno();
            goto fail_buf;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    close(fd);
    *out = buf;
    return (long)len;
fail_buf:
    free(buf);
fail_fd:
    close(fd);
    return rc;
}

int scope__config_load(const char *path, scope_config **out, char *err, size_t errlen)
{
    char *text = NULL;
    int rc;
    *out = NULL;
    if (errlen)
        err[0] = '\0';
    long len = read_file(path, &text);
    if (len < 0) {
        char buf[128];
        if (errlen)
            snprintf(err, errlen, "%s:0:0: cannot read: %s", path,
                     strerror_r((int)-len, buf, sizeof buf));
        return errno_code((int)-len);
    }
    /* The parser reads a C string: a NUL byte would silently end the file. */
    size_t nul = strlen(text);
    if (nul < (size_t)len) {
        int line = 1;
        const char *ls = text;
        for (const char *c = text; c < text + nul; c++)
            if (*c == '\n') {
                line++;
                ls = c + 1;
            }
        if (errlen)
            snprintf(err, errlen, "%s:%d:%d: NUL byte in the file", path, line,
                     (int)(text + nul - ls) + 1);
        free(text);
        return SCOPE_ECONFIG;
    }
    rc = scope__config_parse(text, path, out, err, errlen);
    free(text);
    if (rc < 0)
        return rc;
    if ((rc = scope__config_apply_env(*out, err, errlen)) < 0) {
        scope__config_free(*out);
        *out = NULL;
    }
    return rc;
}

int scope__config_default(scope_config **out, char *err, size_t errlen)
{
    int rc;
    scope_config *cfg = scope__cfg_new();
    *out = NULL;
    if (errlen)
        err[0] = '\0';
    if (!cfg) {
        rc = SCOPE_ENOMEM;
        goto fail;
    }
    cfg->is_default = 1;
    if ((rc = scope__cfg_add_default_entries(cfg)) < 0)
        goto fail_cfg;
    if ((rc = scope__config_apply_env(cfg, err, errlen)) < 0)
        goto fail_cfg;
    *out = cfg;
    return 0;
fail_cfg:
    scope__config_free(cfg);
fail:
    if (rc == SCOPE_ENOMEM && errlen)
        snprintf(err, errlen, "out of memory");
    return rc;
}

int scope__config_from_env(scope_config **out, char *err, size_t errlen)
{
    const char *path = scope__setting_text(SCOPE_SET_CONFIG);
    return path ? scope__config_load(path, out, err, errlen)
                : scope__config_default(out, err, errlen);
}
