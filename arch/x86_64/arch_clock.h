/*
 * arch_clock.h (x86-64) - the CPU's own counter: the TSC.
 *
 * One of arch/<cpu>/arch_clock.h is on the include path (meson picks the
 * folder of the host CPU), each with the same three functions and macro,
 * so runtime/clock.c and convert/ hold no CPU-specific code. See
 * arch/README.md for the interface and docs/design.md "Architectures".
 *
 * rdtsc is not serialising, as the clock of a profiler need not be: a read
 * may be taken a few instructions early, and two reads of one thread never
 * go backwards on an invariant TSC.
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
#define SCOPE_ARCH_COUNTER_NAME "rdtsc"

static inline uint64_t scope__arch_counter(void)
{
    return __rdtsc();
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
