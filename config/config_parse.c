/*
 * config_parse.c - the config file parser: text in, scope_config out.
 *
 * The format is line-oriented (docs/config.md is its reference): a line is
 * blank, a comment, a setting `key = value`, or a function entry
 * `PATTERN [as NAME] [callsites=N]`. The parser stops at the first mistake
 * and describes it as "<file>:<line>:<col>: <problem>", column 1-based in
 * bytes and pointing at the offending character, because that one line is
 * all a user running under mpirun will see. It runs inside the profiled
 * process, so it never prints and frees everything on every error path.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

/* Bracket nesting an unquoted pattern may use; real C++ names stay far below. */
#define MAX_DEPTH 32
/* Longest token quoted back in a message; longer ones are cut with "...". */
#define MAX_SHOWN 60

static const char after_pattern[] = "after the pattern (expected 'as NAME' or 'callsites=N')";

typedef struct parser {
    const char *name;           /* file name used in messages */
    const char *ls, *le;        /* current line [ls, le), without "\r\n" */
    int line;                   /* 1-based number of the current line */
    char *err;
    size_t errlen;
    scope_config *cfg;
    size_t cap_entries, cap_include, cap_exclude;
} parser;

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static const char *skip_ws(const parser *p, const char *s)
{
    while (s < p->le && is_ws(*s))
        s++;
    return s;
}

/* Whether nothing but a comment is left on the line from s. */
static int at_end(const parser *p, const char *s)
{
    return s >= p->le || *s == '#';
}

/* Writes "<file>:<line>:<col>: <message>" with the column of `at`.
 * Returns SCOPE_ECONFIG so callers can `return fail_at(...)`. */
__attribute__((format(printf, 3, 4)))
static int fail_at(parser *p, const char *at, const char *fmt, ...)
{
    if (p->errlen == 0)
        return SCOPE_ECONFIG;
    int n = snprintf(p->err, p->errlen, "%s:%d:%d: ", p->name, p->line,
                     (int)(at - p->ls) + 1);
    if (n >= 0 && (size_t)n < p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return SCOPE_ECONFIG;
}

static int fail_oom(parser *p)
{
    if (p->errlen)
        snprintf(p->err, p->errlen, "%s:%d:0: out of memory", p->name, p->line);
    return SCOPE_ENOMEM;
}

/* Length and suffix with which to show s[0..n) in a message. */
static int shown_len(size_t n)
{
    return n > MAX_SHOWN ? MAX_SHOWN : (int)n;
}

static const char *shown_more(size_t n)
{
    return n > MAX_SHOWN ? "..." : "";
}

/* The end of the whitespace-delimited word at s, for "unexpected 'x'". */
static const char *word_end(const parser *p, const char *s)
{
    while (s < p->le && !is_ws(*s))
        s++;
    return s;
}

static int fail_unexpected(parser *p, const char *s, const char *after)
{
    size_t n = (size_t)(word_end(p, s) - s);
    return fail_at(p, s, "unexpected '%.*s%s' %s", shown_len(n), s, shown_more(n), after);
}

/* Reads one value token at s: a quoted string (backslash escapes the next
 * character, so \" does not close it) or a bare run of characters up to
 * whitespace, '#' or '"'. Sets the raw text span [*vs, *ve) and *next to
 * just after the token. Returns 0 or SCOPE_ECONFIG. */
static int read_token(parser *p, const char *s, const char **vs, const char **ve,
                      const char **next)
{
    const char *j;
    if (*s == '"') {
        for (j = s + 1; j < p->le && *j != '"'; j += (*j == '\\' && j + 1 < p->le) ? 2 : 1)
            ;
        if (j >= p->le)
            return fail_at(p, s, "unterminated quote");
        *vs = s + 1;
        *ve = j;
        *next = j + 1;
        return 0;
    }
    for (j = s; j < p->le && !is_ws(*j) && *j != '#' && *j != '"';
         j += (*j == '\\' && j + 1 < p->le) ? 2 : 1)
        ;
    *vs = s;
    *ve = j;
    *next = j;
    return 0;
}

/* After a token ending at `next`: only whitespace or the end may follow. */
static int check_separated(parser *p, const char *next, const char *after)
{
    if (!at_end(p, next) && !is_ws(*next))
        return fail_unexpected(p, next, after);
    return 0;
}

static int push_string(parser *p, char ***arr, size_t *n, size_t *cap, char *s)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        char **a = realloc(*arr, ncap * sizeof *a);
        if (!a) {
            free(s);
            return fail_oom(p);
        }
        *arr = a;
        *cap = ncap;
    }
    (*arr)[(*n)++] = s;
    return 0;
}

