/*
 * interpose_match.c - which functions of the loaded objects each config
 * entry names: the matching half of the interposition engine, apart from
 * the driver (interpose.c) that reads objects, patches and reports.
 *
 * An exact mangled name is a hash lookup in the object's symbol index; the
 * other entries (globs, C++ demangled names) are tested against each
 * symbol in one pass per object, demangling a symbol at most once. An
 * IFUNC is resolved to the implementation this CPU gets. The Fortran rule
 * and the "did you mean" of an entry that matched nothing live here too.
 */
#include "interpose_match.h"

#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "scope_config.h"
#include "symbol_next.h"

/* The implementation an IFUNC resolver picks on this CPU. */
static uintptr_t resolve_ifunc(const struct scope__object *o, const struct scope__sym *s)
{
    if (s->bind != STB_LOCAL) {
        void *h = scope__real_dlopen(o->is_main ? NULL : o->path, RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            void *p = dlsym(h, s->name);
            scope__real_dlclose(h);
            if (p)
                return (uintptr_t)p;
        }
    }
    typedef uintptr_t (*resolver)(unsigned long, unsigned long);
    return ((resolver)s->addr)(getauxval(AT_HWCAP), getauxval(AT_HWCAP2));
}

/* Appends symbol i of l to *out as a match, an IFUNC resolved to the
 * implementation this CPU gets. Returns 1, or 0 when out of memory. */
int scope__match_add(struct loaded *l, size_t i, struct match **out, size_t *n_out)
{
    struct match *m = realloc(*out, (*n_out + 1) * sizeof *m);
    if (!m)
        return 0;
    *out = m;
    const struct scope__sym *s = &l->o.syms[i];
    m[*n_out] = (struct match){ s, l, s->addr, s->size };
    if (s->ifunc) {
        uintptr_t impl = resolve_ifunc(&l->o, s);
        const struct scope__sym *is = scope__object_find(&l->o, impl);
        m[*n_out].addr = impl;
        m[*n_out].size = is && is->addr == impl ? is->size : 0;
    }
    (*n_out)++;
    return 1;
}

static int hits_add(struct hits *h, size_t obj, size_t sym)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 16;
        struct hit *v = realloc(h->v, cap * sizeof *v);
        if (!v)
            return 0;
        h->v = v;
        h->cap = cap;
    }
    h->v[h->n++] = (struct hit){ (uint32_t)obj, (uint32_t)sym };
    return 1;
}

/* The symbols of object k whose mangled name is `name`, in symbol order. */
static void lookup_exact(struct loaded *objs, size_t k, const char *name, struct hits *h)
{
    uint32_t few[16];
    uint32_t *idx = few;
    size_t n = scope__symindex_lookup(&objs[k].ix, name, few, 16);
    if (n > 16) {                       /* one name defined many times: rare */
        idx = malloc(n * sizeof *idx);
        if (!idx)
            return;
        scope__symindex_lookup(&objs[k].ix, name, idx, n);
    }
    for (size_t j = 0; j < n; j++)
        if (!hits_add(h, k, idx[j]))
            break;
    if (idx != few)
        free(idx);
}

struct scope__namepat *scope__match_compile(const scope_config *cfg)
{
    size_t n = cfg->n_entries;
    struct scope__namepat *np = calloc(n ? n : 1, sizeof *np);
    for (size_t k = 0; np && k < n; k++) {
        const scope_config_entry *e = &cfg->entries[k];
        if (scope__namepat_compile(&np[k], e->pattern, e->is_glob, e->demangled) < 0) {
            while (k-- > 0)
                scope__namepat_free(&np[k]);
            free(np);
            return NULL;
        }
    }
    return np;
}

/* Matches every entry against the objects in one pass per object: an
 * exact mangled name is a hash lookup; the other entries (globs, C++
 * demangled names) are tested against each symbol in turn, which demangles
 * a symbol at most once and only when some pattern needs it. h[k] gets
 * entry k's hits in object order, then symbol order (what a scan per entry
 * gives). Returns 0 or SCOPE_ENOMEM. */
