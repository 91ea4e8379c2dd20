/*
 * h5_util.h - the converter's HDF5 writing helpers (h5_util.c). Each
 * returns 0 or -1 (a handle or a negative one) and leaves no object
 * open behind it.
 */
#ifndef SCOPE_H5_UTIL_H
#define SCOPE_H5_UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* Creates `path` (H5F_ACC_EXCL) with the file access properties of every
 * file the converter writes: no sieve buffer. Its windows are written
 * whole, and libhdf5's default zeroed a 64 KiB buffer for each open
 * dataset and copied every write through it (4 MB of fresh memory for a
 * rank of 18 MPI regions, a page fault per 4 KiB). Returns the file or
 * a negative id (H5Fcreate's error left on the stack). */
hid_t scope__h5_create_file(const char *path);
/* A scalar numeric attribute of file type ftype from *v (memory type mtype). */
int scope__h5_attr_scalar(hid_t obj, const char *name, hid_t ftype, hid_t mtype, const void *v);
int scope__h5_attr_i64(hid_t obj, const char *name, int64_t v);
int scope__h5_attr_i8(hid_t obj, const char *name, int8_t v);
/* A variable-length UTF-8 string type (the caller closes it). */
hid_t scope__h5_vlen_utf8(void);
int scope__h5_attr_str(hid_t obj, const char *name, const char *v);
/* A contiguous 1-D dataset of n elements, open (the caller closes it). */
hid_t scope__h5_make_dataset(hid_t grp, const char *name, hid_t type, uint64_t n);
/* A 1-D table of n rows of compound type from rows (created even when empty). */
int scope__h5_write_table(hid_t grp, const char *name, hid_t type, size_t n, const void *rows);
/* Closes the open ones of datasets ds[0..n) and marks each
 * H5I_INVALID_HID, so that closing twice is harmless. */
void scope__h5_close_datasets(hid_t *ds, int n);
/* n elements at offset off of a 1-D dataset. */
int scope__h5_write_slice(hid_t ds, hid_t memtype, const void *buf, uint64_t off, uint64_t n);
/* One 1-D dataset of scope__h5_write_columns: its name, file and memory
 * types, and n elements at buf. */
struct scope__h5_column {
    const char *name;
    hid_t file_type, mem_type;
    const void *buf;
    size_t n;
};
/* Creates group `name` under grp holding one dataset per column (created
 * even when empty). Returns 0 or -1. */
int scope__h5_write_columns(hid_t grp, const char *name, const struct scope__h5_column *cols,
                            size_t ncols);
/* "<file>: <what>" and HDF5's reason for the call that just failed, into
 * out[len]: the system's (a full disk, a missing folder) when the file
 * driver met one, else the innermost description of the error stack.
 * Must run right after that call (any other HDF5 call clears the stack);
 * clears it. */
void scope__h5_explain(char *out, size_t len, const char *file, const char *what);

#endif
