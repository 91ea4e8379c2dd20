/*
 * scope_h5_read.h - the rules by which a scope file is read, where both
 * the reader and the converter's host summary table apply them: the table
 * caches what the reader would read, so the two must not differ by a
 * byte. One string attribute (fixed or variable length), what any one
 * attribute holds, whether a
 * dataset's storage can hold what it claims, and what is made of a
 * region's calls at open: its first call, the check of its times and its
 * statistics; and HDF5's error report turned off around code that meets
 * failures on purpose (both sides' one helper). For HDF5-linked code only
 * (convert/, reader/); the recorder and the preload never include it.
 * Header-only, like the rest of format/.
 */
#ifndef SCOPE_H5_READ_H
#define SCOPE_H5_READ_H

#include <hdf5.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scope_format.h"

/* A region with at most this many calls is read whole when a profile is
 * opened, and summarised then; a larger one is read when asked. */
#define SCOPE_READ_WHOLE_MAX 65536
/* The calls looked at for a region's first call (scope_first_call_of). */
#define SCOPE_FIRST_CALLS 64

/* HDF5's automatic error report (a stack printed on stderr), off around
 * code that meets failures on purpose: absent attributes, broken links,
 * a file that may not be there. _begin keeps the handler in force in
 * *saved and turns it off; _end puts it back. */
typedef struct {
    H5E_auto2_t func;
    void *data;
} scope_h5_quiet;

