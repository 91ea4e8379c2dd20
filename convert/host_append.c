/*
 * host_append.c - one file per host without MPI: a process that records
 * but has no MPI to hand its journal to a host leader (a serial program,
 * several serial processes of one job writing to one output, an MPI the
 * preload cannot use) adds its group to its host's file,
 * <output>.ranks/host-<hostname>.h5, under a lock, and links it in the
 * index (docs/format.md "Host files without MPI"): the request's
 * SCOPE_CONVERT_APPEND mode. Asked for with
 * SCOPE_HOST_FILES=1; runtime/recorder.c starts `scope-h5write --append`.
 *
 * Under the host's lock (an exclusive flock on .host-<hostname>.h5.lock
 * in the ranks folder, a file of its own: the host file is replaced, so
 * its inode cannot carry the lock):
 *   1. the host file, when this run already wrote it (newer than this
 *      process's start; an older one is an earlier run's and is replaced,
 *      as a rank file is), is copied to host-<name>.h5.tmp.<pid>;
 *      otherwise the temporary starts empty, with this journal's root
 *      attributes and /metadata;
 *   2. the journal's group is added: /rank<N>, or /rank<N>.collision<K>
 *      when the file has a /rank<N> already (serial processes are all
 *      rank 0 of 1, as they are today in rank files);
 *   3. the summary table (host_summary.c) is rewritten from all groups,
 *      ours included, and the temporary is fsync'd and renamed over the
 *      host file;
 *   4. under the ranks folder's lock (the index is one for all hosts), the
 *      index gets a link to the group: /rank<N>, or /rank<N>.collision<K>
 *      when the index has /rank<N> already (counted in rank_collisions, as
 *      placement.c does for rank files); the index is created first when
 *      this run has none yet;
 *   5. the journal is removed.
 * A process that dies anywhere in this leaves the host file as it was
 * before (a reader sees the old file or the new one, never half of one),
 * its journal in place for `scope recover`, and at worst a temporary that
 * `scope recover` removes. The cost is a copy of the host file per
 * process: this is for the few processes per host of serial jobs; MPI
 * ranks hand their journals to one writer per host instead.
 *
 * When the lock cannot be had (a file system without flock, e.g. NFS
 * mounted with nolock), appending is unsafe: the journal becomes a rank
 * file as without SCOPE_HOST_FILES, and that is said.
 */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert_warn.h"
#include "h5writer.h"
#include "scope_error.h"
#include "scope_format.h"

#define ASIDE ".scope_aside" /* /rank<N> of the file while ours is written */
#define MAX_COLLISIONS 9999

static int64_t mtime_ns(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Whether `path` is this run's (written since `since` ns) scope file. */
static int of_this_run(const char *path, int64_t since)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && mtime_ns(&st) >= since &&
           H5Fis_hdf5(path) > 0;
}

/* "rank<N>" when free in `loc` (and `yield` is 0: see
 * scope__conv_yields_rank), else the first free "rank<N>.collision<K>".
 * Returns 0 for rank<N>, K, or -1 when none is free. */
static int free_name(hid_t loc, int rank, int yield, char *out, size_t len)
{
    snprintf(out, len, SCOPE_G_RANK_FMT, rank);
    if (!yield && H5Lexists(loc, out, H5P_DEFAULT) <= 0)
        return 0;
    for (int k = 1; k <= MAX_COLLISIONS; k++) {
        snprintf(out, len, SCOPE_G_RANK_FMT SCOPE_G_COLLISION_SUFFIX "%d", rank, k);
        if (H5Lexists(loc, out, H5P_DEFAULT) <= 0)
            return k;
    }
    return -1;
}

/* Copies `from` to a new file `to`. Returns 0 or an errno value. */
static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return errno;
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (out < 0) {
        int e = errno;
        close(in);
        return e;
    }
    char buf[1 << 16];
    ssize_t r;
    int e = 0;
    while ((r = read(in, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR)) {
        for (ssize_t done = 0; r > 0 && done < r;) {
            ssize_t w = write(out, buf + done, (size_t)(r - done));
            if (w < 0 && errno != EINTR) {
                e = errno;
                break;
            }
            done += w > 0 ? w : 0;
        }
        if (e)
            break;
    }
    if (r < 0 && !e)
        e = errno;
    close(in);
    if (close(out) < 0 && !e)
        e = errno;
    return e;
}

/* The temporary with this run's groups so far plus ours under `group`
 * (step 1-3 of the file comment). Returns 0 or SCOPE_E* with a message. */
