/*
 * patch.c - writes a jump at a function's entry to a per-function stub, and
 * builds the stubs.
 *
 * A stub (one STUB_SIZE slot of a pool mapped within +-2 GiB of the
 * function, so a 5-byte `jmp rel32` reaches it) holds:
 *
 *   struct scope__fn                      the function's region id and where
 *                                         its original code resumes
 *   push %r11; movabs $fn, %r11;          enter the generic trampoline
 *   jmp *tramp(%rip)
 *   relocated entry instructions          the bytes the jump displaced
 *   jmp entry+n                           back into the function
 *
 * The stub passes the function's record in %r11 after pushing the
 * caller's value below the return address (the trampoline puts it back):
 * a caller compiled with -fipa-ra may rely on %r11 surviving the call.
 *
 * The displaced instructions are decoded with Zydis and rewritten for
 * their new address: RIP-relative operands get a new displacement, short
 * branches become rel32 ones, a `call` becomes a push of the original
 * return address and a jump (so unwinders still see the real caller).
 * Anything that cannot be moved safely is refused with a reason, never
 * patched blindly: a function shorter than the patch, a branch anywhere in
 * the body into the middle of the patched bytes, a target out of rel32
 * reach, an entry that is not at an instruction boundary of the function
 * containing it.
 *
 * Code pages are made writable only for the write and go back to
 * read+execute; in a batch (a start-up or a dlopen patching many
 * functions) each segment and stub pool is made writable once, by its first
 * write, and gets its own protection back when the batch ends: one pair of
 * mprotect calls per segment instead of four per function. When other threads may be running, the 5 bytes are written
 * with one 16-byte cmpxchg when they fit in an aligned 16-byte block, else
 * a `jmp .` is written first so no thread can run half-written bytes.
 */
#include "patch.h"

#include <Zydis/Zydis.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "branch_scan.h"
#include "scope_error.h"
#include "shadow_stack.h"

#define STUB_SIZE 128u
#define STUB_CODE 32u           /* code starts after struct scope__fn */
#define STUB_HEAD 32u           /* push; movabs; jmp *; literal; padding */
#define POOL_SIZE (1u << 20)
#define PATCH_LEN 5u
#define REACH ((intptr_t)0x7fff0000)

struct pool {
    uint8_t *base;
    size_t used;
    size_t populated;           /* bytes from base already faulted in */
};

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  /* Linux 5.14 */
#endif
#define POPULATE_CHUNK (64u << 10)

/* Zydis, opened (RTLD_LOCAL) by the first patch: the preload is loaded
 * into every process of a job (mpirun, its daemons, shells), and only the
 * processes that patch something need a disassembler. Zydis rather than
 * capstone: it decodes only x86, and its tables hold no pointers, so its
 * load costs ~0.4 ms of CPU where libcapstone's (77,000 relocations over
 * the tables of every architecture it knows) cost 7-11 ms in every rank,
 * most of the default config's start-up (bench/README.md). */
static struct {
    int tried, ok;
    uintptr_t own_bias;         /* its load bias when the preload loaded it */
    ZydisDecoder dec;
    __typeof__(ZydisDecoderDecodeFull) *full;
    __typeof__(ZydisDecoderDecodeInstruction) *one;
    __typeof__(ZydisMnemonicGetString) *name;
} ZY;

/* One decoded instruction: what relocation and the branch checks need. */
struct insn {
    uintptr_t address;
    uint8_t size;
    uint8_t bytes[ZYDIS_MAX_INSTRUCTION_LENGTH];
    int mnemonic;               /* a ZydisMnemonic */
    uintptr_t target;           /* of a relative branch (or xbegin), else 0 */
    int rip_at;                 /* offset of a RIP-relative disp32, or -1 */
    int32_t rip_disp;
};

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

static void say(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (why && len)
        vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

/* The load biases of the objects loaded now, to tell afterwards whether
 * an object was among them. */
struct biases {
    uintptr_t v[1024];
    size_t n;
};

static int note_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct biases *b = arg;
    if (b->n < sizeof b->v / sizeof *b->v)
        b->v[b->n++] = info->dlpi_addr;
    return 0;
}

