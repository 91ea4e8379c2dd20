/*
 * symbol_index.h - the per-object index the engine matches config entries
 * against (symbol_index.c): a hash table of the mangled names, demangled
 * names computed once per symbol and only when a pattern needs them, and
 * compiled name patterns that reject most symbols with a cheap literal
 * test before fnmatch or the demangler run.
 *
 * It exists so that start-up costs what is matched and patched, not
 * (entries x symbols x demangling): an exact name is one hash lookup, and
 * every glob is tested against each symbol in one pass (interpose.c).
 */
#ifndef SCOPE_SYMBOL_INDEX_H
#define SCOPE_SYMBOL_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "symbols.h"

struct scope__symindex {
    const struct scope__object *o;
    uint32_t *slots;            /* open addressing: symbol index + 1, 0 = empty */
    size_t mask;                /* number of slots - 1 (a power of two) */
    uint32_t *hash;             /* per symbol: hash of its mangled name */
    char **dem;                 /* per symbol: demangled name, or NULL */
    uint8_t *dem_state;         /* per symbol: 1 once dem[i] was computed */
    size_t n_demangled;         /* demangler calls made (for the verbose line) */
};

/* Builds the name index of `o` (which must outlive it). Returns 0 or
 * SCOPE_ENOMEM. Cost: one hash per symbol; no demangling. */
int scope__symindex_build(struct scope__symindex *x, const struct scope__object *o);

/* Releases the index and the demangled names it computed. */
void scope__symindex_free(struct scope__symindex *x);

/* Indices of the symbols whose mangled name is exactly `name`, ascending,
 * written to out[0..cap). Returns how many there are (may exceed cap).
 * Cost: one hash and a short probe. */
size_t scope__symindex_lookup(const struct scope__symindex *x, const char *name,
                              uint32_t *out, size_t cap);

/* The demangled name of symbol i, or NULL when it is not a mangled C++
 * name or no demangler is loaded. Demangles on the first call for i only. */
const char *scope__symindex_demangled(struct scope__symindex *x, size_t i);

/* A name pattern of a config entry, compiled for fast rejection. */
struct scope__namepat {
    const char *pattern;        /* fnmatch pattern (glob) or exact name */
    int is_glob;
    int demangled_only;         /* the entry is a C++ demangled name */
    size_t prefix_len;          /* glob: literal characters before the first
                                   wildcard, which a mangled match must start with */
    char **words;               /* literal words every demangled match's
                                   mangled name contains (see symbol_index.c);
                                   none for an exact mangled name */
    size_t n_words;
};

/* Compiles `pattern` (kept by pointer: it must outlive np). Returns 0 or
 * SCOPE_ENOMEM. */
int scope__namepat_compile(struct scope__namepat *np, const char *pattern, int is_glob,
                           int demangled_only);

void scope__namepat_free(struct scope__namepat *np);

/* 1 when symbol i of x matches np by the engine's rules (docs/
 * interposition.md): an exact pattern equals the mangled name, or the
 * demangled one for a C++ demangled entry; a glob matches the mangled name
 * (unless demangled_only) or the demangled name. Same answer as testing
 * every name with strcmp/fnmatch; demangles only symbols that pass the
 * literal-word test. */
int scope__namepat_match(const struct scope__namepat *np, struct scope__symindex *x, size_t i);

/* Case-insensitive edit distance between a and b, or limit + 1 as soon as
 * it must exceed limit (the "did you mean" of an unmatched name). Cost:
 * O(len(a) x len(b)), names over 200 characters are never close. */
size_t scope__edit_distance(const char *a, const char *b, size_t limit);

#endif /* SCOPE_SYMBOL_INDEX_H */
