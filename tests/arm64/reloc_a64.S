/*
 * reloc_a64.S - one arm64 function per PC-relative instruction class, each
 * with that instruction first (where the entry patch displaces it), for
 * prog_reloc_a64.c: once patched, each must return what it returns bare.
 * Two that must be refused: an exclusive load first, and a body that
 * branches back to its first instruction.
 */
    .text

.macro FN name
    .globl \name
    .type \name, %function
    .p2align 3
\name:
.endm
.macro END name
    .size \name, . - \name
.endm

FN r_adr                        /* x0 = the literal 0x1234, read through ADR */
    adr x1, 1f
    ldr x0, [x1]
    ret
    .p2align 3
1:  .quad 0x1234
END r_adr

FN r_adrp                       /* x0 = a64_data[x0], page through ADRP */
    adrp x1, a64_data
    add x1, x1, :lo12:a64_data
    ldr x0, [x1, x0, lsl #3]
    ret
END r_adrp

FN r_ldr_x
    ldr x0, 1f
    ret
    .p2align 3
1:  .quad 0x1122334455667788
END r_ldr_x

FN r_ldr_w
    ldr w0, 1f
    ret
    .p2align 2
1:  .word 0x89abcdef
END r_ldr_w

FN r_ldrsw
    ldrsw x0, 1f
    ret
    .p2align 2
1:  .word -5
END r_ldrsw

FN r_ldr_s                      /* (long)(2.5f * 4) */
    ldr s0, 1f
    fmov s1, #4.0
    fmul s0, s0, s1
    fcvtzs x0, s0
    ret
    .p2align 2
1:  .float 2.5
END r_ldr_s

FN r_ldr_d
    ldr d0, 1f
    fcvtzs x0, d0
    ret
    .p2align 3
1:  .double 4096.75
END r_ldr_d

FN r_ldr_q                      /* the literal's high half */
    ldr q0, 1f
    mov x0, v0.d[1]
    ret
    .p2align 4
1:  .quad 0x1111, 0x2222
END r_ldr_q

FN r_prfm
    prfm pldl1keep, 1f
    mov x0, #9
    ret
    .p2align 3
1:  .quad 0
END r_prfm

FN r_b
    b 1f
    mov x0, #1
    ret
1:  mov x0, #10
    ret
END r_b

/* BL first: its callee must return into this function (x30 = here + 4,
 * checked there), which then returns to x15 (set by call_r_bl): its own
 * x30 is gone. */
FN r_bl
    bl a64_check_lr
    ret x15
END r_bl

FN a64_check_lr                 /* x0 + 100, or + 1000 if x30 is wrong */
    adr x9, r_bl
    add x9, x9, #4
    add x0, x0, #100
    cmp x30, x9
    b.eq 1f
    add x0, x0, #1000
1:  ret
END a64_check_lr

FN call_r_bl                    /* long call_r_bl(long) */
    stp x29, x30, [sp, #-16]!
    mov x29, sp
    adr x15, 1f
    bl r_bl
1:  ldp x29, x30, [sp], #16
    ret
END call_r_bl

/* B.cond first: reads the flags its caller set (call_r_bcond). */
FN r_bcond
    b.lt 1f
    mov x0, #20
    ret
1:  mov x0, #21
    ret
END r_bcond

FN call_r_bcond                 /* long call_r_bcond(long x): x < 5 ? 21 : 20 */
    stp x29, x30, [sp, #-16]!
    mov x29, sp
    cmp x0, #5
    bl r_bcond
    ldp x29, x30, [sp], #16
    ret
END call_r_bcond

FN r_cbz
    cbz x0, 1f
    mov x0, #30
    ret
1:  mov x0, #31
    ret
END r_cbz

FN r_cbnz
    cbnz w0, 1f
    mov x0, #40
    ret
1:  mov x0, #41
    ret
END r_cbnz

FN r_tbz
    tbz x0, #3, 1f
    mov x0, #50
    ret
1:  mov x0, #51
    ret
END r_tbz

FN r_tbnz
    tbnz x0, #40, 1f
    mov x0, #60
    ret
1:  mov x0, #61
    ret
END r_tbnz

/* Refused: an exclusive load first (x0 = the address to increment). */
FN r_excl
1:  ldxr x1, [x0]
    add x1, x1, #1
    stxr w2, x1, [x0]
    cbnz w2, 1b
    mov x0, x1
    ret
END r_excl

/* Refused: the body loops back to the first instruction. */
FN r_loop                       /* x0 = sum 1..x0 */
    mov x1, #0
1:  add x1, x1, x0
    subs x0, x0, #1
    b.ne r_loop_back
    mov x0, x1
    ret
r_loop_back:
    cbz x0, r_loop
    b 1b
END r_loop

/* After `bti c` (kept in place): an ADR displaced; x0 = its own address. */
FN r_bti_adr
    bti c
    adr x0, r_bti_adr
    ret
END r_bti_adr

    .data
    .p2align 3
    .globl a64_data
a64_data:
    .quad 100, 200, 300, 400

    .section .note.GNU-stack,"",%progbits
