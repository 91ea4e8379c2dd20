/*
 * self.h - the one answer to "is this address the preload's own?"
 * (self.c). The preload must never forward to, patch, time or report
 * itself: symbol lookups refuse its own definitions, the dlopen wrappers
 * ignore its own calls, and the shadow stack lets the calls the preload
 * makes through patched functions pass untimed.
 */
#ifndef SCOPE_PRELOAD_SELF_H
#define SCOPE_PRELOAD_SELF_H

#include <stdint.h>

/* The preload's load range [lo, lo + len): from its first PT_LOAD segment
 * to the end of its last, which the loader maps as one reservation. 0 and
 * 0 until scope__self_init() has run. Read directly only by the hot path
 * (scope__self_contains); everyone else calls scope__is_own_address. */
extern uintptr_t scope__self_lo, scope__self_len;

/* Computes the range, once per process (later calls return at once).
 * Takes the loader's lock (dl_iterate_phdr): not from a signal handler,
 * not from inside a dl_iterate_phdr callback. */
void scope__self_init(void);

/* 1 when `addr` lies in the preload (code or data), 0 otherwise or for
 * NULL. Computes the range on first use. Cost: a compare after that. */
int scope__is_own_address(const void *addr);

/* The same test without the first-use check, for the hot path: valid
 * once scope__self_init() has run (before that it answers 0). */
static inline int scope__self_contains(uintptr_t addr)
{
    return addr - scope__self_lo < scope__self_len;
}

#endif /* SCOPE_PRELOAD_SELF_H */
