/*
 * io_hdf5.c - the HDF5 calls of the I/O capture (format/calls_io.def,
 * paradigm HDF5), when the program itself uses libhdf5: its files
 * (H5Fcreate, H5Fopen, H5Fflush, H5Fclose) and datasets (H5Dcreate,
 * H5Dopen, H5Dread, H5Dwrite, H5Dclose). A dataset is a row of the file
 * table of its own (its path in the file, its file as parent), so that
 * the bytes of each dataset are known; a dataset's bytes are the points
 * its selection holds (the memory space's, else the file space's, else
 * the whole dataset's) x the size of the memory type.
 *
 * The preload never links libhdf5 and never loads it: the few functions
 * this file asks (H5Iget_name, H5Fget_name, H5Sget_select_npoints,
 * H5Dget_space, H5Sclose, H5Tget_size) are looked up in the library the
 * program loaded, at its first HDF5 call; their calls come from the
 * preload, so nothing of them is recorded. Identifiers (hid_t, 64 bits
 * since HDF5 1.10) are mapped to their rows while they are open.
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "io_files.h"
#include "io_handles.h"
#include "io_state.h"
#include "self_depth.h"
#include "symbol_next.h"

typedef int64_t hid_t_;
#define H5S_ALL_ 0

static struct {
    int64_t (*iget_name)(hid_t_, char *, size_t);
    int64_t (*fget_name)(hid_t_, char *, size_t);
    int64_t (*npoints)(hid_t_);
    hid_t_ (*get_space)(hid_t_);
    int (*sclose)(hid_t_);
    size_t (*tsize)(hid_t_);
} H;
static _Atomic int h_state;     /* 0 not looked up, 1 found, -1 missing */

/* The functions above, found once. 1 when all are there. */
static int hdf5_ready(void)
{
    int s = atomic_load_explicit(&h_state, memory_order_acquire);
    if (s)
        return s > 0;
    static void *cache[6];
    scope__self_enter();
    H.iget_name = (int64_t (*)(hid_t_, char *, size_t))scope__next_cached(&cache[0], "H5Iget_name", "libhdf5");
    H.fget_name = (int64_t (*)(hid_t_, char *, size_t))scope__next_cached(&cache[1], "H5Fget_name", "libhdf5");
    H.npoints = (int64_t (*)(hid_t_))scope__next_cached(&cache[2], "H5Sget_select_npoints", "libhdf5");
    H.get_space = (hid_t_ (*)(hid_t_))scope__next_cached(&cache[3], "H5Dget_space", "libhdf5");
    H.sclose = (int (*)(hid_t_))scope__next_cached(&cache[4], "H5Sclose", "libhdf5");
    H.tsize = (size_t (*)(hid_t_))scope__next_cached(&cache[5], "H5Tget_size", "libhdf5");
    scope__self_leave();
    s = H.iget_name && H.fget_name && H.npoints && H.get_space && H.sclose && H.tsize ? 1 : -1;
    atomic_store_explicit(&h_state, s, memory_order_release);
    return s > 0;
}

/* Open files and datasets: identifier -> row (HDF5's identifiers are
 * positive; 0 and failures never get a row). */
#define IDS_BITS 12
static struct scope__io_handle_slot ids[1u << IDS_BITS];

static int32_t id_row(int64_t id)
{
    return id > 0 ? scope__io_handle_row(ids, IDS_BITS, (uint64_t)id) : -1;
}

/* row -1: forgotten (an identifier HDF5 hands out again is set again) */
static void id_set(int64_t id, int32_t row)
{
    if (id > 0)
        scope__io_handle_set(ids, IDS_BITS, (uint64_t)id, row);
}

/* The row of the file of object `obj` (its name by H5Fget_name). */
static int32_t file_of(int64_t obj)
{
    char name[4096];
    scope__self_enter();
    int64_t n = H.fget_name(obj, name, sizeof name);
    scope__self_leave();
    if (n <= 0 || (size_t)n >= sizeof name)
        return -1;
    return scope__io_path_row(name, NULL, 0, SCOPE_PARADIGM_HDF5);
}

