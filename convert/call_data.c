/*
 * call_data.c - the columns of what MPI calls moved (docs/format.md, "What
 * MPI calls moved"): bytes_sent, bytes_received, dest, source, tag and comm
 * beside a region's start_times (and bytes_to_self in a region of
 * all-to-all calls with per-member counts: its self records'), and the
 * rank's communicators table.
 *
 * Apart from h5writer.c because they exist only for regions whose calls
 * carried data records (journal.h), and follow the writer's windows: a
 * call's values go into the slot its begin reserved, and the rare call
 * whose window was already written is patched with one-element writes.
 * A call without a data record (an MPI call that failed, or one recorded
 * before the capture knew its communicator) keeps the fill values: no
 * bytes, no partner, no tag, no communicator.
 */
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "h5_util.h"
#include "scope_error.h"
#include "scope_format.h"

enum { D_SENT, D_RECEIVED, D_DEST, D_SOURCE, D_TAG, D_COMM, N_COLS };

static const char *const col_name[N_COLS] = {
    SCOPE_D_BYTES_SENT, SCOPE_D_BYTES_RECEIVED, SCOPE_D_DEST, SCOPE_D_SOURCE, SCOPE_D_TAG, SCOPE_D_COMM,
};

static int is_i64(int k)
{
    return k == D_SENT || k == D_RECEIVED;
}

/* The fill value of each column: what a call without data reads. */
static const int64_t fill64 = 0;
static const int32_t fill32[N_COLS] = { 0, 0, -1, -1, SCOPE_NO_TAG, -1 };

size_t scope__conv_data_window_bytes(uint32_t win)
{
    return (size_t)win * (2 * sizeof(int64_t) + 4 * sizeof(int32_t));
}

int scope__conv_data_window(struct region_out *o, char *mem)
{
    struct region_data *d = o->data = calloc(1, sizeof *d);
    if (!d)
        return SCOPE_ENOMEM;
    for (int k = 0; k < N_COLS; k++)
        d->ds[k] = H5I_INVALID_HID;
    size_t w = o->win;
    d->sent = (int64_t *)mem;
    d->received = d->sent + w;
    d->dest = (int32_t *)(d->received + w);
    d->source = d->dest + w;
    d->tag = d->source + w;
    d->comm = d->tag + w;
    d->ds_self = H5I_INVALID_HID;
    if (o->has_self && !(d->self = malloc(w * sizeof *d->self)))
        return SCOPE_ENOMEM;
    return 0;
}

int scope__conv_data_begin(struct region_out *o, uint64_t i)
{
    struct region_data *d = o->data;
    if (!d)
        return SCOPE_ENOMEM; /* scope__conv_data_window failed */
    d->sent[i] = d->received[i] = fill64;
    d->dest[i] = fill32[D_DEST];
    d->source[i] = fill32[D_SOURCE];
    d->tag[i] = fill32[D_TAG];
    d->comm[i] = fill32[D_COMM];
    if (d->self)
        d->self[i] = fill64;
    return 0;
}

