/*
 * symbol_next.h - the one place the preload asks for "the next definition"
 * of a symbol (symbol_next.c): the general lookups, a cached one for the
 * tables of names a capture defines and forwards (the MPI lifecycle calls,
 * mpi_intercept.c), and the table of the names the engine itself defines
 * and forwards (its hooks: longjmp & co, dlopen & co), each looked up
 * once. The PMPI functions the MPI capture calls for its own work have
 * their table in pmpi.h, built on these lookups.
 */
#ifndef SCOPE_SYMBOL_NEXT_H
#define SCOPE_SYMBOL_NEXT_H

#include <dlfcn.h>

/* Returns the next definition of function or object `name` after this
 * preload: dlsym(RTLD_NEXT) first, then the objects of the link map that
 * are not in the global scope (mpi4py opens libmpi with RTLD_LOCAL, where
 * RTLD_NEXT cannot see it), those whose base name starts with `first`
 * first (NULL: in the link map's order). Never returns a symbol of the
 * preload itself. NULL when no other object defines `name`. May take the
 * loader's lock: call it outside signal handlers, cache the result. */
void *scope__next_symbol(const char *name, const char *first);

/* Like scope__next_symbol, but looks in the global scope first, executable
 * included (dlsym(RTLD_DEFAULT)): for data objects such as Open MPI's
 * ompi_mpi_comm_world, of which an executable may hold a copy relocation
 * that is then the one address everybody uses. */
void *scope__global_symbol(const char *name, const char *first);

/* scope__next_symbol(name, first), looked up once: *cache keeps what was
 * found (NULL until then: looked up again at the next call, as libmpi or
 * libstdc++ may be loaded later). Cost: one atomic load once found.
 * Thread-safe: concurrent first calls store the same value. */
void *scope__next_cached(void **cache, const char *name, const char *first);

/* Path of the object that contains `addr` (the executable's path when it is
 * the main program), or NULL. The string belongs to the loader. */
const char *scope__object_of(const void *addr);

/* The names the engine defines and forwards to their next definition.
 * The order is the table's in symbol_next.c. */
enum scope__next_id {
    /* dlopen_hook.c; looked up in libc's scope alone (symbol_next.c) */
    SCOPE__NEXT_DLOPEN,
    SCOPE__NEXT_DLMOPEN,
    SCOPE__NEXT_DLCLOSE,
    /* unwind_hooks.c */
    SCOPE__NEXT_LONGJMP,
    SCOPE__NEXT__LONGJMP,
    SCOPE__NEXT_SIGLONGJMP,
    SCOPE__NEXT_LONGJMP_CHK,
    SCOPE__NEXT_CXA_THROW,
    SCOPE__NEXT_CXA_RETHROW,
    SCOPE__NEXT_RETHROW_EXCEPTION,
    SCOPE__NEXT_CXA_BEGIN_CATCH,
    SCOPE__NEXT_PTHREAD_EXIT,
    SCOPE__NEXT_BACKTRACE,
    SCOPE__NEXT_COUNT
};

/* Returns the next definition of the name `id` stands for, cast by the
 * caller to the function's type; NULL while no other object defines it
 * (looked up again at the next call: libstdc++ may be loaded later).
 * Cost: one atomic load once found; the first call looks the name up (may
 * take the loader's lock, so resolve early what a signal handler may
 * need). Thread-safe: concurrent first calls store the same value. */
void *scope__next(enum scope__next_id id);

/* The real dlopen, dlmopen and dlclose, for the preload's own loads
 * (libunwind, libstdc++'s demangler, RTLD_NOLOAD lookups): they never go
 * through the preload's hooks (dlopen_hook.c), so the engine never looks
 * for functions to instrument in what the preload opens for itself.
 * Same contracts as dlopen(3) & co; dlopen returns NULL (dlerror() then
 * says nothing new) if libc's cannot be found, which cannot happen in a
 * process that loaded the preload. */
void *scope__real_dlopen(const char *file, int mode);
void *scope__real_dlmopen(Lmid_t lmid, const char *file, int mode);
int scope__real_dlclose(void *handle);

#endif /* SCOPE_SYMBOL_NEXT_H */
