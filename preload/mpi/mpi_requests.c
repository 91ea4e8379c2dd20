/*
 * mpi_requests.c - the per-thread table of nonblocking requests in flight
 * (mpi_requests.h): open addressing with linear probing keyed by the
 * request handle, deletion by backward shift (no tombstones, so a long
 * run's table never clogs). Per thread because the hot path takes no lock
 * and almost every code completes a request on the thread that posted it.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_requests.h"
#include "self_depth.h"

struct slot {
    uint64_t handle;        /* 0: empty (no MPI's active request is 0) */
    struct scope__req r;
};

_Static_assert(offsetof(struct slot, handle) == 0, "shift_delete reads the handle first");

struct table {
    uint32_t n;
    uint32_t next_id, last_id;  /* this thread's block of post ids: next_id..last_id */
    struct slot s[SCOPE_REQ_TABLE];
};

/* Post ids are taken from the process's counter a block at a time, so
 * that a post costs no atomic: ids stay unique in the process, and a
 * single-threaded process numbers its posts 1, 2, 3, ... as before. */
#define ID_BLOCK 4096u

static __thread struct table *tls_table __attribute__((tls_model("initial-exec")));
static _Atomic uint32_t next_id;
static _Atomic uint64_t untracked;

/* The home slot of handle h in a table of `size` (a power of two) slots. */
static uint32_t home_of(uint64_t h, uint32_t size)
{
    return (uint32_t)((h * 0x9e3779b97f4a7c15ull) >> 40) & (size - 1);
}

static uint32_t hash(uint64_t h)
{
    return home_of(h, SCOPE_REQ_TABLE);
}

/* Empties slot `i` of an open-addressed table of `size` slots of `elem`
 * bytes each, every slot starting with its uint64_t handle (0: empty), by
 * backward shift: later members of the cluster whose home slot does not
 * lie after the hole move into it, so no tombstone is left behind. */
static void shift_delete(void *slots, size_t elem, uint32_t size, uint32_t i)
{
    unsigned char *b = slots;
    uint32_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & (size - 1);
        uint64_t h;
        memcpy(&h, b + (size_t)j * elem, sizeof h);
        if (!h)
            break;
        uint32_t home = home_of(h, size);
        if (hole <= j ? (home <= hole || home > j) : (home <= hole && home > j)) {
            memcpy(b + (size_t)hole * elem, b + (size_t)j * elem, elem);
            hole = j;
        }
    }
    memset(b + (size_t)hole * elem, 0, sizeof(uint64_t));
}

/* Takes the slot whose handle field is *slot (the one a probe for
 * `handle` found, in a table of `size` slots holding *n) for `handle`:
 * an empty slot counts as a new member, tables keep one slot
 * free so that a probe always ends. A handle already there is reused: MPI
 * reused it after a free or a receive that scope missed. Returns 1, or 0
 * when the table is full (the caller then records nothing). */
static int claim_slot(uint64_t *slot, uint32_t *n, uint32_t size, uint64_t handle)
{
    if (!*slot) {
        if (*n >= size - 1)
            return 0;
        (*n)++;
    }
    *slot = handle;
    return 1;
}

/* A thread's table, allocated at its first use: the allocation is
 * scope's, not the program's. NULL when memory ran out. */
static void *new_table(size_t bytes)
{
    scope__self_enter();
    void *t = calloc(1, bytes);
    scope__self_leave();
    return t;
}

uint32_t scope__req_post(uint64_t handle, struct scope__req *r)
{
    struct table *t = tls_table;
    if (!t) {
        t = tls_table = new_table(sizeof *t);
        if (!t) {
            atomic_fetch_add_explicit(&untracked, 1, memory_order_relaxed);
            return 0;
        }
    }
    if (!handle) {
        atomic_fetch_add_explicit(&untracked, 1, memory_order_relaxed);
        return 0;
    }
    /* Full (keep one slot free so that a probe always ends): requests
     * completed where scope does not follow them (another thread, an error,
     * more than 256 in one call) never leave, so the table starts over
     * rather than stop following for good; those in it are lost. */
    if (t->n >= SCOPE_REQ_TABLE - 1) {
        atomic_fetch_add_explicit(&untracked, t->n, memory_order_relaxed);
        for (uint32_t k = 0; k < SCOPE_REQ_TABLE; k++)
            t->s[k].handle = 0;
        t->n = 0;
    }
    if (t->next_id == 0 || t->next_id > t->last_id) {
        uint32_t first = atomic_fetch_add_explicit(&next_id, ID_BLOCK, memory_order_relaxed) + 1;
        if (first == 0)     /* past 2^32 posts: 0 is "no post" */
            first = atomic_fetch_add_explicit(&next_id, ID_BLOCK, memory_order_relaxed) + 1;
        t->next_id = first;
        t->last_id = first + ID_BLOCK - 1 < first ? UINT32_MAX : first + ID_BLOCK - 1;
    }
    uint32_t id = t->next_id++;
    r->id = id;
    /* Handles repeat: Open MPI gives every send it completed at once the
     * same request. So a handle may be in the table several times; the
     * probe finds the oldest first, and completions take them in order. */
    uint32_t i = hash(handle);
    while (t->s[i].handle)
        i = (i + 1) & (SCOPE_REQ_TABLE - 1);
    t->n++;
    t->s[i].handle = handle;
    t->s[i].r = *r;
    return id;
}

