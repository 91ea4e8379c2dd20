/*
 * settings.h - the one table of scope's settings: every SCOPE_* variable
 * (and the config-file key that sets the same thing) declared once, with
 * its type, default, grammar and documentation line (settings_table.c),
 * one parser for their values and one process-wide reading of the
 * environment (settings.c).
 *
 * It lives on the libc-only floor (base/) because every part reads
 * settings: the recorder (runtime/, linked alone into libscope.so), the
 * config layer, the preload, the reader library and the `scope` tool, and
 * no floor may include from one above it (docs/design.md, "Settings").
 * No file outside base/settings*.c calls getenv() on a SCOPE_* variable
 * (tests/config/check_settings_docs.py checks it); docs/config.md is
 * checked against this table by the same test.
 */
#ifndef SCOPE_SETTINGS_H
#define SCOPE_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

/* Every setting; the keys in the order the config's "unknown key" message
 * lists them. */
enum scope_setting_id {
    SCOPE_SET_CONFIG,           /* SCOPE_CONFIG */
    SCOPE_SET_OUTPUT,           /* SCOPE_OUTPUT, key output */
    SCOPE_SET_MEMORY_BUDGET,    /* SCOPE_MEMORY_BUDGET, key memory_budget */
    SCOPE_SET_INCLUDE,          /* key include only */
    SCOPE_SET_EXCLUDE,          /* key exclude only */
    SCOPE_SET_CALLSITES,        /* key callsites only */
    SCOPE_SET_VERBOSE,          /* SCOPE_VERBOSE, key verbose */
    SCOPE_SET_JOURNAL_DIR,      /* SCOPE_JOURNAL_DIR, key journal_dir */
    SCOPE_SET_HOST_FILES,
    SCOPE_SET_CLOCK,
    SCOPE_SET_TRAMPOLINE,
    SCOPE_SET_CLOCK_ROUND_NS,
    SCOPE_SET_READER_JOBS,
    SCOPE_SET_MPI_DATA,
    SCOPE_SET_DEATH_WAIT,
    SCOPE_SET_H5WRITER,
    SCOPE_SET_OPEN_TIMEOUT,
    SCOPE_SET_PRELOAD,
    SCOPE_SET_SIGNALS,
    SCOPE_SET_CLOCK_DRIFT_PPM,
    SCOPE_SET_CLOCK_FANOUT,
    SCOPE_SET_IO,               /* SCOPE_IO, key io */
    SCOPE_SET_IO_EXCLUDE,       /* SCOPE_IO_EXCLUDE, key io_exclude */
    SCOPE_SET_IO_FILES,         /* SCOPE_IO_FILES, key io_files */
    SCOPE_SET_FINALIZE_WAIT,
    SCOPE_SET_COUNT
};

/* The words' indices (value u) of the WORD settings, in the order of
 * their `words`. */
enum { SCOPE_HOST_FILES_OFF, SCOPE_HOST_FILES_ON, SCOPE_HOST_FILES_AUTO };
enum { SCOPE_TRAMPOLINE_CALL, SCOPE_TRAMPOLINE_REDIRECT };
/* SCOPE_IO's words are 0|1|off|on: the low bit of the index is the value */
#define SCOPE_IO_ON(word_index) ((int)((word_index) & 1u))

/* The value types; each has one grammar (scope__setting_grammar). */
enum scope_setting_type {
    SCOPE_SETTING_FLAG,         /* "0" or "1" */
    SCOPE_SETTING_WORD,         /* one of the words of `words` */
    SCOPE_SETTING_SIZE,         /* a byte count, base/size_parse.h */
    SCOPE_SETTING_COUNT,        /* whole number in [min, max] */
    SCOPE_SETTING_DURATION,     /* whole number of `unit`s in [min, max] */
    SCOPE_SETTING_INTEGER,      /* optional '-' and digits, in [min, max] */
    SCOPE_SETTING_PATH,         /* any non-empty text, a file or folder */
    SCOPE_SETTING_GLOB          /* config key only: an fnmatch glob, repeatable */
};

