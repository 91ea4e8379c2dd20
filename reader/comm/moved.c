/*
 * moved.c - what each MPI call of a profile moved (scope_reader_comm.h):
 * the data columns of each (region, rank), their byte totals, the one
 * rule that tells a message from a collective's root in them, and the
 * public questions of what a region is by name (the rules are
 * operation.c's);
 * the matrices and histograms built on the columns are comm.c's and
 * comm_collective.c's.
 *
 * The columns are read on first use and kept with the cell, like the
 * thread ids: a summary that asks for byte totals pays one read per column
 * of the MPI regions only (a region without the columns costs one
 * existence check).
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_calls.h"
#include "scope_format.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"

void scope__moved_free(struct scope__moved *m)
{
    if (!m)
        return;
    free(m->sent);
    free(m->received);
    free(m->dest);
    free(m->source);
    free(m->tag);
    free(m->comm);
    free(m->self);
    free(m);
}

/* Reads one column of `elem` bytes (8 or 4) in its own width: into buf
 * when given (room for c->n), else into a new malloc'd array. *out NULL
 * when absent. */
static int read_col(scope_profile *p, scope__cell *c, const char *name, size_t elem, void *buf,
                    void **out)
{
    if (buf) {
        int rc = scope__cell_read_column_into(p, c, name, elem, buf);
        *out = rc == 1 ? buf : NULL;
        return rc < 0 ? rc : 0;
    }
    char *path;
    int rc = elem == 8 ? scope__cell_read_column(p, c, name, (int64_t **)out, &path)
                       : scope__cell_read_column32(p, c, name, (int32_t **)out, &path);
    free(path);
    return rc;
}

/* Reads the cell's columns into m (bufs: the caller's arrays, NULL: new
 * ones, with bytes_to_self); m->sent stays NULL when it has none (the
 * bytes_sent column decides: the writer makes all six or none). */
static int read_moved(scope_profile *p, scope__cell *c, const struct scope__moved *bufs,
                      struct scope__moved *m)
{
    static const struct scope__moved none;
    const struct scope__moved *b = bufs ? bufs : &none;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    int rc = read_col(p, c, SCOPE_D_BYTES_SENT, 8, b->sent, (void **)&m->sent);
    if (rc == 0 && m->sent) {
        rc = read_col(p, c, SCOPE_D_BYTES_RECEIVED, 8, b->received, (void **)&m->received);
        if (rc == 0)
            rc = read_col(p, c, SCOPE_D_DEST, 4, b->dest, (void **)&m->dest);
        if (rc == 0)
            rc = read_col(p, c, SCOPE_D_SOURCE, 4, b->source, (void **)&m->source);
        if (rc == 0)
            rc = read_col(p, c, SCOPE_D_TAG, 4, b->tag, (void **)&m->tag);
        if (rc == 0)
            rc = read_col(p, c, SCOPE_D_COMM, 4, b->comm, (void **)&m->comm);
        if (rc == 0 && !bufs)   /* optional */
            rc = read_col(p, c, SCOPE_D_BYTES_SELF, 8, NULL, (void **)&m->self);
        if (rc == 0 && (!m->received || !m->dest || !m->source || !m->tag || !m->comm))
            rc = scope__fail(SCOPE_EFORMAT, "%s: %s has %s but not every column of docs/format.md "
                             "\"What MPI calls moved\"", p->sources[c->source].path, c->group,
                             SCOPE_D_BYTES_SENT);
    }
    scope_h5_quiet_end(&quiet);
    return rc;
}

/* Loads the cell's columns once; c->moved stays NULL when it has none. */
int scope__cell_moved(scope_profile *p, scope__cell *c)
{
    if (c->moved_loaded)
        return 0;
    struct scope__moved *m = calloc(1, sizeof *m);
    int rc = m ? read_moved(p, c, NULL, m) : scope__fail(SCOPE_ENOMEM, "out of memory");
    if (rc < 0) {
        scope__moved_free(m);
        return rc;
    }
    if (!m->sent) {
        scope__moved_free(m);
        m = NULL;
    }
    c->moved = m;
    c->moved_loaded = 1;
    return 0;
}

int scope__cell_moved_view(scope_profile *p, scope__cell *c, const struct scope__moved *bufs,
                           struct scope__moved *out)
{
    memset(out, 0, sizeof *out);
    if (c->moved_loaded) {
        if (c->moved)
            *out = *c->moved;
        return 0;
    }
    int rc = read_moved(p, c, bufs, out);
    if (rc < 0 || !out->sent)
        memset(out, 0, sizeof *out);
    return rc;
}

