/* patchlib.c - a shared library the test program calls through the PLT
 * (lib_compute, lib_tiny; lib_loop in patchlib_asm.S) and one it opens
 * with dlopen after start (dyn_compute, built from this file with -DDYN). */
#define NOINLINE __attribute__((noinline))
static volatile long sink;

#ifdef DYN
NOINLINE long dyn_compute(long x)
{
    sink += x;
    return x * 5 + sink % 3;
}
#else
/* 4 bytes: too short to patch inline, timed through the GOT */
NOINLINE int lib_tiny(int x)
{
    return x * 3;
}

NOINLINE long lib_compute(long x)
{
    sink += x;
    return x * 3 + sink % 7;
}
#endif
