/*
 * arch_unwind.h - what the preload's longjmp and C++ catch hooks
 * (preload/engine/unwind_hooks.c) read of this CPU's frames: the stack pointer a
 * jmp_buf jumps to, and the stack pointer of the frame that called a hook.
 */
#ifndef SCOPE_ARCH_UNWIND_H
#define SCOPE_ARCH_UNWIND_H

#include <setjmp.h>
#include <stdint.h>

/* The stack pointer `env` restores. glibc stores it (JB_RSP, word 6) mangled
 * with the thread's pointer guard (%fs:0x30): xor, then rotate left 17. The
 * layout is fixed by glibc's ABI. */
static inline uintptr_t scope__arch_jmpbuf_sp(const struct __jmp_buf_tag *env)
{
    uintptr_t v = (uintptr_t)env->__jmpbuf[6], guard;
    __asm__("mov %%fs:0x30, %0" : "=r"(guard));
    v = (v >> 0x11) | (v << (64 - 0x11));
    return v ^ guard;
}

/* The caller's stack pointer once the calling function (a hook, which
 * keeps a frame pointer: it calls out) returns: above the saved %rbp and
 * the return address. A macro: it must expand inside the hook. */
#define SCOPE_ARCH_CALLER_SP() ((uintptr_t)__builtin_frame_address(0) + 16)

#endif /* SCOPE_ARCH_UNWIND_H */
