/*
 * config_values.c - the small value syntaxes of the config format: byte
 * counts with K/M/G/T suffixes, bounded integers, glob syntax and backslash
 * escapes. Shared by the file parser and the SCOPE_* variables so that a
 * value means the same thing in both places (docs/config.md, "Values").
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

/* Reads the digits at s[0..n) into *out. Returns the number of digits read
 * (0 = none) and sets *overflow when the value does not fit in uint64_t. */
static size_t read_digits(const char *s, size_t n, uint64_t *out, int *overflow)
{
    uint64_t v = 0;
    size_t i = 0;
    *overflow = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            *overflow = 1;
        else
            v = v * 10 + d;
    }
    *out = v;
    return i;
}

int scope__cfg_parse_size(const char *s, size_t n, uint64_t *out, size_t *bad)
{
    uint64_t v;
    int overflow, shift = 0;
    size_t i = read_digits(s, n, &v, &overflow);
    if (i == 0) {
        *bad = 0;
        return SCOPE__CFG_NUM_BAD;
    }
    if (i < n) {
        switch (tolower((unsigned char)s[i])) {
        case 'k': shift = 10; break;
        case 'm': shift = 20; break;
        case 'g': shift = 30; break;
        case 't': shift = 40; break;
        default: *bad = i; return SCOPE__CFG_NUM_BAD;
        }
        /* The binary spelling "KiB" is the same multiplier as "K". */
        if (i + 1 < n) {
            if (tolower((unsigned char)s[i + 1]) != 'i') { *bad = i + 1; return SCOPE__CFG_NUM_BAD; }
            if (i + 2 >= n || tolower((unsigned char)s[i + 2]) != 'b') {
                *bad = i + 2 < n ? i + 2 : n;
                return SCOPE__CFG_NUM_BAD;
            }
            if (i + 3 < n) { *bad = i + 3; return SCOPE__CFG_NUM_BAD; }
        }
    }
    if (overflow || (shift && v > (UINT64_MAX >> shift)))
        return SCOPE__CFG_NUM_RANGE;
    *out = v << shift;
    return SCOPE__CFG_NUM_OK;
}

int scope__cfg_parse_int(const char *s, size_t n, long lo, long hi, long *out,
                        size_t *bad)
{
    uint64_t v;
    int overflow;
    size_t i = read_digits(s, n, &v, &overflow);
    if (i == 0 || i < n) {
        *bad = i;
        return SCOPE__CFG_NUM_BAD;
    }
    if (overflow || v < (uint64_t)(lo < 0 ? 0 : lo) || v > (uint64_t)hi)
        return SCOPE__CFG_NUM_RANGE;
    *out = (long)v;
    return SCOPE__CFG_NUM_OK;
}

/* Follows fnmatch: a ']' right after "[" or "[!" / "[^" is a member,
 * "[:alpha:]" (and [. .], [= =]) are skipped whole, and a backslash escapes
 * the next character. */
size_t scope__cfg_bracket_end(const char *s, size_t n, size_t i)
{
    size_t j = i + 1;
    if (j < n && (s[j] == '!' || s[j] == '^'))
        j++;
    if (j < n && s[j] == ']')
        j++;
    while (j < n && s[j] != ']') {
        if (s[j] == '[' && j + 1 < n && (s[j + 1] == ':' || s[j + 1] == '.' || s[j + 1] == '=')) {
            char close = s[j + 1];
            size_t k = j + 2;
            while (k + 1 < n && !(s[k] == close && s[k + 1] == ']'))
                k++;
            if (k + 1 < n) {
                j = k + 2;
                continue;
            }
        }
        j += s[j] == '\\' ? 2 : 1;
    }
    return j < n ? j + 1 : 0;
}

long scope__cfg_glob_check(const char *s, size_t n, const char **why, int *is_glob)
{
    size_t i = 0;
    *is_glob = 0;
    while (i < n) {
        switch (s[i]) {
        case '\\':
            if (i + 1 >= n) {
                *why = "'\\' at the end escapes nothing";
                return (long)i;
            }
            i += 2;
            break;
        case '*':
        case '?':
            *is_glob = 1;
            i++;
            break;
        case '[': {
            size_t end = scope__cfg_bracket_end(s, n, i);
            if (end == 0) {
                *why = "bad glob: unterminated '['";
                return (long)i;
            }
            *is_glob = 1;
            i = end;
            break;
        }
        default:
            i++;
        }
    }
    return -1;
}

char *scope__cfg_unescape(const char *s, size_t n)
{
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n)
            i++;
        *o++ = s[i];
    }
    *o = '\0';
    return out;
}
