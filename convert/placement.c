/*
 * placement.c - puts a written rank file in place without ever replacing
 * the rank file of another process of the same run, and keeps the index
 * linking every rank file a run produced, collisions included.
 *
 * Two processes of one run can claim one rank: a launcher that started
 * singletons (srun --mpi=none with MPICH), an MPI whose rank the preload
 * could not read, a user who started two jobs into one output. Renaming
 * over the first file would lose it silently. So a rank file is put in
 * place with renameat2(RENAME_NOREPLACE) (link + unlink where the file
 * system refuses that), and when the name is taken by a file of this run,
 * the newcomer goes to rank<N>.collision<K>.h5 instead: both datasets are
 * kept, the index links the second as /rank<N>.collision<K> (a name the
 * reader does not take for a rank, so the run's ranks stay 0..size-1), and
 * the index's /metadata rank_collisions counts such links.
 *
 * "Of this run" means written after this process started recording (the
 * journal's start_realtime_ns): the processes of one run overlap in time,
 * while a file left by an earlier run into the same output is older and is
 * replaced as before. The decision and the index updates are made under an
 * exclusive flock on the ranks folder, so that two writers finishing at
 * once see each other's files.
 */
#include <dirent.h>
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

#include "h5_util.h"
#include "h5writer.h"
#include "scope_error.h"
#include "scope_format.h"
#include "scope_h5_read.h"

#define MAX_COLLISIONS 9999

int scope__ranks_lock(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
        ;
    return fd; /* a file system without flock: proceed unlocked */
}

/* scope__ranks_lock on the folder that holds `path`. */
static int lock_dir_of(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    return scope__ranks_lock(dir);
}

void scope__ranks_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the flock */
}

/* 1 when `path` is a regular HDF5 file with scope's root attributes. */
static int is_profile(const char *path)
{
    if (H5Fis_hdf5(path) <= 0)
        return 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return 0;
    int profile = H5Aexists(f, SCOPE_A_FORMAT) > 0 || H5Aexists(f, SCOPE_A_SCHEMA) > 0;
    H5Fclose(f);
    return profile;
}

static int64_t mtime_ns(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Renames tmp to path unless path exists. Returns 0, 1 when path exists,
 * -1 with errno on another failure. Falls back to link + unlink on file
 * systems without RENAME_NOREPLACE. */
static int rename_noreplace(const char *tmp, const char *path)
{
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno == EEXIST)
        return 1;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return -1;
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return 0;
    }
    if (errno == EEXIST)
        return 1;
    if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP)
        return -1;
    struct stat st; /* neither: a check, then rename (the lock is held) */
    if (lstat(path, &st) == 0)
        return 1;
    return rename(tmp, path) == 0 ? 0 : -1;
}

/* Puts tmp at path unless another process of this run has it: returns 0
 * (placed), 1 (taken by this run: a collision), or SCOPE_EIO /
 * SCOPE_EACCES with a message in err. Caller holds the folder's lock. */
/* What a rename of the file to `path` that returned `renamed` (0 or -1
 * with errno) means: 0 with `placed` set, or SCOPE_EIO said in err. */
static int renamed_to(int renamed, const char *path, char *placed, size_t placed_len, char *err,
                      size_t errlen)
{
    if (renamed < 0) {
        snprintf(err, errlen, "%s: cannot rename into place: %s", path, strerror(errno));
        return SCOPE_EIO;
    }
    snprintf(placed, placed_len, "%s", path);
    return 0;
}

static int place_plain(const char *tmp, const char *path, int64_t since_ns, char *placed,
                       size_t placed_len, char *err, size_t errlen)
{
    int rc = rename_noreplace(tmp, path);
    if (rc <= 0)
        return renamed_to(rc, path, placed, placed_len, err, errlen);
    struct stat st;
    if (lstat(path, &st) < 0) /* removed meanwhile: try once more */
        return renamed_to(rename_noreplace(tmp, path) == 0 ? 0 : -1, path, placed, placed_len,
                          err, errlen);
    int profile = S_ISREG(st.st_mode) && is_profile(path);
    if (!profile && !S_ISLNK(st.st_mode)) {
        snprintf(err, errlen, "%s exists and is not a scope profile; not replaced (the profile "
                 "is left in %s)", path, tmp);
        return SCOPE_EACCES;
    }
    if (!profile || mtime_ns(&st) < since_ns) {
        /* a symlink (replaced, never followed) or an earlier run's file */
        return renamed_to(rename(tmp, path), path, placed, placed_len, err, errlen);
    }
    return 1;   /* another process of this run wrote this rank */
}

