/*
 * waits_fold.c - the wait-state analysis's last step (waits.c calls it
 * once every bucket is matched): the longest wait of each MPI call, in
 * (rank, region, call) order, added up per (rank, region, pattern,
 * waited-for), with the waited-for ranks' I/O during them (waits_io.c),
 * and the rows sorted longest first. Kept apart from waits.c, which
 * gathers and matches, to keep each file one job.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_reader.h"
#include "scope_reader_io.h"
#include "scope_reader_waits.h"
#include "waits_internal.h"

static int cmp_row_key(const void *x, const void *y)
{
    const scope_wait_row *a = x, *b = y;
    int c = scope__cmp_i64(a->rank, b->rank);
    if (!c)
        c = scope__cmp_i64(a->region, b->region);
    if (!c)
        c = scope__cmp_i64(a->pattern, b->pattern);
    return c ? c : scope__cmp_i64(a->waited_for, b->waited_for);
}

/* A row with its I/O share, sorted as one (the row first). */
struct row_pair {
    scope_wait_row row;
    scope_wait_io io;
};

static int cmp_row_time(const void *x, const void *y)
{
    const scope_wait_row *a = &((const struct row_pair *)x)->row,
                         *b = &((const struct row_pair *)y)->row;
    if (a->time_ns != b->time_ns)
        return a->time_ns > b->time_ns ? -1 : 1;
    if (a->within_bound != b->within_bound)
        return a->within_bound > b->within_bound ? -1 : 1;
    return cmp_row_key(a, b);
}

/* Walks the calls in (rank, region, call) order through best[] and adds
 * their waits up per (rank, region, pattern, waited-for): the rows of one
 * (rank, region) are few, so they are gathered in a small list per cell. */
int scope__waits_fold(struct scope_waits *w, struct scope__cand_list *l, scope_profile *p)
{
    int nranks = scope_profile_rank_count(p);
    w->calls = scope__malloc_big((size_t)(l->n ? l->n : 1) * sizeof *w->calls);
    int64_t caprows = 64, nspans = 0;
    w->rows = malloc((size_t)caprows * sizeof *w->rows);
    if (!w->calls || !w->rows)
        return SCOPE_ENOMEM;
    /* the waits' intervals, for their share in I/O (waits_io.c): only
     * when the profile has I/O, so a run without costs nothing more */
    struct scope__wait_span *spans = NULL;
    if (scope_profile_has_io(p) &&
        !(spans = scope__malloc_big((size_t)(l->n ? l->n : 1) * sizeof *spans)))
        return SCOPE_ENOMEM;
    for (int k = 0; k < nranks; k++)
        for (int r = 0; r < l->nreg; r++) {
            int64_t off = l->off[(int64_t)k * l->nreg + r];
            if (off < 0)
                continue;
            int rank = scope_profile_rank(p, k);
            int64_t n = scope_profile_calls(p, r, rank), first = w->nrows;
            /* with I/O, the waits' starts: the calls' own (read again
             * here, dropped after unless the caller had them) */
            const int64_t *st = NULL, *en;
            int64_t nst = 0;
            scope__cell *cell = scope__cell_at(p, r, k);
            int had = !cell || cell->starts;
            for (int64_t i = 0; i < n; i++) {
                int32_t b = l->best[off + i];
                if (b < 0)
                    continue;
                const struct scope__cand *c = &l->v[b];
                if (spans && !st && c->wait_ns > c->bound_ns) {
                    int rc = scope_profile_times(p, r, rank, &st, &en, &nst);
                    if (rc < 0) {
                        free(spans);
                        return rc;
                    }
                }
                w->calls[w->ncalls++] = (scope_wait_call){ c->rank, c->region, c->call,
                                                           c->pattern, c->waited_for,
                                                           c->wait_ns, c->bound_ns };
                int above = c->wait_ns > c->bound_ns;
                if (above) {
                    w->totals.instances[c->pattern]++;
                    w->totals.waiting_ns[c->pattern] += c->wait_ns;
                    w->totals.waiting_total_ns += c->wait_ns;
                } else {
                    w->totals.within_bound[c->pattern]++;
                }
                int64_t j = first;
                while (j < w->nrows && !(w->rows[j].pattern == c->pattern &&
                                         w->rows[j].waited_for == c->waited_for))
                    j++;
                if (j == w->nrows) {
                    if (w->nrows == caprows) {
                        scope_wait_row *q = realloc(w->rows, (size_t)caprows * 2 * sizeof *q);
                        if (!q) {
                            free(spans);
                            return SCOPE_ENOMEM;
                        }
                        w->rows = q;
                        caprows *= 2;
                    }
                    w->rows[w->nrows++] = (scope_wait_row){ c->rank, c->region, c->pattern,
                                                            c->waited_for, 0, 0, 0 };
                }
                if (above) {
                    w->rows[j].instances++;
                    w->rows[j].time_ns += c->wait_ns;
                    if (spans && c->call < nst)
                        spans[nspans++] = (struct scope__wait_span){ st[c->call],
                                                                    st[c->call] + c->wait_ns, j };
                } else {
                    w->rows[j].within_bound++;
                }
            }
            if (st && !had)
                scope__cell_forget(cell, 1, 0);
        }
    w->rows_io = malloc((size_t)(w->nrows ? w->nrows : 1) * sizeof *w->rows_io);
    int rc = w->rows_io ? scope__waits_io(w, p, spans, nspans) : SCOPE_ENOMEM;
    free(spans);
    if (rc < 0)
        return rc;
    /* the rows and their I/O sorted together */
    struct row_pair *both = malloc((size_t)(w->nrows ? w->nrows : 1) * sizeof *both);
    if (!both)
        return SCOPE_ENOMEM;
    for (int64_t i = 0; i < w->nrows; i++)
        both[i] = (struct row_pair){ w->rows[i], w->rows_io[i] };
    qsort(both, (size_t)w->nrows, sizeof *both, cmp_row_time);
    for (int64_t i = 0; i < w->nrows; i++) {
        w->rows[i] = both[i].row;
        w->rows_io[i] = both[i].io;
    }
    free(both);
    return 0;
}
