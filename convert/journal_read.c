/*
 * journal_read.c - reading a journal back (see journal_read.h).
 *
 * Reads with pread into small buffers rather than mapping the file: a
 * journal can be many GiB, and pages of a mapping would count against the
 * process's resident memory while it is walked.
 */
#include "journal_read.h"
#include "scope_convert.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arch_clock.h"
#include "full_io.h"
#include "scope_error.h"

#define CURSOR_RECORDS 4096u

static int fail(char *err, size_t errlen, int code, const char *path, const char *what)
{
    snprintf(err, errlen, "%s: %s", path, what);
    return code;
}

static uint64_t chunk_offset(const struct scope_jr *jr, uint64_t idx)
{
    return SCOPE_JOURNAL_HEADER_SIZE + idx * (uint64_t)jr->hdr.chunk_size;
}

/* Array `arr` of *n elements of `elem` bytes grown to `want`, the new
 * ones zeroed (the journal's tables are indexed by dense ids that arrive
 * in any order); arr itself when it is long enough already. Returns the
 * array (*n updated), or NULL without memory (arr and *n unchanged). */
static void *grow_zeroed(void *arr, uint32_t *n, size_t elem, uint32_t want)
{
    if (want <= *n)
        return arr;
    char *b = realloc(arr, (size_t)want * elem);
    if (!b)
        return NULL;
    memset(b + (size_t)*n * elem, 0, (size_t)(want - *n) * elem);
    *n = want;
    return b;
}

/* Points s[0..k) at the k NUL-terminated strings packed from q on, before
 * end. Returns what follows them, or NULL when one is not terminated. */
static const char *strings_at(const char *q, const char *end, const char **s, int k)
{
    for (int i = 0; i < k; i++) {
        const char *z = q < end ? memchr(q, 0, (size_t)(end - q)) : NULL;
        if (!z)
            return NULL;
        s[i] = q;
        q = z + 1;
    }
    return q;
}

static struct scope_jr_thread *thread_slot(struct scope_jr *jr, uint32_t index)
{
    /* Indices are handed out densely and counted in the header; anything
     * beyond that (or beyond a million threads) is garbage, not a reason to
     * allocate gigabytes. */
    if (index >= jr->hdr.thread_count || index >= (1u << 20))
        return NULL;
    uint32_t had = jr->n_threads;
    void *grown = grow_zeroed(jr->threads, &jr->n_threads, sizeof *jr->threads, index + 1);
    if (!grown)
        return NULL;
    jr->threads = grown;
    for (uint32_t i = had; i < jr->n_threads; i++)
        jr->threads[i].index = i;
    return &jr->threads[index];
}

/* Places chunk `idx` at position `seq` of its thread's list. */
static int add_thread_chunk(struct scope_jr *jr, const struct scope_chunk_header *c, uint64_t idx)
{
    struct scope_jr_thread *t = thread_slot(jr, c->thread);
    /* every sequence of a thread left a chunk: seq < chunks in the file */
    if (!t || c->seq > jr->n_chunks)
        return SCOPE_EJOURNAL;
    if (c->seq >= t->cap_chunks) {
        uint32_t cap = t->cap_chunks ? t->cap_chunks : 4;
        while (cap <= c->seq)
            cap *= 2;
        struct scope_jr_chunk *p = realloc(t->chunks, cap * sizeof *p);
        if (!p)
            return SCOPE_ENOMEM;
        for (uint32_t i = t->cap_chunks; i < cap; i++)
            p[i] = (struct scope_jr_chunk){ UINT64_MAX, 0, 0 };
        t->chunks = p;
        t->cap_chunks = cap;
    }
    /* journal.h: the complete EVENTS copy of a sequence wins over staging */
    struct scope_jr_chunk *slot = &t->chunks[c->seq];
    int staging = c->type == SCOPE_CHUNK_STAGING;
    if (slot->idx == UINT64_MAX || (slot->staging && !staging))
        /* a cleared staging chunk holds only its own sequence (journal.h) */
        *slot = (struct scope_jr_chunk){
            idx, staging && !(c->flags & SCOPE_CHUNK_CLEARED) ? c->first_ticks : 0, staging };
    if (c->seq + 1 > t->n_chunks)
        t->n_chunks = c->seq + 1;
    t->tid = c->tid;
    memcpy(t->name, c->thread_name, 16);
    t->name[16] = 0;
    if (c->thread_end_ticks)
        t->end_ticks = c->thread_end_ticks;
    return 0;
}