/* Puts tmp at the first free "<path minus .h5>.collision<K>.h5": returns
 * 1, or SCOPE_EACCES with a message in err when none is free. Caller holds
 * the folder's lock. */
static int place_collision(const char *tmp, const char *path, char *placed, size_t placed_len,
                           char *err, size_t errlen)
{
    for (long k = 1; k <= MAX_COLLISIONS; k++) {
        char alt[PATH_MAX + 32];
        int n = scope_collision_path(alt, sizeof alt, path, k);
        if (n < 0 || (size_t)n >= sizeof alt)
            break;
        int r = rename_noreplace(tmp, alt);
        if (r == 0) {
            snprintf(placed, placed_len, "%s", alt);
            return 1;
        }
        if (r < 0)
            break;
    }
    snprintf(err, errlen, "%s was written by another process of this run and no collision "
             "name is free; this process's profile is left in %s", path, tmp);
    return SCOPE_EACCES;
}

int scope__place_rank_file(const char *tmp, const char *path, int64_t since_ns, int yield,
                           char *placed, size_t placed_len, char *err, size_t errlen)
{
    int lock = lock_dir_of(path);
    int rc = yield ? 1 : place_plain(tmp, path, since_ns, placed, placed_len, err, errlen);
    if (rc == 1)    /* keep both: ours under a collision name */
        rc = place_collision(tmp, path, placed, placed_len, err, errlen);
    scope__ranks_unlock(lock);
    return rc;
}

/* Sets the int64 attribute `name` of `obj`, replacing an earlier value. */
static int set_i64(hid_t obj, const char *name, int64_t v)
{
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    return scope__h5_attr_i64(obj, name, v);
}

static herr_t count_cb(hid_t g, const char *name, const H5L_info_t *info, void *arg)
{
    (void)g;
    (void)info;
    if (scope_is_collision_name(name, ""))
        ++*(int64_t *)arg;
    return 0;
}

/* Links <ranks>/<file> as /<file minus .h5> (its group is /rank<N>). */
static int link_collision(hid_t index, const char *dir_base, const char *file)
{
    char link[NAME_MAX + 1], target[PATH_MAX + NAME_MAX + 2], obj[NAME_MAX + 2];
    snprintf(link, sizeof link, "%.*s", (int)(strlen(file) - 3), file);
    if (H5Lexists(index, link, H5P_DEFAULT) > 0)
        return 0;
    snprintf(target, sizeof target, "%s/%s", dir_base, file);
    size_t digits = strspn(file + 4, "0123456789");
    snprintf(obj, sizeof obj, "/%.*s", (int)(4 + digits), file);
    return H5Lcreate_external(target, obj, index, link, H5P_DEFAULT, H5P_DEFAULT) < 0 ? -1 : 0;
}

int scope__index_link_collisions(hid_t index, const char *ranks_dir, int64_t since_ns)
{
    const char *dir_base = strrchr(ranks_dir, '/') ? strrchr(ranks_dir, '/') + 1 : ranks_dir;
    int rc = 0;
    DIR *d = opendir(ranks_dir);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!scope_is_collision_name(e->d_name, ".h5"))
                continue;
            struct stat st;
            if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                !S_ISREG(st.st_mode) || mtime_ns(&st) < since_ns)
                continue; /* an earlier run's */
            if (link_collision(index, dir_base, e->d_name) < 0)
                rc = -1;
        }
        closedir(d);
    }
    int64_t n = 0;
    hsize_t idx = 0;
    H5Literate(index, H5_INDEX_NAME, H5_ITER_INC, &idx, count_cb, &n);
    hid_t g = H5Gopen2(index, SCOPE_G_METADATA, H5P_DEFAULT);
    if (g < 0)
        return -1;
    if (set_i64(g, SCOPE_A_RANK_COLLISIONS, n) < 0)
        rc = -1;
    H5Gclose(g);
    return rc;
}

/* Opens this run's index (if it is already there) and runs `link` on it,
 * under the ranks folder's lock; the rank files and the host files relink
 * their collisions the same way. Returns 0 or SCOPE_EHDF5. */
