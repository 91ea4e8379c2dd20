/*
 * test_isolation.c - the recorder keeps its HDF5 to itself: a program that
 * links libhdf5 and writes its own file while regions are recorded finds
 * its file intact, its HDF5 library state untouched (it is still open and
 * usable after scope_finalize, which ran a private copy), and the profile
 * is written. readelf in check_needed.sh shows libscope.so has no libhdf5.
 *
 * The program also holds pthread thread-specific data, which broke an
 * earlier in-process writer (a second libc's key table, see
 * writer_spawn.c), and ignores SIGCHLD, so the writer process is reaped
 * behind the recorder's back.
 *
 * usage: test_isolation OUTDIR
 */
#include <hdf5.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "check.h"
#include "scope.h"
#include "scope_reader.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char out[4096], mine[4096];
    snprintf(out, sizeof out, "%s/iso.h5", argv[1]);
    snprintf(mine, sizeof mine, "%s/app_data.h5", argv[1]);
    pthread_key_t keys[4];
    for (int i = 0; i < 4; i++) {
        pthread_key_create(&keys[i], NULL);
        pthread_setspecific(keys[i], (void *)(uintptr_t)(0x1234 + i));
    }
    signal(SIGCHLD, SIG_IGN);
    scope_options o = { .output = out };
    CHECK_I64(scope_init(&o), 0);
    int32_t id = scope_region("write");

    scope_begin(id);
    hid_t f = H5Fcreate(mine, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[1] = { 4 };
    int data[4] = { 1, 2, 3, 4 };
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t ds = H5Dcreate2(f, "values", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    scope_end(id);

    CHECK_I64(scope_finalize(), 0); /* runs the writer's own libhdf5 */

    /* the application's HDF5 objects are still valid after finalize */
    CHECK(H5Iis_valid(ds) > 0);
    int back[4] = { 0 };
    CHECK(H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
    CHECK_I64(back[3], 4);
    H5Dclose(ds);
    H5Sclose(sp);
    H5Fclose(f);

    f = H5Fopen(mine, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    ds = H5Dopen2(f, "values", H5P_DEFAULT);
    CHECK(H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
    CHECK_I64(back[0] + back[1] + back[2] + back[3], 10);
    H5Dclose(ds);
    H5Fclose(f);

    for (int i = 0; i < 4; i++)
        CHECK(pthread_getspecific(keys[i]) == (void *)(uintptr_t)(0x1234 + i));

    scope_profile *p = NULL;
    CHECK_I64(scope_profile_open(out, &p), 0);
    if (p) {
        CHECK_I64(scope_profile_calls(p, scope_profile_region_index(p, "write"), 0), 1);
        scope_profile_close(p);
    }
    return check_result("test_isolation");
}
