/*
 * got.h - GOT-slot rewriting, the fallback instrumentation method for
 * library functions whose entry cannot be patched (see got.c).
 */
#ifndef SCOPE_GOT_H
#define SCOPE_GOT_H

#include <stddef.h>
#include <stdint.h>

/* Starts a batch of redirections: the relocations of the loaded objects are
 * read (on the first redirect of the batch) into one index that every
 * redirect of the batch uses, so their cost is one read of each object's
 * relocations plus a hash lookup per function. Call scope__got_end() when
 * the batch is over (objects may be loaded or unloaded after it). */
void scope__got_begin(void);

/* Ends the batch and frees the index. */
void scope__got_end(void);

/* Points every GOT slot of every loaded object (except the preload) that
 * imports `name` and leads to `target` at `stub`. Returns the number of
 * slots written (0: nobody imports it), or SCOPE_EACCES when every write
 * failed. Cost: a hash lookup within a batch; outside one, a read of every
 * loaded object's relocations. */
int scope__got_redirect(const char *name, uintptr_t target, uintptr_t stub);

/* A function timed through the GOT: its name, definition and stub. */
struct scope__got_fn {
    char *name;
    uintptr_t target, stub;
};

/* After a dlopen: points the GOT slots of the newly loaded objects (those
 * whose load bias is in new_bias[0..n_new)) that import one of fns[0..n)
 * and lead to its definition at its stub. Objects loaded before were done
 * when each function was redirected. Returns the slots written. Cost: one
 * pass over the new objects' relocations, a hash lookup each. */
int scope__got_redirect_new(const struct scope__got_fn *fns, size_t n,
                            const uintptr_t *new_bias, size_t n_new);

#endif /* SCOPE_GOT_H */
