/*
 * unpatchable.h - the functions no entry patch and no GOT stub may time,
 * whatever the config says: those whose behaviour depends on their own
 * return address being the caller's (unpatchable.c says which and why).
 */
#ifndef SCOPE_UNPATCHABLE_H
#define SCOPE_UNPATCHABLE_H

#include <stddef.h>

#include "symbols.h"

/* Why the function at `addr` in `o` cannot be timed, judged by every name
 * the object gives that address (an alias such as __vfork or
 * __libunwind_Unwind_Resume counts as the function itself), or NULL when
 * it can. The reason is a static string. Cost: a binary search over the
 * object's symbols (sorted by address) and a few string compares per
 * name at that address. */
const char *scope__unpatchable(const struct scope__object *o, uintptr_t addr);

/* The same judgement for one name; NULL when the name is not one of them.
 * For tests and for the loops above. */
const char *scope__unpatchable_name(const char *name);

#endif