static int relink_index(const char *index_path, const char *ranks_dir, int64_t since_ns,
                        int (*link)(hid_t, const char *, int64_t))
{
    int lock = scope__ranks_lock(ranks_dir);
    int rc = 0;
    struct stat st;
    /* no index yet, or an earlier run's: rank 0 writes it later and
     * links every collision file it finds then */
    if (stat(index_path, &st) < 0 || mtime_ns(&st) < since_ns || !is_profile(index_path))
        goto out;
    hid_t f = H5Fopen(index_path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) {
        rc = SCOPE_EHDF5;
        goto out;
    }
    if (link(f, ranks_dir, since_ns) < 0)
        rc = SCOPE_EHDF5;
    if (H5Fclose(f) < 0)
        rc = SCOPE_EHDF5;
out:
    scope__ranks_unlock(lock);
    return rc;
}

int scope__index_note_collision(const char *index_path, const char *ranks_dir, int64_t since_ns)
{
    return relink_index(index_path, ranks_dir, since_ns, scope__index_link_collisions);
}

/* ------------------------------------------------------------ host files */

/* Collects the rank<N> groups of a file's root (iteration callback). */
struct rank_list {
    int *r;
    size_t n, cap;
};

static herr_t list_ranks_cb(hid_t g, const char *name, const H5L_info_t *info, void *arg)
{
    (void)g;
    (void)info;
    struct rank_list *l = arg;
    if (strncmp(name, SCOPE_G_RANK_PREFIX, 4) != 0 || name[4] < '0' || name[4] > '9')
        return 0;
    char *end;
    long v = strtol(name + 4, &end, 10);
    if (*end || v > INT32_MAX)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        int *q = realloc(l->r, cap * sizeof *q);
        if (!q)
            return -1;
        l->r = q;
        l->cap = cap;
    }
    l->r[l->n++] = (int)v;
    return 0;
}

/* The ranks whose groups `path` holds. Returns 0 (list filled, maybe
 * empty) or -1. */
static int file_ranks(const char *path, struct rank_list *l)
{
    l->n = 0;
    if (H5Fis_hdf5(path) <= 0)
        return -1;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return -1;
    hsize_t idx = 0;
    herr_t rc = H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, &idx, list_ranks_cb, l);
    H5Fclose(f);
    return rc < 0 ? -1 : 0;
}

/* Points /rank<r> of the index at /rank<r> of <dir_base>/<file>. */
static int relink(hid_t index, const char *dir_base, const char *file, int r)
{
    char link[32], target[PATH_MAX + NAME_MAX + 2];
    snprintf(link, sizeof link, SCOPE_G_RANK_FMT, r);
    snprintf(target, sizeof target, "%s/%s", dir_base, file);
    char obj[40];
    snprintf(obj, sizeof obj, "/%s", link);
    if (H5Lexists(index, link, H5P_DEFAULT) > 0 && H5Ldelete(index, link, H5P_DEFAULT) < 0)
        return -1;
    return H5Lcreate_external(target, obj, index, link, H5P_DEFAULT, H5P_DEFAULT) < 0 ? -1 : 0;
}

int scope__index_link_host_collisions(hid_t index, const char *ranks_dir, int64_t since_ns)
{
    const char *dir_base = strrchr(ranks_dir, '/') ? strrchr(ranks_dir, '/') + 1 : ranks_dir;
    DIR *d = opendir(ranks_dir);
    if (d == NULL)
        return 0;
    struct rank_list l = { 0 };
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!scope_is_host_file(e->d_name) || !strstr(e->d_name, SCOPE_G_COLLISION_SUFFIX))
            continue;
        struct stat st;
        char path[PATH_MAX + NAME_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", ranks_dir, e->d_name);
        if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || mtime_ns(&st) < since_ns)
            continue; /* an earlier run's */
        if (file_ranks(path, &l) < 0) {
            rc = -1;
            continue;
        }
        for (size_t i = 0; i < l.n; i++)
            if (relink(index, dir_base, e->d_name, l.r[i]) < 0)
                rc = -1;
    }
    closedir(d);
    free(l.r);
    return rc;
}

int scope__index_note_host_collision(const char *index_path, const char *ranks_dir,
                                     int64_t since_ns)
{
    return relink_index(index_path, ranks_dir, since_ns, scope__index_link_host_collisions);
}

