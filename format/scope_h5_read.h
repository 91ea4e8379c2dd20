/*
 * scope_h5_read.h - the rules by which a scope file is read, where both
 * the reader and the converter's host summary table apply them: the table
 * caches what the reader would read, so the two must not differ by a
 * byte. One string attribute (fixed or variable length), and whether a
 * dataset's storage can hold what it claims. For HDF5-linked code only
 * (convert/, reader/); the recorder and the preload never include it.
 * Header-only, like the rest of format/.
 */
#ifndef SCOPE_H5_READ_H
#define SCOPE_H5_READ_H

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

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

#endif
