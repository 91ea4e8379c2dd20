/*
 * got.c - the fallback for library functions that inline patching refuses:
 * point every GOT slot that imports the function at a stub that enters the
 * trampoline and then jumps to the function.
 *
 * Slots are found from each loaded object's own relocations (read from its
 * file with libelf): JUMP_SLOT (calls through the PLT) and GLOB_DAT
 * (-fno-plt calls and address-taken uses; arch_got.h names this CPU's) naming the
 * symbol. A slot on a RELRO page is made writable only for the write. Calls
 * the defining library makes to itself without the PLT are not seen: that is
 * the price of this method, and why it is only the fallback.
 *
 * The relocations of all loaded objects are read once per batch (a start-up
 * or a dlopen) into a hash table from symbol name to slots: a large C++
 * library has tens of thousands of relocations, and reading them again for
 * each of a few hundred refused functions was most of a start-up. The
 * first few names of a batch read only the objects whose dynamic string
 * table (in memory) holds the name, since an object can import a function
 * only by naming it there: Open MPI's start-up refuses one 3-byte function
 * that nothing imports, and reading the relocations of its 14 objects with
 * libelf for it cost 2.8 ms of every rank's start-up.
 */
#include "got.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch_got.h"
#include "load_segments.h"
#include "patch.h"
#include "proc_self.h"
#include "scope_error.h"

/* One JUMP_SLOT or GLOB_DAT relocation of a loaded object. */
struct slot {
    const char *name;           /* in its object's string table (kept open) */
    uint32_t hash;
    uint32_t type;              /* SCOPE_ARCH_R_JUMP_SLOT or _GLOB_DAT */
    uint8_t relro;              /* on a RELRO page */
    uintptr_t *addr;
};

struct opened {
    Elf *e;
    int fd;
};

#define FEW_NAMES 8     /* a batch's names looked up object by object */

/* A loaded object of the batch: where its dynamic string table is, and
 * whether its relocations are in the index yet. */
struct object {
    char *path;
    uintptr_t bias, relro_lo, relro_hi;
    const char *dynstr;         /* NULL: not found (the object is read) */
    size_t dynstr_len;
    int indexed;
};

static struct {
    int in_batch;
    struct slot *slots;
    size_t n_slots, cap_slots;
    uint32_t *table;            /* open addressing: slot index + 1 */
    size_t mask;
    struct opened *files;
    size_t n_files;
    const char *skip_path;      /* the preload itself */
    const uintptr_t *only_bias; /* when set: index only these objects */
    size_t n_only;
    struct object *objs;        /* the batch's objects (collected once) */
    size_t n_objs;
    int collected, all_indexed;
    unsigned names;             /* names looked up in this batch */
} G;

static uint32_t hash_name(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;         /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (uint32_t)(h ^ (h >> 32));
}

static int add_slot(const char *name, unsigned type, uintptr_t *addr, int relro)
{
    if (G.n_slots == G.cap_slots) {
        size_t cap = G.cap_slots ? 2 * G.cap_slots : 1024;
        struct slot *s = realloc(G.slots, cap * sizeof *s);
        if (!s)
            return SCOPE_ENOMEM;
        G.slots = s;
        G.cap_slots = cap;
    }
    G.slots[G.n_slots++] = (struct slot){ name, hash_name(name), (uint8_t)type,
                                          (uint8_t)relro, addr };
    return 0;
}

