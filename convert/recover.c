/*
 * recover.c - turning the journals that dead processes left behind into
 * the files a clean finish writes (scope_recover.h; `scope recover` is
 * its command line).
 *
 * Conversion is the recorder's own (scope_convert()), with the file
 * marked complete = 0 and the calls still open at the crash closed at the
 * last recorded time (counted in the rank's unterminated_calls). A
 * journal is removed only after its file is in place, so recovering twice
 * is harmless: the second time finds nothing to do. The journal's lock is
 * held while it is converted, so two recoveries cannot race.
 *
 * On a full or read-only disk a conversion fails with the reason, removes
 * its temporary file and keeps the journal; recovering again once the
 * fault is repaired finishes the job. A rank file already in place whose
 * index is missing (the disk filled between the two) gets its index
 * written. The markers the recorder leaves to say a storage fault once
 * per job (SCOPE_STORAGE_MARKER, docs/format.md) go once no journal is
 * left.
 *
 * Journals kept outside the ranks folder (SCOPE_JOURNAL_DIR, usually
 * node-local storage) are found through the pointers journals.<host> the
 * recorder leaves in the ranks folder, or in the folders the caller
 * names. Only journals of this run (their header names this ranks
 * folder's index) are taken from there: node-local folders such as
 * /dev/shm hold other runs' journals too. A folder that is not visible
 * here (the dead node's local disk) is said, with where to recover.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "scope_convert.h"
#include "scope_error.h"
#include "scope_format.h"
#include "scope_h5_read.h"
#include "scope_recover.h"

/* Hosts whose journals this session met outside the ranks folder. */
struct seen_host {
    char name[256];
    int recovered, left;
};

struct scope_recover {
    const struct scope_recover_options *opt;
    struct seen_host *seen;   /* a linear search: one entry per host */
    size_t n_seen, cap_seen;
};

static void say(struct scope_recover *r, enum scope_recover_say kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(struct scope_recover *r, enum scope_recover_say kind, const char *fmt, ...)
{
    if (!r->opt->say)
        return;
    char line[3 * PATH_MAX + 1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    r->opt->say(r->opt->arg, kind, line);
}

/* What a conversion says without failing, said as recovery's problem. */
static void convert_warned(void *arg, const char *line)
{
    say(arg, SCOPE_RECOVER_PROBLEM, "%s", line);
}

/* The request for `r`: conversions say their warnings as recovery's. */
static struct scope_convert_request said(struct scope_recover *r,
                                         struct scope_convert_request req)
{
    req.warn = convert_warned;
    req.warn_arg = r;
    return req;
}

/* The first failure of several: what a path's recovery returns. */
static int first(int status, int rc)
{
    return status < 0 ? status : rc;
}

/* "<x>.h5" -> "<x>.ranks"; a folder stays itself. */
static void folder_of(const char *path, char *out, size_t len)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(out, len, "%s", path);
        return;
    }
    scope_ranks_dir_of(out, len, path);
}

/* "<dir>/x.ranks" -> "<dir>/x.h5", the index beside the folder. */
static int index_of(const char *folder, char *out, size_t len)
{
    return scope_index_of_ranks_dir(out, len, folder);
}

/* The header of journal `path` (format/journal.h's reader). Returns 0,
 * or a negative SCOPE_E* when it cannot be read or is not a journal. */
static int read_header(const char *path, struct scope_journal_header *h)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return SCOPE_EIO;
    int rc = scope_journal_header_read(fd, h);
    close(fd);
    return rc;
}

/* Whether process `pid` runs: a zombie does not (an exited writer whose
 * parent ended waits as one until init reaps it, which some inits, a
 * container's or a VM's, do seconds later). */
static int running(long pid)
{
    if (kill((pid_t)pid, 0) < 0 && errno != EPERM)
        return 0;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    return !(p && p[1] == ' ' && p[2] == 'Z');
}

/* Removes "<name>.tmp.<pid>" files of writers that are gone. */
static void remove_stale_temporaries(const char *folder)
{
    DIR *d = opendir(folder);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        long pid = scope_tmp_pid(e->d_name);
        if (pid <= 0 || running(pid))
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", folder, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    if (d)
        closedir(d);
}

/* Removes the recorder's once-per-job fault markers when the folder holds
 * no journal any more: the fault they stand for is repaired. */
