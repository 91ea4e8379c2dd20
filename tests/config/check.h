/*
 * check.h - the few assertions the config unit tests share. A failed check
 * prints what was expected and what came, and the test keeps going so one
 * run shows every broken rule; check_exit() turns the count into the exit
 * status meson reads.
 */
#ifndef SCOPE_TEST_CHECK_H
#define SCOPE_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

#include "scope_config.h"

static int check_failures;

static void check_int_(long long got, long long want, const char *what, const char *file, int line)
{
    if (got != want) {
        fprintf(stderr, "%s:%d: %s: got %lld, want %lld\n", file, line, what, got, want);
        check_failures++;
    }
}

static void check_str_(const char *got, const char *want, const char *what, const char *file,
                       int line)
{
    if ((got == NULL) != (want == NULL) || (got && strcmp(got, want) != 0)) {
        fprintf(stderr, "%s:%d: %s:\n   got  %s%s%s\n   want %s%s%s\n", file, line, what,
                got ? "\"" : "", got ? got : "NULL", got ? "\"" : "",
                want ? "\"" : "", want ? want : "NULL", want ? "\"" : "");
        check_failures++;
    }
}

#define CHECK_INT(got, want) check_int_((long long)(got), (long long)(want), #got, __FILE__, __LINE__)
#define CHECK_STR(got, want) check_str_((got), (want), #got, __FILE__, __LINE__)

/* Parses text that must be valid; NULL (and a counted failure) otherwise. */
__attribute__((unused))
static scope_config *parse_ok_(const char *text, const char *file, int line)
{
    char err[512];
    scope_config *cfg = NULL;
    int rc = scope__config_parse(text, "t.conf", &cfg, err, sizeof err);
    if (rc != 0 || !cfg) {
        fprintf(stderr, "%s:%d: parse failed (%d): %s\n  text: %s\n", file, line, rc, err, text);
        check_failures++;
        return NULL;
    }
    return cfg;
}

/* Parses text that must be invalid with exactly this message. */
__attribute__((unused))
static void parse_err_(const char *text, const char *want, const char *file, int line)
{
    char err[512] = "unchanged";
    scope_config *cfg = (scope_config *)1;
    int rc = scope__config_parse(text, "t.conf", &cfg, err, sizeof err);
    check_int_(rc, SCOPE_ECONFIG, "return code", file, line);
    check_int_(cfg == NULL, 1, "*out set to NULL", file, line);
    check_str_(err, want, text, file, line);
    if (rc == 0)
        scope__config_free(cfg);
}

#define PARSE_OK(text) parse_ok_((text), __FILE__, __LINE__)
#define PARSE_ERR(text, want) parse_err_((text), (want), __FILE__, __LINE__)

static int check_exit(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    return check_failures ? 1 : 0;
}

#endif /* SCOPE_TEST_CHECK_H */
