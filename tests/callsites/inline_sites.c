/*
 * inline_sites.c - site_target called from a function inlined into its
 * caller, so the call's DWARF location is an inline frame: check_inline.py
 * expects "helper (inline_sites.c:<INL>) inlined in outer
 * (inline_sites.c:<OUTER>) <- main (inline_sites.c:<MAIN>)".
 */
#include "sitelib.h"

static inline __attribute__((always_inline)) void helper(int x)
{
    site_target(x); /* INL */
}

__attribute__((noinline)) static void outer(void)
{
    helper(1); /* OUTER */
    __asm__ volatile("" ::: "memory"); /* no tail call: outer stays a frame */
}

int main(void)
{
    outer(); /* MAIN */
    return 0;
}
