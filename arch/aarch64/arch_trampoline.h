/*
 * arch_trampoline.h - which of this CPU's trampolines (arch_trampoline.S)
 * the preload uses: aarch64 has one pair of entry/exit paths per mode
 * (call, redirect; docs/interposition.md).
 *
 * The paths call the C halves preload/engine/shadow_stack.h declares:
 *   scope__shadow_enter(fn, slot, saved, 0): fn = the struct scope__fn the
 *     stub passed in x16; slot = entry sp - 8, where the entry path stored
 *     x30 (the return address); saved = the frame record just above the
 *     saved argument registers x0..x7 (downwards); ticks 0: the C half
 *     reads CNTVCT_EL0 itself.
 *   scope__shadow_exit(sp, ret, 0): sp = the stack pointer the function
 *     returned with (slot + 8), ret = x0, ticks 0 as at entry.
 */
#ifndef SCOPE_ARCH_TRAMPOLINE_H
#define SCOPE_ARCH_TRAMPOLINE_H

#include <stdint.h>

/* Argument registers as the entry path saves them, below `saved`: the
 * MPI capture reads integer argument i at saved[-1 - i] (0 <= i < 8); the
 * ninth and later are on the stack from entry sp (slot + 8) up. */
#define SCOPE_ARCH_SAVED_ARGS 8
/* The return-address slot's distance below the stack pointer the
 * function returns with. */
#define SCOPE_ARCH_SLOT_BELOW_SP 8u

extern char scope__tramp_entry_a64[], scope__tramp_exit_a64[];
extern char scope__tramp_centry_a64[], scope__tramp_cexit_a64[];

/* The entry and exit paths in the given mode (call: 1). */
static inline void scope__arch_tramp_pick(int call_mode, uintptr_t *entry, uintptr_t *exit_)
{
    *entry = (uintptr_t)(call_mode ? scope__tramp_centry_a64 : scope__tramp_entry_a64);
    *exit_ = (uintptr_t)(call_mode ? scope__tramp_cexit_a64 : scope__tramp_exit_a64);
}

/* Where an open call's redirected return address lives while the function
 * runs, for the fix-ups that put the original back (a throw, a stack walk;
 * shadow_stack.c). On aarch64 the return address arrives in x30 and the
 * function saves it where its own frame layout says (GCC: the frame
 * record at the bottom of the frame), not in the slot the trampoline used.
 * So the frame-record chain (x29) is walked from the caller's frame up:
 * the record whose saved x30 is the exit path's (signed or not) between
 * the frame's entry sp (slot + 8) and the next newer frame's is this
 * frame's. A function built without frame records (-fomit-frame-pointer)
 * breaks the chain: its frames and older ones get no home, and are left
 * as they are. Frames of one tail-call chain share their slot, and get
 * the same home, as on x86 (the newest first writes its `ret`, the exit
 * path's, then the oldest its own). Asked for the open frames newest
 * first, each once; `newer` is the slot of the next newer frame (0 for the
 * newest). */
struct scope__arch_homes {
    const uintptr_t *fp;
    uintptr_t lo, hi;               /* the thread's stack */
    uintptr_t exit_addr;
    uintptr_t last_top;             /* the previous frame's entry sp */
    uintptr_t *last_found;          /* and its home */
};

extern uintptr_t scope__tramp_exit_addr;

static inline uintptr_t scope__arch_strip(uintptr_t v);

static inline void scope__arch_homes_begin(struct scope__arch_homes *h, uintptr_t fp,
                                           uintptr_t stack_lo, uintptr_t stack_hi)
{
    h->fp = (const uintptr_t *)fp;
    h->lo = stack_lo;
    h->hi = stack_hi;
    h->exit_addr = scope__tramp_exit_addr;
    h->last_top = 0;
    h->last_found = 0;
}

static inline uintptr_t *scope__arch_home(struct scope__arch_homes *h, uintptr_t slot,
                                          uintptr_t newer)
{
    uintptr_t top = slot + 8, bottom = newer ? newer + 8 : 0;
    if (top == h->last_top)
        return h->last_found;       /* a tail call: the same frame */
    uintptr_t *found = 0;
    while (h->fp && (uintptr_t)h->fp >= h->lo && (uintptr_t)(h->fp + 2) <= h->hi &&
           (uintptr_t)&h->fp[1] < top) {
        if (!found && (uintptr_t)&h->fp[1] >= bottom && scope__arch_strip(h->fp[1]) == h->exit_addr)
            found = (uintptr_t *)&h->fp[1];
        const uintptr_t *next = (const uintptr_t *)h->fp[0];
        h->fp = next > h->fp ? next : 0;    /* the chain only goes up */
    }
    h->last_top = top;
    h->last_found = found;
    return found;
}

/* A return address as stored, without its pointer signature (xpaclri: a
 * no-op on a CPU without pointer authentication). */
static inline uintptr_t scope__arch_strip(uintptr_t v)
{
    register uintptr_t lr __asm__("x30") = v;
    __asm__("hint #7" : "+r"(lr));  /* xpaclri */
    return lr;
}

/* `value` to store at a home that held `was`: signed as `was` was, by a
 * paciasp at the function's entry (key A, modifier its entry sp = slot +
 * 8), which the unwinder authenticates; plain when `was` was plain. A
 * function signing with key B (pacibsp) is not handled: an exception
 * through it would fail authentication. */
static inline uintptr_t scope__arch_signed_like(uintptr_t was, uintptr_t value, uintptr_t slot)
{
    if (scope__arch_strip(was) == was)
        return value;
    register uintptr_t v __asm__("x17") = value;
    register uintptr_t mod __asm__("x16") = slot + 8;
    __asm__(".inst 0xdac10211" : "+r"(v) : "r"(mod));   /* pacia x17, x16 */
    return v;
}

#endif /* SCOPE_ARCH_TRAMPOLINE_H */
