/*
 * arch_trampoline.S - the generic entry and exit paths every instrumented
 * function goes through, in three variants that save the vector registers
 * as wide as this CPU has them (xmm, ymm, zmm); patch.c picks one.
 *
 * Both paths preserve every general register, not only the ABI's
 * argument and return registers: GCC's interprocedural register allocation
 * (-fipa-ra) lets a caller keep values in call-clobbered registers across
 * a call to a function it knows leaves them alone. So the jump to where
 * execution continues goes through memory just below the stack pointer
 * (inside the red zone, which signal delivery skips), not a register.
 *
 * Entry: a function's stub pushes %r11 and jumps here with its struct
 * scope__fn in %r11; above that the stack is exactly as the caller left
 * it. The path saves the general registers and vector 0-7 (arguments),
 * aligns the stack itself (callers need not have), reads the counter
 * (ENTRY_TICKS), calls scope__shadow_enter(fn, &return_slot, saved,
 * ticks) and continues at the address it returned. `saved` points just above the saved %rdi, %rsi,
 * %rdx, %rcx, %r8, %r9 (in that order, downwards): the MPI argument
 * capture (mpi_capture.c) reads a call's arguments there and may replace
 * one (a status the caller did not ask for), as it may a stack argument
 * (the callee owns its argument area). Nothing else touches them.
 *
 * Exit: an instrumented function returns here (its return slot was
 * redirected). The path saves the general registers and vector 0-1
 * (return values; st0/st1 stay on the x87 stack because nothing it calls
 * uses x87), reads the counter (EXIT_TICKS), calls scope__shadow_exit(sp,
 * rax, ticks) and jumps to the original return address.
 *
 * Two modes (SCOPE_TRAMPOLINE, patch.c picks the pair):
 *
 *   redirect  the entry path jumps to the function; the C code has written
 *             the exit path's address into the return slot, so the
 *             function's `ret` goes there. The return stack buffer
 *             predicted the caller, so that `ret` is mispredicted on every
 *             call, and the exit path's indirect `jmp` to the caller too
 *             (bench_ablation: about 20 ns here).
 *   call      the entry path drops the return address (already saved on
 *             the shadow stack) and `call`s the function from the very
 *             same stack pointer: the `call` pushes the exit path's
 *             address into the same slot, so the function sees exactly the
 *             stack the caller built (its stack arguments, varargs and
 *             by-value structs at the same offsets, nothing copied), and
 *             the return stack buffer now predicts the function's `ret`
 *             into the exit path. The exit path, which follows the `call`
 *             directly, puts the original return address back into the
 *             slot and leaves with `ret`, which the buffer predicts as the
 *             caller (its entry from the caller's own `call` is next).
 *             Everything else (the slot's contents while the function
 *             runs, the shadow stack, the fix-ups for throws, longjmp,
 *             thread exit and stack walks) is the same as in redirect
 *             mode, because the slot holds the exit path's address in both.
 */
    .text

.macro SAVE_ARGS kind
.ifc \kind,sse
    sub $128, %rsp
    movdqu %xmm0, 0(%rsp)
    movdqu %xmm1, 16(%rsp)
    movdqu %xmm2, 32(%rsp)
    movdqu %xmm3, 48(%rsp)
    movdqu %xmm4, 64(%rsp)
    movdqu %xmm5, 80(%rsp)
    movdqu %xmm6, 96(%rsp)
    movdqu %xmm7, 112(%rsp)
.endif
.ifc \kind,avx
    sub $256, %rsp
    vmovdqu %ymm0, 0(%rsp)
    vmovdqu %ymm1, 32(%rsp)
    vmovdqu %ymm2, 64(%rsp)
    vmovdqu %ymm3, 96(%rsp)
    vmovdqu %ymm4, 128(%rsp)
    vmovdqu %ymm5, 160(%rsp)
    vmovdqu %ymm6, 192(%rsp)
    vmovdqu %ymm7, 224(%rsp)
    vzeroupper
