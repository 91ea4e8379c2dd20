/*
 * symbol_index.c - per-object name index and compiled name patterns, so
 * that matching a config against the loaded objects costs one pass over
 * the symbols, not one pass per entry (symbol_index.h).
 *
 * Exact mangled names are found through an open-addressing hash table of
 * the symbol indices. Demangled names are computed lazily, once per
 * symbol, and only for symbols a demangled test is still needed for.
 *
 * Rejecting without demangling. A glob is tested against the demangled
 * name of every mangled symbol, and __cxa_demangle costs microseconds: for
 * a process with libstdc++ and a large C++ library loaded that is most of
 * start-up. A demangled name is printed from the mangled one, and every
 * identifier in it (a namespace, class, function or template argument name:
 * a <source-name>) is spelled out literally in the mangled name at its
 * first use (later uses are substitutions of something already spelled).
 * The rest of a demangled name is the demangler's own vocabulary: builtin
 * types, "std::" abbreviations, "vtable for", "(anonymous namespace)",
 * "{lambda(...)#1}", "TLS init function for", "_Float16", "_Accum", ...
 * Every uppercase letter in that vocabulary is one of A B C D F G I J L N
 * O S T V. So a run of identifier characters in a pattern's literal text
 * that contains another uppercase letter (E H K M P Q R U W X Y Z) can only
 * come from a source name, and a demangled name that matches the pattern
 * comes from a mangled name that contains the run. `LAMMPS_NS::*` requires
 * "LAMMPS_NS", `MPI_*` "MPI_": symbols without it are never demangled.
 * Words without such a letter are not used (a lowercase word may be
 * vocabulary: "int", "std"), which only makes the filter weaker, never
 * wrong. For the mangled-name test, a glob's literal prefix is compared
 * before fnmatch runs.
 */
#include "symbol_index.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "scope_error.h"

static uint32_t hash_name(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;         /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (uint32_t)(h ^ (h >> 32));
}

int scope__symindex_build(struct scope__symindex *x, const struct scope__object *o)
{
    memset(x, 0, sizeof *x);
    x->o = o;
    size_t n = o->n_syms;
    if (n > UINT32_MAX - 1)
        return SCOPE_ENOMEM;
    size_t slots = 16;
    while (slots < 2 * n)
        slots *= 2;
    x->slots = calloc(slots, sizeof *x->slots);
    x->hash = calloc(n ? n : 1, sizeof *x->hash);
    if (!x->slots || !x->hash)
        goto fail_alloc;
    x->mask = slots - 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t h = hash_name(o->syms[i].name);
        x->hash[i] = h;
        size_t s = h & x->mask;
        while (x->slots[s])
            s = (s + 1) & x->mask;
        x->slots[s] = (uint32_t)i + 1;
    }
    return 0;

fail_alloc:
    free(x->slots);
    free(x->hash);
    memset(x, 0, sizeof *x);
    return SCOPE_ENOMEM;
}

