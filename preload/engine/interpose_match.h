/*
 * interpose_match.h - what the interposition engine's driver (interpose.c)
 * and its matching half (interpose_match.c) share: a loaded object as the
 * engine holds it, a matched function, and the matching calls. Internal
 * to the preload.
 */
#ifndef SCOPE_INTERPOSE_MATCH_H
#define SCOPE_INTERPOSE_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "object_filter.h"
#include "scope_config.h"
#include "symbol_index.h"
#include "symbols.h"

/* A loaded object the engine read: its symbols and their index. */
struct loaded {
    struct scope__object o;
    struct scope__symindex ix;  /* name hash and demangled names (lazy) */
    uintptr_t *max_end;         /* per symbol: the highest end of it and
                                   the symbols before it (lazy, interpose.c) */
};

/* One function an entry matched. */
struct match {
    const struct scope__sym *sym;
    struct loaded *obj;
    uintptr_t addr;             /* after IFUNC resolution */
    uint64_t size;
};

/* One symbol a pattern matched: object and symbol index. */
struct hit {
    uint32_t obj, sym;
};

struct hits {
    struct hit *v;
    size_t n, cap;
};

/* The demangled name of symbol i of l, or NULL (computed once, cached). */
static inline const char *scope__loaded_demangled(struct loaded *l, size_t i)
{
    return scope__symindex_demangled(&l->ix, i);
}

/* 1 when entry e may name functions of object o (its object qualifier). */
static inline int scope__loaded_named(const scope_config_entry *e, const struct scope__object *o)
{
    return scope__entry_names_object(e, o->path, o->base, o->soname);
}

/* Appends symbol i of l to *out as a match, an IFUNC resolved to the
 * implementation this CPU gets. Returns 1, or 0 when out of memory. */
int scope__match_add(struct loaded *l, size_t i, struct match **out, size_t *n_out);

/* Each entry of cfg's name pattern, compiled once for every later
 * scope__match_entries (the startup's and each dlopen's): a malloc'd
 * array of cfg->n_entries, kept for the process's life; NULL when out of
 * memory. Cost: one parse per entry. */
struct scope__namepat *scope__match_compile(const scope_config *cfg);

/* Matches every entry of cfg (np: their compiled patterns,
 * scope__match_compile) against objs[0..n_objs) in one pass per object:
 * h[k] gets entry k's hits in object order, then symbol order. Returns 0
 * or SCOPE_ENOMEM. Cost: a hash lookup per exact mangled name and object;
 * one test per symbol for the other entries; no pattern parsed. */
int scope__match_entries(const scope_config *cfg, const struct scope__namepat *np,
                         struct loaded *objs, size_t n_objs, struct hits *h);

/* The Fortran rule's second look for an exact, plain-identifier entry
 * that matched nothing (lowercase + "_", "__<module>_MOD_<lowercase>"):
 * appends what it finds to *out. Returns how many. */
size_t scope__match_fortran(const scope_config_entry *e, struct loaded *objs, size_t n_objs,
                            struct match **out, size_t *n_out);

/* "did you mean: a, b, c" into buf for an exact pattern that matched
 * nothing ("" when nothing is close). Cost: an edit distance per symbol. */
void scope__match_suggest(const scope_config_entry *e, struct loaded *objs, size_t n_objs,
                          char *buf, size_t len);

#endif
