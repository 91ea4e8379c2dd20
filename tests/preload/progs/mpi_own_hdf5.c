/*
 * mpi_own_hdf5.c - an MPI program that links its own HDF5 and writes its
 * own file (argv[1] + ".rank<r>.h5", dataset /data = 0..99 * (rank + 1)):
 * the preload must not disturb the application's HDF5 (its writer lives in
 * a private namespace) and the profile must still be written.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long main_ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    if (argc < 2 || MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char path[4096];
    snprintf(path, sizeof path, "%s.rank%d.h5", argv[1], rank);
    int data[100];
    for (int i = 0; i < 100; i++)
        data[i] = i * (rank + 1);
    hsize_t dims[1] = { 100 };
    int status = 1;
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file >= 0) {
        hid_t space = H5Screate_simple(1, dims, NULL);
        hid_t dset = H5Dcreate2(file, "data", H5T_NATIVE_INT, space, H5P_DEFAULT,
                                H5P_DEFAULT, H5P_DEFAULT);
        if (dset >= 0 && H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0)
            status = 0;
        H5Dclose(dset);
        H5Sclose(space);
        if (H5Fclose(file) < 0)
            status = 1;
    }
    printf("rank %d size %d pid %ld main_ns %lld\n", rank, size, (long)getpid(), main_ns);
    fflush(stdout);
    MPI_Finalize();
    return status;
}
