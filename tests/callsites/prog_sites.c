/*
 * prog_sites.c - a PIE program that calls the instrumented site_target
 * (in libsitelib.so) from two known lines of its own, 3 and 5 times, and
 * through via_lib, whose one call line in the library runs 7 times. The
 * lines are marked SITE_* for the checker, which finds them by the marker.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sitelib.h"

/* volatile: the compiler must not unroll the loops into one call per
 * iteration (each a call site of its own) */
static volatile int n_a = 3, n_b = 5;

__attribute__((noinline)) static void from_a(void)
{
    for (int i = 0; i < n_a; i++)
        site_target(1); /* SITE_A */
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void from_b(void)
{
    for (int i = 0; i < n_b; i++)
        site_target(2); /* SITE_B */
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    from_a(); /* CALL_A */
    from_b(); /* CALL_B */
    via_lib(7); /* SITE_VIA */
    printf("done\n");
    (void)argc;
    (void)argv;
    return 0;
}
