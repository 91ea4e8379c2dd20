/*
 * prog_vector.c - functions that take and return 256- and 512-bit vectors
 * (AVX2, AVX-512 where the CPU has them), timed through the trampolines,
 * which must hand every lane over and back unchanged; and a plain function
 * called with the vector registers' upper halves clean, which must leave
 * them clean (XINUSE), since a trampoline that marks them in use slows
 * every legacy-SSE instruction the program runs after it on Intel CPUs
 * (arch/x86_64/arch_trampoline.S). check_patch.py case "vector" compares
 * the output with the bare run's and the exact counts: vmul256 3 calls
 * with AVX2, vmul512 3 with AVX-512F, plain 5.
 */
#include <cpuid.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline, noclone))

__attribute__((target("avx2"))) static NOINLINE __m256d vmul256(__m256d a, __m256d b)
{
    return _mm256_add_pd(_mm256_mul_pd(a, b), a);
}

__attribute__((target("avx2"))) static NOINLINE void run256(void)
{
    __m256d acc = _mm256_set_pd(4.5, -3.25, 2.0, 1.0);
    for (int i = 0; i < 3; i++)
        acc = vmul256(acc, _mm256_set_pd(i + 0.5, i - 7.0, 1.0 / (i + 3), 2.0 + i));
    double v[4];
    _mm256_storeu_pd(v, acc);
    printf("vmul256 %.9g %.9g %.9g %.9g\n", v[0], v[1], v[2], v[3]);
}

__attribute__((target("avx512f"))) static NOINLINE __m512d vmul512(__m512d a, __m512d b)
{
    return _mm512_add_pd(_mm512_mul_pd(a, b), a);
}

__attribute__((target("avx512f"))) static NOINLINE void run512(void)
{
    __m512d acc = _mm512_set_pd(8.0, -7.5, 6.25, 5.0, 4.5, -3.25, 2.0, 1.0);
    for (int i = 0; i < 3; i++)
        acc = vmul512(acc, _mm512_set_pd(i, -i, i * 0.5, 3.0, i + 0.5, i - 7.0, 1.0 / (i + 3), 2.0 + i));
    double v[8];
    _mm512_storeu_pd(v, acc);
    printf("vmul512 %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", v[0], v[1], v[2], v[3], v[4], v[5],
           v[6], v[7]);
}

static NOINLINE int plain(int x)
{
    return x * 3 + 1;
}

/* XINUSE bits 2 (ymm's upper halves) and 6 (zmm's), or -1 when the CPU
 * cannot say (xgetbv 1 needs CPUID.(0DH,1):EAX[2]). */
static int upper_in_use(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) ||
        !__get_cpuid_count(0xd, 1, &a, &b, &c, &d) || !(a & 4))
        return -1;
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    return (lo & 0x44) != 0;
}

int main(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        run256();
    if (__builtin_cpu_supports("avx512f"))
        run512();
    int s = 0;
    for (int i = 0; i < 5; i++)
        s += plain(i);
    int u = upper_in_use();
    printf("plain %d; upper halves after it: %s\n", s,
           u < 0 ? "not known" : u ? "in use" : "clean");
    return 0;
}