static void remove_markers(const char *folder)
{
    DIR *d = opendir(folder);
    struct dirent *e;
    char path[PATH_MAX];
    int journals = 0;
    while (d && (e = readdir(d)))
        journals += scope_is_journal_name(e->d_name);
    if (d)
        rewinddir(d);
    while (d && !journals && (e = readdir(d)))
        if (strncmp(e->d_name, SCOPE_STORAGE_MARKER, strlen(SCOPE_STORAGE_MARKER)) == 0 &&
            snprintf(path, sizeof path, "%s/%s", folder, e->d_name) < (int)sizeof path)
            unlink(path);
    if (d)
        closedir(d);
}

/* The pid attribute of /rank<rank> in the scope file `path` (a rank or a
 * host file), or -1 when there is none to be read. HDF5 says nothing of
 * a file it cannot open: not finding the pid is an answer here. */
static int64_t rank_file_pid(const char *path, int rank)
{
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    int64_t pid = -1;
    char group[32];
    snprintf(group, sizeof group, "/" SCOPE_G_RANK_FMT, rank);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t a = f < 0 ? H5I_INVALID_HID
                    : H5Aopen_by_name(f, group, SCOPE_A_PID, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT64, &pid) < 0)
        pid = -1;
    if (a >= 0)
        H5Aclose(a);
    if (f >= 0)
        H5Fclose(f);
    scope_h5_quiet_end(&quiet);
    return pid;
}

/* 1 when a host file of `folder` holds /rank<rank> written by process
 * `pid` (its writer converted the journal but it was kept, e.g. for the
 * index). */
static int in_host_file(const char *folder, int rank, int64_t pid)
{
    DIR *d = opendir(folder);
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d))) {
        if (!scope_is_host_file(e->d_name))
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", folder, e->d_name) < (int)sizeof path)
            found = rank_file_pid(path, rank) == pid;
    }
    if (d)
        closedir(d);
    return found;
}

/* A journal of a host whose processes appended to its host file under
 * the host's lock (no MPI, SCOPE_HOST_FILES=1: the lock file is there)
 * joins them, complete = 0, in the same way (host_append.c). Returns 1
 * when it applies (with 0 or SCOPE_E* in *status), else 0. */
static int recover_by_append(struct scope_recover *r, const char *journal, const char *folder,
                             int *status)
{
    struct scope_journal_header h;
    char name[100], host_path[PATH_MAX + 100], lock[PATH_MAX + 110], index[PATH_MAX];
    char err[PATH_MAX + 256] = "";
    struct stat st;
    if (read_header(journal, &h) < 0)
        return 0;
    scope_host_file_name(h.hostname, name, sizeof name);
    snprintf(host_path, sizeof host_path, "%s/%s", folder, name);
    scope_host_lock_path(lock, sizeof lock, host_path);
    if (stat(lock, &st) != 0 || stat(host_path, &st) != 0 || index_of(folder, index, sizeof index))
        return 0;
    struct scope_convert_request req =
        said(r, scope_request_append(host_path, index, journal, 0, err, sizeof err));
    int rc = scope_convert(&req);
    if (rc < 0) {
        say(r, SCOPE_RECOVER_PROBLEM, "%s", err);
        *status = rc;
        return 1;
    }
    say(r, SCOPE_RECOVER_NOTE, "%s -> %s (rank %d, a group of its host's file)", journal,
        host_path, h.rank >= 0 ? h.rank : 0);
    *status = 0;
    return 1;
}

/* Recovers one journal into the ranks folder `folder`. Returns 0, or
 * SCOPE_E* when refused or failed (said). */
