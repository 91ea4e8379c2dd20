/*
 * moved.c - what each MPI call of a profile moved (scope_reader_comm.h):
 * the data columns of each (region, rank) and their byte totals, and which
 * regions are point to point or one-sided, decided by name, the one thing
 * every binding (C, Fortran, large-count) shares. The matrices and
 * histograms built on them are comm.c's and comm_collective.c's.
 *
 * The columns are read on first use and kept with the cell, like the
 * thread ids: a summary that asks for byte totals pays one read per column
 * of the MPI regions only (a region without the columns costs one
 * existence check).
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
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
    free(m);
}

/* Reads one int32 column in its own width. *out NULL when absent. */
static int read_i32(scope_profile *p, scope__cell *c, const char *name, int32_t **out)
{
    char *path;
    int rc = scope__cell_read_column32(p, c, name, out, &path);
    free(path);
    return rc;
}

static int read_i64(scope_profile *p, scope__cell *c, const char *name, int64_t **out)
{
    char *path;
    int rc = scope__cell_read_column(p, c, name, out, &path);
    free(path);
    return rc;
}

/* Loads the cell's columns once; c->moved stays NULL when it has none
 * (the bytes_sent column decides: the writer makes all six or none). */
int scope__cell_moved(scope_profile *p, scope__cell *c)
{
    if (c->moved_loaded)
        return 0;
    scope__h5_quiet quiet;
    scope__h5_quiet_begin(&quiet);
    struct scope__moved *m = calloc(1, sizeof *m);
    int rc = m ? 0 : scope__fail(SCOPE_ENOMEM, "out of memory");
    if (rc == 0)
        rc = read_i64(p, c, SCOPE_D_BYTES_SENT, &m->sent);
    if (rc == 0 && m->sent) {
        rc = read_i64(p, c, SCOPE_D_BYTES_RECEIVED, &m->received);
        if (rc == 0)
            rc = read_i32(p, c, SCOPE_D_DEST, &m->dest);
        if (rc == 0)
            rc = read_i32(p, c, SCOPE_D_SOURCE, &m->source);
        if (rc == 0)
            rc = read_i32(p, c, SCOPE_D_TAG, &m->tag);
        if (rc == 0)
            rc = read_i32(p, c, SCOPE_D_COMM, &m->comm);
        if (rc == 0 && (!m->received || !m->dest || !m->source || !m->tag || !m->comm))
            rc = scope__fail(SCOPE_EFORMAT, "%s: %s has %s but not every column of docs/format.md "
                             "\"What MPI calls moved\"", p->sources[c->source].path, c->group,
                             SCOPE_D_BYTES_SENT);
    }
    scope__h5_quiet_end(&quiet);
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

int scope_profile_moved(scope_profile *p, int region, int rank, scope_moved *out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    memset(out, 0, sizeof *out);
    int k = scope__cell_index(p, region, rank);
    if (k < 0)
        return k;
    scope__cell *c = scope__cell_at(p, region, k);
    if (!c)
        return 0;
    int rc = scope__cell_moved(p, c);
    if (rc < 0)
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

int scope_profile_bytes(scope_profile *p, int region, int rank, int64_t *sent, int64_t *received)
{
    if (!p || !sent || !received)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *sent = *received = 0;
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
        for (int64_t i = 0; c->moved && i < c->n; i++) {
            *sent += c->moved->sent[i];
            *received += c->moved->received[i];
        }
    }
    return 0;
}

int scope_profile_has_moved(scope_profile *p)
{
    if (!p)
        return 0;
    /* the writer marks such ranks: no visit to the regions (a timing-only
     * profile of 4,096 ranks would otherwise probe every region group) */
    for (int k = 0; k < p->nranks; k++) {
        int64_t v = 0;
        if (scope_profile_rank_attr_int(p, p->ranks[k].rank, SCOPE_A_MPI_DATA, &v) == 0 && v)
            return 1;
    }
    return 0;
}

int scope__mpi_op_name(const char *name, const char **op, size_t *len)
{
    if (!name || strncmp(name, "MPI_", 4) != 0)
        return 0;
    *op = name + 4;
    *len = strlen(*op);
    if (*len > 2 && strcmp(*op + *len - 2, "_c") == 0)
        *len -= 2;
    return 1;
}

/* 1 when `name` is MPI_<one of list> or its large-count MPI_<...>_c. */
static int mpi_name_in(const char *name, const char *const *list)
{
    const char *s;
    size_t n;
    if (!scope__mpi_op_name(name, &s, &n))
        return 0;
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == n && strncmp(s, list[i], n) == 0)
            return 1;
    return 0;
}

int scope_region_is_point_to_point(const char *name)
{
    static const char *const p2p[] = {
        "Send", "Ssend", "Bsend", "Rsend", "Isend", "Issend", "Ibsend", "Irsend",
        "Recv", "Irecv", "Sendrecv", "Sendrecv_replace", "Start", "Startall", NULL,
    };
    return mpi_name_in(name, p2p);
}

int scope_region_is_one_sided(const char *name)
{
    static const char *const rma[] = {
        "Put", "Rput", "Get", "Rget", "Accumulate", "Raccumulate", "Get_accumulate",
        "Rget_accumulate", "Fetch_and_op", "Compare_and_swap", NULL,
    };
    return mpi_name_in(name, rma);
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

