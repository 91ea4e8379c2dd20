/*
 * h5_util.c - the small HDF5 writing helpers of the converter (scalar and
 * string attributes, datasets of a known size, slices, tables),
 * shared by h5writer.c, merge.c and their neighbours, and HDF5's reason
 * for a failed call in words. Kept apart so that h5writer.c
 * holds the conversion itself.
 */
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_util.h"

hid_t scope__h5_create_file(const char *path)
{
    /* made afresh each time: the converter closes the library after
     * each request (h5writer.c), which would void a kept list */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && H5Pset_sieve_buf_size(fapl, 0) < 0) {
        H5Pclose(fapl);
        fapl = H5I_INVALID_HID;
    }
    hid_t f = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, fapl >= 0 ? fapl : H5P_DEFAULT);
    if (fapl >= 0)
        H5Pclose(fapl);
    return f;
}

/* A scalar numeric attribute of file type `ftype` from *v (memory type
 * `mtype`). Returns 0 or -1. */
int scope__h5_attr_scalar(hid_t obj, const char *name, hid_t ftype, hid_t mtype, const void *v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, mtype, v);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    return rc < 0 ? -1 : 0;
}

int scope__h5_attr_i64(hid_t obj, const char *name, int64_t v)
{
    return scope__h5_attr_scalar(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

int scope__h5_attr_i8(hid_t obj, const char *name, int8_t v)
{
    return scope__h5_attr_scalar(obj, name, H5T_STD_I8LE, H5T_NATIVE_INT8, &v);
}

hid_t scope__h5_vlen_utf8(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

int scope__h5_attr_str(hid_t obj, const char *name, const char *v)
{
    hid_t t = scope__h5_vlen_utf8();
    int rc = scope__h5_attr_scalar(obj, name, t, t, &v);
    H5Tclose(t);
    return rc;
}

void scope__h5_close_datasets(hid_t *ds, int n)
{
    for (int k = 0; k < n; k++) {
        if (ds[k] > 0)
            H5Dclose(ds[k]);
        ds[k] = H5I_INVALID_HID;
    }
}

hid_t scope__h5_make_dataset(hid_t grp, const char *name, hid_t type, uint64_t n)
{
    hsize_t dims[1] = { n };
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t ds = H5Dcreate2(grp, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(sp);
    return ds;
}

/* Writes a 1-D table of n rows of compound `type` from `rows` (nothing
 * is written for n == 0, but the dataset exists). Returns 0 or -1.
 * The conversion buffers (a table with strings is converted on the way
 * out) are 64 KiB, converted strip by strip: libhdf5's default allocates
 * and zeroes 1 MiB for each, per write, which was a third of a host
 * writer's CPU for tables of a few rows. */
int scope__h5_write_table(hid_t grp, const char *name, hid_t type, size_t n, const void *rows)
{
    hid_t ds = scope__h5_make_dataset(grp, name, type, n);
    hid_t dxpl = n ? H5Pcreate(H5P_DATASET_XFER) : H5P_DEFAULT;
    if (dxpl < 0 || (dxpl != H5P_DEFAULT && H5Pset_buffer(dxpl, 64u << 10, NULL, NULL) < 0)) {
        if (dxpl >= 0)
            H5Pclose(dxpl);
        dxpl = H5P_DEFAULT;
    }
    int rc = ds < 0 || (n && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, dxpl, rows) < 0);
    if (dxpl != H5P_DEFAULT)
        H5Pclose(dxpl);
    if (ds >= 0)
        H5Dclose(ds);
    return rc ? -1 : 0;
}

/* Writes n elements at offset `off` of a 1-D dataset. */
int scope__h5_write_slice(hid_t ds, hid_t memtype, const void *buf, uint64_t off, uint64_t n)
{
    if (n == 0)
        return 0;
    hsize_t start[1] = { off }, count[1] = { n };
    hid_t fsp = H5Dget_space(ds);
    hid_t msp = H5Screate_simple(1, count, NULL);
    herr_t rc = H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL);
    if (rc >= 0)
        rc = H5Dwrite(ds, memtype, msp, fsp, H5P_DEFAULT, buf);
    H5Sclose(msp);
    H5Sclose(fsp);
    return rc < 0 ? -1 : 0;
}

struct h5_reason {
    char desc[256];
    int sys_errno; /* the errno the file driver met, 0 if none */
};

static herr_t reason_cb(unsigned n, const H5E_error2_t *e, void *arg)
{
    struct h5_reason *r = arg;
    const char *en = e->desc ? strstr(e->desc, "errno = ") : NULL;
    if (en && !r->sys_errno)
        r->sys_errno = atoi(en + 8);
    /* walking upward, n == 0 is the innermost (most specific) entry */
    if (n == 0 && e->desc)
        snprintf(r->desc, sizeof r->desc, "%s", e->desc);
    return 0;
}

void scope__h5_explain(char *out, size_t len, const char *file, const char *what)
{
    struct h5_reason r = { "", 0 };
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, reason_cb, &r);
    H5Eclear2(H5E_DEFAULT);
    if (r.sys_errno > 0)
        snprintf(out, len, "%s: %s: %s", file, what, strerror(r.sys_errno));
    else if (r.desc[0])
        snprintf(out, len, "%s: %s (HDF5: %s)", file, what, r.desc);
    else
        snprintf(out, len, "%s: %s", file, what);
}

int scope__h5_write_columns(hid_t grp, const char *name, const struct scope__h5_column *cols,
                            size_t ncols)
{
    hid_t g = H5Gcreate2(grp, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int rc = 0;
    for (size_t k = 0; k < ncols && rc == 0; k++) {
        hid_t d = scope__h5_make_dataset(g, cols[k].name, cols[k].file_type, cols[k].n);
        if (d < 0 || (cols[k].n && scope__h5_write_slice(d, cols[k].mem_type, cols[k].buf, 0,
                                                         cols[k].n) < 0))
            rc = -1;
        if (d >= 0)
            H5Dclose(d);
    }
    H5Gclose(g);
    return rc;
}
