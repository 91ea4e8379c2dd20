/*
 * size_parse.h - the one grammar of a byte count ("64M", "2GiB", "4096")
 * and of a whole number (its digits), under the settings table's parser
 * (settings.c), which every config key and SCOPE_* variable goes through.
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

#endif /* SCOPE_SIZE_PARSE_H */
