/*
 * mpi_abi.c - which MPI ABI this process speaks, and the one table of
 * values the preload uses to call MPI in it (mpi_abi.h).
 *
 * The same libscope_preload.so runs under Open MPI (handles are pointers
 * to global objects such as ompi_mpi_comm_world) and under the MPICH family
 * (MPICH, Intel MPI, MVAPICH, Cray MPICH: handles are ints, MPI_COMM_WORLD
 * is 0x44000000). Nothing here includes an mpi.h: that would fix one ABI at
 * build time, and whichever mpi.h came first in the include path would
 * silently win. The MPICH values below are the ABI constants of
 * /usr/include/x86_64-linux-gnu/mpich/mpi.h (MPICH 4.0, ABI 14, the same
 * since MPICH 3.1 and shared by Intel MPI); Open MPI's are resolved from
 * its ompi_mpi_* objects at run time. The MPI-5 standard ABI
 * (libmpi_abi.so) is the third table, chosen for any library whose
 * MPI_Abi_get_version answers 1.0 or later.
 *
 * Detection looks at the library the preload's PMPI calls would reach (the
 * definer of PMPI_Comm_rank): its file name first, then its symbols
 * (ompi_mpi_comm_world vs MPIR_Err_return_comm), so a renamed or statically
 * linked MPI is still recognised.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "mpi_abi.h"
#include "pmpi.h"
#include "log.h"
#include "symbol_next.h"

/* The MPICH family's ABI: compile-time constants of its mpi.h. */
static const scope__mpi_abi mpich_abi = {
    .kind = SCOPE_MPI_ABI_MPICH,
    .name = "MPICH",
    .handle_size = 4,
    .comm_world = 0x44000000,
    .comm_null = 0x04000000,
    .info_null = 0x1c000000,
    .dt_byte = 0x4c00010d,
    .dt_double = 0x4c00080b,
    .dt_int64 = 0x4c00083a,
    .comm_type_shared = 1,
    .undefined = -32766,
    .status_ignore = (void *)1,
    .status_size = 20,           /* count_lo, count_hi_and_cancelled, SOURCE, TAG, ERROR */
    .success = 0,
    .err_other = 15,
    .library_version_max = 8192,
    .in_place = (uintptr_t)-1,
    .proc_null = -1,
    .any_source = -2,
    .root = -3,
    .status_source_off = 8,
    .status_tag_off = 12,
    .op_no_op = 0x5800000e,
    .topo_cart = 2,
    .topo_graph = 1,
    .topo_dist_graph = 3,
    .status_layout = SCOPE_STATUS_MPICH,
    .builtin_type_sizes = 1,
};

/* The MPI-5 standard ABI's: compile-time constants of the MPI Forum's
 * reference mpi.h (github.com/mpi-forum/mpi-abi-stubs, ABI 1.0). Handles
 * are pointers whose predefined values are small integers. */
static const scope__mpi_abi standard_abi = {
    .kind = SCOPE_MPI_ABI_STANDARD,
    .name = "MPI ABI",
    .handle_size = 8,
    .comm_world = 0x101,
    .comm_null = 0x100,
    .info_null = 0x130,
    .dt_byte = 0x247,
    .dt_double = 0x214,
    .dt_int64 = 0x258,
    .comm_type_shared = 221,
    .undefined = -32766,
    .status_ignore = NULL,
    .status_size = 32,           /* SOURCE, TAG, ERROR, 5 internal ints */
    .success = 0,
    .err_other = 16,
    .library_version_max = 8192,
    .in_place = 1,
    .proc_null = -3,
    .any_source = -1,
    .root = -4,
    .status_source_off = 0,
    .status_tag_off = 4,
    .op_no_op = 0x3d,
    .topo_cart = 211,
    .topo_graph = 212,
    .topo_dist_graph = 213,
    .status_layout = SCOPE_STATUS_OPAQUE,
};

/* Open MPI's: handles are the addresses of its predefined objects, filled
 * in by openmpi_table(). */
static scope__mpi_abi openmpi_abi = {
    .kind = SCOPE_MPI_ABI_OPENMPI,
    .name = "Open MPI",
    .handle_size = 8,
    .comm_type_shared = 0,       /* first member of an enum */
    .undefined = -32766,
    .status_ignore = NULL,
    .status_size = 24,           /* SOURCE, TAG, ERROR, _cancelled, size_t _ucount */
    .success = 0,
    .err_other = 16,
    .library_version_max = 256,
    .in_place = 1,
    .proc_null = -2,
    .any_source = -1,
    .root = -4,
    .status_source_off = 0,
    .status_tag_off = 4,
    .topo_cart = 1,
    .topo_graph = 2,
    .topo_dist_graph = 3,
    .status_layout = SCOPE_STATUS_OPENMPI,
};

static const scope__mpi_abi *chosen;   /* published once, never changed */
static const char *chosen_library;
static pthread_mutex_t choose_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

