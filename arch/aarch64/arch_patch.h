/*
 * arch_patch.h - entry patching on aarch64: what preload/engine/patch.c asks of
 * the CPU (arch/README.md lists the same functions for every CPU).
 *
 * The patch is one `B stub` (4 bytes, +-128 MiB) at the function's entry,
 * after its landing pads, which stay in place: callers arrive through
 * `br x17` in the PLT or `blr`, and a BTI-guarded page faults on any other
 * first instruction. A `bti` stays untouched; a `paciasp`/`pacibsp` too,
 * and then the stub authenticates the link register before the trampoline
 * sees it and the relocated code signs the one it gets (arch_patch.c). The
 * one displaced instruction is rewritten for the stub when it reads the
 * PC. patch.c owns the stubs and page protection; this file only reads and
 * writes instructions. libc only (no decoder: the PC-relative classes have
 * fixed bit patterns).
 */
#ifndef SCOPE_ARCH_PATCH_H
#define SCOPE_ARCH_PATCH_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

/* A stub must lie within this distance of the code that branches to it
 * (B imm26: +-128 MiB), kept clear of the edge. Targets of relocated
 * instructions farther away are reached through x17. */
#define SCOPE_ARCH_PATCH_REACH ((intptr_t)0x7ff0000)
/* Bytes from a function's address that patching may write: two landing
 * pads (bti, paciasp) and the branch. */
#define SCOPE_ARCH_PATCH_SPAN 12u
/* Code bytes of a stub's way into the trampoline (scope__arch_stub_head). */
#define SCOPE_ARCH_STUB_HEAD 32u
/* Code pages of a BTI-marked object carry PROT_BTI (scope__arch_exec_prot). */
#define SCOPE_ARCH_EXEC_PROT_EXTRA 1

/* A function's entry as the patch sees it (scope__arch_entry_plan). */
struct scope__arch_entry {
    uintptr_t at;               /* where the branch goes (after landing pads) */
    size_t covered;             /* 4: the one instruction it displaces */
    uint32_t insn;              /* that instruction */
    uint32_t pac;               /* the paciasp/pacibsp before it, else 0 */
};

/* Nothing to load on aarch64. Returns 1. */
int scope__arch_patch_load(char *why, size_t whylen);

/* 0: the preload loads no helper library for decoding here. */
uintptr_t scope__arch_patch_helper_bias(void);

/* Reads the entry of the function at addr (size bytes, from its symbol):
 * skips the landing pads, and refuses what cannot be moved safely: a
 * function too short, an exclusive load/store (its monitor), a branch in
 * the body back into the displaced instruction. Returns 0, or -1 with a
 * one-line reason in why. Cost: one read of every word of the body. */
int scope__arch_entry_plan(struct scope__arch_entry *e, uintptr_t addr, uint64_t size,
                           char *why, size_t whylen);

/* Writes the displaced instruction, rewritten for its new address `out`
 * (preceded by the paciasp/pacibsp it followed), and a branch back to
 * e->at + 4, in at most `room` bytes. Returns the bytes written, or 0 with
 * a reason. */
size_t scope__arch_entry_relocate(const struct scope__arch_entry *e, uint8_t *out, size_t room,
                                  char *why, size_t whylen);

/* Writes a stub's way into the trampoline at `code` (SCOPE_ARCH_STUB_HEAD
 * bytes): a `bti c`, the authentication of x30 when the function signed it
 * at its entry (e->pac; e is NULL for a GOT stub), x16 = `record`, and
 * `br x17` to `tramp` (x16/x17: the intra-procedure-call scratch
 * registers, free at any function's entry). */
void scope__arch_stub_head(uint8_t *code, uintptr_t record, uintptr_t tramp,
                           const struct scope__arch_entry *e);

/* Encodes the entry branch at `at` to `to` into buf. Returns 4. */
size_t scope__arch_entry_jump(uint8_t *buf, uintptr_t at, uintptr_t to);

/* Writes the branch (one aligned 32-bit store, single-copy atomic) and
 * cleans/invalidates the caches for it (dc cvau, ic ivau, dsb, isb). */
void scope__arch_entry_write(uint8_t *at, const uint8_t *jmp, size_t n, int atomic);

/* Makes code just written at [p, p+n) visible to instruction fetch. */
void scope__arch_code_written(void *p, size_t n);

/* Where the entry branch of the function at `addr` leads (looking past its
 * landing pads), or 0 when there is none. */
uintptr_t scope__arch_entry_target(uintptr_t addr);

/* PROT_BTI when the object `info` is BTI-marked (its GNU property note)
 * and the kernel guards pages, else 0. */
int scope__arch_exec_prot(const struct dl_phdr_info *info);

/* 1 when addr is 4-byte aligned from `from`: every instruction is 4 bytes. */
int scope__arch_at_boundary(uintptr_t from, uintptr_t addr);

/* The instruction encoders and the relocator, for the tests: `insn` read
 * at `pc`, moved to `out`; returns bytes written (not counting the branch
 * back), or 0 with a reason. */
size_t scope__arch_relocate_one(uint32_t insn, uintptr_t pc, uint8_t *out, size_t room,
                                char *why, size_t whylen);

#endif /* SCOPE_ARCH_PATCH_H */
