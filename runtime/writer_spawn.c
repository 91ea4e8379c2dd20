/*
 * writer_spawn.c - running the HDF5 writer in a process of its own.
 *
 * The recorder lives inside applications that may use their own HDF5, and
 * must not let its HDF5 meet theirs. Loading a writer library with
 * dlmopen(LM_ID_NEWLM) looked private but is not: the second libc copy of
 * the new namespace keeps its own pthread key table while the threads'
 * key slots are shared, so a thread-safe libhdf5 there reads the
 * application's thread-specific data as its own (a crash in H5Fcreate in
 * every Open MPI rank). A plain dlopen would share one libhdf5, and its
 * global state, with an application that links the same one. A child
 * process shares nothing: the writer's HDF5, its memory and even a crash of
 * it stay out of the application.
 *
 * posix_spawn (vfork-like in glibc) avoids copying the application's
 * address space, which matters for large MPI ranks with pinned memory.
 * The child gets the environment without LD_PRELOAD, so the profiler
 * does not profile its own writer. Its stderr goes into a pipe: its
 * one-line message becomes the recorder's, which says a fault once per
 * job rather than once per rank (journal_storage.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dlfcn.h>

#include "writer_spawn.h"
#include "scope_error.h"
#include "settings.h"

extern char **environ;

int scope__writer_find(char *out, size_t outlen, char *err, size_t errlen)
{
    const char *env = scope__setting_text(SCOPE_SET_H5WRITER);
    if (env) {
        if (access(env, X_OK) == 0 && strlen(env) < outlen) {
            strcpy(out, env);
            return 0;
        }
        snprintf(err, errlen, "SCOPE_H5WRITER=%s is not an executable", env);
        return SCOPE_ENOWRITER;
    }
    Dl_info info;
    char dir[PATH_MAX] = ".";
    if (dladdr((void *)scope__writer_find, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
        *strrchr(dir, '/') = 0;
    }
    /* beside the library, the build tree from runtime/, preload/ or
     * tools/ (convert/ builds it), and the installed <libdir>/scope/ */
    static const char *const rel[] = { "", "/../convert", "/scope" };
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        int n = snprintf(out, outlen, "%s%s/" SCOPE_CONVERT_EXE, dir, rel[i]);
        if (n > 0 && (size_t)n < outlen && access(out, X_OK) == 0)
            return 0;
    }
    snprintf(err, errlen, "cannot find " SCOPE_CONVERT_EXE " (looked in %s, %s/../convert, "
             "%s/scope; set SCOPE_H5WRITER)", dir, dir, dir);
    return SCOPE_ENOWRITER;
}

char **scope__child_environment(void)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = malloc((n + 1) * sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
            env[k++] = environ[i];
    env[k] = NULL;
    return env;
}

/* Reads what the writer says until it closes its stderr, keeping its
 * last "scope: " line without the prefix (a library may have said
 * something before). Returns its length. */
static size_t read_message(int fd, char *buf, size_t len)
{
    size_t n = 0;
    char tmp[512];
    for (;;) {
        ssize_t r = read(fd, tmp, sizeof tmp);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        for (ssize_t i = 0; i < r && n + 1 < len; i++)
            buf[n++] = tmp[i];
    }
    buf[n] = 0;
    char *line = buf, *p;
    while ((p = strstr(line + 1, "\nscope: ")))
        line = p + 1;
    if (strncmp(line, "scope: ", 7) == 0)
        line += 7;
    if ((p = strchr(line, '\n')))
        *p = 0;
    memmove(buf, line, strlen(line) + 1);
    return strlen(buf);
}

/* Sends the index's targets of a HOST request, one line per rank
 * (writer's stdin). A
 * writer that stopped reading ends it (EPIPE, no signal). */
