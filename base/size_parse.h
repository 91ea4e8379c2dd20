/*
 * size_parse.h - the one grammar of a byte count ("64M", "2GiB", "4096"),
 * for the config file, the SCOPE_* variables the config layer reads, and
 * the recorder's own SCOPE_MEMORY_BUDGET (size_parse.c).
 */
#ifndef SCOPE_SIZE_PARSE_H
#define SCOPE_SIZE_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Results of scope__parse_size. */
#define SCOPE__SIZE_OK 0
#define SCOPE__SIZE_BAD 1        /* not a byte count; *bad = offending offset */
#define SCOPE__SIZE_RANGE 2      /* does not fit in 64 bits */

/* Parses a byte count: decimal digits and an optional suffix K, M, G, T,
 * KiB, MiB, GiB or TiB (case-insensitive, all powers of 1024) in s[0..n).
 * Returns SCOPE__SIZE_*; on BAD sets *bad to the offset of the first
 * character that cannot be part of the number. Cost: O(n). */
int scope__parse_size(const char *s, size_t n, uint64_t *out, size_t *bad);

/* Reads the decimal digits at s[0..n) into *out. Returns how many were
 * read (0 = none); sets *overflow when the value does not fit in 64 bits
 * (for the config's plain integers, which take no suffix). */
size_t scope__parse_digits(const char *s, size_t n, uint64_t *out, int *overflow);

/* Parses a whole, non-negative decimal number with nothing around it (no
 * sign, no space, no suffix) that is at most max, into *out. For the
 * SCOPE_* variables that count seconds or items: a value that does not
 * parse is an error the caller names, never a silent 0. Returns 0, or -1
 * (bad syntax, or past max). Cost: O(strlen(s)). */
int scope__parse_uint(const char *s, uint64_t max, uint64_t *out);

#endif /* SCOPE_SIZE_PARSE_H */
