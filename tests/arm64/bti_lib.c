/*
 * bti_lib.c - a library built with -mbranch-protection=standard and no C
 * runtime start files (whose objects are not BTI-marked), so that the
 * linker marks it BTI and PAC and the loader maps its code with PROT_BTI
 * (guarded pages): every indirect branch into it must land on a landing
 * pad. bti_leaf starts with `bti c`, bti_nonleaf with `paciasp` (it saves
 * and signs its return address); prog_bti.c checks both, and that the
 * pages stay guarded once the preload has patched them.
 */
__attribute__((noinline)) long bti_leaf(long x)
{
    return 3 * x + 1;
}

__attribute__((noinline)) long bti_nonleaf(long x)
{
    long s = 0;
    for (long i = 0; i < x; i++)
        s += bti_leaf(i) ^ i;
    return s + bti_leaf(x);
}

/* not timed: the guard probe branches to its second instruction */
long bti_ret42(void)
{
    return 42;
}
