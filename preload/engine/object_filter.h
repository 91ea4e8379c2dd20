/*
 * object_filter.h - which loaded objects can define a function the config
 * names, decided from the object's in-memory dynamic string table without
 * reading its symbol table (object_filter.c). The engine (interpose.c)
 * reads and indexes only the objects that pass; with the default `MPI_*`
 * and the I/O calls that is libmpi and libc, out of the ~14 objects of an
 * MPI program at start-up and the ~50 components Open MPI dlopens in
 * MPI_Init.
 */
#ifndef SCOPE_OBJECT_FILTER_H
#define SCOPE_OBJECT_FILTER_H

#include <link.h>
#include <stddef.h>

#include "scope_config.h"
#include "symbols.h"

struct scope__objfilter;

/* Compiles what each entry of cfg requires of a string table; the
 * captures' defaults (line -1, exact names: the I/O calls) are instead
 * looked up by name in each object's GNU hash table, however many they
 * are. *out is NULL (no filtering: every object is read) when some entry
 * could match in any object (a glob with no literal start, `*_solve`) or
 * the config has too many other entries (over 64) for a scan per needle
 * to be cheaper than a read. Returns 0 or SCOPE_ENOMEM. */
int scope__objfilter_build(struct scope__objfilter **out, const scope_config *cfg);

void scope__objfilter_free(struct scope__objfilter *f);

/* What the engine does with a loaded object (scope__objfilter_look). */
enum {
    SCOPE_OBJFILTER_SKIP = 0,   /* no function of it can match an entry */
    SCOPE_OBJFILTER_READ = 1,   /* read it (scope__object_read) */
    SCOPE_OBJFILTER_PARTIAL = 2 /* only the captures' exact names can match
                                   there: *partial holds them (symbols.h) */
};

/* Whether the object at `path` (as loaded: info) must be read: READ when
 * a name may match an entry, the object has a .symtab (file-local
 * functions the in-memory tables do not list), an entry's object
 * qualifier names it, or anything is unclear; PARTIAL when only the
 * captures' exact names can match and it defines some (with partial
 * non-NULL: *partial is filled from the mapped tables, not read from the
 * file; NULL: READ instead); SKIP otherwise. f NULL: READ. Cost: open +
 * two preads of the ELF and section headers, a hash lookup per default
 * name (a bloom filter test, nanoseconds) and a memmem per needle over
 * the .dynstr already mapped; PARTIAL adds one pass over the mapped
 * .dynsym. */
int scope__objfilter_look(const struct scope__objfilter *f, const struct dl_phdr_info *info,
                          const char *path, int is_main, struct scope__object *partial);

/* Whether entry e's object qualifier (none: any object) names the object
 * with this path, basename and soname (NULL: none). */
int scope__entry_names_object(const scope_config_entry *e, const char *path, const char *base,
                              const char *soname);

/* 1 when p is a plain identifier (letters, digits, '_'; not starting
 * with a digit): a candidate for the Fortran rule (docs/interposition.md). */
int scope__plain_identifier(const char *p);

#endif /* SCOPE_OBJECT_FILTER_H */
