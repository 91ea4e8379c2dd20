/*
 * merge.c - scope_convert_merge() (scope_merge.h): one self-contained file
 * of the layout of docs/format.md from rank groups of other files, for
 * `scope merge`. The converter's own writer, with its HDF5 helpers
 * (h5_util.h) and the temporary names of format/scope_paths.h, so that
 * the project writes the format in one place: the reader only reads.
 *
 * Rank groups of our layout (rank files, index targets, merged files,
 * scope-profiler schema 1) are copied whole with H5Ocopy, so attributes,
 * thread tables, compression and unknown objects all survive unchanged.
 * Ranks of scope-profiler's columnar schemas 2 and 3 have no group to
 * copy; they are written in the group layout from the times the caller
 * hands over.
 *
 * The sources are opened here by path, with the reader's close degree and
 * eviction (HDF5 refuses a second open of a file that differs in them),
 * while the caller's reader may hold the same files open.
 */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5_util.h"
#include "scope_error.h"
#include "scope_format.h"
#include "scope_h5_read.h"
#include "scope_merge.h"

struct merge_run {
    const struct scope_merge *m;
    const char *tmp;
    char *err;
    size_t errlen;
};

static int fail(struct merge_run *w, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct merge_run *w, int code, const char *fmt, ...)
{
    if (w->err && w->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->err, w->errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* "<file>: <what>" with HDF5's reason for the call that just failed. */
static int h5_fail(struct merge_run *w, int code, const char *file, const char *what)
{
    char why[300];
    if (w->err && w->errlen) {
        scope__h5_explain(why, sizeof why, file, what);
        snprintf(w->err, w->errlen, "%s", why);
    }
    return code;
}

/* A source file, opened read-only as the reader opens it. */
static hid_t open_source(const char *path)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    H5Pset_evict_on_close(fapl, 1);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    return f;
}

/* Copies `group` of `file` into dst as `name`; the external links inside
 * it are replaced by what they point to (ocpy), so the result stands alone. */
static int copy_group(struct merge_run *w, const char *file, const char *group, hid_t dst,
                      const char *name, hid_t ocpy)
{
    hid_t src = open_source(file);
    if (src < 0)
        return h5_fail(w, SCOPE_EHDF5, file, "cannot open the HDF5 file");
    int rc = 0;
    if (H5Ocopy(src, group, dst, name, ocpy, H5P_DEFAULT) < 0) {
        char what[PATH_MAX + 32];
        snprintf(what, sizeof what, "cannot copy %s of %s", group, file);
        rc = h5_fail(w, SCOPE_EHDF5, w->tmp, what);
    }
    H5Fclose(src);
    return rc;
}

/* One region of a columnar rank: /rank<N>/regions/<link> with its name
 * and both time arrays. */
static int write_region(struct merge_run *w, hid_t regions, const char *name,
                        const int64_t *s, const int64_t *e, int64_t n)
{
    char *link = scope_region_link_name_dup(name);
    if (!link)
        return fail(w, SCOPE_ENOMEM, "%s: out of memory", w->tmp);
    hid_t g = H5Gcreate2(regions, link, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = g >= 0 && scope__h5_attr_str(g, SCOPE_A_NAME, name) == 0 ? 0 : -1;
    const char *names[2] = { SCOPE_D_START_TIMES, SCOPE_D_END_TIMES };
    const int64_t *bufs[2] = { s, e };
    for (int k = 0; k < 2 && rc == 0; k++) {
        hid_t d = scope__h5_make_dataset(g, names[k], H5T_STD_I64LE, (uint64_t)n);
        if (d < 0 || scope__h5_write_slice(d, H5T_NATIVE_INT64, bufs[k], 0, (uint64_t)n) < 0)
            rc = -1;
        if (d >= 0)
            H5Dclose(d);
    }
    if (rc < 0)
        rc = h5_fail(w, SCOPE_EHDF5, w->tmp, "cannot write a region");
    if (g >= 0)
        H5Gclose(g);
    free(link);
    return rc;
}

/* Rank i of a columnar source, written in the group layout from the
 * caller's times: /rank<N>/regions/<link>/{start,end}_times. */
static int write_rank_columns(struct merge_run *w, int i, hid_t dst, const char *gname)
{
    const struct scope_merge *m = w->m;
    int rc = 0;
    hid_t g = H5Gcreate2(dst, gname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t regions = g >= 0 ? H5Gcreate2(g, SCOPE_G_REGIONS, H5P_DEFAULT, H5P_DEFAULT,
                                        H5P_DEFAULT)
                           : H5I_INVALID_HID;
    if (regions < 0 || scope__h5_attr_i64(g, SCOPE_A_RANK, m->ranks[i].rank) < 0) {
        rc = h5_fail(w, SCOPE_EHDF5, w->tmp, "cannot create a rank group");
        goto fail_group;
    }
    for (int r = 0; r < m->nregions && rc >= 0; r++) {
        const int64_t *s, *e;
        int64_t n = 0;
        if ((rc = m->times(m->ctx, r, i, &s, &e, &n)) < 0) {
            if (w->err && w->errlen)
                w->err[0] = '\0';
            break;
        }
        if (n > 0)
            rc = write_region(w, regions, m->region_name(m->ctx, r), s, e, n);
    }
fail_group:
    if (regions >= 0)
        H5Gclose(regions);
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

/* /metadata of the caller's file, else an empty group (the attributes
 * are optional, the group is what tools look for). */
static int write_metadata(struct merge_run *w, hid_t dst, hid_t ocpy)
{
    if (w->m->metadata_file)
        return copy_group(w, w->m->metadata_file, SCOPE_G_METADATA, dst, SCOPE_G_METADATA, ocpy);
    hid_t g = H5Gcreate2(dst, SCOPE_G_METADATA, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return h5_fail(w, SCOPE_EHDF5, w->tmp, "cannot create /metadata");
    H5Gclose(g);
    return 0;
}

/* Reserves room for the merged file before HDF5 writes it: libhdf5 1.10
 * can crash inside H5Ocopy when a write fails for want of space, so the
 * disk must refuse up front, while nothing is written. The copy is at most
 * the size of its sources (plus room for the new metadata); the blocks are
 * reserved past the end of the file (FALLOC_FL_KEEP_SIZE), which HDF5's
 * writes then fill. Returns 0 or an errno value (EOPNOTSUPP: the file
 * system cannot reserve; the copy goes on unreserved). */
static int reserve_room(const struct scope_merge *m, const char *tmp)
{
    off_t need = 1 << 20;
    struct stat st;
    for (int i = 0; i < m->nfiles; i++)
        if (stat(m->files[i], &st) == 0)
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

/* The root attributes, /metadata and every rank into the open file dst. */
static int write_contents(struct merge_run *w, hid_t dst, hid_t ocpy)
{
    const struct scope_merge *m = w->m;
    int rc;
    if (scope__h5_attr_i64(dst, SCOPE_A_FORMAT, SCOPE_FORMAT_VERSION) < 0 ||
        scope__h5_attr_i64(dst, SCOPE_A_SCHEMA, 1) < 0)
        return h5_fail(w, SCOPE_EHDF5, w->tmp, "cannot write root attributes");
    if ((rc = write_metadata(w, dst, ocpy)) < 0)
        return rc;
    /* Progress counts events, not ranks: ranks can differ a lot in size. */
    int64_t total = 0, done = 0;
    for (int i = 0; i < m->nranks; i++)
        total += m->ranks[i].events;
    for (int i = 0; i < m->nranks; i++) {
        char gname[32];
        snprintf(gname, sizeof gname, SCOPE_G_RANK_FMT, m->ranks[i].rank);
        rc = m->ranks[i].group
                 ? copy_group(w, m->ranks[i].file, m->ranks[i].group, dst, gname, ocpy)
                 : write_rank_columns(w, i, dst, gname);
        if (rc < 0)
            return rc;
        done += m->ranks[i].events;
        if (m->progress)
            m->progress(m->ctx, done, total);
    }
    return 0;
}

int scope_convert_merge(const struct scope_merge *m, const char *path, char *err,
                        size_t errlen)
{
    struct merge_run w = { m, NULL, err, errlen };
    if (!m || !path || !path[0])
        return fail(&w, SCOPE_EINVAL, "no profile or no output path");
    char tmp[PATH_MAX + 32];
    if (scope_tmp_path(tmp, sizeof tmp, path, (long)getpid()) >= (int)sizeof tmp)
        return fail(&w, SCOPE_ELIMIT, "%s: path too long", path);
    w.tmp = tmp;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    hid_t ocpy = H5Pcreate(H5P_OBJECT_COPY);
    H5Pset_copy_object(ocpy, H5O_COPY_EXPAND_EXT_LINK_FLAG);
    int rc = 0;
    hid_t dst = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (dst < 0) {
        rc = h5_fail(&w, SCOPE_EIO, path, "cannot create the merged file");
        unlink(tmp); /* created, then its superblock found no room */
        goto fail_create;
    }
    int e = reserve_room(m, tmp);
    if (e) {
        rc = fail(&w, SCOPE_EIO, "%s: cannot create the merged file: %s", path, strerror(e));
        goto fail_write;
    }
    if ((rc = write_contents(&w, dst, ocpy)) < 0)
        goto fail_write;
    if (H5Fclose(dst) < 0) {
        dst = H5I_INVALID_HID;
        rc = h5_fail(&w, SCOPE_EIO, path, "cannot finish the merged file");
        goto fail_write;
    }
    dst = H5I_INVALID_HID;
    release_room(tmp);
    if (rename(tmp, path) < 0) {
        rc = fail(&w, SCOPE_EIO, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
        goto fail_write;
    }
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
    scope_h5_quiet_end(&quiet);
    return rc;
}
