/*
 * h5_util.c - the small HDF5 vocabulary the reader needs (open a file, read
 * an integer or string attribute, a 1-D int64 slice, a string column), with
 * HDF5's own error printing silenced and its error stack turned into one
 * readable message naming the file.
 *
 * Why a wrapper at all: HDF5 prints its error stack to stderr by default
 * (the reader must never print), reports truncation only deep inside that
 * stack, and reads strings in two incompatible ways (variable and fixed
 * length) that both occur in real profiles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reader_internal.h"
#include "scope_h5_read.h"

/* Saves the caller's automatic error handler and installs none, so that no
 * HDF5 failure inside the reader is printed. Restored by _end() so a host
 * program (h5py, the application) keeps its own setting. */
typedef struct {
    char desc[256];
    int truncated;
    int sys_errno;  /* the errno the file driver met, 0 if none */
} h5_walk;

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *arg)
{
    h5_walk *w = arg;
    if (e->min_num == H5E_TRUNCATED)
        w->truncated = 1;
    const char *en = e->desc ? strstr(e->desc, "errno = ") : NULL;
    if (en && !w->sys_errno)
        w->sys_errno = atoi(en + 8);
    /* Walking upward, n == 0 is the innermost (most specific) entry. */
    if (n == 0 && e->desc)
        snprintf(w->desc, sizeof w->desc, "%s", e->desc);
    return 0;
}

/* The refusals of the heap guard already turned into a message, so that
 * each is reported by the failure it caused and no later one. */
static _Thread_local unsigned long heap_reported;

/* When the heap guard refused a collection of `fpath` since the last
 * report: its message (SCOPE_EFORMAT), else 0. */
static int heap_fail(const char *fpath)
{
    scope__heap_refusal r;
    if (scope__heap_guard_refused(&r) == heap_reported)
        return 0;
    heap_reported = r.count;
    if (strncmp(r.path, fpath, sizeof r.path - 1) != 0)
        return 0;
    H5Eclear2(H5E_DEFAULT);
    return scope__fail(SCOPE_EFORMAT, "%s: damaged HDF5 global heap collection at byte %llu "
                       "(%s): its variable-length strings are not read", fpath,
                       (unsigned long long)r.addr, r.why);
}

/* Must run right after the failing HDF5 call: any further HDF5 API call
 * clears the error stack. */
int scope__h5_fail(int code, const char *fpath, const char *what)
{
    int heap = heap_fail(fpath);
    if (heap < 0)
        return heap;
    h5_walk w = { "", 0, 0 };
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &w);
    H5Eclear2(H5E_DEFAULT);
    /* a full disk, a quota, a read-only file system: the system's reason
     * says it better than the driver's long message */
    if (w.sys_errno > 0)
        return scope__fail(code, "%s: %s: %s", fpath, what, strerror(w.sys_errno));
    if (w.truncated)
        return scope__fail(SCOPE_ETRUNC, "%s: file is truncated or damaged "
                           "(HDF5: %s)", fpath, w.desc);
    if (w.desc[0])
        return scope__fail(code, "%s: %s (HDF5: %s)", fpath, what, w.desc);
    return scope__fail(code, "%s: %s", fpath, what);
}

/* Files up to CORE_SMALL are read into memory whole when opened, and so
 * are files up to CORE_MAX that hold several rank groups (a host file);
 * at most 16 are open (profile_data.c), so 256 MiB at worst. */
#define CORE_SMALL ((off_t)1 << 20)
#define CORE_MAX ((off_t)16 << 20)
#define EVICT_MAX_LINKS 128

/* Opens read-only. The caller has checked that the path exists and is a
 * regular file. ENOTHDF5 when the signature is missing, ETRUNC when cut.
 * Cost: one open; H5Fis_hdf5 (a second open) only to explain a failure. */
