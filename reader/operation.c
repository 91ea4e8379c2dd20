/*
 * operation.c - what each region of a profile is, by the one vocabulary
 * of intercepted calls (format/scope_calls.h): the `operation` attribute
 * the converter writes on MPI regions (docs/format.md "Operations"), read
 * once at open; for a file without it (an older one, scope-profiler's)
 * the region's name, read by the same parser. The matrices, the
 * collectives' shares and the wait states ask here what a region is, and
 * the tools through scope_profile_region_operation(): no part of the
 * reader keeps a list of MPI names of its own.
 *
 * The predicates below are the reader's few rules over a row (which calls
 * carry messages, which are collectives with pairs, ...), each written
 * once; the public ones taking a name (scope_region_is_*, comm/moved.c)
 * read the name with the vocabulary's parser and apply the same rule.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_calls.h"
#include "scope_format.h"
#include "scope_reader.h"

int scope__read_operation(hid_t g, int32_t *op, int32_t *big)
{
    *op = -1;
    *big = 0;
    char *s = NULL;
    int rc = scope__h5_attr_string(g, SCOPE_A_OPERATION, &s);
    if (rc <= 0)
        return rc;
    struct scope_call_name n;
    *op = scope_call_parse(s, &n);
    *big = n.big;
    free(s);
    return 0;
}

int scope__regions_operations(scope_profile *p)
{
    for (int r = 0; r < p->nregions; r++) {
        scope__region *reg = &p->regions[r];
        /* the attribute of the lowest rank that has one, so that the
         * answer does not depend on the order files were read in */
        int found = 0;
        for (int k = 0; k < p->nranks && !found; k++) {
            const scope__cell *c = p->cells[(size_t)r * (size_t)p->nranks + (size_t)k];
            if (c && c->op >= 0) {
                reg->call = c->op;
                reg->big = c->op_big;
                found = 1;
            }
        }
        if (!found) {
            struct scope_call_name n;
            reg->call = scope_call_parse(reg->name, &n);
            reg->big = n.big;
        }
        char op[SCOPE_CALL_OPERATION_MAX];
        if (scope_call_operation(reg->call, reg->big, op, sizeof op) == 0) {
            reg->call = 0;
            continue;
        }
        if (!(reg->operation = strdup(op)))
            return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
    }
    return 0;
}

const struct scope_call_row *scope__region_call(const scope_profile *p, int r)
{
    return scope_call_at(r >= 0 && r < p->nregions ? p->regions[r].call : 0);
}

const char *scope_profile_region_operation(scope_profile *p, int region)
{
    if (!p || region < 0 || region >= p->nregions)
        return NULL;
    return p->regions[region].operation;
}

/* --- the reader's rules over a row ---------------------------------------- */

int scope__call_starts(const struct scope_call_row *c)
{
    return c->cls == SCOPE_CC_START;
}

int scope__call_starts_several(const struct scope_call_row *c)
{
    return c->cls == SCOPE_CC_START && scope_call_arg(c, SCOPE_ARG_requests) >= 0;
}

int scope__call_p2p(const struct scope_call_row *c)
{
    /* a persistent init moves nothing: each start moves (docs/format.md) */
    return ((c->cls == SCOPE_CC_SEND || c->cls == SCOPE_CC_RECV || c->cls == SCOPE_CC_SENDRECV) &&
            c->form != SCOPE_CF_PERSISTENT) ||
           scope__call_starts(c);
}

int scope__call_one_sided(const struct scope_call_row *c)
{
    return c->cls == SCOPE_CC_ONE_SIDED;
}

int scope__call_collective(const struct scope_call_row *c)
{
    return (c->cls == SCOPE_CC_COLLECTIVE || c->cls == SCOPE_CC_NEIGHBOR) &&
           c->form != SCOPE_CF_PERSISTENT;
}

int scope__coll_shape_pairwise(int shape)
{
    return shape > SCOPE_COLL_NO_PAIRS && shape < SCOPE_COLL_SHAPES;
}

int scope__call_coll_shape(const struct scope_call_row *c)
{
    return scope__call_collective(c) ? scope_call_coll(c)->shape : SCOPE_COLL_NONE;
}
