/*
 * arch_patch.c - entry patching on x86-64: decodes a function's first
 * instructions, rewrites them for the stub, and writes the 5-byte jump
 * (arch_patch.h; preload/engine/patch.c owns the stubs and page protection).
 *
 * The displaced instructions are decoded with Zydis and rewritten for
 * their new address: RIP-relative operands get a new displacement, short
 * branches become rel32 ones, a `call` becomes a push of the original
 * return address and a jump (so unwinders still see the real caller).
 * Anything that cannot be moved safely is refused with a reason, never
 * patched blindly: a function shorter than the patch, a branch anywhere in
 * the body into the middle of the patched bytes, a target out of rel32
 * reach.
 *
 * A stub's head pushes %r11 and passes the function's record in it: a
 * caller compiled with -fipa-ra may rely on %r11 surviving the call, so the
 * trampoline puts the caller's value back.
 *
 * When other threads may be running, the 5 bytes are written with one
 * 16-byte cmpxchg when they fit in an aligned 16-byte block, else a
 * `jmp .` is written first so no thread can run half-written bytes. x86
 * keeps instruction fetch coherent with stores: no cache maintenance.
 */
#include "arch_patch.h"

#include <Zydis/Zydis.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "arch_branch_scan.h"

#define PATCH_LEN 5u

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

/* Opens Zydis on first use. Through the real dlopen: the preload's own
 * dlopen hook would look for functions to patch in it. Whether the
 * application had loaded it already (then it is the application's, and may
 * be patched) is told by the load biases before the dlopen, not by a first
 * dlopen with RTLD_NOLOAD: that one searches the library path and opens the
 * file again, ~0.1-0.6 ms of every rank's start-up. */
int scope__arch_patch_load(char *why, size_t whylen)
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
        scope__arch_say(why, whylen, "the disassembler " SCOPE_ZYDIS_SONAME " cannot be loaded");
    return ZY.ok;
}

uintptr_t scope__arch_patch_helper_bias(void)
{
    return ZY.own_bias;
}

/* Decodes the instruction at `ip`, reading at most `left` bytes. `full`
 * also decodes the operands, for a RIP-relative one (relocation needs it;
 * the branch scans do not). Returns its length, or 0 when the bytes are
 * not a valid instruction. */
static size_t decode(uintptr_t ip, size_t left, struct scope__arch_insn *in, int full)
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

static int near(uintptr_t a, uintptr_t b)
{
    intptr_t d = (intptr_t)(a - b);
    return d > -SCOPE_ARCH_PATCH_REACH && d < SCOPE_ARCH_PATCH_REACH;
}

/* Scans [from, to) for relative branches into (lo, hi): decodes from
 * `from` only as far as a branch into them could be (arch_branch_scan.c). */
