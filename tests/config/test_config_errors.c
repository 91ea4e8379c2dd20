/*
 * test_config_errors.c - every mistake the parser reports, with its exact
 * message and the line:col of the offending character. These lines are
 * all a user sees from a failed run, so they are part of the contract.
 */
#include "parse_check.h"

#define KNOWN "(known: output, memory_budget, include, exclude, callsites, verbose, journal_dir, io, io_exclude, io_files)"
#define OPTS "(expected 'as NAME' or 'callsites=N')"

static void test_unknown_keys(void)
{
    PARSE_ERR("foo = 1\n", "t.conf:1:1: unknown key 'foo' " KNOWN);
    PARSE_ERR("MPI_Send\n  outptu=x\n", "t.conf:2:3: unknown key 'outptu' " KNOWN);
    PARSE_ERR("a\r\nb\r\nmemory = 1\r\n", "t.conf:3:1: unknown key 'memory' " KNOWN);
    PARSE_ERR("abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij = 1\n",
              "t.conf:1:1: unknown key 'abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij"
              "abcdefghij...' " KNOWN);
    PARSE_ERR("operator==(A const&)\n",
              "t.conf:1:1: unknown key 'operator' (a C++ operator name must be quoted: "
              "\"ns::T::operator==(T const&)\")");
}

static void test_operators_must_be_quoted(void)
{
    PARSE_ERR("ns::T::operator<(T const&)\n",
              "t.conf:1:8: a C++ operator name must be quoted: \"ns::T::operator==(T const&)\"");
    PARSE_ERR("x\nns::T::operator()()\n",
              "t.conf:2:8: a C++ operator name must be quoted: \"ns::T::operator==(T const&)\"");
    PARSE_ERR("operator new\n",
              "t.conf:1:1: a C++ operator name must be quoted: \"ns::T::operator==(T const&)\"");
}

static void test_bad_globs(void)
{
    PARSE_ERR("foo[abc\n", "t.conf:1:4: bad glob: unterminated '['");
    PARSE_ERR("\"x[a\"\n", "t.conf:1:3: bad glob: unterminated '['");
    PARSE_ERR("f[#]\n", "t.conf:1:2: bad glob: unterminated '['");
    PARSE_ERR("lib[:f\n", "t.conf:1:4: bad glob: unterminated '['");
    PARSE_ERR("\"lib[x:f\"\n", "t.conf:1:5: bad glob: unterminated '['");
    PARSE_ERR("\"libm.so:f[\"\n", "t.conf:1:11: bad glob: unterminated '['");
    PARSE_ERR("include = app[\n", "t.conf:1:14: bad glob: unterminated '['");
    PARSE_ERR("exclude = \"py[thon\"\n", "t.conf:1:14: bad glob: unterminated '['");
    PARSE_ERR("foo\\\n", "t.conf:1:4: '\\' at the end escapes nothing");
    PARSE_ERR("include = a\\\n", "t.conf:1:12: '\\' at the end escapes nothing");
}

static void test_quotes(void)
{
    PARSE_ERR("\"foo\n", "t.conf:1:1: unterminated quote");
    PARSE_ERR("\"foo\\\"\n", "t.conf:1:1: unterminated quote");
    PARSE_ERR("output = \"a b\n", "t.conf:1:10: unterminated quote");
    PARSE_ERR("f as \"x # y\n", "t.conf:1:6: unterminated quote");
    PARSE_ERR("f callsites=\"3\n", "t.conf:1:13: unterminated quote");
    PARSE_ERR("foo\"bar\"\n", "t.conf:1:4: quote inside a pattern (quote the whole pattern instead)");
    PARSE_ERR("\"\"\n", "t.conf:1:1: empty pattern");
}

static void test_numbers(void)
{
    PARSE_ERR("memory_budget = 12X\n", "t.conf:1:19: bad number '12X'");
    PARSE_ERR("memory_budget = 12KB\n", "t.conf:1:20: bad number '12KB'");
    PARSE_ERR("memory_budget = 12Mi\n", "t.conf:1:21: bad number '12Mi'");
    PARSE_ERR("memory_budget = 12MiBs\n", "t.conf:1:22: bad number '12MiBs'");
    PARSE_ERR("memory_budget = M\n", "t.conf:1:17: bad number 'M'");
    PARSE_ERR("memory_budget = -1\n", "t.conf:1:17: bad number '-1'");
    PARSE_ERR("memory_budget = 99999999999999999999\n",
              "t.conf:1:17: number too large '99999999999999999999'");
    PARSE_ERR("memory_budget = 16777216T\n", "t.conf:1:17: number too large '16777216T'");
    PARSE_ERR("memory_budget = 0\n", "t.conf:1:17: memory_budget must be greater than 0, not '0'");
    PARSE_ERR("memory_budget = 0K\n", "t.conf:1:17: memory_budget must be greater than 0, not '0K'");
    PARSE_ERR("callsites = 17\n", "t.conf:1:13: callsites must be between 0 and 16, not '17'");
    PARSE_ERR("callsites = 2x\n", "t.conf:1:14: bad number '2x'");
    PARSE_ERR("callsites = 99999999999999999999999\n",
              "t.conf:1:13: callsites must be between 0 and 16, not '99999999999999999999999'");
    PARSE_ERR("f callsites=99\n", "t.conf:1:13: callsites must be between 0 and 16, not '99'");
    PARSE_ERR("f callsites = four\n", "t.conf:1:15: bad number 'four'");
    PARSE_ERR("verbose = 2\n", "t.conf:1:11: verbose must be 0 or 1, not '2'");
    PARSE_ERR("verbose = yes\n", "t.conf:1:11: verbose must be 0 or 1, not 'yes'");
}

