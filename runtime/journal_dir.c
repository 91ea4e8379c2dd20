/*
 * journal_dir.c - the journal folder: the ranks folder by default, or
 * SCOPE_JOURNAL_DIR.
 *
 * Why a separate folder: a journal is written all through the run and is
 * read back once, on the same node, by the writer of the rank or host
 * file. On a cluster the ranks folder is on the parallel file system,
 * where creating a file per rank is the metadata load host files exist to
 * avoid, while every node has storage of its own for exactly this (the
 * scheduler's $TMPDIR, /dev/shm, /local). With SCOPE_JOURNAL_DIR there,
 * the shared file system sees only the host (or rank) files and the index.
 *
 * The price: a journal is what survives a crash, and a node-local journal
 * can be recovered only where its folder is visible (on that node, before
 * the scheduler cleans it). So that `scope recover` knows where to look,
 * each host with journals elsewhere leaves a pointer in the ranks folder,
 * journals.<host>, one line naming the folder. It is written once per
 * host (a process that finds it already right writes nothing) and removed
 * when the host's last journal became a file; recover removes one that is
 * left over.
 *
 * A bad value (relative, missing, not a folder, not writable) must not
 * cost the run its profile: it is said, naming the problem, and the
 * journals go to the ranks folder as without the setting.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal_dir.h"
#include "full_io.h"
#include "scope_format.h"
#include "scope_internal.h"

int scope__journal_dir_choose(const char *setting, const char *origin, const char *ranks_dir,
                              char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", ranks_dir);
    if (!setting || !*setting)
        return 0;
    const char *why = NULL;
    char buf[96];
    struct stat st;
    size_t n = strlen(setting);
    while (n > 1 && setting[n - 1] == '/')
        n--;
    if (setting[0] != '/')
        why = "not an absolute path (the processes of a job may run in different folders)";
    else if (n >= outlen)
        why = "path too long";
    else if (stat(setting, &st) < 0)
        why = errno == ENOENT ? "no such folder" : strerror(errno);
    else if (!S_ISDIR(st.st_mode))
        why = "not a folder";
    else if (access(setting, W_OK | X_OK) < 0) {
        snprintf(buf, sizeof buf, "not writable (%s)", strerror(errno));
        why = buf;
    }
    if (why) {
        if (scope__launcher_rank() <= 0)
            fprintf(stderr, "scope: %s='%s': %s; the journals go to the ranks folder %s\n",
                    origin, setting, why, ranks_dir);
        return 0;
    }
    snprintf(out, outlen, "%.*s", (int)n, setting);
    return strcmp(out, ranks_dir) != 0;
}

static int pointer_path(char *out, size_t len, const char *ranks_dir, const char *host)
{
    int n = scope_journal_pointer_path(out, len, ranks_dir, host);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int scope__journal_pointer_note(const char *ranks_dir, const char *host, const char *journal_dir)
{
    char path[4400], tmp[4500], line[4200], have[4200];
    if (pointer_path(path, sizeof path, ranks_dir, host) < 0)
        return ENAMETOOLONG;
    int n = snprintf(line, sizeof line, "%s\n", journal_dir);
    if (n < 0 || (size_t)n >= sizeof line)
        return ENAMETOOLONG;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0) {
        ssize_t r = read(fd, have, sizeof have - 1);
        close(fd);
        if (r == n && memcmp(have, line, (size_t)n) == 0)
            return 0;
    }
    /* written whole, then renamed: a reader never sees half a line */
    scope_tmp_path(tmp, sizeof tmp, path, (long)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0)
        return errno;
    int e = scope__pwrite_full(fd, line, (size_t)n, 0);
    close(fd);
    if (!e && rename(tmp, path) < 0)
        e = errno;
    if (e)
        unlink(tmp);
    return e;
}

void scope__journal_pointer_drop(const char *ranks_dir, const char *host, const char *journal_dir)
{
    char path[4400];
    if (pointer_path(path, sizeof path, ranks_dir, host) < 0)
        return;
    if (!scope_host_journals_left(journal_dir, host))
        unlink(path);
}
