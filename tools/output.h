/*
 * output.h - number formats and table/csv/json writing shared by the
 * `scope` subcommands, so every command prints seconds, units and quoted
 * names the same way.
 */
#ifndef SCOPE_TOOLS_OUTPUT_H
#define SCOPE_TOOLS_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Plain decimal seconds, no exponent, trailing zeros removed:
 * 650000000 ns -> "0.65", 3000000000 -> "3", 1 -> "0.000000001".
 * The int64 form is exact; the double form rounds to the nanosecond. */
void scope__fmt_seconds_i64(char *buf, size_t len, int64_t ns);
void scope__fmt_seconds_dbl(char *buf, size_t len, double ns);

/* Plain decimal with at most 6 decimals, trailing zeros removed. */
void scope__fmt_ratio(char *buf, size_t len, double v);

/* A duration for people: "812 ns", "3.25 µs", "650.00 ms", "1.04 s". */
void scope__fmt_human(char *buf, size_t len, double ns);

/* A byte count for people: "0", "512 B", "3.4 MiB" (powers of 1024). */
void scope__fmt_bytes(char *buf, size_t len, int64_t bytes);

/* A csv field (RFC 4180: quoted when it holds , " CR or LF) and a JSON
 * string literal (with quotes; control characters escaped). */
void scope__put_csv_field(FILE *out, const char *s);
void scope__put_json_string(FILE *out, const char *s);

/* The width a table on `out` must fit, in characters; 0 = no limit.
 * wide (--wide): 0. out a terminal: its width (TIOCGWINSZ), else
 * $COLUMNS. Not a terminal: $COLUMNS when set (an explicit request, as
 * for `COLUMNS=100 scope summary ... | less`), else 0. Cost: one ioctl. */
int scope__out_width(FILE *out, int wide);

/* Writes s shortened to at most w characters (UTF-8 code points; cuts
 * only between whole characters) into a malloc'd string, "…" marking
 * what was left out; s unchanged when it fits. Made for C++ and Fortran
 * names: leading indentation stays, then the start of the qualification,
 * the function's own name with its "(" and as much of the argument list
 * as fits. "LAMMPS_NS::Pair::ev_tally(int, int, ...)" in 30 gives
 * "LAMMPS_NS::Pair::ev_tally(int…"; in 22 "LAM…::Pair::ev_tally(…".
 * Returns NULL when out of memory. Cost: O(strlen(s)). */
char *scope__elide(const char *s, int w);

/* s shortened to at most w characters (w >= 2) by cutting its start, "…"
 * marking the cut, for text whose end says most (a file's path); s
 * unchanged when it fits. malloc'd; NULL when out of memory. Cost:
 * O(strlen(s)). */
char *scope__elide_start(const char *s, int w);

/* Display width of a UTF-8 string: characters, not bytes. */
size_t scope__text_width(const char *s);

/* A text table whose columns are as wide as their widest cell (counted in
 * characters, not bytes, so "µs" aligns), separated by two spaces. With a
 * width limit (scope__table_fit), the columns marked shrinkable (names)
 * give up characters, widest first, down to SCOPE__MIN_NAME_WIDTH, and
 * their cells are shortened by scope__elide; numbers are never cut. */
#define SCOPE__MIN_NAME_WIDTH 12

typedef struct {
    int ncols;
    const char *const *heads;
    const int *right;       /* per column: 1 = right-aligned (numbers) */
    char **cells;           /* nrows * ncols, owned */
    size_t nrows, cap;
    int max_width;          /* 0: no limit */
    const int *shrink;      /* per column: 1 = may be elided; NULL: none */
} scope__table;

void scope__table_init(scope__table *t, int ncols, const char *const *heads,
                       const int *right);
/* Limits the printed width to max_width characters (0: none); shrink
 * marks the columns that may be elided. */
void scope__table_fit(scope__table *t, int max_width, const int *shrink);
/* Copies one row of ncols strings. Returns 0 or -1 (out of memory). */
int scope__table_add(scope__table *t, const char *const *cells);
/* Returns 0, or -1 when out of memory (nothing printed). */
int scope__table_print(const scope__table *t, FILE *out);
void scope__table_free(scope__table *t);

#endif
