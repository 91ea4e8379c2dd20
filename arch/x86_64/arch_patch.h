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

/* Loads what decoding needs (Zydis, dlopened RTLD_LOCAL on first use).
 * Returns 1 when usable, else 0 with the reason in why (may be NULL). */
int scope__arch_patch_load(char *why, size_t whylen);

/* The load bias of the decoder's library when this process loaded it for
 * the preload (not already the application's), else 0. */
uintptr_t scope__arch_patch_helper_bias(void);

/* Decodes the entry of the function at addr (size bytes, from its symbol):
 * where the jump goes and the whole instructions it displaces; refuses a
 * function too short, undecodable, or with a branch in its body back into
 * the displaced bytes. Returns 0, or -1 with a one-line reason in why.
 * Cost: decodes the entry; the body only as far as a branch back could be. */
int scope__arch_entry_plan(struct scope__arch_entry *e, uintptr_t addr, uint64_t size,
                           char *why, size_t whylen);

/* Writes the displaced instructions, rewritten for their new address
 * `out`, and a jump back to e->at + e->covered, in at most `room` bytes.
 * Returns the bytes written, or 0 with a reason (a branch into the
 * displaced bytes, a target out of reach, no room). */
size_t scope__arch_entry_relocate(const struct scope__arch_entry *e, uint8_t *out, size_t room,
                                  char *why, size_t whylen);

/* Writes a stub's way into the trampoline at `code` (SCOPE_ARCH_STUB_HEAD
 * bytes): hand the trampoline `record` (the struct scope__fn) and jump to
 * `tramp`, keeping every register the caller may rely on. `e` is the
 * patched entry (NULL for a GOT stub); x86-64 needs nothing of it. */
void scope__arch_stub_head(uint8_t *code, uintptr_t record, uintptr_t tramp,
                           const struct scope__arch_entry *e);

/* Encodes the entry jump at `at` to `to` into buf (room for 16 bytes).
 * Returns its length. */
size_t scope__arch_entry_jump(uint8_t *buf, uintptr_t at, uintptr_t to);

/* Writes the jump of n bytes at `at` (made writable by the caller).
 * `atomic`: other threads may be running this code; they never execute a
 * half-written jump. Makes the write visible to instruction fetch. */
void scope__arch_entry_write(uint8_t *at, const uint8_t *jmp, size_t n, int atomic);

/* Makes code just written at [p, p+n) (a stub) visible to instruction
 * fetch on every core. */
void scope__arch_code_written(void *p, size_t n);

/* Where the entry patch at `addr` (a function's address) jumps, or 0 when
 * the bytes there are not one. */
uintptr_t scope__arch_entry_target(uintptr_t addr);

/* The protection bits besides PROT_READ | PROT_EXEC that the executable
 * segments of the loaded object `info` carry: none on x86-64. */
int scope__arch_exec_prot(const struct dl_phdr_info *info);

/* 1 when addr is an instruction boundary of the code that starts at
 * `from` (decoded from there), else 0. */
int scope__arch_at_boundary(uintptr_t from, uintptr_t addr);

#endif /* SCOPE_ARCH_PATCH_H */