/* Opens Zydis on first use. Returns 1 when it is usable; else 0, with the
 * reason in why. Through the real dlopen: the preload's own dlopen hook
 * would look for functions to patch in it. Whether the application had
 * loaded it already (then it is the application's, and may be patched) is
 * told by the load biases before the dlopen, not by a first dlopen with
 * RTLD_NOLOAD: that one searches the library path and opens the file
 * again, ~0.1-0.6 ms of every rank's start-up. */
static int disassembler(char *why, size_t whylen)
{
    if (!ZY.tried) {
        ZY.tried = 1;
        typedef void *(*dlopen_fn)(const char *, int);
        dlopen_fn real = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
        static struct biases before;    /* 8 KiB: not on the application's stack */
        before.n = 0;
        dl_iterate_phdr(note_bias, &before);
        void *h = real ? real(SCOPE_ZYDIS_SONAME, RTLD_NOW | RTLD_LOCAL) : NULL;
        struct link_map *lm = NULL;
        if (h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm) {
            /* past 1024 objects an earlier copy may go unseen: it is then
             * taken for the preload's own, left unpatched */
            int had = 0;
            for (size_t i = 0; i < before.n && !had; i++)
                had = before.v[i] == (uintptr_t)lm->l_addr;
            if (!had)
                ZY.own_bias = (uintptr_t)lm->l_addr;
        }
        __typeof__(ZydisDecoderInit) *init = h ? dlsym(h, "ZydisDecoderInit") : NULL;
        ZY.full = h ? dlsym(h, "ZydisDecoderDecodeFull") : NULL;
        ZY.one = h ? dlsym(h, "ZydisDecoderDecodeInstruction") : NULL;
        ZY.name = h ? dlsym(h, "ZydisMnemonicGetString") : NULL;
        ZY.ok = init && ZY.full && ZY.one && ZY.name &&
                ZYAN_SUCCESS(init(&ZY.dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64));
    }
    if (!ZY.ok)
        say(why, whylen, "the disassembler " SCOPE_ZYDIS_SONAME " cannot be loaded");
    return ZY.ok;
}

/* Decodes the instruction at `ip`, reading at most `left` bytes. `full`
 * also decodes the operands, for a RIP-relative one (relocation needs it;
 * the branch scans do not). Returns its length, or 0 when the bytes are
 * not a valid instruction. */
static size_t decode(uintptr_t ip, size_t left, struct insn *in, int full)
{
    ZydisDecodedInstruction d;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    const void *code = (const void *)ip;
    ZyanStatus st = full ? ZY.full(&ZY.dec, code, left, &d, ops)
                         : ZY.one(&ZY.dec, NULL, code, left, &d);
    if (!ZYAN_SUCCESS(st) || d.length == 0 || d.length > sizeof in->bytes)
        return 0;
    in->address = ip;
    in->size = d.length;
    memcpy(in->bytes, code, d.length);
    in->mnemonic = (int)d.mnemonic;
    in->target = d.raw.imm[0].is_relative
                     ? ip + d.length + (uintptr_t)(intptr_t)d.raw.imm[0].value.s : 0;
    in->rip_at = -1;
    in->rip_disp = 0;
    for (int i = 0; full && i < d.operand_count; i++)
        if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[i].mem.base == ZYDIS_REGISTER_RIP) {
            /* a disp32 that does not hold the displacement is refused */
            in->rip_at = d.raw.disp.size == 32 ? d.raw.disp.offset : 0xff;
            in->rip_disp = (int32_t)ops[i].mem.disp.value;
        }
    return d.length;
}

int scope__patch_disassembler(void)
{
    return disassembler(NULL, 0);
}

