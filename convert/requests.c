/*
 * requests.c - which nonblocking post each MPI_Wait/MPI_Test call
 * completed (journal.h, request records): the table /rank<N>/requests of
 * docs/format.md ("What MPI calls moved"), one row per completed request,
 * and the receive posts' columns completed with what their status said
 * (an MPI_Irecv's size, and its source and tag when it named none).
 *
 * Posts are named by a per-process id in the journal; here each becomes
 * (region, call index) when its end is merged, and a completion, which
 * always comes later on the same thread, finds it in a hash map. A post
 * never completed (freed, or still in flight at finalize) has no row.
 */
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "h5_util.h"
#include "journal.h"
#include "scope_error.h"
#include "scope_format.h"

struct post {
    uint32_t id;            /* 0: empty slot */
    struct frame f;
    int recv;
};

struct row {
    struct frame post, done;
    int32_t source, tag;
    int64_t bytes;
    int8_t cancelled;
};

struct conv_requests {
    struct post *map;       /* open addressing, size a power of two */
    size_t cap, used;
    struct row *rows;
    size_t n, cap_rows;
};

static size_t slot_of(const struct conv_requests *q, uint32_t id)
{
    return (size_t)(id * 2654435761u) & (q->cap - 1);
}

static int grow_map(struct conv_requests *q)
{
    size_t cap = q->cap ? 2 * q->cap : 1024;
    struct post *m = calloc(cap, sizeof *m);
    if (!m)
        return SCOPE_ENOMEM;
    struct conv_requests nq = { m, cap, 0, NULL, 0, 0 };
    for (size_t i = 0; i < q->cap; i++)
        if (q->map[i].id) {
            size_t k = slot_of(&nq, q->map[i].id);
            while (m[k].id)
                k = (k + 1) & (cap - 1);
            m[k] = q->map[i];
            nq.used++;
        }
    free(q->map);
    q->map = m;
    q->cap = cap;
    q->used = nq.used;
    return 0;
}

static int add_post(struct conv_requests *q, uint32_t id, struct frame f, int recv)
{
    if ((q->used + 1) * 2 > q->cap) {
        int rc = grow_map(q);
        if (rc < 0)
            return rc;
    }
    size_t k = slot_of(q, id);
    while (q->map[k].id && q->map[k].id != id)
        k = (k + 1) & (q->cap - 1);
    if (!q->map[k].id)
        q->used++;
    q->map[k] = (struct post){ id, f, recv };
    return 0;
}

/* The post named `id`, or NULL. Posts stay in the map: a persistent
 * request's id is never completed twice, and the map is freed whole. */
static const struct post *find_post(const struct conv_requests *q, uint32_t id)
{
    if (!q->cap)
        return NULL;
    size_t k = slot_of(q, id);
    while (q->map[k].id) {
        if (q->map[k].id == id)
            return &q->map[k];
        k = (k + 1) & (q->cap - 1);
    }
    return NULL;
}

int scope__conv_requests(struct conv *c, struct frame done, const struct scope_rec *req, size_t n)
{
    struct conv_requests *q = c->requests;
    if (!q) {
        q = c->requests = calloc(1, sizeof *q);
        if (!q)
            return SCOPE_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t t = req[i].ticks;
        uint32_t id = (uint32_t)t;
        if (!(t & SCOPE_REQ_COMPLETION)) {
            int rc = add_post(q, id, done, (t & SCOPE_REQ_RECV) != 0);
            if (rc < 0)
                return rc;
            continue;
        }
        const struct post *p = find_post(q, id);
        if (!p)
            continue;       /* posted before recording, or on another thread */
        uint32_t src1 = (uint32_t)(t >> 32) & 0xffffu, tag2 = (uint32_t)(t >> 48) & 0x3fffu;
        struct row r = { p->f, done, -1, SCOPE_NO_TAG, req[i].aux, 0 };
        if (src1 == SCOPE_REQ_CANCELLED)
            r.cancelled = 1;
        else if (src1)
            r.source = (int32_t)src1 - 1;
        if (tag2)
            r.tag = (int32_t)tag2 - 2;
        if (p->recv && !r.cancelled) {
            int rc = scope__conv_data_received(c, p->f, r.bytes, r.source, r.tag);
            if (rc < 0)
                return rc;
        }
        if (q->n == q->cap_rows) {
            size_t cap = q->cap_rows ? 2 * q->cap_rows : 256;
            struct row *v = realloc(q->rows, cap * sizeof *v);
            if (!v)
                return SCOPE_ENOMEM;
            q->rows = v;
            q->cap_rows = cap;
        }
        q->rows[q->n++] = r;
    }
    return 0;
}

