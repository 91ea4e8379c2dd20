/*
 * symbol_next.c - finding "the next definition" of a symbol the preload
 * interposes, so every interposed call can be forwarded.
 *
 * dlsym(RTLD_NEXT) is enough when the application linked libmpi itself.
 * It is not when libmpi was opened with RTLD_LOCAL by a plug-in (mpi4py's
 * MPI.so does this): the application's call still reaches the preload,
 * whose definition wins in the global scope, but RTLD_NEXT searches only
 * the global scope and finds nothing. Then the link map is walked with
 * dl_iterate_phdr and each object is asked with dlopen(RTLD_NOLOAD), which
 * never loads anything new. The caller may name the objects to ask first
 * (the MPI capture: libmpi.so*), so that the answer does not depend on
 * load order when several objects define the name.
 *
 * The names the engine defines itself (its hooks) are one table here,
 * each looked up once for the process, so no hook keeps lookups of its
 * own; a capture's wrappers keep a table of their own on the same cached
 * lookup (scope__next_cached). dlopen, dlmopen and dlclose are the
 * exception in how they are found: the walk of the link map above calls
 * dlopen, and the preload defines dlopen (dlopen_hook.c), so asking
 * scope__next_symbol for "dlopen" could end up in the hook asking for
 * itself. They are taken from dlsym(RTLD_NEXT) alone, which never calls
 * dlopen: libc is a dependency of the preload, so its definitions are
 * always next in the global scope. The preload's own loads, this file's
 * RTLD_NOLOAD lookups included, call them directly (scope__real_dlopen)
 * instead of going through the hook.
 */
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <string.h>

#include "symbol_next.h"

#include "self.h"

/* Enough for every object of a large MPI application; extra objects are
 * simply not searched. */
#define MAX_OBJECTS 256

typedef struct object_list {
    const char *names[MAX_OBJECTS];
    size_t n;
} object_list;

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* dl_iterate_phdr callback: collects the names of loaded objects. It only
 * copies pointers; dlopen is not called while the loader's lock is held. */
static int collect_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    object_list *list = arg;
    (void)size;
    if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
        return 0; /* the executable (already in the global scope) or vdso */
    if (list->n < MAX_OBJECTS)
        list->names[list->n++] = info->dlpi_name;
    return 0;
}

/* Asks one loaded object (and its dependencies) for `name`. */
static void *lookup_in(const char *object, const char *name)
{
    void *handle = scope__real_dlopen(object, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == NULL)
        return NULL;
    void *sym = dlsym(handle, name);
    scope__real_dlclose(handle); /* balances the reference RTLD_NOLOAD took */
    return scope__is_own_address(sym) ? NULL : sym;
}

/* Walks the link map: the objects whose base name starts with `first`
 * (NULL: none) first, then every other object. */
static void *lookup_link_map(const char *name, const char *first)
{
    object_list list; /* 2 KiB of stack; a local keeps concurrent callers apart */
    list.n = 0;
    dl_iterate_phdr(collect_object, &list);
    size_t first_len = first ? strlen(first) : 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < list.n; i++) {
            int is_first = first && strncmp(base_name(list.names[i]), first, first_len) == 0;
            if (is_first != (pass == 0))
                continue;
            void *sym = lookup_in(list.names[i], name);
            if (sym != NULL)
                return sym;
        }
    }
    return NULL;
}

void *scope__next_symbol(const char *name, const char *first)
{
    void *sym = dlsym(RTLD_NEXT, name);
    if (sym != NULL && !scope__is_own_address(sym))
        return sym;
    return lookup_link_map(name, first);
}

void *scope__global_symbol(const char *name, const char *first)
{
    void *sym = dlsym(RTLD_DEFAULT, name);
    if (sym != NULL && !scope__is_own_address(sym))
        return sym;
    return lookup_link_map(name, first);
}

void *scope__next_cached(void **cache, const char *name, const char *first)
{
    void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (fn != NULL)
        return fn;
    fn = scope__next_symbol(name, first);
    if (fn != NULL)
        __atomic_store_n(cache, fn, __ATOMIC_RELEASE);
    return fn;
}

const char *scope__object_of(const void *addr)
{
    Dl_info info;
    if (addr == NULL || dladdr(addr, &info) == 0)
        return NULL;
    return info.dli_fname;
}

/* ------------------------------------- the names the engine forwards */

/* One row per scope__next_id, in its order. `libc`: looked up with
 * dlsym(RTLD_NEXT) alone (see the file comment). */
static const struct {
    const char *name;
    int libc;
} next_names[SCOPE__NEXT_COUNT] = {
    [SCOPE__NEXT_DLOPEN] = { "dlopen", 1 },
    [SCOPE__NEXT_DLMOPEN] = { "dlmopen", 1 },
    [SCOPE__NEXT_DLCLOSE] = { "dlclose", 1 },
    [SCOPE__NEXT_LONGJMP] = { "longjmp", 0 },
    [SCOPE__NEXT__LONGJMP] = { "_longjmp", 0 },
    [SCOPE__NEXT_SIGLONGJMP] = { "siglongjmp", 0 },
    [SCOPE__NEXT_LONGJMP_CHK] = { "__longjmp_chk", 0 },
    [SCOPE__NEXT_CXA_THROW] = { "__cxa_throw", 0 },
    [SCOPE__NEXT_CXA_RETHROW] = { "__cxa_rethrow", 0 },
    /* std::rethrow_exception(std::exception_ptr) */
    [SCOPE__NEXT_RETHROW_EXCEPTION] =
        { "_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE", 0 },
    [SCOPE__NEXT_CXA_BEGIN_CATCH] = { "__cxa_begin_catch", 0 },
    [SCOPE__NEXT_PTHREAD_EXIT] = { "pthread_exit", 0 },
    [SCOPE__NEXT_BACKTRACE] = { "backtrace", 0 },
};

/* What each name was found to be; NULL until found. */
static void *next_found[SCOPE__NEXT_COUNT];

void *scope__next(enum scope__next_id id)
{
    if (!next_names[id].libc)
        return scope__next_cached(&next_found[id], next_names[id].name, NULL);
    void *fn = __atomic_load_n(&next_found[id], __ATOMIC_ACQUIRE);
    if (fn != NULL)
        return fn;
    fn = dlsym(RTLD_NEXT, next_names[id].name);
    if (fn != NULL)
        __atomic_store_n(&next_found[id], fn, __ATOMIC_RELEASE);
    return fn;
}

typedef void *(*dlopen_fn)(const char *, int);
typedef void *(*dlmopen_fn)(Lmid_t, const char *, int);
typedef int (*dlclose_fn)(void *);

void *scope__real_dlopen(const char *file, int mode)
{
    dlopen_fn real = (dlopen_fn)scope__next(SCOPE__NEXT_DLOPEN);
    return real ? real(file, mode) : NULL;
}

void *scope__real_dlmopen(Lmid_t lmid, const char *file, int mode)
{
    dlmopen_fn real = (dlmopen_fn)scope__next(SCOPE__NEXT_DLMOPEN);
    return real ? real(lmid, file, mode) : NULL;
}

int scope__real_dlclose(void *handle)
{
    dlclose_fn real = (dlclose_fn)scope__next(SCOPE__NEXT_DLCLOSE);
    return real ? real(handle) : -1;
}
