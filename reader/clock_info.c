/*
 * clock_info.c - how far the ranks of a profile can be trusted to share
 * one timeline: the clock_* attributes the converter writes when a run
 * spans several hosts (docs/format.md, docs/clocks.md), folded into one
 * answer for tools (`scope summary` prints it first). Only integer
 * attributes are read: a damaged file's variable-length strings can crash
 * libhdf5 itself (tests/tools/test_corrupt.py).
 */
#include <string.h>

#include "reader_internal.h"

int scope_profile_clock_info(scope_profile *p, scope_clock_info *out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or output");
    memset(out, 0, sizeof *out);
    out->error_ns = out->span_error_ns = -1;
    out->first_suspect_rank = -1;
    int64_t v;
    for (int i = 0; i < scope_profile_rank_count(p); i++) {
        int rank = scope_profile_rank(p, i);
        int64_t state;
        if (scope_profile_rank_attr_int(p, rank, SCOPE_A_CLOCK_ALIGNED, &state) < 0) {
            out->ranks_unknown++;
            continue;
        }
        int both = state == 2, init = state == 1;
        out->ranks_aligned += both;
        out->ranks_init_only += init;
        out->ranks_unaligned += !both && !init;
        if (!both && out->first_suspect_rank < 0)
            out->first_suspect_rank = rank;
        if (scope_profile_rank_attr_int(p, rank, SCOPE_A_CLOCK_HOSTS, &v) == 0 && v > out->hosts)
            out->hosts = v;
        if (scope_profile_rank_attr_int(p, rank, SCOPE_A_CLOCK_ERROR_NS, &v) == 0 && v > out->error_ns)
            out->error_ns = v;
        if (scope_profile_rank_attr_int(p, rank, SCOPE_A_CLOCK_SPAN_ERROR_NS, &v) == 0 &&
            v > out->span_error_ns)
            out->span_error_ns = v;
    }
    if (scope_profile_metadata_int(p, SCOPE_A_CLOCK_HOSTS, &v) == 0 && v > out->hosts)
        out->hosts = v;
    if (scope_profile_metadata_int(p, SCOPE_A_CLOCK_ERROR_NS, &v) == 0 && v > out->error_ns)
        out->error_ns = v;
    return 0;
}
