/*
 * mpi_comms.c - MPI through PMPI for the argument capture, and the
 * communicators it meets (mpi_comms.h): the per-process table of
 * communicators with their members' world ranks, the call that created
 * each (docs/format.md "What MPI calls moved": /rank<N>/communicators),
 * and the topology neighbours the neighbourhood collectives exchange with.
 *
 * Communicators are looked up by handle in an open-addressed table filled
 * under a lock and read without one; an attribute with a delete callback
 * on each tells when MPI frees it, so that a reused handle becomes a new
 * communicator (see comm_gone). Every MPI call here is made on a handle
 * MPI has just accepted from the program, so none can reach an error
 * handler.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_abi.h"
#include "mpi_comms.h"
#include "patch.h"
#include "pmpi.h"
#include "scope_internal.h"
#include "self_depth.h"

/* ------------------------------------------------------- MPI, through PMPI */

struct scope__capture_pmpi scope__P;

/* pmpi.h's table, once scope__pmpi_ready() found every function the
 * capture cannot do without (pmpi_ok) */
static const struct scope__pmpi *M;
static int pmpi_ok;
static pthread_once_t p_once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
    scope__self_enter();
    const struct scope__pmpi *T = scope__pmpi();
    /* called once per recorded call: past their own trampoline when the
     * config patched them too */
    scope__P.type_size = (scope__type_size_fn)scope__patch_unpatched((uintptr_t)T->type_size);
    scope__P.get_count = (scope__get_count_fn)scope__patch_unpatched((uintptr_t)T->get_count);
    scope__P.get_count_c =
        (scope__get_count_c_fn)scope__patch_unpatched((uintptr_t)T->get_count_c);
    scope__P.test_cancelled =
        (scope__test_cancelled_fn)scope__patch_unpatched((uintptr_t)T->test_cancelled);
    scope__P.win_get_group = T->win_get_group;
    M = T;
    pmpi_ok = scope__P.type_size && scope__P.get_count && scope__P.test_cancelled &&
              T->comm_size && T->comm_rank && T->comm_remote_size && T->comm_test_inter &&
              T->comm_group && T->comm_remote_group && T->group_translate_ranks &&
              T->group_free && T->comm_get_name;
    scope__self_leave();
}

int scope__mpi_builtin_type_sizes;
uintptr_t scope__mpi_predef_lo[2], scope__mpi_predef_span[2];
_Atomic uint64_t scope__mpi_tsize[SCOPE_MPI_TSIZE_SLOTS];

/* The writable segments of the program (the first object
 * dl_iterate_phdr names) and of libmpi (the object at mpi_base). */
struct seg_find {
    uintptr_t mpi_base;
    int seen;
};

static int seg_of(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct seg_find *f = arg;
    int which = f->seen++ == 0 ? 1 : info->dlpi_addr == f->mpi_base ? 0 : -1;
    for (int i = 0; which >= 0 && i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz < UINT32_MAX) {
            scope__mpi_predef_lo[which] = info->dlpi_addr + ph->p_vaddr;
            scope__mpi_predef_span[which] = ph->p_memsz;
        }
    }
    return 0;
}

static pthread_once_t types_once = PTHREAD_ONCE_INIT;

static void types_learn(void)
{
    const scope__mpi_abi *abi = scope__mpi_abi_get();
    if (!abi)
        return;
    scope__mpi_builtin_type_sizes = abi->builtin_type_sizes;
    Dl_info di;
    /* libmpi: the object of PMPI_Type_size (scope__P's may be a copy of
     * its first instructions, past a trampoline) */
    if (abi->kind != SCOPE_MPI_ABI_OPENMPI || !M || !M->type_size ||
        !dladdr((void *)(uintptr_t)M->type_size, &di) || !di.dli_fbase)
        return;
    struct seg_find f = { (uintptr_t)di.dli_fbase, 0 };
    scope__self_enter();
    dl_iterate_phdr(seg_of, &f);
    scope__self_leave();
}

void scope__mpi_types_ready(void)
{
    pthread_once(&types_once, types_learn);
}