/* Marks a once-only setting as set from this line, or fails when it was. */
static int claim_setting(parser *p, scope_config_origin *o, const char *key_at,
                         const char *key)
{
    if (o->source == SCOPE_SRC_FILE)
        return fail_at(p, key_at, "'%s' set twice (first at line %d)", key, o->line);
    o->source = SCOPE_SRC_FILE;
    o->line = p->line;
    return 0;
}

/* The value vs..vs+vlen of setting `id` (written `name` in messages) read
 * by the table's one parser (base/settings.c): returns 0 with *v filled, or
 * reports where it is wrong ("bad number '12X'" at the first bad character,
 * "verbose must be 0 or 1, not 'yes'" at the value). */
static int setting_value(parser *p, int id, const char *name, const char *vs, size_t vlen,
                         scope_setting_value *v)
{
    scope__setting_parse(id, vs, vlen, v);
    if (v->state != SCOPE_SETTING_BAD)
        return 0;
    if (v->rule)
        return fail_at(p, vs, "%s %s", name, v->problem);
    return fail_at(p, vs + v->bad_at, "%s", v->problem);
}

/* A `callsites` value (the global setting or an entry's option), vs..vs+vlen:
 * stores it in *out and returns 0, or reports where it is wrong. */
static int parse_callsites_value(parser *p, const char *vs, size_t vlen, int *out)
{
    scope_setting_value v;
    int rc = setting_value(p, SCOPE_SET_CALLSITES, "callsites", vs, vlen, &v);
    if (rc == 0)
        *out = (int)v.u;
    return rc;
}

/* "output, memory_budget, ...": the table's keys, in its order. */
static const char *known_keys(void)
{
    static char buf[256];
    if (!buf[0])
        for (int i = 0; i < SCOPE_SET_COUNT; i++)
            if (scope__setting_def(i)->key)
                snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s",
                         buf[0] ? ", " : "", scope__setting_def(i)->key);
    return buf;
}