void scope__symindex_free(struct scope__symindex *x)
{
    if (x->dem)
        for (size_t i = 0; i < x->o->n_syms; i++)
            free(x->dem[i]);
    free(x->dem);
    free(x->dem_state);
    free(x->slots);
    free(x->hash);
    memset(x, 0, sizeof *x);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

size_t scope__symindex_lookup(const struct scope__symindex *x, const char *name,
                              uint32_t *out, size_t cap)
{
    if (!x->slots)
        return 0;
    uint32_t h = hash_name(name);
    size_t n = 0;
    for (size_t s = h & x->mask; x->slots[s]; s = (s + 1) & x->mask) {
        uint32_t i = x->slots[s] - 1;
        if (x->hash[i] != h || strcmp(x->o->syms[i].name, name) != 0)
            continue;
        if (n < cap)
            out[n] = i;
        n++;
    }
    /* probing order is not symbol order; callers see symbol order, as a
     * scan would give */
    qsort(out, n < cap ? n : cap, sizeof *out, cmp_u32);
    return n;
}

const char *scope__symindex_demangled(struct scope__symindex *x, size_t i)
{
    size_t n = x->o->n_syms;
    if (i >= n)
        return NULL;
    if (!x->dem_state) {
        if (!scope__demangler_available())
            return NULL;
        x->dem = calloc(n, sizeof *x->dem);
        x->dem_state = calloc(n, 1);
        if (!x->dem || !x->dem_state) {
            free(x->dem);
            free(x->dem_state);
            x->dem = NULL;
            x->dem_state = NULL;
            return NULL;
        }
    }
    if (!x->dem_state[i]) {
        x->dem_state[i] = 1;
        if (strncmp(x->o->syms[i].name, "_Z", 2) == 0) {
            x->dem[i] = scope__demangle(x->o->syms[i].name);
            x->n_demangled++;
        }
    }
    return x->dem[i];
}

/* ---------------------------------------------------------------- patterns */

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* An uppercase letter the demangler never prints on its own (file comment). */
static int source_only_upper(char c)
{
    switch (c) {
    case 'E': case 'H': case 'K': case 'M': case 'P': case 'Q':
    case 'R': case 'U': case 'W': case 'X': case 'Y': case 'Z':
        return 1;
    default:
        return 0;
    }
}

static int add_word(struct scope__namepat *np, const char *w, size_t len)
{
    int needed = 0;
    for (size_t i = 0; i < len; i++)
        needed |= source_only_upper(w[i]);
    if (!needed)
        return 0;
    char **words = realloc(np->words, (np->n_words + 1) * sizeof *words);
    if (!words)
        return SCOPE_ENOMEM;
    np->words = words;
    if (!(words[np->n_words] = strndup(w, len)))
        return SCOPE_ENOMEM;
    np->n_words++;
    return 0;
}

/* Literal runs of identifier characters in `p`, outside wildcards and
 * bracket expressions (a glob) or anywhere (an exact name). An escaped
 * character ends a run: splitting a run only drops letters from what is
 * required, so it stays a necessary condition. */
static int collect_words(struct scope__namepat *np, const char *p, int is_glob)
{
    const char *start = NULL;
    for (;; p++) {
        int lit = *p && ident_char(*p);
        if (is_glob && (*p == '*' || *p == '?' || *p == '[' || *p == '\\'))
            lit = 0;
        if (lit) {
            if (!start)
                start = p;
            continue;
        }
        if (start && add_word(np, start, (size_t)(p - start)) < 0)
            return SCOPE_ENOMEM;
        start = NULL;
        if (!*p)
            return 0;
        if (!is_glob)
            continue;
        if (*p == '\\' && p[1])
            p++;                                /* skip the escaped character */
        else if (*p == '[') {                   /* skip the bracket expression */
            const char *q = p + 1;
            if (*q == '!' || *q == '^')
                q++;
            if (*q == ']')
                q++;
            while (*q && *q != ']')
                q++;
            if (*q)
                p = q;                          /* else: a literal '[' */
        }
    }
}

int scope__namepat_compile(struct scope__namepat *np, const char *pattern, int is_glob,
                           int demangled_only)
{
    memset(np, 0, sizeof *np);
    np->pattern = pattern;
    np->is_glob = is_glob;
    np->demangled_only = demangled_only;
    if (is_glob)
        np->prefix_len = strcspn(pattern, "*?[\\");
    /* only a demangled match tests the words, and an exact mangled name
     * has none: a config's ~530 exact names (the I/O calls) skip this */
    if ((is_glob || demangled_only) && collect_words(np, pattern, is_glob) < 0) {
        scope__namepat_free(np);
        return SCOPE_ENOMEM;
    }
    return 0;
}

void scope__namepat_free(struct scope__namepat *np)
{
    for (size_t i = 0; i < np->n_words; i++)
        free(np->words[i]);
    free(np->words);
    np->words = NULL;
    np->n_words = 0;
}

/* Whether the mangled name could demangle to something np matches. */
static int may_demangle_to(const struct scope__namepat *np, const char *mangled)
{
    if (strncmp(mangled, "_Z", 2) != 0)
        return 0;
    for (size_t k = 0; k < np->n_words; k++)
        if (!strstr(mangled, np->words[k]))
            return 0;
    return 1;
}

int scope__namepat_match(const struct scope__namepat *np, struct scope__symindex *x, size_t i)
{
    const char *mangled = x->o->syms[i].name;
    if (np->is_glob) {
        if (!np->demangled_only && strncmp(mangled, np->pattern, np->prefix_len) == 0 &&
            fnmatch(np->pattern, mangled, 0) == 0)
            return 1;
        if (!may_demangle_to(np, mangled))
            return 0;
        const char *d = scope__symindex_demangled(x, i);
        return d && fnmatch(np->pattern, d, 0) == 0;
    }
    if (!np->demangled_only)
        return strcmp(np->pattern, mangled) == 0;
    if (!may_demangle_to(np, mangled))
        return 0;
    const char *d = scope__symindex_demangled(x, i);
    return d && strcmp(np->pattern, d) == 0;
}

/* ------------------------------------------------------------- suggestions */

size_t scope__edit_distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 200 || lb > 200 || (la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    size_t row[201];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0], best = row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (tolower((unsigned char)a[i - 1]) !=
                                 tolower((unsigned char)b[j - 1]));
            size_t v = sub;
            if (row[j] + 1 < v) v = row[j] + 1;
            if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
            row[j] = v;
            prev = cur;
            if (v < best) best = v;
        }
        if (best > limit)
            return limit + 1;
    }
    return row[lb];
}