.endif
.ifc \kind,avx512
    sub $512, %rsp
    vmovdqu64 %zmm0, 0(%rsp)
    vmovdqu64 %zmm1, 64(%rsp)
    vmovdqu64 %zmm2, 128(%rsp)
    vmovdqu64 %zmm3, 192(%rsp)
    vmovdqu64 %zmm4, 256(%rsp)
    vmovdqu64 %zmm5, 320(%rsp)
    vmovdqu64 %zmm6, 384(%rsp)
    vmovdqu64 %zmm7, 448(%rsp)
    vzeroupper
.endif
.endm

.macro RESTORE_ARGS kind
.ifc \kind,sse
    movdqu 0(%rsp), %xmm0
    movdqu 16(%rsp), %xmm1
    movdqu 32(%rsp), %xmm2
    movdqu 48(%rsp), %xmm3
    movdqu 64(%rsp), %xmm4
    movdqu 80(%rsp), %xmm5
    movdqu 96(%rsp), %xmm6
    movdqu 112(%rsp), %xmm7
.endif
.ifc \kind,avx
    vmovdqu 0(%rsp), %ymm0
    vmovdqu 32(%rsp), %ymm1
    vmovdqu 64(%rsp), %ymm2
    vmovdqu 96(%rsp), %ymm3
    vmovdqu 128(%rsp), %ymm4
    vmovdqu 160(%rsp), %ymm5
    vmovdqu 192(%rsp), %ymm6
    vmovdqu 224(%rsp), %ymm7
.endif
.ifc \kind,avx512
    vmovdqu64 0(%rsp), %zmm0
    vmovdqu64 64(%rsp), %zmm1
    vmovdqu64 128(%rsp), %zmm2
    vmovdqu64 192(%rsp), %zmm3
    vmovdqu64 256(%rsp), %zmm4
    vmovdqu64 320(%rsp), %zmm5
    vmovdqu64 384(%rsp), %zmm6
    vmovdqu64 448(%rsp), %zmm7
.endif
.endm

.macro SAVE_RET kind
.ifc \kind,sse
    sub $32, %rsp
    movdqu %xmm0, 0(%rsp)
    movdqu %xmm1, 16(%rsp)
.endif
.ifc \kind,avx
    sub $64, %rsp
    vmovdqu %ymm0, 0(%rsp)
    vmovdqu %ymm1, 32(%rsp)
    vzeroupper
.endif
.ifc \kind,avx512
    sub $128, %rsp
    vmovdqu64 %zmm0, 0(%rsp)
    vmovdqu64 %zmm1, 64(%rsp)
    vzeroupper
.endif
.endm

.macro RESTORE_RET kind
.ifc \kind,sse
    movdqu 0(%rsp), %xmm0
    movdqu 16(%rsp), %xmm1
.endif
.ifc \kind,avx
    vmovdqu 0(%rsp), %ymm0
    vmovdqu 32(%rsp), %ymm1
.endif
.ifc \kind,avx512
    vmovdqu64 0(%rsp), %zmm0
    vmovdqu64 64(%rsp), %zmm1
.endif
.endm

/* The part of each path between saving the general registers and
 * restoring them: the vector registers saved as wide as `kind`, the C
 * call, the vector registers back. */
.macro ENTER_BODY kind, call_mode
    SAVE_ARGS \kind
    mov %r11, %rdi
    lea 16(%rbp), %rsi
    mov %rbp, %rdx                  /* the saved argument registers lie below */
    mov %r10, %rcx                  /* the begin's ticks, or 0 (ENTRY_TICKS) */
    call scope__shadow_enter        /* rax = resume (call mode: rdx = 1 if recorded) */
    mov 8(%rbp), %r11               /* the caller's r11 back */
    mov %rax, 8(%rbp)               /* R - 8 = where to continue */
.if \call_mode
    test %edx, %edx                 /* the flags are dead at a function's entry */
.endif
    RESTORE_ARGS \kind              /* moves leave the flags alone */
.endm

.macro EXIT_BODY kind
    SAVE_RET \kind
    lea 16(%rbp), %rdi
    mov -8(%rbp), %rsi              /* the function's return value (saved %rax) */
    mov %r10, %rdx                  /* the end's ticks, or 0 (EXIT_TICKS) */
    call scope__shadow_exit
    mov %rax, 8(%rbp)
    RESTORE_RET \kind
