/* patchlib.c - a shared library the test program calls through the PLT
 * (lib_compute) and one it opens with dlopen after start (dyn_compute,
 * built from the same file with -DDYN). */
#define NOINLINE __attribute__((noinline))
static volatile long sink;

#ifdef DYN
NOINLINE long dyn_compute(long x)
{
    sink += x;
    return x * 5 + sink % 3;
}
#else
NOINLINE long lib_compute(long x)
{
    sink += x;
    return x * 3 + sink % 7;
}
#endif