uintptr_t scope__patch_disassembler_bias(void)
{
    return ZY.own_bias;
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
    const uint8_t *b = (const uint8_t *)addr;
    if (b[0] != 0xe9)
        return addr;                    /* a GOT patch leaves the code alone */
    int32_t rel;
    memcpy(&rel, b + 1, sizeof rel);
    uintptr_t code = addr + PATCH_LEN + (uintptr_t)(intptr_t)rel;
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
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type != PT_LOAD || q->addr < a || q->addr >= a + ph->p_memsz)
            continue;
        q->lo = a;
        q->hi = a + ph->p_memsz;
        q->prot = (ph->p_flags & PF_R ? PROT_READ : 0) | (ph->p_flags & PF_W ? PROT_WRITE : 0) |
                  (ph->p_flags & PF_X ? PROT_EXEC : 0);
        q->found = 1;
        return 1;
    }
    return 0;
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
        q = (struct seg_query){ lo, lo, hi, PROT_READ | PROT_EXEC, 1 };
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
            /* the jump may follow an endbr64 */
            hi = (addrs[i] + 4 + PATCH_LEN + page - 1) & ~(page - 1);
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
    int prot = PROT_READ | PROT_EXEC | (on ? PROT_WRITE : 0);
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

/* Writes the stub header: the record and the jump into the trampoline. */
static uint8_t *stub_header(uint8_t *s, int32_t id, uint32_t flags, uintptr_t resume,
                           uintptr_t entry)
{
    struct scope__fn *fn = (struct scope__fn *)s;
    fn->id = id;
    fn->flags = flags;
    fn->resume = resume;
    fn->entry = entry;
    uint8_t *c = s + STUB_CODE;
    c[0] = 0x41; c[1] = 0x53;                      /* push %r11 */
    c[2] = 0x49; c[3] = 0xbb;                      /* movabs $fn, %r11 */
    uintptr_t fa = (uintptr_t)fn;
    memcpy(c + 4, &fa, 8);
    c[12] = 0xff; c[13] = 0x25;                    /* jmp *0(%rip) */
    memset(c + 14, 0, 4);
    memcpy(c + 18, &P.entry_tramp, 8);
    memset(c + 26, 0xcc, STUB_HEAD - 26);
    return c + STUB_HEAD;
}

/* ------------------------------------------------------------- relocation */

static int is_jcc_opcode(const uint8_t *b, size_t n, size_t *op, int *cc, int *wide)
{
    size_t i = 0;
    while (i < n && (b[i] == 0xf2 || b[i] == 0x2e || b[i] == 0x3e))
        i++;                            /* bnd and branch-hint prefixes */
    if (i < n && b[i] >= 0x70 && b[i] <= 0x7f) {
        *op = i; *cc = b[i] & 0xf; *wide = 0;
        return 1;
    }
    if (i + 1 < n && b[i] == 0x0f && b[i + 1] >= 0x80 && b[i + 1] <= 0x8f) {
        *op = i; *cc = b[i + 1] & 0xf; *wide = 1;
        return 1;
    }
    return 0;
}

static void put_rel32(uint8_t *at, uintptr_t next_ip, uintptr_t target)
{
    int32_t rel = (int32_t)(intptr_t)(target - next_ip);
    memcpy(at, &rel, 4);
}

/* Copies one displaced instruction to `out` (its new address), rewritten
 * for that address. Returns the bytes written, or 0 with a reason. */
