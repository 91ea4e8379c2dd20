/*
 * object_filter.c - skips the loaded objects that cannot define a function
 * the config names, before their symbol tables are read.
 *
 * Why: reading an object's symbols (libelf maps the file, the table is
 * copied, sorted and hashed, the mapping torn down) costs some hundreds of
 * microseconds on a busy VM, and an MPI rank has ~14 objects at start-up
 * and dlopens ~50 more in MPI_Init (Open MPI's components): with the
 * default `MPI_*` that was ~40 ms of CPU per rank, times every rank of
 * the job, for one library that matches. A name can only match if its
 * text is in the object's string table: an exact name is there whole, a
 * glob's mangled match starts with the glob's literal prefix (`MPI_`),
 * and a demangled match needs a mangled `_Z` name containing every word
 * the pattern requires (symbol_index.c explains the words). So an object
 * whose string table contains none of an entry's needles is skipped for
 * that entry, and for good when no entry is left.
 *
 * What is tested is the .dynstr the loader already mapped (no copy, no
 * file read), found through the section headers (two preads). When the
 * table holds a needle, the names of the symbols the object defines (its
 * mapped .dynsym) are tested one by one: a .dynstr also names what the
 * object imports, and a library built on MPI (liblammps.so: 25,000 symbols,
 * 8 ms to read) imports MPI_* without defining any. An object
 * with a .symtab (an unstripped program or library: file-local functions
 * are only there) is always read, as is one an entry's object qualifier
 * names (so that "matched nothing in libfoo.so" keeps meaning it was
 * looked at), or anything unusual (not a native 64-bit ELF, .dynstr not
 * in a readable loaded segment). The answer is a necessary condition only:
 * an object that passes is read and matched as before.
 *
 * The captures' own functions (capture.h `defaults`: the I/O capture's
 * 129 exact names of libc, libmpi and libhdf5) are not needles: each is
 * looked up in the object's mapped GNU hash table of defined dynamic
 * symbols (the one the loader's own lookups use: a bloom filter test, and
 * for the few names that pass, one bucket's chain), a few microseconds for
 * all of them per object, where a memmem each over liblammps.so's 500 KB
 * .dynstr would cost more than reading it. They have no Fortran rule and
 * no object qualifier (interpose.c), so "defines this exact name" is the
 * whole test. An object without a GNU hash table is read.
 *
 * A config with a glob that has no literal start (`*_solve`) or many
 * entries (a scan per needle would cost more than the read it saves)
 * gets no filter: every object is read, as before.
 */
#include "object_filter.h"

#include <ctype.h>
#include <elf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scope_error.h"
#include "symbol_index.h"

#define MAX_NEEDS 64        /* entries; beyond, the scans cost more than reads */
#define MAX_SECTIONS 4096   /* section headers read (256 KiB); beyond: read */

/* What one entry requires of a string table: one of alt[] (its mangled
 * match), or `_Z` and every word of np (its demangled match, when dem). */
struct need {
    const scope_config_entry *e;
    const char *alt[2];
    size_t alt_len[2];
    int n_alt;
    char *lower;                /* alt[1] when set: the Fortran rule's name */
    int dem;
    int word_is_alt;            /* words[0] is one of alt[] (`MPI_*`): without
                                   an alt, no demangled match either */
    struct scope__namepat np;   /* words */
};

struct scope__objfilter {
    struct need *v;
    size_t n;
    int any_qualified;          /* some entry names an object */
    const char **exact;         /* the captures' defaults: names looked up */
    uint32_t *exact_hash;       /* in the GNU hash table; their hashes */
    size_t n_exact;
    uint32_t *exact_slots;      /* k + 1 of exact[k], open addressing by hash */
    uint32_t exact_mask;        /* slots - 1 */
};

/* A capture's default entry (interpose.c: line -1, an exact name, no
 * object, no Fortran rule): tested by a hash lookup, not a scan. */
static int is_default(const scope_config_entry *e)
{
    return e->line < 0 && !e->is_glob && !e->demangled && !e->object;
}

/* The GNU hash of a symbol name (the loader's, DT_GNU_HASH). */
static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = h * 33 + *p;
    return h;
}