static int add_region(struct scope_jr *jr, const char *p, uint32_t len)
{
    if (len < 8 + 3)
        return SCOPE_EJOURNAL;
    uint32_t id, kind;
    memcpy(&id, p, 4);
    memcpy(&kind, p + 4, 4);
    const char *s[3];
    if (!strings_at(p + 8, p + len, s, 3))
        return SCOPE_EJOURNAL;
    /* ids are dense and written in order: one far beyond those seen is
     * garbage, not a reason to allocate gigabytes */
    if (id > jr->n_regions + 4096 || !*s[0])
        return SCOPE_EJOURNAL;
    void *grown = grow_zeroed(jr->regions, &jr->n_regions, sizeof *jr->regions, id + 1);
    if (!grown)
        return SCOPE_ENOMEM;
    jr->regions = grown;
    struct scope_jr_region *r = &jr->regions[id];
    if (r->defined)
        return 0;
    r->name = strdup(s[0]);
    r->symbol = strdup(s[1]);
    r->object = strdup(s[2]);
    r->kind = (int)kind;
    r->defined = 1;
    return r->name && r->symbol && r->object ? 0 : SCOPE_ENOMEM;
}

/* A communicator (journal.h, SCOPE_META_COMM). */
static int add_comm(struct scope_jr *jr, const char *p, uint32_t len)
{
    int32_t head[3];
    if (len < sizeof head)
        return SCOPE_EJOURNAL;
    memcpy(head, p, sizeof head);
    /* ids are dense: one far beyond is garbage */
    if (head[0] < 0 || (uint32_t)head[0] > jr->n_comms + 4096 || head[1] < 0 || head[2] < 0 ||
        (uint64_t)head[1] + (uint64_t)head[2] > (len - sizeof head) / 4)
        return SCOPE_EJOURNAL;
    uint32_t id = (uint32_t)head[0];
    size_t nw = (size_t)head[1] + (size_t)head[2];
    const char *names[2];   /* the creating call, the communicator's name */
    if (!strings_at(p + sizeof head + nw * 4, p + len, names, 2))
        return SCOPE_EJOURNAL;
    void *grown = grow_zeroed(jr->comms, &jr->n_comms, sizeof *jr->comms, id + 1);
    if (!grown)
        return SCOPE_ENOMEM;
    jr->comms = grown;
    struct scope_jr_comm *cm = &jr->comms[id];
    if (cm->defined)
        return 0;
    cm->world = malloc(nw ? nw * 4 : 1);
    cm->creator = strdup(names[0]);
    cm->name = strdup(names[1]);
    if (!cm->world || !cm->creator || !cm->name)
        return SCOPE_ENOMEM;
    memcpy(cm->world, p + sizeof head, nw * 4);
    cm->size = head[1];
    cm->remote_size = head[2];
    cm->defined = 1;
    return 0;
}

/* A call-path definition (journal.h, SCOPE_META_CALLSITE). */
static int add_site(struct scope_jr *jr, const char *p, uint32_t len)
{
    if (len < 8)
        return SCOPE_EJOURNAL;
    uint32_t id, depth;
    memcpy(&id, p, 4);
    memcpy(&depth, p + 4, 4);
    /* ids are dense, as region ids are: one far beyond is garbage */
    if (id == 0 || id > jr->n_sites + 4096 || depth == 0 || depth > 16)
        return SCOPE_EJOURNAL;
    void *grown = grow_zeroed(jr->sites, &jr->n_sites, sizeof *jr->sites, id);
    if (!grown)
        return SCOPE_ENOMEM;
    jr->sites = grown;
    struct scope_jr_site *s = &jr->sites[id - 1];
    if (s->depth)
        return 0;
    struct scope_jr_frame *f = calloc(depth, sizeof *f);
    if (!f)
        return SCOPE_ENOMEM;
    const char *q = p + 8, *end = p + len;
    int rc = 0;
    for (uint32_t i = 0; i < depth && rc == 0; i++) {
        const char *names[2];   /* build id, object */
        const char *next = end - q >= 8 ? strings_at(q + 8, end, names, 2) : NULL;
        if (!next) {
            rc = SCOPE_EJOURNAL;
            break;
        }
        memcpy(&f[i].offset, q, 8);
        f[i].build_id = strdup(names[0]);
        f[i].object = strdup(names[1]);
        if (!f[i].build_id || !f[i].object)
            rc = SCOPE_ENOMEM;
        q = next;
    }
    if (rc < 0) {
        for (uint32_t i = 0; i < depth; i++) {
            free(f[i].build_id);
            free(f[i].object);
        }
        free(f);
        return rc;
    }
    s->f = f;
    s->depth = depth;
    return 0;
}

