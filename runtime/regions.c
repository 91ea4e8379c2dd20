/*
 * regions.c - the region name table: names to dense ids and back.
 *
 * Ids are dense so the writer can keep per-region state in plain arrays and
 * the hot path can store an id in 31 bits. The hash table maps names to ids
 * with linear probing and doubles at half load.
 */
#include "regions.h"

#include <stdlib.h>
#include <string.h>

#include "scope_error.h"

#define MAX_REGIONS (1u << 30)

static struct scope__region *regions;   /* by id */
static uint32_t n_regions, cap_regions;
static int32_t *slots;                  /* hash slots: id or -1 */
static uint32_t n_slots;                /* power of two */

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static int grow_slots(void)
{
    uint32_t n = n_slots ? n_slots * 2 : 64;
    int32_t *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return SCOPE_ENOMEM;
    memset(s, 0xff, (size_t)n * sizeof *s);
    for (uint32_t id = 0; id < n_regions; id++) {
        uint64_t i = hash_name(regions[id].name) & (n - 1);
        while (s[i] >= 0)
            i = (i + 1) & (n - 1);
        s[i] = (int32_t)id;
    }
    free(slots);
    slots = s;
    n_slots = n;
    return 0;
}

static char *dup_or_null(const char *s)
{
    return s && *s ? strdup(s) : NULL;
}

int32_t scope__regions_intern(const char *name, int kind, const char *symbol,
                              const char *object, int *created)
{
    *created = 0;
    if (!name || !*name)
        return SCOPE_EINVAL;
    if (strnlen(name, SCOPE_NAME_MAX + 1) > SCOPE_NAME_MAX)
        return SCOPE_ELIMIT;
    if (n_slots) {
        uint64_t i = hash_name(name) & (n_slots - 1);
        while (slots[i] >= 0) {
            if (strcmp(regions[slots[i]].name, name) == 0)
                return slots[i];
            i = (i + 1) & (n_slots - 1);
        }
    }
    if (n_regions >= MAX_REGIONS)
        return SCOPE_ELIMIT;
    if ((n_regions + 1) * 2 > n_slots && grow_slots() < 0)
        return SCOPE_ENOMEM;
    if (n_regions == cap_regions) {
        uint32_t cap = cap_regions ? cap_regions * 2 : 64;
        struct scope__region *r = realloc(regions, (size_t)cap * sizeof *r);
        if (!r)
            return SCOPE_ENOMEM;
        regions = r;
        cap_regions = cap;
    }
    struct scope__region *r = &regions[n_regions];
    r->name = strdup(name);
    r->symbol = dup_or_null(symbol);
    r->object = dup_or_null(object);
    r->kind = kind;
    if (!r->name || (symbol && *symbol && !r->symbol) || (object && *object && !r->object))
        goto fail_copy;
    uint64_t i = hash_name(name) & (n_slots - 1);
    while (slots[i] >= 0)
        i = (i + 1) & (n_slots - 1);
    slots[i] = (int32_t)n_regions;
    *created = 1;
    return (int32_t)n_regions++;

fail_copy:
    free(r->name);
    free(r->symbol);
    free(r->object);
    return SCOPE_ENOMEM;
}

const struct scope__region *scope__regions_get(int32_t id)
{
    if (id < 0 || (uint32_t)id >= n_regions)
        return NULL;
    return &regions[id];
}

uint32_t scope__regions_count(void)
{
    return n_regions;
}

