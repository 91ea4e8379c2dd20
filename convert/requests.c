/*
 * requests.c - which nonblocking post each MPI_Wait/MPI_Test call
 * completed (journal.h, request records): the table /rank<N>/requests of
 * docs/format.md ("What MPI calls moved"), one row per completed request,
 * and the receive posts' columns completed with what their status said
 * (an MPI_Irecv's size, and its source and tag when it named none). A
 * send's row also says where its message went, from its post record: the
 * one place that knows it when one call started several (MPI_Startall).
 * A started persistent collective's row says, from its collective post
 * record, which collective it is, its root (a column of its own: dest
 * stays a message's) and the bytes its pairs need, for the same reason.
 *
 * Posts are named by a per-process id in the journal; here each becomes
 * (region, call index) when its end is merged, and a completion, which
 * always comes later on the same thread, takes it out of a hash map. A
 * post never completed (freed, or still in flight at finalize) has no
 * row.
 */
#include <hdf5.h>
#include <stddef.h>
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
    int32_t dest, tag;      /* a send's, from its post record; -1, SCOPE_NO_TAG unknown;
                               a started collective's root in dest */
    int64_t sent;           /* a send's bytes; a collective's that its pairs need */
    int8_t coll;            /* enum scope_coll_shape */
};

struct row {
    struct frame post, done;
    int32_t source, tag;
    int64_t bytes;
    int8_t cancelled;
    int32_t dest;
    int64_t sent;
    int8_t coll;
    int32_t root;           /* a started collective's root, -1 */
};

/* Rows are kept in a window and appended to extendible datasets when it
 * fills, so that memory stays bounded however many requests a run
 * completes (the converter's promise, h5writer.c). 8,192 rows (the
 * window and the column buffer, about 0.5 MB) are written again and
 * again, not 4 MB of fresh pages. */
#define ROWS_WINDOW 8192u

enum { C_POST_REGION, C_POST_CALL, C_DONE_REGION, C_DONE_CALL, C_SOURCE, C_TAG, C_BYTES,
       C_CANCELLED, C_DEST, C_SENT, C_COLL, C_ROOT, N_COLS };

struct conv_requests {
    struct post *map;       /* open addressing, size a power of two */
    size_t cap, used;
    struct row *rows;       /* the window */
    size_t n;               /* rows in the window */
    uint64_t written;       /* rows appended to the datasets */
    hid_t grp, ds[N_COLS];  /* made at the first append */
    void *col;              /* one column of the window, as written */
    int32_t *name_of;       /* journal region id -> row of region_names, -1 */
    char *names;            /* region_names so far */
    size_t names_len;
    int32_t n_names;
};

static size_t slot_in(size_t cap, uint32_t id)
{
    return (size_t)(id * 2654435761u) & (cap - 1);
}

static size_t slot_of(const struct conv_requests *q, uint32_t id)
{
    return slot_in(q->cap, id);
}

static int grow_map(struct conv_requests *q)
{
    size_t cap = q->cap ? 2 * q->cap : 1024;
    struct post *m = calloc(cap, sizeof *m);
    if (!m)
        return SCOPE_ENOMEM;
    size_t used = 0;
    for (size_t i = 0; i < q->cap; i++)
        if (q->map[i].id) {
            size_t k = slot_in(cap, q->map[i].id);
            while (m[k].id)
                k = (k + 1) & (cap - 1);
            m[k] = q->map[i];
            used++;
        }
    free(q->map);
    q->map = m;
    q->cap = cap;
    q->used = used;
    return 0;
}

static int add_post(struct conv_requests *q, const struct post *p)
{
    uint32_t id = p->id;
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
    q->map[k] = *p;
    return 0;
}

/* Takes the post named `id` out of the map into *out: a post completes
 * once, and the map then holds only the requests in flight, which keeps
 * it small (a map of every post of a long run cost a cache miss per
 * insert). Returns 1, or 0 when the post is unknown. */
