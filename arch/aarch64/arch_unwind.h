/*
 * arch_unwind.h - what the preload's longjmp and C++ catch hooks
 * (preload/engine/unwind_hooks.c) read of this CPU's frames: the stack pointer a
 * jmp_buf jumps to, and the stack pointer of the frame that called a hook.
 */
#ifndef SCOPE_ARCH_UNWIND_H
#define SCOPE_ARCH_UNWIND_H

#include <setjmp.h>
#include <stdint.h>

/* glibc's aarch64 jmp_buf (sysdeps/aarch64/jmpbuf-offsets.h): x19..x28,
 * x29, lr (mangled), sp (mangled, word 13). Mangling is an xor with the
 * pointer guard, a private symbol of ld.so, so the guard is learnt once
 * from a setjmp of our own, whose sp is known. */
#define SCOPE_ARCH_JB_SP 13

static __attribute__((noinline)) uintptr_t scope__arch_pointer_guard_(void)
{
    jmp_buf b;
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    setjmp(b);                  /* returns once: nothing jumps to it */
    return (uintptr_t)b[0].__jmpbuf[SCOPE_ARCH_JB_SP] ^ sp;
}

/* The stack pointer `env` restores. */
static inline uintptr_t scope__arch_jmpbuf_sp(const struct __jmp_buf_tag *env)
{
    static uintptr_t guard;
    static int known;
    if (!__atomic_load_n(&known, __ATOMIC_ACQUIRE)) {
        guard = scope__arch_pointer_guard_();
        __atomic_store_n(&known, 1, __ATOMIC_RELEASE);
    }
    return (uintptr_t)env->__jmpbuf[SCOPE_ARCH_JB_SP] ^ guard;
}

/* The caller's stack pointer once the calling function (a hook) returns:
 * its canonical frame address. A macro: it must expand inside the hook. */
#define SCOPE_ARCH_CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())

#endif /* SCOPE_ARCH_UNWIND_H */
