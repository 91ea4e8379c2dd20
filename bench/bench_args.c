/*
 * bench_args.c - argument checks shared by the benchmarks (bench_args.h).
 * atol() turned any word into 0 calls and a division by it into 10^30 ns;
 * these parse strictly and say what was wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"

int bench_parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;      /* no sign, no space: a count is digits */
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int bench_usage_error(const char *usage, const char *prog, const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s '%s'\n%s", prog, what, arg, usage);
    return 2;
}

int bench_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int bench_calls_args(int argc, char **argv, const char *usage, long *calls, int *child)
{
    const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    /* at least a thousand (the clock floor is timed over CALLS / 4 reads),
     * at most a billion (three rounds stay well inside a long) */
    const long least = 1000, most = 1000000000L;
    *child = 0;
    if (argc > 1 && strcmp(argv[1], "--child") == 0) {
        if (argc != 3 || bench_parse_long(argv[2], least, most, calls) < 0)
            return bench_usage_error(usage, prog, "--child needs one call count, not",
                                     argc > 2 ? argv[2] : "");
        *child = 1;
        return -1;
    }
    if (argc > 1 && bench_is_help(argv[1])) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc > 2)
        return bench_usage_error(usage, prog, "unexpected argument", argv[2]);
    if (argc == 2 && bench_parse_long(argv[1], least, most, calls) < 0)
        return bench_usage_error(usage, prog, argv[1][0] == '-' ? "unknown option"
                                 : "CALLS must be a count from 1000 to 1000000000, not", argv[1]);
    return -1;
}
