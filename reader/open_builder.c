/*
 * open_builder.c - filling the state of one open (open_builder.h): a rank,
 * a found (region, rank) cell, the least start time. profile_open.c,
 * host_summary.c and open_workers.c all add what they read through these,
 * and this file calls none of them back.
 */
#include <stdlib.h>
#include <string.h>

#include "open_builder.h"

/* Grows *arr (of *cap elements of `size` bytes) to hold n + 1. */
int scope__open_grow(void *arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *q = realloc(*(void **)arr, ncap * size);
    if (!q)
        return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
    *(void **)arr = q;
    *cap = ncap;
    return 0;
}

int scope__open_add_rank(builder *b, int rank, int source, const char *group)
{
    char *g = NULL;
    if (group && !(g = strdup(group)))
        return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
    scope_profile *p = b->p;
    scope__rank *q = realloc(p->ranks, ((size_t)p->nranks + 1) * sizeof *q);
    if (!q) {
        free(g);
        return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
    }
    p->ranks = q;
    memset(&q[p->nranks], 0, sizeof q[p->nranks]);
    q[p->nranks].rank = rank;
    q[p->nranks].source = source;
    q[p->nranks].group = g;
    p->nranks++;
    return 0;
}

/* Takes ownership of `name` (freed on failure too). */
int scope__open_add_cell(builder *b, char *name, int rank, int source,
                         const char *group, int64_t offset, int64_t n,
                         int64_t first_start, int64_t first_end)
{
    scope__cell *c = calloc(1, sizeof *c);
    if (!c || scope__open_grow(&b->found, &b->capfound, b->nfound, sizeof *b->found) < 0)
        goto fail_alloc;
    if (group && !(c->group = strdup(group)))
        goto fail_alloc;
    c->source = source;
    c->offset = offset;
    c->n = n;
    c->first_start = first_start;
    c->first_end = first_end;
    c->op = -1;     /* no `operation` attribute unless the caller read one */
    b->found[b->nfound].name = name;
    b->found[b->nfound].rank = rank;
    b->found[b->nfound].cell = c;
    b->nfound++;
    return 0;
fail_alloc:
    free(c);
    free(name);
    return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
}

void scope__open_note_start(int *have, int64_t *min, int64_t v)
{
    if (!*have || v < *min)
        *min = v;
    *have = 1;
}
