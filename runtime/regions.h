/*
 * regions.h - region names to dense integer ids (internal to the runtime).
 *
 * Interning happens once per region, under the recorder's lock, so this is
 * a plain open-addressing hash table with no locking of its own.
 */
#ifndef SCOPE_REGIONS_H
#define SCOPE_REGIONS_H

#include <stdint.h>

#define SCOPE_NAME_MAX 65536 /* bytes of a region name, NUL excluded */

struct scope__region {
    char *name;
    char *symbol;   /* may be NULL */
    char *object;   /* may be NULL */
    int kind;
};

/* Returns the id of `name`, adding it with the given attributes when new
 * (*created set to 1). Caller holds the recorder lock. Negative SCOPE_E* on
 * failure (ENOMEM, ELIMIT for too many regions or a too long name).
 * Cost: O(length of name) expected. */
int32_t scope__regions_intern(const char *name, int kind, const char *symbol,
                              const char *object, int *created);

/* The region with id `id`, or NULL. Caller holds the lock. */
const struct scope__region *scope__regions_get(int32_t id);

uint32_t scope__regions_count(void);

#endif /* SCOPE_REGIONS_H */
