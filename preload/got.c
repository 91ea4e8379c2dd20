/*
 * got.c - the fallback for library functions that inline patching refuses:
 * point every GOT slot that imports the function at a stub that enters the
 * trampoline and then jumps to the function.
 *
 * Slots are found from each loaded object's own relocations (read from its
 * file with libelf): R_X86_64_JUMP_SLOT (calls through the PLT) and
 * R_X86_64_GLOB_DAT (-fno-plt calls and address-taken uses) naming the
 * symbol. A slot on a RELRO page is made writable only for the write. Calls
 * the defining library makes to itself without the PLT are not seen: that is
 * the price of this method, and why it is only the fallback.
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

#include "patch.h"
#include "scope_error.h"

struct walk {
    const char *name;
    uintptr_t target, stub;
    int written;
    int failed;
    const char *skip_path;      /* the preload itself */
};

static int rewrite_object(struct walk *w, const char *path, uintptr_t bias,
                          uintptr_t relro_lo, uintptr_t relro_hi)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF)
        goto out;
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
        for (size_t i = 0; i < n; i++) {
            GElf_Rela r;
            if (!gelf_getrela(rd, (int)i, &r))
                break;
            unsigned type = GELF_R_TYPE(r.r_info);
            if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
                continue;
            GElf_Sym s;
            if (!gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s))
                continue;
            const char *nm = elf_strptr(e, symsh.sh_link, s.st_name);
            if (!nm || strcmp(nm, w->name) != 0)
                continue;
            uintptr_t *slot = (uintptr_t *)(bias + r.r_offset);
            /* Only slots that lead to this definition: a lazy PLT slot
             * (not yet bound) has the same symbol and is bound here too. */
            if (type == R_X86_64_GLOB_DAT && *slot != w->target)
                continue;
            if (type == R_X86_64_JUMP_SLOT && *slot != w->target) {
                void *h = dlsym(RTLD_DEFAULT, w->name);
                if ((uintptr_t)h != w->target)
                    continue;
            }
            int relro = (uintptr_t)slot >= relro_lo && (uintptr_t)slot < relro_hi;
            if (scope__patch_write_slot(slot, w->stub, relro) == 0)
                w->written++;
            else
                w->failed++;
        }
    }
out:
    if (e)
        elf_end(e);
    close(fd);
    return 0;
}

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct walk *w = arg;
    const char *path = info->dlpi_name;
    char exe[4096];
    if (!path || !*path) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0)
            return 0;
        exe[n] = 0;
        path = exe;
    }
    if (w->skip_path && strcmp(path, w->skip_path) == 0)
        return 0;
    uintptr_t lo = 0, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO) {
            lo = info->dlpi_addr + ph->p_vaddr;
            hi = lo + ph->p_memsz;
        }
    }
    rewrite_object(w, path, info->dlpi_addr, lo, hi);
    return 0;
}

int scope__got_redirect(const char *name, uintptr_t target, uintptr_t stub)
{
    Dl_info self;
    struct walk w = { .name = name, .target = target, .stub = stub };
    if (dladdr((void *)scope__got_redirect, &self) && self.dli_fname)
        w.skip_path = self.dli_fname;
    dl_iterate_phdr(each_object, &w);
    if (w.failed && !w.written)
        return SCOPE_EACCES;
    return w.written;
}