int scope__h5_open_file(const char *fpath, hid_t *out)
{
    /* STRONG close: H5Fclose closes every object still open in the file,
     * so no error path on a damaged file can keep it open until exit
     * (where libhdf5 would report "infinite loop closing library"). */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    /* A small file is read whole, in one go, into memory (the core
     * driver, no backing store): libhdf5 otherwise reads its metadata
     * object by object, ~55 small preads per rank group, which were most
     * of opening a run of host files. Large files (event data) are read
     * where needed.
     * Evict on close, for files of few groups: an object's metadata
     * leaves libhdf5's cache when the reader closes it. Without it a host
     * file of 64 ranks keeps ~1,000 cache entries until H5Fclose, which
     * frees them one by one: with the malloc churn meanwhile, half the CPU
     * time of opening a run of host files (bench/bench_reader_scale.py).
     * But libhdf5 1.10 flushes a closed object's entries by scanning its
     * whole cache, at every close, which is quadratic in the groups of a
     * file: one file of 1,024 rank groups (a merged run, or h5py-written;
     * bench/bench_waits_scale.py's profile) took `scope summary` 24 s of
     * CPU for 10 M calls instead of 2.8, and 400 groups of 10 calls 3.4 s
     * instead of 0.6. So a file whose root holds more than
     * EVICT_MAX_LINKS links is opened again without it.
     * A rank file of up to 16 MiB is mostly its events (a million calls
     * fill 16 MB), read on demand, region by region: read whole, its
     * memory (fresh pages, one fault each, ~13 us on a virtual machine)
     * and copy cost more than the rank's whole call stack, for the few
     * dozen metadata reads the core driver saves. So between CORE_SMALL
     * and CORE_MAX a file is read whole only when it holds several rank
     * groups (more root links than /metadata and one /rank<N>). */
    struct stat st;
    off_t size = stat(fpath, &st) == 0 ? st.st_size : CORE_MAX + 1;
    if (size <= CORE_SMALL)
        H5Pset_fapl_core(fapl, 1 << 20, 0);
    /* over whichever driver: no global heap collection reaches libhdf5
     * unchecked (heap_guard.c) */
    if (scope__heap_guard_fapl(fapl) < 0) {
        H5Pclose(fapl);
        return scope__h5_fail(SCOPE_EHDF5, fpath, "cannot set up the file driver");
    }
    H5Pset_evict_on_close(fapl, 1);
    hid_t f = H5Fopen(fpath, H5F_ACC_RDONLY, fapl);
    H5G_info_t gi;
    int links = f >= 0 && H5Gget_info(f, &gi) >= 0 ? (int)gi.nlinks : 0;
    int core = size <= CORE_SMALL || (size <= CORE_MAX && links > 2);
    if (f >= 0 && (links > EVICT_MAX_LINKS || (core && size > CORE_SMALL))) {
        H5Fclose(f);
        if (core)
            H5Pset_fapl_core(fapl, 1 << 20, 0);
        H5Pset_evict_on_close(fapl, links <= EVICT_MAX_LINKS);
        f = H5Fopen(fpath, H5F_ACC_RDONLY, fapl);
    }
    if (f >= 0) {
        H5Pclose(fapl);
        *out = f;
        return 0;
    }
    /* read HDF5's error stack before any other call clears it */
    int rc = scope__h5_fail(SCOPE_EHDF5, fpath, "cannot open the HDF5 file");
    H5Pclose(fapl);
    if (rc == SCOPE_ETRUNC)
        return rc;  /* the most precise reason */
    htri_t is = H5Fis_hdf5(fpath);
    if (is < 0)
        return scope__h5_fail(SCOPE_EIO, fpath, "cannot be read");
    if (is == 0) {
        H5Eclear2(H5E_DEFAULT);
        return scope__fail(SCOPE_ENOTHDF5, "%s: not an HDF5 file", fpath);
    }
    return rc;
}

/* Returns 1 and stores the value if the open attribute `a` is one integer,
 * 0 if not. Does not close `a`. */
