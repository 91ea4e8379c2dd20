/*
 * callsites.c - the call-site cache and the slow path that turns return
 * addresses into call paths the recorder stores (callsites.h says why it
 * is built this way).
 *
 * The cache is one fixed table for the process, open addressing, never
 * shrunk: a slot is claimed by a CAS on its key and its id published after,
 * so a reader that sees the key but not yet the id takes the slow path,
 * which finds the same id (the recorder deduplicates paths). When the
 * table is full, misses stay misses: correct, only slower.
 *
 * Built with -mgeneral-regs-only like the rest of the hot path.
 */
#include "callsites.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load_segments.h"
#include "log.h"
#include "proc_self.h"
#include "scope_internal.h"
#include "self_depth.h"
#include "symbol_next.h"

#define CACHE_BITS 12
#define CACHE_SIZE (1u << CACHE_BITS)
#define PROBES 16
#define WALK_MAX 64             /* frames unw_backtrace may return */

struct slot {
    _Atomic uintptr_t key;      /* ra | depth << 56; 0 = free */
    _Atomic int32_t id;         /* 0 until published */
};

static struct slot cache[CACHE_SIZE];
static int (*unw_backtrace_fn)(void **, int);
/* The shadow stack's walk hooks (scope__callsites_setup): this file calls
 * into the shadow stack only through them, so the calls between the two
 * run one way, shadow stack -> call sites. */
static void (*walk_begin_fn)(void), (*walk_end_fn)(void);

int scope__callsites_setup(int max_depth, int verbose, void (*walk_begin)(void),
                           void (*walk_end)(void))
{
    (void)scope__self_exe();    /* read now, not on a recording path */
    walk_begin_fn = walk_begin;
    walk_end_fn = walk_end;
    if (max_depth <= 1 || unw_backtrace_fn)
        return unw_backtrace_fn != NULL;
    /* RTLD_LOCAL: never in the global scope; RTLD_NOW: no lazy binding
     * later, from inside a profiled call */
    void *h = scope__real_dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h)
        *(void **)&unw_backtrace_fn = dlsym(h, "unw_backtrace");
    if (!unw_backtrace_fn && verbose)
        scope__preload_say("libunwind.so.8 not loaded (%s); call sites are 1 frame deep",
                h ? "no unw_backtrace" : dlerror());
    return unw_backtrace_fn != NULL;
}

/* ------------------------------------------------- address -> (object) */

struct where {
    uintptr_t addr;
    int found;
    char object[PATH_MAX];
    char build_id[129];
    uint64_t offset;
};

static void hex(char *out, const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = 0;
}

/* The GNU build-id note among an object's loaded PT_NOTE segments. */
static void build_id_of(const struct dl_phdr_info *info, char *out)
{
    out[0] = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *nh;
            const unsigned char *desc = (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
            if ((const char *)desc + nh->n_descsz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= 64) {
                hex(out, desc, nh->n_descsz);
                return;
            }
            p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct where *w = arg;
    if (!scope__load_segment_of(info, w->addr))
        return 0;
    /* the main program has an empty name */
    const char *name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name
                                                             : scope__self_exe();
    snprintf(w->object, sizeof w->object, "%s", name);
    build_id_of(info, w->build_id);
    /* the load bias: offsets are then the file's own addresses, what
     * DWARF and the symbol table use, in every process alike */
    w->offset = w->addr - info->dlpi_addr;
    w->found = 1;
    return 1;
}

static void locate(struct where *w, uintptr_t addr)
{
    w->addr = addr;
    w->found = 0;
    dl_iterate_phdr(find_object, w);
    if (!w->found) {
        snprintf(w->object, sizeof w->object, "[unknown]");
        w->build_id[0] = 0;
        w->offset = addr;
    }
}

/* ------------------------------------------------------------ the miss */

/* Return addresses of the frames above the caller's: restores the real
 * return addresses of this thread's open instrumented calls for the walk
 * (they point at the exit path, which the unwinder cannot step through)
 * and redirects them again after. Only the frames the walk restored are
 * redirected: during a C++ exception's unwinding (a destructor calling an
 * instrumented function) the frames the throw restored must stay so.
 * Not the throw/catch pair: that would count an exception in flight.
 * Returns how many were put in pcs. */
static int deeper(uintptr_t ra, uintptr_t *pcs, int want)
{
    void *buf[WALK_MAX];
    if (walk_begin_fn)
        walk_begin_fn();
    int n = unw_backtrace_fn(buf, WALK_MAX);
    if (walk_end_fn)
        walk_end_fn();
    /* libunwind gives return addresses as they are on x86-64, less one on
     * aarch64 (inside the call instruction): found either way, and given
     * back as return addresses */
    int i = 0;
    while (i < n && (uintptr_t)buf[i] != ra && (uintptr_t)buf[i] != ra - 1)
        i++;
    uintptr_t bias = i < n && (uintptr_t)buf[i] == ra - 1 ? 1 : 0;
    int got = 0;
    for (i++; i < n && got < want; i++)
        pcs[got++] = (uintptr_t)buf[i] + bias;
    return got;
}

static int32_t miss_walk(uintptr_t ra, uint32_t depth, struct slot *free_slot, uintptr_t key);

/* A cache miss: scope's own work (self_depth.h), since the walk and the
 * lookups call libc (malloc, dladdr) and libunwind. */
static __attribute__((noinline)) int32_t miss(uintptr_t ra, uint32_t depth, struct slot *free_slot,
                                              uintptr_t key)
{
    scope__self_enter();
    int32_t id = miss_walk(ra, depth, free_slot, key);
    scope__self_leave();
    return id;
}

static int32_t miss_walk(uintptr_t ra, uint32_t depth, struct slot *free_slot, uintptr_t key)
{
    uintptr_t pcs[SCOPE_CALLSITE_MAX_DEPTH];
    int n = 1;
    pcs[0] = ra;
    if (depth > 1 && unw_backtrace_fn)
        n += deeper(ra, pcs + 1, (int)depth - 1);
    /* 70 KiB at depth 16: not on a stack the application sized */
    struct where *w = malloc((size_t)n * sizeof *w);
    if (!w)
        return 0;
    scope__frame fr[SCOPE_CALLSITE_MAX_DEPTH];
    for (int i = 0; i < n; i++) {
        locate(&w[i], pcs[i]);
        fr[i] = (scope__frame){ w[i].build_id, w[i].object, w[i].offset };
    }
    int32_t id = scope__callsite_define(fr, n);
    free(w);
    if (id <= 0)
        return 0;
    if (free_slot) {
        uintptr_t zero = 0;
        if (atomic_compare_exchange_strong(&free_slot->key, &zero, key))
            atomic_store_explicit(&free_slot->id, id, memory_order_release);
    }
    return id;
}

int32_t scope__callsite_get(uintptr_t ra, uintptr_t *slot, uint32_t depth)
{
    (void)slot;
    uintptr_t key = ra | ((uintptr_t)depth << 56);
    uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - CACHE_BITS));
    struct slot *free_slot = NULL;
    for (uint32_t i = 0; i < PROBES; i++) {
        struct slot *s = &cache[(h + i) & (CACHE_SIZE - 1)];
        uintptr_t k = atomic_load_explicit(&s->key, memory_order_acquire);
        if (k == key) {
            int32_t id = atomic_load_explicit(&s->id, memory_order_acquire);
            if (__builtin_expect(id > 0, 1))
                return id;
            break;              /* being published: the slow path agrees */
        }
        if (k == 0) {
            free_slot = s;
            break;
        }
    }
    return miss(ra, depth, free_slot, key);
}
