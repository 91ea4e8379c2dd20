/*
 * cmd_recover.c - `scope recover PATH...`: turns the journals that dead
 * processes left behind into the rank files a clean finish writes.
 *
 * A process that records keeps its journal on disk and holds an exclusive
 * flock on it until it ends, however it ends (SIGKILL included). A journal
 * whose lock can be taken therefore belongs to a dead process; one whose
 * lock cannot is refused as still running. Conversion is the recorder's
 * own (scope_convert(), convert/scope_convert.h), with the rank file marked complete = 0 and the
 * calls still open at the crash closed at the last recorded time (counted
 * in the rank's unterminated_calls). A journal is removed only after its
 * rank file is in place, so running recover twice is harmless: the second
 * run finds nothing to do.
 *
 * On a full or read-only disk a conversion fails with the reason, removes
 * its temporary file and keeps the journal; run recover again once the
 * fault is repaired. A rank file already in place whose index is missing
 * (the disk filled between the two) gets its index written. The markers
 * the recorder leaves to say a storage fault once per job
 * (SCOPE_STORAGE_MARKER, docs/format.md) go once no journal is left.
 *
 * Journals kept outside the ranks folder (SCOPE_JOURNAL_DIR, usually
 * node-local storage) are found through the pointers journals.<host> the
 * recorder leaves in the ranks folder, or in the folders given with
 * --journals. Only journals of this run (their header names this ranks
 * folder's index) are taken from there: node-local folders such as
 * /dev/shm hold other runs' journals too. A folder that is not visible
 * here (the dead node's local disk) is said, with where to run recover.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "journal.h"
#include "commands.h"
#include "scope_convert.h"
#include "scope_format.h"
#include "scope_reader.h"

static const char recover_help[] =
    "usage: scope recover [-q] [--journals DIR]... PATH...\n"
    "\n"
    "Converts the journals left by processes that died (killed, crashed, cut\n"
    "off by the scheduler, or exited without finalizing) into the same rank\n"
    "files a clean finish writes, marked complete = 0, with calls still open\n"
    "at the crash closed at the last recorded time. Writes the index file\n"
    "when it is missing. Journals of processes still running are refused.\n"
    "Running it again is harmless. Also for journals kept because the disk\n"
    "was full or read-only at the end of the run: run it once there is room.\n"
    "On a full disk it fails with the reason and keeps every journal.\n"
    "\n"
    "PATH is an index file (run.h5: its run.ranks/ folder is searched), a\n"
    "folder of rank files, or one journal file.\n"
    "\n"
    "Journals kept in a separate folder during the run (SCOPE_JOURNAL_DIR,\n"
    "e.g. node-local /tmp) are found through the journals.<host> files the\n"
    "run leaves in the ranks folder, when that folder is visible where\n"
    "recover runs: run it on the node that has the folder (before the\n"
    "scheduler cleans it), or name where it is mounted with --journals.\n"
    "\n"
    "options:\n"
    "  --journals DIR also recover this run's journals found in DIR\n"
    "  -q, --quiet    print only errors\n"
    "  -h, --help     this text\n"
    "\n"
    "exit status: 0 when every journal found was recovered (or none was\n"
    "found), 1 when any was refused or failed.\n";

static int quiet;

static int is_journal_name(const char *name)
{
    return strncmp(name, SCOPE_JOURNAL_PREFIX, strlen(SCOPE_JOURNAL_PREFIX)) == 0;
}

/* "<x>.h5" -> "<x>.ranks"; a folder stays itself. */
static void folder_of(const char *path, char *out, size_t len)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(out, len, "%s", path);
        return;
    }
    size_t n = strlen(path);
    if (n > 3 && strcmp(path + n - 3, ".h5") == 0)
        n -= 3;
    snprintf(out, len, "%.*s.ranks", (int)n, path);
}

/* "<dir>/x.ranks" -> "<dir>/x.h5", the index beside the folder. */
static int index_of(const char *folder, char *out, size_t len)
{
    size_t n = strlen(folder);
    while (n > 1 && folder[n - 1] == '/')
        n--;
    if (n < 7 || strncmp(folder + n - 6, ".ranks", 6) != 0)
        return -1;
    return snprintf(out, len, "%.*s.h5", (int)(n - 6), folder) < (int)len ? 0 : -1;
}

