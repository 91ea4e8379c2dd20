/*
 * size_parse.c - the one parser of byte counts and whole numbers. The
 * settings table's parser (settings.c) reads every size and count of the
 * config file and of the SCOPE_* variables with it, so "2GiB" means the
 * same everywhere and a value one part refuses is refused by all
 * (docs/config.md, "Numbers").
 *
 * It lives on the libc-only floor (base/), below runtime/ and config/,
 * because both need it: libscope.so links the runtime only and must not
 * pull in the config parser.
 */
#include <ctype.h>

#include "size_parse.h"

size_t scope__parse_digits(const char *s, size_t n, uint64_t *out, int *overflow)
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

int scope__parse_size(const char *s, size_t n, uint64_t *out, size_t *bad)
{
    uint64_t v;
    int overflow, shift = 0;
    size_t i = scope__parse_digits(s, n, &v, &overflow);
    if (i == 0) {
        *bad = 0;
        return SCOPE__SIZE_BAD;
    }
    if (i < n) {
        switch (tolower((unsigned char)s[i])) {
        case 'k': shift = 10; break;
        case 'm': shift = 20; break;
        case 'g': shift = 30; break;
        case 't': shift = 40; break;
        default: *bad = i; return SCOPE__SIZE_BAD;
        }
        /* The binary spelling "KiB" is the same multiplier as "K". */
        if (i + 1 < n) {
            if (tolower((unsigned char)s[i + 1]) != 'i') { *bad = i + 1; return SCOPE__SIZE_BAD; }
            if (i + 2 >= n || tolower((unsigned char)s[i + 2]) != 'b') {
                *bad = i + 2 < n ? i + 2 : n;
                return SCOPE__SIZE_BAD;
            }
            if (i + 3 < n) { *bad = i + 3; return SCOPE__SIZE_BAD; }
        }
    }
    if (overflow || (shift && v > (UINT64_MAX >> shift)))
        return SCOPE__SIZE_RANGE;
    *out = v << shift;
    return SCOPE__SIZE_OK;
}
