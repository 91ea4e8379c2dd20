/*
 * pmpi.c - the preload's table of PMPI entry points (pmpi.h), one lookup
 * per name for the process, where clock_align.c and host_files.c used to
 * keep a table each.
 */
#include "pmpi.h"

#include "preload_state.h"

static struct scope__pmpi table;
static int looked_up;

/* The next definition of `name` into *slot (a function pointer). */
static void find(void *slot, const char *name)
{
    *(void **)slot = scope__next_symbol(name);
}

const struct scope__pmpi *scope__pmpi(void)
{
    if (looked_up)
        return &table;
    find(&table.comm_rank, "PMPI_Comm_rank");
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
    looked_up = 1;
    return &table;
}