/* Removes "<name>.tmp.<pid>" files of writers that are gone. */
static void remove_stale_temporaries(const char *folder)
{
    DIR *d = opendir(folder);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *t = strstr(e->d_name, ".tmp.");
        if (!t)
            continue;
        char *end;
        long pid = strtol(t + 5, &end, 10);
        if (*end || pid <= 0 || (kill((pid_t)pid, 0) == 0 || errno == EPERM))
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
        journals += is_journal_name(e->d_name);
    if (d)
        rewinddir(d);
    while (d && !journals && (e = readdir(d)))
        if (strncmp(e->d_name, SCOPE_STORAGE_MARKER, strlen(SCOPE_STORAGE_MARKER)) == 0 &&
            snprintf(path, sizeof path, "%s/%s", folder, e->d_name) < (int)sizeof path)
            unlink(path);
    if (d)
        closedir(d);
}

/* The pid stored in /rank<N> of an existing rank file, or -1. */
static int64_t rank_file_pid(const char *path, int rank)
{
    scope_profile *p = NULL;
    int64_t pid = -1;
    if (scope_profile_open(path, &p) < 0)
        return -1;
    if (scope_profile_rank_attr_int(p, rank, SCOPE_A_PID, &pid) < 0)
        pid = -1;
    scope_profile_close(p);
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
    size_t p = strlen(SCOPE_HOST_FILE_PREFIX);
    while (d && !found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, SCOPE_HOST_FILE_PREFIX, p) != 0 || n < p + 4 ||
            strcmp(e->d_name + n - 3, ".h5") != 0 || strstr(e->d_name, ".tmp."))
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", folder, e->d_name) < (int)sizeof path)
            found = rank_file_pid(path, rank) == pid;
    }
    if (d)
        closedir(d);
    return found;
}

static int read_header(const char *path, struct scope_journal_header *h);


/* A journal of a host whose processes appended to its host file under
 * the host's lock (no MPI, SCOPE_HOST_FILES=1: the lock file is there)
 * joins them, complete = 0, in the same way (convert/host_append.c).
 * Returns 1 when it applies (with the result in *status), else 0. */
static int recover_by_append(const char *journal, const char *folder, int *status)
{
    struct scope_journal_header h;
    char name[100], host_path[PATH_MAX + 100], lock[PATH_MAX + 110], index[PATH_MAX];
    char err[PATH_MAX + 256] = "";
    struct stat st;
    if (read_header(journal, &h) < 0)
        return 0;
    scope_host_file_name(h.hostname, name, sizeof name);
    snprintf(host_path, sizeof host_path, "%s/%s", folder, name);
    snprintf(lock, sizeof lock, "%s/.%s.lock", folder, name);
    if (stat(lock, &st) != 0 || stat(host_path, &st) != 0 || index_of(folder, index, sizeof index))
        return 0;
    struct scope_convert_request req = {
        .journal_path = journal,
        .host_path = host_path,
        .index_path = index,
        .append = 1,
        .complete = 0,
        .err = err,
        .errlen = sizeof err,
    };
    if (scope_convert(&req) < 0) {
        fprintf(stderr, "scope: %s\n", err);
        *status = 1;
        return 1;
    }
    if (!quiet)
        printf("%s -> %s (rank %d, a group of its host's file)\n", journal, host_path,
               h.rank >= 0 ? h.rank : 0);
    *status = 0;
    return 1;
}

/* Recovers one journal into the ranks folder `folder`. Returns 0, or 1
 * when refused or failed. */
