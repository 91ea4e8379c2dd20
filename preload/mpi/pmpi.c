/*
 * pmpi.c - the preload's table of PMPI entry points (pmpi.h), one lookup
 * per name for the process, where the ABI's detection (mpi_abi.c), the
 * lifecycle wrappers (mpi_intercept.c), clock_align.c, host_files.c and
 * the argument capture (mpi_comms.c, mpi_rma.c) used to look the names up
 * each on their own.
 */
#include "pmpi.h"

#include <pthread.h>
#include <stddef.h>

#include "symbol_next.h"

static struct scope__pmpi table;
static const struct scope__pmpi *published; /* &table once it is built */
static const struct scope__pmpi none;       /* before any MPI library */
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

/* The next definition of `name` into *slot (a function pointer). */
static void find(void *slot, const char *name)
{
    *(void **)slot = scope__next_symbol(name, SCOPE__MPI_LIBRARY_FIRST);
}

/* Fills the table; caller holds build_lock. Returns 0, or -1 when no MPI
 * library is mapped yet (then only PMPI_Comm_rank was asked for). */
static int build(void)
{
    find(&table.comm_rank, "PMPI_Comm_rank");
    if (table.comm_rank == NULL)
        return -1;
    find(&table.comm_size, "PMPI_Comm_size");
    find(&table.comm_split, "PMPI_Comm_split");
    find(&table.comm_split_type, "PMPI_Comm_split_type");
    find(&table.comm_free, "PMPI_Comm_free");
    find(&table.comm_group, "PMPI_Comm_group");
    find(&table.group_translate_ranks, "PMPI_Group_translate_ranks");
    find(&table.group_free, "PMPI_Group_free");
    find(&table.send, "PMPI_Send");
    find(&table.irecv, "PMPI_Irecv");
    find(&table.test, "PMPI_Test");
    find(&table.ibarrier, "PMPI_Ibarrier");
    find(&table.ibcast, "PMPI_Ibcast");
    find(&table.igather, "PMPI_Igather");
    find(&table.igatherv, "PMPI_Igatherv");
    find(&table.get_library_version, "PMPI_Get_library_version");
    find(&table.abi_get_version, "PMPI_Abi_get_version");
    static const struct { size_t off; const char *name; } capture[] = {
        { offsetof(struct scope__pmpi, type_size), "PMPI_Type_size" },
        { offsetof(struct scope__pmpi, get_count), "PMPI_Get_count" },
        { offsetof(struct scope__pmpi, get_count_c), "PMPI_Get_count_c" },
        { offsetof(struct scope__pmpi, test_cancelled), "PMPI_Test_cancelled" },
        { offsetof(struct scope__pmpi, comm_remote_size), "PMPI_Comm_remote_size" },
        { offsetof(struct scope__pmpi, comm_test_inter), "PMPI_Comm_test_inter" },
        { offsetof(struct scope__pmpi, comm_remote_group), "PMPI_Comm_remote_group" },
        { offsetof(struct scope__pmpi, comm_get_name), "PMPI_Comm_get_name" },
        { offsetof(struct scope__pmpi, comm_create_keyval), "PMPI_Comm_create_keyval" },
        { offsetof(struct scope__pmpi, comm_set_attr), "PMPI_Comm_set_attr" },
        { offsetof(struct scope__pmpi, topo_test), "PMPI_Topo_test" },
        { offsetof(struct scope__pmpi, cartdim_get), "PMPI_Cartdim_get" },
        { offsetof(struct scope__pmpi, cart_shift), "PMPI_Cart_shift" },
        { offsetof(struct scope__pmpi, graph_neighbors_count), "PMPI_Graph_neighbors_count" },
        { offsetof(struct scope__pmpi, dist_graph_neighbors_count),
          "PMPI_Dist_graph_neighbors_count" },
        { offsetof(struct scope__pmpi, group_size), "PMPI_Group_size" },
        { offsetof(struct scope__pmpi, win_get_group), "PMPI_Win_get_group" },
        { offsetof(struct scope__pmpi, win_create_keyval), "PMPI_Win_create_keyval" },
        { offsetof(struct scope__pmpi, win_set_attr), "PMPI_Win_set_attr" },
    };
    for (size_t i = 0; i < sizeof capture / sizeof *capture; i++)
        find((char *)&table + capture[i].off, capture[i].name);
    return 0;
}

const struct scope__pmpi *scope__pmpi(void)
{
    const struct scope__pmpi *t = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
    if (t != NULL)
        return t;
    pthread_mutex_lock(&build_lock);
    t = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
    if (t == NULL && build() == 0) {
        t = &table;
        __atomic_store_n(&published, t, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&build_lock);
    return t ? t : &none;
}