int scope_profile_moved(scope_profile *p, int region, int rank, scope_moved *out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    memset(out, 0, sizeof *out);
    scope__cell *c;
    int rc = scope__cell_get(p, region, rank, &c);
    if (rc < 0 || !c || (rc = scope__cell_moved(p, c)) < 0)
        return rc;
    out->n = c->n;
    if (c->moved) {
        out->bytes_sent = c->moved->sent;
        out->bytes_received = c->moved->received;
        out->dest = c->moved->dest;
        out->source = c->moved->source;
        out->tag = c->moved->tag;
        out->comm = c->moved->comm;
    }
    return 0;
}

int scope__moved_self(scope_profile *p, int region, int rank, const int64_t **self)
{
    *self = NULL;
    scope__cell *c;
    int rc = scope__cell_get(p, region, rank, &c);
    if (rc < 0 || !c)
        return rc;
    rc = scope__cell_moved(p, c);
    if (rc == 0 && c->moved)
        *self = c->moved->self;
    return rc;
}

int scope__each_moved_cell(scope_profile *p, int region, int rank,
                           void (*f)(void *ctx, int rank, const scope__cell *c), void *ctx)
{
    int k0, k1;
    int rc = scope__cell_span(p, region, rank, &k0, &k1);
    if (rc < 0)
        return rc;
    for (int k = k0; k < k1; k++) {
        scope__cell *c = scope__cell_at(p, region, k);
        if (!c)
            continue;
        if ((rc = scope__cell_moved(p, c)) < 0)
            return rc;
        if (c->moved)
            f(ctx, p->ranks[k].rank, c);
    }
    return 0;
}

struct byte_sums {
    int64_t *sent, *received;
};

static void add_bytes(void *ctx, int rank, const scope__cell *c)
{
    struct byte_sums *b = ctx;
    (void)rank;
    for (int64_t i = 0; i < c->n; i++) {
        *b->sent += c->moved->sent[i];
        *b->received += c->moved->received[i];
    }
}

int scope_profile_bytes(scope_profile *p, int region, int rank, int64_t *sent, int64_t *received)
{
    if (!p || !sent || !received)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *sent = *received = 0;
    struct byte_sums b = { sent, received };
    return scope__each_moved_cell(p, region, rank, add_bytes, &b);
}

int scope_profile_has_moved(scope_profile *p)
{
    /* the writer marks such ranks: no visit to the regions (a timing-only
     * profile of 4,096 ranks would otherwise probe every region group) */
    return scope__any_rank_flag(p, SCOPE_A_MPI_DATA);
}

/* What a region is, by name (operation.c's rules over the row the one
 * parser reads from the name). */
static const struct scope_call_row *row_of(const char *name)
{
    return scope_call_at(scope_call_id_of(name));
}

int scope_region_is_point_to_point(const char *name)
{
    return scope__call_p2p(row_of(name));
}

int scope_region_is_one_sided(const char *name)
{
    return scope__call_one_sided(row_of(name));
}

int scope_region_is_collective_pairwise(const char *name)
{
    const struct scope_call_row *c = row_of(name);
    return scope__coll_shape_pairwise(scope__call_coll_shape(c)) || scope__call_starts(c);
}

int scope_region_is_collective(const char *name)
{
    return scope__call_collective(row_of(name));
}

int scope_moved_sent_message(int32_t dest, int32_t tag)
{
    return dest >= 0 && tag != SCOPE_NO_TAG_VALUE;
}

int32_t scope_moved_root(int32_t dest, int32_t source, int32_t tag)
{
    if (tag != SCOPE_NO_TAG_VALUE)
        return SCOPE_NO_RANK;
    return dest >= 0 ? dest : source >= 0 ? source : SCOPE_NO_RANK;
}

int scope_profile_world_size(scope_profile *p)
{
    if (!p)
        return 0;
    int n = 0;
    for (int k = 0; k < p->nranks; k++)
        if (p->ranks[k].rank + 1 > n)
            n = p->ranks[k].rank + 1;
    for (int r = 0; r < p->nregions; r++)
        for (int k = 0; k < p->nranks; k++) {
            scope__cell *c = scope__cell_at(p, r, k);
            if (!c || scope__cell_moved(p, c) < 0 || !c->moved)
                continue;
            for (int64_t i = 0; i < c->n; i++) {
                if (c->moved->dest[i] + 1 > n)
                    n = c->moved->dest[i] + 1;
                if (c->moved->source[i] + 1 > n)
                    n = c->moved->source[i] + 1;
            }
        }
    return n;
}