static int recover_one(const char *journal, const char *folder, int write_index)
{
    int fd = open(journal, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "scope: %s: %s\n", journal, strerror(errno));
        return 1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        fprintf(stderr, "scope: %s: still in use by a running process; not recovered\n",
                journal);
        close(fd);
        return 1;
    }
    /* the lock is kept while converting, so two recovers cannot race */
    char rank_path[PATH_MAX + 32], index[PATH_MAX], err[PATH_MAX + 256] = "";
    struct scope_journal_info info;
    int rc = scope_convert_journal_info(journal, &info, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "scope: %s\n", err);
        close(fd);
        return 1;
    }
    int rank = info.rank >= 0 ? info.rank : 0;
    int finalized = info.finalized;
    int64_t pid = info.pid;
    scope_rank_file_path(rank_path, sizeof rank_path, folder, rank);
    struct stat st;
    int leftover = 0;
    if (!in_host_file(folder, rank, pid) && recover_by_append(journal, folder, &rc)) {
        unlink(journal);
        close(fd);
        return rc;
    }
    if (in_host_file(folder, rank, pid)) {
        leftover = 1;
        snprintf(rank_path, sizeof rank_path, "%s/" SCOPE_HOST_FILE_PREFIX "*.h5", folder);
    } else if (stat(rank_path, &st) == 0) {
        /* The same process wrote it and died before removing its journal:
         * a leftover. Another process (an earlier run into the same
         * folder): recover beside it, never over it. */
        if (rank_file_pid(rank_path, rank) == pid)
            leftover = 1;
        else
            snprintf(rank_path, sizeof rank_path, "%s/rank%d.pid%lld.h5", folder, rank,
                     (long long)pid);
    }
    int have_index = index_of(folder, index, sizeof index) == 0;
    struct scope_convert_request req = {
        .journal_path = journal,
        .rank_path = rank_path,
        .index_path = have_index && write_index && stat(index, &st) != 0 ? index : NULL,
        .complete = 0,
        .err = err,
        .errlen = sizeof err,
    };
    if (leftover) {
        if (req.index_path) {
            req.index_only = 1;
            if (scope_convert(&req) < 0) {
                fprintf(stderr, "scope: %s\n", err);
                close(fd);
                return 1;
            }
        }
        if (!quiet)
            printf("%s: rank %d already has %s; removing the leftover journal\n", journal, rank,
                   rank_path);
    } else {
        rc = scope_convert(&req);
        if (rc < 0) {
            fprintf(stderr, "scope: %s\n", err);
            close(fd);
            return 1;
        }
        if (!quiet)
            printf("%s -> %s (rank %d%s)\n", journal, rank_path, rank,
                   finalized ? ", stopped during finalize" : "");
    }
    unlink(journal);
    close(fd);
    return 0;
}

/* The header of journal `path`, with its strings terminated. Returns 0,
 * or -1 when it cannot be read or is not a journal. */
static int read_header(const char *path, struct scope_journal_header *h)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = pread(fd, h, sizeof *h, 0);
    close(fd);
    if (r != (ssize_t)sizeof *h || memcmp(h->magic, SCOPE_JOURNAL_MAGIC, 8) != 0)
        return -1;
    h->hostname[sizeof h->hostname - 1] = 0;
    h->output[sizeof h->output - 1] = 0;
    return 0;
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

/* Hosts whose journals this invocation met outside the ranks folder
 * (a linear search: one entry per host, met once per journal). */
static struct seen_host {
    char name[256];
    int recovered, left;
} *seen;
static size_t n_seen, cap_seen;

/* The entry of `host`, added when new; NULL when out of memory. */
static struct seen_host *seen_of(const char *host)
{
    for (size_t i = 0; i < n_seen; i++)
        if (strcmp(seen[i].name, host) == 0)
            return &seen[i];
    if (n_seen == cap_seen) {
        size_t cap = cap_seen ? 2 * cap_seen : 64;
        struct seen_host *s = realloc(seen, cap * sizeof *s);
        if (!s)
            return NULL;
        seen = s;
        cap_seen = cap;
    }
    memset(&seen[n_seen], 0, sizeof *seen);
    snprintf(seen[n_seen].name, sizeof seen[n_seen].name, "%s", host);
    return &seen[n_seen++];
}

/* recover_one(jp, folder, 1), unless libhdf5 could not close a file
 * earlier in this run: its library state is then not to be trusted, and
 * the journal waits for the next run (said). Returns 0, or 1 when not
 * converted. */
