/*
 * compensate.c - profiles with the cost of recording taken out: each
 * process measured what one recorded call costs it (runtime/calibrate.c,
 * the rank attributes overhead_inside_ns and overhead_caller_ns), and
 * these functions subtract it from call stacks and region statistics, the
 * way TAU_COMPENSATE does. The arithmetic itself is
 * scope_call_stack_compensate() in call_stack.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

int scope_profile_overhead(scope_profile *p, int rank, double *inside_ns,
                           double *caller_ns)
{
    if (!p || !inside_ns || !caller_ns)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    int rc = scope_profile_rank_attr_double(p, rank, "overhead_inside_ns", inside_ns);
    if (rc >= 0)
        rc = scope_profile_rank_attr_double(p, rank, "overhead_caller_ns", caller_ns);
    if (rc == SCOPE_ENOTFOUND)
        return scope__fail(rc, "rank %d stores no measured overhead per call "
                           "(written by a scope older than compensation, or "
                           "another tool): cannot compensate", rank);
    return rc;
}

int scope_profile_call_stack_compensated(scope_profile *p, int rank, int thread,
                                         scope_call_stack **out)
{
    double in, caller;
    if (!out)
        return scope__fail(SCOPE_EINVAL, "no output");
    *out = NULL;
    int rc = scope_profile_overhead(p, rank, &in, &caller);
    if (rc < 0)
        return rc;
    scope_call_stack *cs;
    if ((rc = scope_profile_call_stack(p, rank, thread, &cs)) < 0)
        return rc;
    if ((rc = scope_call_stack_compensate(cs, in, caller)) < 0) {
        scope_call_stack_free(cs);
        return rc;
    }
    *out = cs;
    return 0;
}

int scope_profile_stats_compensated(scope_profile *p, int rank, scope_stats *out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    int nreg = scope_profile_region_count(p), k0 = 0, k1 = p->nranks;
    if (rank != SCOPE_ALL_RANKS) {
        if ((k0 = scope__rank_index(p, rank)) < 0)
            return k0;
        k1 = k0 + 1;
    }
    memset(out, 0, (size_t)nreg * sizeof *out);
    /* Welford's running mean and sum of squared deviations */
    double *m2 = calloc((size_t)(nreg ? nreg : 1), sizeof *m2);
    if (!m2)
        return scope__fail(SCOPE_ENOMEM, "out of memory for %d regions", nreg);
    int rc = 0;
    for (int k = k0; k < k1 && rc >= 0; k++) {
        scope_call_stack *cs;
        rc = scope_profile_call_stack_compensated(p, p->ranks[k].rank,
                                                  SCOPE_ALL_THREADS, &cs);
        if (rc < 0)
            break;
        const scope_call *c = scope_call_stack_calls(cs);
        for (int64_t i = 0; i < scope_call_stack_count(cs); i++) {
            if (c[i].region < 0 || c[i].region >= nreg)
                continue;
            scope_stats *s = &out[c[i].region];
            int64_t d = c[i].end_ns - c[i].start_ns;
            if (s->calls == 0 || d < s->min_ns)
                s->min_ns = d;
            if (s->calls == 0 || d > s->max_ns)
                s->max_ns = d;
            s->calls++;
            s->total_ns += d;
            double delta = (double)d - s->mean_ns;
            s->mean_ns += delta / (double)s->calls;
            m2[c[i].region] += delta * ((double)d - s->mean_ns);
        }
        scope_call_stack_free(cs);
    }
    for (int r = 0; r < nreg; r++)
        out[r].std_ns = out[r].calls > 0 ? sqrt(m2[r] / (double)out[r].calls) : 0.0;
    free(m2);
    if (rc < 0)
        memset(out, 0, (size_t)nreg * sizeof *out);
    return rc;
}