.endm

/* Restoring a vector register with a 256- or 512-bit load marks the upper
 * halves in use, and on Intel CPUs every legacy-SSE instruction that runs
 * while they are (the MPI library's, the program's, until its next
 * vzeroupper) pays for it: bench_capture measured an MPI_Isend + MPI_Wait
 * loop twice as slow timed through the wide paths as through the xmm-only
 * ones on an AVX-512 Xeon. So the `xin` variants ask XINUSE (xgetbv 1, a
 * few ns) whether the upper halves hold anything, and when they do not,
 * save and restore only the low 128 bits, which leaves them clean. `mask`:
 * the XINUSE bits of the state the wide path saves (2: ymm's upper
 * halves, 6: zmm's). The wide paths clear the upper halves (vzeroupper)
 * once saved, so that scope's own code runs clean too. xgetbv clobbers
 * eax, ecx and edx, saved already. */
.macro BY_XINUSE mask, label_wide
    mov $1, %ecx
    xgetbv
    test $\mask, %eax
    jnz \label_wide
.endm

/* The counter, read by the paths themselves as the first thing after
 * saving the registers (docs/performance.md, "One fence where the error
 * lives"): `lfence; rdtsc` then waits only for the caller's work (entry)
 * or the function's (exit), which is what ordering the read is for; read
 * later, from C, the fence also waited for the path's own bookkeeping, and
 * the work after it could no longer overlap with it. r10 = the ticks, or
 * 0 when the C half is to read the clock itself: CLOCK_MONOTONIC
 * (scope__clock_tsc 0), or, at entry, a function whose struct scope__fn
 * flags (the 32-bit word at offset 4) lack SCOPE_FN_TICKS_AT_ENTRY (bit 0,
 * patch.h): a capture's enter or a call-site lookup runs before its
 * begin, and must stay outside the call's duration. Clobbers eax, edx and
 * the flags (saved, or dead). */
.macro READ_TICKS
    lfence
    rdtsc
    shl $32, %rdx
    or %rax, %rdx
    mov %rdx, %r10
.endm

.macro ENTRY_TICKS
    xor %r10d, %r10d
    testb $1, 4(%r11)
    jz 7f
    cmpl $0, scope__clock_tsc(%rip)
    je 7f
    READ_TICKS
7:
.endm

.macro EXIT_TICKS
    xor %r10d, %r10d
    cmpl $0, scope__clock_tsc(%rip)
    je 7f
    READ_TICKS
7:
.endm

/* The `val` variants (AMD CPUs, arch_trampoline.h): there XINUSE costs
 * about 25 ns a read, and legacy-SSE code pays nothing after a wide
 * restore, so what decides is the registers' values, not their state:
 * when the upper halves of the registers the path saves (the arguments at
 * entry, `n` = 8; the return values at exit, `n` = 2) are all zero, the
 * low 128 bits are all there is to save and restore, and the state is
 * left as the caller had it; else the wide body saves and restores them
 * whole. Reading the registers does not change their state. avx512:
 * vptestmq sets a bit per nonzero quadword (k1, k2 are scratch, as they
 * are across any call), bits 2-7 are the upper halves'; avx: vptest with
 * a mask of the upper 128 bits. Clobbers eax and the flags (saved, or
 * dead where the path is). */
.macro BY_VALUE kind, n, label_wide
.ifc \kind,avx512
    vptestmq %zmm0, %zmm0, %k1
    vptestmq %zmm1, %zmm1, %k2
    korw %k2, %k1, %k1
.if \n == 8
    vptestmq %zmm2, %zmm2, %k2
    korw %k2, %k1, %k1
    vptestmq %zmm3, %zmm3, %k2
    korw %k2, %k1, %k1
    vptestmq %zmm4, %zmm4, %k2
    korw %k2, %k1, %k1
    vptestmq %zmm5, %zmm5, %k2
    korw %k2, %k1, %k1
    vptestmq %zmm6, %zmm6, %k2
    korw %k2, %k1, %k1
    vptestmq %zmm7, %zmm7, %k2
    korw %k2, %k1, %k1