/* The index's /metadata mpi_size: the ranks it should link; 0 when it
 * has none or it cannot be read. */
static int64_t index_size(hid_t f)
{
    int64_t size = 0;
    hid_t g = H5Gopen2(f, SCOPE_G_METADATA, H5P_DEFAULT);
    if (g >= 0) {
        hid_t a = H5Aopen(g, SCOPE_A_MPI_SIZE, H5P_DEFAULT);
        if (a >= 0) {
            if (H5Aread(a, H5T_NATIVE_INT64, &size) < 0)
                size = 0;
            H5Aclose(a);
        }
        H5Gclose(g);
    }
    return size;
}

/* 1 when the index's /rank<r> leads to an object (its file and group
 * exist). */
static int link_ok(hid_t index, int r)
{
    char link[32];
    snprintf(link, sizeof link, SCOPE_G_RANK_FMT, r);
    return H5Lexists(index, link, H5P_DEFAULT) > 0 &&
           H5Oexists_by_name(index, link, H5P_DEFAULT) > 0;
}

int scope_convert_index_repair(const char *index_path, const char *ranks_dir, char *err,
                               size_t errlen)
{
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet); /* broken links are what we look for */
    int lock = scope__ranks_lock(ranks_dir);
    int fixed = 0;
    char *broken = NULL;
    struct rank_list l = { 0 };
    /* read-only first: an index whose links all lead somewhere is left
     * untouched (not even its modification time changes) */
    hid_t f = H5Fopen(index_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        snprintf(err, errlen, "%s: cannot open the index to repair its links", index_path);
        fixed = SCOPE_EHDF5;
        goto out;
    }
    int64_t size = index_size(f);
    if (size <= 0 || size > INT32_MAX)
        goto done;
    broken = calloc((size_t)size, 1);
    if (!broken)
        goto done;
    size_t n_broken = 0;
    for (int64_t r = 0; r < size; r++)
        if (!link_ok(f, (int)r)) {
            broken[r] = 1;
            n_broken++;
        }
    if (!n_broken)
        goto done;
    H5Fclose(f);
    if ((f = H5Fopen(index_path, H5F_ACC_RDWR, H5P_DEFAULT)) < 0) {
        snprintf(err, errlen, "%s: cannot open the index to repair its links", index_path);
        fixed = SCOPE_EHDF5;
        goto out;
    }
    const char *dir_base = strrchr(ranks_dir, '/') ? strrchr(ranks_dir, '/') + 1 : ranks_dir;
    DIR *d = opendir(ranks_dir);
    struct dirent *e;
    while (d && n_broken && (e = readdir(d)) != NULL) {
        if (!scope_is_host_file(e->d_name) && !scope_is_rank_file(e->d_name))
            continue;
        char path[PATH_MAX + NAME_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", ranks_dir, e->d_name);
        if (file_ranks(path, &l) < 0)
            continue;
        for (size_t i = 0; i < l.n; i++) {
            int r = l.r[i];
            if (r >= size || !broken[r])
                continue;
            /* rank<N>.collision<K>.h5 holds another process's /rank<N> */
            if (scope_is_rank_file(e->d_name) && strstr(e->d_name, SCOPE_G_COLLISION_SUFFIX))
                continue;
            if (relink(f, dir_base, e->d_name, r) == 0 && link_ok(f, r)) {
                broken[r] = 0;
                n_broken--;
                fixed++;
            }
        }
    }
    if (d)
        closedir(d);
done:
    if (H5Fclose(f) < 0 && fixed >= 0) {
        snprintf(err, errlen, "%s: cannot write the repaired links", index_path);
        fixed = SCOPE_EHDF5;
    }
out:
    free(broken);
    free(l.r);
    scope__ranks_unlock(lock);
    scope_h5_quiet_end(&quiet);
    return fixed;
}

int scope_convert_index_broken(const char *index_path)
{
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet); /* broken links are what we count */
    int broken = SCOPE_EHDF5;
    int64_t size = 0;
    hid_t f = H5Fopen(index_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        goto out;
    size = index_size(f);
    broken = 0;
    for (int64_t r = 0; r < size && r <= INT32_MAX; r++)
        broken += !link_ok(f, (int)r);
    H5Fclose(f);
out:
    scope_h5_quiet_end(&quiet);
    return broken;
}
