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
 * never loads anything new. libmpi.so* is tried first so the answer does
 * not depend on load order when several objects define the name.
 *
 * The preload never links libmpi, so none of this may use an MPI symbol
 * directly: everything goes through dlsym.
 */
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <string.h>

#include "preload_state.h"
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
    void *handle = dlopen(object, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == NULL)
        return NULL;
    void *sym = dlsym(handle, name);
    dlclose(handle); /* balances the reference RTLD_NOLOAD took */
    return scope__is_own_address(sym) ? NULL : sym;
}

/* Walks the link map: libmpi.so* first, then every other object. */
static void *lookup_link_map(const char *name)
{
    object_list list; /* 2 KiB of stack; a local keeps concurrent callers apart */
    list.n = 0;
    dl_iterate_phdr(collect_object, &list);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < list.n; i++) {
            int is_mpi = strncmp(base_name(list.names[i]), "libmpi.so", 9) == 0;
            if (is_mpi != (pass == 0))
                continue;
            void *sym = lookup_in(list.names[i], name);
            if (sym != NULL)
                return sym;
        }
    }
    return NULL;
}

void *scope__next_symbol(const char *name)
{
    void *sym = dlsym(RTLD_NEXT, name);
    if (sym != NULL && !scope__is_own_address(sym))
        return sym;
    return lookup_link_map(name);
}

void *scope__global_symbol(const char *name)
{
    void *sym = dlsym(RTLD_DEFAULT, name);
    if (sym != NULL && !scope__is_own_address(sym))
        return sym;
    return lookup_link_map(name);
}

const char *scope__object_of(const void *addr)
{
    Dl_info info;
    if (addr == NULL || dladdr(addr, &info) == 0)
        return NULL;
    return info.dli_fname;
}
