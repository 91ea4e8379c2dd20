/*
 * parse_check.h - the config tests' own two assertions on top of the
 * shared ones (tests/common/check.h): text that must parse, and text that
 * must fail with exactly one message.
 */
#ifndef SCOPE_TEST_PARSE_CHECK_H
#define SCOPE_TEST_PARSE_CHECK_H

#include "check.h"
#include "scope_config.h"

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
    check_i64(rc, SCOPE_ECONFIG, "return code", file, line);
    check_true(cfg == NULL, "*out set to NULL", file, line);
    check_str(err, want, text, file, line);
    if (rc == 0)
        scope__config_free(cfg);
}

#define PARSE_OK(text) parse_ok_((text), __FILE__, __LINE__)
#define PARSE_ERR(text, want) parse_err_((text), (want), __FILE__, __LINE__)

#endif /* SCOPE_TEST_PARSE_CHECK_H */
