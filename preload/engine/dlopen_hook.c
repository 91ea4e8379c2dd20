/*
 * dlopen_hook.c - instruments libraries loaded after start-up, at the
 * moment they are loaded: wraps dlopen and dlmopen, and after the real one
 * returns lets the engine look at every object it has not seen yet (the
 * library and whatever it pulled in). Other threads may be running by
 * then, so patching uses the thread-safe write sequence (patch.c).
 *
 * dlclose is wrapped too: an object it unloads is forgotten, so that the
 * same library opened again (often at the same address) is patched again.
 *
 * Known cost of wrapping: glibc resolves a relative name against the
 * RUNPATH of the object that called dlopen, which is now the preload, not
 * the caller.
 *
 * The real functions come from symbol_next.c's table, found with
 * dlsym(RTLD_NEXT) alone: the general lookup walks the link map with
 * dlopen, which would land here again. The preload's own loads call them
 * directly (scope__real_dlopen), not these wrappers; a call that still
 * comes from inside the preload (scope__is_own_address) is passed through
 * untouched.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>

#include "interpose.h"
#include "scope_internal.h"
#include "self.h"
#include "self_depth.h"
#include "symbol_next.h"

#define HOOK __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* scope's own work (self_depth.h), after the real call returned */
static void after_load(void)
{
    scope__self_enter();
    pthread_mutex_lock(&lock);
    int n = scope__interpose_new_objects();
    pthread_mutex_unlock(&lock);
    if (n > 0) /* the first function instrumented: calibrate now (lifecycle.c) */
        scope__calibrate_pending();
    scope__self_leave();
}

HOOK void *dlopen(const char *file, int mode)
{
    void *h = scope__real_dlopen(file, mode);
    if (h && file && !scope__is_own_address(__builtin_return_address(0)))
        after_load();
    return h;
}

HOOK void *dlmopen(Lmid_t lmid, const char *file, int mode)
{
    void *h = scope__real_dlmopen(lmid, file, mode);
    if (h && file && !scope__is_own_address(__builtin_return_address(0)))
        after_load();
    return h;
}

HOOK int dlclose(void *handle)
{
    int rc = scope__real_dlclose(handle);
    if (rc == 0 && !scope__is_own_address(__builtin_return_address(0))) {
        pthread_mutex_lock(&lock);
        scope__interpose_forget_unloaded();
        pthread_mutex_unlock(&lock);
    }
    return rc;
}