/* `key = value`; ks..ke is the key, eq the '='. */
static int parse_setting(parser *p, const char *ks, const char *ke, const char *eq)
{
    scope_config *cfg = p->cfg;
    size_t klen = (size_t)(ke - ks);
    const char *s = skip_ws(p, eq + 1), *vs, *ve, *next;
    int id = scope__setting_by_key(ks, klen);
    const char *key = id >= 0 ? scope__setting_def(id)->key : NULL;
    if (!key && klen == 8 && memcmp(ks, "operator", 8) == 0)
        return fail_at(p, ks, "unknown key 'operator' (a C++ operator name must be "
                       "quoted: \"ns::T::operator==(T const&)\")");
    if (!key)
        return fail_at(p, ks, "unknown key '%.*s%s' (known: %s)", shown_len(klen), ks,
                       shown_more(klen), known_keys());
    if (at_end(p, s))
        return fail_at(p, s, "missing value for '%s'", key);
    int rc = read_token(p, s, &vs, &ve, &next);
    if (rc < 0)
        return rc;
    if (vs == ve)
        return fail_at(p, s, "empty value for '%s'", key);
    if ((rc = check_separated(p, next, "after the value")) < 0)
        return rc;
    const char *rest = skip_ws(p, next);
    if (!at_end(p, rest))
        return fail_unexpected(p, rest, "after the value");

    size_t vlen = (size_t)(ve - vs);
    scope_setting_value v;
    switch (id) {
    case SCOPE_SET_OUTPUT:
    case SCOPE_SET_JOURNAL_DIR: {
        int out = id == SCOPE_SET_OUTPUT;
        if ((rc = claim_setting(p, out ? &cfg->output_from : &cfg->journal_dir_from, ks, key)) < 0)
            return rc;
        char *path = scope__cfg_unescape(vs, vlen);
        if (!path)
            return fail_oom(p);
        char **to = out ? &cfg->output : &cfg->journal_dir;
        free(*to);
        *to = path;
        return 0;
    }
    case SCOPE_SET_MEMORY_BUDGET:
        if ((rc = claim_setting(p, &cfg->memory_budget_from, ks, key)) < 0 ||
            (rc = setting_value(p, id, key, vs, vlen, &v)) < 0)
            return rc;
        cfg->memory_budget = v.u;
        return 0;
    case SCOPE_SET_INCLUDE:
    case SCOPE_SET_EXCLUDE: {
        const char *why;
        int glob;
        long off = scope__cfg_glob_check(vs, vlen, &why, &glob);
        if (off >= 0)
            return fail_at(p, vs + off, "%s", why);
        /* Kept as written: wants_exe hands them to fnmatch(3) as they are. */
        char *g = strndup(vs, vlen);
        if (!g)
            return fail_oom(p);
        if (id == SCOPE_SET_INCLUDE)
            return push_string(p, &cfg->include_exe, &cfg->n_include_exe, &p->cap_include, g);
        return push_string(p, &cfg->exclude_exe, &cfg->n_exclude_exe, &p->cap_exclude, g);
    }
    case SCOPE_SET_CALLSITES:
        if ((rc = claim_setting(p, &cfg->callsites_from, ks, key)) < 0)
            return rc;
        return parse_callsites_value(p, vs, vlen, &cfg->callsites);
    case SCOPE_SET_VERBOSE:
        if ((rc = claim_setting(p, &cfg->verbose_from, ks, key)) < 0 ||
            (rc = setting_value(p, id, key, vs, vlen, &v)) < 0)
            return rc;
        cfg->verbose = (int)v.u;
        return 0;
    case SCOPE_SET_IO:
        if ((rc = claim_setting(p, &cfg->io_from, ks, key)) < 0 ||
            (rc = setting_value(p, id, key, vs, vlen, &v)) < 0)
            return rc;
        cfg->io = SCOPE_IO_ON(v.u);
        return 0;
    case SCOPE_SET_IO_FILES:
        if ((rc = claim_setting(p, &cfg->io_files_from, ks, key)) < 0 ||
            (rc = setting_value(p, id, key, vs, vlen, &v)) < 0)
            return rc;
        cfg->io_files = v.u;
        return 0;
    case SCOPE_SET_IO_EXCLUDE: {
        if ((rc = claim_setting(p, &cfg->io_exclude_from, ks, key)) < 0 ||
            (rc = setting_value(p, id, key, vs, vlen, &v)) < 0)
            return rc;
        char *x = strndup(vs, vlen);
        if (!x)
            return fail_oom(p);
        free(cfg->io_exclude);
        cfg->io_exclude = x;
        return 0;
    }
    default:
        /* a key of the table this parser does not know: a table row was
         * added without its reading here */
        return fail_at(p, ks, "key '%s' is not read from the config file", key);
    }
}

/* Scans an unquoted pattern from s: it ends at whitespace outside (), <>
 * and [] or at '#'. Sets *end. Returns 0 or SCOPE_ECONFIG for an unbalanced
 * bracket, a quote, a trailing '\' or the word `operator` (whose '<', '>',
 * '(' and '=' would defeat the bracket rule: such names must be quoted). */