static void test_setting_values(void)
{
    PARSE_ERR("output =\n", "t.conf:1:9: missing value for 'output'");
    PARSE_ERR("output =    # later\n", "t.conf:1:13: missing value for 'output'");
    PARSE_ERR("output = \"\"\n", "t.conf:1:10: empty value for 'output'");
    PARSE_ERR("output = a b\n", "t.conf:1:12: unexpected 'b' after the value");
    PARSE_ERR("output = \"a\"b\n", "t.conf:1:13: unexpected 'b' after the value");
    PARSE_ERR("memory_budget = 256 M\n", "t.conf:1:21: unexpected 'M' after the value");
}

static void test_duplicates(void)
{
    PARSE_ERR("output = a\n# x\noutput = b\n", "t.conf:3:1: 'output' set twice (first at line 1)");
    PARSE_ERR("verbose=1\nverbose=1\n", "t.conf:2:1: 'verbose' set twice (first at line 1)");
    PARSE_ERR("callsites=1\n callsites=1\n", "t.conf:2:2: 'callsites' set twice (first at line 1)");
    PARSE_ERR("memory_budget=1\nmemory_budget=1\n",
              "t.conf:2:1: 'memory_budget' set twice (first at line 1)");
    PARSE_ERR("MPI_Send\n\nMPI_Send as x\n", "t.conf:3:1: duplicate entry 'MPI_Send' (first at line 1)");
    PARSE_ERR("f\n  \"f\"\n", "t.conf:2:4: duplicate entry 'f' (first at line 1)");
    PARSE_ERR("libm.so:sin\nlibm.so:sin\n",
              "t.conf:2:1: duplicate entry 'libm.so:sin' (first at line 1)");
    /* Escaped and unescaped spellings of one exact name are one entry. */
    PARSE_ERR("a*b*\nf\\x\nfx\n", "t.conf:3:1: duplicate entry 'fx' (first at line 2)");
}

static void test_brackets(void)
{
    PARSE_ERR("foo(int\n", "t.conf:1:4: unclosed '('");
    PARSE_ERR("f<a<b>\n", "t.conf:1:2: unclosed '<'");
    PARSE_ERR("f(int # comment)\n", "t.conf:1:2: unclosed '('");
    PARSE_ERR("foo)\n", "t.conf:1:4: unbalanced ')'");
    PARSE_ERR("f(a>\n", "t.conf:1:4: unbalanced '>'");
    PARSE_ERR("f]\n", "t.conf:1:2: unbalanced ']'");
    PARSE_ERR("((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))\n",
              "t.conf:1:33: brackets nested too deeply (limit 32)");
    PARSE_ERR("A::f() const const const const const const const const const const const\n",
              "t.conf:1:68: too many qualifiers after the pattern");
}

static void test_objects(void)
{
    PARSE_ERR(":foo\n", "t.conf:1:1: empty object name before ':'");
    PARSE_ERR("libm.so:\n", "t.conf:1:8: empty pattern after ':'");
    PARSE_ERR("a:b:c\n", "t.conf:1:4: more than one ':' (an object qualifier is 'object:name'; "
              "C++ scopes are '::')");
}

static void test_entry_options(void)
{
    PARSE_ERR("f foo=1\n", "t.conf:1:3: unknown option 'foo' (known: callsites)");
    PARSE_ERR("f as=1\n", "t.conf:1:3: unknown option 'as' (known: callsites)");
    PARSE_ERR("f callsites=1 callsites=2\n", "t.conf:1:15: option 'callsites' given twice");
    PARSE_ERR("f callsites=\n", "t.conf:1:13: missing value for 'callsites'");
    PARSE_ERR("f as\n", "t.conf:1:5: 'as' needs a region name");
    PARSE_ERR("f as   # c\n", "t.conf:1:8: 'as' needs a region name");
    PARSE_ERR("f as \"\"\n", "t.conf:1:6: empty region name");
    PARSE_ERR("f as a as b\n", "t.conf:1:8: region name given twice");
    PARSE_ERR("f g\n", "t.conf:1:3: unexpected 'g' after the pattern " OPTS);
    PARSE_ERR("f 12\n", "t.conf:1:3: unexpected '12' after the pattern " OPTS);
    PARSE_ERR("\"f\"g\n", "t.conf:1:4: unexpected 'g' after the pattern " OPTS);
    PARSE_ERR("f as a\"b\"\n", "t.conf:1:7: unexpected '\"b\"' after the pattern " OPTS);
    PARSE_ERR("f callsites=1x\n", "t.conf:1:14: bad number '1x'");
    /* Qualifiers only follow a ')'. */
    PARSE_ERR("f const\n", "t.conf:1:3: unexpected 'const' after the pattern " OPTS);
}

/* The first mistake is the one reported. */
static void test_first_error_wins(void)
{
    PARSE_ERR("ok\nfoo(\nbar = 1\n", "t.conf:2:4: unclosed '('");
}

int main(void)
{
    test_unknown_keys();
    test_operators_must_be_quoted();
    test_bad_globs();
    test_quotes();
    test_numbers();
    test_setting_values();
    test_duplicates();
    test_brackets();
    test_objects();
    test_entry_options();
    test_first_error_wins();
    return check_result("test_config_errors");
}
