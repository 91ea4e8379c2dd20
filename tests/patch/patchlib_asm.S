/*
 * patchlib_asm.S - functions inline patching must refuse, in the shared
 * library (so the GOT fallback applies):
 *   lib_loop  its loop branches back to +2, inside the 5 patched bytes;
 *   lib_mid   an entry one byte into lib_whole's first instruction.
 */
    .text
    .globl lib_loop
    .type lib_loop, @function
    .p2align 4
lib_loop:                       /* returns max(n, 1) counting up */
    xor %eax, %eax
1:  add $1, %eax
    cmp %edi, %eax
    jl 1b
    ret
    .size lib_loop, . - lib_loop

    .globl lib_whole
    .type lib_whole, @function
    .globl lib_mid
    .type lib_mid, @function
    .p2align 4
lib_whole:
    mov $0x12345678, %eax
lib_mid = lib_whole + 1
    add %edi, %eax
    add $1, %eax
    ret
    .size lib_whole, . - lib_whole
    .size lib_mid, 8

    .section .note.GNU-stack,"",@progbits
