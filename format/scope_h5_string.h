/*
 * scope_h5_string.h - reading one string attribute of a scope file, fixed
 * or variable length, the one way both the reader and the converter's host
 * summary table do it: the table caches what the reader would read, so
 * the two must not differ by a byte. For HDF5-linked code only (convert/,
 * reader/); the recorder and the preload never include it. Header-only,
 * like the rest of format/.
 */
#ifndef SCOPE_H5_STRING_H
#define SCOPE_H5_STRING_H

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

#endif