int scope__entry_names_object(const scope_config_entry *e, const char *path, const char *base,
                              const char *soname)
{
    if (!e->object)
        return 1;
    if (strchr(e->object, '/'))
        return e->object_is_glob ? fnmatch(e->object, path, 0) == 0
                                 : strcmp(e->object, path) == 0;
    if (e->object_is_glob)
        return fnmatch(e->object, base, 0) == 0 || (soname && fnmatch(e->object, soname, 0) == 0);
    return strcmp(e->object, base) == 0 || (soname && strcmp(e->object, soname) == 0);
}

int scope__plain_identifier(const char *p)
{
    if (!isalpha((unsigned char)*p) && *p != '_')
        return 0;
    for (; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return 0;
    return 1;
}

void scope__objfilter_free(struct scope__objfilter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].lower);
        scope__namepat_free(&f->v[i].np);
    }
    free(f->v);
    free(f->exact);
    free(f->exact_hash);
    free(f->exact_slots);
    free(f);
}

/* Fills *nd for entry e. Returns 1 when done, 0 when the entry can match
 * in any object (no filter), SCOPE_ENOMEM. */
static int compile_need(struct need *nd, const scope_config_entry *e)
{
    nd->e = e;
    if (scope__namepat_compile(&nd->np, e->pattern, e->is_glob, e->demangled) < 0)
        return SCOPE_ENOMEM;
    if (e->demangled) {                 /* only a demangled name can match */
        nd->dem = 1;
        return 1;
    }
    if (e->is_glob) {
        if (nd->np.prefix_len == 0)
            return 0;                   /* `*_solve`: anything may match */
        nd->alt[0] = e->pattern;
        nd->alt_len[0] = nd->np.prefix_len;
        nd->n_alt = 1;
        nd->dem = 1;                    /* a glob is tried on demangled names too */
        return 1;
    }
    nd->alt[0] = e->pattern;
    nd->alt_len[0] = strlen(e->pattern);
    nd->n_alt = 1;
    if (scope__plain_identifier(e->pattern)) {
        /* the Fortran rule: `Compute` also finds compute_ and
         * __mod_MOD_compute, which both contain "compute" */
        if (!(nd->lower = strdup(e->pattern)))
            return SCOPE_ENOMEM;
        for (char *p = nd->lower; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        if (strcmp(nd->lower, e->pattern) != 0) {
            nd->alt[1] = nd->lower;
            nd->alt_len[1] = nd->alt_len[0];
            nd->n_alt = 2;
        }
    }
    return 1;
}

int scope__objfilter_build(struct scope__objfilter **out, const scope_config *cfg)
{
    *out = NULL;
    size_t n_exact = 0;
    for (size_t k = 0; k < cfg->n_entries; k++)
        n_exact += (size_t)is_default(&cfg->entries[k]);
    size_t n_needs = cfg->n_entries - n_exact;
    if (cfg->n_entries == 0 || n_needs > MAX_NEEDS)
        return 0;
    struct scope__objfilter *f = calloc(1, sizeof *f);
    if (!f)
        return SCOPE_ENOMEM;
    if ((n_needs && !(f->v = calloc(n_needs, sizeof *f->v))) ||
        (n_exact && (!(f->exact = calloc(n_exact, sizeof *f->exact)) ||
                     !(f->exact_hash = calloc(n_exact, sizeof *f->exact_hash))))) {
        scope__objfilter_free(f);
        return SCOPE_ENOMEM;
    }
    size_t slots = 16;
    while (slots < 2 * n_exact)
        slots *= 2;
    if (n_exact && !(f->exact_slots = calloc(slots, sizeof *f->exact_slots))) {
        scope__objfilter_free(f);
        return SCOPE_ENOMEM;
    }
    f->exact_mask = (uint32_t)(slots - 1);
    for (size_t k = 0; k < cfg->n_entries; k++) {
        const scope_config_entry *e = &cfg->entries[k];
        if (is_default(e)) {
            uint32_t h = gnu_hash(e->pattern);
            /* by the hash with its lowest bit set, as a GNU hash table's
             * chain keeps it (the bit marks a chain's end): exact_name_of */
            uint32_t at = (h | 1) & f->exact_mask;
            while (f->exact_slots[at])
                at = (at + 1) & f->exact_mask;
            f->exact_slots[at] = (uint32_t)f->n_exact + 1;
            f->exact[f->n_exact] = e->pattern;
            f->exact_hash[f->n_exact++] = h;
            continue;
        }
        struct need *nd = &f->v[f->n];
        int rc = compile_need(nd, e);
        f->n++;                         /* freed with the others from now on */
        if (rc <= 0) {
            scope__objfilter_free(f);
            return rc;
        }
        for (int i = 0; nd->dem && nd->np.n_words && i < nd->n_alt; i++)
            nd->word_is_alt |= strlen(nd->np.words[0]) == nd->alt_len[i] &&
                               memcmp(nd->np.words[0], nd->alt[i], nd->alt_len[i]) == 0;
        f->any_qualified |= e->object != NULL;
    }
    *out = f;
    return 0;
}

static int has(const char *tab, size_t len, const char *needle, size_t n)
{
    return memmem(tab, len, needle, n) != NULL;
}

/* Whether the string table tab[0..len) can hold a name nd matches. */
static int need_met(const struct need *nd, const char *tab, size_t len)
{
    for (int i = 0; i < nd->n_alt; i++)
        if (has(tab, len, nd->alt[i], nd->alt_len[i]))
            return 1;
    if (!nd->dem || nd->word_is_alt || !has(tab, len, "_Z", 2))
        return 0;
    for (size_t w = 0; w < nd->np.n_words; w++)
        if (!has(tab, len, nd->np.words[w], strlen(nd->np.words[w])))
            return 0;
    return 1;
}

/* The loaded segment of info that holds [addr, addr+len) from the file
 * and is readable: 1 when there is one. */
static int mapped_readable(const struct dl_phdr_info *info, uintptr_t addr, size_t len)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && addr >= lo &&
            len <= ph->p_filesz && addr - lo <= ph->p_filesz - len)
            return 1;
    }
    return 0;
}