/* Adds the JUMP_SLOT/GLOB_DAT relocations of one object to the index. */
static void index_object(const char *path, uintptr_t bias, uintptr_t relro_lo,
                         uintptr_t relro_hi)
{
    struct opened *f = realloc(G.files, (G.n_files + 1) * sizeof *f);
    if (!f)
        return;
    G.files = f;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        if (e)
            elf_end(e);
        close(fd);
        return;
    }
    G.files[G.n_files++] = (struct opened){ e, fd };    /* names point into it */
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
            continue;
        Elf_Scn *symscn = elf_getscn(e, sh.sh_link);
        GElf_Shdr symsh;
        if (!symscn || !gelf_getshdr(symscn, &symsh) || symsh.sh_type != SHT_DYNSYM)
            continue;
        Elf_Data *rd = elf_getdata(scn, NULL), *sd = elf_getdata(symscn, NULL);
        if (!rd || !sd)
            continue;
        size_t n = sh.sh_size / sh.sh_entsize;
        size_t n_sym = symsh.sh_entsize ? symsh.sh_size / symsh.sh_entsize : 0;
        /* the common case read in place: 64-bit tables in this byte order */
        int native = gelf_getclass(e) == ELFCLASS64 && rd->d_type == ELF_T_RELA &&
                     sd->d_type == ELF_T_SYM && sh.sh_entsize == sizeof(Elf64_Rela) &&
                     rd->d_size >= n * sizeof(Elf64_Rela) &&
                     sd->d_size >= n_sym * sizeof(Elf64_Sym);
        const Elf64_Rela *rela = native ? rd->d_buf : NULL;
        const Elf64_Sym *syms = native ? sd->d_buf : NULL;
        for (size_t i = 0; i < n; i++) {
            GElf_Rela r;
            if (rela)
                r = rela[i];
            else if (!gelf_getrela(rd, (int)i, &r))
                break;
            unsigned type = GELF_R_TYPE(r.r_info);
            if (type != SCOPE_ARCH_R_JUMP_SLOT && type != SCOPE_ARCH_R_GLOB_DAT)
                continue;
            GElf_Sym s;
            size_t si = GELF_R_SYM(r.r_info);
            if (syms && si < n_sym)
                s = syms[si];
            else if (!gelf_getsym(sd, (int)si, &s))
                continue;
            const char *nm = elf_strptr(e, symsh.sh_link, s.st_name);
            if (!nm || !*nm)
                continue;
            uintptr_t slot = bias + r.r_offset;
            if (add_slot(nm, type, (uintptr_t *)slot, slot >= relro_lo && slot < relro_hi) < 0)
                return;
        }
    }
}

/* The object's dynamic string table in memory, from its PT_DYNAMIC
 * (DT_STRTAB, DT_STRSZ). The loader may have relocated the address in
 * place or not: the one that lies inside the object's PT_LOAD segments is
 * taken. 1 and *tab, *len when found, else 0. */
static int dynstr_of(const struct dl_phdr_info *info, const char **tab, size_t *len)
{
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    uintptr_t at = 0, size = 0;
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_STRTAB)
            at = dyn->d_un.d_ptr;
        else if (dyn->d_tag == DT_STRSZ)
            size = dyn->d_un.d_val;
    }
    if (!at || !size)
        return 0;
    uintptr_t tries[2] = { at, info->dlpi_addr + at };
    for (int k = 0; k < 2; k++) {
        const scope__phdr *ph = scope__load_segment_of(info, tries[k]);
        if (ph && (ph->p_flags & PF_R) &&
            tries[k] + size <= info->dlpi_addr + ph->p_vaddr + ph->p_memsz) {
            *tab = (const char *)tries[k];
            *len = size;
            return 1;
        }
    }
    return 0;
}

/* 1 when `name` is a whole string of the table (or the table is unknown):
 * the object may import it. */
static int may_name(const struct object *o, const char *name)
{
    if (!o->dynstr)
        return 1;
    size_t n = strlen(name) + 1;    /* with its terminator */
    const char *p = o->dynstr, *end = o->dynstr + o->dynstr_len;
    while ((p = memmem(p, (size_t)(end - p), name, n)) != NULL) {
        if (p == o->dynstr || p[-1] == 0)
            return 1;
        p++;
    }
    return 0;
}

static int collect_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    const char *path = info->dlpi_name;
    if ((!path || !*path) && !*(path = scope__self_exe()))
        return 0;
    if (G.skip_path && strcmp(path, G.skip_path) == 0)
        return 0;
    if (G.only_bias) {
        size_t i = 0;
        while (i < G.n_only && G.only_bias[i] != info->dlpi_addr)
            i++;
        if (i == G.n_only)
            return 0;
    }
    struct object o = { .bias = info->dlpi_addr };
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO) {
            o.relro_lo = info->dlpi_addr + ph->p_vaddr;
            o.relro_hi = o.relro_lo + ph->p_memsz;
        }
    }
    if (!dynstr_of(info, &o.dynstr, &o.dynstr_len))
        o.dynstr = NULL;
    struct object *a = realloc(G.objs, (G.n_objs + 1) * sizeof *a);
    if (!a || !(o.path = strdup(path))) {
        G.objs = a ? a : G.objs;
        return 1;   /* out of memory: the objects so far */
    }
    G.objs = a;
    G.objs[G.n_objs++] = o;
    return 0;
}

