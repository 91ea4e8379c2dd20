/*
 * prog_hdf5.c - HDF5 file and dataset calls a known number of times, with
 * known selections (issue 46, "HDF5 serial and parallel"): built with h5cc
 * (serial libhdf5, the sec2 driver: POSIX calls) and with h5pcc and
 * -DPARALLEL (libhdf5-openmpi: MPI-IO, collective transfers), so that
 * check_hdf5.py can say what each layer must record per rank, by hand:
 *
 *   H5Fcreate 1, H5Dcreate2 2, H5Dwrite 3 (8000 + 1000 + 1000 bytes: 1000
 *   doubles, twice 250 ints), H5Dclose 3, H5Fflush 1, H5Fclose 2,
 *   H5Fopen 1, H5Dopen2 1, H5Dread 1 (8000 bytes), each rank its own
 *   slab of one file all ranks share (parallel) or its own file (serial).
 *
 * usage: prog_hdf5 OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>
#ifdef PARALLEL
#include <mpi.h>
#endif

#define ND 1000     /* doubles per rank in /data */
#define NI 500      /* ints per rank in /ints, written in two halves */

static hid_t xfer(void)
{
    hid_t p = H5Pcreate(H5P_DATASET_XFER);
#ifdef PARALLEL
    H5Pset_dxpl_mpio(p, H5FD_MPIO_COLLECTIVE);
#endif
    return p;
}

/* Writes `n` elements of `type` from `buf` at [start, start + n) of dset. */
static int put(hid_t dset, hid_t type, hsize_t start, hsize_t n, const void *buf)
{
    hid_t fs = H5Dget_space(dset), ms = H5Screate_simple(1, &n, NULL), p = xfer();
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &n, NULL);
    herr_t rc = H5Dwrite(dset, type, ms, fs, p, buf);
    H5Pclose(p);
    H5Sclose(ms);
    H5Sclose(fs);
    return rc < 0;
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1;
#ifdef PARALLEL
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
    if (argc != 2)
        return 2;
    char path[4200];
#ifdef PARALLEL
    snprintf(path, sizeof path, "%s/shared.h5", argv[1]);
#else
    snprintf(path, sizeof path, "%s/serial.h5", argv[1]);
#endif
    static double d[ND], back[ND];
    static int ints[NI];
    for (int i = 0; i < ND; i++)
        d[i] = rank * ND + i;
    for (int i = 0; i < NI; i++)
        ints[i] = rank * NI + i;

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#ifdef PARALLEL
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
#endif
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t nd = (hsize_t)size * ND, ni = (hsize_t)size * NI;
    hid_t sd = H5Screate_simple(1, &nd, NULL), si = H5Screate_simple(1, &ni, NULL);
    hid_t dd = H5Dcreate2(f, "data", H5T_NATIVE_DOUBLE, sd, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t di = H5Dcreate2(f, "ints", H5T_NATIVE_INT, si, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0 || dd < 0 || di < 0)
        return 3;
    if (put(dd, H5T_NATIVE_DOUBLE, (hsize_t)rank * ND, ND, d) ||
        put(di, H5T_NATIVE_INT, (hsize_t)rank * NI, NI / 2, ints) ||
        put(di, H5T_NATIVE_INT, (hsize_t)rank * NI + NI / 2, NI / 2, ints + NI / 2))
        return 4;
    H5Dclose(dd);
    H5Dclose(di);
    H5Sclose(sd);
    H5Sclose(si);
    H5Fflush(f, H5F_SCOPE_GLOBAL);
    H5Fclose(f);

    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    dd = H5Dopen2(f, "data", H5P_DEFAULT);
    hsize_t start = (hsize_t)rank * ND, n = ND;
    hid_t fs = H5Dget_space(dd), ms = H5Screate_simple(1, &n, NULL), p = xfer();
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &n, NULL);
    if (H5Dread(dd, H5T_NATIVE_DOUBLE, ms, fs, p, back) < 0)
        return 5;
    for (int i = 0; i < ND; i++)
        if (back[i] != d[i])
            return 6;
    H5Pclose(p);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(dd);
    H5Fclose(f);
    H5Pclose(fapl);
    if (rank == 0)
        printf("hdf5: %d ranks wrote and read back %d doubles each\n", size, ND);
#ifdef PARALLEL
    MPI_Finalize();
#endif
    return 0;
}
