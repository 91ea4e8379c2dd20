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

/* The functions every CPU provides (scope__arch_entry_plan, ...). On
 * aarch64: nothing to load (1, helper bias 0); the plan skips the landing
 * pads and displaces one instruction (its paciasp/pacibsp kept in e->pac);
 * the stub head is a `bti c`, the authentication of x30 when the function
 * signed it, x16 = `record` and `br x17` (the intra-procedure-call scratch
 * registers, free at any function's entry); the entry jump is one B (4
 * bytes), written by one aligned 32-bit store and made visible by dc
 * cvau, ic ivau, dsb, isb; every 4-byte-aligned address is a boundary. */
#include "arch_patch_common.h"

/* The instruction encoders and the relocator, for the tests: `insn` read
 * at `pc`, moved to `out`; returns bytes written (not counting the branch
 * back), or 0 with a reason. */
size_t scope__arch_relocate_one(uint32_t insn, uintptr_t pc, uint8_t *out, size_t room,
                                char *why, size_t whylen);

#endif /* SCOPE_ARCH_PATCH_H */
