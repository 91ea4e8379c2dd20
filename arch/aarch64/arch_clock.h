/*
 * arch_clock.h (aarch64) - the CPU's own counter: the generic timer's
 * virtual count, CNTVCT_EL0, at the rate CNTFRQ_EL0 states.
 *
 * One of arch/<cpu>/arch_clock.h is on the include path (meson picks the
 * folder of the host CPU), each with the same three functions and macro;
 * see arch/README.md and docs/design.md "Architectures".
 *
 * The generic timer is architecturally a constant-rate counter common to
 * all cores (the Linux clocksource arch_sys_counter is built on it), so it
 * needs no invariance check as the TSC does. Its rate is whatever the
 * firmware put in CNTFRQ_EL0, from tens of MHz on older parts to 1 GHz
 * (which Armv8.6 fixes); Debian 12's qemu-user says 62.5 MHz (16 ns).
 * Coarse steps make ties between timestamps the normal case,
 * which the recorder is built for (docs/design.md "The recorder").
 */
#ifndef SCOPE_ARCH_CLOCK_H
#define SCOPE_ARCH_CLOCK_H

#include <stdint.h>

/* How the counter is read, as messages and benchmarks name it. */
#define SCOPE_ARCH_COUNTER_NAME "cntvct_el0"

/* The read may otherwise be performed out of order with the instructions
 * around it, earlier even than a previous read on some cores: the isb
 * before it makes it happen in program order (as Linux's vDSO does).
 * It costs a pipeline refill, tens of cycles, far below a vDSO
 * clock_gettime. */
static inline uint64_t scope__arch_counter(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
}

/* CNTFRQ_EL0, readable from user space: ticks per second. */
static inline uint64_t scope__arch_counter_hz(void)
{
    uint64_t hz;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
    return hz & 0xffffffffu; /* the upper half is RES0 */
}

/* Usable when the firmware set its rate: a 0 there means an unconfigured
 * timer, whose count cannot be trusted either. */
static inline int scope__arch_counter_usable(void)
{
    return scope__arch_counter_hz() != 0;
}

#endif /* SCOPE_ARCH_CLOCK_H */
