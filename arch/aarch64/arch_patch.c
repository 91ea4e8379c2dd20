/*
 * arch_patch.c - entry patching on aarch64: reads a function's first
 * instruction past its landing pads, rewrites it for the stub when it
 * reads the PC, and writes one `B stub` over it (arch_patch.h;
 * preload/engine/patch.c owns the stubs and page protection).
 *
 * Every A64 instruction is 4 bytes and the PC-relative ones have fixed bit
 * patterns, so no decoder is needed: ADR and ADRP become a literal load of
 * the address they computed; LDR/LDRSW/PRFM (literal) load through x17
 * from the literal's address; B and BL branch to the same target (BL with
 * x30 set to the original return address, so the callee returns into the
 * function and unwinders see it); B.cond, CBZ/CBNZ and TBZ/TBNZ keep their
 * test with a short offset to a branch to the target. A target beyond
 * +-128 MiB of the stub is reached with `ldr x17, =target; br x17`: x16
 * and x17 are free at a function's entry (the PLT and linker veneers may
 * use them between any caller and callee).
 *
 * Refused, with a reason: an exclusive load/store (LDXR, STXR, LDAXP...:
 * moving one half of a monitor sequence), a branch anywhere in the body to
 * the displaced instruction (it would run the branch to the stub again, or
 * skip the landing pads), a function shorter than its pads and the branch.
 *
 * Landing pads stay: `bti c|j|jc` (callers arrive through `br x17` from
 * the PLT, or `blr`, and a guarded page faults on any other instruction
 * there) and `paciasp`/`pacibsp`, also an implicit landing pad. Since the
 * latter has signed x30 before the branch runs, the stub authenticates it
 * again (autiasp/autibsp, with the same sp) so that the trampoline reads
 * and replaces a plain return address, and the relocated code starts with
 * the same paciasp/pacibsp, which signs the x30 the trampoline leaves (the
 * exit path's, or the original) for the function's own autiasp.
 *
 * The branch is one aligned 32-bit store (single-copy atomic: a thread
 * sees the old or the new instruction, never a mix), followed by the
 * cache maintenance that makes it visible to instruction fetch
 * (__builtin___clear_cache: dc cvau, dsb ish, ic ivau, dsb ish, isb).
 */
#include "arch_patch.h"

#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#define A64_NOP 0xd503201fu
#define A64_BTI_MASK 0xffffff3fu        /* bti, bti c, bti j, bti jc */
#define A64_BTI 0xd503241fu
#define A64_BTI_C 0xd503245fu
#define A64_PACIASP 0xd503233fu
#define A64_PACIBSP 0xd503237fu
#define A64_AUTIASP 0xd50323bfu
#define A64_AUTIBSP 0xd50323ffu
#define A64_BRK 0xd4200000u
#define X17 17u

#ifndef PROT_BTI
#define PROT_BTI 0x10
#endif
#ifndef HWCAP2_BTI
#define HWCAP2_BTI (1ul << 17)
#endif
#ifndef PT_GNU_PROPERTY
#define PT_GNU_PROPERTY 0x6474e553
#endif
#define GNU_PROPERTY_AARCH64_FEATURE_1_AND_ 0xc0000000u
#define GNU_PROPERTY_AARCH64_FEATURE_1_BTI_ 1u


int scope__arch_patch_load(char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    return 1;
}

uintptr_t scope__arch_patch_helper_bias(void)
{
    return 0;
}

static int64_t sext(uint64_t v, unsigned bits)
{
    uint64_t m = 1ull << (bits - 1);
    v &= (1ull << bits) - 1;
    return (int64_t)((v ^ m) - m);
}

static int in_reach(uintptr_t from, uintptr_t to)
{
    intptr_t d = (intptr_t)(to - from);
    return d > -SCOPE_ARCH_PATCH_REACH && d < SCOPE_ARCH_PATCH_REACH;
}

/* ------------------------------------------------------------- decoding */

enum kind { K_OTHER, K_B, K_BL, K_BCOND, K_CB, K_TB, K_ADR, K_ADRP, K_LDRLIT, K_EXCL };