static int attr_int64_read(hid_t a, int64_t *out)
{
    int rc = 0;
    hid_t t = H5Aget_type(a);
    hid_t s = H5Aget_space(a);
    if (t >= 0 && s >= 0 && H5Tget_class(t) == H5T_INTEGER &&
        H5Sget_simple_extent_npoints(s) == 1 &&
        H5Aread(a, H5T_NATIVE_INT64, out) >= 0)
        rc = 1;
    if (s >= 0) H5Sclose(s);
    if (t >= 0) H5Tclose(t);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

/* Returns 1 and stores the value if an integer attribute `name` exists,
 * 0 if it does not (or is not an integer: unknown attrs are ignored). */
int scope__h5_attr_int64(hid_t obj, const char *name, int64_t *out)
{
    if (H5Aexists(obj, name) <= 0)
        return 0;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        return 0;
    int rc = attr_int64_read(a, out);
    H5Aclose(a);
    return rc;
}

/* Returns 1 and a malloc'd copy of a scalar string attribute, 0 if absent
 * or not a single string, SCOPE_ENOMEM. */
int scope__h5_attr_string(hid_t obj, const char *name, char **out)
{
    if (H5Aexists(obj, name) <= 0)
        return 0;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        return 0;
    unsigned long refused = scope__heap_guard_refused(NULL);
    int rc = scope_h5_string_attr_read(a, out);
    H5Aclose(a);
    if (rc < 0)
        return scope__fail(SCOPE_ENOMEM, "out of memory reading attribute %s", name);
    if (rc == 0 && scope__heap_guard_refused(NULL) != refused) {
        /* a string in a damaged collection: the file is damaged, not
         * without the attribute */
        char fpath[4096];
        if (H5Fget_name(obj, fpath, sizeof fpath) < 0)
            snprintf(fpath, sizeof fpath, "?");
        int heap = heap_fail(fpath);
        return heap < 0 ? heap : scope__fail(SCOPE_EFORMAT, "%s: attribute %s: damaged "
                                             "HDF5 global heap", fpath, name);
    }
    return rc;
}

/* Opens a 1-D dataset and its dataspace; EFORMAT when missing or not 1-D. */
static int open_1d(hid_t loc, const char *dset, const char *fpath,
                   hid_t *d, hid_t *space, int64_t *n)
{
    char what[4400];
    /* Opened first, and only on failure asked whether it exists: the
     * existence check walks the path again, which cost a third of opening
     * a run of small files. HDF5's reason is kept across that check. */
    *d = H5Dopen2(loc, dset, H5P_DEFAULT);
    if (*d < 0) {
        hid_t stack = H5Eget_current_stack();
        htri_t exists = H5Lexists(loc, dset, H5P_DEFAULT);
        if (stack >= 0)
            H5Eset_current_stack(stack);    /* also closes it */
        if (exists <= 0) {
            H5Eclear2(H5E_DEFAULT);
            snprintf(what, sizeof what, "missing dataset %s", dset);
            return scope__h5_fail(SCOPE_EFORMAT, fpath, what);
        }
        snprintf(what, sizeof what, "cannot open dataset %s", dset);
        return scope__h5_fail(SCOPE_EFORMAT, fpath, what);
    }
    *space = H5Dget_space(*d);
    hsize_t dims[1];
    if (*space < 0 || H5Sget_simple_extent_ndims(*space) != 1 ||
        H5Sget_simple_extent_dims(*space, dims, NULL) != 1) {
        if (*space >= 0) H5Sclose(*space);
        H5Dclose(*d);
        H5Eclear2(H5E_DEFAULT);
        return scope__fail(SCOPE_EFORMAT, "%s: dataset %s is not "
                           "one-dimensional", fpath, dset);
    }
    *n = (int64_t)dims[0];
    return 0;
}

int scope__h5_len(hid_t loc, const char *dset, const char *fpath, int64_t *n)
{
    hid_t d, s;
    int rc = open_1d(loc, dset, fpath, &d, &s, n);
    if (rc < 0)
        return rc;
    H5Sclose(s);
    H5Dclose(d);
    return 0;
}

/* scope_h5_storage_check() with the reader's messages. Returns 0 or
 * EFORMAT/ETRUNC. */
static int check_storage(hid_t d, int64_t n, const char *fpath, const char *dset)
{
    hsize_t stored;
    switch (scope_h5_storage_check(d, n, &stored)) {
    case SCOPE_H5_STORAGE_NOT_INTEGERS:
        return scope__fail(SCOPE_EFORMAT, "%s: dataset %s does not hold integers", fpath, dset);
    case SCOPE_H5_STORAGE_SPARSE:
        return scope__fail(SCOPE_ETRUNC, "%s: dataset %s claims %lld elements but stores "
                           "%llu bytes", fpath, dset, (long long)n, (unsigned long long)stored);
    case SCOPE_H5_STORAGE_DAMAGED:
        return scope__fail(SCOPE_ETRUNC, "%s: dataset %s is damaged (its storage does not "
                           "match its %lld elements)", fpath, dset, (long long)n);
    default:
        return 0;
    }
}

/* Reads elements [offset, offset + count) converted to int64. Cost: one
 * hyperslab read; HDF5 does the type conversion (u32, u64, i64 all occur). */
/* Reads count elements from offset as memory type `mem` into buf. */
static int read_as(hid_t loc, const char *dset, const char *fpath, int64_t offset,
                   int64_t count, hid_t mem, void *buf)
{
    hid_t d, fs, ms;
    int64_t n;
    int rc = open_1d(loc, dset, fpath, &d, &fs, &n);
    if (rc < 0)
        return rc;
    if (offset < 0 || count < 0 || offset > n || count > n - offset) {
        rc = scope__fail(SCOPE_EFORMAT, "%s: dataset %s has %lld elements, "
                         "%lld at offset %lld were expected", fpath, dset,
                         (long long)n, (long long)count, (long long)offset);
        goto fail_range;
    }
    if (count == 0)
        goto fail_range;    /* nothing to read: success */
    if ((rc = check_storage(d, n, fpath, dset)) < 0)
        goto fail_range;
    hsize_t start[1] = { (hsize_t)offset }, cnt[1] = { (hsize_t)count };
    ms = H5Screate_simple(1, cnt, NULL);
    if (ms < 0 ||
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0 ||
        H5Dread(d, mem, ms, fs, H5P_DEFAULT, buf) < 0) {
        char what[4400];
        snprintf(what, sizeof what, "cannot read dataset %s", dset);
        rc = scope__h5_fail(SCOPE_EHDF5, fpath, what);
    }
    if (ms >= 0)
        H5Sclose(ms);
fail_range:
    H5Sclose(fs);
    H5Dclose(d);
    return rc;
}

int scope__h5_read_int64(hid_t loc, const char *dset, const char *fpath,
                         int64_t offset, int64_t count, int64_t *buf)
{
    return read_as(loc, dset, fpath, offset, count, H5T_NATIVE_INT64, buf);
}

int scope__h5_read_int32(hid_t loc, const char *dset, const char *fpath,
                         int64_t offset, int64_t count, int32_t *buf)
{
    return read_as(loc, dset, fpath, offset, count, H5T_NATIVE_INT32, buf);
}

int scope__h5_len_read(hid_t loc, const char *dset, const char *fpath, int64_t max,
                       int64_t *n, int64_t **buf)
{
    hid_t d, fs;
    *buf = NULL;
    int rc = open_1d(loc, dset, fpath, &d, &fs, n);
    if (rc < 0)
        return rc;
    int64_t *b = *n > 0 && *n <= max ? malloc((size_t)*n * sizeof *b) : NULL;
    if (b && check_storage(d, *n, fpath, dset) == 0 &&
        H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) >= 0) {
        *buf = b;
        b = NULL;
    }
    free(b);
    H5Eclear2(H5E_DEFAULT);
    H5Sclose(fs);
    H5Dclose(d);
    return 0;
}

