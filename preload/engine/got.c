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
 * each of a few hundred refused functions was most of a start-up.
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

static struct {
    int in_batch;
    int built;
    struct slot *slots;
    size_t n_slots, cap_slots;
    uint32_t *table;            /* open addressing: slot index + 1 */
    size_t mask;
    struct opened *files;
    size_t n_files;
    const char *skip_path;      /* the preload itself */
    const uintptr_t *only_bias; /* when set: index only these objects */
    size_t n_only;
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

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
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
    uintptr_t lo = 0, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO) {
            lo = info->dlpi_addr + ph->p_vaddr;
            hi = lo + ph->p_memsz;
        }
    }
    index_object(path, info->dlpi_addr, lo, hi);
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
    G.files = NULL;
    G.slots = NULL;
    G.table = NULL;
    G.n_files = G.n_slots = G.cap_slots = 0;
    G.built = 0;
}

/* Reads every loaded object's relocations and hashes them by name. A slot
 * table that cannot be allocated leaves the index empty: no redirection
 * then, as when nobody imports the function. */
static void build_index(void)
{
    G.built = 1;
    Dl_info self;
    if (!G.skip_path && dladdr((void *)scope__got_redirect, &self) && self.dli_fname)
        G.skip_path = self.dli_fname;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return;
    dl_iterate_phdr(each_object, NULL);
    size_t n = 16;
    while (n < 2 * G.n_slots)
        n *= 2;
    G.table = calloc(n, sizeof *G.table);
    if (!G.table) {
        G.n_slots = 0;
        return;
    }
    G.mask = n - 1;
    for (size_t i = 0; i < G.n_slots; i++) {
        size_t t = G.slots[i].hash & G.mask;
        while (G.table[t])
            t = (t + 1) & G.mask;
        G.table[t] = (uint32_t)i + 1;
    }
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
    if (!G.built)
        build_index();
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
