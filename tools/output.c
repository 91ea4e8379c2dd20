/*
 * output.c - the formats every `scope` command prints numbers and names
 * in (output.h): exact plain seconds for machines, short human units for
 * people, RFC 4180 csv fields, JSON strings, and aligned text tables.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"

/* Removes trailing zeros after a decimal point, then a bare point. */
static void trim_zeros(char *s)
{
    if (!strchr(s, '.'))
        return;
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == '0')
        s[--n] = '\0';
    if (n > 0 && s[n - 1] == '.')
        s[--n] = '\0';
    if (strcmp(s, "-0") == 0)
        strcpy(s, "0");
}

void scope__fmt_seconds_i64(char *buf, size_t len, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, len, "%s%llu.%09llu", ns < 0 ? "-" : "",
             (unsigned long long)(a / 1000000000u),
             (unsigned long long)(a % 1000000000u));
    trim_zeros(buf);
}

void scope__fmt_seconds_dbl(char *buf, size_t len, double ns)
{
    snprintf(buf, len, "%.9f", ns / 1e9);
    trim_zeros(buf);
}

void scope__fmt_ratio(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%.6f", v);
    trim_zeros(buf);
}

void scope__fmt_human(char *buf, size_t len, double ns)
{
    double a = ns < 0 ? -ns : ns;
    if (a < 999.5)
        snprintf(buf, len, "%.0f ns", ns);
    else if (a < 999995.0)
        snprintf(buf, len, "%.2f µs", ns / 1e3);
    else if (a < 999995000.0)
        snprintf(buf, len, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, len, "%.2f s", ns / 1e9);
}

void scope__put_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void scope__put_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '\t')
            fputs("\\t", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

void scope__table_init(scope__table *t, int ncols, const char *const *heads,
                       const int *right)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->heads = heads;
    t->right = right;
}

int scope__table_add(scope__table *t, const char *const *cells)
{
    size_t need = (t->nrows + 1) * (size_t)t->ncols;
    if (need > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : (size_t)t->ncols * 16;
        while (ncap < need)
            ncap *= 2;
        char **q = realloc(t->cells, ncap * sizeof *q);
        if (!q)
            return -1;
        t->cells = q;
        t->cap = ncap;
    }
    char **row = t->cells + t->nrows * (size_t)t->ncols;
    for (int c = 0; c < t->ncols; c++) {
        if (!(row[c] = strdup(cells[c]))) {
            while (c-- > 0)
                free(row[c]);
            return -1;
        }
    }
    t->nrows++;
    return 0;
}

/* Characters, not bytes: UTF-8 continuation bytes do not count. */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void put_cell(FILE *out, const char *s, size_t w, int right, int last)
{
    size_t pad = w - width(s);
    if (right)
        fprintf(out, "%*s%s", (int)pad, "", s);
    else
        fprintf(out, "%s%*s", s, last ? 0 : (int)pad, "");
}

void scope__table_print(const scope__table *t, FILE *out)
{
    size_t w[64] = { 0 };
    int nc = t->ncols < 64 ? t->ncols : 64;
    for (int c = 0; c < nc; c++) {
        w[c] = width(t->heads[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t x = width(t->cells[r * (size_t)t->ncols + (size_t)c]);
            if (x > w[c])
                w[c] = x;
        }
    }
    for (int c = 0; c < nc; c++) {
        fputs(c ? "  " : "", out);
        put_cell(out, t->heads[c], w[c], t->right[c], c == nc - 1);
    }
    fputc('\n', out);
    for (size_t r = 0; r < t->nrows; r++) {
        for (int c = 0; c < nc; c++) {
            fputs(c ? "  " : "", out);
            put_cell(out, t->cells[r * (size_t)t->ncols + (size_t)c], w[c],
                     t->right[c], c == nc - 1);
        }
        fputc('\n', out);
    }
}

void scope__table_free(scope__table *t)
{
    for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}