static void free_index(void)
{
    for (size_t i = 0; i < G.n_files; i++) {
        elf_end(G.files[i].e);
        close(G.files[i].fd);
    }
    free(G.files);
    free(G.slots);
    free(G.table);
    for (size_t i = 0; i < G.n_objs; i++)
        free(G.objs[i].path);
    free(G.objs);
    G.files = NULL;
    G.slots = NULL;
    G.table = NULL;
    G.objs = NULL;
    G.n_files = G.n_slots = G.cap_slots = G.n_objs = 0;
    G.collected = G.all_indexed = 0;
    G.names = 0;
}

/* Hashes the index's slots by name (again, after objects were added). A
 * table that cannot be allocated leaves the index empty: no redirection
 * then, as when nobody imports the function. */
static void rehash(void)
{
    free(G.table);
    size_t n = 16;
    while (n < 2 * G.n_slots)
        n *= 2;
    G.table = calloc(n, sizeof *G.table);
    if (!G.table)
        return;
    G.mask = n - 1;
    for (size_t i = 0; i < G.n_slots; i++) {
        size_t t = G.slots[i].hash & G.mask;
        while (G.table[t])
            t = (t + 1) & G.mask;
        G.table[t] = (uint32_t)i + 1;
    }
}

/* Makes the index hold every slot that may import `name`: the relocations
 * of the objects whose string table names it, for the batch's first
 * FEW_NAMES names; past them, of every object not read yet (one read of
 * each, as a batch of hundreds of names needs). */
static void build_index(const char *name)
{
    if (!G.collected) {
        G.collected = 1;
        Dl_info self;
        if (!G.skip_path && dladdr((void *)scope__got_redirect, &self) && self.dli_fname)
            G.skip_path = self.dli_fname;
        if (elf_version(EV_CURRENT) == EV_NONE) {
            G.all_indexed = 1;      /* nothing can be read: an empty index */
            return;
        }
        dl_iterate_phdr(collect_object, NULL);
    }
    if (G.all_indexed)
        return;
    int all = ++G.names > FEW_NAMES;
    size_t before = G.n_slots;
    for (size_t i = 0; i < G.n_objs; i++) {
        struct object *o = &G.objs[i];
        if (o->indexed || (!all && !may_name(o, name)))
            continue;
        o->indexed = 1;
        index_object(o->path, o->bias, o->relro_lo, o->relro_hi);
    }
    G.all_indexed = all;
    if (G.n_slots != before || !G.table)
        rehash();
}

void scope__got_begin(void)
{
    if (G.in_batch)
        free_index();
    G.in_batch = 1;
}

void scope__got_end(void)
{
    free_index();
    G.in_batch = 0;
}

static int redirect(const char *name, uintptr_t target, uintptr_t stub)
{
    build_index(name);
    if (!G.table)
        return 0;
    uint32_t h = hash_name(name);
    int written = 0, failed = 0, looked = 0;
    uintptr_t bound = 0;
    for (size_t t = h & G.mask; G.table[t]; t = (t + 1) & G.mask) {
        const struct slot *s = &G.slots[G.table[t] - 1];
        if (s->hash != h || strcmp(s->name, name) != 0)
            continue;
        uintptr_t *slot = s->addr;
        /* Only slots that lead to this definition: a lazy PLT slot
         * (not yet bound) has the same symbol and is bound here too. */
        if (s->type == SCOPE_ARCH_R_GLOB_DAT && *slot != target)
            continue;
        if (s->type == SCOPE_ARCH_R_JUMP_SLOT && *slot != target) {
            if (!looked) {
                bound = (uintptr_t)dlsym(RTLD_DEFAULT, name);
                looked = 1;
            }
            if (bound != target)
                continue;
        }
        if (scope__patch_write_slot(slot, stub, s->relro) == 0)
            written++;
        else
            failed++;
    }
    if (failed && !written)
        return SCOPE_EACCES;
    return written;
}

int scope__got_redirect(const char *name, uintptr_t target, uintptr_t stub)
{
    if (G.in_batch)
        return redirect(name, target, stub);
    int rc = redirect(name, target, stub);
    free_index();
    return rc;
}

int scope__got_redirect_new(const struct scope__got_fn *fns, size_t n,
                            const uintptr_t *new_bias, size_t n_new)
{
    if (!n || !n_new)
        return 0;
    free_index();
    G.only_bias = new_bias;
    G.n_only = n_new;
    int written = 0;
    for (size_t i = 0; i < n; i++) {
        int w = fns[i].name ? redirect(fns[i].name, fns[i].target, fns[i].stub) : 0;
        if (w > 0)
            written += w;
    }
    free_index();
    G.only_bias = NULL;
    G.n_only = 0;
    return written;
}
