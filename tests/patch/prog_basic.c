/*
 * prog_basic.c - a C program whose static functions cover the trampoline's
 * calling-convention cases: deep recursion, tail calls, varargs (also
 * beyond the registers), many arguments, a by-value struct on the stack,
 * float/double/long double, struct returns, a call through a function
 * pointer. Its output must be the same with and without the
 * preload; the counts each call makes are in the comments for the checker.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

struct big { long a, b, c, d, e; };
struct pair { double x, y; };

/* recursion: depth(10000) = 10000 calls */
static NOINLINE long depth(long n)
{
    if (n <= 1)
        return 1;
    long r = depth(n - 1) + 1;
    __asm__ volatile("" ::: "memory");
    return r;
}

/* varargs: 3 calls */
static NOINLINE double vsum(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += va_arg(ap, double);
    va_end(ap);
    return s;
}

static NOINLINE int vfmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n;
}

/* more than six integer and eight float arguments: 2 calls */
static NOINLINE long many(long a, long b, long c, long d, long e, long f, long g, long h,
                          double x0, double x1, double x2, double x3, double x4, double x5,
                          double x6, double x7, double x8, double x9)
{
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h +
           (long)(x0 + 2 * x1 + 3 * x2 + 4 * x3 + 5 * x4 + 6 * x5 + 7 * x6 + 8 * x7 +
                  9 * x8 + 10 * x9);
}

/* arguments the callee reads from the caller's stack, which the trampoline
 * must leave where they are (call mode calls the function from the
 * caller's own stack pointer): a by-value struct of memory class, the 7th
 * and 8th integer arguments, one of them written by the callee, and
 * varargs beyond the registers (the overflow area): 2 calls each */
static NOINLINE long stackargs(struct big s, long a1, long a2, long a3, long a4, long a5,
                               long a6, long a7, long a8)
{
    a8 += a7;                   /* the callee owns its argument slots */
    __asm__ volatile("" : "+r"(a8) :: "memory");
    return s.a + 2 * s.b + 3 * s.c + 4 * s.d + 5 * s.e + 10 * (a1 + a2 + a3 + a4 + a5 + a6) +
           100 * a7 + 1000 * a8;
}

static NOINLINE long vlong(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    long s = 0;
    for (int i = 0; i < n; i++)
        s = s * 3 + va_arg(ap, long);
    va_end(ap);
    return s;
}

/* float, double, long double in and out: 1 call each */
static NOINLINE float ffun(float a, float b) { return a * b + 0.5f; }
static NOINLINE double dfun(double a, double b) { return a / b; }
static NOINLINE long double ldfun(long double a, long double b) { return a * b + 1.0L; }

/* struct returns (memory and registers): 1 call each */
static NOINLINE struct big mkbig(long s)
{
    struct big b = { s, s + 1, s + 2, s + 3, s + 4 };
    return b;
}
static NOINLINE struct pair mkpair(double s) { return (struct pair){ s, -s }; }

/* reached only through a function pointer: 5 calls */
static NOINLINE int by_pointer(int x)
{
    int s = 0;
    for (int i = 0; i <= x; i++)
        s += i * 3;
    return s;
}
int (*volatile fp)(int) = by_pointer;

/* a tail call: tail_outer calls tail_inner as its last act: 4 calls each */
static NOINLINE int tail_inner(int x) { return x * 7 + (x & 1); }
static NOINLINE int tail_outer(int x)
{
    __asm__ volatile("" ::: "memory");
    return tail_inner(x + 1);
}

/* exported (non-static): found in a stripped build too: 2 calls */
volatile int exported_calls;
NOINLINE int exported_add(int a, int b)
{
    exported_calls++;
    return a + b;
}

/* too short to patch (4 bytes): refused, 1 call, never recorded */
NOINLINE int tiny(int x) { return x * 3; }

int main(void)
{
    printf("depth %ld\n", depth(10000));
    printf("vsum %.3f %.3f %.3f\n", vsum(3, 1.5, 2.5, 3.0), vsum(1, 4.25), vsum(0));
    char buf[128];
    int n = vfmt(buf, sizeof buf, "%d-%s-%.2f-%ld", 42, "str", 3.14159, 1234567890123L);
    printf("vfmt %d %s\n", n, buf);
    printf("many %ld %ld\n", many(1, 2, 3, 4, 5, 6, 7, 8, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5),
           many(-1, -2, -3, -4, -5, -6, -7, -8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100));
    struct big sb = { 1, 2, 3, 4, 5 }, sb2 = { -5, 7, -9, 11, -13 };
    printf("stackargs %ld %ld\n", stackargs(sb, 1, 2, 3, 4, 5, 6, 7, 8),
           stackargs(sb2, -1, -2, -3, -4, -5, -6, 70, 80));
    printf("vlong %ld %ld\n", vlong(12, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L),
           vlong(9, -1L, 20L, -300L, 4000L, -50000L, 600000L, -7L, 8L, 9L));
    printf("float %.6f double %.6f ldouble %.6Lf\n", ffun(1.25f, 4.0f), dfun(1.0, 3.0),
           ldfun(1.5L, 2.25L));
    struct big b = mkbig(10);
    struct pair p = mkpair(2.5);
    printf("big %ld %ld %ld %ld %ld pair %.2f %.2f\n", b.a, b.b, b.c, b.d, b.e, p.x, p.y);
    int s = 0;
    for (int i = 0; i < 5; i++)
        s += fp(i);
    printf("pointer %d\n", s);
    int t = 0;
    for (int i = 0; i < 4; i++)
        t += tail_outer(i);
    printf("tail %d\n", t);
    printf("exported %d\n", exported_add(2, 3) + exported_add(4, 5));
    printf("tiny %d\n", tiny(14));
    /* patched code and stubs go back to read+execute: no page is both
     * writable and executable, with the preload or without */
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    int wx = 0;
    while (maps && fgets(line, sizeof line, maps)) {
        char perms[8] = "";
        if (sscanf(line, "%*s %7s", perms) == 1 && perms[1] == 'w' && perms[2] == 'x')
            wx++;
    }
    if (maps)
        fclose(maps);
    printf("writable+executable mappings %d\n", wx);
    return 0;
}
