/*
 * io_journal.c - I/O calls through the recorder's journal and the
 * converter, with every value designed: the regions of kind io, the I/O
 * data record after each call's end (compact and long forms, a failed
 * call, a call without one), and the file table's rows (a regular file, a
 * standard stream, a name of arbitrary bytes, an HDF5 dataset of it).
 * check_io_journal.py reads the rank file back with h5py and compares
 * every column with these values.
 *
 * Runs with SCOPE_CLOCK=monotonic so the recorded ticks are nanoseconds.
 *
 * usage: io_journal OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "journal.h"
#include "scope.h"
#include "scope_calls.h"
#include "scope_internal.h"

static void data(int32_t file, int64_t bytes, int64_t offset, int issuer, int failed)
{
    struct scope_io_data d = { file, bytes, offset, (uint8_t)issuer, (uint8_t)failed };
    struct scope_rec r[2];
    int n = scope_iodata_pack(&d, r);
    scope__record_data_recs(r, (unsigned)n);
}

static void call(int32_t id, uint64_t t0, uint64_t t1)
{
    scope__record_at(id, 0, t0);
    scope__record_at(id, 1, t1);
}

static int32_t file(uint32_t kind, int32_t parent, int layer, uint64_t dev, uint64_t ino,
                    int64_t bs, const char *name, const char *resolved, const char *fs,
                    const char *mount)
{
    struct scope_file_meta m = { 0, kind, parent, (uint32_t)layer, dev, ino, bs };
    struct scope_file_names n = { name, resolved, fs, mount };
    return scope__file_define(&m, &n);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char out[4096];
    snprintf(out, sizeof out, "%s/io.h5", argv[1]);
    setenv("SCOPE_CLOCK", "monotonic", 1);
    scope_options o = { .output = out };
    CHECK_I64(scope_init(&o), 0);

    const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
    int32_t w = scope__region_ex("write", SCOPE_KIND_IO, "write", libc);
    int32_t fw = scope__region_ex("fwrite", SCOPE_KIND_IO, "fwrite", libc);
    int32_t pw = scope__region_ex("pwrite64", SCOPE_KIND_IO, "pwrite64", libc);
    int32_t mw = scope__region_ex("MPI_File_write_at_all", SCOPE_KIND_IO,
                                  "MPI_File_write_at_all", "libmpi.so.40");
    CHECK(w >= 0 && fw >= 0 && pw >= 0 && mw >= 0);

    int32_t f0 = file(SCOPE_FILE_REGULAR, -1, SCOPE_PARADIGM_POSIX, 42, 7, 4096, "out.dat",
                      "/scratch/run/out.dat", "lustre", "/scratch");
    int32_t f1 = file(SCOPE_FILE_STREAM, -1, SCOPE_PARADIGM_STDIO, 0, 0, 0, "<STDOUT>", "", "", "");
    int32_t f2 = file(SCOPE_FILE_REGULAR, -1, SCOPE_PARADIGM_MPIIO, 43, 9, 1 << 20,
                      "a\n\x01\xff dir/\xc3(.h5", "/scratch/run/a\n\x01\xff dir/\xc3(.h5",
                      "lustre", "/scratch");
    int32_t f3 = file(SCOPE_FILE_DATASET, f2, SCOPE_PARADIGM_HDF5, 0, 0, 0, "/grid/temperature",
                      "", "", "");
    CHECK_I64(f0, 0);
    CHECK_I64(f1, 1);
    CHECK_I64(f2, 2);
    CHECK_I64(f3, 3);

    call(w, 1000, 1100);                       /* write 100 bytes at 0 */
    data(f0, 100, 0, 0, 0);
    scope__record_at(fw, 0, 2000);             /* fwrite of 4096 ... */
    call(w, 2100, 2200);                       /* ... whose write stdio issued */
    data(f0, 4096, 100, SCOPE_PARADIGM_STDIO, 0);
    scope__record_at(fw, 1, 2500);
    data(f0, 4096, SCOPE_IO_NO_OFFSET, 0, 0);
    call(pw, 3000, 3100);                      /* 5 GiB at 5 TiB: the long form */
    data(f0, 5ll << 30, 5ll << 40, 0, 0);
    call(w, 3200, 3300);                       /* a failed write to stdout */
    data(f1, 0, SCOPE_IO_NO_OFFSET, 0, 1);
    call(mw, 4000, 5000);                      /* 1 MiB at 64 */
    data(f2, 1 << 20, 64, SCOPE_PARADIGM_HDF5, 0);
    call(w, 6000, 6100);                       /* no I/O data record */
    call(w, 7000, 7050);                       /* a row the table does not have */
    data(99, 1, 0, 0, 0);

    CHECK_I64(scope_finalize(), 0);
    /* a file met after recording stopped (exit's flush after MPI_Finalize)
     * gets no row, and the closed journal is not reopened (which once
     * stopped "recording" with a storage fault on standard error) */
    CHECK(file(SCOPE_FILE_STREAM, -1, SCOPE_PARADIGM_STDIO, 0, 0, 0, "<STDERR>", "", "", "") < 0);
    return check_result("io_journal");
}