int scope__io_hdf5_enter(int call, uint64_t *saved, uintptr_t *slot)
{
    const struct scope_call_row *c = &scope_calls[call];
    struct scope__io_frame *f = scope__io_next();
    f->row = -1;
    f->fd = -1;
    f->n = 0;
    f->offset = SCOPE_IO_POS_UNKNOWN;
    f->a = scope__io_role(call, SCOPE_ARG_path, saved, slot, 0);
    f->b = scope__io_role(call, SCOPE_ARG_loc, saved, slot, 0);
    if (f->a && scope__io_path_excluded((const char *)(uintptr_t)f->a))
        return SCOPE_CAPTURE_SKIP;
    if (!hdf5_ready()) {
        scope__io_push(call, SCOPE_PARADIGM_HDF5, 0);     /* timed, nothing known */
        return SCOPE_CAPTURE_RECORD;
    }
    int64_t loc = (int64_t)f->b;
    if (c->cls != SCOPE_CC_IO_OPEN) {
        f->row = id_row(loc);
        if (f->row < 0 && c->cls == SCOPE_CC_IO_SYNC)
            f->row = file_of(loc);      /* H5Fflush of any object of the file */
    }
    if (c->bytes == SCOPE_IOB_SELECTION) {
        int64_t type = (int64_t)scope__io_role(call, SCOPE_ARG_type, saved, slot, 0);
        int64_t ms = (int64_t)scope__io_role(call, SCOPE_ARG_mspace, saved, slot, 0);
        int64_t fs = (int64_t)scope__io_role(call, SCOPE_ARG_fspace, saved, slot, 0);
        scope__self_enter();
        int64_t points = -1;
        if (ms != H5S_ALL_) {
            points = H.npoints(ms);
        } else if (fs != H5S_ALL_) {
            points = H.npoints(fs);
        } else {
            int64_t sp = H.get_space(loc);
            if (sp >= 0) {
                points = H.npoints(sp);
                H.sclose(sp);
            }
        }
        size_t size = H.tsize(type);
        scope__self_leave();
        f->n = points > 0 ? points * (int64_t)size : 0;
    }
    scope__io_push(call, SCOPE_PARADIGM_HDF5, 0);
    return SCOPE_CAPTURE_RECORD;
}

void scope__io_hdf5_exit(uint64_t ret)
{
    struct scope__io_frame *f = scope__io_top();
    const struct scope_call_row *c = &scope_calls[f->call];
    scope__io_pop();
    int issuer = scope__io_issuer();
    int64_t r = (int64_t)ret;
    /* hid_t results are negative on failure, herr_t ones too */
    int failed = c->cls == SCOPE_CC_IO_OPEN ? r < 0 : (int32_t)ret < 0;
    int32_t row = f->row;
    int64_t bytes = 0;
    if (atomic_load_explicit(&h_state, memory_order_relaxed) > 0) {
        if (c->cls == SCOPE_CC_IO_OPEN && !failed) {
            if (c->io & SCOPE_IOF_DATASET) {
                char name[4096];
                scope__self_enter();
                int64_t n = H.iget_name(r, name, sizeof name);
                scope__self_leave();
                int32_t parent = file_of(r);
                row = n > 0 && (size_t)n < sizeof name ? scope__io_dataset_row(parent, name) : -1;
            } else {
                row = scope__io_path_row((const char *)(uintptr_t)f->a, NULL, 0,
                                         SCOPE_PARADIGM_HDF5);
            }
            id_set(r, row);
        } else if (c->cls == SCOPE_CC_IO_CLOSE && !failed) {
            id_set((int64_t)f->b, -1);
        } else if (!failed) {
            bytes = f->n;
        }
    }
    scope__io_put(f, row, bytes, SCOPE_IO_POS_UNKNOWN, issuer, failed);
}
