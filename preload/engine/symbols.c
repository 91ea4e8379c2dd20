/*
 * symbols.c - function symbols of loaded objects, read with libelf.
 *
 * An unstripped binary's .symtab lists its static (file-local) functions
 * too, so it is preferred; a stripped one only has .dynsym, the exported
 * functions. The symbols are read from the file on disk, not from memory,
 * because .symtab is never loaded. Addresses get the object's load bias
 * added, which covers PIE and non-PIE executables alike (bias 0).
 *
 * Demangling borrows the process's own __cxa_demangle through dlsym: the
 * preload never links libstdc++. A C++ program that uses nothing of the
 * C++ library (built with --as-needed, as mpicxx.mpich does) has mangled
 * functions but no libstdc++ loaded; then libstdc++.so.6 is opened
 * RTLD_LOCAL, through the real dlopen (scope__real_dlopen, not the
 * preload's hook: it is the preload's private helper, never instrumented,
 * and nothing of it becomes visible to the application's symbol lookups).
 * Only on the first name that needs demangling, so a C program never
 * loads it.
 */
#include "symbols.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scope_error.h"
#include "symbol_next.h"

/* One stable least-significant-digit radix pass over byte `byte` of the
 * key (the address, or the size inverted), from `in` to `out`. Returns 0
 * when every element has the same digit (nothing to do: skipped). */
static int radix_pass(const struct scope__sym *in, struct scope__sym *out, size_t n, int byte,
                      int by_size)
{
    size_t count[257] = { 0 };
    for (size_t i = 0; i < n; i++) {
        uint64_t k = by_size ? ~in[i].size : in[i].addr;
        count[((k >> (8 * byte)) & 0xff) + 1]++;
    }
    for (int d = 0; d < 256; d++)
        if (count[d + 1] == n)
            return 0;
    for (int d = 0; d < 256; d++)
        count[d + 1] += count[d];
    for (size_t i = 0; i < n; i++) {
        uint64_t k = by_size ? ~in[i].size : in[i].addr;
        out[count[(k >> (8 * byte)) & 0xff]++] = in[i];
    }
    return 1;
}

/* Sorts by address, and at one address larger first (so a lookup by
 * address lands on the enclosing one); equal keys keep their table order,
 * as glibc's merge-sort qsort did. A stable radix sort that skips the bytes
 * every key shares: a large C++ library has tens of thousands of symbols,
 * and qsort with a comparison call per step was a third of a start-up that
 * patches little. Returns 0 or SCOPE_ENOMEM. */
static int sort_syms(struct scope__sym *syms, size_t n)
{
    struct scope__sym *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return SCOPE_ENOMEM;
    struct scope__sym *a = syms, *b = tmp;
    for (int by_size = 1; by_size >= 0; by_size--) {  /* minor key first */
        for (int byte = 0; byte < 8; byte++) {
            if (radix_pass(a, b, n, byte, by_size)) {
                struct scope__sym *t = a;
                a = b;
                b = t;
            }
        }
    }
    if (a != syms)
        memcpy(syms, a, n * sizeof *syms);
    free(tmp);
    return 0;
}

static Elf_Scn *find_section(Elf *e, GElf_Word type, GElf_Shdr *sh)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        if (gelf_getshdr(scn, sh) && sh->sh_type == type)
            return scn;
    }
    return NULL;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22   /* Linux 5.14 */
#endif

/* Maps in, with one call each, the pages of a symbol table and of its
 * string table in libelf's mapping of the file: one page fault per page
 * otherwise, which costs tens of microseconds on some virtual machines.
 * Nothing happens when the file is not mapped or the kernel lacks it. */
static void populate(Elf *e, const GElf_Shdr *symsh)
{
    size_t size;
    char *file = elf_rawfile(e, &size);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    GElf_Shdr strsh;
    Elf_Scn *str = elf_getscn(e, symsh->sh_link);
    const GElf_Shdr *sec[2] = { symsh, str && gelf_getshdr(str, &strsh) ? &strsh : NULL };
    for (int i = 0; file && i < 2; i++) {
        if (!sec[i] || sec[i]->sh_offset >= size || sec[i]->sh_size > size - sec[i]->sh_offset)
            continue;
        uintptr_t lo = ((uintptr_t)file + sec[i]->sh_offset) & ~(page - 1);
        uintptr_t hi = (uintptr_t)file + sec[i]->sh_offset + sec[i]->sh_size;
        madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
    }
}

/* DT_SONAME from the dynamic section, or NULL. */
static char *read_soname(Elf *e)
{
    GElf_Shdr sh;
    Elf_Scn *scn = find_section(e, SHT_DYNAMIC, &sh);
    if (!scn)
        return NULL;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || !sh.sh_entsize)
        return NULL;
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < n; i++) {
        GElf_Dyn dyn;
        if (!gelf_getdyn(d, (int)i, &dyn))
            break;
        if (dyn.d_tag == DT_SONAME) {
            const char *s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
            return s ? strdup(s) : NULL;
        }
    }
    return NULL;
}