int64_t scope__mpi_type_size_slow(uint64_t type)
{
    int n = 0;
    if (scope__P.type_size(type, &n) != 0 || n <= 0)
        return 0;
    if (scope__mpi_predefined(type) && n < 0x10000 && type < (1ull << 48))
        atomic_store_explicit(&scope__mpi_tsize[scope__mpi_tsize_slot(type)],
                              (type << 16) | (uint32_t)n, memory_order_relaxed);
    return n;
}

int scope__pmpi_ready(void)
{
    /* every recorded call asks: after the first, one load instead of
     * pthread_once's call */
    static _Atomic int done;
    if (__builtin_expect(atomic_load_explicit(&done, memory_order_acquire), 1))
        return pmpi_ok;
    pthread_once(&p_once, resolve);
    atomic_store_explicit(&done, 1, memory_order_release);
    return pmpi_ok;
}

/* --------------------------------------------------------- communicators */

#define COMM_SLOTS 4096u        /* a power of two */
static struct scope__comm comms[COMM_SLOTS];
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;

/* A freed communicator's handle is soon another's (MPICH and Open MPI
 * reuse them): an attribute with a delete callback, set on each
 * communicator when it is first used, tells when MPI_Comm_free (or
 * MPI_Finalize) deletes it, however that is called. Its member list is
 * kept a while longer: a request posted on it may still complete, and
 * its entry in the request table points there. */
static int comm_keyval;
static int keyval_state;    /* 0 not made yet, 1 made, -1 MPI refused */
#define GRAVEYARD 64u
static int32_t *_Atomic graves[GRAVEYARD];
static struct scope__graveyard graveyard = { graves, GRAVEYARD, 0 };

void scope__mpi_bury(struct scope__graveyard *g, int32_t *world)
{
    uint32_t k = atomic_fetch_add(&g->next, 1) & (g->size - 1);
    free(atomic_exchange(&g->slot[k], world));
}

int scope__mpi_attr_nocopy(scope__mpi_handle old, int keyval, void *extra, void *in, void *out,
                           int *flag)
{
    (void)old; (void)keyval; (void)extra; (void)in; (void)out;
    *flag = 0;      /* a duplicate is a communicator (a window) of its own */
    return 0;
}

static int comm_gone(scope__mpi_handle comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    /* no lock: MPI may hold its own while it calls this, and comm_fill()
     * calls MPI with comm_lock held */
    struct scope__comm *e = attr;
    atomic_store_explicit(&e->handle, SCOPE__COMM_GONE, memory_order_release);
    scope__mpi_bury(&graveyard, e->world);
    return 0;
}

static uint32_t comm_hash(uint64_t h)
{
    return (uint32_t)((h * 0x9e3779b97f4a7c15ull) >> 52) & (COMM_SLOTS - 1);
}

/* ------------------------------------------------------- creating calls */

/* Communicators made by a timed call and not used yet: handle -> the
 * call's C name (its row's, in the vocabulary: a static string). Small: a
 * program uses a communicator soon after making it, and a slot is reused
 * by the next creation whose handle hashes there (the older name is lost:
 * "" then). */
#define BORN_SLOTS 256u
static struct { uint64_t handle; const char *creator; } born[BORN_SLOTS];

void scope__mpi_comm_created(const scope__mpi_abi *abi, uint64_t h, const char *creator)
{
    if (abi->handle_size == 4)
        h &= 0xffffffffu;
    if (!h || h == abi->comm_null)
        return;
    uint32_t i = comm_hash(h) & (BORN_SLOTS - 1);
    scope__self_enter();
    pthread_mutex_lock(&comm_lock);
    born[i].handle = h;
    born[i].creator = creator;
    pthread_mutex_unlock(&comm_lock);
    scope__self_leave();
}

/* The creating call of h ("MPI_Comm_split"), taken out of the table, into
 * out; "MPI_Init" for MPI_COMM_WORLD, "" when not known. Lock held. */