static int recover_one(struct scope_recover *r, const char *journal, const char *folder)
{
    int fd = open(journal, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int rc = errno == ENOENT ? SCOPE_ENOENT : SCOPE_EIO;
        say(r, SCOPE_RECOVER_PROBLEM, "%s: %s", journal, strerror(errno));
        return rc;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        say(r, SCOPE_RECOVER_PROBLEM, "%s: still in use by a running process; not recovered",
            journal);
        close(fd);
        return SCOPE_EBUSY;
    }
    /* the lock is kept while converting, so two recoveries cannot race */
    char rank_path[PATH_MAX + 32], index[PATH_MAX], err[PATH_MAX + 256] = "";
    struct scope_journal_info info;
    int rc = scope_convert_journal_info(journal, &info, err, sizeof err);
    if (rc < 0)
        goto fail_convert;
    int rank = info.rank >= 0 ? info.rank : 0;
    scope_rank_file_path(rank_path, sizeof rank_path, folder, rank);
    struct stat st;
    int leftover = 0;
    if (!in_host_file(folder, rank, info.pid) && recover_by_append(r, journal, folder, &rc)) {
        /* a failed append keeps the journal: what it recorded is in no
         * file yet, and the next recovery (once the cause is gone) takes it */
        if (rc == 0)
            unlink(journal);
        close(fd);
        return rc;
    }
    if (in_host_file(folder, rank, info.pid)) {
        leftover = 1;
        snprintf(rank_path, sizeof rank_path, "%s/" SCOPE_HOST_FILE_PREFIX "*.h5", folder);
    } else if (stat(rank_path, &st) == 0) {
        /* The same process wrote it and died before removing its journal:
         * a leftover. Another process (an earlier run into the same
         * folder): recover beside it, never over it. */
        if (rank_file_pid(rank_path, rank) == info.pid)
            leftover = 1;
        else
            scope_rank_pid_file_path(rank_path, sizeof rank_path, folder, rank,
                                     (long long)info.pid);
    }
    int have_index = index_of(folder, index, sizeof index) == 0;
    const char *index_path = have_index && stat(index, &st) != 0 ? index : NULL;
    if (leftover) {
        if (index_path) {
            struct scope_convert_request req =
                said(r, scope_request_index(journal, rank_path, index_path, 0, err, sizeof err));
            if ((rc = scope_convert(&req)) < 0)
                goto fail_convert;
        }
        say(r, SCOPE_RECOVER_NOTE, "%s: rank %d already has %s; removing the leftover journal",
            journal, rank, rank_path);
    } else {
        struct scope_convert_request req =
            said(r, scope_request_rank(journal, rank_path, index_path, 0, err, sizeof err));
        if ((rc = scope_convert(&req)) < 0)
            goto fail_convert;
        say(r, SCOPE_RECOVER_NOTE, "%s -> %s (rank %d%s)", journal, rank_path, rank,
            info.finalized ? ", stopped during finalize" : "");
    }
    unlink(journal);
    close(fd);
    return 0;

fail_convert:
    say(r, SCOPE_RECOVER_PROBLEM, "%s", err);
    close(fd);
    return rc;
}

/* 1 when the journal's run writes into the ranks folder `folder` (the
 * same folder, however it is named). */
static int of_run(const struct scope_journal_header *h, const char *folder)
{
    char mine[PATH_MAX];
    struct stat a, b;
    folder_of(h->output, mine, sizeof mine);
    return stat(mine, &a) == 0 && stat(folder, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The entry of `host`, added when new; NULL when out of memory. */
static struct seen_host *seen_of(struct scope_recover *r, const char *host)
{
    for (size_t i = 0; i < r->n_seen; i++)
        if (strcmp(r->seen[i].name, host) == 0)
            return &r->seen[i];
    if (r->n_seen == r->cap_seen) {
        size_t cap = r->cap_seen ? 2 * r->cap_seen : 64;
        struct seen_host *s = realloc(r->seen, cap * sizeof *s);
        if (!s)
            return NULL;
        r->seen = s;
        r->cap_seen = cap;
    }
    struct seen_host *s = &r->seen[r->n_seen++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", host);
    return s;
}

/* recover_one(), unless libhdf5 could not close a file earlier in this
 * process: its library state is then not to be trusted, and the journal
 * waits for the next recovery (said). Returns 0 or SCOPE_E*. */
static int recover_unless_broken(struct scope_recover *r, const char *jp, const char *folder)
{
    if (scope_convert_hdf5_broken()) {
        say(r, SCOPE_RECOVER_PROBLEM, "%s: not converted this time (run scope recover again)",
            jp);
        return SCOPE_EHDF5;
    }
    return recover_one(r, jp, folder);
}

/* Reads the paths "<dir>/<name>" of the names in folder `dir` that
 * keep(name, arg) accepts into a new array *paths (each allocated; the
 * caller frees them and it) of *n.
 * Returns 0, or SCOPE_ENOENT / SCOPE_EIO (the folder cannot be read: said
 * as "<option><dir>: <reason>", `option` naming where the user gave it,
 * "" for none) or SCOPE_ENOMEM (said); nothing to free then. Cost: one
 * pass over the folder. */
static int read_paths(struct scope_recover *r, const char *dir, const char *option,
                      int (*keep)(const char *name, const void *arg), const void *arg,
                      char ***paths, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        int rc = errno == ENOENT ? SCOPE_ENOENT : SCOPE_EIO;
        say(r, SCOPE_RECOVER_PROBLEM, "%s%s: %s", option, dir, strerror(errno));
        return rc;
    }
    char **all = NULL;
    size_t k = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!keep(e->d_name, arg))
            continue;
        char **nn = realloc(all, (k + 1) * sizeof *nn);
        if (!nn)
            goto fail_memory;
        all = nn;
        if (asprintf(&all[k], "%s/%s", dir, e->d_name) < 0)
            goto fail_memory;
        k++;
    }
    closedir(d);
    *paths = all;
    *n = k;
    return 0;

fail_memory:
    for (size_t i = 0; i < k; i++)
        free(all[i]);
    free(all);
    closedir(d);
    say(r, SCOPE_RECOVER_PROBLEM, "out of memory");
    return SCOPE_ENOMEM;
}

