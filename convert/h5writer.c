/*
 * h5writer.c - turns a journal into the per-rank HDF5 file and the index
 * file of docs/format.md.
 *
 * scope_convert() (scope_convert.h) is the converter's one entry point. It
 * runs in the scope-h5write process (runtime/writer_spawn.c), or inside
 * `scope recover`. This file holds the files themselves (creating, closing
 * under a temporary name, fsync, placing; /metadata, the rank group's
 * attributes, the index) and the rank file's two modes; the two passes over the
 * journal's events that fill each region's datasets, in bounded memory
 * whatever the journal's size, are calls.c's.
 *
 * Storage faults (a full disk or quota, a read-only file system, an I/O
 * error) reach HDF5's file driver, which puts the errno into its error
 * stack; on_h5_error() keeps it, so that the message names the reason.
 * A file whose close fails (its metadata could not be flushed) stays
 * half-open inside libhdf5, and libhdf5 1.10 crashes when it tries to close
 * it again at H5close() or exit: the writer then skips H5close() and says
 * so (scope_convert_hdf5_broken), and its process leaves with _exit().
 */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock_model.h"
#include "conv.h"
#include "convert_warn.h"
#include "h5_util.h"
#include "h5writer.h"
#include "journal_read.h"
#include "scope_error.h"
#include "scope_format.h"

/* The first errno HDF5's file driver met since the last reset, and whether
 * a file could not be closed (see the file comment). */
static int h5_errno;
static int h5_broken;

static herr_t find_errno(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)n;
    const char *p = e->desc ? strstr(e->desc, "errno = ") : NULL;
    int *v = data;
    if (p && !*v)
        *v = atoi(p + 8);
    return 0;
}

/* HDF5's automatic error report, called when an API call fails. */
static herr_t on_h5_error(hid_t stack, void *data)
{
    (void)data;
    int v = 0;
    H5Ewalk2(stack, H5E_WALK_DOWNWARD, find_errno, &v);
    if (v > 0 && !h5_errno)
        h5_errno = v;
    return 0;
}

int scope_convert_hdf5_broken(void)
{
    return h5_broken;
}