static int write_group(const struct scope_convert_request *req, struct conv *c, const char *tmp,
                       int64_t since, char *group, size_t glen)
{
    const char *path = req->append.host_path;
    struct stat st;
    hid_t f;
    unlink(tmp);
    if (lstat(path, &st) == 0 && (!S_ISREG(st.st_mode) || H5Fis_hdf5(path) <= 0)) {
        snprintf(req->err, req->errlen, "%s: is not a scope profile; not replaced", path);
        return SCOPE_EIO;
    }
    if (of_this_run(path, since)) {
        int e = copy_file(path, tmp);
        if (e) {
            unlink(tmp);
            snprintf(req->err, req->errlen, "%s: cannot copy to %s: %s", path, tmp, strerror(e));
            return SCOPE_EIO;
        }
        f = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
        if (f < 0) {
            unlink(tmp);
            snprintf(req->err, req->errlen, "%s: cannot open its copy %s", path, tmp);
            return SCOPE_EHDF5;
        }
    } else {
        f = scope__conv_create(req, tmp, path);
        if (f < 0)
            return (int)f;
        if (scope__conv_write_metadata(c, f) < 0)
            return scope__conv_close_sync(req, f, SCOPE_EHDF5, tmp, path);
    }
    int rank = scope__conv_rank(c);
    int k = free_name(f, rank, scope__conv_yields_rank(c), group, glen);
    int rc = k < 0 ? SCOPE_ELIMIT : 0;
    char plain[32];
    snprintf(plain, sizeof plain, SCOPE_G_RANK_FMT, rank);
    /* the converter writes /rank<N>: the group there steps aside (a process
     * that yields the rank may find none there) */
    int aside = rc == 0 && k > 0 && H5Lexists(f, plain, H5P_DEFAULT) > 0;
    if (aside && H5Lmove(f, plain, f, ASIDE, H5P_DEFAULT, H5P_DEFAULT) < 0)
        rc = SCOPE_EHDF5;
    if (rc == 0)
        rc = scope__conv_write_rank(c, f, NULL);
    if (rc == 0 && k > 0 && H5Lmove(f, plain, f, group, H5P_DEFAULT, H5P_DEFAULT) < 0)
        rc = SCOPE_EHDF5;
    if (rc == 0 && aside && H5Lmove(f, ASIDE, f, plain, H5P_DEFAULT, H5P_DEFAULT) < 0)
        rc = SCOPE_EHDF5;
    /* the table lists every group of the file: rewritten with ours in it
     * (a table left as it was would miss our rank, and the reader would
     * fall back to reading the groups; rewritten, it stays one read) */
    if (rc == 0)
        rc = scope__host_summary_write(f);
    if (rc < 0 && !req->err[0])
        snprintf(req->err, req->errlen, "%s: cannot add %s: %s", path, group, scope_strerror(rc));
    return scope__conv_close_sync(req, f, rc, tmp, path);
}

static herr_t count_cb(hid_t g, const char *name, const H5L_info_t *info, void *arg)
{
    (void)g;
    (void)info;
    if (strstr(name, SCOPE_G_COLLISION_SUFFIX))
        ++*(int64_t *)arg;
    return 0;
}

/* Step 4: links /<group> of the host file in the index (created when this
 * run has none). Caller holds the host's lock. Returns 0 or SCOPE_E*. */
