/*
 * arch_trampoline.S - the generic entry and exit paths every instrumented
 * function goes through on aarch64, in the two modes (call, redirect;
 * docs/interposition.md); arch_trampoline.h picks the pair.
 *
 * Entry: a function's stub (arch_patch.c) branches here with x16 = its
 * struct scope__fn, x30 = the caller's return address (authenticated when
 * the function signs it), sp exactly as the caller left it (stack
 * arguments at [sp]). The path pushes a frame record {x29, x30}, so that
 * the return address lies at entry sp - 8: that word is the return slot
 * the C code reads and redirects, as the x86 one. It saves x0-x15 and x18
 * (arguments, the indirect-result x8, and the temporaries a caller built
 * with interprocedural register allocation may keep across a call it knows
 * leaves them alone), the flags, and q0-q7 (vector arguments), calls
 * scope__shadow_enter(fn, slot, saved, 0) with `saved` = the frame record's
 * address (x0 at saved[-1] ... x7 at saved[-8]: the MPI capture reads and
 * may replace them there), restores everything, x30 from the slot, and
 * branches to where the C code said (br x16).
 *
 * redirect  the slot now holds the exit path's address, so the function's
 *           `ret` goes to the exit path, which calls scope__shadow_exit(sp,
 *           x0, 0) and returns to the original address it gets back.
 * call      the entry path `blr`s the function from the very same stack
 *           pointer, so the return stack predicts its `ret` into the exit
 *           path that follows the blr; the exit path's `ret` is then
 *           predicted as the caller's (its own bl is next on that stack).
 *
 * The entry paths carry CFI (a plain frame record), so a call-site walk
 * started inside scope__shadow_enter steps through to the caller; the
 * exit paths have none (as on x86: while the function runs its return
 * address is the exit path's, and throws and walks put the original back
 * first). The ticks passed are 0: the C half reads CNTVCT_EL0 itself (the
 * x86 paths read the TSC first thing, docs/performance.md). Every branch target here is reached by `br x16` or `blr x16`,
 * which a `bti c` accepts; the stubs' own pages are not guarded.
 */
    .text

.macro SAVE_ALL
    stp x29, x30, [sp, #-16]!
    mov x29, sp
    SAVE_REST
.endm

/* Below the frame record: x29 = entry sp - 16. */
.macro SAVE_REST
    sub sp, sp, #272
    stp x1, x0, [x29, #-16]
    stp x3, x2, [x29, #-32]
    stp x5, x4, [x29, #-48]
    stp x7, x6, [x29, #-64]
    stp x9, x8, [x29, #-80]
    stp x11, x10, [x29, #-96]
    stp x13, x12, [x29, #-112]
    stp x15, x14, [x29, #-128]
    str x18, [x29, #-136]
    mrs x9, nzcv                    /* flags too: cheap, and a relocated */
    str x9, [x29, #-144]            /* b.cond must see the caller's */
    stp q0, q1, [sp, #0]
    stp q2, q3, [sp, #32]
    stp q4, q5, [sp, #64]
    stp q6, q7, [sp, #96]
.endm

.macro RESTORE_ALL_BUT_FRAME
    ldp q0, q1, [sp, #0]
    ldp q2, q3, [sp, #32]
    ldp q4, q5, [sp, #64]
    ldp q6, q7, [sp, #96]
    ldr x9, [x29, #-144]
    msr nzcv, x9
    ldp x1, x0, [x29, #-16]
    ldp x3, x2, [x29, #-32]
    ldp x5, x4, [x29, #-48]
    ldp x7, x6, [x29, #-64]
    ldp x9, x8, [x29, #-80]
    ldp x11, x10, [x29, #-96]
    ldp x13, x12, [x29, #-112]
    ldp x15, x14, [x29, #-128]
    ldr x18, [x29, #-136]
    mov sp, x29
.endm

/* The entry path of either mode, up to the restored registers: x16 =
 * where to continue, x17 = whether the call was recorded. */
.macro ENTER
    .cfi_startproc
    bti c
    stp x29, x30, [sp, #-16]!
    .cfi_def_cfa_offset 16
    .cfi_offset x29, -16
    .cfi_offset x30, -8
    mov x29, sp
    .cfi_def_cfa_register x29
    SAVE_REST
    mov x0, x16
    add x1, x29, #8                 /* the slot: entry sp - 8 */
    mov x2, x29                     /* the saved argument registers lie below */
    mov x3, xzr                     /* ticks 0: the C half reads the clock */
    bl scope__shadow_enter          /* x0 = resume, x1 = recorded */
    mov x16, x0
    mov x17, x1
    RESTORE_ALL_BUT_FRAME           /* flags back: the cbz below keeps them */
    ldp x29, x30, [sp], #16         /* x30 from the slot: redirected or not */
    .cfi_def_cfa sp, 0
    .cfi_restore x29
    .cfi_restore x30
.endm

/* The exit path: sp = the function's entry sp again. */
.macro LEAVE
    SAVE_ALL
    add x0, x29, #16                /* the sp the function returned with */
    ldr x1, [x29, #-8]              /* its return value */
    mov x2, xzr                     /* ticks 0: the C half reads the clock */
    bl scope__shadow_exit           /* x0 = the original return address */
    str x0, [x29, #8]
    RESTORE_ALL_BUT_FRAME
    ldp x29, x30, [sp], #16
    ret
.endm

    .globl scope__tramp_entry_a64
    .hidden scope__tramp_entry_a64
    .type scope__tramp_entry_a64, %function
    .p2align 4
scope__tramp_entry_a64:
    ENTER
    br x16
    .cfi_endproc
    .size scope__tramp_entry_a64, . - scope__tramp_entry_a64

    .globl scope__tramp_exit_a64
    .hidden scope__tramp_exit_a64
    .type scope__tramp_exit_a64, %function
    .p2align 4
scope__tramp_exit_a64:
    LEAVE
    .size scope__tramp_exit_a64, . - scope__tramp_exit_a64

    .globl scope__tramp_centry_a64
    .hidden scope__tramp_centry_a64
    .type scope__tramp_centry_a64, %function
    .p2align 4
scope__tramp_centry_a64:
    ENTER
    cbz x17, 1f
    .cfi_endproc
    blr x16                         /* returns to scope__tramp_cexit_a64 */
    .size scope__tramp_centry_a64, . - scope__tramp_centry_a64

    .globl scope__tramp_cexit_a64
    .hidden scope__tramp_cexit_a64
    .type scope__tramp_cexit_a64, %function
scope__tramp_cexit_a64:
    LEAVE
1:  br x16                          /* not recorded: x30 is the caller's */
    .size scope__tramp_cexit_a64, . - scope__tramp_cexit_a64

    .section .note.GNU-stack,"",%progbits
