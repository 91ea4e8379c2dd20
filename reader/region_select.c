/*
 * region_select.c - picking regions by name with include / exclude regular
 * expressions, the filter every analysis entry point shares (events,
 * summaries, the Python module's get_regions()).
 *
 * POSIX extended regular expressions from libc, unanchored like Python's
 * re.search, so "solve" selects "solve" and "solve_local" and "^solve$"
 * only the first.
 */
#include <regex.h>
#include <stdlib.h>

#include "reader_internal.h"

/* Compiles n patterns into re[] (caller frees with regfree on [0, n)).
 * On failure frees what it compiled and names the bad pattern. */
static int compile_all(const char *const *pats, int n, regex_t *re)
{
    for (int i = 0; i < n; i++) {
        int e = pats[i] ? regcomp(&re[i], pats[i], REG_EXTENDED | REG_NOSUB)
                        : REG_BADPAT;
        if (e != 0) {
            char why[256] = "no pattern";
            const char *bad = pats[i] ? pats[i] : "";
            if (pats[i])
                regerror(e, &re[i], why, sizeof why);
            for (int j = 0; j < i; j++)
                regfree(&re[j]);
            return scope__fail(SCOPE_EINVAL, "bad regular expression \"%s\": "
                               "%s", bad, why);
        }
    }
    return 0;
}

static int any_match(const regex_t *re, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (regexec(&re[i], s, 0, NULL, 0) == 0)
            return 1;
    return 0;
}

int scope_profile_select_regions(const scope_profile *p,
                                 const char *const *include, int ninclude,
                                 const char *const *exclude, int nexclude,
                                 int *out)
{
    if (!p || !out || ninclude < 0 || nexclude < 0 ||
        (ninclude && !include) || (nexclude && !exclude))
        return scope__fail(SCOPE_EINVAL, "no profile, output or patterns");
    regex_t *inc = calloc((size_t)ninclude + 1, sizeof *inc);
    regex_t *exc = calloc((size_t)nexclude + 1, sizeof *exc);
    int rc, n = 0;
    if (!inc || !exc) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
        goto fail_alloc;
    }
    if ((rc = compile_all(include, ninclude, inc)) < 0)
        goto fail_alloc;
    if ((rc = compile_all(exclude, nexclude, exc)) < 0)
        goto fail_include;
    for (int r = 0; r < p->nregions; r++) {
        const char *name = p->regions[r].name;
        if ((ninclude == 0 || any_match(inc, ninclude, name)) &&
            !any_match(exc, nexclude, name))
            out[n++] = r;
    }
    rc = n;
    for (int i = 0; i < nexclude; i++)
        regfree(&exc[i]);
fail_include:
    for (int i = 0; i < ninclude; i++)
        regfree(&inc[i]);
fail_alloc:
    free(inc);
    free(exc);
    return rc;
}
