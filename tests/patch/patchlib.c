/* patchlib.c - a shared library the test program calls through the PLT
 * (lib_compute, lib_tiny; lib_loop in patchlib_asm.S) and one it opens
 * with dlopen after start (dyn_compute, built from this file with -DDYN). */
#define NOINLINE __attribute__((noinline))
static volatile long sink;

#ifdef DYN
int lib_tiny(int x);

/* calls lib_tiny of libpatchlib through its own PLT: the GOT fallback must
 * cover this library too, although it is loaded after start */
NOINLINE long dyn_compute(long x)
{
    sink += x;
    return x * 5 + sink % 3 + lib_tiny((int)x);
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

/* another name for lib_compute: one function, timed once */
long lib_alias(long x) __attribute__((alias("lib_compute")));

/* an IFUNC: the resolver picks one of two implementations; the one picked
 * is what gets patched */
static NOINLINE long ifunc_fast(long x)
{
    sink += 2 * x;
    return x * 11 + sink % 5;
}
static NOINLINE long ifunc_slow(long x)
{
    sink += 3 * x;
    return x * 11 + sink % 5;
}
static long (*resolve_ifunc(void))(long)
{
    return sizeof(long) == 8 ? ifunc_fast : ifunc_slow;
}
long lib_ifunc(long x) __attribute__((ifunc("resolve_ifunc")));
#endif
