/*
 * rank_tables.c - the per-rank tables of a rank group (docs/format.md):
 * the threads that recorded, the interposition table (one row per config
 * entry and matched symbol) and the call paths. Written from the journal's
 * metadata after the events (h5writer.c).
 */
#include <hdf5.h>
#include <stdlib.h>

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
    int rc = scope__h5_write_table(c->rank_grp, SCOPE_T_THREADS, type, n, rows);
    H5Tclose(type);
    H5Tclose(str);
    free(rows);
    return rc ? SCOPE_EHDF5 : 0;
}

/* /rank<N>/interposition: one row per config entry and matched symbol. */
int scope__conv_write_interposition(struct conv *c)
{
    size_t n = c->jr.n_rows / 6;
    if (n == 0)
        return 0;
    static const char *const fields[6] = { SCOPE_C_PATTERN, SCOPE_C_SYMBOL, SCOPE_C_OBJECT,
                                           SCOPE_C_METHOD, SCOPE_C_STATUS, SCOPE_C_REASON };
    hid_t str = scope__h5_vlen_utf8();
    hid_t type = H5Tcreate(H5T_COMPOUND, 6 * sizeof(char *));
    for (int i = 0; i < 6; i++)
        H5Tinsert(type, fields[i], (size_t)i * sizeof(char *), str);
    int rc = scope__h5_write_table(c->rank_grp, SCOPE_T_INTERPOSITION, type, n, c->jr.rows);
    H5Tclose(type);
    H5Tclose(str);
    return rc ? SCOPE_EHDF5 : 0;
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
    int rc = scope__h5_write_table(c->rank_grp, SCOPE_T_CALLSITES, type, n, rows);
    H5Tclose(type);
    H5Tclose(str);
    free(rows);
    return rc ? SCOPE_EHDF5 : 0;
}

