/*
 * clock.c - choosing the recorder's clock and reading calibration pairs.
 *
 * The TSC costs about half of a vDSO clock_gettime here, which matters when
 * two reads are the whole cost of a region. It is only usable when its rate
 * is constant and it keeps counting in sleep states (invariant TSC), which
 * the CPU reports in CPUID leaf 0x80000007 EDX bit 8; virtual machines often
 * hide that bit while the kernel still trusts the TSC as its clocksource, so
 * either is accepted.
 */
#include "clock.h"

#include <cpuid.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int scope__clock_tsc = 0;
int64_t scope__clock_drift_ppm = 0;

/* The whole reading is scaled (not the time since some start), so every
 * process of a host that sets the same value reads the same clock, as the
 * ranks of one real host do. The TSC path inherits the drift through the
 * calibration pairs, which are read with scope__mono_ns(). */
int64_t scope__clock_drifted(int64_t ns)
{
    return ns + (int64_t)((__int128)ns * scope__clock_drift_ppm / 1000000);
}

/* Reads SCOPE_CLOCK_DRIFT_PPM once; ignored unless it is a whole number
 * within +-100000 (10 %). */
static void read_drift(void)
{
    const char *v = getenv("SCOPE_CLOCK_DRIFT_PPM");
    char *end = NULL;
    long long ppm = v && *v ? strtoll(v, &end, 10) : 0;
    scope__clock_drift_ppm = end && *end == 0 && ppm >= -100000 && ppm <= 100000 ? ppm : 0;
}

static int cpu_has_invariant_tsc(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __cpuid(0x80000007u, a, b, c, d);
    return (d >> 8) & 1u;
}

static int kernel_uses_tsc(void)
{
    char buf[32] = {0};
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                  O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n >= 3 && strncmp(buf, "tsc", 3) == 0;
}

void scope__clock_setup(void)
{
    read_drift();
    const char *force = getenv("SCOPE_CLOCK");
    if (force && strcmp(force, "monotonic") == 0) {
        scope__clock_tsc = 0;
        return;
    }
    if (force && strcmp(force, "tsc") == 0) {
        scope__clock_tsc = 1;
        return;
    }
    scope__clock_tsc = cpu_has_invariant_tsc() || kernel_uses_tsc();
}

/* Reads ns between two tick reads and keeps the tightest of a few tries,
 * so the pair's error is bounded by the smallest observed window. */
void scope__clock_pair(uint64_t *ticks, int64_t *ns)
{
    if (!scope__clock_tsc) {
        *ns = scope__mono_ns();
        *ticks = (uint64_t)*ns;
        return;
    }
    uint64_t best_width = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t t0 = __rdtsc();
        int64_t n = scope__mono_ns();
        uint64_t t1 = __rdtsc();
        if (t1 - t0 < best_width) {
            best_width = t1 - t0;
            *ticks = t0 + (t1 - t0) / 2;
            *ns = n;
        }
    }
}
