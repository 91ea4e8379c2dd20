/*
 * record_sites.c - records calls with call sites through the internal
 * recorder API (scope__callsite_define, scope__begin_site), so that
 * check_record.py can assert the exact /rank0/callsites table and
 * callsite_ids columns the writer makes of them, independently of the
 * preload's capture. Also checks the define contract (same path -> same
 * id, bad arguments -> SCOPE_EINVAL) and prints "ok".
 *
 * usage: record_sites OUTDIR
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scope_internal.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char out[4096];
    snprintf(out, sizeof out, "%s/sites.h5", argv[1]);
    scope_options o = { .output = out };
    CHECK(scope_init(&o) == 0);

    /* defined before the journal exists: replayed when it is created */
    scope__frame a[2] = { { "00aa", "/bin/prog", 0x1234 }, { "00aa", "/bin/prog", 0x2000 } };
    scope__frame b[1] = { { "", "/lib/libx.so", 0x40 } };
    int32_t sa = scope__callsite_define(a, 2);
    CHECK(sa == 1);
    CHECK(scope__callsite_define(a, 2) == sa);       /* same path, same id */
    CHECK(scope__callsite_define(a, 1) == 2);        /* a prefix is another path */
    CHECK(scope__callsite_define(a, 0) == SCOPE_EINVAL);
    CHECK(scope__callsite_define(a, 17) == SCOPE_EINVAL);
    CHECK(scope__callsite_define(NULL, 1) == SCOPE_EINVAL);
    scope__frame bad = { "", NULL, 0 };
    CHECK(scope__callsite_define(&bad, 1) == SCOPE_EINVAL);

    int32_t f = scope_region("f"), plain = scope_region("plain");
    for (int i = 0; i < 3; i++) {
        scope__begin_site(f, sa);
        scope_end(f);
    }
    /* defined after the journal exists: appended at once */
    int32_t sb = scope__callsite_define(b, 1);
    CHECK(sb == 3);
    scope__begin_site(f, sb);
    scope__begin_site(plain, 0);                      /* nested, no site */
    scope_end(plain);
    scope_end(f);
    scope_begin(f);                                   /* a call without a site */
    scope_end(f);
    scope__begin_site(f, 99);                         /* never defined: -1 */
    scope_end(f);
    CHECK(scope_finalize() == 0);
    if (check_result("record_sites") != 0)
        return 1;
    puts("ok");
    return 0;
}
