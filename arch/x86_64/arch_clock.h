/*
 * arch_clock.h (x86-64) - the CPU's own counter: the TSC.
 *
 * One of arch/<cpu>/arch_clock.h is on the include path (meson picks the
 * folder of the host CPU), each with the same three functions and macro,
 * so runtime/clock.c and convert/ hold no CPU-specific code. See
 * arch/README.md for the interface and docs/design.md "Architectures".
 *
 * rdtsc alone is not ordered: a read may execute before the instructions
 * that precede it have. On an AVX-512 Xeon that stamped the end of a 47 ns
 * call of dependent arithmetic about 100 cycles early, so the call read as
 * 20 ns (tests/compensate found it; bench/README.md, "Ordered clock
 * reads"). So each read waits for every earlier instruction to finish
 * (lfence first, as Linux's vDSO clock reads it): a call's end is stamped
 * after its work, and a begin after the caller's. Two reads of one thread
 * never go backwards on an invariant TSC.
 */
#ifndef SCOPE_ARCH_CLOCK_H
#define SCOPE_ARCH_CLOCK_H

#include <cpuid.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <x86intrin.h>

/* How the counter is read, as messages and benchmarks name it. */
#define SCOPE_ARCH_COUNTER_NAME "lfence+rdtsc"

static inline uint64_t scope__arch_counter(void)
{
    uint32_t lo, hi;    /* one asm: the hot path is built general-registers-only */
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* The TSC's rate is not architectural: 0 = unknown, so the converter
 * measures it from the journal's calibration pairs. */
static inline uint64_t scope__arch_counter_hz(void)
{
    return 0;
}

/* The TSC is usable when its rate is constant and it keeps counting in
 * sleep states (invariant TSC, CPUID leaf 0x80000007 EDX bit 8). Virtual
 * machines often hide that bit while the kernel still trusts the TSC as
 * its clocksource, so either is accepted. Cost: one cpuid and at most one
 * small file read, once per process. */
static inline int scope__arch_counter_usable(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000007u) {
        __cpuid(0x80000007u, a, b, c, d);
        if ((d >> 8) & 1u)
            return 1;
    }
    char buf[32] = {0};
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                  O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n >= 3 && strncmp(buf, "tsc", 3) == 0;
}

#endif /* SCOPE_ARCH_CLOCK_H */