static int scan_pattern(parser *p, const char *s, const char **end)
{
    const char *open[MAX_DEPTH];
    int depth = 0;
    const char *j = s;
    while (j < p->le && *j != '#' && !(depth == 0 && is_ws(*j))) {
        char c = *j;
        if (c == '\\') {
            if (j + 1 >= p->le)
                return fail_at(p, j, "'\\' at the end escapes nothing");
            j += 2;
        } else if (c == '"') {
            return fail_at(p, j, "quote inside a pattern (quote the whole pattern instead)");
        } else if (is_ident_start(c) && (j == s || !is_ident(j[-1]))) {
            const char *w = j;
            while (j < p->le && is_ident(*j))
                j++;
            if (j - w == 8 && memcmp(w, "operator", 8) == 0)
                return fail_at(p, w, "a C++ operator name must be quoted: "
                               "\"ns::T::operator==(T const&)\"");
        } else if (c == '(' || c == '<') {
            if (depth == MAX_DEPTH)
                return fail_at(p, j, "brackets nested too deeply (limit %d)", MAX_DEPTH);
            open[depth++] = j++;
        } else if (c == ')' || c == '>') {
            if (depth == 0 || *open[depth - 1] != (c == ')' ? '(' : '<'))
                return fail_at(p, j, "unbalanced '%c'", c);
            depth--;
            j++;
        } else if (c == '[') {
            /* A '#' inside still starts the comment: the '[' is then open. */
            size_t e = scope__cfg_bracket_end(j, (size_t)(p->le - j), 0);
            if (e == 0 || memchr(j, '#', e) != NULL)
                return fail_at(p, j, "bad glob: unterminated '['");
            j += e;
        } else if (c == ']') {
            return fail_at(p, j, "unbalanced ']'");
        } else {
            j++;
        }
    }
    if (depth > 0)
        return fail_at(p, open[depth - 1], "unclosed '%c'", *open[depth - 1]);
    *end = j;
    return 0;
}

/* The single ':' that separates an object from the function in s..e, or
 * NULL. Only looked for before the first '(', '<', "\[" or blank, outside
 * [...], and "::" (a C++ scope) never counts. */
static const char *object_colon(const char *s, const char *e)
{
    const char *j = s;
    while (j < e) {
        if (*j == '\\') {
            /* An escaped '[' is a C++ "[abi:tag]", never part of a file name. */
            if (j + 1 < e && j[1] == '[')
                return NULL;
            j += 2;
        } else if (*j == '(' || *j == '<' || is_ws(*j)) {
            return NULL;
        } else if (*j == '[') {
            size_t end = scope__cfg_bracket_end(j, (size_t)(e - j), 0);
            if (end == 0)
                return NULL;
            j += end;
        } else if (*j == ':') {
            if (j + 1 < e && j[1] == ':') {
                j += 2;
                continue;
            }
            return j;
        } else {
            j++;
        }
    }
    return NULL;
}

/* The length of a C++ cv/ref qualifier word ("const", "volatile", "&",
 * "&&") at s, or 0. */
static size_t qualifier_len(const parser *p, const char *s)
{
    static const char *const quals[] = {"const", "volatile", "&&", "&"};
    for (size_t i = 0; i < sizeof quals / sizeof quals[0]; i++) {
        size_t n = strlen(quals[i]);
        if ((size_t)(p->le - s) >= n && memcmp(s, quals[i], n) == 0 &&
            (s + n == p->le || is_ws(s[n]) || s[n] == '#'))
            return n;
    }
    return 0;
}

/* Makes the stored form of a pattern or object span: kept as written for
 * fnmatch when it is a glob, escapes removed when it is an exact name.
 * Appends `suffix` (may be empty). NULL when out of memory. */
static char *stored_form(const char *s, const char *e, int glob, const char *suffix)
{
    char *v = glob ? strndup(s, (size_t)(e - s)) : scope__cfg_unescape(s, (size_t)(e - s));
    if (!v || !*suffix)
        return v;
    size_t n = strlen(v), m = strlen(suffix);
    char *w = realloc(v, n + m + 1);
    if (!w) {
        free(v);
        return NULL;
    }
    memcpy(w + n, suffix, m + 1);
    return w;
}

static void entry_clear(scope_config_entry *e)
{
    free(e->pattern);
    free(e->object);
    free(e->region);
}

static int push_entry(parser *p, scope_config_entry *e)
{
    scope_config *cfg = p->cfg;
    if (cfg->n_entries == p->cap_entries) {
        size_t ncap = p->cap_entries ? p->cap_entries * 2 : 8;
        scope_config_entry *a = realloc(cfg->entries, ncap * sizeof *a);
        if (!a)
            return fail_oom(p);
        cfg->entries = a;
        p->cap_entries = ncap;
    }
    cfg->entries[cfg->n_entries++] = *e;
    return 0;
}

/* Splits the raw pattern span rs..re into object and function, checks both
 * and fills e. `suffix` is the C++ qualifier text that followed the span. */
