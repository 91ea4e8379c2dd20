/*
 * callsites.h - call-site capture for instrumented functions whose config
 * entry asks for `callsites = N`: which call path reached this call, as an
 * id of the recorder's call-path table (scope__callsite_define).
 *
 * The trampoline hands the entry path the immediate return address for
 * free; that address is the cache key, so a call from a place already seen
 * costs one hash probe. Only a miss resolves addresses to (build-id, object
 * path, offset) and, for depth > 1, walks the deeper frames with libunwind,
 * loaded privately (dlopen RTLD_LOCAL: it exports _Unwind_* and backtrace,
 * which must never join the application's global scope).
 */
#ifndef SCOPE_CALLSITES_H
#define SCOPE_CALLSITES_H

#include <stdint.h>

/* Loads libunwind privately when max_depth > 1 (once; a missing libunwind
 * leaves deeper paths at depth 1, said once on stderr when verbose).
 * walk_begin and walk_end (the shadow stack's scope__shadow_walk_begin and
 * _end, which the driver hands over) run around each walk of the deeper
 * frames: they put the real return addresses back for the unwinder.
 * Call at setup, outside the hot path. Returns 1 when deeper frames can be
 * walked, 0 otherwise. */
int scope__callsites_setup(int max_depth, int verbose, void (*walk_begin)(void),
                           void (*walk_end)(void));

/* The call-site id (>= 1) of the call whose return address `ra` sits at
 * `slot` (not yet redirected), for a path of `depth` frames (1..16); 0 when
 * none can be had (out of memory). Cost: one probe of a lock-free table on
 * a hit; on a miss dl_iterate_phdr (takes the loader's lock), the walk and
 * the recorder's lock. Paths deeper than 1 are cached by the immediate
 * return address too: later calls from the same place are attributed to
 * the deeper path seen first from there. Runs with the shadow stack busy. */
int32_t scope__callsite_get(uintptr_t ra, uintptr_t *slot, uint32_t depth);

#endif /* SCOPE_CALLSITES_H */