/* DT_SONAME of info, as an offset into its .dynstr, or -1. */
static long soname_offset(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_DYNAMIC)
            continue;
        const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        for (size_t k = 0; k < ph->p_memsz / sizeof *d && d[k].d_tag != DT_NULL; k++)
            if (d[k].d_tag == DT_SONAME)
                return (long)d[k].d_un.d_val;
    }
    return -1;
}

/* Ranges [lo, hi] of string-table offsets from which a name holds a key. */
struct holders {
    struct span { size_t lo, hi; } *v;
    size_t n, cap;
    int failed;                 /* out of memory: answer "may match" */
};

/* Adds, for each occurrence of `key` in tab[0..len), the offsets from the
 * start of the string holding it up to the key: a name starting there
 * holds the key. The occurrences are few (an import's name), so this is a
 * scan of the table at memmem's speed, not a pass over every symbol. */
static void add_holders(struct holders *h, const char *tab, size_t len, const char *key,
                        size_t klen)
{
    const char *p = tab, *end = tab + len, *q;
    while (!h->failed && p < end && (q = memmem(p, (size_t)(end - p), key, klen)) != NULL) {
        const char *s = q;
        while (s > tab && s[-1] != 0)
            s--;
        if (h->n == h->cap) {
            size_t cap = h->cap ? 2 * h->cap : 64;
            struct span *v = realloc(h->v, cap * sizeof *v);
            if (!v) {
                h->failed = 1;
                return;
            }
            h->v = v;
            h->cap = cap;
        }
        h->v[h->n++] = (struct span){ (size_t)(s - tab), (size_t)(q - tab) };
        p = q + 1;
    }
}