static int fill_pattern(parser *p, const char *rs, const char *re, const char *suffix,
                        scope_config_entry *e)
{
    const char *colon = object_colon(rs, re), *ps = rs, *why;
    long off;
    if (colon) {
        if (colon == rs)
            return fail_at(p, colon, "empty object name before ':'");
        if (colon + 1 == re)
            return fail_at(p, colon, "empty pattern after ':'");
        ps = colon + 1;
        const char *second = object_colon(ps, re);
        if (second)
            return fail_at(p, second, "more than one ':' (an object qualifier is "
                           "'object:name'; C++ scopes are '::')");
        if ((off = scope__cfg_glob_check(rs, (size_t)(colon - rs), &why, &e->object_is_glob)) >= 0)
            return fail_at(p, rs + off, "%s", why);
        if (!(e->object = stored_form(rs, colon, e->object_is_glob, "")))
            return fail_oom(p);
    }
    if ((off = scope__cfg_glob_check(ps, (size_t)(re - ps), &why, &e->is_glob)) >= 0)
        return fail_at(p, ps + off, "%s", why);
    if (!(e->pattern = stored_form(ps, re, e->is_glob, suffix)))
        return fail_oom(p);
    size_t n = (size_t)(re - ps);
    e->demangled = memmem(ps, n, "::", 2) || memchr(ps, '(', n) || memchr(ps, '<', n);
    /* MPIX_: the extensions of an MPI library (Open MPI 4.1's persistent
     * collectives MPIX_Bcast_init & co), MPI calls like the others */
    e->kind = (n >= 4 && memcmp(ps, "MPI_", 4) == 0) || (n >= 5 && memcmp(ps, "PMPI_", 5) == 0) ||
                      (n >= 5 && memcmp(ps, "MPIX_", 5) == 0) || (n >= 6 && memcmp(ps, "PMPIX_", 6) == 0)
                  ? SCOPE_KIND_MPI : SCOPE_KIND_FUNCTION;
    return 0;
}

/* `as NAME` or `callsites=N` after a pattern, from s to the end of line. */
static int parse_entry_options(parser *p, const char *s, scope_config_entry *e)
{
    const char *vs, *ve, *next;
    int rc;
    for (s = skip_ws(p, s); !at_end(p, s); s = skip_ws(p, next)) {
        if (!is_ident_start(*s))
            return fail_unexpected(p, s, after_pattern);
        const char *ws = s, *we = s;
        while (we < p->le && is_ident(*we))
            we++;
        const char *t = skip_ws(p, we);
        if (t < p->le && *t == '=') {
            if (we - ws != 9 || memcmp(ws, "callsites", 9) != 0)
                return fail_at(p, ws, "unknown option '%.*s%s' (known: callsites)",
                               shown_len((size_t)(we - ws)), ws, shown_more((size_t)(we - ws)));
            if (e->callsites >= 0)
                return fail_at(p, ws, "option 'callsites' given twice");
            const char *v = skip_ws(p, t + 1);
            if (at_end(p, v))
                return fail_at(p, v, "missing value for 'callsites'");
            if ((rc = read_token(p, v, &vs, &ve, &next)) < 0)
                return rc;
            if ((rc = parse_callsites_value(p, vs, (size_t)(ve - vs), &e->callsites)) < 0)
                return rc;
        } else if (we - ws == 2 && memcmp(ws, "as", 2) == 0 && (t > we || at_end(p, t) || *t == '"')) {
            if (e->region)
                return fail_at(p, ws, "region name given twice");
            if (at_end(p, t))
                return fail_at(p, t, "'as' needs a region name");
            if ((rc = read_token(p, t, &vs, &ve, &next)) < 0)
                return rc;
            if (vs == ve)
                return fail_at(p, t, "empty region name");
            if (!(e->region = scope__cfg_unescape(vs, (size_t)(ve - vs))))
                return fail_oom(p);
        } else {
            return fail_unexpected(p, ws, after_pattern);
        }
        if ((rc = check_separated(p, next, after_pattern)) < 0)
            return rc;
    }
    return 0;
}