void scope__conv_requests_free(struct conv *c)
{
    struct conv_requests *q = c->requests;
    if (!q)
        return;
    free(q->map);
    free(q->rows);
    free(q);
    c->requests = NULL;
}

int scope__conv_write_requests(struct conv *c)
{
    struct conv_requests *q = c->requests;
    if (!q || q->n == 0)
        return 0;
    size_t n = q->n;
    int32_t *pr = malloc(n * sizeof *pr), *dr = malloc(n * sizeof *dr);
    int64_t *pc = malloc(n * sizeof *pc), *dc = malloc(n * sizeof *dc), *by = malloc(n * sizeof *by);
    int32_t *so = malloc(n * sizeof *so), *tg = malloc(n * sizeof *tg);
    int8_t *ca = malloc(n);
    /* regions by their names, listed once each in `region_names` */
    int32_t *idx = malloc((c->jr.n_regions + 1) * sizeof *idx);
    char *names = NULL;
    size_t nlen = 0;
    int32_t nnames = 0;
    int rc = SCOPE_ENOMEM;
    if (!pr || !dr || !pc || !dc || !by || !so || !tg || !ca || !idx)
        goto out;
    for (uint32_t i = 0; i <= c->jr.n_regions; i++)
        idx[i] = -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t regs[2] = { q->rows[i].post.region, q->rows[i].done.region };
        for (int k = 0; k < 2; k++) {
            if (idx[regs[k]] >= 0)
                continue;
            const char *nm = c->jr.regions[regs[k]].name;
            char *v = realloc(names, nlen + strlen(nm) + 1);
            if (!v)
                goto out;
            names = v;
            memcpy(names + nlen, nm, strlen(nm) + 1);
            nlen += strlen(nm) + 1;
            idx[regs[k]] = nnames++;
        }
        pr[i] = idx[q->rows[i].post.region];
        pc[i] = (int64_t)q->rows[i].post.slot;
        dr[i] = idx[q->rows[i].done.region];
        dc[i] = (int64_t)q->rows[i].done.slot;
        so[i] = q->rows[i].source;
        tg[i] = q->rows[i].tag;
        by[i] = q->rows[i].bytes;
        ca[i] = q->rows[i].cancelled;
    }
    const struct scope__h5_column cols[] = {
        { SCOPE_D_REQ_POST_REGION, H5T_STD_I32LE, H5T_NATIVE_INT32, pr, n },
        { SCOPE_D_REQ_POST_CALL, H5T_STD_I64LE, H5T_NATIVE_INT64, pc, n },
        { SCOPE_D_REQ_DONE_REGION, H5T_STD_I32LE, H5T_NATIVE_INT32, dr, n },
        { SCOPE_D_REQ_DONE_CALL, H5T_STD_I64LE, H5T_NATIVE_INT64, dc, n },
        { SCOPE_D_SOURCE, H5T_STD_I32LE, H5T_NATIVE_INT32, so, n },
        { SCOPE_D_TAG, H5T_STD_I32LE, H5T_NATIVE_INT32, tg, n },
        { SCOPE_D_BYTES_RECEIVED, H5T_STD_I64LE, H5T_NATIVE_INT64, by, n },
        { SCOPE_D_REQ_CANCELLED, H5T_STD_I8LE, H5T_NATIVE_INT8, ca, n },
        { SCOPE_D_REQ_REGION_NAMES, H5T_STD_U8LE, H5T_NATIVE_UINT8, names, nlen },
    };
    rc = scope__h5_write_columns(c->rank_grp, SCOPE_G_REQUESTS, cols,
                                 sizeof cols / sizeof *cols) < 0 ? SCOPE_EHDF5 : 0;
out:
    free(pr);
    free(dr);
    free(pc);
    free(dc);
    free(by);
    free(so);
    free(tg);
    free(ca);
    free(idx);
    free(names);
    return rc;
}
