/*
 * output.c - the formats every `scope` command prints numbers and names
 * in (output.h): exact plain seconds for machines, short human units for
 * people, RFC 4180 csv fields, JSON strings, and aligned text tables
 * that fit the terminal by shortening long names in the middle (a C++
 * name's start and its function's own name stay readable).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "output.h"

#define ELLIPSIS "\xe2\x80\xa6"  /* U+2026, one character, three bytes */

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
size_t scope__text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

void scope__fmt_bytes(char *buf, size_t len, int64_t bytes)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    double b = (double)bytes;
    int u = 0;
    if (bytes == 0) {
        snprintf(buf, len, "0");
        return;
    }
    while (b >= 1024 && u < 6) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

int scope__out_width(FILE *out, int wide)
{
    if (wide)
        return 0;
    int fd = fileno(out);
    struct winsize ws;
    if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *env = getenv("COLUMNS");
    char *end;
    long v = env && *env ? strtol(env, &end, 10) : 0;
    return env && *env && !*end && v > 0 && v < 100000 ? (int)v : 0;
}

/* Characters in s[from, to). */
static size_t chars_in(const char *s, size_t from, size_t to)
{
    size_t n = 0;
    for (size_t i = from; i < to; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* The byte offset n characters after byte `from` (or the end). */
static size_t skip_chars(const char *s, size_t from, size_t n)
{
    size_t i = from;
    while (s[i] && n > 0) {
        i++;
        while (((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        n--;
    }
    return i;
}

/* The byte offset where the last n characters before byte `to` start
 * (never before `from`). */
static size_t back_chars(const char *s, size_t from, size_t to, size_t n)
{
    size_t i = to;
    while (i > from && n > 0) {
        i--;
        while (i > from && ((unsigned char)s[i] & 0xC0) == 0x80)
            i--;
        n--;
    }
    return i;
}

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

/* Where a demangled name's parts are: *own = the byte where the function's
 * own name starts (after the last "::" or return-type space outside
 * template brackets), *args = its argument list's "(" (or strlen(s) for a
 * name without one). Knows "operator()", "operator<" and friends,
 * "(anonymous namespace)" and lambdas' "{lambda(int)#1}". */
static void name_parts(const char *s, size_t *own, size_t *args)
{
    int angle = 0, paren = 0, brace = 0;
    size_t i = 0, sep = 0;
    while (s[i]) {
        char c = s[i];
        if (strncmp(s + i, "operator", 8) == 0 && (i == 0 || !ident_char(s[i - 1])) &&
            !ident_char(s[i + 8])) {
            i += 8;
            while (s[i] == ' ')
                i++;
            if (strncmp(s + i, "()", 2) == 0)
                i += 2;
            else
                while (s[i] && strchr("<>=!+-*/%^&|~[],", s[i]))
                    i++;
            continue;
        }
        int top = angle == 0 && paren == 0 && brace == 0;
        if (top && c == '(' && strncmp(s + i, "(anonymous namespace)", 21) == 0) {
            i += 21;
            continue;
        }
        if (top && c == '(')
            break;
        if (top && c == ':' && s[i + 1] == ':') {
            sep = i + 2;
            i += 2;
            continue;
        }
        if (top && c == ' ') {
            size_t j = i;
            while (s[j] == ' ')
                j++;
            if (s[j] != '(' && s[j])
                sep = j;
            i = j;
            continue;
        }
        angle += (c == '<') - (c == '>' && angle > 0);
        paren += (c == '(') - (c == ')' && paren > 0);
        brace += (c == '{') - (c == '}' && brace > 0);
        i++;
    }
    *args = i;
    *own = sep <= i ? sep : 0;
}

/* Appends s[from, to) to the buffer at *o. */
static void put_bytes(char *buf, size_t *o, const char *s, size_t from, size_t to)
{
    memcpy(buf + *o, s + from, to - from);
    *o += to - from;
}

char *scope__elide_start(const char *s, int w)
{
    size_t len = strlen(s), n = chars_in(s, 0, len);
    if (w < 2 || n <= (size_t)w)
        return strdup(s);
    size_t from = back_chars(s, 0, len, (size_t)w - 1);
    char *buf = malloc(sizeof ELLIPSIS + len - from);
    if (buf)
        sprintf(buf, "%s%s", ELLIPSIS, s + from);
    return buf;
}

char *scope__elide(const char *s, int w)
{
    size_t len = strlen(s), n = chars_in(s, 0, len), o = 0;
    char *buf = malloc(len + 2 * sizeof ELLIPSIS + 1);
    if (!buf)
        return NULL;
    if (w < 1 || n <= (size_t)w) {
        memcpy(buf, s, len + 1);
        return buf;
    }
    size_t ind = 0;
    while (s[ind] == ' ' && ind + 8 < (size_t)w)
        ind++;              /* a tree's indentation stays */
    const char *b = s + ind;
    size_t bl = len - ind, W = (size_t)w - ind, own, args;
    name_parts(b, &own, &args);
    size_t pend = args < bl ? args + 1 : args;          /* past the "(" */
    size_t ca = chars_in(b, 0, own), co = chars_in(b, own, pend);
    int more = pend < bl;                               /* arguments follow */
    put_bytes(buf, &o, s, 0, ind);
    if (ca + co + 1 <= W || ca == 0 || W < 6) {
        /* the start and the own name fit: cut the end (plain names too) */
        put_bytes(buf, &o, b, 0, skip_chars(b, 0, W - 1));
        put_bytes(buf, &o, ELLIPSIS, 0, 3);
    } else if (co + (size_t)more + 2 <= W) {
        /* cut the middle of the qualification: its start and its end (the
         * class nearest the name) stay, then the own name and "(…" */
        size_t room = W - co - (size_t)more - 1, head = room / 3 ? room / 3 : 1;
        put_bytes(buf, &o, b, 0, skip_chars(b, 0, head));
        put_bytes(buf, &o, ELLIPSIS, 0, 3);
        put_bytes(buf, &o, b, back_chars(b, 0, own, room - head), pend);
        if (more)
            put_bytes(buf, &o, ELLIPSIS, 0, 3);
    } else {
        /* the own name alone is too long: its start */
        put_bytes(buf, &o, ELLIPSIS, 0, 3);
        put_bytes(buf, &o, b, own, skip_chars(b, own, W - 2));
        put_bytes(buf, &o, ELLIPSIS, 0, 3);
    }
    buf[o] = '\0';
    return buf;
}

static void put_cell(FILE *out, const char *s, size_t w, int right, int last)
{
    size_t sw = scope__text_width(s), pad = w > sw ? w - sw : 0;
    if (right)
        fprintf(out, "%*s%s", (int)pad, "", s);
    else
        fprintf(out, "%s%*s", s, last ? 0 : (int)pad, "");
}

void scope__table_fit(scope__table *t, int max_width, const int *shrink)
{
    t->max_width = max_width;
    t->shrink = shrink;
}

/* Narrows the shrinkable columns until the table fits t->max_width:
 * one character at a time from the widest, so long names share the room
 * left by the numbers. */
static void fit_widths(const scope__table *t, size_t *w, int nc)
{
    if (t->max_width <= 0 || !t->shrink)
        return;
    size_t total = 2 * (size_t)(nc - 1), limit = (size_t)t->max_width;
    for (int c = 0; c < nc; c++)
        total += w[c];
    while (total > limit) {
        int widest = -1;
        for (int c = 0; c < nc; c++) {
            size_t floor = scope__text_width(t->heads[c]);
            if (floor < SCOPE__MIN_NAME_WIDTH)
                floor = SCOPE__MIN_NAME_WIDTH;
            if (t->shrink[c] && w[c] > floor && (widest < 0 || w[c] > w[widest]))
                widest = c;
        }
        if (widest < 0)
            return;         /* every name at its floor: wider than asked */
        w[widest]--;
        total--;
    }
}

static int put_row(const scope__table *t, FILE *out, const char *const *cells,
                   const size_t *w, int nc)
{
    for (int c = 0; c < nc; c++) {
        fputs(c ? "  " : "", out);
        const char *cell = cells[c];
        char *cut = NULL;
        if (t->shrink && t->shrink[c] && scope__text_width(cell) > w[c]) {
            if (!(cut = scope__elide(cell, (int)w[c])))
                return -1;
            cell = cut;
        }
        put_cell(out, cell, w[c], t->right[c], c == nc - 1);
        free(cut);
    }
    fputc('\n', out);
    return 0;
}

int scope__table_print(const scope__table *t, FILE *out)
{
    size_t w[64] = { 0 };
    int nc = t->ncols < 64 ? t->ncols : 64;
    for (int c = 0; c < nc; c++) {
        w[c] = scope__text_width(t->heads[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t x = scope__text_width(t->cells[r * (size_t)t->ncols + (size_t)c]);
            if (x > w[c])
                w[c] = x;
        }
    }
    fit_widths(t, w, nc);
    if (put_row(t, out, t->heads, w, nc) < 0)
        return -1;
    for (size_t r = 0; r < t->nrows; r++)
        if (put_row(t, out, (const char *const *)t->cells + r * (size_t)t->ncols, w, nc) < 0)
            return -1;
    return 0;
}

void scope__table_free(scope__table *t)
{
    for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}