static int cmp_span(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Whether offset `at` lies in one of h's ranges (sorted and merged). */
static int held(const struct holders *h, size_t at)
{
    size_t lo = 0, hi = h->n;          /* the last range starting at or before at */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->v[mid].lo <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && at <= h->v[lo - 1].hi;
}

/* Whether a symbol the object defines (syms[0..n), names in tab[0..len))
 * has a name nd matches. A name nd matches holds one of its alternatives,
 * or (a demangled match) `_Z` and every word; the offsets from which a
 * name holds one of those keys are found first, and only the defined
 * symbols whose name starts at one are tested: liblammps.so's 16,000 in
 * well under a millisecond instead of 2. Returns 1 also when unsure (no
 * memory: the object is then read). */
static int defined_meets(const struct need *nd, const char *tab, size_t len,
                         const Elf64_Sym *syms, size_t n)
{
    struct holders h = { 0 };
    for (int i = 0; i < nd->n_alt; i++)
        add_holders(&h, tab, len, nd->alt[i], nd->alt_len[i]);
    if (nd->dem && !nd->word_is_alt) {
        const char *w = nd->np.n_words ? nd->np.words[0] : "_Z";
        add_holders(&h, tab, len, w, strlen(w));
    }
    if (h.failed) {
        free(h.v);
        return 1;
    }
    qsort(h.v, h.n, sizeof *h.v, cmp_span);
    size_t k = 0;                       /* merge overlaps: held() needs disjoint ranges */
    for (size_t i = 0; i < h.n; i++) {
        if (k > 0 && h.v[i].lo <= h.v[k - 1].hi + 1) {
            if (h.v[i].hi > h.v[k - 1].hi)
                h.v[k - 1].hi = h.v[i].hi;
        } else {
            h.v[k++] = h.v[i];
        }
    }
    h.n = k;
    int met = 0;
    for (size_t i = 0; i < n && !met && h.n; i++) {
        Elf64_Word at = syms[i].st_name;
        if (syms[i].st_shndx == SHN_UNDEF || at >= len || !held(&h, at))
            continue;
        met = need_met(nd, tab + at, strnlen(tab + at, len - at));
    }
    free(h.v);
    return met;
}

/* What of an object's dynamic symbols is mapped (find_dynstr): its
 * .dynstr, its .dynsym when plainly there (else NULL: only the string
 * table is tested) and its GNU hash table (else NULL: a capture's default
 * cannot be looked up, the object is read). */
struct dyn {
    const char *tab;
    size_t len;
    const Elf64_Sym *syms;
    size_t n_syms;
    const uint32_t *gnu;
    size_t gnu_words;
};

/* Fills *d for the object. Returns 1 when found, 0 when the object has no
 * dynamic symbols at all, -1 when it must be read (a .symtab, or anything
 * unclear). */
static int find_dynstr(const struct dl_phdr_info *info, const char *path, int is_main,
                       struct dyn *d)
{
    *d = (struct dyn){ 0 };
    int fd = open(is_main ? "/proc/self/exe" : path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = -1;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shentsize != sizeof *sh || eh.e_shnum == 0 || eh.e_shnum > MAX_SECTIONS)
        goto out;
    size_t bytes = (size_t)eh.e_shnum * sizeof *sh;
    if (!(sh = malloc(bytes)) || pread(fd, sh, bytes, (off_t)eh.e_shoff) != (ssize_t)bytes)
        goto out;
    int dynsym = -1, gnu = -1;
    for (int i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_type == SHT_SYMTAB)
            goto out;                   /* file-local functions: read it */
        if (sh[i].sh_type == SHT_DYNSYM && dynsym < 0)
            dynsym = i;
        if (sh[i].sh_type == SHT_GNU_HASH && gnu < 0)
            gnu = i;
    }
    if (dynsym < 0) {
        rc = 0;                         /* no symbols: nothing can match */
        goto out;
    }
    Elf64_Word link = sh[dynsym].sh_link;
    if (link >= eh.e_shnum || sh[link].sh_type != SHT_STRTAB || !(sh[link].sh_flags & SHF_ALLOC))
        goto out;
    uintptr_t addr = info->dlpi_addr + sh[link].sh_addr;
    if (!mapped_readable(info, addr, sh[link].sh_size))
        goto out;
    d->tab = (const char *)addr;
    d->len = sh[link].sh_size;
    uintptr_t sym_addr = info->dlpi_addr + sh[dynsym].sh_addr;
    if (sh[dynsym].sh_entsize == sizeof(Elf64_Sym) && (sh[dynsym].sh_flags & SHF_ALLOC) &&
        sym_addr % _Alignof(Elf64_Sym) == 0 &&
        mapped_readable(info, sym_addr, sh[dynsym].sh_size)) {
        d->syms = (const Elf64_Sym *)sym_addr;
        d->n_syms = sh[dynsym].sh_size / sizeof(Elf64_Sym);
    }
    uintptr_t gnu_addr = gnu >= 0 ? info->dlpi_addr + sh[gnu].sh_addr : 0;
    if (gnu >= 0 && d->syms && sh[gnu].sh_link == (Elf64_Word)dynsym &&
        (sh[gnu].sh_flags & SHF_ALLOC) && gnu_addr % 8 == 0 &&
        mapped_readable(info, gnu_addr, sh[gnu].sh_size)) {
        d->gnu = (const uint32_t *)gnu_addr;
        d->gnu_words = sh[gnu].sh_size / 4;
    }
    rc = 1;
out:
    free(sh);
    close(fd);
    return rc;
}

