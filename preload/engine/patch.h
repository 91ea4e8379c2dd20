/*
 * patch.h - entry patching: a 5-byte jump at a function's entry to a
 * per-function stub within +-2 GiB that enters the generic trampoline, and
 * the GOT-rewrite fallback for library functions that inline patching
 * refuses. One mechanism per function, chosen by the driver (interpose.c).
 */
#ifndef SCOPE_PATCH_H
#define SCOPE_PATCH_H

#include <stddef.h>
#include <stdint.h>

/* What the trampoline needs to know about one instrumented function. It
 * lives in the function's stub (read-only once written). */
/* The entry path reads the begin's ticks first thing (bit 0: the x86-64
 * arch_trampoline.S tests it as a literal in the flags word at offset 4).
 * Set by the stub's writer for every function without a capture or call
 * sites, whose enter work must stay outside the call's duration. */
#define SCOPE_FN_TICKS_AT_ENTRY 1u
#define SCOPE_FN_CALIBRATE 2u /* calibrate.c's stub: recorded although the
                                preload itself calls it */
/* The capture that claimed the function (capture.h: its index 1..7, 0 for
 * none) in bits 4..6, and its op in bits 16..31. */
#define SCOPE_FN_CAPTURE_SHIFT 4
#define SCOPE_FN_CAPTURE_MASK (0x7u << SCOPE_FN_CAPTURE_SHIFT)
/* Call-site depth (0 = off, 1..16) in bits 8..12 of flags (callsites.h). */
#define SCOPE_FN_DEPTH_SHIFT 8
#define SCOPE_FN_DEPTH_MASK (0x1fu << SCOPE_FN_DEPTH_SHIFT)
#define SCOPE_FN_OP_SHIFT 16

/* Addresses of the generic trampoline's entry and exit paths chosen for
 * this CPU (saving xmm, ymm or zmm registers), set by scope__tramp_select()
 * (scope__patch_init() calls it); the shadow stack compares return slots
 * with the exit path's. */
extern uintptr_t scope__tramp_entry_addr, scope__tramp_exit_addr;

/* The trampoline's two modes (arch_trampoline.S): `call` the function so its
 * return is predicted, or `redirect` its return address. */
#define SCOPE_TRAMP_REDIRECT 0
#define SCOPE_TRAMP_CALL 1
#define SCOPE_TRAMP_DEFAULT SCOPE_TRAMP_CALL

/* 1 when the call mode was picked (SCOPE_TRAMPOLINE), else 0. */
extern int scope__tramp_call_mode;

/* Picks the trampoline variant from cpuid/xgetbv and the mode from
 * SCOPE_TRAMPOLINE (an invalid value gives the default; the preload's
 * constructor reports it). Idempotent. */
void scope__tramp_select(void);

/* SCOPE_TRAMP_CALL or SCOPE_TRAMP_REDIRECT as SCOPE_TRAMPOLINE asks
 * (unset or empty: SCOPE_TRAMP_DEFAULT), -1 for any other value. */
int scope__tramp_mode_from_env(void);

struct scope__fn {
    int32_t id;             /* region id */
    uint32_t flags;         /* SCOPE_FN_* */
    uintptr_t resume;       /* where the original code continues: the
                               relocated entry instructions (inline) or the
                               function itself (GOT) */
    uintptr_t entry;        /* the function's address */
};

/* Picks the trampoline variant for this CPU (saving xmm, ymm or zmm
 * argument registers). Idempotent. Returns 0. The disassembler is loaded
 * by the first patch (scope__patch_disassembler). */
int scope__patch_init(void);

/* Loads the disassembler (Zydis, dlopened on first use) now, so that a
 * caller can time it apart. Returns 1 when it is usable, else 0. */
int scope__patch_disassembler(void);

/* The load bias (dlpi_addr) of the disassembler's library when the
 * preload loaded it for itself, else 0: the dlopen looks must not
 * instrument the profiler's own helper (with a config of `*` they did). */
uintptr_t scope__patch_disassembler_bias(void);

/* Patches the entry of the function at `addr` (`size` bytes long, from its
 * symbol) to record region `id` (flags: SCOPE_FN_*). `atomic` asks for a write sequence that
 * is safe while other threads run. Returns 0, or SCOPE_EINVAL with a
 * one-line reason in why ("function is 3 bytes, shorter than the 5-byte
 * patch", "a branch at +0x1c jumps back into the patched bytes", ...), or
 * SCOPE_ENOMEM when no stub memory could be placed within +-2 GiB.
 * Cost: a linear disassembly of the function. */
int scope__patch_inline(uintptr_t addr, uint64_t size, int32_t id, uint32_t flags,
                        int atomic, char *why, size_t whylen);

/* 1 when `addr` is an instruction boundary of the code that starts at
 * `container` (linear disassembly from there), else 0. */
int scope__patch_at_boundary(uintptr_t container, uintptr_t addr);

/* Whether `addr` was already patched (inline or GOT) by this process. */
int scope__patch_done(uintptr_t addr);

/* Where the preload itself calls the function at `addr` without going
 * through its trampoline: the relocated original entry when `addr` was
 * patched inline, else `addr`. For the library helpers a capture calls
 * once per recorded call (the MPI capture's PMPI_Type_size & co), whose
 * trampoline round trip would cost more than the helper. */
uintptr_t scope__patch_unpatched(uintptr_t addr);

/* Makes a GOT stub for the function at `addr` and returns its address in
 * *stub (0 on success), to be written into the GOT slots that import it. */
int scope__patch_got_stub(uintptr_t addr, int32_t id, uint32_t flags, uintptr_t *stub);

/* Writes `value` into the pointer slot `slot` (a GOT entry), making its
 * page writable only for the write; `relro` says whether the page goes
 * back to read-only. Returns 0 or SCOPE_EACCES. */
int scope__patch_write_slot(uintptr_t *slot, uintptr_t value, int relro);

/* Between begin and end, code and stub memory made writable stays so: the
 * first write into a loaded segment (or stub pool) makes all of it
 * writable (keeping execute: other threads may run code there), and the
 * end gives every such range back the protection its program header says.
 * Cost: two mprotect calls per segment touched instead of four per patch. */
void scope__patch_batch_begin(void);
void scope__patch_batch_end(void);

/* In a batch: makes the code pages that patches at addrs[0..n) (ascending)
 * will write writable and faults them in (copy-on-write) with one
 * madvise(MADV_POPULATE_WRITE) per run of pages, instead of one page fault
 * per page at the first write. Pages of a function that is then refused
 * are copied too, unchanged. Does nothing outside a batch or when the
 * kernel lacks MADV_POPULATE_WRITE (Linux < 5.14: the writes fault). */
void scope__patch_prefault(const uintptr_t *addrs, size_t n);

/* mprotect calls made on code and stub memory so far (verbose report). */
size_t scope__patch_mprotects(void);

/* Forgets the instrumented addresses in [lo, hi) (an unloaded library). */
void scope__patch_forget(uintptr_t lo, uintptr_t hi);

/* Records that `addr` is instrumented through the GOT (so it is never
 * also patched inline). */
void scope__patch_mark(uintptr_t addr);

#endif /* SCOPE_PATCH_H */
