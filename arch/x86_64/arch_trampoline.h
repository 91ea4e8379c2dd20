/*
 * arch_trampoline.h - which of this CPU's trampolines (arch_trampoline.S)
 * the preload uses: x86-64 has one pair of entry/exit paths per vector
 * width saved (xmm, ymm, zmm), in each of the two modes (call, redirect;
 * docs/interposition.md), picked from cpuid/xgetbv; the wide ones, where
 * the CPU can say so, in a variant that saves the upper halves only when
 * XINUSE says they are in use (arch_trampoline.S says why), and on AMD in
 * one that saves them only when they hold something (BY_VALUE).
 *
 * The paths call the C halves preload/engine/shadow_stack.h declares:
 *   scope__shadow_enter(fn, slot, saved, ticks): fn = the struct scope__fn
 *     the stub passed; slot = the address of the return-address slot (on
 *     x86 the word at the stack pointer on entry); saved = just above the
 *     saved argument registers rdi, rsi, rdx, rcx, r8, r9 (downwards);
 *     ticks = the counter read first thing, or 0.
 *   scope__shadow_exit(sp, ret, ticks): sp = the stack pointer the
 *     function returned with (slot + 8), ret = its integer return value,
 *     ticks as at entry.
 */
#ifndef SCOPE_ARCH_TRAMPOLINE_H
#define SCOPE_ARCH_TRAMPOLINE_H

#include <cpuid.h>
#include <stdint.h>

/* Argument registers as the entry path saves them, below `saved`: the
 * MPI capture reads integer argument i at saved[-1 - i] (0 <= i < 6). */
#define SCOPE_ARCH_SAVED_ARGS 6
/* The return-address slot's distance below the stack pointer the
 * function returns with. */
#define SCOPE_ARCH_SLOT_BELOW_SP 8u

extern char scope__tramp_entry_sse[], scope__tramp_exit_sse[];
extern char scope__tramp_entry_avx[], scope__tramp_exit_avx[];
extern char scope__tramp_entry_avx512[], scope__tramp_exit_avx512[];
extern char scope__tramp_centry_sse[], scope__tramp_cexit_sse[];
extern char scope__tramp_centry_avx[], scope__tramp_cexit_avx[];
extern char scope__tramp_centry_avx512[], scope__tramp_cexit_avx512[];
extern char scope__tramp_entry_avx_xin[], scope__tramp_exit_avx_xin[];
extern char scope__tramp_entry_avx512_xin[], scope__tramp_exit_avx512_xin[];
extern char scope__tramp_centry_avx_xin[], scope__tramp_cexit_avx_xin[];
extern char scope__tramp_centry_avx512_xin[], scope__tramp_cexit_avx512_xin[];
extern char scope__tramp_entry_avx_val[], scope__tramp_exit_avx_val[];
extern char scope__tramp_entry_avx512_val[], scope__tramp_exit_avx512_val[];
extern char scope__tramp_centry_avx_val[], scope__tramp_cexit_avx_val[];
extern char scope__tramp_centry_avx512_val[], scope__tramp_cexit_avx512_val[];

static inline uint64_t scope__arch_xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* 1 on AMD (and Hygon) CPUs: their XINUSE read is costly (xgetbv 1, about
 * 25 ns on an AMD EPYC VM: the two of a call were 49 of the 67 ns it
 * cost; docs/performance.md, "The per-call cost on AMD"), and they have
 * none of the penalty for legacy-SSE code after a wide restore that
 * XINUSE serves to avoid (on that EPYC, SSE code after restoring zmm0-7
 * ran no slower than after restoring xmm0-7). There the `val` paths decide
 * by the registers' values instead (arch_trampoline.S, BY_VALUE). */
static inline int scope__arch_cpu_amd(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return 0;
    return (b == signature_AMD_ebx && c == signature_AMD_ecx && d == signature_AMD_edx) ||
           (b == 0x6f677948u && c == 0x656e6975u && d == 0x6e65476eu); /* "HygonGenuine" */
}