static void send_links(int fd, const struct scope_convert_request *req)
{
    char buf[8192];
    size_t n = 0;
    size_t n_links = req->host.n_link_files;
    for (size_t r = 0; r <= n_links; r++) {
        const char *f = r < n_links && req->host.link_files[r] ? req->host.link_files[r] : "";
        size_t len = strlen(f) + 1;
        if (r == n_links || n + len > sizeof buf) {
            for (size_t off = 0; off < n;) {
                ssize_t w = send(fd, buf + off, n - off, MSG_NOSIGNAL);
                if (w < 0 && errno == EINTR)
                    continue;
                if (w <= 0)
                    return;
                off += (size_t)w;
            }
            n = 0;
        }
        if (r == n_links || len > sizeof buf)
            continue;
        memcpy(buf + n, f, len - 1);
        buf[n + len - 1] = '\n';
        n += len;
    }
}

/* The writer's command for `req` (format/writer_args.c's, which
 * scope-h5write decodes; `detach` NULL: the plain one) into new *argv,
 * with the child's environment in new *env; exe (exe_len bytes) holds
 * argv[0]. Returns 0 (the caller frees both), or SCOPE_E* with req->err
 * said and nothing to free. */
static int writer_command(const struct scope_convert_request *req,
                          const struct scope_writer_detach *detach, char *exe, size_t exe_len,
                          const char ***argv_out, char ***env_out)
{
    int rc = scope__writer_find(exe, exe_len, req->err, req->errlen);
    if (rc < 0)
        return rc;
    size_t max = scope_writer_argv_size(req);
    const char **argv = malloc(max * sizeof *argv);
    char **env = scope__child_environment();
    if (!argv || !env) {
        free(argv);
        free(env);
        snprintf(req->err, req->errlen, "out of memory");
        return SCOPE_ENOMEM;
    }
    argv[0] = exe;
    if ((detach ? scope_writer_encode_detached(req, req->mode == SCOPE_CONVERT_RANK, detach,
                                               argv, max)
                : scope_writer_encode(req, 0, argv, max)) < 0) {
        free(argv);
        free(env);
        snprintf(req->err, req->errlen, "%s cannot carry out this request", exe);
        return SCOPE_EINVAL;
    }
    *argv_out = argv;
    *env_out = env;
    return 0;
}

int scope__writer_start(const struct scope_convert_request *req,
                        const struct scope_writer_detach *detach, int journal_fd)
{
    char exe[PATH_MAX + 64];
    const char **argv;
    char **env;
    int rc = writer_command(req, detach, exe, sizeof exe, &argv, &env);
    if (rc < 0)
        return rc;
    /* the journal on a descriptor of its own (any number: the writer only
     * keeps it), and the index's links through a socket as scope__writer_run
     * sends them */
    int in[2] = { -1, -1 }, keep = journal_fd == 3 ? 4 : 3;
    int links = req->mode == SCOPE_CONVERT_HOST && req->host.n_link_files;
    posix_spawn_file_actions_t fa;
    int e = posix_spawn_file_actions_init(&fa);
    if (e == 0 && journal_fd >= 0)
        e = posix_spawn_file_actions_adddup2(&fa, journal_fd, keep);
    if (e == 0 && links)
        e = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) == 0
                ? posix_spawn_file_actions_adddup2(&fa, in[1], 0) : errno;
    /* a session of its own from the start: a launcher that kills the
     * rank's process group the moment MPI_Finalize returns (Open MPI does
     * when a rank dies) must find no writer in it */
    posix_spawnattr_t at;
    int have_at = posix_spawnattr_init(&at) == 0;
    if (have_at && posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID) != 0) {
        posix_spawnattr_destroy(&at);
        have_at = 0;
    }
    pid_t pid = -1;
    if (e == 0)
        e = posix_spawn(&pid, exe, &fa, have_at ? &at : NULL, (char *const *)argv, env);
    if (have_at)
        posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    free(argv);
    if (in[1] >= 0)
        close(in[1]);
    if (e != 0) {
        if (in[0] >= 0)
            close(in[0]);
        snprintf(req->err, req->errlen, "cannot start %s: %s", exe, strerror(e));
        return SCOPE_ENOWRITER;
    }
    if (in[0] >= 0) {
        send_links(in[0], req);
        close(in[0]);
    }
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    /* reaped by the application itself: the writer is left to itself
     * then, and a journal left behind is `scope recover`'s */
    if (w < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
        return 0;
    snprintf(req->err, req->errlen, "%s did not start on its own (status %d)", exe, status);
    return SCOPE_EIO;
}