/* An object's mapped GNU hash table, its parts checked against the
 * symbol table's size (gnu_open). */
struct gnu {
    uint32_t nbuckets, symoffset, bloom_size, shift;
    const uint64_t *bloom;
    const uint32_t *buckets, *chain;
};

/* Fills *g from d's table: 1, or 0 when the table is empty (defines
 * nothing), -1 when it is out of shape (unsure). */
static int gnu_open(const struct dyn *d, struct gnu *g)
{
    const uint32_t *w = d->gnu;
    if (d->gnu_words < 4)
        return -1;
    *g = (struct gnu){ .nbuckets = w[0], .symoffset = w[1], .bloom_size = w[2], .shift = w[3] };
    if (g->nbuckets == 0)
        return 0;
    /* a power of two, as the loader's own lookups assume (it masks) */
    if (g->bloom_size == 0 || (g->bloom_size & (g->bloom_size - 1)) || g->shift >= 32)
        return -1;
    size_t head = 4 + 2 * (size_t)g->bloom_size + g->nbuckets;
    if (head > d->gnu_words || g->symoffset > d->n_syms ||
        d->gnu_words - head < d->n_syms - g->symoffset)
        return -1;
    g->bloom = (const uint64_t *)(w + 4);
    g->buckets = w + 4 + 2 * (size_t)g->bloom_size;
    g->chain = g->buckets + g->nbuckets;
    return 1;
}

/* Whether symbol s of d (h2: the hash its GNU table keeps) is defined and
 * named `name` (hash h): the rule of every lookup below. */
static inline int defines(const struct dyn *d, const Elf64_Sym *s, uint32_t h2, const char *name,
                          uint32_t h)
{
    return (h | 1) == (h2 | 1) && s->st_shndx != SHN_UNDEF && s->st_name < d->len &&
           strncmp(d->tab + s->st_name, name, d->len - s->st_name) == 0;
}

/* The next symbol after index *at (start: *at = 0) that is defined and
 * named `name` (hash h), by the bloom filter and one bucket's chain: its
 * index, or 0 when there is no more. The bloom filter rejects nearly
 * every name the object lacks at one load. */
static uint32_t gnu_next(const struct gnu *g, const struct dyn *d, const char *name, uint32_t h,
                         uint32_t *at)
{
    uint32_t i = *at;
    if (i == 0) {
        uint64_t word = g->bloom[(h / 64) & (g->bloom_size - 1)];
        uint64_t mask = (1ull << (h % 64)) | (1ull << ((h >> g->shift) % 64));
        if ((word & mask) != mask)
            return 0;
        i = g->buckets[h % g->nbuckets];
    } else if (g->chain[i - g->symoffset] & 1) {
        return 0;                       /* *at ended the chain */
    } else {
        i++;
    }
    for (; i >= g->symoffset && i < d->n_syms; i++) {
        uint32_t h2 = g->chain[i - g->symoffset];
        if (defines(d, &d->syms[i], h2, name, h))
            return *at = i;
        if (h2 & 1)
            break;
    }
    return 0;
}

/* Symbol i of d (h: the hash its GNU table keeps) when it is defined and
 * named one of f's exact names: that name's index, else -1. */
