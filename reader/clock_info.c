/*
 * clock_info.c - how far the ranks of a profile can be trusted to share
 * one timeline: the clock_* attributes the converter writes when a run
 * spans several hosts (docs/format.md, docs/clocks.md), folded into one
 * answer for tools (`scope summary` prints it first).
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* Distinct `hostname` attributes of the ranks: how many hosts a run had
 * when nothing was measured (older files, an MPI library the alignment
 * does not know). Cost: one attribute read per rank, O(ranks x hosts)
 * comparisons. 0 on allocation failure. */
static int64_t count_hostnames(scope_profile *p)
{
    int n = scope_profile_rank_count(p);
    char (*seen)[64] = calloc(n > 0 ? (size_t)n : 1, sizeof *seen);
    if (!seen)
        return 0;
    int64_t hosts = 0;
    for (int i = 0; i < n; i++) {
        char h[64];
        if (scope_profile_rank_attr_string(p, scope_profile_rank(p, i), "hostname", h,
                                           sizeof h) < 0)
            continue;
        int64_t k = 0;
        while (k < hosts && strcmp(seen[k], h) != 0)
            k++;
        if (k == hosts)
            memcpy(seen[hosts++], h, sizeof h);
    }
    free(seen);
    return hosts;
}

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
        char state[32];
        if (scope_profile_rank_attr_string(p, rank, "clock_aligned", state, sizeof state) < 0) {
            out->ranks_unknown++;
            continue;
        }
        int both = strcmp(state, "init+finalize") == 0, init = strcmp(state, "init") == 0;
        out->ranks_aligned += both;
        out->ranks_init_only += init;
        out->ranks_unaligned += !both && !init;
        if (!both && out->first_suspect_rank < 0)
            out->first_suspect_rank = rank;
        if (scope_profile_rank_attr_int(p, rank, "clock_hosts", &v) == 0 && v > out->hosts)
            out->hosts = v;
        if (scope_profile_rank_attr_int(p, rank, "clock_error_ns", &v) == 0 && v > out->error_ns)
            out->error_ns = v;
        if (scope_profile_rank_attr_int(p, rank, "clock_span_error_ns", &v) == 0 &&
            v > out->span_error_ns)
            out->span_error_ns = v;
    }
    if (scope_profile_metadata_int(p, "clock_hosts", &v) == 0 && v > out->hosts)
        out->hosts = v;
    if (out->hosts == 0)
        out->hosts = count_hostnames(p);
    if (scope_profile_metadata_int(p, "clock_error_ns", &v) == 0 && v > out->error_ns)
        out->error_ns = v;
    return 0;
}