/* The class of `insn` at `pc`, and the address it refers to (*t). */
static enum kind classify(uint32_t insn, uintptr_t pc, uintptr_t *t)
{
    *t = 0;
    if ((insn & 0x7c000000u) == 0x14000000u) {          /* B, BL imm26 */
        *t = pc + (uintptr_t)(sext(insn, 26) * 4);
        return insn & 0x80000000u ? K_BL : K_B;
    }
    if ((insn & 0xff000010u) == 0x54000000u) {          /* B.cond imm19 */
        *t = pc + (uintptr_t)(sext(insn >> 5, 19) * 4);
        return K_BCOND;
    }
    if ((insn & 0x7e000000u) == 0x34000000u) {          /* CBZ, CBNZ imm19 */
        *t = pc + (uintptr_t)(sext(insn >> 5, 19) * 4);
        return K_CB;
    }
    if ((insn & 0x7e000000u) == 0x36000000u) {          /* TBZ, TBNZ imm14 */
        *t = pc + (uintptr_t)(sext(insn >> 5, 14) * 4);
        return K_TB;
    }
    if ((insn & 0x1f000000u) == 0x10000000u) {          /* ADR, ADRP */
        uint64_t imm = ((uint64_t)((insn >> 5) & 0x7ffff) << 2) | ((insn >> 29) & 3);
        if (insn & 0x80000000u) {
            *t = (pc & ~(uintptr_t)0xfff) + (uintptr_t)(sext(imm, 21) * 4096);
            return K_ADRP;
        }
        *t = pc + (uintptr_t)sext(imm, 21);
        return K_ADR;
    }
    if ((insn & 0x3b000000u) == 0x18000000u) {          /* LDR/LDRSW/PRFM literal */
        *t = pc + (uintptr_t)(sext(insn >> 5, 19) * 4);
        return K_LDRLIT;
    }
    if ((insn & 0x3f000000u) == 0x08000000u)            /* load/store exclusive */
        return K_EXCL;
    return K_OTHER;
}

/* ------------------------------------------------------------- encoding */

static uint8_t *put(uint8_t *o, uint32_t insn)
{
    memcpy(o, &insn, 4);
    return o + 4;
}

static uint8_t *put64(uint8_t *o, uint64_t v)
{
    memcpy(o, &v, 8);
    return o + 8;
}

static uint32_t enc_b(uintptr_t pc, uintptr_t to)
{
    return 0x14000000u | ((uint32_t)((intptr_t)(to - pc) >> 2) & 0x3ffffffu);
}

/* `ldr x<rt>, .+8; b .+12; .quad value`: 16 bytes that set rt. */
static uint8_t *put_load_const(uint8_t *o, unsigned rt, uint64_t value)
{
    o = put(o, 0x58000000u | (2u << 5) | rt);           /* ldr xrt, .+8 */
    o = put(o, 0x14000003u);                            /* b .+12 */
    return put64(o, value);
}

/* A branch from `o` to `to`: B when in reach, else through x17. */
static uint8_t *put_jump(uint8_t *o, uintptr_t to)
{
    if (in_reach((uintptr_t)o, to))
        return put(o, enc_b((uintptr_t)o, to));
    o = put(o, 0x58000000u | (2u << 5) | X17);          /* ldr x17, .+8 */
    o = put(o, 0xd61f0000u | (X17 << 5));               /* br x17 */
    return put64(o, to);
}

/* The largest relocation: BL (x30's literal, then a far jump). */
#define RELOC_MAX (16 + 16)
/* The jump back, at most. */
#define JUMP_MAX 16

