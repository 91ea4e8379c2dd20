/*
 * check.h - the one set of assertions every C test of scope uses (config,
 * reader, runtime, callsites, mpi). A failed check prints the file, line,
 * the expression, what came and what was expected, and counts the
 * failure; the test goes on, so one run shows every mismatch, and main()
 * returns check_result(). Nothing here returns or jumps on the caller's
 * behalf. Header-only: each test is one program, so the counters are
 * per-program statics.
 */
#ifndef SCOPE_TEST_CHECK_H
#define SCOPE_TEST_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

/* A condition that must hold. */
static inline void check_true(int ok, const char *expr, const char *file, int line)
{
    check_count++;
    if (!ok) {
        check_failures++;
        fprintf(stderr, "%s:%d: check failed: %s\n", file, line, expr);
    }
}

/* An exact integer value. */
static inline void check_i64(int64_t got, int64_t want, const char *expr, const char *file,
                             int line)
{
    check_count++;
    if (got != want) {
        check_failures++;
        fprintf(stderr, "%s:%d: %s is %" PRId64 ", expected %" PRId64 "\n", file, line, expr,
                got, want);
    }
}

/* A floating-point value within eps. */
static inline void check_dbl(double got, double want, double eps, const char *expr,
                             const char *file, int line)
{
    check_count++;
    if (!(fabs(got - want) <= eps)) {
        check_failures++;
        fprintf(stderr, "%s:%d: %s is %.17g, expected %.17g\n", file, line, expr, got, want);
    }
}

/* An exact string; want may be NULL, and then got must be NULL too. */
static inline void check_str(const char *got, const char *want, const char *expr,
                             const char *file, int line)
{
    check_count++;
    if (want == NULL ? got != NULL : (got == NULL || strcmp(got, want) != 0)) {
        check_failures++;
        fprintf(stderr, "%s:%d: %s:\n   got  %s%s%s\n   want %s%s%s\n", file, line, expr,
                got ? "\"" : "", got ? got : "NULL", got ? "\"" : "", want ? "\"" : "",
                want ? want : "NULL", want ? "\"" : "");
    }
}

#define CHECK(c) check_true(!!(c), #c, __FILE__, __LINE__)
#define CHECK_I64(a, b) check_i64((int64_t)(a), (int64_t)(b), #a, __FILE__, __LINE__)
#define CHECK_INT(a, b) CHECK_I64(a, b)
#define CHECK_DBL(a, b, eps) check_dbl((a), (b), (eps), #a, __FILE__, __LINE__)
#define CHECK_STR(a, b) check_str((a), (b), #a, __FILE__, __LINE__)

/* The exit status of a test program: 0 when every check passed. */
static inline int check_result(const char *name)
{
    fprintf(stderr, "%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif /* SCOPE_TEST_CHECK_H */
