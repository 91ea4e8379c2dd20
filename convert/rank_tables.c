/*
 * rank_tables.c - the per-rank tables of a rank group (docs/format.md):
 * the threads that recorded, the interposition table (one row per config
 * entry and matched symbol) and the call paths. Written from the journal's
 * metadata after the events (h5writer.c).
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "h5_util.h"
#include "scope_error.h"
#include "scope_format.h"

struct thread_row {
    int32_t index;
    int64_t tid;
    const char *name;
    int64_t start_ns, end_ns;
};

/* Writes table `name` of the rank group from n rows of compound `type`
 * (whose strings are of type `str`), and closes both types. Returns 0 or
 * SCOPE_EHDF5. */
static int write_rows(struct conv *c, const char *name, hid_t type, hid_t str, size_t n,
                      const void *rows)
{
    int rc = scope__h5_write_table(c->rank_grp, name, type, n, rows);
    H5Tclose(type);
    H5Tclose(str);
    return rc ? SCOPE_EHDF5 : 0;
}

int scope__conv_write_threads(struct conv *c)
{
    uint32_t n = 0;
    struct thread_row *rows = calloc(c->n_threads_used ? c->n_threads_used : 1, sizeof *rows);
    if (!rows)
        return SCOPE_ENOMEM;
    for (uint32_t t = 0; t < c->n_threads_used; t++) {
        const struct scope_jr_thread *jt = &c->jr.threads[t];
        if (!jt->n_chunks || !c->th[t].last_ticks)
            continue;
        uint64_t end = jt->end_ticks ? jt->end_ticks : c->th[t].last_ticks;
        rows[n++] = (struct thread_row){ (int32_t)t, jt->tid, jt->name,
                                         scope__jr_ns(&c->jr, c->th[t].first_ticks),
                                         scope__jr_ns(&c->jr, end) };
    }
    hid_t str = scope__h5_vlen_utf8();
    hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(struct thread_row));
    H5Tinsert(type, SCOPE_C_INDEX, HOFFSET(struct thread_row, index), H5T_NATIVE_INT32);
    H5Tinsert(type, SCOPE_C_TID, HOFFSET(struct thread_row, tid), H5T_NATIVE_INT64);
    H5Tinsert(type, SCOPE_C_NAME, HOFFSET(struct thread_row, name), str);
    H5Tinsert(type, SCOPE_C_START_NS, HOFFSET(struct thread_row, start_ns), H5T_NATIVE_INT64);
    H5Tinsert(type, SCOPE_C_END_NS, HOFFSET(struct thread_row, end_ns), H5T_NATIVE_INT64);
    int rc = write_rows(c, SCOPE_T_THREADS, type, str, n, rows);
    free(rows);
    return rc;
}

void scope__shared_table_free(struct scope__shared_table *t)
{
    for (size_t i = 0; t->rows && i < t->n_cells; i++)
        free(t->rows[i]);
    free(t->rows);
    t->rows = NULL;
    t->n_cells = 0;
    t->path[0] = 0;
}

/* Whether the journal's table holds the same cells as the shared one. */
static int same_table(const struct scope__shared_table *t, char *const *cells, size_t n)
{
    if (!t->path[0] || t->n_cells != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(t->rows[i] ? t->rows[i] : "", cells[i] ? cells[i] : "") != 0)
            return 0;
    return 1;
}

/* Makes this rank's table the shared one (a copy of its cells). Without
 * memory for the copy there is just no sharing. */
static void share_table(struct scope__shared_table *t, int rank, char *const *cells, size_t n)
{
    scope__shared_table_free(t);
    char **rows = calloc(n, sizeof *rows);
    if (!rows)
        return;
    for (size_t i = 0; i < n; i++)
        if (cells[i] && !(rows[i] = strdup(cells[i]))) {
            while (i-- > 0)
                free(rows[i]);
            free(rows);
            return;
        }
    t->rows = rows;
    t->n_cells = n;
    snprintf(t->path, sizeof t->path, "/" SCOPE_G_RANK_FMT "/%s", rank, SCOPE_T_INTERPOSITION);
}