int scope__conv_data_datasets(struct region_out *o, hid_t g)
{
    struct region_data *d = o->data;
    if (!d)
        return 0;
    int rc = 0;
    for (int k = 0; k < N_COLS && rc == 0; k++) {
        hsize_t dims[1] = { o->count };
        hid_t sp = H5Screate_simple(1, dims, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (is_i64(k))
            H5Pset_fill_value(dcpl, H5T_NATIVE_INT64, &fill64);
        else
            H5Pset_fill_value(dcpl, H5T_NATIVE_INT32, &fill32[k]);
        /* every element is written (a window's slots start as the fill
         * value): the fill value is what the dataset says, not a first
         * write of the whole column */
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
        d->ds[k] = H5Dcreate2(g, col_name[k], is_i64(k) ? H5T_STD_I64LE : H5T_STD_I32LE, sp,
                              H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Pclose(dcpl);
        H5Sclose(sp);
        if (d->ds[k] < 0)
            rc = SCOPE_EHDF5;
    }
    if (rc == 0 && d->self) {
        hsize_t dims[1] = { o->count };
        hid_t sp = H5Screate_simple(1, dims, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_fill_value(dcpl, H5T_NATIVE_INT64, &fill64);
        d->ds_self = H5Dcreate2(g, SCOPE_D_BYTES_SELF, H5T_STD_I64LE, sp, H5P_DEFAULT, dcpl,
                                H5P_DEFAULT);
        H5Pclose(dcpl);
        H5Sclose(sp);
        if (d->ds_self < 0)
            rc = SCOPE_EHDF5;
    }
    return rc;
}

static const void *column(const struct region_data *d, int k)
{
    switch (k) {
    case D_SENT: return d->sent;
    case D_RECEIVED: return d->received;
    case D_DEST: return d->dest;
    case D_SOURCE: return d->source;
    case D_TAG: return d->tag;
    default: return d->comm;
    }
}

int scope__conv_data_flush(struct region_out *o, uint64_t n)
{
    struct region_data *d = o->data;
    if (!d)
        return 0;
    for (int k = 0; k < N_COLS; k++)
        if (scope__h5_write_slice(d->ds[k], is_i64(k) ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32,
                                  column(d, k), o->base, n) < 0)
            return SCOPE_EHDF5;
    if (d->self && scope__h5_write_slice(d->ds_self, H5T_NATIVE_INT64, d->self, o->base, n) < 0)
        return SCOPE_EHDF5;
    return 0;
}

void scope__conv_data_close(struct region_out *o)
{
    struct region_data *d = o->data;
    if (!d)
        return;
    scope__h5_close_datasets(d->ds, N_COLS);
    scope__h5_close_datasets(&d->ds_self, 1);
}

void scope__conv_data_free(struct region_out *o)
{
    if (o->data)
        free(o->data->self); /* its own, not in the windows */
    free(o->data); /* its windows are the converter's (calls.c) */
    o->data = NULL;
}

int scope__conv_data_set(struct conv *c, struct frame f, const struct scope_call_data *v,
                         const int64_t *self)
{
    struct region_out *o = &c->reg[f.region];
    struct region_data *d = o->data;
    if (!d)
        return 0;   /* pass 1 saw no data in this region: a racing thread */
    int32_t comm = v->comm >= 0 && (uint32_t)v->comm < c->jr.n_comms && c->jr.comms[v->comm].defined
                       ? v->comm : -1;
    if (f.slot >= o->base) {
        uint64_t i = f.slot - o->base;
        d->sent[i] = v->bytes_sent;
        d->received[i] = v->bytes_received;
        d->dest[i] = v->dest;
        d->source[i] = v->source;
        d->tag[i] = v->tag;
        d->comm[i] = comm;
        if (self && d->self)
            d->self[i] = *self;
        return 0;
    }
    /* its window is written: the datasets exist */
    int32_t v32[N_COLS] = { 0, 0, v->dest, v->source, v->tag, comm };
    for (int k = 0; k < N_COLS; k++) {
        const void *p = k == D_SENT ? (const void *)&v->bytes_sent
                        : k == D_RECEIVED ? (const void *)&v->bytes_received : (const void *)&v32[k];
        if (scope__h5_write_slice(d->ds[k], is_i64(k) ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32, p,
                                  f.slot, 1) < 0)
            return SCOPE_EHDF5;
    }
    if (self && d->self &&
        scope__h5_write_slice(d->ds_self, H5T_NATIVE_INT64, self, f.slot, 1) < 0)
        return SCOPE_EHDF5;
    return 0;
}

/* Reads element `at` of a 1-D dataset. Returns 0 or -1. */
static int read_one(hid_t ds, hid_t memtype, uint64_t at, void *out)
{
    hid_t sp = H5Dget_space(ds);
    hsize_t off[1] = { at }, cnt[1] = { 1 };
    hid_t mem = H5Screate_simple(1, cnt, NULL);
    int ok = sp >= 0 && mem >= 0 &&
             H5Sselect_hyperslab(sp, H5S_SELECT_SET, off, NULL, cnt, NULL) >= 0 &&
             H5Dread(ds, memtype, mem, sp, H5P_DEFAULT, out) >= 0;
    if (sp >= 0)
        H5Sclose(sp);
    if (mem >= 0)
        H5Sclose(mem);
    return ok ? 0 : -1;
}

int scope__conv_data_received(struct conv *c, struct frame f, int64_t bytes, int32_t source,
                              int32_t tag)
{
    struct region_out *o = &c->reg[f.region];
    struct region_data *d = o->data;
    if (!d)
        return 0;
    if (f.slot >= o->base) {
        uint64_t i = f.slot - o->base;
        d->received[i] += bytes;    /* an MPI_Startall's receives add up */
        if (source >= 0 && d->source[i] < 0)
            d->source[i] = source;
        if (tag != SCOPE_NO_TAG && d->tag[i] < 0)
            d->tag[i] = tag;
        return 0;
    }
    /* the post's window is written (its datasets stay open until the
     * region's last call): one-element writes. The tag is replaced only
     * when the post took any (it then reads -1 in the file). */
    int32_t old_tag = 0;
    int64_t old_bytes = 0;
    if (read_one(d->ds[D_RECEIVED], H5T_NATIVE_INT64, f.slot, &old_bytes) < 0)
        return SCOPE_EHDF5;
    bytes += old_bytes;
    if (scope__h5_write_slice(d->ds[D_RECEIVED], H5T_NATIVE_INT64, &bytes, f.slot, 1) < 0 ||
        (source >= 0 && scope__h5_write_slice(d->ds[D_SOURCE], H5T_NATIVE_INT32, &source, f.slot, 1) < 0))
        return SCOPE_EHDF5;
    if (tag != SCOPE_NO_TAG && read_one(d->ds[D_TAG], H5T_NATIVE_INT32, f.slot, &old_tag) == 0 &&
        old_tag < 0 && scope__h5_write_slice(d->ds[D_TAG], H5T_NATIVE_INT32, &tag, f.slot, 1) < 0)
        return SCOPE_EHDF5;
    return 0;
}

int scope__conv_write_comms(struct conv *c)
{
    const struct scope_jr *jr = &c->jr;
    if (jr->n_comms == 0)
        return 0;
    uint32_t n = jr->n_comms;
    int32_t *size = calloc(n, sizeof *size), *rsize = calloc(n, sizeof *rsize);
    int64_t *start = calloc((size_t)n + 1, sizeof *start);
    size_t names_len = 0, creators_len = 0, members = 0;
    for (uint32_t i = 0; i < n; i++) {
        names_len += strlen(jr->comms[i].defined ? jr->comms[i].name : "") + 1;
        creators_len += strlen(jr->comms[i].defined ? jr->comms[i].creator : "") + 1;
        if (jr->comms[i].defined)
            members += (size_t)jr->comms[i].size + (size_t)jr->comms[i].remote_size;
    }
    int32_t *m = malloc((members ? members : 1) * sizeof *m);
    char *names = malloc(names_len), *creators = malloc(creators_len);
    int rc = SCOPE_ENOMEM;
    if (!size || !rsize || !start || !m || !names || !creators)
        goto out;
    size_t at = 0, nat = 0, cat = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct scope_jr_comm *cm = &jr->comms[i];
        start[i] = (int64_t)at;
        const char *nm = cm->defined ? cm->name : "";
        memcpy(names + nat, nm, strlen(nm) + 1);
        nat += strlen(nm) + 1;
        const char *cr = cm->defined ? cm->creator : "";
        memcpy(creators + cat, cr, strlen(cr) + 1);
        cat += strlen(cr) + 1;
        if (!cm->defined)
            continue;
        size[i] = cm->size;
        rsize[i] = cm->remote_size;
        size_t k = (size_t)cm->size + (size_t)cm->remote_size;
        memcpy(m + at, cm->world, k * sizeof *m);
        at += k;
    }
    start[n] = (int64_t)at;
    const struct scope__h5_column cols[] = {
        { SCOPE_D_COMM_SIZE, H5T_STD_I32LE, H5T_NATIVE_INT32, size, n },
        { SCOPE_D_COMM_REMOTE_SIZE, H5T_STD_I32LE, H5T_NATIVE_INT32, rsize, n },
        { SCOPE_D_COMM_MEMBERS_START, H5T_STD_I64LE, H5T_NATIVE_INT64, start, (size_t)n + 1 },
        { SCOPE_D_COMM_MEMBERS, H5T_STD_I32LE, H5T_NATIVE_INT32, m, at },
        { SCOPE_D_COMM_NAMES, H5T_STD_U8LE, H5T_NATIVE_UINT8, names, nat },
        { SCOPE_D_COMM_CREATORS, H5T_STD_U8LE, H5T_NATIVE_UINT8, creators, cat },
    };
    rc = scope__h5_write_columns(c->rank_grp, SCOPE_G_COMMUNICATORS, cols,
                                 sizeof cols / sizeof *cols) < 0 ? SCOPE_EHDF5 : 0;
out:
    free(size);
    free(rsize);
    free(start);
    free(m);
    free(names);
    free(creators);
    return rc;
}