static int has_prefix(const char *name, const void *prefix)
{
    return strncmp(name, prefix, strlen(prefix)) == 0;
}

static int is_journal_file(const char *name, const void *unused)
{
    (void)unused;
    return scope_is_journal_name(name);
}

/* Recovers into `folder` the journals of its run found in `dir` (a
 * journal folder apart from it), of `host` only unless NULL. Returns 0,
 * or SCOPE_E* when any was refused or failed. */
static int recover_dir(struct scope_recover *r, const char *dir, const char *folder,
                       const char *host, int *found)
{
    char prefix[300];
    scope_journal_prefix(prefix, sizeof prefix, host);
    char **paths = NULL;
    size_t n = 0;
    int status = read_paths(r, dir, "--journals ", has_prefix, prefix, &paths, &n);
    if (status < 0)
        return status;
    for (size_t i = 0; i < n; i++) {
        const char *jp = paths[i];
        struct scope_journal_header h;
        if (read_header(jp, &h) < 0 || !of_run(&h, folder)) {
            free(paths[i]);
            continue; /* another run's, or not a journal */
        }
        (*found)++;
        struct seen_host *sh = seen_of(r, h.hostname);
        int rc = recover_unless_broken(r, jp, folder);
        status = first(status, rc);
        if (sh) {
            sh->recovered += !rc;
            sh->left += rc < 0;
        }
        free(paths[i]);
    }
    free(paths);
    return status;
}

/* 1 when every rank the index of `folder` links leads somewhere once the
 * links are repaired: a journal of another host may have become a file
 * anyway (the death handler on a catchable signal, a writer after a late
 * start). */
static int nothing_left(const char *folder)
{
    char index[PATH_MAX], err[PATH_MAX + 256] = "";
    struct stat st;
    return index_of(folder, index, sizeof index) == 0 && stat(index, &st) == 0 &&
           !scope_convert_hdf5_broken() &&
           scope_convert_index_repair(index, folder, err, sizeof err) >= 0 &&
           scope_convert_index_broken(index) == 0;
}

/* Follows the pointers journals.<host> of ranks folder `folder`: the
 * journals of each host are recovered when its folder is visible here;
 * when it is not, where to recover is said. A pointer goes once nothing
 * of its host is left. Returns 0, or SCOPE_E* when journals may remain. */
