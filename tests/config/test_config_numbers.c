/*
 * test_config_numbers.c - the value syntaxes shared by the file and the
 * SCOPE_* variables: byte counts with suffixes (and their overflow), bounded
 * integers, and the glob checker that stands in for fnmatch's own.
 */
#include <stdlib.h>
#include <string.h>

#include "parse_check.h"
#include "config_internal.h"

static void size_is(const char *s, int want_rc, uint64_t want, size_t want_bad, int line)
{
    uint64_t v = 12345;
    size_t bad = 999;
    int rc = scope__parse_size(s, strlen(s), &v, &bad);
    check_i64(rc, want_rc, s, __FILE__, line);
    if (want_rc == SCOPE__CFG_NUM_OK)
        check_i64((long long)v, (long long)want, s, __FILE__, line);
    if (want_rc == SCOPE__CFG_NUM_BAD)
        check_i64((long long)bad, (long long)want_bad, s, __FILE__, line);
}
#define SIZE_OK(s, v) size_is((s), SCOPE__CFG_NUM_OK, (v), 0, __LINE__)
#define SIZE_BAD(s, at) size_is((s), SCOPE__CFG_NUM_BAD, 0, (at), __LINE__)
#define SIZE_BIG(s) size_is((s), SCOPE__CFG_NUM_RANGE, 0, 0, __LINE__)

static void test_sizes(void)
{
    SIZE_OK("0", 0);
    SIZE_OK("1", 1);
    SIZE_OK("4096", 4096);
    SIZE_OK("1K", 1024);
    SIZE_OK("1k", 1024);
    SIZE_OK("3KiB", 3072);
    SIZE_OK("2kib", 2048);
    SIZE_OK("256M", 256ull << 20);
    SIZE_OK("256MiB", 256ull << 20);
    SIZE_OK("2G", 2ull << 30);
    SIZE_OK("2GiB", 2ull << 30);
    SIZE_OK("1T", 1ull << 40);
    SIZE_OK("007", 7);
    SIZE_OK("18446744073709551615", UINT64_MAX);
    SIZE_OK("16777215T", 16777215ull << 40);
    SIZE_BIG("18446744073709551616");
    SIZE_BIG("16777216T");
    SIZE_BIG("17179869184G");
    SIZE_BIG("99999999999999999999999999K");
    SIZE_BAD("", 0);
    SIZE_BAD("K", 0);
    SIZE_BAD(" 1", 0);
    SIZE_BAD("1 ", 1);
    SIZE_BAD("12X", 2);
    SIZE_BAD("12KB", 3);
    SIZE_BAD("12Ki", 4);
    SIZE_BAD("12KiBx", 5);
    SIZE_BAD("1.5G", 1);
    SIZE_BAD("0x10", 1);
    SIZE_BAD("+1", 0);
}

/* The whole numbers of the settings table (callsites: 0 to 16; the
 * clock-alignment fan-out: 1 to 64), through its one parser. */
static void test_ints(void)
{
    scope_setting_value v;
    scope__setting_parse(SCOPE_SET_CALLSITES, "16", 2, &v);
    CHECK_INT(v.state, SCOPE_SETTING_SET);
    CHECK_INT(v.u, 16);
    scope__setting_parse(SCOPE_SET_CALLSITES, "0", 1, &v);
    CHECK_INT(v.state, SCOPE_SETTING_SET);
    CHECK_INT(v.u, 0);
    scope__setting_parse(SCOPE_SET_CALLSITES, "17", 2, &v);
    CHECK_INT(v.state, SCOPE_SETTING_BAD);
    CHECK_INT(v.rule, 1);
    CHECK_STR(v.problem, "must be between 0 and 16, not '17'");
    scope__setting_parse(SCOPE_SET_CLOCK_FANOUT, "0", 1, &v);
    CHECK_STR(v.problem, "must be between 1 and 64, not '0'");
    scope__setting_parse(SCOPE_SET_CALLSITES, "99999999999999999999999", 23, &v);
    CHECK_INT(v.state, SCOPE_SETTING_BAD);
    CHECK_INT(v.rule, 1);
    scope__setting_parse(SCOPE_SET_CALLSITES, "1K", 2, &v);
    CHECK_INT(v.state, SCOPE_SETTING_BAD);
    CHECK_INT(v.rule, 0);
    CHECK_INT(v.bad_at, 1);
    CHECK_STR(v.problem, "bad number '1K'");
    scope__setting_parse(SCOPE_SET_CALLSITES, "", 0, &v);
    CHECK_INT(v.state, SCOPE_SETTING_BAD);
    CHECK_INT(v.bad_at, 0);
    scope__setting_parse(SCOPE_SET_CALLSITES, "-1", 2, &v);
    CHECK_INT(v.state, SCOPE_SETTING_BAD);
    CHECK_INT(v.bad_at, 0);
    scope__setting_parse(SCOPE_SET_CLOCK_DRIFT_PPM, "-250", 4, &v);
    CHECK_INT(v.state, SCOPE_SETTING_SET);
    CHECK_INT(v.i, -250);
    scope__setting_parse(SCOPE_SET_VERBOSE, "01", 2, &v);
    CHECK_INT(v.state, SCOPE_SETTING_SET);
    CHECK_INT(v.u, 1);
}

static void glob_is(const char *s, long want_off, int want_glob, int line)
{
    const char *why = NULL;
    int glob = -1;
    long off = scope__cfg_glob_check(s, strlen(s), &why, &glob);
    check_i64(off, want_off, s, __FILE__, line);
    if (want_off < 0)
        check_i64(glob, want_glob, s, __FILE__, line);
}

static void test_globs(void)
{
    glob_is("plain", -1, 0, __LINE__);
    glob_is("a*", -1, 1, __LINE__);
    glob_is("a?", -1, 1, __LINE__);
    glob_is("[ab]", -1, 1, __LINE__);
    glob_is("[!ab]x", -1, 1, __LINE__);
    glob_is("[^ab]x", -1, 1, __LINE__);
    glob_is("[]]", -1, 1, __LINE__);
    glob_is("[!]]", -1, 1, __LINE__);
    glob_is("[[:alpha:]_]", -1, 1, __LINE__);
    glob_is("[a\\]]", -1, 1, __LINE__);
    glob_is("\\*\\?\\[", -1, 0, __LINE__);
    glob_is("[", 0, 0, __LINE__);
    glob_is("ab[cd", 2, 0, __LINE__);
    glob_is("[]", 0, 0, __LINE__);
    glob_is("[[:alpha:]", 0, 0, __LINE__);
    glob_is("ok*[", 3, 0, __LINE__);
    glob_is("a\\", 1, 0, __LINE__);
    const char *why = NULL;
    int g;
    scope__cfg_glob_check("x[", 2, &why, &g);
    CHECK_STR(why, "bad glob: unterminated '['");
    scope__cfg_glob_check("x\\", 2, &why, &g);
    CHECK_STR(why, "'\\' at the end escapes nothing");
}

static void test_unescape(void)
{
    char *s = scope__cfg_unescape("a\\*b\\\\c\\", 8);
    CHECK_STR(s, "a*b\\c\\");
    free(s);
}

int main(void)
{
    test_sizes();
    test_ints();
    test_globs();
    test_unescape();
    return check_result("test_config_numbers");
}
