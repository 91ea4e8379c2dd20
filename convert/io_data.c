/*
 * io_data.c - what I/O calls did (docs/format.md, "What I/O calls did"):
 * the columns io_file, io_bytes, io_offset, io_issuer and io_failed
 * beside an I/O region's start_times, and the rank's file table
 * (/rank<N>/files) from the journal's SCOPE_META_FILE rows.
 *
 * Apart from call_data.c (what MPI calls moved) because the two sets of
 * columns belong to different regions and records; both follow the
 * writer's windows the same way: a call's values go into the slot its
 * begin reserved, and a call whose window was already written is patched
 * with one-element writes. A call without an I/O data record (one the
 * capture did not describe) keeps the fill values: no file, no bytes, no
 * offset.
 */
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "h5_util.h"
#include "scope_error.h"
#include "scope_format.h"

enum { C_FILE, C_BYTES, C_OFFSET, C_ISSUER, C_FAILED, N_COLS };

/* Each column: its name, its width in bytes (4: int32, 8: int64, 1:
 * int8) and what a call without data reads. */
static const struct {
    const char *name;
    int width;
    int64_t fill;
} col[N_COLS] = {
    [C_FILE] = { SCOPE_D_IO_FILE, 4, -1 },
    [C_BYTES] = { SCOPE_D_IO_BYTES, 8, 0 },
    [C_OFFSET] = { SCOPE_D_IO_OFFSET, 8, -1 },
    [C_ISSUER] = { SCOPE_D_IO_ISSUER, 1, 0 },
    [C_FAILED] = { SCOPE_D_IO_FAILED, 1, 0 },
};

struct region_io {
    void *win[N_COLS];      /* one window per column, o->win slots */
    hid_t ds[N_COLS];
};

static hid_t file_type(int k)
{
    return col[k].width == 8 ? H5T_STD_I64LE : col[k].width == 4 ? H5T_STD_I32LE : H5T_STD_I8LE;
}

static hid_t mem_type(int k)
{
    return col[k].width == 8 ? H5T_NATIVE_INT64 : col[k].width == 4 ? H5T_NATIVE_INT32
                                                                    : H5T_NATIVE_INT8;
}

/* Stores v into slot i of a column's window (or any buffer of its type). */
static void put(void *buf, int k, uint64_t i, int64_t v)
{
    if (col[k].width == 8)
        ((int64_t *)buf)[i] = v;
    else if (col[k].width == 4)
        ((int32_t *)buf)[i] = (int32_t)v;
    else
        ((int8_t *)buf)[i] = (int8_t)v;
}

int scope__conv_io_begin(struct region_out *o, uint64_t i)
{
    struct region_io *d = o->io;
    if (!d) {
        d = o->io = calloc(1, sizeof *d);
        if (!d)
            return SCOPE_ENOMEM;
        for (int k = 0; k < N_COLS; k++) {
            d->ds[k] = H5I_INVALID_HID;
            if (!(d->win[k] = malloc((size_t)o->win * (size_t)col[k].width)))
                return SCOPE_ENOMEM;
        }
    }
    for (int k = 0; k < N_COLS; k++)
        put(d->win[k], k, i, col[k].fill);
    return 0;
}

