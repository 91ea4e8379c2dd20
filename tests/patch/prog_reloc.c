/*
 * prog_reloc.c - entry sequences the relocator must rewrite, written in
 * assembly so the compiler cannot change them (counts in check_patch.py):
 *   reloc_call  starts with a `call` (becomes push + jmp in the stub, so
 *               the callee still returns into the function itself)
 *   reloc_jcc   a short conditional branch among the displaced bytes
 *   reloc_rip   a RIP-relative load among the displaced bytes
 *   reloc_endbr starts with endbr64 (the patch goes after it)
 *   reloc_push  five one-byte pushes: five displaced instructions
 */
#include <stdio.h>

int reloc_call(int x);
int reloc_jcc(int x);
int reloc_rip(int x);
int reloc_endbr(int x);
int reloc_push(int x);
int reloc_counter = 100;

__asm__(
    "    .text\n"
    "    .p2align 4\n"
    "reloc_helper:\n"
    "    lea 7(%rdi), %eax\n"
    "    ret\n"
    "    .globl reloc_call\n"
    "    .type reloc_call, @function\n"
    "    .p2align 4\n"
    "reloc_call:\n"
    "    call reloc_helper\n"
    "    add $1, %eax\n"
    "    ret\n"
    "    .size reloc_call, .-reloc_call\n"
    "    .globl reloc_jcc\n"
    "    .type reloc_jcc, @function\n"
    "    .p2align 4\n"
    "reloc_jcc:\n"
    "    test %edi, %edi\n"
    "    jle 1f\n"
    "    lea (%rdi,%rdi,2), %eax\n"
    "    ret\n"
    "1:  mov $-1, %eax\n"
    "    ret\n"
    "    .size reloc_jcc, .-reloc_jcc\n"
    "    .globl reloc_rip\n"
    "    .type reloc_rip, @function\n"
    "    .p2align 4\n"
    "reloc_rip:\n"
    "    mov reloc_counter(%rip), %eax\n"
    "    add %edi, %eax\n"
    "    mov %eax, reloc_counter(%rip)\n"
    "    ret\n"
    "    .size reloc_rip, .-reloc_rip\n"
    "    .globl reloc_endbr\n"
    "    .type reloc_endbr, @function\n"
    "    .p2align 4\n"
    "reloc_endbr:\n"
    "    endbr64\n"
    "    lea 1(%rdi), %eax\n"
    "    imul %edi, %eax\n"
    "    ret\n"
    "    .size reloc_endbr, .-reloc_endbr\n"
    "    .globl reloc_push\n"
    "    .type reloc_push, @function\n"
    "    .p2align 4\n"
    "reloc_push:\n"
    "    push %rbx\n"
    "    push %rbp\n"
    "    push %r12\n"
    "    push %r13\n"
    "    mov %edi, %eax\n"
    "    add $5, %eax\n"
    "    pop %r13\n"
    "    pop %r12\n"
    "    pop %rbp\n"
    "    pop %rbx\n"
    "    ret\n"
    "    .size reloc_push, .-reloc_push\n");

int main(void)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += reloc_call(i);
    printf("call %d\n", s);
    s = 0;
    for (int i = -2; i < 3; i++)
        s += reloc_jcc(i);
    printf("jcc %d\n", s);
    for (int i = 0; i < 4; i++)
        s = reloc_rip(i);
    printf("rip %d counter %d\n", s, reloc_counter);
    s = 0;
    for (int i = 0; i < 6; i++)
        s += reloc_endbr(i);
    printf("endbr %d\n", s);
    s = 0;
    for (int i = 0; i < 2; i++)
        s += reloc_push(i);
    printf("push %d\n", s);
    return 0;
}
