/*
 * got.h - GOT-slot rewriting, the fallback instrumentation method for
 * library functions whose entry cannot be patched (see got.c).
 */
#ifndef SCOPE_GOT_H
#define SCOPE_GOT_H

#include <stdint.h>

/* Points every GOT slot of every loaded object (except the preload) that
 * imports `name` and leads to `target` at `stub`. Returns the number of
 * slots written (0: nobody imports it), or SCOPE_EACCES when every write
 * failed. Cost: reads each loaded object's relocations from its file. */
int scope__got_redirect(const char *name, uintptr_t target, uintptr_t stub);

#endif /* SCOPE_GOT_H */
