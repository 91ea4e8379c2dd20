/*
 * mpi_windows.c - the windows the one-sided calls name (mpi_windows.h):
 * a target rank is a rank of the window's group, and the byte model
 * (mpi_moved.c) reports it as a world rank through this table.
 *
 * The window's communicator is learnt when the window is made
 * (MPI_Win_create, _allocate, _allocate_shared, _create_dynamic, timed
 * like every MPI call) and its members' world ranks copied into a
 * per-process table of windows, read without a lock; an attribute with a
 * delete callback on each window tells when MPI_Win_free frees it (its
 * handle is soon another window's). A window made by a call the config
 * does not time is learnt at its first one-sided call from
 * MPI_Win_get_group, as a row of the communicator table of its own whose
 * creating call reads "MPI_Win_get_group".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_abi.h"
#include "mpi_comms.h"
#include "mpi_windows.h"
#include "pmpi.h"
#include "scope_internal.h"
#include "self_depth.h"

#define WIN_SLOTS SCOPE_MPI_WIN_SLOTS
#define WIN_GONE 1u             /* no ABI's window handle is 1 */
struct scope__win scope__mpi_wins[SCOPE_MPI_WIN_SLOTS];
static pthread_mutex_t win_lock = PTHREAD_MUTEX_INITIALIZER;
static int win_keyval;
static int keyval_state;        /* 0 not made yet, 1 made, -1 MPI refused */
/* member lists of freed windows, kept a while: a thread may be reading one */
#define GRAVEYARD 16u
static int32_t *_Atomic graves[GRAVEYARD];
static struct scope__graveyard graveyard = { graves, GRAVEYARD, 0 };


static int win_gone(scope__mpi_handle win, int keyval, void *attr, void *extra)
{
    (void)win; (void)keyval; (void)extra;
    struct scope__win *e = attr;      /* no lock: see mpi_comms.c comm_gone */
    atomic_store_explicit(&e->handle, WIN_GONE, memory_order_release);
    scope__mpi_bury(&graveyard, e->world);
    return 0;
}

static uint64_t handle_bits(const scope__mpi_abi *abi, uint64_t h)
{
    return abi->handle_size == 4 ? h & 0xffffffffu : h;
}

/* The slot for window h: its own, else a free one (a freed one first).
 * NULL when the table is full. Lock held. */
static struct scope__win *slot_for(uint64_t h)
{
    uint32_t i = scope__mpi_win_hash(h);
    struct scope__win *reuse = NULL;
    for (uint32_t k = 0; k < WIN_SLOTS - 1; k++, i = (i + 1) & (WIN_SLOTS - 1)) {
        uint64_t v = atomic_load_explicit(&scope__mpi_wins[i].handle, memory_order_relaxed);
        if (v == h)
            return &scope__mpi_wins[i];
        if (v == WIN_GONE && !reuse)
            reuse = &scope__mpi_wins[i];
        if (v == 0)
            return reuse ? reuse : &scope__mpi_wins[i];
    }
    return reuse;
}

/* Publishes window h in slot e (its members: world[0..size), taken). Lock
 * held. */
static void win_publish(const scope__mpi_abi *abi, struct scope__win *e, uint64_t h, int32_t comm,
                        int32_t size, int32_t *world)
{
    uint64_t old = atomic_load_explicit(&e->handle, memory_order_relaxed);
    if (old == h) {
        /* a stale entry (the delete callback never came): retire it */
        atomic_store_explicit(&e->handle, WIN_GONE, memory_order_release);
        scope__mpi_bury(&graveyard, e->world);
    }
    e->comm = comm;
    e->size = size;
    e->world = world;
    atomic_store_explicit(&e->handle, h, memory_order_release);
    const struct scope__pmpi *T = scope__pmpi();
    if (keyval_state == 0)
        keyval_state =
            T->win_create_keyval && T->win_set_attr &&
            T->win_create_keyval(scope__mpi_attr_nocopy, win_gone, &win_keyval, NULL) == 0
                ? 1
                : -1;
    if (keyval_state > 0)
        T->win_set_attr(h, win_keyval, e);
    (void)abi;
}

