/*
 * patch.c - writes a jump at a function's entry to a per-function stub, and
 * builds the stubs; what the jump and the relocated instructions look like
 * is the CPU's (arch/<cpu>/arch_patch.c, arch_patch.h).
 *
 * A stub (one STUB_SIZE slot of a pool mapped within the CPU's branch reach
 * of the function, SCOPE_ARCH_PATCH_REACH) holds:
 *
 *   struct scope__fn                      the function's region id and where
 *                                         its original code resumes
 *   the way into the generic trampoline   scope__arch_stub_head
 *   relocated entry instructions          the ones the jump displaced
 *   a jump back                           into the function after them
 *
 * Anything that cannot be moved safely is refused with a reason by the
 * CPU's planner, never patched blindly (a function shorter than the patch,
 * a branch in the body into the displaced instructions, a target out of
 * reach), and here an entry that is not at an instruction boundary of the
 * function containing it.
 *
 * Code pages are made writable only for the write and go back to
 * read+execute (plus the CPU's extra bits: BTI on aarch64); in a batch (a
 * start-up or a dlopen patching many functions) each segment and stub pool
 * is made writable once, by its first write, and gets its own protection
 * back when the batch ends: one pair of mprotect calls per segment instead
 * of four per function. When other threads may be running, the jump is
 * written so that no thread runs half-written bytes (scope__arch_entry_write).
 *
 * The stubs jump into the generic trampoline, so the trampoline's variant
 * (for this CPU's vector registers) and mode (SCOPE_TRAMPOLINE: call or
 * redirect) are chosen here too, once, by scope__tramp_select().
 */
#include "patch.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch_patch.h"
#include "arch_trampoline.h"
#include "load_segments.h"
#include "scope_error.h"
#include "self.h"
#include "settings.h"

#define STUB_SIZE 128u
#define STUB_CODE 32u           /* code starts after struct scope__fn */
#define STUB_HEAD SCOPE_ARCH_STUB_HEAD
#define POOL_SIZE (1u << 20)
#define REACH SCOPE_ARCH_PATCH_REACH

struct pool {
    uint8_t *base;
    size_t used;
    size_t populated;           /* bytes from base already faulted in */
};

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  /* Linux 5.14 */
#endif
#define POPULATE_CHUNK (64u << 10)

static struct {
    int ready;
    uintptr_t entry_tramp;      /* generic entry for this CPU */
    struct pool *pools;
    size_t n_pools;
    uintptr_t *done;            /* addresses instrumented, sorted */
    size_t n_done, cap_done;
    int batch;                  /* inside scope__patch_batch_begin/end */
    struct open_range { uintptr_t lo, hi; int prot; } *open;  /* made writable */
    size_t n_open;
    size_t n_mprotect;          /* mprotect calls made for code and stubs */
} P;


int scope__patch_disassembler(void)
{
    return scope__arch_patch_load(NULL, 0);
}

uintptr_t scope__patch_disassembler_bias(void)
{
    return scope__arch_patch_helper_bias();
}

uintptr_t scope__tramp_entry_addr, scope__tramp_exit_addr;
int scope__tramp_call_mode;

void scope__tramp_select(void)
{
    scope__self_init();
    int mode = scope__tramp_mode_from_env();
    scope__tramp_call_mode = mode == SCOPE_TRAMP_CALL;
    scope__arch_tramp_pick(scope__tramp_call_mode, &scope__tramp_entry_addr,
                           &scope__tramp_exit_addr);
}

int scope__tramp_mode_from_env(void)
{
    /* the settings table's word and default (base/settings_table.c) */
    const scope_setting_value *m = scope__setting(SCOPE_SET_TRAMPOLINE);
    if (m->state == SCOPE_SETTING_BAD)
        return -1;
    return m->u == SCOPE_TRAMPOLINE_REDIRECT ? SCOPE_TRAMP_REDIRECT : SCOPE_TRAMP_CALL;
}

int scope__patch_init(void)
{
    if (P.ready)
        return 0;
    scope__tramp_select();
    P.entry_tramp = scope__tramp_entry_addr;
    P.ready = 1;
    return 0;
}

/* ------------------------------------------------------------ bookkeeping */