static int msg(const struct scope_convert_request *req, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int msg(const struct scope_convert_request *req, int code, const char *fmt, ...)
{
    if (req->err && req->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(req->err, req->errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}


/* snprintf for paths: returns 0, or -1 when the result would be cut. */
static int path_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int path_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* scope_tmp_path() of this process: 0, or -1 when it would be cut. */
static int tmp_path(char *buf, size_t len, const char *path)
{
    int n = scope_tmp_path(buf, len, path, (long)getpid());
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static const char *kv_get(const struct scope_jr *jr, const char *key)
{
    const char *v = NULL;
    for (size_t i = 0; i + 1 < jr->n_kv; i += 2)
        if (strcmp(jr->kv[i], key) == 0)
            v = jr->kv[i + 1]; /* later values win */
    return v;
}

/* /metadata of docs/format.md, shared by the rank file and the index. */
static int write_metadata(hid_t file, const struct conv *c)
{
    const struct scope_jr *jr = &c->jr;
    if (scope__h5_attr_i64(file, SCOPE_A_FORMAT, SCOPE_FORMAT_VERSION) < 0 || scope__h5_attr_i64(file, SCOPE_A_SCHEMA, 1) < 0)
        return -1;
    hid_t g = H5Gcreate2(file, SCOPE_G_METADATA, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int rc = 0;
    rc |= scope__h5_attr_i64(g, SCOPE_A_START_TIME_NS, jr->hdr.start_ns);
    rc |= scope__h5_attr_i64(g, SCOPE_A_FINALIZE_TIME_NS, scope__conv_finalize_ns(c));
    rc |= scope__h5_attr_i64(g, SCOPE_A_MPI_SIZE, jr->hdr.size > 0 ? jr->hdr.size : 1);
    rc |= scope__h5_attr_str(g, SCOPE_A_HOSTNAME, jr->hdr.hostname);
    char ts[64];
    time_t secs = (time_t)(jr->hdr.start_realtime_ns / 1000000000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             (int)(jr->hdr.start_realtime_ns % 1000000000 / 1000));
    rc |= scope__h5_attr_str(g, SCOPE_A_TIMESTAMP, ts);
    /* every metadata string the recorder stored, the last value per key */
    for (size_t i = 0; i + 1 < jr->n_kv; i += 2) {
        const char *key = jr->kv[i];
        if (kv_get(jr, key) != jr->kv[i + 1] || strncmp(key, "rank/", 5) == 0 ||
            scope__clock_model_is_key(key))
            continue; /* "rank/" keys belong on /rank<N> (write_rank_attrs) */
        if (H5Aexists(g, key) > 0)
            H5Adelete(g, key);
        rc |= scope__h5_attr_str(g, key, jr->kv[i + 1]);
    }
    rc |= scope__clock_model_write_run(g, &c->clock);
    H5Gclose(g);
    return rc ? -1 : 0;
}

/* Renames the finished temporary file into place, unless `path` holds
 * something that is not a scope profile: a user's file is never replaced.
 * A symlink at `path` is replaced itself, never followed. Returns 0 or a
 * negative SCOPE_E* with a message. */
static int rename_into_place(const struct scope_convert_request *req, const char *tmp,
                             const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        int profile = 0;
        if (S_ISREG(st.st_mode) && H5Fis_hdf5(path) > 0) {
            hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
            if (f >= 0) {
                profile = H5Aexists(f, SCOPE_A_FORMAT) > 0 ||
                          H5Aexists(f, SCOPE_A_SCHEMA) > 0;
                H5Fclose(f);
            }
        }
        if (!profile && !S_ISLNK(st.st_mode))
            return msg(req, SCOPE_EACCES, "%s exists and is not a scope profile; not replaced "
                       "(the profile is left in %s)", path, tmp);
    }
    if (rename(tmp, path) < 0)
        return msg(req, SCOPE_EIO, "%s: cannot rename into place: %s", path, strerror(errno));
    return 0;
}

/* Puts rank file `tmp` at `path`, or under a collision name when another
 * process of this run has it (placement.c). Returns 0 or SCOPE_E*. */
static int place_rank(struct conv *c, const char *tmp, const char *path)
{
    char err[PATH_MAX * 2 + 128] = "";
    int rc = scope__place_rank_file(tmp, path, scope__conv_since(c),
                                    scope__conv_yields_rank(c), c->placed, sizeof c->placed,
                                    err, sizeof err);
    if (rc < 0)
        return msg(c->req, rc, "%s", err);
    c->collided = rc == 1;
    return 0;
}

/* Makes the closed temporary file durable before it takes the final name:
 * a crash of the machine must not leave an empty file under that name.
 * Returns 0 or SCOPE_EIO with the reason. */
static int sync_file(const struct scope_convert_request *req, const char *tmp, const char *path)
{
    int fd = open(tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return msg(req, SCOPE_EIO, "%s: %s", path, strerror(e));
    }
    close(fd);
    return 0;
}

/* After a failed write (rc < 0): removes the temporary `tmp` and, unless
 * a message was already set, says why `path` was not written. Returns rc. */
static int drop_failed(const struct scope_convert_request *req, int rc, const char *tmp,
                       const char *path)
{
    if (rc >= 0)
        return rc;
    unlink(tmp);
    /* the storage's reason says more than any HDF5 message */
    if (h5_errno)
        msg(req, SCOPE_EIO, "%s: %s", path, strerror(h5_errno));
    else if (req->err && !req->err[0])
        msg(req, rc, "%s: %s", path, scope_strerror(rc));
    return rc;
}

/* Closes a file written under the temporary name `tmp` and, when writing
 * it went well (rc == 0), puts it in place at `path`: a rank file (rank
 * != NULL) never over one of the same run, the index by rename. On failure
 * the temporary is removed, unless the destination refused it (then it is
 * the only copy). Returns rc or the first error. */
static int close_and_place(const struct scope_convert_request *req, hid_t f, int rc,
                           const char *tmp, const char *path, struct conv *rank)
{
    if (H5Fclose(f) < 0) {
        h5_broken = 1; /* its metadata found no room: half-open in libhdf5 */
        if (rc == 0)
            rc = SCOPE_EIO;
    }
    if (rc == 0)
        rc = sync_file(req, tmp, path);
    if (rc == 0)
        rc = rank ? place_rank(rank, tmp, path) : rename_into_place(req, tmp, path);
    if (rc == SCOPE_EACCES)
        return rc;
    return drop_failed(req, rc, tmp, path);
}

int scope__conv_close_sync(const struct scope_convert_request *req, int64_t f, int rc,
                           const char *tmp, const char *path)
{
    if (H5Fclose(f) < 0) {
        h5_broken = 1;
        if (rc == 0)
            rc = SCOPE_EIO;
    }
    if (rc == 0)
        rc = sync_file(req, tmp, path);
    return drop_failed(req, rc, tmp, path);
}

int64_t scope__conv_create(const struct scope_convert_request *req, const char *tmp,
                           const char *path)
{
    unlink(tmp);
    errno = 0;
    hid_t f = scope__h5_create_file(tmp);
    if (f >= 0)
        return f;
    int e = h5_errno ? h5_errno : errno;
    unlink(tmp);
    if (!e)
        return msg(req, SCOPE_EIO, "%s: cannot create the file", path);
    return msg(req, SCOPE_EIO, "%s: cannot create the file: %s", path, strerror(e));
}

/* The recorder's "rank/<name>" strings stored as int64 (docs/format.md):
 * the error code a rank gave MPI_Abort, the calls the preload could not
 * record, the process of this run that started this one and its start. */
static int is_int_attr(const char *k)
{
    static const char *const ints[] = { SCOPE_A_MPI_ABORT_ERRORCODE, SCOPE_A_UNRECORDED_CALLS,
                                        SCOPE_A_STARTED_BY_PID, SCOPE_A_STARTED_BY_START_NS };
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (strcmp(k, ints[i]) == 0)
            return 1;
    return 0;
}

static int write_rank_attrs(struct conv *c)
{
    const struct scope_journal_header *h = &c->jr.hdr;
    hid_t g = c->rank_grp;
    int rc = scope__h5_attr_i64(g, SCOPE_A_RANK, c->rank) | scope__h5_attr_i64(g, SCOPE_A_PID, h->pid) |
             scope__h5_attr_str(g, SCOPE_A_HOSTNAME, h->hostname) | scope__h5_attr_i64(g, SCOPE_A_START_TIME_NS, h->start_ns) |
             scope__h5_attr_i64(g, SCOPE_A_FINALIZE_TIME_NS, scope__conv_finalize_ns(c)) |
             scope__h5_attr_i64(g, SCOPE_A_DROPPED_EVENTS, (int64_t)(h->dropped_events + c->invalid)) |
             scope__h5_attr_i64(g, SCOPE_A_UNTERMINATED_CALLS, (int64_t)c->unterminated) |
             scope__h5_attr_i8(g, SCOPE_A_COMPLETE, (int8_t)(c->req->complete ? 1 : 0));
    if (h->state == SCOPE_JOURNAL_DIED)
        rc |= scope__h5_attr_i64(g, SCOPE_A_DIED_SIGNAL, (int64_t)h->died_signal);
    /* the recorder's "rank/<name>" strings (rank_source, rank_mismatch, ...) */
    for (size_t i = 0; i + 1 < c->jr.n_kv; i += 2)
        if (strncmp(c->jr.kv[i], "rank/", 5) == 0 && c->jr.kv[i][5] &&
            kv_get(&c->jr, c->jr.kv[i]) == c->jr.kv[i + 1] && H5Aexists(g, c->jr.kv[i] + 5) <= 0) {
            const char *k = c->jr.kv[i] + 5, *v = c->jr.kv[i + 1];
            char *e;
            double d = strtod(v, &e);
            /* calibrate.c's measured costs (overhead_*_ns) are numbers,
             * and so are the integers is_int_attr() lists */
            if (strncmp(k, "overhead_", 9) == 0 && *v && !*e)
                rc |= scope__h5_attr_scalar(g, k, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &d);
            else if (is_int_attr(k) && *v && !*e)
                rc |= scope__h5_attr_i64(g, k, (int64_t)d);
            else
                rc |= scope__h5_attr_str(g, k, v);
        }
    /* says without a visit to every region that some region records what
     * its MPI calls moved (the host summary caches rank attributes) */
    int any_data = 0;
    for (uint32_t i = 0; i < c->jr.n_regions && !any_data; i++)
        any_data = c->reg[i].has_data;
    if (any_data)
        rc |= scope__h5_attr_i64(g, SCOPE_A_MPI_DATA, 1);
    int any_io = 0;
    for (uint32_t i = 0; i < c->jr.n_regions && !any_io; i++)
        any_io = c->reg[i].has_io;
    if (any_io)
        rc |= scope__h5_attr_i64(g, SCOPE_A_IO_DATA, 1);
    rc |= scope__clock_model_write_rank(g, &c->clock);
    /* docs/format.md: the step in ns, rounded up (a TSC step is < 1 ns) */
    if (h->clock_resolution && h->clock_resolution < (1ull << 40)) {
        int64_t res = scope__jr_ns(&c->jr, h->start_ticks + h->clock_resolution) -
                      scope__jr_ns(&c->jr, h->start_ticks);
        rc |= scope__h5_attr_i64(g, SCOPE_A_CLOCK_RESOLUTION_NS, res > 0 ? res : 1);
    }
    return rc ? SCOPE_EHDF5 : 0;
}

/* H5Fcreate failed: it may have left the file behind (created, then its
 * superblock could not be written). Returns SCOPE_EIO with the reason. */
static int create_failed(struct conv *c, const char *tmp, const char *path)
{
    int e = h5_errno ? h5_errno : errno;
    unlink(tmp);
    if (!e)
        return msg(c->req, SCOPE_EIO, "%s: cannot create the file", path);
    return msg(c->req, SCOPE_EIO, "%s: cannot create the file: %s", path, strerror(e));
}

/* Writes /rank<N> and everything in it into the open c->file. Returns 0
 * or a negative SCOPE_E*; the rank group and every dataset are closed. */
static int write_rank_group(struct conv *c)
{
    char grp[32];
    snprintf(grp, sizeof grp, SCOPE_G_RANK_FMT, c->rank);
    c->rank_grp = H5Gcreate2(c->file, grp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    /* the parts of the group in the order they are written: the regions
     * first (pass 2), then the tables, the attributes last */
    static int (*const parts[])(struct conv *) = {
        scope__conv_create_regions,  scope__conv_merge_events,  scope__conv_write_threads,
        scope__conv_write_interposition, scope__conv_write_callsites, scope__conv_write_comms,
        scope__conv_write_files,     scope__conv_write_requests, write_rank_attrs,
    };
    int rc = c->rank_grp < 0 ? SCOPE_EHDF5 : 0;
    for (size_t i = 0; rc == 0 && i < sizeof parts / sizeof *parts; i++)
        rc = parts[i](c);
    for (uint32_t i = 0; c->reg && i < c->jr.n_regions; i++)
        scope__conv_close_region(&c->reg[i]);
    if (c->regions_grp > 0)
        H5Gclose(c->regions_grp);
    c->regions_grp = H5I_INVALID_HID;
    if (c->rank_grp > 0)
        H5Gclose(c->rank_grp);
    c->rank_grp = H5I_INVALID_HID;
    return rc;
}

static int write_rank_file(struct conv *c, const char *path)
{
    char tmp[PATH_MAX + 64];
    if (tmp_path(tmp, sizeof tmp, path) < 0)
        return msg(c->req, SCOPE_ELIMIT, "%s: path too long", path);
    unlink(tmp);
    errno = 0;
    c->file = scope__h5_create_file(tmp);
    if (c->file < 0)
        return create_failed(c, tmp, path);
    int rc = write_metadata(c->file, c) < 0 ? SCOPE_EHDF5 : 0;
    if (rc == 0)
        rc = write_rank_group(c);
    return close_and_place(c->req, c->file, rc, tmp, path, c);
}

/* The index: /metadata plus one external link /rank<N> per rank file,
 * relative to the index's own folder so the run can be moved as a whole. */
static int write_index(struct conv *c, const char *path, const char *rank_path)
{
    return scope__conv_write_index(c, path, rank_path, NULL, 0);
}

int scope__conv_write_index(struct conv *c, const char *path, const char *rank_path,
                            const char *const *files, size_t n_files)
{
    char tmp[PATH_MAX + 64];
    if (tmp_path(tmp, sizeof tmp, path) < 0)
        return msg(c->req, SCOPE_ELIMIT, "%s: path too long", path);
    /* rank files live in "<dir of rank_path>", a sibling of the index;
     * link by "<its basename>/rankN.h5" */
    char dir[PATH_MAX];
    if (path_fmt(dir, sizeof dir, "%s", rank_path) < 0)
        return msg(c->req, SCOPE_ELIMIT, "%s: path too long", rank_path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    const char *dir_base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    unlink(tmp);
    errno = 0;
    hid_t f = H5Fcreate(tmp, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return create_failed(c, tmp, path);
    int rc = write_metadata(f, c) < 0 ? SCOPE_EHDF5 : 0;
    int size = c->jr.hdr.size > 0 ? c->jr.hdr.size : 1;
    for (int r = 0; r < size && rc == 0; r++) {
        char target[PATH_MAX], obj[32];
        const char *file = (size_t)r < n_files && files[r] && files[r][0] ? files[r] : NULL;
        int n = file ? snprintf(target, sizeof target, "%s/%s", dir_base, file)
                     : scope_rank_file_path(target, sizeof target, dir_base, r);
        if (n < 0 || (size_t)n >= sizeof target) {
            rc = SCOPE_ELIMIT;
            break;
        }
        snprintf(obj, sizeof obj, "/" SCOPE_G_RANK_FMT, r);
        if (H5Lcreate_external(target, obj, f, obj + 1, H5P_DEFAULT, H5P_DEFAULT) < 0)
            rc = SCOPE_EHDF5;
    }
    /* under the ranks folder's lock, so that a rank file that collides
     * now is either linked here or finds this index to link itself into */
    int lock = scope__ranks_lock(dir);
    if (rc == 0 && scope__index_link_collisions(f, dir, scope__conv_since(c)) < 0)
        rc = SCOPE_EHDF5;
    if (rc == 0 && n_files && scope__index_link_host_collisions(f, dir, scope__conv_since(c)) < 0)
        rc = SCOPE_EHDF5;
    rc = close_and_place(c->req, f, rc, tmp, path, NULL);
    scope__ranks_unlock(lock);
    return rc;
}

static void conv_free(struct conv *c)
{
    for (uint32_t i = 0; c->reg && i < c->jr.n_regions; i++) {
        free(c->reg[i].link);
        scope__conv_data_free(&c->reg[i]);
        scope__conv_io_free(&c->reg[i]);
    }
    scope__conv_requests_free(c);
    scope__conv_omp_free(c);
    scope__conv_windows_free(c);
    free(c->reg);
    for (uint32_t t = 0; c->th && t < c->n_threads_used; t++) {
        scope__jr_cursor_free(&c->th[t].cur);
        free(c->th[t].stack);
    }
    free(c->th);
    scope__jr_close(&c->jr);
}

int scope__conv_open(struct conv **out, const struct scope_convert_request *req,
                     const char *journal, int events)
{
    struct conv *c = calloc(1, sizeof *c);
    if (!c)
        return msg(req, SCOPE_ENOMEM, "%s: out of memory", journal);
    c->req = req;
    c->file = c->rank_grp = c->regions_grp = H5I_INVALID_HID;
    int rc = scope__jr_open(&c->jr, journal, req->err, req->errlen);
    if (rc < 0) {
        free(c);
        return rc;
    }
    c->rank = c->jr.hdr.rank >= 0 ? c->jr.hdr.rank : 0;
    scope__clock_model_from_journal(&c->clock, &c->jr);
    scope__clock_model_fold(&c->clock, &c->jr);
    if ((rc = scope__conv_open_threads(c)) < 0 || (events && (rc = scope__conv_count_calls(c)) < 0)) {
        msg(req, rc, "%s: %s", journal, scope_strerror(rc));
        scope__conv_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

int scope__conv_rank(const struct conv *c)
{
    return c->rank;
}

int scope__conv_yields_rank(const struct conv *c)
{
    return kv_get(&c->jr, "rank/" SCOPE_A_STARTED_BY_PID) != NULL;
}

int64_t scope__conv_since(const struct conv *c)
{
    /* a process of this run that started this one began the run */
    const char *v = kv_get(&c->jr, "rank/" SCOPE_A_STARTED_BY_START_NS);
    long long parent = v ? strtoll(v, NULL, 10) : 0;
    if (parent > 0 && parent < c->jr.hdr.start_realtime_ns)
        return (int64_t)parent;
    return c->jr.hdr.start_realtime_ns;
}

void scope__conv_output(const struct conv *c, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s", (int)sizeof c->jr.hdr.output, c->jr.hdr.output);
}

int scope__conv_write_metadata(struct conv *c, int64_t file)
{
    return write_metadata(file, c) < 0 ? SCOPE_EHDF5 : 0;
}

int scope__conv_write_rank(struct conv *c, int64_t file, struct scope__shared_table *shared)
{
    c->file = file;
    c->shared = shared;
    int rc = write_rank_group(c);
    c->file = H5I_INVALID_HID;
    c->shared = NULL;
    return rc;
}

void scope__conv_free(struct conv *c)
{
    if (!c)
        return;
    conv_free(c);
    free(c);
}

/* One journal into its rank file (write_rank) and the index when asked:
 * the RANK and INDEX_ONLY modes. Returns 0 or SCOPE_E* with a message. */
static int convert_one(const struct scope_convert_request *req, int write_rank)
{
    struct conv c = { .req = req, .file = H5I_INVALID_HID, .rank_grp = H5I_INVALID_HID,
                      .regions_grp = H5I_INVALID_HID };
    const char *journal = req->rank.journal_path;
    int rc = scope__jr_open(&c.jr, journal, req->err, req->errlen);
    if (rc < 0)
        return rc;
    c.rank = c.jr.hdr.rank >= 0 ? c.jr.hdr.rank : 0;
    /* from here on every ns the journal yields is on rank 0's host timeline */
    scope__clock_model_from_journal(&c.clock, &c.jr);
    scope__clock_model_fold(&c.clock, &c.jr);
    char derived[PATH_MAX + 64];
    const char *rank_path = req->rank.rank_path;
    if (!rank_path) {
        /* next to the journal, which lives in the ranks folder */
        scope_rank_file_beside(derived, sizeof derived, journal, c.rank);
        rank_path = derived;
    }
    if ((rc = scope__conv_open_threads(&c)) < 0 || (rc = scope__conv_count_calls(&c)) < 0) {
        msg(req, rc, "%s: %s", journal, scope_strerror(rc));
        goto out;
    }
    rc = write_rank ? write_rank_file(&c, rank_path) : 0;
    if (rc == 0 && req->index_path)
        rc = write_index(&c, req->index_path, rank_path);
    else if (rc == 0 && c.collided && c.jr.hdr.output[0]) {
        /* the index is rank 0's; if it is already written, link us in */
        char dir[PATH_MAX + 64];
        snprintf(dir, sizeof dir, "%s", rank_path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        char index[sizeof c.jr.hdr.output + 1];
        snprintf(index, sizeof index, "%.*s", (int)sizeof c.jr.hdr.output, c.jr.hdr.output);
        /* the rank file itself is in place: failing to link it is said,
         * not turned into a failure that would keep the journal and
         * convert it again */
        if (scope__index_note_collision(index, slash ? dir : ".", scope__conv_since(&c)) < 0)
            scope__convert_warn(req, "%s: cannot link the collision file %s; it stays next to "
                                "the other rank files", index, c.placed);
    }
out:
    conv_free(&c);
    return rc;
}

int scope__convert_rank(const struct scope_convert_request *req)
{
    return convert_one(req, 1);
}

int scope__convert_index_only(const struct scope_convert_request *req)
{
    return convert_one(req, 0);
}

void scope__conv_errors_begin(void)
{
    H5Eset_auto2(H5E_DEFAULT, on_h5_error, NULL);
    h5_errno = 0;
}

int scope__conv_errors_end(int rc)
{
    /* after the storage failed under HDF5, objects may stay half-open and
     * H5close() would loop or crash on them */
    if (rc < 0 && h5_errno)
        h5_broken = 1;
    if (!h5_broken)
        H5close();
    return rc;
}
