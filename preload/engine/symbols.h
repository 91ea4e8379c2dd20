/*
 * symbols.h - the functions a loaded object defines, read from its ELF file
 * with libelf, and the C++ demangler the engine borrows from the process.
 *
 * The engine matches config patterns against these lists. An object is read
 * once, when the engine first looks at it (at start-up for everything
 * already loaded, at dlopen time for the rest); the ELF data stays mapped
 * only while it is being matched.
 */
#ifndef SCOPE_SYMBOLS_H
#define SCOPE_SYMBOLS_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One function symbol of an object. `name` points into the object's
 * string table and lives as long as the scope__object it came from. */
struct scope__sym {
    const char *name;
    uintptr_t addr;         /* run-time address (load bias applied) */
    uint64_t size;          /* st_size; 0 when the symbol does not say */
    uint8_t ifunc;          /* STT_GNU_IFUNC: addr is the resolver */
    uint8_t bind;           /* STB_LOCAL / STB_GLOBAL / STB_WEAK */
};

struct scope__object {
    char *path;             /* as the link map names it; exe: /proc/self/exe target */
    const char *base;       /* basename of path */
    char *soname;           /* DT_SONAME or NULL */
    uintptr_t bias;         /* load bias (l_addr) */
    int is_main;
    int from_symtab;        /* 1: .symtab was read, 0: only .dynsym */
    int partial;            /* 1: not every function, only some names' and
                               the symbols at or around them
                               (scope__object_adopt) */
    struct scope__sym *syms;    /* sorted by address */
    size_t n_syms;
    void *elf;              /* private: the open Elf while names are in use */
    int fd;
    char *names;            /* private: a partial object's names */
};

/* Whether a symbol-table entry is a function scope__object_read keeps: a
 * defined FUNC or IFUNC at a nonzero address. (GElf_Sym is Elf64_Sym.) */
static inline int scope__sym_is_function(const Elf64_Sym *s)
{
    int type = ELF64_ST_TYPE(s->st_info);
    return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF &&
           s->st_value != 0;
}

/* Whether such a function's name is kept: not empty, and not a part GCC's
 * hot/cold split made ("f.cold": reached by jumps, never a function
 * entry, so never a candidate). */
static inline int scope__sym_name_kept(const char *name)
{
    return name && *name && !strstr(name, ".cold");
}

/* Reads the function symbols of the object at `path` loaded with bias
 * `bias` (.symtab when the file has one, else .dynsym; undefined and
 * zero-address symbols are skipped). Returns 0, SCOPE_ENOENT/SCOPE_EACCES
 * when the file cannot be opened, SCOPE_EFORMAT when it is not ELF,
 * SCOPE_ENOMEM. Cost: one pass over the symbol table plus a radix sort. */
int scope__object_read(struct scope__object *o, const char *path, uintptr_t bias,
                       int is_main);

/* Makes *o a partial object (o->partial) of the object at `path` from
 * symbols found without reading the file (object_filter.c looks a few
 * names up in the object's mapped hash table): syms[0..n) in symbol-table
 * order, their names in the block `names`; *o takes both (malloc'd) and
 * sorts syms as scope__object_read does. soname may be NULL. Returns 0 or
 * SCOPE_ENOMEM (syms and names freed). Cost: the sort of n symbols. */
int scope__object_adopt(struct scope__object *o, const char *path, uintptr_t bias, int is_main,
                        const char *soname, struct scope__sym *syms, size_t n, char *names);

/* Releases what scope__object_read or scope__object_adopt took; names
 * become invalid. */
void scope__object_close(struct scope__object *o);

/* The index of the first symbol (by address) at `addr` or after it:
 * o->n_syms when none. O(log n). */
size_t scope__object_first_at(const struct scope__object *o, uintptr_t addr);

/* The function symbol whose [addr, addr+size) contains `addr`, preferring
 * one that starts exactly there; NULL when none. O(log n). */
const struct scope__sym *scope__object_find(const struct scope__object *o, uintptr_t addr);

/* Demangles a C++ symbol with the process's own __cxa_demangle (present
 * when libstdc++ is loaded). Returns a malloc'd string, or NULL when the
 * name is not mangled or no demangler is available. */
char *scope__demangle(const char *mangled);

/* 1 when a demangler is available in this process. */
int scope__demangler_available(void);

#endif /* SCOPE_SYMBOLS_H */
