/*
 * bti_excl.S - a BTI-guarded library function the entry patch must refuse
 * (an exclusive load right after its landing pad), so the preload times it
 * through the GOT slot of the program that imports it: its stub's `br x16`
 * back into the function lands on the `bti c`.
 */
    .text
    .globl bti_excl
    .type bti_excl, %function
    .p2align 3
bti_excl:                       /* ++*x0, returns the new value */
    bti c
1:  ldxr x1, [x0]
    add x1, x1, #1
    stxr w2, x1, [x0]
    cbnz w2, 1b
    mov x0, x1
    ret
    .size bti_excl, . - bti_excl

/* The GNU property note that marks this object BTI and PAC compatible (the
 * assembler adds none by itself): without it the linker would leave the
 * library unmarked, and its pages unguarded. */
    .pushsection .note.gnu.property, "a"
    .p2align 3
    .word 4                     /* name size */
    .word 16                    /* descriptor size */
    .word 5                     /* NT_GNU_PROPERTY_TYPE_0 */
    .asciz "GNU"
    .word 0xc0000000            /* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
    .word 4
    .word 3                     /* BTI | PAC */
    .word 0
    .popsection

    .section .note.GNU-stack,"",%progbits
