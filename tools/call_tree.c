/*
 * call_tree.c - aggregation of calls by call path (call_tree.h). Each call
 * of a call stack maps to the node (its parent call's node, its region);
 * because a parent precedes its children in the reader's order, one pass
 * with a hash of (parent node, region) builds the tree in linear time.
 */
#include <stdlib.h>
#include <string.h>

#include "call_tree.h"
#include "event_output.h"

static size_t hash(int64_t parent, int32_t region, size_t nslots)
{
    uint64_t h = (uint64_t)(parent + 1) * 0x9E3779B97F4A7C15ull ^
                 (uint64_t)(uint32_t)region * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ (h >> 29)) & (nslots - 1);
}

static int rehash(scope__tree *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 1024;
    int64_t *s = calloc(ns, sizeof *s);
    if (!s)
        return -1;
    for (int64_t i = 0; i < t->n; i++) {
        size_t h = hash(t->nodes[i].parent, t->nodes[i].region, ns);
        while (s[h])
            h = (h + 1) & (ns - 1);
        s[h] = i + 1;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = ns;
    return 0;
}

/* The node (parent, region), created when new; -1 when out of memory. */
static int64_t node(scope__tree *t, int64_t parent, int32_t region)
{
    if ((size_t)(t->n + 1) * 2 > t->nslots && rehash(t) < 0)
        return -1;
    size_t h = hash(parent, region, t->nslots);
    for (; t->slots[h]; h = (h + 1) & (t->nslots - 1)) {
        scope__tree_node *x = &t->nodes[t->slots[h] - 1];
        if (x->parent == parent && x->region == region)
            return t->slots[h] - 1;
    }
    if (t->n == t->cap) {
        int64_t nc = t->cap ? t->cap * 2 : 256;
        scope__tree_node *q = realloc(t->nodes, (size_t)nc * sizeof *q);
        if (!q)
            return -1;
        t->nodes = q;
        t->cap = nc;
    }
    scope__tree_node *x = &t->nodes[t->n];
    memset(x, 0, sizeof *x);
    x->region = region;
    x->parent = parent;
    x->depth = parent >= 0 ? t->nodes[parent].depth + 1 : 0;
    t->slots[h] = t->n + 1;
    return t->n++;
}

/* The wait of (rank, region, call) above its clock bound, 0 none: a
 * binary search of w's waiting calls, sorted by (rank, region, call). */
static int64_t wait_of(const scope_wait_call *v, int64_t n, int32_t rank, int32_t region,
                       int64_t call)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        const scope_wait_call *x = &v[mid];
        int less = x->rank != rank ? x->rank < rank
                   : x->region != region ? x->region < region : x->call < call;
        if (less)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && v[lo].rank == rank && v[lo].region == region && v[lo].call == call &&
        v[lo].wait_ns > v[lo].bound_ns)
        return v[lo].wait_ns;
    return 0;
}

static int add_stack(scope__tree *t, const scope_call_stack *cs, int rank)
{
    int64_t n = scope_call_stack_count(cs);
    const scope_call *c = scope_call_stack_calls(cs);
    const scope_wait_call *wv = NULL;
    int64_t nw = t->waits ? scope_waits_calls(t->waits, &wv) : 0;
    int64_t *of = malloc((size_t)(n ? n : 1) * sizeof *of);
    if (!of)
        return SCOPE_ENOMEM;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = node(t, c[i].parent >= 0 ? of[c[i].parent] : -1,
                         c[i].region);
        if (k < 0) {
            free(of);
            return SCOPE_ENOMEM;
        }
        of[i] = k;
        t->nodes[k].calls++;
        t->nodes[k].total_ns += c[i].end_ns - c[i].start_ns;
        t->nodes[k].self_ns += c[i].self_ns;
        if (nw)
            t->nodes[k].waiting_ns += wait_of(wv, nw, rank, c[i].region, c[i].call_index);
    }
    free(of);
    return 0;
}

/* Adds the calls of `thread` on `rank`: its call stack, compensated when
 * t asks. Returns add_stack's 0, or a negative code. */
