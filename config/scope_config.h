/*
 * scope_config.h - the config file and SCOPE_* variables, parsed into one
 * options struct (internal to scope: used by the preload and the `scope`
 * tool, not installed).
 *
 * The reference of the format is docs/config.md. The parser runs inside the
 * profiled process (from the preload's constructor), so it never exits,
 * aborts or prints on its own, keeps no global state and allocates only
 * what the returned struct owns: every problem comes back as a negative
 * SCOPE_E* code plus a message "<file>:<line>:<col>: <problem>" (or
 * "SCOPE_VAR: <problem>" for a bad variable) that the caller prints once,
 * prefixed with "scope: ".
 */
#ifndef SCOPE_CONFIG_H
#define SCOPE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "scope_error.h"
#include "scope_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Region kinds (enum scope_kind) are part of the format: scope_format.h. */

/* The defaults, grammars and bounds of the settings (output, memory_budget,
 * callsites, verbose, ...) are base/settings_table.c's, shared with the
 * recorder: none is repeated here. */

/* Where a setting's value came from (printed by `scope check-config`). */
enum scope_config_source {
    SCOPE_SRC_DEFAULT = 0,      /* built-in value */
    SCOPE_SRC_FILE = 1,         /* a `key = value` line; see origin.line */
    SCOPE_SRC_ENV = 2           /* a SCOPE_* variable; see origin.env */
};

typedef struct scope_config_origin {
    int source;                 /* enum scope_config_source */
    int line;                   /* SCOPE_SRC_FILE: line of the setting */
    const char *env;            /* SCOPE_SRC_ENV: the variable's name (static) */
} scope_config_origin;

/* One "function to time" line. */
typedef struct scope_config_entry {
    char *pattern;      /* symbol or glob, without the object qualifier. When
                           is_glob, an fnmatch(3) pattern (backslash escapes
                           kept); otherwise the exact name, escapes removed */
    char *object;       /* "libblas.so.3" from "libblas.so.3:dgemm_"; NULL = any.
                           Same convention as pattern, see object_is_glob */
    char *region;       /* region name to record under; NULL = the symbol's
                           (demangled) name */
    int is_glob;        /* pattern has an unescaped *, ? or [...] */
    int object_is_glob; /* object has an unescaped *, ? or [...] */
    int demangled;      /* pattern is a C++ demangled name (has "::", "(" or "<") */
    int kind;           /* enum scope_kind; MPI_* / PMPI_* patterns are mpi */
    int callsites;      /* call-site depth 0..16, 0 = off (the global
                           `callsites` when the entry gives none) */
    int line;           /* line in the config file (0 for built-in defaults) */
} scope_config_entry;

typedef struct scope_config {
    char *path;                 /* file it came from; NULL for the default */
    char *text;                 /* the file's full text (stored in /metadata);
                                   NULL for the default */
    scope_config_entry *entries;
    size_t n_entries;           /* never 0: a file naming no function gets the
                                   default list (every MPI_*) */
    char *output;               /* index file path (SCOPE_OUTPUT wins) */
    char *journal_dir;          /* the journals' folder, NULL = the ranks
                                   folder (SCOPE_JOURNAL_DIR wins; checked
                                   by the recorder, runtime/journal_dir.c) */
    uint64_t memory_budget;     /* bytes, > 0 (SCOPE_MEMORY_BUDGET wins) */
    char **include_exe;         /* globs on the executable's basename/path */
    size_t n_include_exe;
    char **exclude_exe;
    size_t n_exclude_exe;
    int verbose;                /* 0 or 1: SCOPE_VERBOSE / `verbose = 1` */
    int io;                     /* 0 or 1: `io = off|on` / SCOPE_IO */
    char *io_exclude;           /* `io_exclude` / SCOPE_IO_EXCLUDE: folders,
                                   comma-separated, or "none" */
    uint64_t io_files;          /* `io_files` / SCOPE_IO_FILES */
    int callsites;              /* global default call-site depth, 0..16 */
    int is_default;             /* no config file: the built-in default */
    int entries_defaulted;      /* a file named no function: entries are the
                                   built-in default list */
    scope_config_origin output_from, memory_budget_from, verbose_from,
                        callsites_from, journal_dir_from, io_from, io_exclude_from,
                        io_files_from;
} scope_config;

/* Parses `text` (named `path` in messages; "<config>" when NULL). On success
 * returns 0 and sets *out (free with scope__config_free). On error returns a
 * negative SCOPE_E* code (SCOPE_ECONFIG for a mistake in the text,
 * SCOPE_ENOMEM), sets *out to NULL and writes "<path>:<line>:<col>: <problem>"
 * into err (at most errlen bytes, always NUL-terminated when errlen > 0).
 * Does not read the environment. Cost: linear in the text, plus a pairwise
 * duplicate check over the function entries. */
int scope__config_parse(const char *text, const char *path, scope_config **out,
                       char *err, size_t errlen);

/* Reads and parses the file at `path`, then applies SCOPE_* variables.
 * An unreadable file is an error "<path>:0:0: cannot read: <strerror>"
 * (SCOPE_ENOENT, SCOPE_EACCES or SCOPE_EIO); a file holding a NUL byte is
 * SCOPE_ECONFIG at that byte. Otherwise as scope__config_parse. */
int scope__config_load(const char *path, scope_config **out, char *err, size_t errlen);

/* The built-in default (every MPI_* function, kind mpi), with SCOPE_*
 * variables applied. Returns 0, SCOPE_ENOMEM, or SCOPE_ECONFIG when a
 * variable is malformed (message in err, *out NULL). */
int scope__config_default(scope_config **out, char *err, size_t errlen);

/* What the preload does at start-up: scope__config_load(SCOPE_CONFIG) when
 * that variable is set and non-empty, scope__config_default otherwise.
 * Same return contract. */
int scope__config_from_env(scope_config **out, char *err, size_t errlen);

/* Applies SCOPE_OUTPUT, SCOPE_JOURNAL_DIR, SCOPE_MEMORY_BUDGET and
 * SCOPE_VERBOSE, as the process read them once (base/settings.h; a test that
 * changes them calls scope__settings_reread), to cfg (an empty variable
 * counts as unset). A malformed value is SCOPE_ECONFIG with a
 * message naming the variable ("SCOPE_MEMORY_BUDGET: bad number '12X'") and
 * leaves cfg unchanged; SCOPE_ENOMEM likewise. */
int scope__config_apply_env(scope_config *cfg, char *err, size_t errlen);

/* Whether the process running `exe` (absolute path or argv[0]) is a
 * target. In order: a match of an `exclude` glob says no; a non-empty
 * `include` list says yes exactly for its matches; otherwise the built-in
 * exclusions (launchers and shells: mpirun, mpiexec, orted, prted, bash,
 * sh, ...; see docs/config.md) say no and everything else yes. A glob
 * without '/' is matched against the basename, one with '/' against the
 * path (or a part of it that starts after a '/'). NULL or "" is never a
 * target. Returns 1 or 0. Cost: one fnmatch per glob. */
int scope__config_wants_exe(const scope_config *cfg, const char *exe);

/* Writes a human-readable account of what cfg means (one line per entry and
 * setting, no trailing newline) with the given write callback. Used by
 * `scope check-config`; the lines are documented in docs/config.md. */
void scope__config_describe(const scope_config *cfg,
                           void (*write)(void *ctx, const char *line), void *ctx);

/* Frees cfg and everything it owns; NULL is a no-op. */
void scope__config_free(scope_config *cfg);

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_CONFIG_H */