static int take_post(struct conv_requests *q, uint32_t id, struct post *out)
{
    if (!q->cap)
        return 0;
    size_t k = slot_of(q, id);
    while (q->map[k].id && q->map[k].id != id)
        k = (k + 1) & (q->cap - 1);
    if (!q->map[k].id)
        return 0;
    *out = q->map[k];
    /* backward shift: later members of the cluster whose home slot does
     * not lie after the hole move into it */
    size_t hole = k, j = k;
    for (;;) {
        j = (j + 1) & (q->cap - 1);
        if (!q->map[j].id)
            break;
        size_t home = slot_of(q, q->map[j].id);
        int move = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
        if (move) {
            q->map[hole] = q->map[j];
            hole = j;
        }
    }
    q->map[hole].id = 0;
    q->used--;
    return 1;
}

static int flush_rows(struct conv *c, struct conv_requests *q);

int scope__conv_requests(struct conv *c, struct frame done, const struct scope_rec *req, size_t n)
{
    struct conv_requests *q = c->requests;
    if (!q) {
        q = c->requests = calloc(1, sizeof *q);
        if (!q)
            return SCOPE_ENOMEM;
        q->grp = H5I_INVALID_HID;
        for (int k = 0; k < N_COLS; k++)
            q->ds[k] = H5I_INVALID_HID;
    }
    for (size_t i = 0; i < n; i++) {
        if (scope_rec_is_collpost(req[i].word)) {
            struct scope_coll_post cp;
            int used = scope_collpost_unpack(&req[i], i + 1 < n ? &req[i + 1] : NULL, &cp);
            if (used == 0)
                continue;   /* a long form's second record alone */
            i += (size_t)used - 1;
            struct post p = { cp.id, done, 0, cp.root, SCOPE_NO_TAG, cp.bytes, (int8_t)cp.shape };
            if (cp.shape <= SCOPE_COLL_NONE || cp.shape >= SCOPE_COLL_SHAPES)
                p.coll = SCOPE_COLL_NO_PAIRS, p.dest = -1, p.sent = 0;   /* damaged */
            int rc = add_post(q, &p);
            if (rc < 0)
                return rc;
            continue;
        }
        if (!scope_req_is_completion(&req[i])) {
            struct scope_post pr;
            scope_post_unpack(&req[i], &pr);
            struct post p = { pr.id, done, pr.recv, -1, SCOPE_NO_TAG, 0, 0 };
            if (!p.recv) {
                p.dest = pr.dest;
                p.tag = pr.tag;
                p.sent = pr.bytes;
            }
            int rc = add_post(q, &p);
            if (rc < 0)
                return rc;
            continue;
        }
        struct scope_completion cr;
        scope_completion_unpack(&req[i], &cr);
        struct post post;
        if (!take_post(q, cr.id, &post))
            continue;       /* posted before recording, or on another thread */
        const struct post *p = &post;
        struct row r = { p->f, done, -1, p->recv ? SCOPE_NO_TAG : p->tag, cr.bytes, 0,
                         p->recv ? -1 : p->dest, p->recv ? 0 : p->sent, p->coll, -1 };
        if (p->coll) {
            r.root = p->dest;   /* the post's dest holds a collective's root */
            r.dest = -1;
        }
        if (p->coll == SCOPE_COLL_ONE_TO_ALL) {
            r.bytes = p->sent;  /* what it received from the root */
            r.sent = 0;
        }
        r.cancelled = (int8_t)cr.cancelled;
        r.source = cr.source;
        if (cr.tag != SCOPE_DATA_NO_TAG)
            r.tag = cr.tag;
        if (p->recv && !r.cancelled) {
            int rc = scope__conv_data_received(c, p->f, r.bytes, r.source, r.tag);
            if (rc < 0)
                return rc;
        }
        if (!q->rows && !(q->rows = malloc(ROWS_WINDOW * sizeof *q->rows)))
            return SCOPE_ENOMEM;
        if (q->n == ROWS_WINDOW) {
            int rc = flush_rows(c, q);
            if (rc < 0)
                return rc;
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
    for (int k = 0; k < N_COLS; k++)
        if (q->ds[k] >= 0)
            H5Dclose(q->ds[k]);
    if (q->grp >= 0)
        H5Gclose(q->grp);
    free(q->map);
    free(q->rows);
    free(q->col);
    free(q->name_of);
    free(q->names);
    free(q);
    c->requests = NULL;
}

/* The row of region_names for journal region `reg`, added on first use;
 * -1 when out of memory. */
static int32_t name_row(struct conv *c, struct conv_requests *q, uint32_t reg)
{
    if (!q->name_of) {
        q->name_of = malloc((c->jr.n_regions + 1) * sizeof *q->name_of);
        if (!q->name_of)
            return -1;
        for (uint32_t i = 0; i <= c->jr.n_regions; i++)
            q->name_of[i] = -1;
    }
    if (q->name_of[reg] >= 0)
        return q->name_of[reg];
    const char *nm = c->jr.regions[reg].name;
    size_t len = strlen(nm) + 1;
    char *v = realloc(q->names, q->names_len + len);
    if (!v)
        return -1;
    q->names = v;
    memcpy(q->names + q->names_len, nm, len);
    q->names_len += len;
    return q->name_of[reg] = q->n_names++;
}

static const char *const col_name[N_COLS] = {
    SCOPE_D_REQ_POST_REGION, SCOPE_D_REQ_POST_CALL, SCOPE_D_REQ_DONE_REGION,
    SCOPE_D_REQ_DONE_CALL, SCOPE_D_SOURCE, SCOPE_D_TAG, SCOPE_D_BYTES_RECEIVED,
    SCOPE_D_REQ_CANCELLED, SCOPE_D_DEST, SCOPE_D_BYTES_SENT, SCOPE_D_REQ_COLLECTIVE,
    SCOPE_D_REQ_ROOT,
};

static hid_t col_file_type(int k)
{
    return k == C_POST_CALL || k == C_DONE_CALL || k == C_BYTES || k == C_SENT ? H5T_STD_I64LE
         : k == C_CANCELLED || k == C_COLL ? H5T_STD_I8LE : H5T_STD_I32LE;
}

static hid_t col_mem_type(int k)
{
    return k == C_POST_CALL || k == C_DONE_CALL || k == C_BYTES || k == C_SENT ? H5T_NATIVE_INT64
         : k == C_CANCELLED || k == C_COLL ? H5T_NATIVE_INT8 : H5T_NATIVE_INT32;
}

/* Makes /rank<N>/requests and its columns, chunked and extendible, at
 * the first window written: its rows are a chunk, which is the whole
 * table when the window was not full (a chunk of ROWS_WINDOW rows for a
 * table of 20 was 3.8 MB of file, written whatever the run). */
static int make_columns(struct conv *c, struct conv_requests *q)
{
    q->grp = H5Gcreate2(c->rank_grp, SCOPE_G_REQUESTS, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (q->grp < 0)
        return SCOPE_EHDF5;
    hsize_t dims[1] = { 0 }, maxd[1] = { H5S_UNLIMITED }, chunk[1] = { q->n ? q->n : 1 };
    /* no chunk cache: a window is written whole, straight to the file
     * (through a cache, each chunk was zeroed, copied in, then written) */
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    if (dapl >= 0)
        H5Pset_chunk_cache(dapl, 0, 0, 1.0);
    for (int k = 0; k < N_COLS; k++) {
        hid_t sp = H5Screate_simple(1, dims, maxd);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, chunk);
        q->ds[k] = H5Dcreate2(q->grp, col_name[k], col_file_type(k), sp, H5P_DEFAULT, dcpl,
                              dapl >= 0 ? dapl : H5P_DEFAULT);
        H5Pclose(dcpl);
        H5Sclose(sp);
        if (q->ds[k] < 0)
            break;
    }
    if (dapl >= 0)
        H5Pclose(dapl);
    for (int k = 0; k < N_COLS; k++)
        if (q->ds[k] < 0)
            return SCOPE_EHDF5;
    return 0;
}

/* Copies the field at byte `off` of each of n rows (of `size` bytes:
 * 1, 4 or 8) into a column. */
static void gather(void *col, const struct row *rows, size_t n, size_t off, size_t size)
{
    char *out = col;
    const char *in = (const char *)rows + off;
    /* a copy of a constant size is a load and a store */
    if (size == 8)
        for (size_t i = 0; i < n; i++)
            memcpy(out + i * 8, in + i * sizeof *rows, 8);
    else if (size == 4)
        for (size_t i = 0; i < n; i++)
            memcpy(out + i * 4, in + i * sizeof *rows, 4);
    else
        for (size_t i = 0; i < n; i++)
            out[i] = in[i * sizeof *rows];
}

/* Appends the window's rows to the columns and empties it. */
static int flush_rows(struct conv *c, struct conv_requests *q)
{
    if (q->n == 0)
        return 0;
    if (q->grp < 0) {
        int rc = make_columns(c, q);
        if (rc < 0)
            return rc;
    }
    size_t n = q->n;
    if (!q->col && !(q->col = malloc(ROWS_WINDOW * sizeof(int64_t))))
        return SCOPE_ENOMEM;
    static const struct { size_t off, size; } field[N_COLS] = {
        [C_POST_CALL] = { offsetof(struct row, post.slot), 8 },
        [C_DONE_CALL] = { offsetof(struct row, done.slot), 8 },
        [C_SOURCE] = { offsetof(struct row, source), 4 },
        [C_TAG] = { offsetof(struct row, tag), 4 },
        [C_BYTES] = { offsetof(struct row, bytes), 8 },
        [C_CANCELLED] = { offsetof(struct row, cancelled), 1 },
        [C_DEST] = { offsetof(struct row, dest), 4 },
        [C_SENT] = { offsetof(struct row, sent), 8 },
        [C_COLL] = { offsetof(struct row, coll), 1 },
        [C_ROOT] = { offsetof(struct row, root), 4 },
    };
    int rc = 0;
    for (int k = 0; k < N_COLS && rc == 0; k++) {
        if (k == C_POST_REGION || k == C_DONE_REGION) {
            int32_t *v = q->col;
            for (size_t i = 0; i < n; i++)
                v[i] = name_row(c, q, k == C_POST_REGION ? q->rows[i].post.region
                                                         : q->rows[i].done.region);
        } else {
            gather(q->col, q->rows, n, field[k].off, field[k].size);
        }
        hsize_t size[1] = { q->written + n };
        if (H5Dset_extent(q->ds[k], size) < 0 ||
            scope__h5_write_slice(q->ds[k], col_mem_type(k), q->col, q->written, n) < 0)
            rc = SCOPE_EHDF5;
    }
    if (rc == 0) {
        q->written += n;
        q->n = 0;
    }
    return rc;
}

int scope__conv_write_requests(struct conv *c)
{
    struct conv_requests *q = c->requests;
    if (!q || (q->n == 0 && q->written == 0))
        return 0;
    int rc = flush_rows(c, q);
    if (rc < 0)
        return rc;
    if (q->n_names < 0 || (q->names_len && !q->names))
        return SCOPE_ENOMEM;
    hid_t d = scope__h5_make_dataset(q->grp, SCOPE_D_REQ_REGION_NAMES, H5T_STD_U8LE, q->names_len);
    if (d < 0 || (q->names_len &&
                  scope__h5_write_slice(d, H5T_NATIVE_UINT8, q->names, 0, q->names_len) < 0))
        rc = SCOPE_EHDF5;
    if (d >= 0)
        H5Dclose(d);
    return rc;
}