.endif
    kmovw %k1, %eax
    test $0xfc, %al
    jnz \label_wide
.endif
.ifc \kind,avx
    vptest scope__tramp_upper128(%rip), %ymm0
    jnz \label_wide
    vptest scope__tramp_upper128(%rip), %ymm1
    jnz \label_wide
.if \n == 8
    vptest scope__tramp_upper128(%rip), %ymm2
    jnz \label_wide
    vptest scope__tramp_upper128(%rip), %ymm3
    jnz \label_wide
    vptest scope__tramp_upper128(%rip), %ymm4
    jnz \label_wide
    vptest scope__tramp_upper128(%rip), %ymm5
    jnz \label_wide
    vptest scope__tramp_upper128(%rip), %ymm6
    jnz \label_wide
    vptest scope__tramp_upper128(%rip), %ymm7
    jnz \label_wide
.endif
.endif
.endm

.macro ENTER_PATH kind, xin, mask, call_mode
.if \xin == 2
    BY_VALUE \kind, 8, 8f
.elseif \xin
    BY_XINUSE \mask, 8f
.endif
.if \xin
    ENTER_BODY sse, \call_mode
    jmp 9f                          /* jmp leaves the flags alone */
8:
.endif
    ENTER_BODY \kind, \call_mode
9:
.endm

.macro EXIT_PATH kind, xin, mask
.if \xin == 2
    BY_VALUE \kind, 2, 8f
.elseif \xin
    BY_XINUSE \mask, 8f
.endif
.if \xin
    EXIT_BODY sse
    jmp 9f
8:
.endif
    EXIT_BODY \kind
9:
.endm

/* name: the symbols' suffix; kind: the widest vector registers saved;
 * xin: 1 to save them that wide only when XINUSE says they are in use,
 * 2 only when their upper halves hold something (BY_VALUE) */
.macro TRAMPOLINES name, kind, xin, mask
    .globl scope__tramp_entry_\name
    .hidden scope__tramp_entry_\name
    .type scope__tramp_entry_\name, @function
    .p2align 4
scope__tramp_entry_\name:
    /* [rsp] = the caller's %r11 (pushed by the stub), [rsp+8] = return
     * address (the slot R), %r11 = struct scope__fn * */
    /* CFI, so that a call-site walk (callsites.c) that starts inside
     * scope__shadow_enter steps through here to the caller: CFA = R + 8 */
    .cfi_startproc
    .cfi_def_cfa %rsp, 16
    push %rbp
    .cfi_adjust_cfa_offset 8
    .cfi_offset %rbp, -24
    mov %rsp, %rbp                  /* rbp = R - 16 */
    .cfi_def_cfa_register %rbp
    push %rdi
    push %rsi
    push %rdx
    push %rcx
    push %r8
    push %r9
    push %rax
    push %r10
    and $-16, %rsp
    ENTRY_TICKS
    ENTER_PATH \kind, \xin, \mask, 0
    lea -64(%rbp), %rsp
    pop %r10
    pop %rax
    pop %r9
    pop %r8
    pop %rcx
    pop %rdx
    pop %rsi
    pop %rdi
    pop %rbp
    .cfi_def_cfa %rsp, 16
    .cfi_restore %rbp
    lea 8(%rsp), %rsp               /* rsp = R, flags untouched */
    .cfi_def_cfa_offset 8
    jmp *-8(%rsp)                   /* below rsp but inside the red zone */
    .cfi_endproc
    .size scope__tramp_entry_\name, . - scope__tramp_entry_\name

    .globl scope__tramp_exit_\name
    .hidden scope__tramp_exit_\name
    .type scope__tramp_exit_\name, @function
    .p2align 4