static int recover_unless_broken(const char *jp, const char *folder)
{
    if (scope_convert_hdf5_broken()) {
        fprintf(stderr, "scope: %s: not converted this time (run scope recover again)\n", jp);
        return 1;
    }
    return recover_one(jp, folder, 1);
}

/* Reads the names in `d` that keep(name, arg) accepts into a new array
 * *names (each strdup'ed; the caller frees them and it) of *n, and closes
 * d. Returns 0, or -1 out of memory (said; nothing to free). Cost: one
 * pass over the folder. */
static int read_names(DIR *d, int (*keep)(const char *name, const void *arg), const void *arg,
                      char ***names, size_t *n)
{
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
        if (!(all[k] = strdup(e->d_name)))
            goto fail_memory;
        k++;
    }
    closedir(d);
    *names = all;
    *n = k;
    return 0;

fail_memory:
    for (size_t i = 0; i < k; i++)
        free(all[i]);
    free(all);
    closedir(d);
    fprintf(stderr, "scope: out of memory\n");
    return -1;
}

static int has_prefix(const char *name, const void *prefix)
{
    return strncmp(name, prefix, strlen(prefix)) == 0;
}

static int is_journal_file(const char *name, const void *unused)
{
    (void)unused;
    return is_journal_name(name);
}

/* Recovers into `folder` the journals of its run found in `dir` (a
 * journal folder apart from it), of `host` only unless NULL. Returns 0,
 * or 1 when any was refused or failed. */
static int recover_dir(const char *dir, const char *folder, const char *host, int *found)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "scope: --journals %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char prefix[300];
    snprintf(prefix, sizeof prefix, SCOPE_JOURNAL_PREFIX "%s%s", host ? host : "", host ? "." : "");
    char **names = NULL;
    size_t n = 0;
    if (read_names(d, has_prefix, prefix, &names, &n) < 0)
        return 1;
    int status = 0;
    for (size_t i = 0; i < n; i++) {
        char jp[PATH_MAX + 256];
        struct scope_journal_header h;
        snprintf(jp, sizeof jp, "%s/%s", dir, names[i]);
        free(names[i]);
        if (read_header(jp, &h) < 0 || !of_run(&h, folder))
            continue; /* another run's, or not a journal */
        (*found)++;
        struct seen_host *sh = seen_of(h.hostname);
        int rc = recover_unless_broken(jp, folder);
        status |= rc;
        if (sh) {
            sh->recovered += !rc;
            sh->left += rc;
        }
    }
    free(names);
    return status;
}

/* Follows the pointers journals.<host> of ranks folder `folder`: the
 * journals of each host are recovered when its folder is visible here;
 * when it is not, where to run recover is said. A pointer goes once
 * nothing of its host is left. Returns 0, or 1 when journals may remain. */
static int follow_pointers(const char *folder, int *found)
{
    DIR *d = opendir(folder);
    if (!d)
        return 0;
    char me[256] = "";
    gethostname(me, sizeof me - 1);
    size_t plen = strlen(SCOPE_JOURNAL_POINTER_PREFIX);
    int status = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, SCOPE_JOURNAL_POINTER_PREFIX, plen) != 0 ||
            strstr(e->d_name, ".tmp."))
            continue;
        const char *host = e->d_name + plen;
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
            status |= recover_dir(dir, folder, host, found);
        struct seen_host *sh = seen_of(host);
        int left = sh ? sh->left : 1;
        int here = strcmp(me, host) == 0 || (sh && sh->recovered);
        if (here && !left) {
            unlink(ptr);
            continue;
        }
        if (here)
            continue; /* what failed was said */
        /* a journal there may have become a file anyway (the death
         * handler on a catchable signal, a writer after a late start):
         * every rank reachable through the index says nothing is left */
        char index[PATH_MAX];
        struct stat ist;
        if (index_of(folder, index, sizeof index) == 0 && stat(index, &ist) == 0 &&
            !scope_convert_hdf5_broken()) {
            char err[PATH_MAX + 256] = "";
            if (scope_convert_index_repair(index, folder, err, sizeof err) >= 0 &&
                scope_convert_index_broken(index) == 0) {
                unlink(ptr);
                continue;
            }
        }
        fprintf(stderr, "scope: %s: host %s kept its journals in %s, %s; a process of that host "
                "that died left its journal there: run `scope recover %s` on %s (node-local "
                "storage is seen only there, and the scheduler may clean it when the job ends), "
                "or `scope recover --journals DIR %s` where that folder is mounted as DIR\n",
                ptr, host, dir, visible ? "which here (on a different host) holds none of them"
                                        : "not visible here", folder, host, folder);
        status = 1;
    }
    closedir(d);
    return status;
}