static size_t relocate(const struct insn *in, uint8_t *out, uintptr_t lo, uintptr_t hi,
                       char *why, size_t whylen)
{
    const uint8_t *b = in->bytes;
    size_t n = in->size;
    uintptr_t out_ip = (uintptr_t)out;
    uintptr_t target = in->target;
    if (target) {
        if (target > lo && target < hi) {
            say(why, whylen, "a branch in the patched bytes targets the patched bytes");
            return 0;
        }
        if (!near(target, out_ip)) {
            say(why, whylen, "branch target out of rel32 reach of the stub");
            return 0;
        }
        size_t op; int cc, wide;
        if (in->mnemonic == ZYDIS_MNEMONIC_JMP) {
            out[0] = 0xe9;
            put_rel32(out + 1, out_ip + 5, target);
            return 5;
        }
        if (in->mnemonic == ZYDIS_MNEMONIC_CALL) {
            /* push the original return address, then jump: the callee
             * returns into the function itself, not into the stub */
            uintptr_t ret = in->address + n;
            uint32_t lo32 = (uint32_t)ret, hi32 = (uint32_t)(ret >> 32);
            static const uint8_t lea[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };
            memcpy(out, lea, 5);                       /* lea -8(%rsp),%rsp */
            out[5] = 0xc7; out[6] = 0x04; out[7] = 0x24; /* movl $lo,(%rsp) */
            memcpy(out + 8, &lo32, 4);
            out[12] = 0xc7; out[13] = 0x44; out[14] = 0x24; out[15] = 0x04;
            memcpy(out + 16, &hi32, 4);                 /* movl $hi,4(%rsp) */
            out[20] = 0xe9;
            put_rel32(out + 21, out_ip + 25, target);
            return 25;
        }
        if (is_jcc_opcode(b, n, &op, &cc, &wide)) {
            out[0] = 0x0f;
            out[1] = (uint8_t)(0x80 | cc);
            put_rel32(out + 2, out_ip + 6, target);
            return 6;
        }
        say(why, whylen, "cannot relocate '%s' (loop, jrcxz or xbegin in the patched bytes)",
            ZY.name((ZydisMnemonic)in->mnemonic));
        return 0;
    }
    memcpy(out, b, n);
    if (in->rip_at < 0)
        return n;
    uintptr_t t = in->address + n + (uintptr_t)(intptr_t)in->rip_disp;
    size_t at = (size_t)in->rip_at;
    int32_t old = 0;
    if (at + 4 <= n)
        memcpy(&old, b + at, 4);
    if (at + 4 > n || old != in->rip_disp) {
        say(why, whylen, "cannot locate the displacement of '%s'",
            ZY.name((ZydisMnemonic)in->mnemonic));
        return 0;
    }
    if (!near(t, out_ip + n)) {
        say(why, whylen, "RIP-relative operand out of reach of the stub");
        return 0;
    }
    put_rel32(out + at, out_ip + n, t);
    return n;
}

/* Scans [from, to) for relative branches into (lo, hi): decodes from
 * `from` only as far as a branch into them could be (branch_scan.c). */
static int body_branches_into(uintptr_t from, uintptr_t to, uintptr_t lo, uintptr_t hi,
                              uintptr_t *where)
{
    uintptr_t last = scope__branch_candidates(from, to, lo, hi);
    if (last == from)
        return 0;
    if (last + 15 < to)
        to = last + 15;                 /* an instruction is at most 15 bytes */
    struct insn in;
    for (uintptr_t ip = from; ip < to;) {
        size_t n = decode(ip, to - ip, &in, 0);
        if (!n) {
            ip++;                       /* data or padding: step over a byte */
            continue;
        }
        if (in.target > lo && in.target < hi) {
            *where = ip;
            return 1;
        }
        ip += n;
    }
    return 0;
}

/* Is `addr` an instruction boundary of the code starting at `from`? */
static int at_boundary(uintptr_t from, uintptr_t addr)
{
    if (!disassembler(NULL, 0))
        return 1;               /* the patch itself then says why it cannot */
    struct insn in;
    uintptr_t ip = from;
    size_t n;
    while (ip < addr && (n = decode(ip, addr - ip, &in, 0)) != 0)
        ip += n;
    return ip == addr;
}

/* ---------------------------------------------------------------- writing */

