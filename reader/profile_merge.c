/*
 * profile_merge.c - writes an opened profile into one self-contained file
 * of the same layout (docs/format.md): root attributes, /metadata and one
 * /rank<N> group per rank. This is `scope merge`: a run of thousands of
 * rank files becomes one file that can be copied, mailed or archived, and
 * that opens in h5py and scope-profiler without the rank folder.
 *
 * Rank groups of our layout (rank files, index targets, merged files,
 * scope-profiler schema 1) are copied whole with H5Ocopy, so attributes,
 * thread tables, compression and unknown objects all survive unchanged.
 * Ranks read from scope-profiler's columnar schemas 2 and 3 have no group
 * to copy; they are written in the group layout from the reader's arrays.
 *
 * The file is written under a temporary name in the destination's folder
 * and renamed when complete, so the final name never holds half a file.
 * An existing file is replaced only when it is itself a profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader_internal.h"

/* docs/format.md "Names": '%' -> %25, '/' -> %2F, a lone '.' -> %2E. */
static char *encode_link(const char *name)
{
    if (strcmp(name, ".") == 0)
        return strdup("%2E");
    size_t n = 0;
    for (const char *s = name; *s; s++)
        n += (*s == '%' || *s == '/') ? 3 : 1;
    char *out = malloc(n + 1), *q = out;
    if (!out)
        return NULL;
    for (const char *s = name; *s; s++) {
        if (*s == '%' || *s == '/') {
            memcpy(q, *s == '%' ? "%25" : "%2F", 3);
            q += 3;
        } else {
            *q++ = *s;
        }
    }
    *q = '\0';
    return out;
}

static int attr_i64(hid_t obj, const char *name, int64_t v)
{
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, s, H5P_DEFAULT,
                         H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, &v) >= 0 ? 0 : -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    return rc;
}

/* A variable-length UTF-8 string attribute, as h5py writes str. */
static int attr_str(hid_t obj, const char *name, const char *v)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, t, &v) >= 0 ? 0 : -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    return rc;
}

static int write_i64(hid_t g, const char *name, const int64_t *v, int64_t n)
{
    hsize_t dim = (hsize_t)n;
    hid_t s = H5Screate_simple(1, &dim, NULL);
    hid_t d = H5Dcreate2(g, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    int rc = d >= 0 && (n == 0 || H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL,
                                           H5S_ALL, H5P_DEFAULT, v) >= 0)
             ? 0 : -1;
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(s);
    return rc;
}

/* A rank of a columnar (schema 2/3) source, written in the group layout
 * from the reader's arrays: /rank<N>/regions/<link>/{start,end}_times. */