static int body_branches_into(uintptr_t from, uintptr_t to, uintptr_t lo, uintptr_t hi,
                              uintptr_t *where)
{
    uintptr_t last = scope__branch_candidates(from, to, lo, hi);
    if (last == from)
        return 0;
    if (last + 15 < to)
        to = last + 15;                 /* an instruction is at most 15 bytes */
    struct scope__arch_insn in;
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

int scope__arch_entry_plan(struct scope__arch_entry *e, uintptr_t addr, uint64_t size,
                           char *why, size_t whylen)
{
    const uint8_t *code = (const uint8_t *)addr;
    uintptr_t start = addr;
    static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
    if (size >= 4 && memcmp(code, endbr64, 4) == 0)
        start += 4;
    if (size == 0) {
        scope__arch_say(why, whylen, "symbol has no size, the body cannot be checked");
        return -1;
    }
    if (addr + size < start + PATCH_LEN) {
        scope__arch_say(why, whylen, "function is %llu byte%s, shorter than the %s%u-byte patch",
            (unsigned long long)size, size == 1 ? "" : "s", start != addr ? "endbr64 + " : "",
            PATCH_LEN);
        return -1;
    }
    /* Decode whole instructions until the patch fits. */
    size_t n_ins = 0, covered = 0;
    while (covered < PATCH_LEN) {
        size_t n = decode(start + covered, addr + size - (start + covered), &e->ins[n_ins], 1);
        if (!n) {
            scope__arch_say(why, whylen, "cannot decode the instruction at +0x%lx",
                (unsigned long)(start + covered - addr));
            return -1;
        }
        covered += n;
        n_ins++;
    }
    uintptr_t where;
    if (body_branches_into(start, addr + size, start, start + covered, &where)) {
        scope__arch_say(why, whylen, "a branch at +0x%lx jumps back into the patched bytes",
            (unsigned long)(where - addr));
        return -1;
    }
    e->at = start;
    e->covered = covered;
    e->n_ins = n_ins;
    return 0;
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
static size_t relocate(const struct scope__arch_insn *in, uint8_t *out, uintptr_t lo,
                       uintptr_t hi, char *why, size_t whylen)
{
    const uint8_t *b = in->bytes;
    size_t n = in->size;
    uintptr_t out_ip = (uintptr_t)out;
    uintptr_t target = in->target;
    if (target) {
        if (target > lo && target < hi) {
            scope__arch_say(why, whylen, "a branch in the patched bytes targets the patched bytes");
            return 0;
        }
        if (!near(target, out_ip)) {
            scope__arch_say(why, whylen, "branch target out of rel32 reach of the stub");
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
        scope__arch_say(why, whylen,
                        "cannot relocate '%s' (loop, jrcxz or xbegin in the patched bytes)",
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
        scope__arch_say(why, whylen, "cannot locate the displacement of '%s'",
            ZY.name((ZydisMnemonic)in->mnemonic));
        return 0;
    }
    if (!near(t, out_ip + n)) {
        scope__arch_say(why, whylen, "RIP-relative operand out of reach of the stub");
        return 0;
    }
    put_rel32(out + at, out_ip + n, t);
    return n;
}

size_t scope__arch_entry_relocate(const struct scope__arch_entry *e, uint8_t *out, size_t room,
                                  char *why, size_t whylen)
{
    uintptr_t lo = e->at, hi = e->at + e->covered;
    uint8_t *o = out;
    for (size_t i = 0; i < e->n_ins; i++) {
        if ((size_t)(o - out) + 25 + 5 > room) {
            scope__arch_say(why, whylen, "the relocated entry does not fit in a stub");
            return 0;
        }
        size_t w = relocate(&e->ins[i], o, lo, hi, why, whylen);
        if (!w)
            return 0;
        o += w;
    }
    o[0] = 0xe9;                                    /* jmp back */
    put_rel32(o + 1, (uintptr_t)o + 5, hi);
    return (size_t)(o + 5 - out);
}

/* Is `addr` an instruction boundary of the code starting at `from`? */
int scope__arch_at_boundary(uintptr_t from, uintptr_t addr)
{
    if (!scope__arch_patch_load(NULL, 0))
        return 1;               /* the patch itself then says why it cannot */
    struct scope__arch_insn in;
    uintptr_t ip = from;
    size_t n;
    while (ip < addr && (n = decode(ip, addr - ip, &in, 0)) != 0)
        ip += n;
    return ip == addr;
}

/* ---------------------------------------------------------------- writing */

void scope__arch_stub_head(uint8_t *c, uintptr_t record, uintptr_t tramp,
                           const struct scope__arch_entry *e)
{
    (void)e;
    c[0] = 0x41; c[1] = 0x53;                      /* push %r11 */
    c[2] = 0x49; c[3] = 0xbb;                      /* movabs $fn, %r11 */
    memcpy(c + 4, &record, 8);
    c[12] = 0xff; c[13] = 0x25;                    /* jmp *0(%rip) */
    memset(c + 14, 0, 4);
    memcpy(c + 18, &tramp, 8);
    memset(c + 26, 0xcc, SCOPE_ARCH_STUB_HEAD - 26);
}

size_t scope__arch_entry_jump(uint8_t *buf, uintptr_t at, uintptr_t to)
{
    buf[0] = 0xe9;
    put_rel32(buf + 1, at + PATCH_LEN, to);
    return PATCH_LEN;
}

void scope__arch_entry_write(uint8_t *p, const uint8_t *jmp, size_t len, int atomic)
{
    uintptr_t off = (uintptr_t)p & 15;
    if (!atomic || len != PATCH_LEN) {
        memcpy(p, jmp, len);
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

void scope__arch_code_written(void *p, size_t n)
{
    (void)p;
    (void)n;                    /* x86 snoops stores into instruction fetch */
}

int scope__arch_exec_prot(const struct dl_phdr_info *info)
{
    (void)info;
    return 0;
}

uintptr_t scope__arch_entry_target(uintptr_t addr)
{
    const uint8_t *b = (const uint8_t *)addr;
    if (b[0] != 0xe9)
        return 0;                       /* a GOT patch leaves the code alone */
    int32_t rel;
    memcpy(&rel, b + 1, sizeof rel);
    return addr + PATCH_LEN + (uintptr_t)(intptr_t)rel;
}
