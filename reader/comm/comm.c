/*
 * comm.c - the point-to-point and one-sided matrices of a profile's MPI
 * calls and their message-size histograms (scope_reader_comm.h), from the
 * columns moved.c reads; the collectives' pairs are comm_collective.c's.
 *
 * The matrices and the long table of pairs (scope_profile_message_pairs)
 * are one walk over the same calls (add_matrix, each_started_send) into
 * two sinks: n x n cells, or a sender's receivers in a small hash.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_format.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"

const char *scope_comm_kind_name(int kind)
{
    static const char *const names[SCOPE_COMM_KINDS] = {
        [SCOPE_COMM_P2P] = "p2p", [SCOPE_COMM_ONE_SIDED] = "one-sided",
        [SCOPE_COMM_COLLECTIVE] = "collective",
    };
    return kind >= 0 && kind < SCOPE_COMM_KINDS ? names[kind] : NULL;
}

/* Calls f(ctx, world rank, cell) for each cell of the regions of `kind`
 * (SCOPE_COMM_P2P, SCOPE_COMM_ONE_SIDED) that `region` names
 * (SCOPE_COMM_ALL_REGIONS: all of them) on `rank` (or SCOPE_ALL_RANKS)
 * that records data. Returns 0 or an error. */
static int each_of_kind(scope_profile *p, int kind, int region, int rank,
                        void (*f)(void *ctx, int sender, const scope__cell *c), void *ctx)
{
    if (kind != SCOPE_COMM_P2P && kind != SCOPE_COMM_ONE_SIDED)
        return scope__fail(SCOPE_EINVAL, "no traffic kind %d", kind);
    int (*is_kind)(const struct scope_call_row *) =
        kind == SCOPE_COMM_P2P ? scope__call_p2p : scope__call_one_sided;
    int r0 = 0, r1 = p->nregions;
    if (region != SCOPE_COMM_ALL_REGIONS) {
        if (region < 0 || region >= p->nregions)
            return scope__fail(SCOPE_ENOTFOUND, "no region %d", region);
        r0 = region;
        r1 = region + 1;
    }
    for (int r = r0; r < r1; r++) {
        if (region == SCOPE_COMM_ALL_REGIONS && !is_kind(scope__region_call(p, r)))
            continue;
        int rc = scope__each_moved_cell(p, r, rank, f, ctx);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* One sender's receivers (message_pairs): open addressing on the
 * receiver, so that memory follows the pairs, not the calls or n x n. */
struct pair_acc {
    size_t cap, used;
    int32_t *key;           /* receiver + 1; 0 empty */
    int64_t *messages, *bytes;
    int failed;             /* out of memory */
};

static size_t pair_slot(size_t cap, int32_t key)
{
    return (size_t)((uint32_t)key * 2654435761u) & (cap - 1);
}

static int pair_grow(struct pair_acc *a)
{
    size_t cap = a->cap ? 2 * a->cap : 64;
    int32_t *key = calloc(cap, sizeof *key);
    int64_t *msg = malloc(cap * sizeof *msg), *byt = malloc(cap * sizeof *byt);
    if (!key || !msg || !byt) {
        free(key);
        free(msg);
        free(byt);
        return SCOPE_ENOMEM;
    }
    for (size_t i = 0; i < a->cap; i++) {
        if (!a->key[i])
            continue;
        size_t k = pair_slot(cap, a->key[i]);
        while (key[k])
            k = (k + 1) & (cap - 1);
        key[k] = a->key[i];
        msg[k] = a->messages[i];
        byt[k] = a->bytes[i];
    }
    free(a->key);
    free(a->messages);
    free(a->bytes);
    a->key = key;
    a->messages = msg;
    a->bytes = byt;
    a->cap = cap;
    return 0;
}

static void pair_add(struct pair_acc *a, int r, int64_t bytes)
{
    if (a->failed)
        return;
    if ((a->used + 1) * 2 > a->cap && pair_grow(a) < 0) {
        a->failed = 1;
        return;
    }
    int32_t key = r + 1;
    size_t k = pair_slot(a->cap, key);
    while (a->key[k] && a->key[k] != key)
        k = (k + 1) & (a->cap - 1);
    if (!a->key[k]) {
        a->key[k] = key;
        a->messages[k] = a->bytes[k] = 0;
        a->used++;
    }
    a->messages[k]++;
    a->bytes[k] += bytes;
}

/* Where a matrix walk adds its messages: n x n cells, or (pairs set) the
 * receivers of the one sender walked. */
struct matrix_ctx {
    int n;
    int64_t *messages, *bytes;
    struct pair_acc *pairs;
};

static void add_cell(struct matrix_ctx *m, int s, int r, int64_t bytes)
{
    if (m->pairs) {
        if (s >= 0 && r >= 0)
            pair_add(m->pairs, r, bytes);
        return;
    }
    if (s < 0 || s >= m->n || r < 0 || r >= m->n)
        return;
    size_t at = (size_t)s * (size_t)m->n + (size_t)r;
    if (m->messages)
        m->messages[at]++;
    if (m->bytes)
        m->bytes[at] += bytes;
}

/* One-sided calls are recorded at the origin only: what it put goes to
 * its target (dest), what it got comes from it (source). */
static void add_rma_matrix(void *ctx, int origin, const scope__cell *c)
{
    struct matrix_ctx *m = ctx;
    for (int64_t i = 0; i < c->n; i++) {
        if (c->moved->dest[i] >= 0)
            add_cell(m, origin, c->moved->dest[i], c->moved->sent[i]);
        if (c->moved->source[i] >= 0)
            add_cell(m, c->moved->source[i], origin, c->moved->received[i]);
    }
}

/* 1 when call i of a point-to-point region sent a message (a dest
 * without a tag is a persistent collective's root: moved.c's rule). */
static int sent_message(const struct scope__moved *mv, int64_t i)
{
    return scope_moved_sent_message(mv->dest[i], mv->tag[i]);
}

static void add_matrix(void *ctx, int sender, const scope__cell *c)
{
    for (int64_t i = 0; i < c->n; i++)
        if (sent_message(c->moved, i))
            add_cell(ctx, sender, c->moved->dest[i], c->moved->sent[i]);
}

static int bucket_of(int64_t size)
{
    if (size <= 0)
        return 0;
    int b = 64 - __builtin_clzll((unsigned long long)size);
    return b < SCOPE_SIZE_BUCKETS ? b : SCOPE_SIZE_BUCKETS - 1;
}

/* each_started_send() for the one region `sa`. */
static int started_sends_of(scope_profile *p, int sa, int rank,
                            void (*f)(void *ctx, int s, int d, int64_t bytes), void *ctx)
{
    for (int k = 0; k < p->nranks; k++) {
        int rk = p->ranks[k].rank;
        scope__cell *c = scope__cell_at(p, sa, k);
        if ((rank != SCOPE_ALL_RANKS && rk != rank) || !c || c->n <= 0)
            continue;
        int rc = scope__cell_moved(p, c);
        if (rc < 0)
            return rc;
        if (!c->moved)
            continue;   /* recorded without data */
        scope_requests rq;
        if ((rc = scope_profile_requests(p, rk, &rq)) < 0)
            return rc;
        if (!rq.dest || !rq.bytes_sent)
            continue;   /* none, or a file before these columns */
        for (int64_t i = 0; i < rq.n; i++) {
            int64_t call = rq.post_call[i];
            /* only where the call's own columns named no partner (one
             * request started alone is counted from them); a started
             * collective's row has no dest (its root has a column of its
             * own) */
            if (rq.post_region[i] == sa && rq.dest[i] >= 0 && call >= 0 && call < c->n &&
                c->moved->dest[call] < 0)
                f(ctx, rk, rq.dest[i], rq.bytes_sent[i]);
        }
    }
    return 0;
}

/* The sends a start of several requests (MPI_Startall) started together:
 * its call's columns hold their bytes together without a partner, the
 * request rows say where each went (docs/format.md). Calls f(ctx, sender,
 * dest, bytes) for each completed send of the regions that start several
 * requests, `region` or all (SCOPE_COMM_ALL_REGIONS), on `rank` (or
 * SCOPE_ALL_RANKS). Only the ranks that called one have their request
 * table read. Returns 0 or an error. */
static int each_started_send(scope_profile *p, int region, int rank,
                             void (*f)(void *ctx, int s, int d, int64_t bytes), void *ctx)
{
    for (int sa = 0; sa < p->nregions; sa++) {
        if ((region != SCOPE_COMM_ALL_REGIONS && region != sa) ||
            !scope__call_starts_several(scope__region_call(p, sa)))
            continue;
        int rc = started_sends_of(p, sa, rank, f, ctx);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* a started send's, or a collective's pairwise share */
static void add_started(void *ctx, int s, int d, int64_t bytes)
{
    add_cell(ctx, s, d, bytes);
}

static void add_started_size(void *ctx, int s, int d, int64_t bytes)
{
    (void)s;
    (void)d;
    ((int64_t *)ctx)[bucket_of(bytes)]++;
}

int scope_profile_comm_matrix(scope_profile *p, int region, int n, int64_t *messages,
                              int64_t *bytes)
{
    return scope_profile_comm_matrix_kind(p, SCOPE_COMM_P2P, region, n, messages, bytes);
}

int scope_profile_comm_matrix_kind(scope_profile *p, int kind, int region, int n,
                                   int64_t *messages, int64_t *bytes)
{
    if (!p || n < 0)
        return scope__fail(SCOPE_EINVAL, "no profile, or a negative size");
    int need = scope_profile_world_size(p);
    if (n < need)
        return scope__fail(SCOPE_EINVAL, "the matrix needs %d x %d cells, not %d x %d", need,
                           need, n, n);
    struct matrix_ctx m = { n, messages, bytes, NULL };
    if (kind == SCOPE_COMM_COLLECTIVE)
        return scope__each_collective_share(p, region, SCOPE_ALL_RANKS, add_started, &m);
    int rc = each_of_kind(p, kind, region, SCOPE_ALL_RANKS,
                          kind == SCOPE_COMM_ONE_SIDED ? add_rma_matrix : add_matrix, &m);
    if (rc == 0 && kind == SCOPE_COMM_P2P)
        rc = each_started_send(p, region, SCOPE_ALL_RANKS, add_started, &m);
    return rc;
}

void scope_message_pairs_free(scope_message_pairs *pairs)
{
    if (!pairs)
        return;
    free(pairs->sender);
    free(pairs->receiver);
    free(pairs->messages);
    free(pairs->bytes);
    memset(pairs, 0, sizeof *pairs);
}

struct pair_row {
    int32_t receiver;
    int64_t messages, bytes;
};

static int cmp_pair_row(const void *a, const void *b)
{
    int32_t x = ((const struct pair_row *)a)->receiver, y = ((const struct pair_row *)b)->receiver;
    return (x > y) - (x < y);
}

/* Reallocates the array at *arr to n elements of `size` bytes; *arr is
 * left as it was when that fails. Returns 0 or SCOPE_ENOMEM. */
static int resize(void *arr, int64_t n, size_t size)
{
    void *q = realloc(*(void **)arr, (size_t)n * size);
    if (!q)
        return SCOPE_ENOMEM;
    *(void **)arr = q;
    return 0;
}

/* Appends sender s's receivers in `a`, sorted, to *out (capacity *cap)
 * and empties `a`. Returns 0 or SCOPE_ENOMEM. */
static int take_pairs(struct pair_acc *a, int s, scope_message_pairs *out, int64_t *cap)
{
    if (!a->used)
        return 0;
    struct pair_row *rows = malloc(a->used * sizeof *rows);
    if (!rows)
        return SCOPE_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < a->cap; i++)
        if (a->key[i]) {
            rows[k++] = (struct pair_row){ a->key[i] - 1, a->messages[i], a->bytes[i] };
            a->key[i] = 0;
        }
    a->used = 0;
    qsort(rows, k, sizeof *rows, cmp_pair_row);
    if (out->n + (int64_t)k > *cap) {
        int64_t c = *cap ? 2 * *cap : 64;
        while (c < out->n + (int64_t)k)
            c *= 2;
        if (resize(&out->sender, c, sizeof *out->sender) < 0 ||
            resize(&out->receiver, c, sizeof *out->receiver) < 0 ||
            resize(&out->messages, c, sizeof *out->messages) < 0 ||
            resize(&out->bytes, c, sizeof *out->bytes) < 0) {
            free(rows);
            return SCOPE_ENOMEM;
        }
        *cap = c;
    }
    for (size_t i = 0; i < k; i++, out->n++) {
        out->sender[out->n] = s;
        out->receiver[out->n] = rows[i].receiver;
        out->messages[out->n] = rows[i].messages;
        out->bytes[out->n] = rows[i].bytes;
    }
    free(rows);
    return 0;
}

int scope_profile_message_pairs(scope_profile *p, int region, const int *senders, int nsenders,
                                scope_message_pairs *out)
{
    if (!p || !out || nsenders < 0 || (nsenders > 0 && !senders))
        return scope__fail(SCOPE_EINVAL, "no profile, no output, or no senders");
    memset(out, 0, sizeof *out);
    if (region != SCOPE_COMM_ALL_REGIONS && (region < 0 || region >= p->nregions))
        return scope__fail(SCOPE_ENOTFOUND, "no region %d", region);
    /* the senders, sorted and once each: the profile's ranks by default */
    int n = senders ? nsenders : p->nranks;
    int *rk = malloc((size_t)(n ? n : 1) * sizeof *rk);
    if (!rk)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    for (int i = 0; i < n; i++)
        rk[i] = senders ? senders[i] : p->ranks[i].rank;
    qsort(rk, (size_t)n, sizeof *rk, scope__cmp_int);
    int rc = 0, m = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || rk[i] != rk[i - 1])
            rk[m++] = rk[i];
    for (int i = 0; i < m && rc == 0; i++)
        if (scope__rank_index(p, rk[i]) < 0)
            rc = scope__fail(SCOPE_ENOTFOUND, "no rank %d in the profile", rk[i]);
    struct pair_acc acc = { 0 };
    struct matrix_ctx ctx = { 0, NULL, NULL, &acc };
    int64_t cap = 0;
    for (int i = 0; i < m && rc == 0; i++) {
        rc = each_of_kind(p, SCOPE_COMM_P2P, region, rk[i], add_matrix, &ctx);
        if (rc == 0)
            rc = each_started_send(p, region, rk[i], add_started, &ctx);
        if (rc == 0 && acc.failed)
            rc = SCOPE_ENOMEM;
        if (rc == 0)
            rc = take_pairs(&acc, rk[i], out, &cap);
        if (rc == SCOPE_ENOMEM)
            rc = scope__fail(SCOPE_ENOMEM, "out of memory");
    }
    free(acc.key);
    free(acc.messages);
    free(acc.bytes);
    free(rk);
    if (rc < 0)
        scope_message_pairs_free(out);
    return rc;
}

static void add_sizes(void *ctx, int sender, const scope__cell *c)
{
    (void)sender;
    int64_t *counts = ctx;
    for (int64_t i = 0; i < c->n; i++)
        if (sent_message(c->moved, i))
            counts[bucket_of(c->moved->sent[i])]++;
}

/* One-sided: each direction data moved in is a message (a get's comes
 * from its target). */
static void add_rma_sizes(void *ctx, int origin, const scope__cell *c)
{
    (void)origin;
    int64_t *counts = ctx;
    for (int64_t i = 0; i < c->n; i++) {
        if (c->moved->dest[i] >= 0)
            counts[bucket_of(c->moved->sent[i])]++;
        if (c->moved->source[i] >= 0)
            counts[bucket_of(c->moved->received[i])]++;
    }
}

int scope_profile_size_histogram(scope_profile *p, int region, int rank, int64_t *counts)
{
    return scope_profile_size_histogram_kind(p, SCOPE_COMM_P2P, region, rank, counts);
}

int scope_profile_size_histogram_kind(scope_profile *p, int kind, int region, int rank,
                                      int64_t *counts)
{
    if (!p || !counts)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    if (kind == SCOPE_COMM_COLLECTIVE)
        return scope__each_collective_share(p, region, rank, add_started_size, counts);
    int rc = each_of_kind(p, kind, region, rank,
                          kind == SCOPE_COMM_ONE_SIDED ? add_rma_sizes : add_sizes, counts);
    if (rc == 0 && kind == SCOPE_COMM_P2P)
        rc = each_started_send(p, region, rank, add_started_size, counts);
    return rc;
}