void scope__mpi_win_created(const scope__mpi_abi *abi, const struct scope__comm *c,
                            const void *wp)
{
    if (!wp || c->remote_size > 0)
        return;
    uint64_t h = 0;
    memcpy(&h, wp, abi->handle_size);
    if (!h)
        return;
    scope__self_enter();
    int32_t *world = malloc((size_t)c->size * sizeof *world);
    if (world) {
        memcpy(world, c->world, (size_t)c->size * sizeof *world);
        pthread_mutex_lock(&win_lock);
        struct scope__win *e = slot_for(h);
        if (e)
            win_publish(abi, e, h, c->id, c->size, world);
        else
            free(world);
        pthread_mutex_unlock(&win_lock);
    }
    scope__self_leave();
}

typedef int (*group_size_fn)(scope__mpi_handle, int *);
typedef int (*translate_fn)(scope__mpi_handle, int, const int *, scope__mpi_handle, int *);
typedef int (*group_free_fn)(scope__mpi_handle *);

/* A window whose creation scope did not see: its group, from
 * MPI_Win_get_group, becomes a communicator row. Lock held. */
static struct scope__win *win_learn(const scope__mpi_abi *abi, uint64_t h)
{
    const struct scope__pmpi *T = scope__pmpi();
    group_size_fn gsize = T->group_size;
    translate_fn translate = T->group_translate_ranks;
    group_free_fn gfree = T->group_free;
    scope__comm_group_fn comm_group = T->comm_group;
    struct scope__win *e = slot_for(h);
    if (e && atomic_load_explicit(&e->handle, memory_order_relaxed) == h)
        return e;       /* another thread learnt it while this one waited */
    if (!e || !scope__P.win_get_group || !gsize || !translate || !gfree || !comm_group)
        return NULL;
    scope__mpi_handle g = 0, wg = 0;
    if (scope__P.win_get_group(h, &g) != 0)
        return NULL;
    g = scope__mpi_handle_out(abi, g);
    int n = 0;
    int32_t *world = NULL;
    int *ranks = NULL;
    if (gsize(g, &n) == 0 && n > 0 && (world = malloc((size_t)n * sizeof *world)) &&
        (ranks = malloc((size_t)n * sizeof *ranks)) && comm_group(abi->comm_world, &wg) == 0) {
        wg = scope__mpi_handle_out(abi, wg);
        for (int i = 0; i < n; i++)
            ranks[i] = i;
        int rc = translate(g, n, ranks, wg, world);
        gfree(&wg);
        for (int i = 0; i < n; i++)
            if (world[i] < 0)
                world[i] = -1;
        int32_t id = rc == 0 ? scope__comm_define(n, 0, world, "MPI_Win_get_group", "") : -1;
        if (id >= 0) {
            win_publish(abi, e, h, id, n, world);
            world = NULL;
        } else {
            e = NULL;
        }
    } else {
        e = NULL;
    }
    gfree(&g);
    free(ranks);
    free(world);
    return e;
}

const struct scope__win *scope__mpi_win_find(const scope__mpi_abi *abi, uint64_t h)
{
    h = handle_bits(abi, h);
    if (!h)
        return NULL;
    uint32_t i = scope__mpi_win_hash(h);
    for (uint32_t k = 0; k < WIN_SLOTS; k++, i = (i + 1) & (WIN_SLOTS - 1)) {
        uint64_t v = atomic_load_explicit(&scope__mpi_wins[i].handle, memory_order_acquire);
        if (v == h)
            return &scope__mpi_wins[i];
        if (v == 0)
            break;
    }
    scope__self_enter();
    pthread_mutex_lock(&win_lock);
    const struct scope__win *e = win_learn(abi, h);
    pthread_mutex_unlock(&win_lock);
    scope__self_leave();
    return e;
}
