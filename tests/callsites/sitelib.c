/*
 * sitelib.c - the shared library of the call-site tests: site_target is
 * the instrumented function, and via_lib calls it from a known line of the
 * library itself, so call sites are seen in the executable and in a shared
 * library, both loaded at randomised addresses.
 */
#include "sitelib.h"

volatile int site_sink;

__attribute__((noinline)) void site_target(int x)
{
    site_sink += x;
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void via_lib(int n)
{
    for (int i = 0; i < n; i++)
        site_target(i); /* SITE_LIB */
    __asm__ volatile("" ::: "memory");
}
