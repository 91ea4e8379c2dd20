/*
 * config_internal.h - helpers shared by the files of config/ (number and
 * glob syntax, backslash escapes, building a config struct). Not used
 * outside config/; every name is scope__cfg_* and hidden in the library.
 */
#ifndef SCOPE_CONFIG_INTERNAL_H
#define SCOPE_CONFIG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "scope_config.h"
#include "settings.h"
#include "size_parse.h"

/* Results of scope__parse_size (size_parse.h, byte counts). */
#define SCOPE__CFG_NUM_OK SCOPE__SIZE_OK
#define SCOPE__CFG_NUM_BAD SCOPE__SIZE_BAD      /* not a number; *bad = offending offset */
#define SCOPE__CFG_NUM_RANGE SCOPE__SIZE_RANGE  /* does not fit in 64 bits */

/* Checks the glob syntax of s[0..n) the way fnmatch(3) reads it (backslash
 * escapes, [...] with ! or ^, ] first, [:class:]). Returns -1 when fine, or
 * the offset of the problem and sets *why: an unterminated '[', or a '\'
 * at the end. Sets *is_glob to whether an unescaped *, ? or [ appears. */
long scope__cfg_glob_check(const char *s, size_t n, const char **why, int *is_glob);

/* Offset just past the ']' that closes the bracket expression opening at
 * s[i] == '[' (fnmatch rules), or 0 when it is not closed before s + n. */
size_t scope__cfg_bracket_end(const char *s, size_t n, size_t i);

/* A malloc'd copy of s[0..n) with backslash escapes removed ("\x" -> "x").
 * NULL when out of memory. */
char *scope__cfg_unescape(const char *s, size_t n);

/* A zeroed config with the built-in settings (no entries, no path). NULL when
 * out of memory. */
scope_config *scope__cfg_new(void);

/* Appends the default entries (every MPI_* and every MPIX_* function,
 * kind mpi, line 0) to cfg. Returns 0 or SCOPE_ENOMEM. */
int scope__cfg_add_default_entries(scope_config *cfg);

/* The built-in exclusions of scope__config_wants_exe: fnmatch patterns on
 * the executable's basename (launchers, shells, wrappers). Sets *n. */
const char *const *scope__cfg_builtin_excluded(size_t *n);

#endif /* SCOPE_CONFIG_INTERNAL_H */