static size_t done_pos(uintptr_t a)
{
    size_t lo = 0, hi = P.n_done;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (P.done[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int scope__patch_done(uintptr_t addr)
{
    size_t i = done_pos(addr);
    return i < P.n_done && P.done[i] == addr;
}

uintptr_t scope__patch_unpatched(uintptr_t addr)
{
    if (!addr || !scope__patch_done(addr))
        return addr;
    uintptr_t code = scope__arch_entry_target(addr);
    if (!code)
        return addr;                    /* a GOT patch leaves the code alone */
    const struct scope__fn *fn = (const struct scope__fn *)(code - STUB_CODE);
    return fn->entry == addr ? fn->resume : addr;
}

void scope__patch_forget(uintptr_t lo, uintptr_t hi)
{
    size_t a = done_pos(lo), b = done_pos(hi);
    if (b > a) {
        memmove(&P.done[a], &P.done[b], (P.n_done - b) * sizeof *P.done);
        P.n_done -= b - a;
    }
}

void scope__patch_mark(uintptr_t addr)
{
    size_t i = done_pos(addr);
    if (i < P.n_done && P.done[i] == addr)
        return;
    if (P.n_done == P.cap_done) {
        size_t cap = P.cap_done ? 2 * P.cap_done : 64;
        uintptr_t *d = realloc(P.done, cap * sizeof *d);
        if (!d)
            return;
        P.done = d;
        P.cap_done = cap;
    }
    memmove(&P.done[i + 1], &P.done[i], (P.n_done - i) * sizeof *P.done);
    P.done[i] = addr;
    P.n_done++;
}

/* ------------------------------------------------------------ stub memory */

static int near(uintptr_t a, uintptr_t b)
{
    intptr_t d = (intptr_t)(a - b);
    return d > -REACH && d < REACH;
}

/* Maps a pool within reach of `addr`: tries hints at growing distances
 * below and above it, refusing any placement that would replace a mapping. */
static struct pool *pool_near(uintptr_t addr)
{
    for (size_t i = 0; i < P.n_pools; i++) {
        struct pool *p = &P.pools[i];
        if (p->used + STUB_SIZE <= POOL_SIZE && near((uintptr_t)p->base, addr) &&
            near((uintptr_t)p->base + POOL_SIZE, addr))
            return p;
    }
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (uintptr_t step = 1u << 20; step < (uintptr_t)REACH - POOL_SIZE; step *= 2) {
        for (int dir = -1; dir <= 1; dir += 2) {
            uintptr_t hint = dir < 0 ? addr - step - POOL_SIZE : addr + step;
            hint &= ~(page - 1);
            if (dir < 0 && hint > addr)
                continue;               /* wrapped below 0 */
            void *m = mmap((void *)hint, POOL_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
            if (m == MAP_FAILED)
                continue;
            if (!near((uintptr_t)m, addr) || !near((uintptr_t)m + POOL_SIZE, addr)) {
                munmap(m, POOL_SIZE);   /* an old kernel took the hint loosely */
                continue;
            }
            mprotect(m, POOL_SIZE, PROT_READ | PROT_EXEC);
            struct pool *np = realloc(P.pools, (P.n_pools + 1) * sizeof *np);
            if (!np) {
                munmap(m, POOL_SIZE);
                return NULL;
            }
            P.pools = np;
            P.pools[P.n_pools] = (struct pool){ m, 0, 0 };
            return &P.pools[P.n_pools++];
        }
    }
    return NULL;
}

/* ------------------------------------------------------------ protection */

/* The loaded segment that holds an address: its page range and the
 * protection its program header gives it. */
struct seg_query {
    uintptr_t addr;
    uintptr_t lo, hi;
    int prot;
    int found;
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct seg_query *q = arg;
    const ElfW(Phdr) *ph = scope__load_segment_of(info, q->addr);
    if (!ph)
        return 0;
    q->lo = info->dlpi_addr + ph->p_vaddr;
    q->hi = q->lo + ph->p_memsz;
    q->prot = (ph->p_flags & PF_R ? PROT_READ : 0) | (ph->p_flags & PF_W ? PROT_WRITE : 0) |
              (ph->p_flags & PF_X ? PROT_EXEC | scope__arch_exec_prot(info) : 0);
    q->found = 1;
    return 1;
}

/* The protection of the code page at `lo` as it was loaded: read+execute,
 * plus the CPU's extra bits of its object (PROT_BTI on aarch64, which an
 * mprotect without it would drop, unguarding the object's code). Stub
 * pools are ours: read+execute. Cost: nothing where the CPU has no extra
 * bits, else one walk of the loaded objects. */
static int exec_prot(uintptr_t lo)
{
    if (!SCOPE_ARCH_EXEC_PROT_EXTRA)
        return PROT_READ | PROT_EXEC;
    for (size_t i = 0; i < P.n_pools; i++)
        if (lo >= (uintptr_t)P.pools[i].base && lo < (uintptr_t)P.pools[i].base + POOL_SIZE)
            return PROT_READ | PROT_EXEC;
    struct seg_query q = { .addr = lo };
    dl_iterate_phdr(find_segment, &q);
    return PROT_READ | PROT_EXEC | (q.found ? q.prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC) : 0);
}

/* Whether [lo, hi) lies in a range the batch already made writable. */
static int batch_covers(uintptr_t lo, uintptr_t hi)
{
    for (size_t i = 0; i < P.n_open; i++)
        if (lo >= P.open[i].lo && hi <= P.open[i].hi)
            return 1;
    return 0;
}

/* In a batch: makes the whole segment (or stub pool) that holds [lo, hi)
 * writable once, and remembers the protection to give back at the end. */
static int batch_open(uintptr_t lo, uintptr_t hi, uintptr_t page)
{
    struct seg_query q = { .addr = lo };
    for (size_t i = 0; i < P.n_pools && !q.found; i++) {
        uintptr_t b = (uintptr_t)P.pools[i].base;
        if (lo >= b && hi <= b + POOL_SIZE)
            q = (struct seg_query){ lo, b, b + POOL_SIZE, PROT_READ | PROT_EXEC, 1 };
    }
    if (!q.found)
        dl_iterate_phdr(find_segment, &q);
    if (q.found) {
        q.lo &= ~(page - 1);
        q.hi = (q.hi + page - 1) & ~(page - 1);
    }
    if (!q.found || lo < q.lo || hi > q.hi)     /* not in one segment: just the pages */
        q = (struct seg_query){ lo, lo, hi, exec_prot(lo), 1 };
    struct open_range *o = realloc(P.open, (P.n_open + 1) * sizeof *o);
    if (!o)
        return SCOPE_ENOMEM;
    P.open = o;
    if (mprotect((void *)q.lo, q.hi - q.lo, q.prot | PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return SCOPE_EACCES;
    P.open[P.n_open++] = (struct open_range){ q.lo, q.hi, q.prot };
    P.n_mprotect++;
    return 0;
}

/* Faults in the stub pool pages ahead of [lo, hi) in one call, 64 KiB at a
 * time: a page fault costs tens of microseconds on some virtual machines,
 * and a start-up writing thousands of stubs would take one per page. */
static void populate_stubs(uintptr_t lo, uintptr_t hi)
{
    for (size_t i = 0; i < P.n_pools; i++) {
        struct pool *p = &P.pools[i];
        uintptr_t b = (uintptr_t)p->base;
        if (lo < b || hi > b + POOL_SIZE)
            continue;
        if (hi - b > p->populated) {
            size_t from = p->populated > lo - b ? p->populated : lo - b;
            size_t to = hi - b + POPULATE_CHUNK;
            if (to > POOL_SIZE)
                to = POOL_SIZE;
            madvise(p->base + from, to - from, MADV_POPULATE_WRITE);
            p->populated = to;      /* also when the kernel lacks it: faults then */
        }
        return;
    }
}

void scope__patch_prefault(const uintptr_t *addrs, size_t n)
{
    if (!P.batch || !n)
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t run_lo = 0, run_hi = 0;
    for (size_t i = 0; i <= n; i++) {
        uintptr_t lo = 0, hi = 0;
        if (i < n) {
            lo = addrs[i] & ~(page - 1);
            /* the jump may follow a landing pad */
            hi = (addrs[i] + SCOPE_ARCH_PATCH_SPAN + page - 1) & ~(page - 1);
            if (run_hi && lo <= run_hi) {
                if (hi > run_hi)
                    run_hi = hi;
                continue;
            }
        }
        if (run_hi && (batch_covers(run_lo, run_hi) ||
                       batch_open(run_lo, run_hi, page) == 0) &&
            batch_covers(run_lo, run_hi))
            madvise((void *)run_lo, run_hi - run_lo, MADV_POPULATE_WRITE);
        run_lo = lo;
        run_hi = hi;
    }
}

/* Makes [p, p+len) writable (and still executable: another thread may be
 * running code on the same page) or puts it back to read+execute. In a
 * batch, the first write into a segment opens all of it and nothing is
 * put back until scope__patch_batch_end(). */
static int code_writable(void *p, size_t len, int on)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)p & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + len + page - 1) & ~(page - 1);
    if (P.batch) {
        if (!on)
            return 0;
        int rc = batch_covers(lo, hi) ? 0 : batch_open(lo, hi, page);
        if (rc == 0)
            populate_stubs(lo, hi);
        return rc;
    }
    P.n_mprotect++;
    int prot = exec_prot(lo) | (on ? PROT_WRITE : 0);
    return mprotect((void *)lo, hi - lo, prot) == 0 ? 0 : SCOPE_EACCES;
}

void scope__patch_batch_begin(void)
{
    P.batch = 1;
}

void scope__patch_batch_end(void)
{
    for (size_t i = 0; i < P.n_open; i++)
        mprotect((void *)P.open[i].lo, P.open[i].hi - P.open[i].lo, P.open[i].prot);
    P.n_mprotect += P.n_open;
    free(P.open);
    P.open = NULL;
    P.n_open = 0;
    P.batch = 0;
}

size_t scope__patch_mprotects(void)
{
    return P.n_mprotect;
}

/* Writes the stub header: the record and the way into the trampoline. */
static uint8_t *stub_header(uint8_t *s, int32_t id, uint32_t flags, uintptr_t resume,
                           uintptr_t entry, const struct scope__arch_entry *e)
{
    struct scope__fn *fn = (struct scope__fn *)s;
    fn->id = id;
    if (!(flags & (SCOPE_FN_CAPTURE_MASK | SCOPE_FN_DEPTH_MASK)))
        flags |= SCOPE_FN_TICKS_AT_ENTRY;
    fn->flags = flags;
    fn->resume = resume;
    fn->entry = entry;
    scope__arch_stub_head(s + STUB_CODE, (uintptr_t)fn, P.entry_tramp, e);
    return s + STUB_CODE + STUB_HEAD;
}

static uint8_t *stub_alloc(uintptr_t near_addr, struct pool **pp)
{
    struct pool *p = pool_near(near_addr);
    if (!p)
        return NULL;
    *pp = p;
    return p->base + p->used;
}

int scope__patch_inline(uintptr_t addr, uint64_t size, int32_t id, uint32_t flags,
                        int atomic, char *why, size_t whylen)
{
    if (!P.ready)
        return SCOPE_ESTATE;
    if (!scope__arch_patch_load(why, whylen))
        return SCOPE_ENOENT;
    struct scope__arch_entry e;
    if (scope__arch_entry_plan(&e, addr, size, why, whylen) < 0)
        return SCOPE_EINVAL;
    struct pool *pool;
    uint8_t *stub = stub_alloc(addr, &pool);
    if (!stub) {
        scope__arch_say(why, whylen, "no free address within reach of the function for the stub");
        return SCOPE_ENOMEM;
    }
    if (code_writable(stub, STUB_SIZE, 1) < 0) {
        scope__arch_say(why, whylen, "cannot make stub memory writable: %s", strerror(errno));
        return SCOPE_EACCES;
    }
    uint8_t *reloc = stub + STUB_CODE + STUB_HEAD;
    if (!scope__arch_entry_relocate(&e, reloc, STUB_SIZE - STUB_CODE - STUB_HEAD, why, whylen)) {
        code_writable(stub, STUB_SIZE, 0);
        return SCOPE_EINVAL;
    }
    stub_header(stub, id, flags, (uintptr_t)reloc, addr, &e);
    scope__arch_code_written(stub, STUB_SIZE);
    code_writable(stub, STUB_SIZE, 0);
    pool->used += STUB_SIZE;

    uint8_t jmp[16];
    size_t len = scope__arch_entry_jump(jmp, e.at, (uintptr_t)stub + STUB_CODE);
    if (code_writable((void *)e.at, len, 1) < 0) {
        scope__arch_say(why, whylen, "cannot make the code writable: %s", strerror(errno));
        return SCOPE_EACCES;    /* the stub slot is used but harmless */
    }
    scope__arch_entry_write((uint8_t *)e.at, jmp, len, atomic);
    code_writable((void *)e.at, len, 0);
    scope__patch_mark(addr);
    return 0;
}

int scope__patch_at_boundary(uintptr_t container, uintptr_t addr)
{
    return scope__arch_at_boundary(container, addr);
}

int scope__patch_got_stub(uintptr_t addr, int32_t id, uint32_t flags, uintptr_t *stub_out)
{
    if (!P.ready)
        return SCOPE_ESTATE;
    struct pool *pool;
    uint8_t *stub = stub_alloc(addr, &pool);
    if (!stub)
        return SCOPE_ENOMEM;
    if (code_writable(stub, STUB_SIZE, 1) < 0)
        return SCOPE_EACCES;
    stub_header(stub, id, flags, addr, addr, NULL);
    scope__arch_code_written(stub, STUB_SIZE);
    code_writable(stub, STUB_SIZE, 0);
    pool->used += STUB_SIZE;
    *stub_out = (uintptr_t)stub + STUB_CODE;
    return 0;
}

int scope__patch_write_slot(uintptr_t *slot, uintptr_t value, int relro)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    void *lo = (void *)((uintptr_t)slot & ~(page - 1));
    if (relro && mprotect(lo, page, PROT_READ | PROT_WRITE) != 0)
        return SCOPE_EACCES;
    __atomic_store_n(slot, value, __ATOMIC_SEQ_CST);
    if (relro)
        mprotect(lo, page, PROT_READ);
    return 0;
}