scope__mpi_abi_kind scope__mpi_abi_kind_of_name(const char *path)
{
    if (path == NULL)
        return SCOPE_MPI_ABI_NONE;
    const char *b = base_name(path);
    if (strncmp(b, "libmpi.so.40", 12) == 0)
        return SCOPE_MPI_ABI_OPENMPI;
    if (strncmp(b, "libmpich.so.12", 14) == 0 || strncmp(b, "libmpi.so.12", 12) == 0 ||
        strncmp(b, "libmpi_cray.so.12", 17) == 0)
        return SCOPE_MPI_ABI_MPICH;
    if (strncmp(b, "libmpi_abi.so", 13) == 0)
        return SCOPE_MPI_ABI_STANDARD;
    return SCOPE_MPI_ABI_NONE;
}

/* Looks `name` up in the object at `path` only (RTLD_NOLOAD: never loads
 * anything); the main program when path is the executable. */
static void *symbol_in(const char *path, const char *name)
{
    void *h = scope__real_dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL)
        h = scope__real_dlopen(NULL, RTLD_LAZY); /* the executable itself (static MPI) */
    if (h == NULL)
        return NULL;
    void *p = dlsym(h, name);
    scope__real_dlclose(h);
    return p;
}

/* Resolves Open MPI's handles. Each is looked up globally first: an
 * executable that uses MPI_COMM_WORLD holds a copy relocation of the
 * object, and that copy is the address every caller passes. Returns 0, or
 * -1 when MPI_COMM_WORLD's object is missing (not Open MPI after all). */
static int openmpi_table(void)
{
    static const struct { const char *sym; size_t off; } objs[] = {
        { "ompi_mpi_comm_world", offsetof(scope__mpi_abi, comm_world) },
        { "ompi_mpi_comm_null", offsetof(scope__mpi_abi, comm_null) },
        { "ompi_mpi_info_null", offsetof(scope__mpi_abi, info_null) },
        { "ompi_mpi_byte", offsetof(scope__mpi_abi, dt_byte) },
        { "ompi_mpi_double", offsetof(scope__mpi_abi, dt_double) },
        { "ompi_mpi_int64_t", offsetof(scope__mpi_abi, dt_int64) },
        { "ompi_mpi_op_no_op", offsetof(scope__mpi_abi, op_no_op) },
    };
    for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) {
        void *p = scope__global_symbol(objs[i].sym, SCOPE__MPI_LIBRARY_FIRST);
        if (p == NULL && i == 0)
            return -1;
        scope__mpi_handle h = (scope__mpi_handle)(uintptr_t)p;
        memcpy((char *)&openmpi_abi + objs[i].off, &h, sizeof h);
    }
    return 0;
}

/* Decides the ABI; caller holds choose_lock. Leaves `chosen` NULL when no
 * MPI library is mapped yet (a later call tries again). */
static void choose(void)
{
    const struct scope__pmpi *pm = scope__pmpi();
    if (pm->comm_rank == NULL)
        return;
    const char *lib = scope__object_of((void *)pm->comm_rank);
    scope__mpi_abi_kind kind = scope__mpi_abi_kind_of_name(lib);
    /* A library that speaks the standard ABI says so whatever its name;
     * a native library may define the call too and answer -1 */
    int (*ver)(int *, int *) = pm->abi_get_version;
    int major = -1, minor = -1;
    if (ver && scope__object_of((void *)ver) == lib && ver(&major, &minor) == 0 && major >= 1)
        kind = SCOPE_MPI_ABI_STANDARD;
    else if (kind == SCOPE_MPI_ABI_STANDARD)
        kind = SCOPE_MPI_ABI_NONE;  /* the name, but not the answer */
    if (kind == SCOPE_MPI_ABI_NONE && lib != NULL) {
        if (symbol_in(lib, "ompi_mpi_comm_world") != NULL)
            kind = SCOPE_MPI_ABI_OPENMPI;
        else if (symbol_in(lib, "MPIR_Err_return_comm") != NULL)
            kind = SCOPE_MPI_ABI_MPICH;
    }
    const scope__mpi_abi *abi = NULL;
    if (kind == SCOPE_MPI_ABI_OPENMPI && openmpi_table() == 0)
        abi = &openmpi_abi;
    else if (kind == SCOPE_MPI_ABI_MPICH)
        abi = &mpich_abi;
    else if (kind == SCOPE_MPI_ABI_STANDARD)
        abi = &standard_abi;
    if (abi == NULL) {
        scope__preload_log("%s: unknown MPI ABI (not Open MPI, MPICH or the MPI-5 standard "
                           "ABI); MPI rank from the launcher only", lib ? lib : "the MPI library");
        return;
    }
    chosen_library = lib;
    __atomic_store_n(&chosen, abi, __ATOMIC_RELEASE);
    scope__preload_log("MPI ABI: %s (%s)", abi->name, lib ? lib : "?");
}

/* Cost: one atomic load once decided; the first call looks symbols up
 * (takes the loader's lock). */
const scope__mpi_abi *scope__mpi_abi_get(void)
{
    const scope__mpi_abi *abi = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
    if (abi != NULL)
        return abi;
    pthread_mutex_lock(&choose_lock);
    if (__atomic_load_n(&chosen, __ATOMIC_ACQUIRE) == NULL)
        choose();
    pthread_mutex_unlock(&choose_lock);
    return __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
}

const char *scope__mpi_abi_library(void)
{
    return __atomic_load_n(&chosen, __ATOMIC_ACQUIRE) ? chosen_library : NULL;
}