int scope__req_take(uint64_t handle, struct scope__req *out)
{
    struct table *t = tls_table;
    if (!t || !handle)
        return 0;
    uint32_t i = hash(handle);
    while (t->s[i].handle && t->s[i].handle != handle)
        i = (i + 1) & (SCOPE_REQ_TABLE - 1);
    if (!t->s[i].handle)
        return 0;
    *out = t->s[i].r;
    shift_delete(t->s, sizeof *t->s, SCOPE_REQ_TABLE, i);
    t->n--;
    return 1;
}

uint64_t scope__req_untracked(void)
{
    return atomic_load_explicit(&untracked, memory_order_relaxed);
}

/* ------------------------------------------------ persistent requests */

struct pslot {
    uint64_t handle;        /* 0: empty */
    struct scope__persist p;
};

_Static_assert(offsetof(struct pslot, handle) == 0, "shift_delete reads the handle first");

struct ptable {
    uint32_t n;
    struct pslot s[SCOPE_REQ_PERSISTENT];
};

static __thread struct ptable *tls_ptable __attribute__((tls_model("initial-exec")));

/* The slot of `handle`, or the empty slot where it would go. */
static struct pslot *pfind(struct ptable *t, uint64_t handle)
{
    uint32_t i = home_of(handle, SCOPE_REQ_PERSISTENT);
    while (t->s[i].handle && t->s[i].handle != handle)
        i = (i + 1) & (SCOPE_REQ_PERSISTENT - 1);
    return &t->s[i];
}

int scope__req_persist(uint64_t handle, const struct scope__persist *p)
{
    struct ptable *t = tls_ptable;
    if (!t && !(t = tls_ptable = new_table(sizeof *t)))
        return 0;
    if (!handle)
        return 0;
    struct pslot *s = pfind(t, handle);
    if (!claim_slot(&s->handle, &t->n, SCOPE_REQ_PERSISTENT, handle))
        return 0;
    s->p = *p;
    return 1;
}

const struct scope__persist *scope__req_persisted(uint64_t handle)
{
    struct ptable *t = tls_ptable;
    if (!t || !handle)
        return NULL;
    struct pslot *s = pfind(t, handle);
    return s->handle ? &s->p : NULL;
}

void scope__req_unpersist(uint64_t handle)
{
    struct ptable *t = tls_ptable;
    if (!t || !handle)
        return;
    struct pslot *s = pfind(t, handle);
    if (!s->handle)
        return;
    shift_delete(t->s, sizeof *t->s, SCOPE_REQ_PERSISTENT, (uint32_t)(s - t->s));
    t->n--;
}

/* --------------------------------------------------- matched messages */

struct mslot {
    uint64_t handle;        /* 0: empty */
    const struct scope__comm *comm;
};

_Static_assert(offsetof(struct mslot, handle) == 0, "shift_delete reads the handle first");

struct mtable {
    uint32_t n;
    struct mslot s[SCOPE_REQ_MESSAGES];
};

static __thread struct mtable *tls_mtable __attribute__((tls_model("initial-exec")));

static struct mslot *mfind(struct mtable *t, uint64_t handle)
{
    uint32_t i = home_of(handle, SCOPE_REQ_MESSAGES);
    while (t->s[i].handle && t->s[i].handle != handle)
        i = (i + 1) & (SCOPE_REQ_MESSAGES - 1);
    return &t->s[i];
}

int scope__msg_matched(uint64_t handle, const struct scope__comm *comm)
{
    struct mtable *t = tls_mtable;
    if (!t && !(t = tls_mtable = new_table(sizeof *t)))
        return 0;
    if (!handle)
        return 0;
    struct mslot *s = mfind(t, handle);
    if (!claim_slot(&s->handle, &t->n, SCOPE_REQ_MESSAGES, handle))
        return 0;
    s->comm = comm;
    return 1;
}

const struct scope__comm *scope__msg_take(uint64_t handle)
{
    struct mtable *t = tls_mtable;
    if (!t || !handle)
        return NULL;
    struct mslot *s = mfind(t, handle);
    if (!s->handle)
        return NULL;
    const struct scope__comm *c = s->comm;
    shift_delete(t->s, sizeof *t->s, SCOPE_REQ_MESSAGES, (uint32_t)(s - t->s));
    t->n--;
    return c;
}