typedef struct scope_setting {
    const char *var;            /* "SCOPE_OUTPUT"; NULL: a config key only */
    const char *key;            /* config-file key; NULL: a variable only */
    int type;                   /* enum scope_setting_type */
    const char *words;          /* WORD: the accepted words, '|'-separated */
    int64_t min, max;           /* COUNT, DURATION, INTEGER, SIZE bounds */
    const char *unit;           /* DURATION: "s" or "ns" */
    const char *dflt;           /* the default, written as a value of the
                                   grammar ("64M", "10", "auto"); NULL: no
                                   value, `unset` says what happens */
    const char *unset;          /* dflt == NULL: what unset means */
    const char *read_by;        /* which part reads it */
    const char *doc;            /* one line of documentation */
} scope_setting;

/* A parsed value. */
enum scope_setting_state {
    SCOPE_SETTING_UNSET = 0,    /* unset or empty: the default applies */
    SCOPE_SETTING_SET = 1,      /* a good value */
    SCOPE_SETTING_BAD = -1      /* malformed: `problem` says why, the
                                   default applies */
};

typedef struct scope_setting_value {
    int state;                  /* enum scope_setting_state */
    const char *text;           /* the variable's text (NULL when unset);
                                   points into the environment */
    uint64_t u;                 /* FLAG, SIZE, COUNT, DURATION; WORD: the
                                   word's index in `words` */
    int64_t i;                  /* INTEGER */
    size_t bad_at;              /* BAD, syntax: offset of the first
                                   character that cannot be there */
    int rule;                   /* BAD: 1 when `problem` is a rule that reads
                                   after the setting's name ("must be ...") */
    char problem[224];          /* BAD: "bad number '12X'", "must be 0 or 1,
                                   not 'yes'" */
} scope_setting_value;

/* The table's row of `id` (0 <= id < SCOPE_SET_COUNT). */
const scope_setting *scope__setting_def(int id);

/* The row whose variable is `var`, or -1. */
int scope__setting_by_var(const char *var);

/* The row whose config key is s[0..n), or -1. */
int scope__setting_by_key(const char *s, size_t n);

/* Parses s[0..n) as a value of setting `id` into *out (state SET or BAD,
 * text left to the caller). The only parser of settings: the config
 * file's keys and the variables both use it. Cost: O(n). */
void scope__setting_parse(int id, const char *s, size_t n, scope_setting_value *out);

/* The default of `id` parsed (state UNSET); for a setting without one,
 * zeros and text NULL. */
scope_setting_value scope__setting_default(int id);

/* The grammar of `id` in words ("0 or 1", "a byte count such as 64M or
 * 1GiB, greater than 0", "a whole number of seconds from 0 to 3600"), as
 * docs/config.md shows it. Writes at most len bytes; returns buf. */
const char *scope__setting_grammar(int id, char *buf, size_t len);

/* --- the process's one reading of the environment --------------------- */

/* The value of variable `id` as this process read it: every variable of
 * the table is read from the environment once, at the first call, and
 * parsed once; later calls return the same values. Thread-safe; no
 * allocation. A malformed value's state is BAD and the default's numbers
 * are in u/i, so a caller may use u/i whatever the state. */
const scope_setting_value *scope__setting(int id);

/* The number (u) of `id`: the variable's when it is good, else the
 * default's. */
uint64_t scope__setting_u(int id);

/* The text of `id` when set and good (paths: any non-empty text), else
 * NULL. */
const char *scope__setting_text(int id);

/* "SCOPE_X: <problem>" for a BAD variable into buf (len bytes); "" when it
 * is not BAD. Returns buf. */
const char *scope__setting_message(int id, char *buf, size_t len);

/* Says "scope: SCOPE_X: <problem>; <then>" (or without "; <then>" when
 * then is NULL) on standard error in one write, at most once per process
 * and variable, when `id` is BAD. Returns 1 if it said it now, else 0.
 * Async-signal-safe once scope__setting(id) has been called. */
int scope__setting_say(int id, const char *then);

/* As scope__setting_say for a value read with scope__setting_read_now
 * (same once-per-process flag). */
int scope__setting_say_value(int id, const scope_setting_value *v, const char *then);

/* Reads the environment again, now (for tests that change it, and for a
 * process that must see a change made by itself). Not thread-safe against
 * concurrent readers. */
void scope__settings_reread(void);

/* Reads one variable from the environment now, without touching the
 * process's reading (for the reader library, which runs inside long-lived
 * programs that may change the variable between two opens). */
void scope__setting_read_now(int id, scope_setting_value *out);

#endif /* SCOPE_SETTINGS_H */