static int add_rank(scope__tree *t, scope_profile *p, int rank, int thread)
{
    scope_call_stack *cs;
    int rc = (t->compensate ? scope_profile_call_stack_compensated
              : scope_profile_call_stack)(p, rank, thread, &cs);
    if (rc < 0)
        return rc;
    rc = add_stack(t, cs, rank);
    scope_call_stack_free(cs);
    return rc;
}

int scope__tree_add(scope__tree *t, scope_profile *p, int rank, int thread)
{
    int nr = scope_profile_rank_count(p);
    if (rank != SCOPE_ALL_RANKS)
        return add_rank(t, p, rank, thread);
    int64_t total = scope__rank_events(p, SCOPE_ALL_RANKS), done = 0;
    for (int k = 0; k < nr; k++) {
        int r = scope_profile_rank(p, k);
        scope__progress("call tree", done, total);
        int rc = add_rank(t, p, r, thread);
        if (rc < 0)
            return rc;
        done += scope__rank_events(p, r);
    }
    scope__progress("call tree", total, total);
    return 0;
}

static const scope__tree *sort_tree;

static int cmp_total(const void *a, const void *b)
{
    const scope__tree_node *x = &sort_tree->nodes[*(const int64_t *)a];
    const scope__tree_node *y = &sort_tree->nodes[*(const int64_t *)b];
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return (x->region > y->region) - (x->region < y->region);
}

int64_t *scope__tree_order(const scope__tree *t)
{
    int64_t n = t->n;
    int64_t *off = calloc((size_t)n + 3, sizeof *off);
    int64_t *kids = malloc((size_t)(n ? n : 1) * sizeof *kids);
    int64_t *out = malloc((size_t)(n ? n : 1) * sizeof *out);
    int64_t *stack = malloc((size_t)(n ? n : 1) * sizeof *stack);
    if (!off || !kids || !out || !stack) {
        free(out);
        out = NULL;
        goto done;
    }
    /* Children grouped by parent (group 0 = top level), as in the
     * reader's call stack, then each group sorted. */
    for (int64_t i = 0; i < n; i++)
        off[t->nodes[i].parent + 3]++;
    for (int64_t g = 2; g < n + 3; g++)
        off[g] += off[g - 1];
    for (int64_t i = 0; i < n; i++)
        kids[off[t->nodes[i].parent + 2]++] = i;
    sort_tree = t;
    for (int64_t g = 0; g <= n; g++)
        if (off[g + 1] - off[g] > 1)
            qsort(kids + off[g], (size_t)(off[g + 1] - off[g]),
                  sizeof *kids, cmp_total);
    /* Depth-first: push a group's children in reverse so the first pops
     * first. */
    int64_t sp = 0, m = 0;
    for (int64_t j = off[1]; j-- > off[0];)
        stack[sp++] = kids[j];
    while (sp > 0) {
        int64_t v = stack[--sp];
        out[m++] = v;
        for (int64_t j = off[v + 2]; j-- > off[v + 1];)
            stack[sp++] = kids[j];
    }
done:
    free(off);
    free(kids);
    free(stack);
    return out;
}

void scope__tree_free(scope__tree *t)
{
    free(t->nodes);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

char *scope__tree_path(scope_profile *p, const scope__tree *t, int64_t v,
                       int folded)
{
    size_t len = 1;
    for (int64_t u = v; u >= 0; u = t->nodes[u].parent)
        len += strlen(scope_profile_region_name(p, t->nodes[u].region)) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    size_t end = len - 1;
    s[end] = '\0';
    for (int64_t u = v; u >= 0; u = t->nodes[u].parent) {
        const char *name = scope_profile_region_name(p, t->nodes[u].region);
        size_t n = strlen(name);
        if (end < len - 1)
            s[--end] = ';';
        end -= n;
        memcpy(s + end, name, n);
        for (size_t i = end; folded && i < end + n; i++)
            if (s[i] == ';')
                s[i] = ':';
            else if (s[i] == '\n' || s[i] == '\r')
                s[i] = ' ';
    }
    memmove(s, s + end, len - end);
    return s;
}