scope__tramp_exit_\name:
    /* rsp = R + 8: the function has just returned through slot R */
    lea -8(%rsp), %rsp              /* keep R for the original return address */
    push %rbp
    mov %rsp, %rbp                  /* rbp = R - 8 */
    push %rax
    push %rdx
    push %rcx
    push %rsi
    push %rdi
    push %r8
    push %r9
    push %r10
    push %r11
    and $-16, %rsp
    EXIT_TICKS
    EXIT_PATH \kind, \xin, \mask
    lea -72(%rbp), %rsp
    pop %r11
    pop %r10
    pop %r9
    pop %r8
    pop %rdi
    pop %rsi
    pop %rcx
    pop %rdx
    pop %rax
    pop %rbp
    lea 8(%rsp), %rsp               /* rsp = R + 8 again */
    jmp *-8(%rsp)
    .size scope__tramp_exit_\name, . - scope__tramp_exit_\name

    /* call mode: the same entry, ending in a `call` to the function that
     * the exit path follows directly (so the pushed return address is
     * scope__tramp_cexit_\name) */
    .globl scope__tramp_centry_\name
    .hidden scope__tramp_centry_\name
    .type scope__tramp_centry_\name, @function
    .p2align 4
scope__tramp_centry_\name:
    .cfi_startproc
    .cfi_def_cfa %rsp, 16
    push %rbp
    .cfi_adjust_cfa_offset 8
    .cfi_offset %rbp, -24
    mov %rsp, %rbp                  /* rbp = R - 16 */
    .cfi_def_cfa_register %rbp
    push %rdi
    push %rsi
    push %rdx
    push %rcx
    push %r8
    push %r9
    push %rax
    push %r10
    and $-16, %rsp
    ENTRY_TICKS
    ENTER_PATH \kind, \xin, \mask, 1
    lea -64(%rbp), %rsp             /* lea and pops leave the flags alone */
    pop %r10
    pop %rax
    pop %r9
    pop %r8
    pop %rcx
    pop %rdx
    pop %rsi
    pop %rdi
    pop %rbp
    .cfi_def_cfa %rsp, 16
    .cfi_restore %rbp
    lea 8(%rsp), %rsp               /* rsp = R */
    .cfi_def_cfa_offset 8
    jnz 1f
    jmp *-8(%rsp)                   /* not recorded: no exit path */
    /* No CFI from here on, as for the exit path of redirect mode: while
     * the function runs, its return slot holds the exit path's address,
     * which an unwinder cannot step through; throws and stack walks put
     * the original address back first (unwind_hooks.c, callsites.c). */
    .cfi_endproc
1:  lea 8(%rsp), %rsp               /* rsp = R + 8: the slot is free */
    call *-16(%rsp)                 /* target read before the push; R - 8
                                       is in the red zone */
    .size scope__tramp_centry_\name, . - scope__tramp_centry_\name

    .globl scope__tramp_cexit_\name
    .hidden scope__tramp_cexit_\name
    .type scope__tramp_cexit_\name, @function
scope__tramp_cexit_\name:
    /* rsp = R + 8: the function has just returned through slot R */
    lea -8(%rsp), %rsp
    push %rbp
    mov %rsp, %rbp                  /* rbp = R - 8 */
    push %rax
    push %rdx
    push %rcx
    push %rsi
    push %rdi
    push %r8
    push %r9
    push %r10
    push %r11
    and $-16, %rsp
    EXIT_TICKS
    EXIT_PATH \kind, \xin, \mask
    lea -72(%rbp), %rsp
    pop %r11
    pop %r10
    pop %r9
    pop %r8
    pop %rdi
    pop %rsi
    pop %rcx
    pop %rdx
    pop %rax
    pop %rbp
    ret                             /* predicted: the caller's own call */
    .size scope__tramp_cexit_\name, . - scope__tramp_cexit_\name
.endm

TRAMPOLINES sse, sse, 0, 0
TRAMPOLINES avx, avx, 0, 0
TRAMPOLINES avx512, avx512, 0, 0
TRAMPOLINES avx_xin, avx, 1, 0x4
TRAMPOLINES avx512_xin, avx512, 1, 0x44
TRAMPOLINES avx_val, avx, 2, 0
TRAMPOLINES avx512_val, avx512, 2, 0

    .section .rodata
    .p2align 5
    .hidden scope__tramp_upper128
scope__tramp_upper128:              /* BY_VALUE's mask: a ymm's upper half */
    .quad 0, 0, -1, -1

    .section .note.GNU-stack,"",@progbits