static int link_group(const struct scope_convert_request *req, struct conv *c, int64_t since,
                      const char *group)
{
    const char *index = req->index_path;
    char dir[PATH_MAX], tmp[PATH_MAX + 64], target[2 * PATH_MAX + 2], link[64], obj[80];
    snprintf(dir, sizeof dir, "%s", req->append.host_path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    const char *dir_base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    const char *host_path = req->append.host_path;
    const char *file = strrchr(host_path, '/') ? strrchr(host_path, '/') + 1 : host_path;
    snprintf(target, sizeof target, "%s/%s", dir_base, file);
    snprintf(obj, sizeof obj, "/%s", group);
    int lock = scope__ranks_lock(dir);
    int rc = 0;
    hid_t f = H5I_INVALID_HID;
    if (!of_this_run(index, since)) {
        /* none yet, or an earlier run's: this run's starts with us */
        scope_tmp_path(tmp, sizeof tmp, index, (long)getpid());
        unlink(tmp);
        f = H5Fcreate(tmp, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
        rc = f < 0 ? SCOPE_EIO : scope__conv_write_metadata(c, f);
        if (f >= 0 && H5Fclose(f) < 0)
            rc = SCOPE_EIO;
        if (rc == 0 && rename(tmp, index) < 0)
            rc = SCOPE_EIO;
        if (rc < 0) {
            unlink(tmp);
            snprintf(req->err, req->errlen, "%s: cannot create the index", index);
            goto out;
        }
    }
    f = H5Fopen(index, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) {
        rc = SCOPE_EHDF5;
        snprintf(req->err, req->errlen, "%s: cannot open the index", index);
        goto out;
    }
    int k = free_name(f, scope__conv_rank(c), scope__conv_yields_rank(c), link, sizeof link);
    if (k < 0 || H5Lcreate_external(target, obj, f, link, H5P_DEFAULT, H5P_DEFAULT) < 0)
        rc = SCOPE_EHDF5;
    if (rc == 0 && k > 0) {
        int64_t n = 0;
        hsize_t idx = 0;
        H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, &idx, count_cb, &n);
        hid_t g = H5Gopen2(f, SCOPE_G_METADATA, H5P_DEFAULT);
        if (g >= 0 && H5Aexists(g, SCOPE_A_RANK_COLLISIONS) > 0)
            H5Adelete(g, SCOPE_A_RANK_COLLISIONS);
        hid_t sp = H5Screate(H5S_SCALAR);
        hid_t a = g < 0 ? H5I_INVALID_HID
                        : H5Acreate2(g, SCOPE_A_RANK_COLLISIONS, H5T_STD_I64LE, sp, H5P_DEFAULT,
                                     H5P_DEFAULT);
        if (a < 0 || H5Awrite(a, H5T_NATIVE_INT64, &n) < 0)
            rc = SCOPE_EHDF5;
        if (a >= 0)
            H5Aclose(a);
        H5Sclose(sp);
        if (g >= 0)
            H5Gclose(g);
    }
    if (H5Fclose(f) < 0)
        rc = SCOPE_EIO;
    if (rc < 0)
        snprintf(req->err, req->errlen, "%s: cannot link %s of %s", index, group, target);
out:
    scope__ranks_unlock(lock);
    return rc;
}

/* The lock's path (format/scope_paths.h). Returns 0, or -1 when cut. */
static int lock_path(const char *host_path, char *out, size_t len)
{
    int n = scope_host_lock_path(out, len, host_path);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* No lock to be had: the journal becomes rank<N>.h5 as without host
 * files, in this mode's own call (not a second scope_convert()). */
static int as_rank_file(const struct scope_convert_request *req, const char *why)
{
    char rank_path[PATH_MAX + 32];
    struct conv *c = NULL;
    if (scope__conv_open(&c, req, req->append.journal_path, 0) < 0)
        return SCOPE_EJOURNAL;
    int rank = scope__conv_rank(c);
    scope__conv_free(c);
    scope_rank_file_beside(rank_path, sizeof rank_path, req->append.host_path, rank);
    scope__convert_warn(req, "%s: %s; %s is written as %s instead", req->append.host_path, why,
                        req->append.journal_path, rank_path);
    struct scope_convert_request sub = scope_request_rank(req->append.journal_path, rank_path,
                                                          req->index_path, req->complete,
                                                          req->err, req->errlen);
    sub.warn = req->warn;
    sub.warn_arg = req->warn_arg;
    req->err[0] = 0;
    int rc = scope__convert_rank(&sub);
    if (rc == 0)
        unlink(req->append.journal_path);
    return rc;
}

int scope__convert_host_append(const struct scope_convert_request *req)
{
    char lock[PATH_MAX + 16], tmp[PATH_MAX + 64], group[64];
    if (lock_path(req->append.host_path, lock, sizeof lock) < 0 ||
        scope_tmp_path(tmp, sizeof tmp, req->append.host_path, (long)getpid()) >=
            (int)sizeof tmp) {
        snprintf(req->err, req->errlen, "%s: path too long", req->append.host_path);
        return SCOPE_ELIMIT;
    }
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) {
        snprintf(req->err, req->errlen, "%s: cannot open the host's lock: %s", lock,
                 strerror(errno));
        return SCOPE_EIO;
    }
    int r;
    while ((r = flock(fd, LOCK_EX)) < 0 && errno == EINTR)
        ;
    if (r < 0) {
        char why[PATH_MAX + 128];
        snprintf(why, sizeof why, "cannot lock %s (%s)", lock, strerror(errno));
        close(fd);
        return as_rank_file(req, why);
    }
    struct conv *c = NULL;
    int rc = scope__conv_open(&c, req, req->append.journal_path, 1);
    if (rc == 0) {
        int64_t since = scope__conv_since(c);
        rc = write_group(req, c, tmp, since, group, sizeof group);
        if (rc == 0 && rename(tmp, req->append.host_path) < 0) {
            snprintf(req->err, req->errlen, "%s: cannot rename %s over it: %s",
                     req->append.host_path, tmp, strerror(errno));
            unlink(tmp);
            rc = SCOPE_EIO;
        }
        /* the group is in place: a failing index is said, and the
         * journal stays for `scope recover`, which repairs the links */
        if (rc == 0 && req->index_path)
            rc = link_group(req, c, since, group);
        if (rc == 0)
            unlink(req->append.journal_path);
        scope__conv_free(c);
    }
    close(fd); /* releases the lock */
    return rc;
}
