/*
 * prog_reloc_a64.c - calls every function of reloc_a64.S (one per
 * PC-relative class at the entry) a known number of times and prints what
 * they return: the output under the preload must equal the bare one
 * (check_patch.py, case a64_reloc).
 */
#include <stdint.h>
#include <stdio.h>

long r_adr(void), r_adrp(long), r_ldr_x(void), r_ldr_w(void), r_ldrsw(void), r_ldr_s(void);
long r_ldr_d(void), r_ldr_q(void), r_prfm(void), r_b(void), call_r_bl(long);
long call_r_bcond(long), r_cbz(long), r_cbnz(long), r_tbz(long), r_tbnz(long);
long r_excl(long *), r_loop(long), r_bti_adr(void);

int main(void)
{
    long sum = 0;
    for (int i = 0; i < 3; i++)
        printf("adr %lx adrp %ld ldr_x %lx ldr_w %lx ldrsw %ld\n", r_adr(), r_adrp(i),
               r_ldr_x(), r_ldr_w(), r_ldrsw());
    for (int i = 0; i < 2; i++)
        printf("ldr_s %ld ldr_d %ld ldr_q %lx prfm %ld b %ld\n", r_ldr_s(), r_ldr_d(),
               r_ldr_q(), r_prfm(), r_b());
    for (long x = 0; x < 4; x++)
        printf("bl %ld\n", call_r_bl(x));
    for (long x = 3; x < 8; x++)
        printf("bcond %ld %ld\n", x, call_r_bcond(x));
    for (long x = 0; x < 3; x++)
        printf("cbz %ld cbnz %ld\n", r_cbz(x), r_cbnz(x));
    long bits[] = { 0, 8, 1L << 40, 9 };
    for (int i = 0; i < 4; i++)
        printf("tbz %ld tbnz %ld\n", r_tbz(bits[i]), r_tbnz(bits[i]));
    long counter = 0;
    for (int i = 0; i < 5; i++)
        sum += r_excl(&counter);
    printf("excl %ld loop %ld bti_adr %d\n", sum, r_loop(10),
           r_bti_adr() == (long)(uintptr_t)&r_bti_adr);
    return 0;
}
