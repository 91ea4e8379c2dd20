/*
 * check.h - the few assertion helpers the reader and tool C tests share.
 * A failed check prints what was expected and counts the failure; the test
 * goes on (so one run shows every mismatch) and main() returns
 * check_result(). Nothing here returns on the caller's behalf.
 */
#ifndef SCOPE_TEST_CHECK_H
#define SCOPE_TEST_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

static inline void check_true(int ok, const char *expr, const char *file,
                              int line)
{
    check_count++;
    if (!ok) {
        check_failures++;
        fprintf(stderr, "%s:%d: check failed: %s\n", file, line, expr);
    }
}

static inline void check_i64(int64_t got, int64_t want, const char *expr,
                             const char *file, int line)
{
    check_count++;
    if (got != want) {
        check_failures++;
        fprintf(stderr, "%s:%d: %s is %" PRId64 ", expected %" PRId64 "\n",
                file, line, expr, got, want);
    }
}

static inline void check_dbl(double got, double want, double eps,
                             const char *expr, const char *file, int line)
{
    check_count++;
    if (!(fabs(got - want) <= eps)) {
        check_failures++;
        fprintf(stderr, "%s:%d: %s is %.17g, expected %.17g\n", file, line,
                expr, got, want);
    }
}

static inline void check_str(const char *got, const char *want,
                             const char *expr, const char *file, int line)
{
    check_count++;
    if (!got || strcmp(got, want) != 0) {
        check_failures++;
        fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", file, line,
                expr, got ? got : "(null)", want);
    }
}

#define CHECK(c) check_true(!!(c), #c, __FILE__, __LINE__)
#define CHECK_I64(a, b) check_i64((int64_t)(a), (int64_t)(b), #a, __FILE__, __LINE__)
#define CHECK_DBL(a, b, eps) check_dbl((a), (b), (eps), #a, __FILE__, __LINE__)
#define CHECK_STR(a, b) check_str((a), (b), #a, __FILE__, __LINE__)

/* The exit status of a test program: 0 when every check passed. */
static inline int check_result(const char *name)
{
    fprintf(stderr, "%s: %d checks, %d failed\n", name, check_count,
            check_failures);
    return check_failures ? 1 : 0;
}

#endif