static inline void scope_h5_quiet_begin(scope_h5_quiet *saved)
{
    saved->func = NULL;
    saved->data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &saved->func, &saved->data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static inline void scope_h5_quiet_end(const scope_h5_quiet *saved)
{
    H5Eset_auto2(H5E_DEFAULT, saved->func, saved->data);
}

/* Reads attribute `a` (left open) when it holds exactly one string, into
 * a malloc'd copy in *out (fixed-length strings cut at their first NUL).
 * Returns 1 with *out set; 0 with *out NULL when it is not one string or
 * cannot be read (libhdf5's error stack cleared); -1 when out of memory.
 * Cost: one attribute read. */
static inline int scope_h5_string_attr_read(hid_t a, char **out)
{
    int rc = 0;
    hid_t t = H5Aget_type(a), s = H5Aget_space(a), mt = H5Tcopy(H5T_C_S1);
    *out = NULL;
    if (t < 0 || s < 0 || mt < 0 || H5Tget_class(t) != H5T_STRING ||
        H5Sget_simple_extent_npoints(s) != 1)
        goto done;
    if (H5Tis_variable_str(t) > 0) {
        char *v = NULL;
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5Tget_cset(t));
        if (H5Aread(a, mt, &v) < 0)
            goto done;
        *out = strdup(v ? v : "");
        H5Dvlen_reclaim(mt, s, H5P_DEFAULT, &v);
    } else {
        size_t sz = H5Tget_size(t);
        char *buf = (char *)calloc(1, sz + 1);
        if (!buf) {
            rc = -1;
            goto done;
        }
        H5Tset_size(mt, sz + 1);
        H5Tset_strpad(mt, H5T_STR_NULLTERM);
        if (H5Aread(a, mt, buf) < 0) {
            free(buf);
            goto done;
        }
        *out = buf;
    }
    rc = *out ? 1 : -1;
done:
    if (mt >= 0)
        H5Tclose(mt);
    if (s >= 0)
        H5Sclose(s);
    if (t >= 0)
        H5Tclose(t);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

/* What attribute `a` (left open) holds, as the reader caches a rank's
 * attributes and the host summary table stores them: SCOPE_HS_KIND_INT
 * (*i, and *d = (double)*i: the number getter's C cast), _FLOAT (*d),
 * _STRING (*s, malloc'd), _OTHER (not one integer, float or string), or 0
 * when libhdf5 cannot say or read it (the reader then asks libhdf5 again
 * when the attribute is wanted); -1 when out of memory. An integer counts
 * when signed, or unsigned of fewer than 8 bytes (a 64-bit unsigned value
 * above INT64_MAX has no int64). Clears libhdf5's error stack. Cost: one
 * attribute read. */
static inline int scope_h5_attr_value(hid_t a, int64_t *i, double *d, char **s)
{
    hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
    H5T_class_t cl = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    hssize_t npoints = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    size_t size = t >= 0 ? H5Tget_size(t) : 0;
    H5T_sign_t sign = cl == H5T_INTEGER ? H5Tget_sign(t) : H5T_SGN_ERROR;
    int kind = 0;
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    if (t < 0 || sp < 0)
        ;
    else if (npoints != 1 || (cl != H5T_INTEGER && cl != H5T_FLOAT && cl != H5T_STRING))
        kind = SCOPE_HS_KIND_OTHER;
    else if (cl == H5T_INTEGER) {
        if ((sign == H5T_SGN_2 || size < 8) && size <= 8 &&
            H5Aread(a, H5T_NATIVE_INT64, i) >= 0) {
            *d = (double)*i;
            kind = SCOPE_HS_KIND_INT;
        }
    } else if (cl == H5T_FLOAT) {
        if (size <= 8 && H5Aread(a, H5T_NATIVE_DOUBLE, d) >= 0)
            kind = SCOPE_HS_KIND_FLOAT;
    } else {
        int rc = scope_h5_string_attr_read(a, s);
        kind = rc == 1 ? SCOPE_HS_KIND_STRING : rc == 0 ? SCOPE_HS_KIND_OTHER : -1;
    }
    H5Eclear2(H5E_DEFAULT);
    return kind;
}

/* What scope_h5_storage_check() finds. */
enum {
    SCOPE_H5_STORAGE_OK = 0,
    SCOPE_H5_STORAGE_NOT_INTEGERS = 1, /* not an integer type of 1..8 bytes */
    SCOPE_H5_STORAGE_SPARSE = 2,       /* chunked, far fewer bytes than claimed */
    SCOPE_H5_STORAGE_DAMAGED = 3,      /* contiguous/compact, size or place wrong */
};

/* Whether dataset `d`, whose dataspace claims n elements, stores them
 * before libhdf5 is asked to read them: on a damaged file libhdf5 1.10
 * trusts a contiguous layout's size and address and copies out of bounds
 * (found by flipping bits in profiles), and chunks never written read as
 * the fill value (a hostile file could claim billions of calls in a few
 * bytes; timestamps do not compress 1000-fold). *stored = the bytes
 * stored. Returns SCOPE_H5_STORAGE_*; clears libhdf5's error stack.
 * Cost: a few metadata queries, no data read. */
static inline int scope_h5_storage_check(hid_t d, int64_t n, hsize_t *stored)
{
    hid_t t = H5Dget_type(d);
    size_t size = t >= 0 ? H5Tget_size(t) : 0;
    int integer = t >= 0 && H5Tget_class(t) == H5T_INTEGER;
    *stored = 0;
    if (t >= 0)
        H5Tclose(t);
    if (!integer || size == 0 || size > 8) {
        H5Eclear2(H5E_DEFAULT);
        return SCOPE_H5_STORAGE_NOT_INTEGERS;
    }
    hid_t pl = H5Dget_create_plist(d);
    H5D_layout_t layout = pl >= 0 ? H5Pget_layout(pl) : H5D_LAYOUT_ERROR;
    if (pl >= 0)
        H5Pclose(pl);
    int rc = SCOPE_H5_STORAGE_OK;
    if (layout == H5D_CHUNKED && n > 0) {
        *stored = H5Dget_storage_size(d);
        if (*stored == 0 || (hsize_t)n * size / 1000 > *stored)
            rc = SCOPE_H5_STORAGE_SPARSE;
    }
    if (layout == H5D_CONTIGUOUS || layout == H5D_COMPACT) {
        *stored = H5Dget_storage_size(d);
        haddr_t addr = layout == H5D_CONTIGUOUS ? H5Dget_offset(d) : HADDR_UNDEF;
        hsize_t fsize = 0;
        hid_t f = H5Iget_file_id(d);
        if (f >= 0) {
            H5Fget_filesize(f, &fsize);
            H5Fclose(f);
        }
        /* n > 0 elements but no storage: never written, or a damaged
         * layout message (libhdf5 then copies from nowhere) */
        int ok = n == 0 || *stored == (hsize_t)n * size;
        if (ok && layout == H5D_CONTIGUOUS && n > 0)
            ok = addr != HADDR_UNDEF && addr < fsize && *stored <= fsize - addr;
        if (!ok)
            rc = SCOPE_H5_STORAGE_DAMAGED;
    }
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

/* The start of a region's first call (*first) and the latest end among
 * the calls that start then (*end), over its first k >= 1 calls st, en
 * (sorted by start, those come first). `durations`: en holds durations and
 * st, after the first, deltas (schema 3). Sums are unsigned: a damaged
 * file must not overflow here (its times are refused when the calls are
 * loaded). Cost: O(k). */
static inline void scope_first_call_of(const int64_t *st, const int64_t *en, int64_t k,
                                       int durations, int64_t *first, int64_t *end)
{
    int64_t s = st[0];
    *first = s;
    *end = INT64_MIN;
    for (int64_t i = 0; i < k; i++) {
        if (durations && i > 0)
            s = (int64_t)((uint64_t)s + (uint64_t)st[i]); /* cumulative */
        else if (!durations)
            s = st[i];
        if (s != *first)
            break;
        int64_t e = durations ? (int64_t)((uint64_t)s + (uint64_t)en[i]) : en[i];
        if (e > *end)
            *end = e;
    }
}

/* The first of n calls (s, e) whose times are impossible (beyond 2^61 ns,
 * ending before they start, or lasting over 2^56 ns), or -1 when all are
 * sane. Cost: O(n). */
static inline int64_t scope_times_first_bad(const int64_t *s, const int64_t *e, int64_t n)
{
    const int64_t lim = INT64_C(1) << 61;
    for (int64_t i = 0; i < n; i++)
        if (s[i] < -lim || s[i] > lim || e[i] < s[i] || e[i] > lim ||
            e[i] - s[i] > (INT64_C(1) << 56))
            return i;
    return -1;
}

/* A region's statistics over its calls on one rank. */
struct scope_call_stats {
    int64_t total, min, max, max_end;
    double mean, m2;    /* m2: the sum of squared deviations from mean */
};

/* The statistics of n calls (s, e): exact int64 sums, then a second pass
 * for the squared deviations (stable). s NULL: e holds the durations (and
 * max_end is then the longest). Returns 0, or -1 when the total
 * overflows int64 (*out then unset). Cost: two passes over the calls. */
static inline int scope_call_stats_of(const int64_t *s, const int64_t *e, int64_t n,
                                      struct scope_call_stats *out)
{
    int64_t total = 0, mn = INT64_MAX, mx = INT64_MIN, max_end = INT64_MIN;
    for (int64_t i = 0; i < n; i++) {
        int64_t d = s ? e[i] - s[i] : e[i];
        if (__builtin_add_overflow(total, d, &total))
            return -1;
        if (d < mn)
            mn = d;
        if (d > mx)
            mx = d;
        if (e[i] > max_end)
            max_end = e[i];
    }
    double mean = n ? (double)total / (double)n : 0.0, m2 = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double dev = (double)(s ? e[i] - s[i] : e[i]) - mean;
        m2 += dev * dev;
    }
    out->total = total;
    out->min = mn;
    out->max = mx;
    out->max_end = max_end;
    out->mean = mean;
    out->m2 = m2;
    return 0;
}

#endif