static long exact_name_of(const struct scope__objfilter *f, const struct dyn *d, uint32_t i,
                          uint32_t h)
{
    const Elf64_Sym *s = &d->syms[i];
    if (s->st_shndx == SHN_UNDEF)
        return -1;                      /* most of a small object's table */
    for (uint32_t at = (h | 1) & f->exact_mask; f->exact_slots[at]; at = (at + 1) & f->exact_mask) {
        uint32_t k = f->exact_slots[at] - 1;
        if (defines(d, s, h, f->exact[k], f->exact_hash[k]))
            return k;
    }
    return -1;
}

/* The symbols of d that define one of f's exact names, into out[0..cap)
 * (symbol indices; NULL: stop at the first): how many there are. Walks
 * whichever is shorter: f's names, each looked up in the object's GNU hash
 * table (a bloom filter test rejects nearly every name the object lacks),
 * or the object's defined symbols, each looked up among f's names by the
 * hash its table keeps (an Open MPI component defines a few symbols, and
 * each MPI_Init looks at ~50 of them for ~530 names). */
static size_t exact_defined(const struct scope__objfilter *f, const struct dyn *d,
                            const struct gnu *g, uint32_t *out, size_t cap)
{
    size_t n = 0;
    int by_symbol = d->n_syms - g->symoffset < f->n_exact;
    size_t k = 0;
    uint32_t i = by_symbol ? g->symoffset : 0;
    for (;;) {
        /* the next symbol that defines one of the names */
        if (by_symbol) {
            while (i < d->n_syms && exact_name_of(f, d, i, g->chain[i - g->symoffset]) < 0)
                i++;
            if (i >= d->n_syms)
                return n;
        } else {
            while (k < f->n_exact && !gnu_next(g, d, f->exact[k], f->exact_hash[k], &i)) {
                k++;
                i = 0;
            }
            if (k >= f->n_exact)
                return n;
        }
        if (!out)
            return 1;
        if (n < cap)
            out[n] = i;
        n++;
        i += by_symbol;     /* gnu_next moves on from i itself */
    }
}

/* Whether the object defines one of f's exact names (the captures'
 * defaults). 1 also when unsure (a table out of shape). */
