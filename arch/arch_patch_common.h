/*
 * arch_patch_common.h - the entry-patching functions every CPU provides
 * (arch/README.md), declared once. arch/<cpu>/arch_patch.h defines the
 * CPU's constants and struct scope__arch_entry, then includes this file;
 * what a function does on that CPU is said in its arch_patch.c. libc only.
 */
#ifndef SCOPE_ARCH_PATCH_COMMON_H
#define SCOPE_ARCH_PATCH_COMMON_H

#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct scope__arch_entry;

/* Loads what decoding needs, if anything (x86-64: Zydis, dlopened
 * RTLD_LOCAL on first use). Returns 1 when usable, else 0 with the reason
 * in why (may be NULL). */
int scope__arch_patch_load(char *why, size_t whylen);

/* The load bias of the decoder's library when this process loaded it for
 * the preload (not already the application's), else 0. */
uintptr_t scope__arch_patch_helper_bias(void);

/* Reads the entry of the function at addr (size bytes, from its symbol):
 * where the patch goes (after the landing pads) and the whole
 * instructions it displaces; refuses what cannot be moved safely (a
 * function too short, undecodable, an exclusive load/store, a branch in
 * its body back into the displaced instructions). Returns 0, or -1 with a
 * one-line reason in why. Cost: reads the entry; the body only as far as
 * a branch back could be. */
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
 * patched entry (NULL for a GOT stub). */
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
 * segments of the loaded object `info` carry (aarch64: PROT_BTI when it is
 * BTI-marked and the kernel guards pages), else 0. */
int scope__arch_exec_prot(const struct dl_phdr_info *info);

/* 1 when addr is an instruction boundary of the code that starts at
 * `from`, else 0. */
int scope__arch_at_boundary(uintptr_t from, uintptr_t addr);

/* Writes a one-line reason into why (len bytes) unless why is NULL or len
 * 0: the patchers' way of saying why they refused. Cost: one vsnprintf. */
static inline void scope__arch_say(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void scope__arch_say(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (why && len)
        vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

#endif /* SCOPE_ARCH_PATCH_COMMON_H */