int scope__match_entries(const scope_config *cfg, const struct scope__namepat *np,
                         struct loaded *objs, size_t n_objs, struct hits *h)
{
    size_t n = cfg->n_entries;
    size_t *scan = calloc(n ? n : 1, sizeof *scan);     /* entries tested symbol by symbol */
    if (!np || !scan) {
        free(scan);
        return SCOPE_ENOMEM;
    }
    for (size_t o = 0; o < n_objs; o++) {
        size_t n_scan = 0;
        for (size_t k = 0; k < n; k++) {
            const scope_config_entry *e = &cfg->entries[k];
            if (!scope__loaded_named(e, &objs[o].o))
                continue;
            if (e->is_glob || e->demangled)
                scan[n_scan++] = k;
            else
                lookup_exact(objs, o, e->pattern, &h[k]);
        }
        for (size_t i = 0; n_scan && i < objs[o].o.n_syms; i++)
            for (size_t j = 0; j < n_scan; j++)
                if (scope__namepat_match(&np[scan[j]], &objs[o].ix, i))
                    hits_add(&h[scan[j]], o, i);
    }
    free(scan);
    return 0;
}

/* The Fortran rule's second look for an exact, plain-identifier entry that
 * matched nothing: lowercase + "_" (an external procedure), then
 * "__<module>_MOD_<lowercase>" (a module procedure). */
size_t scope__match_fortran(const scope_config_entry *e, struct loaded *objs, size_t n_objs,
                            struct match **out, size_t *n_out)
{
    size_t len = strlen(e->pattern);
    if (len > 256)
        return 0;
    char low[300], glob[600];
    for (size_t i = 0; i <= len; i++)
        low[i] = (char)tolower((unsigned char)e->pattern[i]);
    snprintf(glob, sizeof glob, "%s_", low);
    struct hits h = { 0 };
    for (size_t k = 0; k < n_objs; k++)
        if (scope__loaded_named(e, &objs[k].o))
            lookup_exact(objs, k, glob, &h);
    snprintf(glob, sizeof glob, "__*_MOD_%s", low);
    struct scope__namepat np;
    if (scope__namepat_compile(&np, glob, 1, 0) == 0) {
        for (size_t k = 0; k < n_objs; k++) {
            if (!scope__loaded_named(e, &objs[k].o))
                continue;
            for (size_t i = 0; i < objs[k].o.n_syms; i++)
                if (scope__namepat_match(&np, &objs[k].ix, i))
                    hits_add(&h, k, i);
        }
        scope__namepat_free(&np);
    }
    size_t found = 0;
    for (size_t i = 0; i < h.n; i++)
        found += (size_t)scope__match_add(&objs[h.v[i].obj], h.v[i].sym, out, n_out);
    free(h.v);
    return found;
}

/* ------------------------------------------------------------- suggestions */

/* "did you mean: a, b, c" for an exact pattern that matched nothing. */
void scope__match_suggest(const scope_config_entry *e, struct loaded *objs, size_t n_objs,
                          char *buf, size_t len)
{
    buf[0] = 0;
    if (e->is_glob)
        return;
    size_t plen = strlen(e->pattern);
    size_t limit = plen < 8 ? 2 : plen / 4;
    const char *best[3] = { 0 };
    size_t bestd[3] = { (size_t)-1, (size_t)-1, (size_t)-1 };
    for (size_t k = 0; k < n_objs; k++) {
        for (size_t i = 0; i < objs[k].o.n_syms; i++) {
            const char *nm = objs[k].o.syms[i].name;
            if (e->demangled) {
                nm = strncmp(nm, "_Z", 2) == 0 ? scope__loaded_demangled(&objs[k], i) : NULL;
                if (!nm)
                    continue;
            }
            size_t d = scope__edit_distance(e->pattern, nm, limit);
            if (d > limit)
                continue;
            int dup = 0;
            for (int j = 0; j < 3; j++)
                if (best[j] && strcmp(best[j], nm) == 0)
                    dup = 1;
            if (dup)
                continue;
            for (int j = 0; j < 3; j++) {
                if (d < bestd[j]) {
                    for (int m = 2; m > j; m--) {
                        best[m] = best[m - 1];
                        bestd[m] = bestd[m - 1];
                    }
                    best[j] = nm;
                    bestd[j] = d;
                    break;
                }
            }
        }
    }
    if (!best[0])
        return;
    size_t off = (size_t)snprintf(buf, len, "did you mean: %s", best[0]);
    for (int j = 1; j < 3 && best[j] && off < len; j++)
        off += (size_t)snprintf(buf + off, len - off, ", %s", best[j]);
}
