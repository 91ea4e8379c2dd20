/*
 * settings.c - the one parser of setting values and the process's one
 * reading of the SCOPE_* variables (the table is settings_table.c).
 *
 * Inside a profiled process this runs in an application that did not ask
 * for us: it never allocates, exits or prints on its own, and a malformed
 * value is kept as a problem that the part reading it says once
 * (scope__setting_say) or turns into its own error (the config layer),
 * with the default in force. Numbers use base/size_parse.c's grammar, so
 * a value means the same in the config file and in every variable.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settings.h"
#include "size_parse.h"

/* The shown part of a value in messages: long enough to recognise it,
 * short enough to keep one line. */
#define SHOWN 60

static void set_problem(scope_setting_value *out, int rule, const char *s, size_t n,
                        const char *fmt, const char *what)
{
    char shown[SHOWN + 4];
    size_t k = n > SHOWN ? SHOWN : n;
    memcpy(shown, s, k);
    strcpy(shown + k, n > SHOWN ? "..." : "");
    out->state = SCOPE_SETTING_BAD;
    out->rule = rule;
    snprintf(out->problem, sizeof out->problem, fmt, what, shown);
}

/* "a, b or c" from "a|b|c". */
static void words_text(const char *words, char *buf, size_t len)
{
    size_t o = 0, nw = 1;
    for (const char *c = words; *c; c++)
        nw += *c == '|';
    size_t w = 0;
    buf[0] = '\0';
    for (const char *c = words; *c && o + 5 < len; c++) {
        if (*c == '|') {
            w++;
            const char *sep = w + 1 == nw ? " or " : ", ";
            o += (size_t)snprintf(buf + o, len - o, "%s", sep);
        } else {
            buf[o++] = *c;
            buf[o] = '\0';
        }
    }
}

/* Parses an optional '-' and decimal digits. Returns 0, 1 (syntax: *bad
 * set) or 2 (does not fit). */