/* /rank<N>/interposition: one row per config entry and matched symbol. In
 * a host file, a rank whose table equals the one written just before gets
 * a hard link to that dataset: a reader sees the same table at its path
 * (HDF5 resolves hard links like any other), and the file does not hold
 * one copy per rank of the default config's ~430 rows of six strings,
 * which were a quarter of a host writer's time. */
int scope__conv_write_interposition(struct conv *c)
{
    size_t n = c->jr.n_rows / 6;
    if (n == 0)
        return 0;
    if (c->shared && same_table(c->shared, c->jr.rows, 6 * n))
        return H5Lcreate_hard(c->file, c->shared->path, c->rank_grp, SCOPE_T_INTERPOSITION,
                              H5P_DEFAULT, H5P_DEFAULT) < 0 ? SCOPE_EHDF5 : 0;
    static const char *const fields[6] = { SCOPE_C_PATTERN, SCOPE_C_SYMBOL, SCOPE_C_OBJECT,
                                           SCOPE_C_METHOD, SCOPE_C_STATUS, SCOPE_C_REASON };
    hid_t str = scope__h5_vlen_utf8();
    hid_t type = H5Tcreate(H5T_COMPOUND, 6 * sizeof(char *));
    for (int i = 0; i < 6; i++)
        H5Tinsert(type, fields[i], (size_t)i * sizeof(char *), str);
    int rc = write_rows(c, SCOPE_T_INTERPOSITION, type, str, n, c->jr.rows);
    if (rc == 0 && c->shared)
        share_table(c->shared, c->rank, c->jr.rows, 6 * n);
    return rc;
}

/* /rank<N>/callsites: one row per frame of each call path the rank
 * recorded (docs/format.md): id (the value in callsite_ids), frame (0 =
 * immediate caller), depth, offset within the object, build_id, object. */
struct site_row {
    int32_t id, frame, depth;
    uint64_t offset;
    const char *build_id, *object;
};

int scope__conv_write_callsites(struct conv *c)
{
    size_t n = 0;
    for (uint32_t i = 0; i < c->jr.n_sites; i++)
        n += c->jr.sites[i].depth;
    if (n == 0)
        return 0;
    struct site_row *rows = malloc(n * sizeof *rows);
    if (!rows)
        return SCOPE_ENOMEM;
    size_t k = 0;
    for (uint32_t i = 0; i < c->jr.n_sites; i++) {
        const struct scope_jr_site *st = &c->jr.sites[i];
        for (uint32_t f = 0; f < st->depth; f++)
            rows[k++] = (struct site_row){ (int32_t)i, (int32_t)f, (int32_t)st->depth,
                                           st->f[f].offset, st->f[f].build_id, st->f[f].object };
    }
    hid_t str = scope__h5_vlen_utf8();
    hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(struct site_row));
    H5Tinsert(type, SCOPE_C_ID, HOFFSET(struct site_row, id), H5T_NATIVE_INT32);
    H5Tinsert(type, SCOPE_C_FRAME, HOFFSET(struct site_row, frame), H5T_NATIVE_INT32);
    H5Tinsert(type, SCOPE_C_DEPTH, HOFFSET(struct site_row, depth), H5T_NATIVE_INT32);
    H5Tinsert(type, SCOPE_C_OFFSET, HOFFSET(struct site_row, offset), H5T_NATIVE_UINT64);
    H5Tinsert(type, SCOPE_C_BUILD_ID, HOFFSET(struct site_row, build_id), str);
    H5Tinsert(type, SCOPE_C_OBJECT, HOFFSET(struct site_row, object), str);
    int rc = write_rows(c, SCOPE_T_CALLSITES, type, str, n, rows);
    free(rows);
    return rc;
}