static int write_rank_columns(scope_profile *p, int k, hid_t dst,
                              const char *gname, const char *tmp)
{
    int rank = p->ranks[k].rank, rc = 0;
    hid_t g = H5Gcreate2(dst, gname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t regions = g >= 0 ? H5Gcreate2(g, SCOPE_G_REGIONS, H5P_DEFAULT,
                                        H5P_DEFAULT, H5P_DEFAULT)
                           : H5I_INVALID_HID;
    if (regions < 0 || attr_i64(g, SCOPE_A_RANK, rank) < 0) {
        rc = scope__h5_fail(SCOPE_EHDF5, tmp, "cannot create a rank group");
        goto fail_group;
    }
    for (int r = 0; r < p->nregions && rc >= 0; r++) {
        scope__cell *c = scope__cell_at(p, r, k);
        if (!c)
            continue;
        int64_t *s, *e;
        if ((rc = scope__cell_load(p, c, &s, &e)) < 0)
            break;
        char *link = encode_link(p->regions[r].name);
        hid_t rg = link ? H5Gcreate2(regions, link, H5P_DEFAULT, H5P_DEFAULT,
                                     H5P_DEFAULT)
                        : H5I_INVALID_HID;
        if (!link)
            rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", tmp);
        else if (rg < 0 || attr_str(rg, SCOPE_A_NAME, p->regions[r].name) < 0 ||
                 write_i64(rg, SCOPE_D_START_TIMES, s, c->n) < 0 ||
                 write_i64(rg, SCOPE_D_END_TIMES, e, c->n) < 0)
            rc = scope__h5_fail(SCOPE_EHDF5, tmp, "cannot write a region");
        if (rg >= 0)
            H5Gclose(rg);
        free(link);
        if (s != c->starts) {
            free(s);
            free(e);
        }
    }
fail_group:
    if (regions >= 0)
        H5Gclose(regions);
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

/* Copies one rank group into dst as /rank<N>; external links inside it
 * are replaced by what they point to, so the result stands alone. */
static int copy_rank(scope_profile *p, int k, hid_t dst, hid_t ocpy,
                     const char *tmp)
{
    char gname[32];
    snprintf(gname, sizeof gname, SCOPE_G_RANK_FMT, p->ranks[k].rank);
    const scope__rank *rk = &p->ranks[k];
    if (!rk->group)
        return write_rank_columns(p, k, dst, gname, tmp);
    hid_t src;
    int rc = scope__source_file(p, rk->source, &src);
    if (rc < 0)
        return rc;
    if (H5Ocopy(src, rk->group, dst, gname, ocpy, H5P_DEFAULT) < 0) {
        char what[4200];
        snprintf(what, sizeof what, "cannot copy %s of %s", rk->group,
                 p->sources[rk->source].path);
        return scope__h5_fail(SCOPE_EHDF5, tmp, what);
    }
    return 0;
}

/* /metadata of the first source that has one, else an empty group (the
 * attributes are optional, the group is what tools look for). */
static int copy_metadata(scope_profile *p, hid_t dst, hid_t ocpy,
                         const char *tmp)
{
    if (p->meta_source >= 0) {
        hid_t src;
        int rc = scope__source_file(p, p->meta_source, &src);
        if (rc < 0)
            return rc;
        if (H5Ocopy(src, SCOPE_G_METADATA, dst, SCOPE_G_METADATA, ocpy, H5P_DEFAULT) < 0)
            return scope__h5_fail(SCOPE_EHDF5, tmp, "cannot copy /metadata");
        return 0;
    }
    hid_t g = H5Gcreate2(dst, SCOPE_G_METADATA, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    if (g < 0)
        return scope__h5_fail(SCOPE_EHDF5, tmp, "cannot create /metadata");
    H5Gclose(g);
    return 0;
}

/* 0 when `path` may be written: absent, or an existing scope profile.
 * Anything else (a folder, a text file, someone else's HDF5) is kept. */
static int check_target(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return errno == ENOENT ? 0
               : scope__fail(SCOPE_EACCES, "%s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return scope__fail(SCOPE_EINVAL, "%s exists and is not a file; not "
                           "replacing it", path);
    scope_profile *old;
    if (scope_profile_open(path, &old) < 0)
        return scope__fail(SCOPE_EINVAL, "%s exists and is not a scope "
                           "profile; not replacing it", path);
    scope_profile_close(old);
    return 0;
}

/* Reserves room for the merged file before HDF5 writes it: libhdf5 1.10
 * can crash inside H5Ocopy when a write fails for want of space, so the
 * disk must refuse up front, while nothing is written. The copy is at most
 * the size of its sources (plus room for the new metadata); the blocks are
 * reserved past the end of the file (FALLOC_FL_KEEP_SIZE), which HDF5's
 * writes then fill. Returns 0 or an errno value (EOPNOTSUPP: the file
 * system cannot reserve; the copy goes on unreserved). */
static int reserve_room(scope_profile *p, const char *tmp)
{
    off_t need = 1 << 20;
    struct stat st;
    for (int i = 0; i < p->nsources; i++)
        if (stat(p->sources[i].path, &st) == 0)
            need += st.st_size;
    int fd = open(tmp, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, need) == 0 ? 0 : errno;
    close(fd);
    return e == EOPNOTSUPP || e == ENOSYS ? 0 : e;
}

/* Gives back what reserve_room reserved beyond the file's end: growing
 * the file by a byte and cutting it back frees every block past the end. */
static void release_room(const char *tmp)
{
    struct stat st;
    if (stat(tmp, &st) == 0 && truncate(tmp, st.st_size + 1) == 0)
        truncate(tmp, st.st_size);
}

int scope_profile_merge(scope_profile *p, const char *path,
                        scope_progress_fn progress, void *ctx)
{
    if (!p || !path || !path[0])
        return scope__fail(SCOPE_EINVAL, "no profile or no output path");
    int rc = check_target(path);
    if (rc < 0)
        return rc;
    char *tmp = NULL;
    const char *slash = strrchr(path, '/');
    int dl = slash ? (int)(slash - path) + 1 : 0;
    if (asprintf(&tmp, "%.*s.%s.tmp%ld", dl, path, path + dl,
                 (long)getpid()) < 0)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    scope__h5_quiet quiet;
    scope__h5_quiet_begin(&quiet);
    hid_t ocpy = H5Pcreate(H5P_OBJECT_COPY);
    H5Pset_copy_object(ocpy, H5O_COPY_EXPAND_EXT_LINK_FLAG);
    hid_t dst = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (dst < 0) {
        rc = scope__h5_fail(SCOPE_EIO, path, "cannot create the merged file");
        unlink(tmp); /* created, then its superblock found no room */
        goto fail_create;
    }
    int e = reserve_room(p, tmp);
    if (e) {
        rc = scope__fail(SCOPE_EIO, "%s: cannot create the merged file: %s", path, strerror(e));
        goto fail_write;
    }
    if (attr_i64(dst, SCOPE_A_FORMAT, SCOPE_FORMAT_VERSION) < 0 ||
        attr_i64(dst, SCOPE_A_SCHEMA, 1) < 0) {
        rc = scope__h5_fail(SCOPE_EHDF5, tmp, "cannot write root attributes");
        goto fail_write;
    }
    if ((rc = copy_metadata(p, dst, ocpy, tmp)) < 0)
        goto fail_write;
    /* Progress counts events, not ranks: ranks can differ a lot in size. */
    int64_t total = 0, done = 0;
    for (size_t i = 0; i < (size_t)p->nregions * (size_t)p->nranks; i++)
        total += p->cells[i] ? p->cells[i]->n : 0;
    for (int k = 0; k < p->nranks; k++) {
        if ((rc = copy_rank(p, k, dst, ocpy, tmp)) < 0)
            goto fail_write;
        for (int r = 0; r < p->nregions; r++)
            done += scope__cell_at(p, r, k) ? scope__cell_at(p, r, k)->n : 0;
        if (progress)
            progress(ctx, done, total);
    }
    if (H5Fclose(dst) < 0) {
        rc = scope__h5_fail(SCOPE_EIO, path, "cannot finish the merged file");
        goto fail_write;
    }
    dst = H5I_INVALID_HID;
    release_room(tmp);
    if (rename(tmp, path) < 0) {
        rc = scope__fail(SCOPE_EIO, "%s: cannot rename to %s: %s", tmp, path,
                         strerror(errno));
        goto fail_write;
    }
    rc = 0;
fail_write:
    if (rc < 0) {
        /* with the room reserved, a failed write is not for want of space:
         * the close can flush the metadata */
        if (dst >= 0)
            H5Fclose(dst);
        unlink(tmp);
    }
fail_create:
    H5Pclose(ocpy);
    scope__h5_quiet_end(&quiet);
    free(tmp);
    return rc;
}