static int parse_integer(const char *s, size_t n, int64_t *out, size_t *bad)
{
    size_t neg = n > 0 && s[0] == '-';
    uint64_t v;
    int overflow;
    size_t i = scope__parse_digits(s + neg, n - neg, &v, &overflow);
    if (i == 0 || neg + i < n) {
        *bad = neg + i;
        return 1;
    }
    if (overflow || v > (uint64_t)INT64_MAX)
        return 2;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

void scope__setting_parse(int id, const char *s, size_t n, scope_setting_value *out)
{
    const scope_setting *d = scope__setting_def(id);
    char buf[96];
    out->state = SCOPE_SETTING_SET;
    out->rule = 0;
    out->bad_at = 0;
    out->problem[0] = '\0';
    switch (d->type) {
    case SCOPE_SETTING_FLAG: {
        /* the whole-number grammar, so "01" is 1 as it always was */
        uint64_t v;
        int overflow;
        if (n > 0 && scope__parse_digits(s, n, &v, &overflow) == n && !overflow && v <= 1) {
            out->u = v;
            return;
        }
        set_problem(out, 1, s, n, "must be %s, not '%s'", "0 or 1");
        return;
    }
    case SCOPE_SETTING_WORD: {
        uint64_t index = 0;
        for (const char *w = d->words; *w; index++) {
            size_t len = strcspn(w, "|");
            if (len == n && memcmp(w, s, n) == 0) {
                out->u = index;
                return;
            }
            w += len + (w[len] == '|');
        }
        words_text(d->words, buf, sizeof buf);
        set_problem(out, 1, s, n, "must be %s, not '%s'", buf);
        return;
    }
    case SCOPE_SETTING_SIZE: {
        uint64_t v = 0;
        int rc = scope__parse_size(s, n, &v, &out->bad_at);
        if (rc == SCOPE__SIZE_BAD)
            set_problem(out, 0, s, n, "%sbad number '%s'", "");
        else if (rc == SCOPE__SIZE_RANGE)
            set_problem(out, 0, s, n, "%snumber too large '%s'", "");
        else if (v < (uint64_t)d->min) {
            snprintf(buf, sizeof buf, "%lld", (long long)d->min - 1);
            set_problem(out, 1, s, n, "must be greater than %s, not '%s'", buf);
        } else
            out->u = v;
        return;
    }
    case SCOPE_SETTING_COUNT:
    case SCOPE_SETTING_DURATION:
    case SCOPE_SETTING_INTEGER: {
        int64_t v = 0;
        int rc = parse_integer(s, n, &v, &out->bad_at);
        if (d->type != SCOPE_SETTING_INTEGER && rc == 0 && s[0] == '-') {
            out->bad_at = 0;
            rc = 1;
        }
        if (rc == 1) {
            set_problem(out, 0, s, n, "%sbad number '%s'", "");
            return;
        }
        if (rc == 2 || v < d->min || v > d->max) {
            snprintf(buf, sizeof buf, "%lld and %lld", (long long)d->min, (long long)d->max);
            set_problem(out, 1, s, n, "must be between %s, not '%s'", buf);
            return;
        }
        out->u = (uint64_t)v;
        out->i = v;
        return;
    }
    default: /* PATH, GLOB: any non-empty text */
        return;
    }
}

scope_setting_value scope__setting_default(int id)
{
    scope_setting_value v;
    memset(&v, 0, sizeof v);
    const char *dflt = scope__setting_def(id)->dflt;
    if (dflt) {
        scope__setting_parse(id, dflt, strlen(dflt), &v);
        v.text = NULL;
    }
    v.state = SCOPE_SETTING_UNSET;
    return v;
}

const char *scope__setting_grammar(int id, char *buf, size_t len)
{
    const scope_setting *d = scope__setting_def(id);
    char words[96];
    switch (d->type) {
    case SCOPE_SETTING_FLAG:
        snprintf(buf, len, "0 or 1");
        break;
    case SCOPE_SETTING_WORD:
        words_text(d->words, words, sizeof words);
        snprintf(buf, len, "%s", words);
        break;
    case SCOPE_SETTING_SIZE:
        snprintf(buf, len, "a byte count such as 64M or 1GiB, greater than 0");
        break;
    case SCOPE_SETTING_COUNT:
    case SCOPE_SETTING_INTEGER:
        snprintf(buf, len, "a whole number from %lld to %lld", (long long)d->min,
                 (long long)d->max);
        break;
    case SCOPE_SETTING_DURATION:
        snprintf(buf, len, "a whole number of %s from %lld to %lld",
                 strcmp(d->unit, "s") == 0 ? "seconds" : d->unit, (long long)d->min,
                 (long long)d->max);
        break;
    case SCOPE_SETTING_GLOB:
        snprintf(buf, len, "a glob");
        break;
    default:
        snprintf(buf, len, "a path");
    }
    return buf;
}

void scope__setting_read_now(int id, scope_setting_value *out)
{
    const scope_setting *d = scope__setting_def(id);
    *out = scope__setting_default(id);
    const char *text = d->var ? getenv(d->var) : NULL;
    if (!text || !*text)
        return;
    scope_setting_value v = *out;
    scope__setting_parse(id, text, strlen(text), &v);
    if (v.state == SCOPE_SETTING_BAD) {
        /* the default's numbers stay in force */
        out->state = SCOPE_SETTING_BAD;
        out->rule = v.rule;
        out->bad_at = v.bad_at;
        memcpy(out->problem, v.problem, sizeof out->problem);
    } else {
        *out = v;
    }
    out->text = text;
}

/* --- the process's reading --------------------------------------------- */

static struct {
    atomic_int ready;           /* 0 not read, 1 being read, 2 read */
    scope_setting_value v[SCOPE_SET_COUNT];
    atomic_int said[SCOPE_SET_COUNT];
} proc;

static void read_all(void)
{
    for (int i = 0; i < SCOPE_SET_COUNT; i++) {
        scope__setting_read_now(i, &proc.v[i]);
        atomic_store(&proc.said[i], 0);
    }
}

const scope_setting_value *scope__setting(int id)
{
    int want = 0;
    if (atomic_load_explicit(&proc.ready, memory_order_acquire) != 2) {
        if (atomic_compare_exchange_strong(&proc.ready, &want, 1)) {
            read_all();
            atomic_store_explicit(&proc.ready, 2, memory_order_release);
        } else {
            while (atomic_load_explicit(&proc.ready, memory_order_acquire) != 2)
                sched_yield();
        }
    }
    return &proc.v[id];
}

void scope__settings_reread(void)
{
    read_all();
    atomic_store_explicit(&proc.ready, 2, memory_order_release);
}

uint64_t scope__setting_u(int id)
{
    return scope__setting(id)->u;
}

const char *scope__setting_text(int id)
{
    const scope_setting_value *v = scope__setting(id);
    return v->state == SCOPE_SETTING_SET ? v->text : NULL;
}

static const char *message_of(int id, const scope_setting_value *v, char *buf, size_t len)
{
    if (len == 0)
        return buf;
    buf[0] = '\0';
    if (v->state != SCOPE_SETTING_BAD)
        return buf;
    /* "bad number 'ten'" does not say the range of a whole number: the
     * grammar does (a byte count's syntax is the config file's, as is its
     * message) */
    const scope_setting *d = scope__setting_def(id);
    char grammar[96] = "";
    if (!v->rule && (d->type == SCOPE_SETTING_COUNT || d->type == SCOPE_SETTING_DURATION ||
                     d->type == SCOPE_SETTING_INTEGER))
        scope__setting_grammar(id, grammar, sizeof grammar);
    snprintf(buf, len, "%s: %s%s%s%s", d->var, v->problem, grammar[0] ? " (" : "", grammar,
             grammar[0] ? ")" : "");
    return buf;
}

const char *scope__setting_message(int id, char *buf, size_t len)
{
    return message_of(id, scope__setting(id), buf, len);
}

int scope__setting_say(int id, const char *then)
{
    return scope__setting_say_value(id, scope__setting(id), then);
}

int scope__setting_say_value(int id, const scope_setting_value *v, const char *then)
{
    char msg[256], line[400];
    if (v->state != SCOPE_SETTING_BAD || atomic_exchange(&proc.said[id], 1))
        return 0;
    message_of(id, v, msg, sizeof msg);
    int n = snprintf(line, sizeof line, "scope: %s%s%s\n", msg, then ? "; " : "", then ? then : "");
    if (n < 0)
        return 0;
    if ((size_t)n >= sizeof line) {
        n = (int)sizeof line - 1;
        line[n - 1] = '\n';
    }
    /* one write: the lines of several ranks do not mix */
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
    return 1;
}
