/*
 * arch_patch.h - entry patching on x86-64: what preload/engine/patch.c asks of
 * the CPU (arch/README.md lists the same functions for every CPU).
 *
 * The patch is a 5-byte `jmp rel32` at the function's entry (after an
 * `endbr64`, which stays: indirect callers land on it) to the function's
 * stub within +-2 GiB; the instructions it displaces are decoded with Zydis
 * and rewritten for the stub (arch_patch.c). patch.c owns the stub pools,
 * page protection and bookkeeping; this file only reads and writes bytes.
 * libc only (Zydis is dlopened), so arch/ stays on floor 0.
 */
#ifndef SCOPE_ARCH_PATCH_H
#define SCOPE_ARCH_PATCH_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

/* A stub must lie within this distance of the code that jumps to it (and
 * of the targets its relocated instructions reach): rel32. */
#define SCOPE_ARCH_PATCH_REACH ((intptr_t)0x7fff0000)
/* Bytes from a function's address that patching may write: endbr64 + jmp. */
#define SCOPE_ARCH_PATCH_SPAN 9u
/* Code bytes of a stub's way into the trampoline (scope__arch_stub_head). */
#define SCOPE_ARCH_STUB_HEAD 32u
/* 1 when a code page may carry protection bits besides read and execute
 * that mprotect must give back (scope__arch_exec_prot): not on x86-64. */
#define SCOPE_ARCH_EXEC_PROT_EXTRA 0
/* Space for one relocated instruction at most (a call becomes 25 bytes). */
#define SCOPE_ARCH_INSN_MAX 15u

/* One instruction the entry patch displaces. */
struct scope__arch_insn {
    uintptr_t address;
    uint8_t size;
    uint8_t bytes[SCOPE_ARCH_INSN_MAX];
    int mnemonic;               /* a ZydisMnemonic */
    uintptr_t target;           /* of a relative branch (or xbegin), else 0 */
    int rip_at;                 /* offset of a RIP-relative disp32, or -1 */
    int32_t rip_disp;
};

/* A function's entry as the patch sees it (scope__arch_entry_plan). */
struct scope__arch_entry {
    uintptr_t at;               /* where the jump goes (after a landing pad) */
    size_t covered;             /* bytes of whole instructions it displaces */
    size_t n_ins;
    struct scope__arch_insn ins[5];
};

/* The functions every CPU provides (scope__arch_entry_plan, ...). */
#include "arch_patch_common.h"

#endif /* SCOPE_ARCH_PATCH_H */