size_t scope__arch_relocate_one(uint32_t insn, uintptr_t pc, uint8_t *out, size_t room,
                                char *why, size_t whylen)
{
    if (room < RELOC_MAX) {
        scope__arch_say(why, whylen, "the relocated entry does not fit in a stub");
        return 0;
    }
    uintptr_t t;
    uint8_t *o = out;
    unsigned rt = insn & 31u;
    switch (classify(insn, pc, &t)) {
    case K_OTHER:
        return (size_t)(put(o, insn) - out);
    case K_EXCL:
        scope__arch_say(why, whylen, "an exclusive load/store at the entry (its monitor sequence "
            "cannot be split)");
        return 0;
    case K_B:
        return (size_t)(put_jump(o, t) - out);
    case K_BL:
        /* the callee returns into the function, right after the BL */
        o = put_load_const(o, 30, pc + 4);
        return (size_t)(put_jump(o, t) - out);
    case K_BCOND:
    case K_CB: {
        /* the same test to .+8, else past the jump to the target */
        o = put(o, (insn & ~(0x7ffffu << 5)) | (2u << 5));
        uint8_t *skip = o;
        o += 4;
        uint8_t *end = put_jump(o, t);
        put(skip, 0x14000000u | (uint32_t)((end - skip) / 4));
        return (size_t)(end - out);
    }
    case K_TB: {
        o = put(o, (insn & ~(0x3fffu << 5)) | (2u << 5));
        uint8_t *skip = o;
        o += 4;
        uint8_t *end = put_jump(o, t);
        put(skip, 0x14000000u | (uint32_t)((end - skip) / 4));
        return (size_t)(end - out);
    }
    case K_ADR:
    case K_ADRP:
        return (size_t)(put_load_const(o, rt, t) - out);
    case K_LDRLIT: {
        unsigned opc = insn >> 30, v = (insn >> 26) & 1u;
        static const uint32_t gpr[4] = {
            0xb9400000u,        /* ldr wt, [x17] */
            0xf9400000u,        /* ldr xt, [x17] */
            0xb9800000u,        /* ldrsw xt, [x17] */
            0xf9800000u,        /* prfm op, [x17] */
        };
        static const uint32_t fpr[4] = {
            0xbd400000u,        /* ldr st, [x17] */
            0xfd400000u,        /* ldr dt, [x17] */
            0x3dc00000u,        /* ldr qt, [x17] */
            0,
        };
        uint32_t ld = v ? fpr[opc] : gpr[opc];
        if (!ld) {
            scope__arch_say(why, whylen, "an unallocated literal load at the entry (0x%08x)", insn);
            return 0;
        }
        o = put_load_const(o, X17, t);
        return (size_t)(put(o, ld | (X17 << 5) | rt) - out);
    }
    }
    return 0;
}

/* ------------------------------------------------------------- planning */

static uint32_t word_at(uintptr_t a)
{
    uint32_t w;
    memcpy(&w, (const void *)a, 4);
    return w;
}

static int is_bti(uint32_t w)
{
    return (w & A64_BTI_MASK) == A64_BTI;
}

static int is_pac(uint32_t w)
{
    return w == A64_PACIASP || w == A64_PACIBSP;
}

int scope__arch_entry_plan(struct scope__arch_entry *e, uintptr_t addr, uint64_t size,
                           char *why, size_t whylen)
{
    if (size == 0) {
        scope__arch_say(why, whylen, "symbol has no size, the body cannot be checked");
        return -1;
    }
    if (addr & 3) {
        scope__arch_say(why, whylen, "the entry is not 4-byte aligned");
        return -1;
    }
    uintptr_t end = addr + (size & ~(uint64_t)3);
    uintptr_t at = addr;
    uint32_t pac = 0;
    if (at + 4 <= end && is_bti(word_at(at)))
        at += 4;
    if (at + 4 <= end && is_pac(word_at(at))) {
        pac = word_at(at);
        at += 4;
    }
    if (at + 4 > end) {
        scope__arch_say(why, whylen, "function is %llu byte%s, shorter than the %s4-byte patch",
            (unsigned long long)size, size == 1 ? "" : "s",
            at == addr ? "" : "landing pad + ");
        return -1;
    }
    uint32_t insn = word_at(at);
    uintptr_t t;
    if (classify(insn, at, &t) == K_EXCL) {
        scope__arch_say(why, whylen, "an exclusive load/store at +0x%lx (its monitor "
                        "sequence cannot be split)", (unsigned long)(at - addr));
        return -1;
    }
    /* A branch or address in the body to the displaced instruction: it
     * would branch to the stub again (a loop counted as calls) or skip the
     * landing pads. A BL to the function's own address is a recursive
     * call, and one to `at` is refused as well. */
    for (uintptr_t p = addr; p < end; p += 4) {
        enum kind k = classify(word_at(p), p, &t);
        if (k == K_OTHER || k == K_EXCL || k == K_LDRLIT || k == K_ADRP)
            continue;
        if (t == at && !(k == K_BL && at == addr)) {
            scope__arch_say(why, whylen, "a branch at +0x%lx jumps back into the patched bytes",
                (unsigned long)(p - addr));
            return -1;
        }
    }
    e->at = at;
    e->covered = 4;
    e->insn = insn;
    e->pac = pac;
    return 0;
}