int scope__object_read(struct scope__object *o, const char *path, uintptr_t bias,
                       int is_main)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    int rc;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return SCOPE_EFORMAT;
    o->path = strdup(path);
    if (!o->path)
        return SCOPE_ENOMEM;
    const char *slash = strrchr(o->path, '/');
    o->base = slash ? slash + 1 : o->path;
    o->bias = bias;
    o->is_main = is_main;

    o->fd = open(is_main ? "/proc/self/exe" : path, O_RDONLY | O_CLOEXEC);
    if (o->fd < 0) {
        rc = errno == EACCES ? SCOPE_EACCES : SCOPE_ENOENT;
        goto fail_open;
    }
    Elf *e = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        if (e)
            elf_end(e);
        rc = SCOPE_EFORMAT;
        goto fail_elf;
    }
    o->elf = e;
    o->soname = read_soname(e);

    GElf_Shdr sh;
    Elf_Scn *scn = find_section(e, SHT_SYMTAB, &sh);
    o->from_symtab = scn != NULL;
    if (!scn)
        scn = find_section(e, SHT_DYNSYM, &sh);
    if (!scn || !sh.sh_entsize)
        return 0;                       /* no symbols at all: an empty list */
    populate(e, &sh);
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d)
        return 0;
    size_t n = sh.sh_size / sh.sh_entsize;
    o->syms = calloc(n ? n : 1, sizeof *o->syms);
    if (!o->syms) {
        rc = SCOPE_ENOMEM;
        goto fail_syms;
    }
    /* the common case read in place: a 64-bit table in this byte order */
    const Elf64_Sym *raw = gelf_getclass(e) == ELFCLASS64 && d->d_type == ELF_T_SYM &&
                           sh.sh_entsize == sizeof(Elf64_Sym) &&
                           d->d_size >= n * sizeof(Elf64_Sym) ? d->d_buf : NULL;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym s;
        if (raw)
            s = raw[i];
        else if (!gelf_getsym(d, (int)i, &s))
            break;
        if (!scope__sym_is_function(&s))
            continue;
        const char *name = elf_strptr(e, sh.sh_link, s.st_name);
        if (!scope__sym_name_kept(name))
            continue;
        struct scope__sym *y = &o->syms[o->n_syms++];
        y->name = name;
        y->addr = bias + s.st_value;
        y->size = s.st_size;
        y->ifunc = GELF_ST_TYPE(s.st_info) == STT_GNU_IFUNC;
        y->bind = GELF_ST_BIND(s.st_info);
    }
    if (sort_syms(o->syms, o->n_syms) < 0) {
        rc = SCOPE_ENOMEM;
        goto fail_sort;
    }
    return 0;

fail_sort:
    free(o->syms);
    o->syms = NULL;
    o->n_syms = 0;

fail_syms:
    free(o->soname);
    elf_end(e);
    o->elf = NULL;
fail_elf:
    close(o->fd);
    o->fd = -1;
fail_open:
    free(o->path);
    o->path = NULL;
    return rc;
}

int scope__object_adopt(struct scope__object *o, const char *path, uintptr_t bias, int is_main,
                        const char *soname, struct scope__sym *syms, size_t n, char *names)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->syms = syms;
    o->n_syms = n;
    o->names = names;
    o->partial = 1;
    o->bias = bias;
    o->is_main = is_main;
    if (!(o->path = strdup(path)) || (soname && !(o->soname = strdup(soname))) ||
        sort_syms(syms, n) < 0) {
        scope__object_close(o);
        return SCOPE_ENOMEM;
    }
    const char *slash = strrchr(o->path, '/');
    o->base = slash ? slash + 1 : o->path;
    return 0;
}

void scope__object_close(struct scope__object *o)
{
    free(o->names);
    o->names = NULL;
    free(o->syms);
    o->syms = NULL;
    o->n_syms = 0;
    if (o->elf)
        elf_end(o->elf);
    o->elf = NULL;
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    free(o->soname);
    o->soname = NULL;
    free(o->path);
    o->path = NULL;
}

size_t scope__object_first_at(const struct scope__object *o, uintptr_t addr)
{
    size_t lo = 0, hi = o->n_syms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->syms[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const struct scope__sym *scope__object_find(const struct scope__object *o, uintptr_t addr)
{
    /* the first symbol with sym.addr > addr */
    size_t lo = addr == UINTPTR_MAX ? o->n_syms : scope__object_first_at(o, addr + 1);
    /* Walk back over the symbols starting at or before addr; a few at most
     * are aliases or nested, so this stays short. */
    const struct scope__sym *best = NULL;
    for (size_t i = lo; i-- > 0;) {
        const struct scope__sym *s = &o->syms[i];
        if (s->addr == addr && (!best || best->addr != addr || s->size > best->size))
            best = s;
        else if (!best && s->size && addr < s->addr + s->size)
            best = s;
        if (addr - s->addr > (1u << 20))
            break;
    }
    return best;
}

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

/* The process's __cxa_demangle, else libstdc++'s opened privately (see the
 * file comment); NULL when neither exists. Looked up once. */
static cxa_demangle_fn demangler(void)
{
    static cxa_demangle_fn fn;
    static int looked;
    if (!looked) {
        looked = 1;
        fn = (cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
        if (!fn) {
            void *h = scope__real_dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
            if (h)
                fn = (cxa_demangle_fn)dlsym(h, "__cxa_demangle");
        }
    }
    return fn;
}

int scope__demangler_available(void)
{
    return demangler() != NULL;
}

char *scope__demangle(const char *mangled)
{
    if (strncmp(mangled, "_Z", 2) != 0)
        return NULL;
    cxa_demangle_fn fn = demangler();
    if (!fn)
        return NULL;
    int status = 0;
    char *out = fn(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}