void scope__free_strings(char **s, int64_t n)
{
    if (!s)
        return;
    for (int64_t i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

/* Reads all of string dataset d as memory type mt into buf (NULL: its
 * allocation failed). 0 or the error; the caller frees buf either way
 * (freeing it here would leave the caller's pointer dangling). */
static int read_whole(hid_t d, hid_t mt, void *buf, const char *fpath)
{
    if (buf && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
        return 0;
    return buf ? scope__h5_fail(SCOPE_EHDF5, fpath, "cannot read a string dataset")
               : scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
}

/* Reads a 1-D string dataset (variable or fixed length) into a malloc'd
 * array of malloc'd strings; free with scope__free_strings(). */
int scope__h5_read_strings(hid_t loc, const char *dset, const char *fpath,
                           char ***out, int64_t *nout)
{
    hid_t d, s, t, mt = -1;
    int64_t n;
    char **res = NULL;
    int rc = open_1d(loc, dset, fpath, &d, &s, &n);
    if (rc < 0)
        return rc;
    t = H5Dget_type(d);
    if (t < 0 || H5Tget_class(t) != H5T_STRING) {
        rc = scope__fail(SCOPE_EFORMAT, "%s: dataset %s does not hold "
                         "strings", fpath, dset);
        goto fail_type;
    }
    if (n > (1 << 24)) { /* a name list, never this long: a damaged dataspace */
        rc = scope__fail(SCOPE_EFORMAT, "%s: dataset %s claims %lld strings", fpath, dset,
                         (long long)n);
        goto fail_type;
    }
    res = calloc(n ? (size_t)n : 1, sizeof *res);
    mt = H5Tcopy(H5T_C_S1);
    if (!res || mt < 0) {
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory reading %s",
                         fpath, dset);
        goto fail_type;
    }
    if (n == 0)
        goto done;
    if (H5Tis_variable_str(t) > 0) {
        char **raw = calloc((size_t)n, sizeof *raw);
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5Tget_cset(t));
        if ((rc = read_whole(d, mt, raw, fpath)) < 0) {
            free(raw);
            goto fail_type;
        }
        for (int64_t i = 0; i < n; i++)
            if (!(res[i] = strdup(raw[i] ? raw[i] : "")))
                rc = SCOPE_ENOMEM;
        H5Dvlen_reclaim(mt, s, H5P_DEFAULT, raw);
        free(raw);
    } else {
        size_t sz = H5Tget_size(t);
        char *buf = calloc((size_t)n, sz + 1);
        H5Tset_size(mt, sz + 1);
        H5Tset_strpad(mt, H5T_STR_NULLTERM);
        if ((rc = read_whole(d, mt, buf, fpath)) < 0) {
            free(buf);
            goto fail_type;
        }
        for (int64_t i = 0; i < n; i++)
            if (!(res[i] = strndup(buf + (size_t)i * (sz + 1), sz)))
                rc = SCOPE_ENOMEM;
        free(buf);
    }
    if (rc < 0) {
        scope__fail(rc, "%s: out of memory reading %s", fpath, dset);
        goto fail_type;
    }
done:
    *out = res;
    *nout = n;
    res = NULL;
fail_type:
    scope__free_strings(res, n);
    if (mt >= 0) H5Tclose(mt);
    if (t >= 0) H5Tclose(t);
    H5Sclose(s);
    H5Dclose(d);
    return rc;
}

int scope__h5_read_wide(hid_t f, const char *fpath, const char *grp, const char *name,
                     int64_t want, int64_t *n, int64_t **out)
{
    *out = NULL;
    *n = 0;
    char *dpath = NULL;
    if (asprintf(&dpath, "%s/%s", grp, name) < 0)
        return scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
    int rc = 0;
    if (H5Lexists(f, dpath, H5P_DEFAULT) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        goto done;
    }
    if ((rc = scope__h5_len(f, dpath, fpath, n)) < 0)
        goto done;
    if (want >= 0 && *n != want) {
        rc = scope__fail(SCOPE_EFORMAT, "%s: %s has %lld values, %lld expected", fpath, dpath,
                         (long long)*n, (long long)want);
        goto done;
    }
    if (*n == 0)
        goto done;
    if (!(*out = malloc((size_t)*n * sizeof **out))) {
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
        goto done;
    }
    if ((rc = scope__h5_read_int64(f, dpath, fpath, 0, *n, *out)) < 0) {
        free(*out);
        *out = NULL;
    }
done:
    free(dpath);
    return rc;
}

int32_t *scope__narrow32(const int64_t *w, int64_t n)
{
    int32_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int64_t i = 0; v && i < n; i++)
        v[i] = (int32_t)w[i];
    return v;
}

char **scope__split_names(const int64_t *bytes, int64_t len, int64_t n)
{
    char **v = calloc((size_t)(n ? n : 1), sizeof *v);
    int64_t at = 0;
    for (int64_t i = 0; v && i < n; i++) {
        int64_t e = at;
        while (e < len && bytes[e] != 0)
            e++;
        if (e >= len || !(v[i] = malloc((size_t)(e - at + 1)))) {
            scope__free_strings(v, n);
            return NULL;
        }
        for (int64_t j = at; j < e; j++)
            v[i][j - at] = (char)bytes[j];
        v[i][e - at] = 0;
        at = e + 1;
    }
    return v;
}
