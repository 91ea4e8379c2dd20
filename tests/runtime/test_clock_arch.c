/*
 * test_clock_arch.c - the CPU counter of arch/<cpu>/arch_clock.h, on the
 * CPU the build is for (x86-64 natively, aarch64 under qemu-user):
 *   - it never goes backwards on one thread, over many reads (aarch64: the
 *     isb before each read keeps them in program order);
 *   - aarch64 states its rate (CNTFRQ_EL0) and is then usable; x86-64
 *     states none (the TSC's rate is measured from calibration pairs);
 *   - a stated rate is the rate it counts at: ticks over ~50 ms of
 *     CLOCK_MONOTONIC agree with it within 2 % (the least of 3 tries, so
 *     a loaded machine's preemption between the reads does not fail it).
 * The recorder's choice between this counter and CLOCK_MONOTONIC is
 * tested through every runtime test that records.
 */
#include <stdint.h>
#include <time.h>

#include "arch_clock.h"
#include "check.h"

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(void)
{
    uint64_t prev = scope__arch_counter(), backwards = 0, moved = 0;
    for (int i = 0; i < 1000000; i++) {
        uint64_t t = scope__arch_counter();
        backwards += t < prev;
        moved += t != prev;
        prev = t;
    }
    CHECK_I64(backwards, 0);
    CHECK(moved > 0);

    uint64_t hz = scope__arch_counter_hz();
#if defined(__aarch64__)
    CHECK(hz >= 1000000 && hz <= 10000000000ull);
    CHECK_I64(scope__arch_counter_usable(), 1);
#else
    CHECK_I64(hz, 0);
#endif
    if (hz) {
        double best = 1e9;
        for (int k = 0; k < 3; k++) {
            struct timespec nap = { 0, 50000000 };
            int64_t n0 = mono_ns();
            uint64_t t0 = scope__arch_counter();
            nanosleep(&nap, NULL);
            uint64_t t1 = scope__arch_counter();
            int64_t n1 = mono_ns();
            double rate = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
            double err = rate > (double)hz ? rate / (double)hz - 1 : 1 - rate / (double)hz;
            if (err < best)
                best = err;
        }
        if (best >= 0.02)
            fprintf(stderr, "counter rate off by %.2f %% of the stated %llu Hz\n", best * 100,
                    (unsigned long long)hz);
        CHECK(best < 0.02);
    }
    return check_result("test_clock_arch");
}
