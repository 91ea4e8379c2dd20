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

/* A csv field (RFC 4180: quoted when it holds , " CR or LF) and a JSON
 * string literal (with quotes; control characters escaped). */
void scope__put_csv_field(FILE *out, const char *s);
void scope__put_json_string(FILE *out, const char *s);

/* A text table whose columns are as wide as their widest cell (counted in
 * characters, not bytes, so "µs" aligns), separated by two spaces. */
typedef struct {
    int ncols;
    const char *const *heads;
    const int *right;       /* per column: 1 = right-aligned (numbers) */
    char **cells;           /* nrows * ncols, owned */
    size_t nrows, cap;
} scope__table;

void scope__table_init(scope__table *t, int ncols, const char *const *heads,
                       const int *right);
/* Copies one row of ncols strings. Returns 0 or -1 (out of memory). */
int scope__table_add(scope__table *t, const char *const *cells);
void scope__table_print(const scope__table *t, FILE *out);
void scope__table_free(scope__table *t);

#endif
