/*
 * test_names.c - region names that HDF5 link names cannot hold as they are
 * ('/', '%', a lone '.'), spaces, UTF-8 and a 4 KiB name come back from
 * the file unchanged; 10,000 distinct regions all reach the file.
 *
 * usage: test_names OUTDIR
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scope.h"
#include "scope_reader.h"

#define MANY 10000

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char out[4096];
    snprintf(out, sizeof out, "%s/names.h5", argv[1]);
    scope_options o = { .output = out };
    CHECK_I64(scope_init(&o), 0);

    static char longname[4097];
    for (int i = 0; i < 4096; i++)
        longname[i] = (char)('a' + i % 26);
    const char *names[] = { "a/b/c", "100%", "%2F", ".", "..", "with spaces  here",
                            "λ-ünïcødé ∑ 名前", longname, "ns::Class::method(int, double)" };
    int n_names = (int)(sizeof names / sizeof *names);
    for (int i = 0; i < n_names; i++) {
        int32_t id = scope_region(names[i]);
        CHECK(id >= 0);
        scope_begin(id);
        scope_end(id);
    }
    char name[64];
    for (int i = 0; i < MANY; i++) {
        snprintf(name, sizeof name, "region_%05d", i);
        int32_t id = scope_region(name);
        for (int k = 0; k <= i % 3; k++) {
            scope_begin(id);
            scope_end(id);
        }
    }
    CHECK_I64(scope_finalize(), 0);

    scope_profile *p = NULL;
    CHECK_I64(scope_profile_open(out, &p), 0);
    if (!p) {
        fprintf(stderr, "%s\n", scope_reader_errmsg());
        return check_result("test_names");
    }
    CHECK_I64(scope_profile_region_count(p), n_names + MANY);
    for (int i = 0; i < n_names; i++) {
        int r = scope_profile_region_index(p, names[i]);
        CHECK(r >= 0);
        if (r < 0)
            continue;
        CHECK_I64(scope_profile_calls(p, r, 0), 1);
        const int64_t *s, *e;
        int64_t n = 0;
        CHECK_I64(scope_profile_times(p, r, 0, &s, &e, &n), 0);
        CHECK_I64(n, 1);
        CHECK(n == 1 && e[0] >= s[0]);
    }
    int64_t total = 0;
    for (int i = 0; i < MANY; i++) {
        snprintf(name, sizeof name, "region_%05d", i);
        int r = scope_profile_region_index(p, name);
        CHECK_I64(scope_profile_calls(p, r, 0), i % 3 + 1);
        total += scope_profile_calls(p, r, 0);
    }
    CHECK_I64(total, 19999);
    scope_profile_close(p);
    return check_result("test_names");
}
