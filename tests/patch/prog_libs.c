/*
 * prog_libs.c - calls lib_compute in a linked shared library through the
 * PLT 6 times, lib_tiny 3 times and lib_loop twice (both only through the
 * GOT: inline patching refuses them), lib_alias (= lib_compute) twice and
 * the IFUNC lib_ifunc 7 times, then dlopen()s libpatchdyn.so (path in argv[1]) and calls
 * its dyn_compute 4 times, then dlclose()s it, opens it again and calls
 * dyn_compute 3 more times.
 */
#include <dlfcn.h>
#include <stdio.h>

long lib_compute(long x);
int lib_tiny(int x);
int lib_loop(int n);
long lib_alias(long x);
long lib_ifunc(long x);

int main(int argc, char **argv)
{
    long s = 0;
    for (int i = 0; i < 6; i++)
        s += lib_compute(i);
    printf("lib %ld\n", s);
    int t = 0;
    for (int i = 0; i < 3; i++)
        t += lib_tiny(i);
    printf("tiny %d loop %d %d\n", t, lib_loop(5), lib_loop(0));
    long a = lib_alias(10) + lib_alias(11);
    long f = 0;
    for (int i = 0; i < 7; i++)
        f += lib_ifunc(i);
    printf("alias %ld ifunc %ld\n", a, f);
    if (argc < 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen failed\n");
        return 1;
    }
    long (*dyn)(long) = (long (*)(long))dlsym(h, "dyn_compute");
    long d = 0;
    for (int i = 0; i < 4; i++)
        d += dyn(i);
    printf("dyn %ld\n", d);
    /* unloaded and loaded again: instrumented again, 3 more calls */
    dlclose(h);
    h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen failed\n");
        return 1;
    }
    dyn = (long (*)(long))dlsym(h, "dyn_compute");
    for (int i = 0; i < 3; i++)
        d += dyn(i);
    printf("dyn again %ld\n", d);
    return 0;
}