static void creator_of(const scope__mpi_abi *abi, uint64_t h, char *out, size_t len)
{
    out[0] = 0;
    if (h == abi->comm_world) {
        snprintf(out, len, "MPI_Init");
        return;
    }
    uint32_t i = comm_hash(h) & (BORN_SLOTS - 1);
    if (born[i].handle != h || !born[i].creator)
        return;
    born[i].handle = 0;
    snprintf(out, len, "%s", born[i].creator);
}

/* ------------------------------------------------------------ the table */

/* World ranks of a group's members, into out[0..n). Returns 0 or -1. */
static int group_world(const scope__mpi_abi *abi, scope__mpi_handle group, int n, int32_t *out)
{
    scope__mpi_handle wg = 0;
    int *ranks = malloc((size_t)n * sizeof *ranks);
    if (!ranks || M->comm_group(abi->comm_world, &wg) != 0) {
        free(ranks);
        return -1;
    }
    wg = scope__mpi_handle_out(abi, wg);
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    int rc = M->group_translate_ranks(group, n, ranks, wg, out);
    for (int i = 0; i < n; i++)
        if (out[i] < 0)
            out[i] = -1;    /* MPI_UNDEFINED */
    M->group_free(&wg);
    free(ranks);
    return rc == 0 ? 0 : -1;
}

/* Fills a fresh entry for handle h: members, rank, name, its id in the
 * recorder's table. Returns 0 or -1 (nothing kept). Lock held. */
static int comm_fill(const scope__mpi_abi *abi, struct scope__comm *e, uint64_t h)
{
    int size = 0, rsize = 0, me = -1, inter = 0;
    if (M->comm_test_inter(h, &inter) != 0 || M->comm_size(h, &size) != 0 ||
        M->comm_rank(h, &me) != 0 || size <= 0)
        return -1;
    if (inter && M->comm_remote_size(h, &rsize) != 0)
        return -1;
    int32_t *world = malloc(((size_t)size + (size_t)rsize) * sizeof *world);
    if (!world)
        return -1;
    scope__mpi_handle g = 0;
    int rc = M->comm_group(h, &g);
    if (rc == 0) {
        g = scope__mpi_handle_out(abi, g);
        rc = group_world(abi, g, size, world);
        M->group_free(&g);
    }
    if (rc == 0 && inter) {
        scope__mpi_handle rg = 0;
        rc = M->comm_remote_group(h, &rg);
        if (rc == 0) {
            rg = scope__mpi_handle_out(abi, rg);
            rc = group_world(abi, rg, rsize, world + size);
            M->group_free(&rg);
        }
    }
    char name[8192 + 1] = "";   /* MPI_MAX_OBJECT_NAME: 64 or 128; room to spare */
    int len = 0;
    if (rc == 0 && M->comm_get_name(h, name, &len) != 0)
        name[0] = 0;
    char creator[64];
    creator_of(abi, h, creator, sizeof creator);
    int32_t id = rc == 0 ? scope__comm_define(size, rsize, world, creator, name) : -1;
    if (id < 0) {
        free(world);
        return -1;
    }
    e->id = id;
    e->size = size;
    e->remote_size = rsize;
    e->me = me;
    e->world = world;
    /* a reused slot: its neighbours were the freed communicator's */
    free(e->in_null);
    e->in_null = e->out_null = NULL;
    e->indegree = e->outdegree = 0;
    atomic_store_explicit(&e->nb_state, 0, memory_order_relaxed);
    atomic_store_explicit(&e->handle, h, memory_order_release);
    /* keyvals are handles: MPICH's are negative ints */
    if (keyval_state == 0)
        keyval_state =
            M->comm_create_keyval && M->comm_set_attr &&
            M->comm_create_keyval(scope__mpi_attr_nocopy, comm_gone, &comm_keyval, NULL) == 0
                ? 1
                : -1;
    if (keyval_state > 0)
        M->comm_set_attr(h, comm_keyval, e);   /* else reused handles can go stale */
    return 0;
}

