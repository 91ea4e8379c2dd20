/*
 * self.c - where the preload itself is loaded, computed once.
 *
 * The question "is this address mine?" used to be answered four ways
 * (dladdr of a local function in dlopen_hook.c and symbol_next.c, a
 * dl_iterate_phdr walk in unwind_hooks.c and another in shadow_stack.c);
 * it has one answer now. The range is found with one dl_iterate_phdr walk
 * (the loader's own list, no dladdr per question), matched by the address
 * of a function of this file, so it is right wherever the code is linked:
 * libscope_preload.so, or an executable that links the engine statically.
 */
#include <link.h>
#include <pthread.h>

#include "self.h"
#include "load_segments.h"

uintptr_t scope__self_lo, scope__self_len;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t lo, hi;
    if (!scope__load_segment_of(info, (uintptr_t)arg))
        return 0;
    scope__load_range(info, &lo, &hi);
    scope__self_lo = lo;
    scope__self_len = hi - lo;
    return 1;
}

static void compute(void)
{
    dl_iterate_phdr(find_self, (void *)(uintptr_t)&find_self);
}

void scope__self_init(void)
{
    pthread_once(&once, compute);
}

int scope__is_own_address(const void *addr)
{
    scope__self_init();
    return addr != NULL && scope__self_contains((uintptr_t)addr);
}
