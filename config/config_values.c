/*
 * config_values.c - the small value syntaxes of the config format that
 * are not settings' values: glob syntax and backslash escapes. Numbers,
 * flags and words are read by the settings table's one parser
 * (base/settings.c), which the recorder and the variables share.
 */
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

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
