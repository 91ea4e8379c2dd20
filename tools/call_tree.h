/*
 * call_tree.h - calls aggregated by call path (main;solve;mpi_wait): the
 * shape behind `scope tree`, the folded-stack export and flame graphs.
 * Built from the reader's per-rank call stacks.
 */
#ifndef SCOPE_TOOLS_CALL_TREE_H
#define SCOPE_TOOLS_CALL_TREE_H

#include <stdint.h>

#include "scope_reader.h"
#include "scope_reader_waits.h"

typedef struct {
    int32_t region;
    int32_t depth;
    int64_t parent;         /* node index, -1 for a top-level path */
    int64_t calls;
    int64_t total_ns;       /* inclusive */
    int64_t self_ns;        /* exclusive */
    int64_t waiting_ns;     /* of its calls, above the clock bound (only
                             * with scope__tree.waits) */
} scope__tree_node;

typedef struct {
    scope__tree_node *nodes;
    int64_t n, cap;
    int64_t *slots;         /* hash of (parent, region) -> node + 1; 0 empty */
    size_t nslots;
    int compensate;         /* 1: measured recording cost subtracted
                             * (scope_profile_call_stack_compensated) */
    const scope_waits *waits; /* non-NULL: add each call's wait state */
} scope__tree;

/* Adds the call stacks of `rank` (or every rank when SCOPE_ALL_RANKS) on
 * lane `thread` (or SCOPE_ALL_THREADS) to t (zero-initialised first).
 * Returns 0, or a SCOPE_E* code with the reader's message set. Cost:
 * linear in the calls after the reader's call stack (n log n). */
int scope__tree_add(scope__tree *t, scope_profile *p, int rank, int thread);

/* Node indices in depth-first order, children by total descending (ties:
 * region order). malloc'd, t->n of them; NULL when out of memory. */
int64_t *scope__tree_order(const scope__tree *t);

void scope__tree_free(scope__tree *t);

/* The call path of node v, names joined by ';' (malloc'd; NULL when out
 * of memory). `folded`: the folded-stack form, where a ';' inside a name
 * becomes ':' and line breaks spaces, so the line splits unambiguously. */
char *scope__tree_path(scope_profile *p, const scope__tree *t, int64_t v,
                       int folded);

#endif