/* A function entry starting at s (not blank, not a setting). */
static int parse_entry(parser *p, const char *s)
{
    scope_config_entry e = {0};
    const char *rs = s, *re = s, *next = s;
    char suffix[64] = "";
    int rc;
    e.callsites = -1;
    e.line = p->line;
    if (*s == '"') {
        if ((rc = read_token(p, s, &rs, &re, &next)) < 0)
            return rc;
        if (rs == re)
            return fail_at(p, s, "empty pattern");
        if ((rc = check_separated(p, next, after_pattern)) < 0)
            return rc;
    } else {
        if ((rc = scan_pattern(p, s, &re)) < 0)
            return rc;
        next = re;
        /* `A::get() const`: demangled names print cv/ref qualifiers after
         * a blank, so they belong to the pattern, not to the options. */
        if (re > rs && re[-1] == ')') {
            size_t q, used = 0;
            for (const char *t = skip_ws(p, next); (q = qualifier_len(p, t)) > 0;
                 t = skip_ws(p, next)) {
                if (used + q + 2 > sizeof suffix)
                    return fail_at(p, t, "too many qualifiers after the pattern");
                suffix[used++] = ' ';
                memcpy(suffix + used, t, q);
                used += q;
                suffix[used] = '\0';
                next = t + q;
            }
        }
    }
    if ((rc = fill_pattern(p, rs, re, suffix, &e)) < 0)
        goto fail;
    if ((rc = parse_entry_options(p, next, &e)) < 0)
        goto fail;
    for (size_t i = 0; i < p->cfg->n_entries; i++) {
        const scope_config_entry *o = &p->cfg->entries[i];
        if (strcmp(o->pattern, e.pattern) == 0 && o->is_glob == e.is_glob &&
            (o->object == e.object || (o->object && e.object && strcmp(o->object, e.object) == 0))) {
            size_t n = (size_t)(re - rs);
            rc = fail_at(p, rs, "duplicate entry '%.*s%s' (first at line %d)", shown_len(n), rs,
                         shown_more(n), o->line);
            goto fail;
        }
    }
    if ((rc = push_entry(p, &e)) < 0)
        goto fail;
    return 0;
fail:
    entry_clear(&e);
    return rc;
}

static int parse_line(parser *p)
{
    const char *s = skip_ws(p, p->ls);
    if (at_end(p, s))
        return 0;
    if (is_ident_start(*s)) {
        const char *ke = s;
        while (ke < p->le && is_ident(*ke))
            ke++;
        const char *eq = skip_ws(p, ke);
        if (eq < p->le && *eq == '=')
            return parse_setting(p, s, ke, eq);
    }
    return parse_entry(p, s);
}

int scope__config_parse(const char *text, const char *path, scope_config **out,
                       char *err, size_t errlen)
{
    parser p = {.name = path ? path : "<config>", .line = 0, .err = err, .errlen = errlen};
    int rc;
    *out = NULL;
    if (errlen)
        err[0] = '\0';
    if (!text) {
        if (errlen)
            snprintf(err, errlen, "%s:0:0: no config text", p.name);
        return SCOPE_EINVAL;
    }
    if (!(p.cfg = scope__cfg_new()))
        return fail_oom(&p);
    if ((path && !(p.cfg->path = strdup(path))) || !(p.cfg->text = strdup(text))) {
        rc = fail_oom(&p);
        goto fail;
    }
    /* Editors on some systems start UTF-8 files with a byte-order mark; it
     * would otherwise become part of the first function's name. */
    const char *start = strncmp(text, "\xEF\xBB\xBF", 3) == 0 ? text + 3 : text;
    for (const char *ls = start; *ls; ) {
        const char *nl = strchr(ls, '\n');
        const char *le = nl ? nl : ls + strlen(ls);
        p.ls = ls;
        p.le = (le > ls && le[-1] == '\r') ? le - 1 : le;
        p.line++;
        if ((rc = parse_line(&p)) < 0)
            goto fail;
        ls = nl ? nl + 1 : le;
    }
    /* The global `callsites` applies wherever it appears in the file. */
    for (size_t i = 0; i < p.cfg->n_entries; i++)
        if (p.cfg->entries[i].callsites < 0)
            p.cfg->entries[i].callsites = p.cfg->callsites;
    if (p.cfg->n_entries == 0) {
        if ((rc = scope__cfg_add_default_entries(p.cfg)) < 0) {
            rc = fail_oom(&p);
            goto fail;
        }
        p.cfg->entries_defaulted = 1;
    }
    *out = p.cfg;
    return 0;
fail:
    scope__config_free(p.cfg);
    return rc;
}