/* Appends `n` NUL-terminated strings packed in p[0..len) to *arr. */
static int add_strings(char ***arr, size_t *count, const char *p, uint32_t len, int n)
{
    const char *q = p, *end = p + len;
    char **a = realloc(*arr, (*count + (size_t)n) * sizeof *a);
    if (!a)
        return SCOPE_ENOMEM;
    *arr = a;
    for (int i = 0; i < n; i++) {
        const char *z = q < end ? memchr(q, 0, (size_t)(end - q)) : NULL;
        int rc = !z ? SCOPE_EJOURNAL : !(a[*count + (size_t)i] = strdup(q)) ? SCOPE_ENOMEM : 0;
        if (rc < 0) {
            for (int k = 0; k < i; k++)
                free(a[*count + (size_t)k]);
            return rc;
        }
        q = z + 1;
    }
    *count += (size_t)n;
    return 0;
}

/* A row of the file table (journal.h, SCOPE_META_FILE). */
static int add_file(struct scope_jr *jr, const char *p, uint32_t len)
{
    struct scope_file_meta m;
    struct scope_file_names n;
    if (scope_file_meta_unpack(p, len, &m, &n) < 0 || m.id > jr->n_files + 4096)
        return SCOPE_EJOURNAL;
    void *grown = grow_zeroed(jr->files, &jr->n_files, sizeof *jr->files, m.id + 1);
    if (!grown)
        return SCOPE_ENOMEM;
    jr->files = grown;
    struct scope_jr_file *f = &jr->files[m.id];
    if (f->defined)
        return 0;
    f->m = m;
    f->name = strdup(n.name);
    f->resolved = strdup(n.resolved);
    f->fs_type = strdup(n.fs_type);
    f->mount = strdup(n.mount);
    f->defined = 1;
    return f->name && f->resolved && f->fs_type && f->mount ? 0 : SCOPE_ENOMEM;
}

/* Parses a meta chunk's records; a damaged tail ends the chunk quietly
 * (a crash can leave a record half-written). */
static int parse_meta(struct scope_jr *jr, uint64_t idx, uint64_t used)
{
    uint32_t room = jr->hdr.chunk_size - (uint32_t)sizeof(struct scope_chunk_header);
    if (used > room)
        used = room;
    char *buf = malloc(used ? used : 1);
    if (!buf)
        return SCOPE_ENOMEM;
    int rc = 0;
    if (scope__pread_full(jr->fd, buf, used, chunk_offset(jr, idx) + sizeof(struct scope_chunk_header))) {
        rc = SCOPE_EIO;
        goto out;
    }
    for (uint64_t pos = 0; pos + sizeof(struct scope_meta) <= used;) {
        struct scope_meta m;
        memcpy(&m, buf + pos, sizeof m);
        uint64_t next = pos + sizeof m + (((uint64_t)m.len + 7) & ~7ull);
        if (m.len == 0 || next > used)
            break;
        const char *p = buf + pos + sizeof m;
        if (m.type == SCOPE_META_REGION)
            rc = add_region(jr, p, m.len);
        else if (m.type == SCOPE_META_KV)
            rc = add_strings(&jr->kv, &jr->n_kv, p, m.len, 2);
        else if (m.type == SCOPE_META_INTERPOSE)
            rc = add_strings(&jr->rows, &jr->n_rows, p, m.len, 6);
        else if (m.type == SCOPE_META_CALLSITE)
            rc = add_site(jr, p, m.len);
        else if (m.type == SCOPE_META_COMM)
            rc = add_comm(jr, p, m.len);
        else if (m.type == SCOPE_META_FILE)
            rc = add_file(jr, p, m.len);
        if (rc == SCOPE_ENOMEM)
            goto out;
        rc = 0;
        pos = next;
    }
out:
    free(buf);
    return rc;
}