static void write_jump(uint8_t *p, const uint8_t jmp[PATCH_LEN], int atomic)
{
    uintptr_t off = (uintptr_t)p & 15;
    if (!atomic) {
        memcpy(p, jmp, PATCH_LEN);
        return;
    }
    if (off + PATCH_LEN <= 16) {
        unsigned __int128 *blk = (unsigned __int128 *)((uintptr_t)p & ~(uintptr_t)15);
        unsigned __int128 old = *(volatile unsigned __int128 *)blk, nw;
        for (;;) {
            nw = old;
            memcpy((uint8_t *)&nw + off, jmp, PATCH_LEN);
            uint64_t olo = (uint64_t)old, ohi = (uint64_t)(old >> 64);
            uint64_t nlo = (uint64_t)nw, nhi = (uint64_t)(nw >> 64);
            uint8_t ok;
            __asm__ volatile("lock cmpxchg16b %1\n\tsete %0"
                             : "=q"(ok), "+m"(*blk), "+a"(olo), "+d"(ohi)
                             : "b"(nlo), "c"(nhi) : "memory", "cc");
            if (ok)
                break;
            old = ((unsigned __int128)ohi << 64) | olo;
        }
        return;
    }
    /* `jmp .` first: a thread arriving now spins on it until the jump is
     * complete; then the tail; then the first two bytes of the jump. */
    static const uint8_t spin[2] = { 0xeb, 0xfe };
    __atomic_store_n((uint16_t *)p, *(const uint16_t *)spin, __ATOMIC_SEQ_CST);
    memcpy(p + 2, jmp + 2, PATCH_LEN - 2);
    uint16_t head;                      /* the seq_cst store orders the tail */
    memcpy(&head, jmp, 2);
    __atomic_store_n((uint16_t *)p, head, __ATOMIC_SEQ_CST);
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
    if (!disassembler(why, whylen))
        return SCOPE_ENOENT;
    const uint8_t *code = (const uint8_t *)addr;
    uintptr_t start = addr;
    static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
    if (size >= 4 && memcmp(code, endbr64, 4) == 0)
        start += 4;
    if (size == 0) {
        say(why, whylen, "symbol has no size, the body cannot be checked");
        return SCOPE_EINVAL;
    }
    if (addr + size < start + PATCH_LEN) {
        say(why, whylen, "function is %llu byte%s, shorter than the %s%u-byte patch",
            (unsigned long long)size, size == 1 ? "" : "s", start != addr ? "endbr64 + " : "",
            PATCH_LEN);
        return SCOPE_EINVAL;
    }
    /* Decode whole instructions until the patch fits. */
    struct insn ins[PATCH_LEN];
    size_t n_ins = 0, covered = 0;
    int rc = SCOPE_EINVAL;
    while (covered < PATCH_LEN) {
        size_t n = decode(start + covered, addr + size - (start + covered), &ins[n_ins], 1);
        if (!n) {
            say(why, whylen, "cannot decode the instruction at +0x%lx",
                (unsigned long)(start + covered - addr));
            return rc;
        }
        covered += n;
        n_ins++;
    }
    uintptr_t end = start + covered;
    uintptr_t where;
    if (body_branches_into(start, addr + size, start, end, &where)) {
        say(why, whylen, "a branch at +0x%lx jumps back into the patched bytes",
            (unsigned long)(where - addr));
        return rc;
    }
    struct pool *pool;
    uint8_t *stub = stub_alloc(addr, &pool);
    if (!stub) {
        say(why, whylen, "no free address within 2 GiB for the stub");
        return SCOPE_ENOMEM;
    }
    if (code_writable(stub, STUB_SIZE, 1) < 0) {
        say(why, whylen, "cannot make stub memory writable: %s", strerror(errno));
        return SCOPE_EACCES;
    }
    uint8_t *reloc = stub + STUB_CODE + STUB_HEAD;
    uint8_t *o = reloc;
    for (size_t i = 0; i < n_ins; i++) {
        if ((size_t)(o - stub) + 25 + 5 > STUB_SIZE) {
            say(why, whylen, "the relocated entry does not fit in a stub");
            goto fail_stub;
        }
        size_t w = relocate(&ins[i], o, start, end, why, whylen);
        if (!w)
            goto fail_stub;
        o += w;
    }
    o[0] = 0xe9;                                    /* jmp back */
    put_rel32(o + 1, (uintptr_t)o + 5, end);
    stub_header(stub, id, flags, (uintptr_t)reloc, addr);
    code_writable(stub, STUB_SIZE, 0);
    pool->used += STUB_SIZE;

    uint8_t jmp[PATCH_LEN] = { 0xe9 };
    put_rel32(jmp + 1, start + PATCH_LEN, (uintptr_t)stub + STUB_CODE);
    if (code_writable((void *)start, PATCH_LEN, 1) < 0) {
        say(why, whylen, "cannot make the code writable: %s", strerror(errno));
        return SCOPE_EACCES;    /* the stub slot is used but harmless */
    }
    write_jump((uint8_t *)start, jmp, atomic);
    code_writable((void *)start, PATCH_LEN, 0);
    scope__patch_mark(addr);
    return 0;

fail_stub:
    code_writable(stub, STUB_SIZE, 0);
    return rc;
}

int scope__patch_at_boundary(uintptr_t container, uintptr_t addr)
{
    return at_boundary(container, addr);
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
    stub_header(stub, id, flags, addr, addr);
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