static int recover_path(const char *path, char *const *jdirs, size_t n_jdirs, int *found)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (is_journal_name(base)) {
            (*found)++;
            /* a journal outside its ranks folder (SCOPE_JOURNAL_DIR) goes
             * to the run it names when that is here */
            char folder[PATH_MAX], idx[PATH_MAX];
            struct scope_journal_header h;
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
            return recover_one(path, folder, 1);
        }
    }
    char folder[PATH_MAX];
    folder_of(path, folder, sizeof folder);
    DIR *d = opendir(folder);
    if (!d) {
        fprintf(stderr, "scope: %s: %s\n", folder, strerror(errno));
        return 1;
    }
    remove_stale_temporaries(folder);
    /* rank 0's journal first, so that the index it writes carries its
     * metadata; any journal writes it when rank 0 finished cleanly */
    char **names = NULL;
    size_t n = 0;
    if (read_names(d, is_journal_file, NULL, &names, &n) < 0)
        return 1;
    int status = 0;
    for (size_t i = 0; i < n; i++) {
        char jp[PATH_MAX + 256];
        snprintf(jp, sizeof jp, "%s/%s", folder, names[i]);
        (*found)++;
        status |= recover_unless_broken(jp, folder);
        free(names[i]);
    }
    free(names);
    for (size_t i = 0; i < n_jdirs; i++)
        status |= recover_dir(jdirs[i], folder, NULL, found);
    status |= follow_pointers(folder, found);
    /* links of ranks whose host file lacks them (a host writer that
     * failed, a rank that died) now lead to the rank files written */
    char index[PATH_MAX];
    if (index_of(folder, index, sizeof index) == 0 && stat(index, &st) == 0 &&
        !scope_convert_hdf5_broken()) {
        char err[PATH_MAX + 256] = "";
        int fixed = scope_convert_index_repair(index, folder, err, sizeof err);
        if (fixed < 0) {
            fprintf(stderr, "scope: %s\n", err);
            status |= 1;
        } else if (fixed > 0 && !quiet) {
            printf("%s: %d link%s repaired\n", index, fixed, fixed == 1 ? "" : "s");
        }
    }
    if (status == 0)
        remove_markers(folder);
    return status;
}

int scope_cmd_recover(int argc, char **argv)
{
    static const struct option opts[] = {
        { "quiet", no_argument, NULL, 'q' },
        { "journals", required_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char *jdirs[64];
    size_t n_jdirs = 0;
    int c;
    opterr = 0;     /* one message, ours, not getopt's as well */
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        if (c == 'q') {
            quiet = 1;
        } else if (c == 'j') {
            if (n_jdirs == sizeof jdirs / sizeof *jdirs)
                return scope__usage_error("recover", "--journals given more than 64 times");
            jdirs[n_jdirs++] = optarg;
        } else if (c == 'h') {
            fputs(recover_help, stdout);
            return 0;
        } else {
            return scope__option_error("recover", c, argv);
        }
    }
    if (optind >= argc)
        return scope__usage_error("recover", "no PATH given");
    int status = 0, found = 0;
    for (int i = optind; i < argc; i++)
        status |= recover_path(argv[i], jdirs, n_jdirs, &found);
    if (!found && !quiet)
        printf("nothing to recover\n");
    if (scope_convert_hdf5_broken()) {
        /* libhdf5's exit handler would crash on the file it could not
         * close (scope_convert_hdf5_broken) */
        fflush(stdout);
        fflush(stderr);
        _exit(status | 1);
    }
    return status;
}