static int defines_exact(const struct scope__objfilter *f, const struct dyn *d)
{
    struct gnu g;
    int rc = gnu_open(d, &g);
    return rc <= 0 ? rc < 0 : exact_defined(f, d, &g, NULL, 0) > 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The first of v[0..n) (sorted) at or above x: n when none. */
static size_t lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Makes *o the partial object (symbols.h) of an object in which only f's
 * exact names can match: the functions of those names, every symbol at
 * one of their addresses (aliases: what unpatchable.c and the choice of a
 * name look at) and every symbol whose body contains one (what the
 * engine's enclosing() looks at), in symbol-table order: what a read of
 * the file would give those lookups, without libelf, the file's mapping
 * and a sort and index of every symbol (libc: ~2,800 symbols, about half
 * of what the I/O calls added to a start-up). Returns 1, 0 when it
 * defines none of the names as a function, -1 when the object must be
 * read (an IFUNC among them, whose implementation's neighbours only a
 * read lists; a table out of shape; no memory). */
static int partial_object(const struct scope__objfilter *f, const struct dl_phdr_info *info,
                          const char *path, int is_main, const char *soname, const struct dyn *d,
                          struct scope__object *o)
{
    struct gnu g;
    int rc = gnu_open(d, &g);
    if (rc <= 0)
        return rc;
    struct scope__sym *syms = NULL;
    char *names = NULL;
    size_t n_at = 0;
    rc = -1;
    /* room for a few versions of each name; more: read the file */
    size_t cap = 2 * f->n_exact + 16;
    uint32_t *hit = malloc(cap * sizeof *hit);
    uint64_t *at = malloc(cap * sizeof *at);
    if (!hit || !at)
        goto out;
    size_t n_hit = exact_defined(f, d, &g, hit, cap);
    if (n_hit > cap)
        goto out;
    for (size_t j = 0; j < n_hit; j++) {
        const Elf64_Sym *s = &d->syms[hit[j]];
        if (!scope__sym_is_function(s))
            continue;
        if (ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC)
            goto out;
        at[n_at++] = s->st_value;
    }
    if (n_at == 0) {
        rc = 0;
        goto out;
    }
    qsort(at, n_at, sizeof *at, cmp_u64);
    /* one pass over the table: the symbols at or around those addresses
     * (a few per name: room for them on the stack; more: read the file) */
    uint32_t near_v[512];
    size_t n = 0, bytes = 0;
    for (size_t i = 0; i < d->n_syms; i++) {
        const Elf64_Sym *s = &d->syms[i];
        if (!scope__sym_is_function(s) || s->st_name >= d->len || s->st_value + s->st_size < at[0] ||
            s->st_value > at[n_at - 1])
            continue;
        size_t j = lower_bound(at, n_at, s->st_value);
        if (j == n_at || (at[j] != s->st_value && at[j] - s->st_value >= s->st_size))
            continue;
        const char *nm = d->tab + s->st_name;
        size_t len = strnlen(nm, d->len - s->st_name);
        if (len == d->len - s->st_name || !scope__sym_name_kept(nm))
            continue;                   /* unterminated; or as scope__object_read skips it */
        if (n < sizeof near_v / sizeof *near_v)
            near_v[n] = (uint32_t)i;
        n++;
        bytes += len + 1;
    }
    if (n > sizeof near_v / sizeof *near_v)
        goto out;                       /* unusual: read the file */
    if (!(syms = malloc(n * sizeof *syms)) || !(names = malloc(bytes)))
        goto out;
    char *w = names;
    for (size_t k = 0; k < n; k++) {
        const Elf64_Sym *s = &d->syms[near_v[k]];
        size_t len = strlen(d->tab + s->st_name);
        memcpy(w, d->tab + s->st_name, len + 1);
        syms[k] = (struct scope__sym){ .name = w, .addr = info->dlpi_addr + s->st_value,
                                       .size = s->st_size,
                                       .bind = (uint8_t)ELF64_ST_BIND(s->st_info) };
        w += len + 1;
    }
    /* the object's names are copied: it could be unloaded while the
     * engine still matches (another thread's dlclose) */
    rc = scope__object_adopt(o, path, info->dlpi_addr, is_main, soname, syms, n, names) < 0 ? -1 : 1;
    syms = NULL;
    names = NULL;
out:
    free(hit);
    free(at);
    free(syms);
    free(names);
    return rc;
}

int scope__objfilter_look(const struct scope__objfilter *f, const struct dl_phdr_info *info,
                         const char *path, int is_main, struct scope__object *partial)
{
    if (!f)
        return SCOPE_OBJFILTER_READ;
    struct dyn d;
    int found = find_dynstr(info, path, is_main, &d);
    if (found < 0)
        return SCOPE_OBJFILTER_READ;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *soname = NULL;
    if ((f->any_qualified || (partial && f->n_exact)) && found) {
        long off = soname_offset(info);
        if (off >= 0 && (size_t)off < d.len && memchr(d.tab + off, 0, d.len - (size_t)off))
            soname = d.tab + off;
    }
    for (size_t k = 0; k < f->n; k++) {
        const struct need *nd = &f->v[k];
        if (!scope__entry_names_object(nd->e, path, base, soname))
            continue;
        if (nd->e->object || (found && need_met(nd, d.tab, d.len) &&
                              (!d.syms || defined_meets(nd, d.tab, d.len, d.syms, d.n_syms))))
            return SCOPE_OBJFILTER_READ;
    }
    if (!found || !f->n_exact)
        return SCOPE_OBJFILTER_SKIP;
    if (!d.gnu)
        return SCOPE_OBJFILTER_READ;
    if (!partial)
        return defines_exact(f, &d) ? SCOPE_OBJFILTER_READ : SCOPE_OBJFILTER_SKIP;
    int rc = partial_object(f, info, path, is_main, soname, &d, partial);
    return rc < 0 ? SCOPE_OBJFILTER_READ : rc ? SCOPE_OBJFILTER_PARTIAL : SCOPE_OBJFILTER_SKIP;
}
