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

/* 0 when no function of the object at `path` (as loaded: info) can match
 * an entry, so it need not be read; 1 when it must be read: a name may
 * match, the object has a .symtab (file-local functions the in-memory
 * tables do not list), an entry's object qualifier names it, or anything
 * is unclear. f NULL: 1. Cost: open + two preads of the ELF and section
 * headers, then a hash lookup per default name (a bloom filter test,
 * nanoseconds) and a memmem per needle over the .dynstr already mapped. */
int scope__objfilter_may_match(const struct scope__objfilter *f, const struct dl_phdr_info *info,
                               const char *path, int is_main);

/* Whether entry e's object qualifier (none: any object) names the object
 * with this path, basename and soname (NULL: none). */
int scope__entry_names_object(const scope_config_entry *e, const char *path, const char *base,
                              const char *soname);

/* 1 when p is a plain identifier (letters, digits, '_'; not starting
 * with a digit): a candidate for the Fortran rule (docs/interposition.md). */
int scope__plain_identifier(const char *p);

#endif /* SCOPE_OBJECT_FILTER_H */