/* The entry and exit paths for this CPU in the given mode (call: 1). */
static inline void scope__arch_tramp_pick(int call_mode, uintptr_t *entry, uintptr_t *exit_)
{
    unsigned a, b, c, d;
    int avx = 0, avx512 = 0, xin = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_AVX)) {
        uint64_t xcr0 = scope__arch_xgetbv0();
        avx = (xcr0 & 6) == 6;
        if (avx && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F))
            avx512 = (xcr0 & 0xe6) == 0xe6;
    }
    /* The xin paths keep the upper halves' state as the caller left it
     * (arch_trampoline.S says why), at the cost of an xgetbv per path;
     * xgetbv 1 needs CPUID.(0DH,1):EAX[2]. On AMD the val paths keep it
     * by testing the registers' values (xin 2). */
    if (avx && scope__arch_cpu_amd())
        xin = 2;
    else if (avx && __get_cpuid_count(0xd, 1, &a, &b, &c, &d))
        xin = (a >> 2) & 1;
    /* [call?][variant]: entry and exit paths */
    static char *const paths[2][7][2] = {
        { { scope__tramp_entry_sse, scope__tramp_exit_sse },
          { scope__tramp_entry_avx, scope__tramp_exit_avx },
          { scope__tramp_entry_avx512, scope__tramp_exit_avx512 },
          { scope__tramp_entry_avx_xin, scope__tramp_exit_avx_xin },
          { scope__tramp_entry_avx512_xin, scope__tramp_exit_avx512_xin },
          { scope__tramp_entry_avx_val, scope__tramp_exit_avx_val },
          { scope__tramp_entry_avx512_val, scope__tramp_exit_avx512_val } },
        { { scope__tramp_centry_sse, scope__tramp_cexit_sse },
          { scope__tramp_centry_avx, scope__tramp_cexit_avx },
          { scope__tramp_centry_avx512, scope__tramp_cexit_avx512 },
          { scope__tramp_centry_avx_xin, scope__tramp_cexit_avx_xin },
          { scope__tramp_centry_avx512_xin, scope__tramp_cexit_avx512_xin },
          { scope__tramp_centry_avx_val, scope__tramp_cexit_avx_val },
          { scope__tramp_centry_avx512_val, scope__tramp_cexit_avx512_val } },
    };
    int v = avx512 ? 2 : avx ? 1 : 0;
    if (xin && v)
        v += 2 * xin;   /* xin 3, 4; val 5, 6 */
    *entry = (uintptr_t)paths[call_mode != 0][v][0];
    *exit_ = (uintptr_t)paths[call_mode != 0][v][1];
}

/* Where an open call's redirected return address lives while the function
 * runs, for the fix-ups that put the original back (a throw, a stack walk;
 * shadow_stack.c): on x86-64 the slot itself, the word the call pushed,
 * which the function never moves. Asked for the open frames newest first;
 * `newer` is the slot of the next newer frame (0 for the newest). */
struct scope__arch_homes {
    int unused;
};

static inline void scope__arch_homes_begin(struct scope__arch_homes *h, uintptr_t fp,
                                           uintptr_t stack_lo, uintptr_t stack_hi)
{
    (void)h; (void)fp; (void)stack_lo; (void)stack_hi;
}

static inline uintptr_t *scope__arch_home(struct scope__arch_homes *h, uintptr_t slot,
                                          uintptr_t newer)
{
    (void)h; (void)newer;
    return (uintptr_t *)slot;
}

/* A return address as stored, without a pointer signature: as is here. */
static inline uintptr_t scope__arch_strip(uintptr_t v)
{
    return v;
}

/* `value` to store at a home that held `was`, signed as `was` was: no
 * signatures here. */
static inline uintptr_t scope__arch_signed_like(uintptr_t was, uintptr_t value, uintptr_t slot)
{
    (void)was; (void)slot;
    return value;
}

#endif /* SCOPE_ARCH_TRAMPOLINE_H */
