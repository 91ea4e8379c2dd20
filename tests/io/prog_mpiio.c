/*
 * prog_mpiio.c - MPI-IO calls of every kind on one file all ranks share
 * (issue 46): independent, collective, shared-pointer, nonblocking
 * collectives (MPI_File_iwrite_all, MPI_File_iread_at_all), a split
 * collective, a view with a derived datatype, and under MPI 4 (MPICH)
 * MPI_File_write_at_all_c. check_mpiio.py holds each rank's calls and
 * bytes, derived by hand from this file.
 *
 * usage: prog_mpiio OUTDIR
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void ok(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "%s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    char path[4200], buf[4096], in[4096];
    snprintf(path, sizeof path, "%s/mpiio.dat", argv[1]);
    memset(buf, 'a' + r, sizeof buf);
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
       "open");
    ok(MPI_File_write_at(fh, (MPI_Offset)r * 100, buf, 100, MPI_BYTE, &st), "write_at");
    ok(MPI_File_write_at_all(fh, 400 + (MPI_Offset)r * 200, buf, 50, MPI_INT, &st), "write_at_all");
    ok(MPI_File_write_shared(fh, buf, 10, MPI_BYTE, &st), "write_shared");
    ok(MPI_File_seek(fh, 2000 + (MPI_Offset)r * 40, MPI_SEEK_SET), "seek");
    ok(MPI_File_iwrite_all(fh, buf, 40, MPI_BYTE, &rq), "iwrite_all");
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    ok(MPI_File_iread_at_all(fh, (MPI_Offset)r * 100, in, 100, MPI_BYTE, &rq), "iread_at_all");
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    ok(MPI_File_write_at_all_begin(fh, 3000 + (MPI_Offset)r * 64, buf, 64, MPI_BYTE), "begin");
    ok(MPI_File_write_at_all_end(fh, buf, &st), "end");
#ifdef MPI4
    ok(MPI_File_write_at_all_c(fh, 3500 + (MPI_Offset)r * 100, buf, (MPI_Count)100, MPI_BYTE, &st),
       "write_at_all_c");
#endif
    /* a view of 8 bytes in each block of 32, the rank's 8 */
    MPI_Datatype vec;
    MPI_Type_vector(4, 8, 32, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    ok(MPI_File_set_view(fh, 4096 + (MPI_Offset)r * 8, MPI_BYTE, vec, "native", MPI_INFO_NULL),
       "set_view");
    ok(MPI_File_write_all(fh, buf, 32, MPI_BYTE, &st), "write_all");
    ok(MPI_File_seek(fh, 0, MPI_SEEK_SET), "seek 0");
    ok(MPI_File_read_all(fh, in, 32, MPI_BYTE, &st), "read_all");
    if (memcmp(in, buf, 32) != 0) {
        fprintf(stderr, "read back something else\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Type_free(&vec);
    ok(MPI_File_sync(fh), "sync");
    ok(MPI_File_close(&fh), "close");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