const struct scope__comm *scope__mpi_comm_get(const scope__mpi_abi *abi, uint64_t h)
{
    if (abi->handle_size == 4)
        h &= 0xffffffffu;   /* an int handle: the register's upper half is not its */
    if (!h)
        return NULL;
    uint32_t i = comm_hash(h);
    for (uint32_t k = 0; k < COMM_SLOTS; k++, i = (i + 1) & (COMM_SLOTS - 1)) {
        uint64_t v = atomic_load_explicit(&comms[i].handle, memory_order_acquire);
        if (v == h)
            return &comms[i];
        if (v == 0)
            break;
    }
    const struct scope__comm *found = NULL;
    scope__self_enter();
    pthread_mutex_lock(&comm_lock);
    i = comm_hash(h);
    struct scope__comm *reuse = NULL;   /* the first freed slot on the way */
    for (uint32_t k = 0; k < COMM_SLOTS; k++, i = (i + 1) & (COMM_SLOTS - 1)) {
        uint64_t v = atomic_load_explicit(&comms[i].handle, memory_order_relaxed);
        if (v == h) {
            found = &comms[i];
            break;
        }
        if (v == SCOPE__COMM_GONE && !reuse)
            reuse = &comms[i];
        if (v == 0) {
            struct scope__comm *e = reuse ? reuse : &comms[i];
            if ((reuse || k < COMM_SLOTS - 1) && comm_fill(abi, e, h) == 0)
                found = e;
            break;
        }
    }
    pthread_mutex_unlock(&comm_lock);
    scope__self_leave();
    return found;
}

/* ------------------------------------------------------------ neighbours */

/* The topology's neighbours, in the order the neighbourhood collectives
 * use their blocks: a Cartesian topology has, per dimension, the neighbour
 * below then the one above (MPI_PROC_NULL at a non-periodic edge: its
 * blocks move nothing); a graph's and a distributed graph's are ranks.
 * Lock held. Returns 1 or -1. */
static int neighbours_fill(const scope__mpi_abi *abi, struct scope__comm *e, uint64_t h)
{
    int status = abi->undefined;
    if (!M->topo_test || M->topo_test(h, &status) != 0)
        return -1;
    int in = 0, out = 0;
    if (status == abi->topo_cart) {
        int nd = 0;
        if (!M->cartdim_get || !M->cart_shift || M->cartdim_get(h, &nd) != 0 || nd < 0)
            return -1;
        in = out = 2 * nd;
        uint8_t *null = calloc(2 * (size_t)in + 1, 1);
        if (!null)
            return -1;
        for (int d = 0; d < nd; d++) {
            int lo = abi->proc_null, hi = abi->proc_null;
            if (M->cart_shift(h, d, 1, &lo, &hi) != 0) {
                free(null);
                return -1;
            }
            /* the same two ranks receive this rank's blocks and send it theirs */
            null[2 * d] = null[in + 2 * d] = lo == abi->proc_null;
            null[2 * d + 1] = null[in + 2 * d + 1] = hi == abi->proc_null;
        }
        e->in_null = null;
        e->out_null = null + in;
    } else if (status == abi->topo_graph) {
        if (!M->graph_neighbors_count || M->graph_neighbors_count(h, e->me, &in) != 0 || in < 0)
            return -1;
        out = in;
    } else if (status == abi->topo_dist_graph) {
        int weighted = 0;
        if (!M->dist_graph_neighbors_count || M->dist_graph_neighbors_count(h, &in, &out, &weighted) != 0 || in < 0 || out < 0)
            return -1;
    } else {
        return -1;
    }
    e->indegree = in;
    e->outdegree = out;
    return 1;
}

int scope__mpi_comm_neighbours(const scope__mpi_abi *abi, const struct scope__comm *c)
{
    struct scope__comm *e = (struct scope__comm *)c;    /* an entry of comms[] */
    int s = atomic_load_explicit(&e->nb_state, memory_order_acquire);
    if (s)
        return s > 0;
    scope__self_enter();
    pthread_mutex_lock(&comm_lock);
    s = atomic_load_explicit(&e->nb_state, memory_order_relaxed);
    if (!s) {
        s = neighbours_fill(abi, e, atomic_load_explicit(&e->handle, memory_order_relaxed));
        atomic_store_explicit(&e->nb_state, s, memory_order_release);
    }
    pthread_mutex_unlock(&comm_lock);
    scope__self_leave();
    return s > 0;
}
