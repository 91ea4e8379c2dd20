/*
 * scope_config.h - the config file and SCOPE_* variables, parsed into one
 * options struct (internal to scope: used by the preload and the `scope`
 * tool, not installed).
 *
 * The reference of the format is docs/config.md. The parser runs inside the
 * profiled process (from the preload's constructor), so it never exits,
 * aborts or prints on its own: every problem comes back as a negative
 * SCOPE_E* code plus a message "<file>:<line>:<col>: <problem>" that the
 * caller prints once.
 */
#ifndef SCOPE_CONFIG_H
#define SCOPE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "scope_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Region kinds, as stored in the `kind` attribute (FORMAT.md). */
enum scope_kind { SCOPE_KIND_FUNCTION = 0, SCOPE_KIND_MPI = 1, SCOPE_KIND_MANUAL = 2 };

/* One "function to time" line. */
typedef struct scope_config_entry {
    char *pattern;      /* symbol or glob, without the object qualifier */
    char *object;       /* "libblas.so.3" from "libblas.so.3:dgemm_"; NULL = any */
    char *region;       /* region name to record under; NULL = the symbol's
                           (demangled) name */
    int is_glob;        /* pattern has *, ? or [...] */
    int demangled;      /* pattern is a C++ demangled name (has "::" or "(") */
    int kind;           /* enum scope_kind; MPI_* / PMPI_* patterns are mpi */
    int callsites;      /* call-site depth, 0 = off */
    int line;           /* line in the config file (0 for built-in defaults) */
} scope_config_entry;

typedef struct scope_config {
    char *path;                 /* file it came from; NULL for the default */
    char *text;                 /* the file's full text (stored in /metadata) */
    scope_config_entry *entries;
    size_t n_entries;
    char *output;               /* index file path (SCOPE_OUTPUT wins) */
    uint64_t memory_budget;     /* bytes (SCOPE_MEMORY_BUDGET wins) */
    char **include_exe;         /* globs on the executable's basename/path */
    size_t n_include_exe;
    char **exclude_exe;
    size_t n_exclude_exe;
    int verbose;                /* SCOPE_VERBOSE / `verbose = 1` */
    int is_default;             /* no config file: the built-in default */
} scope_config;

/* Parses `text` (named `path` in messages). On success returns 0 and sets
 * *out (free with scope__config_free). On error returns a negative SCOPE_E*
 * code, sets *out to NULL and writes "<path>:<line>:<col>: <problem>" into
 * err (at most errlen bytes, always NUL-terminated when errlen > 0). Does
 * not read the environment. Cost: linear in the text. */
int scope__config_parse(const char *text, const char *path, scope_config **out,
                       char *err, size_t errlen);

/* Reads and parses the file at `path`, then applies SCOPE_* variables.
 * An unreadable file is an error "<path>:0:0: cannot read: <strerror>". */
int scope__config_load(const char *path, scope_config **out, char *err, size_t errlen);

/* The built-in default (every MPI_* function, kind mpi), with SCOPE_*
 * variables applied. Returns 0 or SCOPE_ENOMEM. */
int scope__config_default(scope_config **out);

/* Applies SCOPE_OUTPUT, SCOPE_MEMORY_BUDGET and SCOPE_VERBOSE to cfg.
 * A malformed value is an error naming the variable. */
int scope__config_apply_env(scope_config *cfg, char *err, size_t errlen);

/* Whether the process running `exe` (absolute path or argv[0]) is a
 * target under cfg's include/exclude lists and the built-in exclusions of
 * launchers and shells (mpirun, mpiexec, orted, prted, bash, sh, ...).
 * Returns 1 or 0. */
int scope__config_wants_exe(const scope_config *cfg, const char *exe);

/* Writes a human-readable account of what cfg means (one line per entry and
 * setting) with the given write callback. Used by `scope check-config`. */
void scope__config_describe(const scope_config *cfg,
                           void (*write)(void *ctx, const char *line), void *ctx);

void scope__config_free(scope_config *cfg);

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_CONFIG_H */