int scope__conv_io_datasets(struct region_out *o, hid_t g)
{
    struct region_io *d = o->io;
    for (int k = 0; d && k < N_COLS; k++) {
        hsize_t dims[1] = { o->count };
        hid_t sp = H5Screate_simple(1, dims, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        char fill[8];
        put(fill, k, 0, col[k].fill);
        H5Pset_fill_value(dcpl, mem_type(k), fill);
        d->ds[k] = H5Dcreate2(g, col[k].name, file_type(k), sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Pclose(dcpl);
        H5Sclose(sp);
        if (d->ds[k] < 0)
            return SCOPE_EHDF5;
    }
    return 0;
}

int scope__conv_io_flush(struct region_out *o, uint64_t n)
{
    struct region_io *d = o->io;
    for (int k = 0; d && k < N_COLS; k++)
        if (scope__h5_write_slice(d->ds[k], mem_type(k), d->win[k], o->base, n) < 0)
            return SCOPE_EHDF5;
    return 0;
}

void scope__conv_io_close(struct region_out *o)
{
    struct region_io *d = o->io;
    if (d)
        scope__h5_close_datasets(d->ds, N_COLS);
}

void scope__conv_io_free(struct region_out *o)
{
    struct region_io *d = o->io;
    if (!d)
        return;
    for (int k = 0; k < N_COLS; k++)
        free(d->win[k]);
    free(d);
    o->io = NULL;
}

int scope__conv_io_set(struct conv *c, struct frame f, const struct scope_io_data *v)
{
    struct region_out *o = &c->reg[f.region];
    struct region_io *d = o->io;
    if (!d)
        return 0;   /* pass 1 saw no I/O data in this region: a racing thread */
    /* a row the journal never defined reads as no file */
    int32_t file = v->file >= 0 && (uint32_t)v->file < c->jr.n_files && c->jr.files[v->file].defined
                       ? v->file : -1;
    int64_t val[N_COLS] = { file, v->bytes, v->offset < 0 ? -1 : v->offset, v->issuer, v->failed };
    for (int k = 0; k < N_COLS; k++) {
        if (f.slot >= o->base) {
            put(d->win[k], k, f.slot - o->base, val[k]);
            continue;
        }
        /* its window is written: the datasets exist */
        char one[8];
        put(one, k, 0, val[k]);
        if (scope__h5_write_slice(d->ds[k], mem_type(k), one, f.slot, 1) < 0)
            return SCOPE_EHDF5;
    }
    return 0;
}

/* Appends s and its NUL to blob at *at. */
static void add_string(char *blob, size_t *at, const char *s)
{
    size_t l = strlen(s) + 1;
    memcpy(blob + *at, s, l);
    *at += l;
}

/* A file table row's four strings (name, resolved, fs_type, mount): ""
 * for an id the journal never defined. */
static void file_strings(const struct scope_jr_file *f, const char *s[4])
{
    s[0] = f->defined ? f->name : "";
    s[1] = f->defined ? f->resolved : "";
    s[2] = f->defined ? f->fs_type : "";
    s[3] = f->defined ? f->mount : "";
}

int scope__conv_write_files(struct conv *c)
{
    const struct scope_jr *jr = &c->jr;
    uint32_t n = jr->n_files;
    if (n == 0)
        return 0;
    int8_t *kind = calloc(n, 1), *layer = calloc(n, 1);
    int32_t *parent = calloc(n, sizeof *parent);
    int64_t *dev = calloc(n, 8), *ino = calloc(n, 8), *bs = calloc(n, 8);
    size_t lens[4] = { 0, 0, 0, 0 };
    for (uint32_t i = 0; i < n; i++) {
        const struct scope_jr_file *f = &jr->files[i];
        const char *s[4];
        file_strings(f, s);
        for (int k = 0; k < 4; k++)
            lens[k] += strlen(s[k]) + 1;
    }
    char *blob[4];
    for (int k = 0; k < 4; k++)
        blob[k] = malloc(lens[k]);
    int rc = SCOPE_ENOMEM;
    if (!kind || !layer || !parent || !dev || !ino || !bs || !blob[0] || !blob[1] || !blob[2] ||
        !blob[3])
        goto out;
    size_t at[4] = { 0, 0, 0, 0 };
    for (uint32_t i = 0; i < n; i++) {
        const struct scope_jr_file *f = &jr->files[i];
        const char *s[4];
        file_strings(f, s);
        for (int k = 0; k < 4; k++)
            add_string(blob[k], &at[k], s[k]);
        kind[i] = f->defined ? (int8_t)f->m.kind : (int8_t)SCOPE_FILE_OTHER;
        /* a parent the journal never defined reads as none */
        parent[i] = f->defined && f->m.parent >= 0 && (uint32_t)f->m.parent < n ? f->m.parent : -1;
        layer[i] = f->defined ? (int8_t)f->m.layer : 0;
        dev[i] = f->defined ? (int64_t)f->m.dev : 0;
        ino[i] = f->defined ? (int64_t)f->m.ino : 0;
        bs[i] = f->defined ? f->m.block_size : 0;
    }
    const struct scope__h5_column cols[] = {
        { SCOPE_D_FILE_KIND, H5T_STD_I8LE, H5T_NATIVE_INT8, kind, n },
        { SCOPE_D_FILE_PARENT, H5T_STD_I32LE, H5T_NATIVE_INT32, parent, n },
        { SCOPE_D_FILE_LAYER, H5T_STD_I8LE, H5T_NATIVE_INT8, layer, n },
        { SCOPE_D_FILE_DEV, H5T_STD_I64LE, H5T_NATIVE_INT64, dev, n },
        { SCOPE_D_FILE_INO, H5T_STD_I64LE, H5T_NATIVE_INT64, ino, n },
        { SCOPE_D_FILE_BLOCK_SIZE, H5T_STD_I64LE, H5T_NATIVE_INT64, bs, n },
        { SCOPE_D_FILE_NAMES, H5T_STD_U8LE, H5T_NATIVE_UINT8, blob[0], at[0] },
        { SCOPE_D_FILE_RESOLVED, H5T_STD_U8LE, H5T_NATIVE_UINT8, blob[1], at[1] },
        { SCOPE_D_FILE_FS_TYPES, H5T_STD_U8LE, H5T_NATIVE_UINT8, blob[2], at[2] },
        { SCOPE_D_FILE_MOUNTS, H5T_STD_U8LE, H5T_NATIVE_UINT8, blob[3], at[3] },
    };
    rc = scope__h5_write_columns(c->rank_grp, SCOPE_G_FILES, cols, sizeof cols / sizeof *cols) < 0
             ? SCOPE_EHDF5 : 0;
out:
    free(kind);
    free(layer);
    free(parent);
    free(dev);
    free(ino);
    free(bs);
    for (int k = 0; k < 4; k++)
        free(blob[k]);
    return rc;
}