/* Measures this machine's counter rate against CLOCK_MONOTONIC over
 * ~10 ms, for runs too short to calibrate from their own pairs whose CPU
 * did not state its rate (the TSC): right when the journal is converted on
 * the machine that wrote it, as the writer and `scope recover` do. */
static double local_tsc_ns_per_tick(void)
{
    struct timespec a, b, nap = { 0, 10000000 };
    clock_gettime(CLOCK_MONOTONIC, &a);
    uint64_t t0 = scope__arch_counter();
    nanosleep(&nap, NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    uint64_t t1 = scope__arch_counter();
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    return t1 > t0 ? ns / (double)(t1 - t0) : 1.0;
}

/* Sane spans for a rate: beyond 2^62 ns (146 years) a journal is
 * damaged, and the shift below would leave __int128. */
#define SPAN_MAX_NS ((int64_t)1 << 62)

void scope__jr_calibrate(struct scope_jr *jr)
{
    const struct scope_journal_header *h = &jr->hdr;
    if (h->clock_kind != SCOPE_CLOCK_TSC) {
        jr->base_ticks = 0;
        jr->base_ns = 0;
        jr->mult = (__int128)1 << 64;
        return;
    }
    jr->base_ticks = h->start_ticks;
    jr->base_ns = h->start_ns;
    uint64_t end_t = h->end_ticks;
    int64_t end_ns = h->end_ns;
    if (!end_ns || end_t <= h->start_ticks) {
        end_t = jr->last_calib_ticks;
        end_ns = jr->last_calib_ns;
    }
    __int128 span = (__int128)end_ns - h->start_ns;
    if (end_t > h->start_ticks && span >= 10000000 && span < SPAN_MAX_NS) {
        jr->mult = (span << 64) / (__int128)(end_t - h->start_ticks);
    } else if (h->counter_hz >= 1000) {
        /* the rate the CPU stated (aarch64): exact, and right on any
         * machine; below 1 kHz it is damage, not a counter */
        jr->mult = ((__int128)1000000000 << 64) / (__int128)h->counter_hz;
    } else {
        double r = local_tsc_ns_per_tick();
        jr->mult = (__int128)(r * 18446744073709551616.0);
    }
}

int scope__jr_open(struct scope_jr *jr, const char *path, char *err, size_t errlen)
{
    memset(jr, 0, sizeof *jr);
    jr->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (jr->fd < 0)
        return fail(err, errlen, errno == ENOENT ? SCOPE_ENOENT : SCOPE_EIO, path, strerror(errno));
    struct stat st;
    int rc;
    if (fstat(jr->fd, &st) < 0) {
        rc = fail(err, errlen, SCOPE_EIO, path, strerror(errno));
        goto fail_open;
    }
    jr->file_size = (uint64_t)st.st_size;
    /* format/journal.h's one header reader; whatever it refuses (short,
     * unreadable, wrong magic) is not a journal to us */
    const char *why;
    if (scope_journal_header_read(jr->fd, &jr->hdr) != 0) {
        rc = fail(err, errlen, SCOPE_EJOURNAL, path, "not a scope journal");
        goto fail_open;
    }
    const struct scope_journal_header *h = &jr->hdr;
    if ((rc = scope_journal_header_check(h, &why)) < 0) {
        fail(err, errlen, rc, path, why);
        goto fail_open;
    }
    uint64_t present = jr->file_size > SCOPE_JOURNAL_HEADER_SIZE
                           ? (jr->file_size - SCOPE_JOURNAL_HEADER_SIZE) / h->chunk_size
                           : 0;
    jr->n_chunks = h->chunk_count < present ? h->chunk_count : present;

    for (uint64_t i = 0; i < jr->n_chunks; i++) {
        struct scope_chunk_header c;
        if (scope__pread_full(jr->fd, &c, sizeof c, chunk_offset(jr, i)) != 0) {
            rc = fail(err, errlen, SCOPE_EIO, path, "read error");
            goto fail_parse;
        }
        if (c.magic != SCOPE_CHUNK_MAGIC)
            continue; /* handed out but never filled (crash) */
        if (c.calib_ticks > jr->last_calib_ticks) {
            jr->last_calib_ticks = c.calib_ticks;
            jr->last_calib_ns = c.calib_ns;
        }
        if (c.type == SCOPE_CHUNK_EVENTS || c.type == SCOPE_CHUNK_STAGING)
            rc = add_thread_chunk(jr, &c, i);
        else if (c.type == SCOPE_CHUNK_META)
            rc = parse_meta(jr, i, c.used);
        else
            rc = 0;
        if (rc == SCOPE_ENOMEM) {
            fail(err, errlen, rc, path, "out of memory");
            goto fail_parse;
        }
    }
    scope__jr_calibrate(jr);
    return 0;

fail_parse:
    scope__jr_close(jr);
    return rc;
fail_open:
    close(jr->fd);
    jr->fd = -1;
    return rc;
}

void scope__jr_close(struct scope_jr *jr)
{
    for (uint32_t i = 0; i < jr->n_regions; i++) {
        free(jr->regions[i].name);
        free(jr->regions[i].symbol);
        free(jr->regions[i].object);
    }
    free(jr->regions);
    for (size_t i = 0; i < jr->n_kv; i++)
        free(jr->kv[i]);
    free(jr->kv);
    for (size_t i = 0; i < jr->n_rows; i++)
        free(jr->rows[i]);
    free(jr->rows);
    for (uint32_t i = 0; i < jr->n_sites; i++) {
        for (uint32_t k = 0; k < jr->sites[i].depth; k++) {
            free(jr->sites[i].f[k].build_id);
            free(jr->sites[i].f[k].object);
        }
        free(jr->sites[i].f);
    }
    free(jr->sites);
    for (uint32_t i = 0; i < jr->n_comms; i++) {
        free(jr->comms[i].world);
        free(jr->comms[i].creator);
        free(jr->comms[i].name);
    }
    free(jr->comms);
    for (uint32_t i = 0; i < jr->n_files; i++) {
        free(jr->files[i].name);
        free(jr->files[i].resolved);
        free(jr->files[i].fs_type);
        free(jr->files[i].mount);
    }
    free(jr->files);
    for (uint32_t i = 0; i < jr->n_threads; i++)
        free(jr->threads[i].chunks);
    free(jr->threads);
    if (jr->fd >= 0)
        close(jr->fd);
    memset(jr, 0, sizeof *jr);
    jr->fd = -1;
}

int scope__jr_cursor_init(struct scope_jr_cursor *c, const struct scope_jr *jr, uint32_t thread)
{
    memset(c, 0, sizeof *c);
    c->jr = jr;
    c->th = &jr->threads[thread];
    c->per_chunk = (jr->hdr.chunk_size - sizeof(struct scope_chunk_header)) / sizeof(struct scope_rec);
    c->buf = malloc(CURSOR_RECORDS * sizeof *c->buf);
    return c->buf ? 0 : SCOPE_ENOMEM;
}

/* Refills the buffer from the current chunk, moving on to the next chunk
 * of the thread when one is used up. Returns 1, 0 at the end, or < 0. */
static int refill(struct scope_jr_cursor *c)
{
    for (;;) {
        if (c->chunk >= c->th->n_chunks)
            return 0;
        const struct scope_jr_chunk *ch = &c->th->chunks[c->chunk];
        uint64_t idx = ch->idx;
        c->min_ticks = ch->first_ticks;
        c->live_min = ch->first_ticks ? ch->first_ticks : 1;
        if (idx == UINT64_MAX || c->chunk_pos >= c->per_chunk) {
            c->chunk++;
            c->chunk_pos = 0;
            continue;
        }
        size_t want = c->per_chunk - c->chunk_pos;
        if (want > CURSOR_RECORDS)
            want = CURSOR_RECORDS;
        uint64_t off = chunk_offset(c->jr, idx) + sizeof(struct scope_chunk_header) +
                       c->chunk_pos * sizeof(struct scope_rec);
        if (scope__pread_full(c->jr->fd, c->buf, want * sizeof(struct scope_rec), off) != 0)
            return SCOPE_EIO;
        c->chunk_pos += want;
        c->n = want;
        c->pos = 0;
        return 1;
    }
}

static int raw_next(struct scope_jr_cursor *c, struct scope_rec *out)
{
    for (;;) {
        while (c->pos < c->n) {
            struct scope_rec *r = &c->buf[c->pos++];
            if (r->ticks && r->ticks >= c->min_ticks) {
                *out = *r;
                return 1;
            }
        }
        int rc = refill(c);
        if (rc <= 0)
            return rc;
    }
}

/* The next record, the read-ahead one first. */
static int next_any(struct scope_jr_cursor *c, struct scope_rec *out)
{
    if (c->has_pending) {
        *out = c->pending;
        c->has_pending = 0;
        return 1;
    }
    return raw_next(c, out);
}

/* Keeps one request record for the record just returned. */
static int add_request(struct scope_jr_cursor *c, const struct scope_rec *r)
{
    if (c->n_req == c->cap_req) {
        size_t cap = c->cap_req ? 2 * c->cap_req : 16;
        struct scope_rec *v = realloc(c->req, cap * sizeof *v);
        if (!v)
            return SCOPE_ENOMEM;
        c->req = v;
        c->cap_req = cap;
    }
    c->req[c->n_req++] = *r;
    return 0;
}

/* What scope__jr_cursor_next does for the records its fast path leaves
 * (see there): every rule of journal.h, one record at a time. */
static int cursor_next_slow(struct scope_jr_cursor *c, struct scope_rec *out)
{
    c->has_data = 0;
    c->has_self = 0;
    c->self_bytes = 0;
    c->has_io = 0;
    c->n_req = 0;
    int rc;
    do
        rc = next_any(c, out);
    while (rc > 0 && scope_rec_is_data(out->word));     /* a data record alone */
    if (rc <= 0 || !(out->word & (SCOPE_REC_END | SCOPE_REC_COMPLETE)))
        return rc;
    /* what follows an end: at most one data record (compact, or the two of
     * a long form), then any request records */
    struct scope_rec d[2];
    for (;;) {
        int r2 = next_any(c, &d[0]);
        if (r2 < 0)
            return r2;
        if (r2 == 0)
            return 1;
        if (!scope_rec_is_data(d[0].word)) {
            c->pending = d[0];
            c->has_pending = 1;
            return 1;
        }
        /* a request record, or a collective post record (two for a long
         * one: kept in order, requests.c pairs them) */
        if (scope_rec_is_request(d[0].word) || scope_rec_is_collpost(d[0].word)) {
            if ((r2 = add_request(c, &d[0])) < 0)
                return r2;
            continue;
        }
        if (scope_rec_is_self(d[0].word)) {
            if (c->has_data && !c->n_req && !c->has_self) {
                c->self_bytes = scope_self_unpack(&d[0]);
                c->has_self = 1;
            }
            continue;
        }
        if (scope_rec_is_iodata(d[0].word)) {
            /* an I/O call's (one, compact or long) */
            if (c->has_io || c->has_data || c->n_req ||
                (d[0].word & SCOPE_REC_IODATA_SECOND))
                continue;
            if (!(d[0].word & SCOPE_REC_IODATA_LONG)) {
                scope_iodata_unpack(&d[0], NULL, &c->io);
                c->has_io = 1;
                continue;
            }
            if ((r2 = next_any(c, &d[1])) < 0)
                return r2;
            if (r2 > 0 && !scope_rec_is_iodata(d[1].word)) {
                c->pending = d[1];
                c->has_pending = 1;
            }
            scope_iodata_unpack(&d[0], r2 > 0 ? &d[1] : NULL, &c->io);
            c->has_io = 1;
            continue;
        }
        if (c->has_data || c->has_io || c->n_req)
            continue;       /* a second data record: not this call's */
        if (scope_rec_is_postdata(d[0].word)) {
            struct scope_rec post;
            scope_postdata_unpack(&d[0], &c->data, &post);
            c->has_data = 1;
            if ((r2 = add_request(c, &post)) < 0)
                return r2;
            continue;
        }
        if (!(d[0].word & SCOPE_REC_DATA_LONG)) {
            scope_data_unpack(&d[0], NULL, &c->data);
            c->has_data = 1;
            continue;
        }
        r2 = next_any(c, &d[1]);
        if (r2 < 0)
            return r2;
        if (r2 > 0 && scope_rec_is_data(d[1].word) && !scope_rec_is_request(d[1].word) &&
            !scope_rec_is_collpost(d[1].word) && !scope_rec_is_self(d[1].word) &&
            (d[1].word & SCOPE_REC_DATA_LONG)) {
            scope_data_unpack(&d[0], &d[1], &c->data);
            c->has_data = 1;
        } else if (r2 > 0) {
            c->pending = d[1];
            c->has_pending = 1;
        }
    }
}

static inline int is_live(const struct scope_jr_cursor *c, const struct scope_rec *r)
{
    return r->ticks >= c->live_min;
}

/* The rest of scope__jr_cursor_next's fast path (journal_read.h): an end
 * (or complete record) followed by at most one compact data record or
 * post's data record, then any request records, and then the next call's
 * record, all already in the buffer. It returns exactly what
 * cursor_next_slow would (which would put the record after them into
 * `pending` and return it next). Anything else (an empty or stale slot,
 * a long form, a data record where journal.h says it is not the call's,
 * the buffer's end) goes the slow way. */
int scope__jr_cursor_next_general(struct scope_jr_cursor *c, struct scope_rec *out)
{
    /* The slow path reads one record ahead into `pending`, always the
     * last one it took from the buffer: put it back, so that the next
     * record can take the fast path too. */
    if (c->has_pending && c->pos > 0 && c->buf[c->pos - 1].ticks == c->pending.ticks &&
        c->buf[c->pos - 1].word == c->pending.word && c->buf[c->pos - 1].aux == c->pending.aux) {
        c->pos--;
        c->has_pending = 0;
    }
    if (c->has_pending || c->pos >= c->n)
        return cursor_next_slow(c, out);
    const struct scope_rec *b = c->buf;
    size_t p = c->pos, n = c->n;
    if (!is_live(c, &b[p]) || scope_rec_is_data(b[p].word))
        return cursor_next_slow(c, out);
    /* neither an I/O data record nor a self record is taken here */
    c->has_io = 0;
    c->has_self = 0;
    c->self_bytes = 0;
    if (!(b[p].word & (SCOPE_REC_END | SCOPE_REC_COMPLETE))) {
        c->has_data = 0;
        c->n_req = 0;
        *out = b[p];
        c->pos = p + 1;
        return 1;
    }
    size_t j = p + 1, data = 0;
    /* a compact data record: the long form's bit clear (no request,
     * post or collective post word has it clear) */
    if (j < n && is_live(c, &b[j]) &&
        ((b[j].word & 7u) == SCOPE_REC_DATA || scope_rec_is_postdata(b[j].word)))
        data = j++;
    size_t req = j;
    while (j < n && is_live(c, &b[j]) &&
           (scope_rec_is_request(b[j].word) || scope_rec_is_collpost(b[j].word)))
        j++;
    if (j >= n || !is_live(c, &b[j]) || scope_rec_is_data(b[j].word))
        return cursor_next_slow(c, out);
    c->n_req = 0;
    c->has_data = data != 0;
    if (c->skim) {
        *out = b[p];
        c->pos = j;
        return 1;
    }
    if (data && scope_rec_is_postdata(b[data].word)) {
        struct scope_rec post;
        scope_postdata_unpack(&b[data], &c->data, &post);
        if (add_request(c, &post) < 0)
            return SCOPE_ENOMEM;
    } else if (data) {
        scope_data_unpack(&b[data], NULL, &c->data);
    }
    for (size_t k = req; k < j; k++)
        if (add_request(c, &b[k]) < 0)
            return SCOPE_ENOMEM;
    *out = b[p];
    c->pos = j;
    return 1;
}

void scope__jr_cursor_free(struct scope_jr_cursor *c)
{
    free(c->buf);
    c->buf = NULL;
    free(c->req);
    c->req = NULL;
    c->n_req = c->cap_req = 0;
}

int scope_convert_journal_info(const char *journal_path, struct scope_journal_info *out,
                               char *err, size_t errlen)
{
    struct scope_jr jr;
    int rc = scope__jr_open(&jr, journal_path, err, errlen);
    if (rc < 0)
        return rc;
    out->rank = jr.hdr.rank;
    out->pid = jr.hdr.pid;
    out->finalized = jr.hdr.state == SCOPE_JOURNAL_FINALIZED;
    scope__jr_close(&jr);
    return 0;
}