int scope__writer_run(const struct scope_convert_request *req)
{
    char exe[PATH_MAX + 64];
    const char **argv;
    char **env;
    int rc = writer_command(req, NULL, exe, sizeof exe, &argv, &env);
    if (rc < 0)
        return rc;
    int out[2] = { -1, -1 }, in[2] = { -1, -1 };
    posix_spawn_file_actions_t fa;
    int have_fa = pipe2(out, O_CLOEXEC) == 0 && posix_spawn_file_actions_init(&fa) == 0;
    if (have_fa && posix_spawn_file_actions_adddup2(&fa, out[1], 2) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        have_fa = 0;
    }
    /* the index's links go through a socket, not a pipe: a writer that
     * dies early must not kill the application with SIGPIPE (MSG_NOSIGNAL) */
    int links = req->mode == SCOPE_CONVERT_HOST && req->host.n_link_files;
    if (links && (!have_fa || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 ||
                  posix_spawn_file_actions_adddup2(&fa, in[1], 0) != 0)) {
        if (have_fa)
            posix_spawn_file_actions_destroy(&fa);
        if (out[0] >= 0) {
            close(out[0]);
            close(out[1]);
        }
        if (in[0] >= 0) {
            close(in[0]);
            close(in[1]);
        }
        free(argv);
        free(env);
        snprintf(req->err, req->errlen, "cannot give %s the index's links: %s", exe,
                 strerror(errno));
        return SCOPE_EIO;
    }
    pid_t pid;
    int e = posix_spawn(&pid, exe, have_fa ? &fa : NULL, NULL, (char *const *)argv, env);
    free(env);
    free(argv);
    if (have_fa)
        posix_spawn_file_actions_destroy(&fa);
    if (out[1] >= 0)
        close(out[1]);
    if (in[1] >= 0)
        close(in[1]);
    if (e != 0) {
        if (out[0] >= 0)
            close(out[0]);
        if (in[0] >= 0)
            close(in[0]);
        snprintf(req->err, req->errlen, "cannot start %s: %s", exe, strerror(e));
        return SCOPE_ENOWRITER;
    }
    if (in[0] >= 0) {
        send_links(in[0], req);
        close(in[0]);
    }
    char said[2048];
    size_t n = 0;
    if (have_fa)
        n = read_message(out[0], said, sizeof said);
    if (out[0] >= 0)
        close(out[0]);
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    if (w < 0) {
        /* The application reaped our child itself (SIGCHLD ignored or a
         * handler that waits for any child): judge by the result. */
        struct stat st;
        const char *check = req->index_path                     ? req->index_path
                            : req->mode == SCOPE_CONVERT_HOST   ? req->host.host_path
                            : req->mode == SCOPE_CONVERT_APPEND ? req->append.host_path
                                                                : req->rank.rank_path;
        if (check && stat(check, &st) == 0)
            return 0;
        snprintf(req->err, req->errlen, "%s: its exit status was lost", exe);
        return SCOPE_EIO;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (n && WIFEXITED(status))
        snprintf(req->err, req->errlen, "%s", said);
    else if (WIFSIGNALED(status))
        snprintf(req->err, req->errlen, "%s died of signal %d", exe, WTERMSIG(status));
    else
        snprintf(req->err, req->errlen, "%s failed (exit status %d; its message is above)", exe,
                 WEXITSTATUS(status));
    return SCOPE_EIO;
}
