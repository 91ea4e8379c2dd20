/*
 * test_abi.c - the preload's ABI tables (preload/mpi/mpi_abi.c) against the
 * real mpi.h of each MPI. Built twice, with mpicc (Open MPI) and
 * mpicc.mpich (MPICH); mpi_abi.c and symbol_next.c are linked into a
 * shared library of their own (libtest_abi_<mpi>.so), as in the preload,
 * so that Open MPI's ompi_mpi_comm_world is found where the executable's
 * copy relocation put it. Run as a singleton: after MPI_Init, every field
 * of the chosen table must equal what this program's mpi.h says, and the
 * library-name rule must classify each MPI's file names.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "mpi_abi.h"

/* A table field against mpi.h's value, compared as the 64 bits they are. */
#define CHECK_FIELD(what, got, want)                                                    \
    check_i64((int64_t)(uint64_t)(got), (int64_t)(uint64_t)(want), what, __FILE__, __LINE__)

#ifdef OPEN_MPI
#define H(x) ((scope__mpi_handle)(uintptr_t)(x))
#define KIND SCOPE_MPI_ABI_OPENMPI
#else
#define H(x) ((scope__mpi_handle)(uint32_t)(x))
#define KIND SCOPE_MPI_ABI_MPICH
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const scope__mpi_abi *a = scope__mpi_abi_get();
    if (a == NULL) {
        printf("FAIL: no ABI detected\n");
        MPI_Finalize();
        return 1;
    }
    printf("ABI %s, library %s\n", a->name, scope__mpi_abi_library());
    CHECK_FIELD("kind", a->kind, KIND);
    CHECK_FIELD("handle_size", a->handle_size, sizeof(MPI_Comm));
    CHECK_FIELD("comm_world", a->comm_world, H(MPI_COMM_WORLD));
    CHECK_FIELD("comm_null", a->comm_null, H(MPI_COMM_NULL));
    CHECK_FIELD("info_null", a->info_null, H(MPI_INFO_NULL));
    CHECK_FIELD("dt_byte", a->dt_byte, H(MPI_BYTE));
    CHECK_FIELD("dt_double", a->dt_double, H(MPI_DOUBLE));
    CHECK_FIELD("dt_int64", a->dt_int64, H(MPI_INT64_T));
    CHECK_FIELD("comm_type_shared", a->comm_type_shared, MPI_COMM_TYPE_SHARED);
    CHECK_FIELD("undefined", a->undefined, MPI_UNDEFINED);
    CHECK_FIELD("status_ignore", (uintptr_t)a->status_ignore, (uintptr_t)MPI_STATUS_IGNORE);
    CHECK_FIELD("status_size", a->status_size, sizeof(MPI_Status));
    CHECK_FIELD("success", a->success, MPI_SUCCESS);
    CHECK_FIELD("err_other", a->err_other, MPI_ERR_OTHER);
    CHECK_FIELD("library_version_max", a->library_version_max, MPI_MAX_LIBRARY_VERSION_STRING);
    CHECK_FIELD("in_place", a->in_place, (uintptr_t)MPI_IN_PLACE);
    CHECK_FIELD("proc_null", a->proc_null, MPI_PROC_NULL);
    CHECK_FIELD("any_source", a->any_source, MPI_ANY_SOURCE);
    CHECK_FIELD("root", a->root, MPI_ROOT);
    CHECK_FIELD("status_source_off", a->status_source_off, offsetof(MPI_Status, MPI_SOURCE));
    CHECK_FIELD("status_tag_off", a->status_tag_off, offsetof(MPI_Status, MPI_TAG));
    /* the table's handle works through PMPI, as the preload uses it */
    int size = -1;
    PMPI_Comm_size((MPI_Comm)a->comm_world, &size);
    CHECK_FIELD("PMPI_Comm_size(table's MPI_COMM_WORLD)", size, 1);

    static const struct { const char *name; scope__mpi_abi_kind kind; } names[] = {
        { "/usr/lib/x86_64-linux-gnu/libmpi.so.40", SCOPE_MPI_ABI_OPENMPI },
        { "/usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4", SCOPE_MPI_ABI_OPENMPI },
        { "/lib/x86_64-linux-gnu/libmpich.so.12", SCOPE_MPI_ABI_MPICH },
        { "/opt/intel/oneapi/mpi/latest/lib/release/libmpi.so.12", SCOPE_MPI_ABI_MPICH },
        { "/opt/cray/pe/lib64/libmpi_cray.so.12", SCOPE_MPI_ABI_MPICH },
        { "/usr/lib/libmpi_abi.so.0", SCOPE_MPI_ABI_STANDARD },
        { "/opt/mpi/lib/libmpi_abi.so", SCOPE_MPI_ABI_STANDARD },
        { "/usr/lib/libmpi.so.20", SCOPE_MPI_ABI_NONE },
        { "libfoo.so", SCOPE_MPI_ABI_NONE },
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        CHECK_FIELD(names[i].name, scope__mpi_abi_kind_of_name(names[i].name), names[i].kind);
    MPI_Finalize();
    return check_result("test_abi");
}