size_t scope__arch_entry_relocate(const struct scope__arch_entry *e, uint8_t *out, size_t room,
                                  char *why, size_t whylen)
{
    uint8_t *o = out;
    if (e->pac) {
        o = put(o, e->pac);                 /* sign the x30 the trampoline left */
        room -= 4;
    }
    if (room < RELOC_MAX + JUMP_MAX) {
        scope__arch_say(why, whylen, "the relocated entry does not fit in a stub");
        return 0;
    }
    size_t n = scope__arch_relocate_one(e->insn, e->at, o, room - JUMP_MAX, why, whylen);
    if (!n)
        return 0;
    o = put_jump(o + n, e->at + 4);
    return (size_t)(o - out);
}

int scope__arch_at_boundary(uintptr_t from, uintptr_t addr)
{
    return ((addr - from) & 3) == 0;
}

/* -------------------------------------------------------------- writing */

void scope__arch_stub_head(uint8_t *c, uintptr_t record, uintptr_t tramp,
                           const struct scope__arch_entry *e)
{
    uint8_t *o = c;
    o = put(o, A64_BTI_C);                  /* reached by B, or br x16/x17 from a GOT */
    uint32_t aut = !e || !e->pac ? A64_NOP : e->pac == A64_PACIASP ? A64_AUTIASP : A64_AUTIBSP;
    o = put(o, aut);
    /* adr x16, record (immediately before this head) */
    intptr_t d = (intptr_t)(record - (uintptr_t)o);
    o = put(o, 0x10000000u | (((uint32_t)d & 3u) << 29) | ((((uint32_t)d >> 2) & 0x7ffffu) << 5) | 16u);
    o = put(o, 0x58000000u | (3u << 5) | X17);          /* ldr x17, .+12 */
    o = put(o, 0xd61f0000u | (X17 << 5));               /* br x17 */
    o = put(o, A64_BRK);
    put64(o, tramp);
}

size_t scope__arch_entry_jump(uint8_t *buf, uintptr_t at, uintptr_t to)
{
    uint32_t b = enc_b(at, to);
    memcpy(buf, &b, 4);
    return 4;
}

void scope__arch_entry_write(uint8_t *p, const uint8_t *jmp, size_t n, int atomic)
{
    (void)atomic;               /* one aligned store is atomic either way */
    uint32_t w;
    memcpy(&w, jmp, 4);
    if (n == 4 && ((uintptr_t)p & 3) == 0)
        __atomic_store_n((uint32_t *)p, w, __ATOMIC_RELEASE);
    else
        memcpy(p, jmp, n);
    __builtin___clear_cache((char *)p, (char *)p + n);
}

void scope__arch_code_written(void *p, size_t n)
{
    __builtin___clear_cache((char *)p, (char *)p + n);
}

uintptr_t scope__arch_entry_target(uintptr_t addr)
{
    uintptr_t at = addr;
    if (is_bti(word_at(at)))
        at += 4;
    if (is_pac(word_at(at)))
        at += 4;
    uintptr_t t;
    return classify(word_at(at), at, &t) == K_B ? t : 0;
}

int scope__arch_exec_prot(const struct dl_phdr_info *info)
{
    static int guards = -1;
    if (guards < 0)
        guards = (getauxval(AT_HWCAP2) & HWCAP2_BTI) != 0;
    if (!guards)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_GNU_PROPERTY)
            continue;
        const uint8_t *n = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *nend = n + ph->p_memsz;
        while (n + 12 <= nend) {
            uint32_t namesz, descsz, type;
            memcpy(&namesz, n, 4);
            memcpy(&descsz, n + 4, 4);
            memcpy(&type, n + 8, 4);
            const uint8_t *desc = n + 12 + ((namesz + 3u) & ~3u);
            const uint8_t *next = desc + ((descsz + 7u) & ~7u);
            if (type == 5 /* NT_GNU_PROPERTY_TYPE_0 */ && namesz == 4 &&
                memcmp(n + 12, "GNU", 4) == 0 && next <= nend) {
                for (const uint8_t *q = desc; q + 8 <= desc + descsz;) {
                    uint32_t pt, sz, bits = 0;
                    memcpy(&pt, q, 4);
                    memcpy(&sz, q + 4, 4);
                    if (pt == GNU_PROPERTY_AARCH64_FEATURE_1_AND_ && sz >= 4) {
                        memcpy(&bits, q + 8, 4);
                        return bits & GNU_PROPERTY_AARCH64_FEATURE_1_BTI_ ? PROT_BTI : 0;
                    }
                    q += 8 + ((sz + 7u) & ~7u);
                }
            }
            n = next;
        }
    }
    return 0;
}