static int follow_pointers(struct scope_recover *r, const char *folder, int *found)
{
    DIR *d = opendir(folder);
    if (!d)
        return 0;
    char me[256] = "";
    gethostname(me, sizeof me - 1);
    int status = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *host = scope_journal_pointer_host(e->d_name);
        if (!host)
            continue;
        char ptr[PATH_MAX + 300], dir[PATH_MAX] = "";
        snprintf(ptr, sizeof ptr, "%s/%s", folder, e->d_name);
        FILE *f = fopen(ptr, "r");
        if (!f || !fgets(dir, sizeof dir, f)) {
            if (f)
                fclose(f);
            continue;
        }
        fclose(f);
        dir[strcspn(dir, "\n")] = 0;
        struct stat st;
        int visible = dir[0] == '/' && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
        if (visible)
            status = first(status, recover_dir(r, dir, folder, host, found));
        struct seen_host *sh = seen_of(r, host);
        int left = sh ? sh->left : 1;
        int here = strcmp(me, host) == 0 || (sh && sh->recovered);
        if (here && !left) {
            unlink(ptr);
            continue;
        }
        if (here)
            continue; /* what failed was said */
        if (nothing_left(folder)) {
            unlink(ptr);
            continue;
        }
        say(r, SCOPE_RECOVER_PROBLEM, "%s: host %s kept its journals in %s, %s; a process of "
            "that host that died left its journal there: run `scope recover %s` on %s "
            "(node-local storage is seen only there, and the scheduler may clean it when the "
            "job ends), or `scope recover --journals DIR %s` where that folder is mounted as DIR",
            ptr, host, dir, visible ? "which here (on a different host) holds none of them"
                                    : "not visible here", folder, host, folder);
        status = first(status, SCOPE_ENOENT);
    }
    closedir(d);
    return status;
}

/* One journal file named by the caller: a journal outside its ranks
 * folder (SCOPE_JOURNAL_DIR) goes to the run it names when that is here,
 * else to the folder it is in. */
static int recover_journal_file(struct scope_recover *r, const char *path)
{
    char folder[PATH_MAX], idx[PATH_MAX];
    struct scope_journal_header h;
    struct stat st;
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (!slash)
        snprintf(folder, sizeof folder, ".");
    else
        slash[slash == folder] = 0;
    if (index_of(folder, idx, sizeof idx) != 0 && read_header(path, &h) == 0) {
        char run[PATH_MAX];
        folder_of(h.output, run, sizeof run);
        if (stat(run, &st) == 0 && S_ISDIR(st.st_mode))
            snprintf(folder, sizeof folder, "%s", run);
    }
    return recover_one(r, path, folder);
}

/* Links of ranks whose host file lacks them (a host writer that failed, a
 * rank that died) now lead to the rank files written. Returns 0 or
 * SCOPE_E* (said). */
static int repair_index(struct scope_recover *r, const char *folder)
{
    char index[PATH_MAX];
    struct stat st;
    if (index_of(folder, index, sizeof index) != 0 || stat(index, &st) != 0 ||
        scope_convert_hdf5_broken())
        return 0;
    char err[PATH_MAX + 256] = "";
    int fixed = scope_convert_index_repair(index, folder, err, sizeof err);
    if (fixed < 0) {
        say(r, SCOPE_RECOVER_PROBLEM, "%s", err);
        return fixed;
    }
    if (fixed > 0)
        say(r, SCOPE_RECOVER_NOTE, "%s: %d link%s repaired", index, fixed, fixed == 1 ? "" : "s");
    return 0;
}

int scope_recover_path(struct scope_recover *r, const char *path, int *found)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (scope_is_journal_name(base)) {
            (*found)++;
            return recover_journal_file(r, path);
        }
    }
    char folder[PATH_MAX];
    folder_of(path, folder, sizeof folder);
    remove_stale_temporaries(folder);   /* none when the folder cannot be read */
    char **paths = NULL;
    size_t n = 0;
    int status = read_paths(r, folder, "", is_journal_file, NULL, &paths, &n);
    if (status < 0)
        return status;
    for (size_t i = 0; i < n; i++) {
        (*found)++;
        status = first(status, recover_unless_broken(r, paths[i], folder));
        free(paths[i]);
    }
    free(paths);
    for (size_t i = 0; i < r->opt->n_journal_dirs; i++)
        status = first(status, recover_dir(r, r->opt->journal_dirs[i], folder, NULL, found));
    status = first(status, follow_pointers(r, folder, found));
    status = first(status, repair_index(r, folder));
    if (status == 0)
        remove_markers(folder);
    return status;
}

struct scope_recover *scope_recover_begin(const struct scope_recover_options *opt)
{
    struct scope_recover *r = calloc(1, sizeof *r);
    if (r)
        r->opt = opt;
    return r;
}

void scope_recover_end(struct scope_recover *r)
{
    if (!r)
        return;
    free(r->seen);
    free(r);
}
