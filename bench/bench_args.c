/*
 * bench_args.c - argument checks shared by the benchmarks (bench_args.h).
 * atol() turned any word into 0 calls and a division by it into 10^30 ns;
 * these parse strictly and say what was wrong.
 */
#include <errno.h>
#include <math.h>
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

int bench_count_arg(const char *usage, const char *prog, const char *what, const char *arg,
                    long min, long max, long *out)
{
    if (bench_parse_long(arg, min, max, out) == 0)
        return 0;
    return bench_usage_error(usage, prog, arg[0] == '-' ? "unknown option" : what, arg);
}

int bench_help_or_extra(int argc, char **argv, const char *usage, const char *prog, int most)
{
    if (argc > 1 && bench_is_help(argv[1])) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc > most + 1)
        return bench_usage_error(usage, prog, "unexpected argument", argv[most + 1]);
    return -1;
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

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bench_range bench_range_of(const double *v, int n)
{
    bench_range r = { NAN, NAN, NAN };
    double s[256];
    int k = 0;
    for (int i = 0; i < n && k < 256; i++)
        if (!isnan(v[i]))
            s[k++] = v[i];
    if (k == 0)
        return r;
    qsort(s, (size_t)k, sizeof *s, cmp_dbl);
    r.min = s[0];
    r.max = s[k - 1];
    r.med = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
    return r;
}

const char *bench_cpu_model(char *buf, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, len, "unknown CPU");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c += 1 + (c[1] == ' ');
                c[strcspn(c, "\n")] = 0;
                snprintf(buf, len, "%s", c);
            }
            break;
        }
    if (f)
        fclose(f);
    return buf;
}
