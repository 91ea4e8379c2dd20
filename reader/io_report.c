/*
 * io_report.c - the I/O analysis at Darshan's level (scope_reader_io.h,
 * docs/io.md): one pass over each chosen rank's I/O calls in time order
 * builds its (file, layer) records (counts, bytes, times, the access-size
 * histogram, the access pattern, the most common sizes and strides), its
 * datasets' records, its totals and its row of the heat map; then, over
 * the run, each shared file's spread over its ranks and the totals per
 * host and per file system.
 *
 * Analysis here and nowhere else: the recorder keeps per call only what
 * the call did (file, bytes, offset, issuer), so that every counter is
 * recomputed the same way from any profile, a subset of its ranks or
 * layers included.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "scope_calls.h"
#include "scope_format.h"

/* Distinct values a record follows for its most common sizes and strides:
 * the first VC_MAX met, each counted from then on (Darshan follows 32). */
#define VC_MAX 64

struct vc {
    int64_t value, count;
};

struct acc {
    scope_io_record r;
    int64_t read_end, write_end;    /* where the previous read and write ended */
    int have_read, have_write;
    int last_op;                    /* 0 none, 1 read, 2 write */
    int nsize, nstride;
    struct vc size[VC_MAX], stride[VC_MAX];
};

/* One rank's accumulators, by (file, layer) key. */
struct accs {
    struct acc *v;
    int64_t n, cap;
    int64_t *slot;                  /* index + 1, 0 empty */
    int64_t *keys;
    size_t nslot;
};

struct named_total {
    char *name, *mount;
    scope_io_total t;
};

struct build {
    scope_profile *p;
    struct scope__io *s;
    unsigned mask;                  /* layers wanted */
    struct scope__io_filemap *map;
    scope_io_record *rec, *ds;
    int64_t nrec, caprec, nds, capds;
    scope_io_total *ranks;
    int32_t nranks;
    struct named_total *hosts, *fs;
    int32_t nhosts, nfs, caphosts, capfs;
    int32_t *rank_host;             /* host index of each chosen rank */
    int bins;
    int64_t heat_start, heat_span;
    double *heat_read, *heat_written;
    int64_t past_bound;
};

static void vc_add(struct vc *v, int *n, int64_t value)
{
    for (int i = 0; i < *n; i++)
        if (v[i].value == value) {
            v[i].count++;
            return;
        }
    if (*n < VC_MAX)
        v[(*n)++] = (struct vc){ value, 1 };
}

/* The four most common (count, then the smaller value first on a tie). */
static void vc_top(const struct vc *v, int n, int64_t *value, int64_t *count)
{
    int used[VC_MAX] = { 0 };
    for (int t = 0; t < SCOPE_IO_COMMON; t++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (!used[i] && (best < 0 || v[i].count > v[best].count ||
                             (v[i].count == v[best].count && v[i].value < v[best].value)))
                best = i;
        value[t] = best < 0 ? 0 : v[best].value;
        count[t] = best < 0 ? 0 : v[best].count;
        if (best >= 0)
            used[best] = 1;
    }
}

static struct acc *acc_get(struct accs *a, int32_t file, int layer, int rank)
{
    int64_t key = (int64_t)file * 8 + layer;
    if ((size_t)(a->n + 1) * 2 > a->nslot) {
        size_t ns = a->nslot ? a->nslot * 2 : 64;
        int64_t *slot = calloc(ns, sizeof *slot);
        if (!slot)
            return NULL;
        for (int64_t i = 0; i < a->n; i++) {
            size_t h = (size_t)(a->keys[i] * 0x9e3779b97f4a7c15ull >> 7) & (ns - 1);
            while (slot[h])
                h = (h + 1) & (ns - 1);
            slot[h] = i + 1;
        }
        free(a->slot);
        a->slot = slot;
        a->nslot = ns;
    }
    size_t h = (size_t)(key * 0x9e3779b97f4a7c15ull >> 7) & (a->nslot - 1);
    for (; a->slot[h]; h = (h + 1) & (a->nslot - 1))
        if (a->keys[a->slot[h] - 1] == key)
            return &a->v[a->slot[h] - 1];
    if (a->n == a->cap) {
        int64_t cap = a->cap ? a->cap * 2 : 16;
        struct acc *v = realloc(a->v, (size_t)cap * sizeof *v);
        int64_t *k = realloc(a->keys, (size_t)cap * sizeof *k);
        if (v)
            a->v = v;
        if (k)
            a->keys = k;
        if (!v || !k)
            return NULL;
        a->cap = cap;
    }
    struct acc *x = &a->v[a->n];
    memset(x, 0, sizeof *x);
    x->r = (scope_io_record){ .file = file, .layer = layer, .rank = rank, .max_byte_read = -1,
                              .max_byte_written = -1, .first_ns = INT64_MAX,
                              .last_ns = INT64_MIN, .open_ns = -1, .close_ns = -1 };
    a->keys[a->n] = key;
    a->slot[h] = ++a->n;
    return x;
}

static void accs_reset(struct accs *a)
{
    a->n = 0;
    if (a->slot)
        memset(a->slot, 0, a->nslot * sizeof *a->slot);
}

static void accs_free(struct accs *a)
{
    free(a->v);
    free(a->slot);
    free(a->keys);
}

/* One successful read or write of a record: counts, bytes, histogram,
 * common sizes, and for byte offsets the access pattern. */
static void data_access(struct acc *x, int write, const struct scope__io_call *c, int form,
                        int flags, int pattern, int64_t block)
{
    scope_io_record *r = &x->r;
    double t = (double)(c->end - c->start) * 1e-9;
    if (write)
        r->write_time += t;
    else
        r->read_time += t;
    if (form == SCOPE_CF_SPLIT_END)
        return;     /* its begin moved the data */
    int64_t b = c->bytes;
    if (flags & SCOPE_IOF_COLL)
        *(write ? &r->coll_writes : &r->coll_reads) += 1;
    if (form == SCOPE_CF_NONBLOCKING)
        *(write ? &r->nb_writes : &r->nb_reads) += 1;
    if (form == SCOPE_CF_SPLIT_BEGIN)
        *(write ? &r->split_writes : &r->split_reads) += 1;
    if (write) {
        r->writes++;
        r->bytes_written += b;
        r->size_written[scope_io_size_bin(b)]++;
        r->issued_written[c->issuer] += b;
    } else {
        r->reads++;
        r->bytes_read += b;
        r->size_read[scope_io_size_bin(b)]++;
        r->issued_read[c->issuer] += b;
    }
    vc_add(x->size, &x->nsize, b);
    if (!pattern || c->offset < 0)
        return;
    int64_t *prev_end = write ? &x->write_end : &x->read_end;
    int *have = write ? &x->have_write : &x->have_read;
    if (*have) {
        if (c->offset == *prev_end)
            *(write ? &r->consec_writes : &r->consec_reads) += 1;
        if (c->offset >= *prev_end) {
            *(write ? &r->seq_writes : &r->seq_reads) += 1;
            vc_add(x->stride, &x->nstride, c->offset - *prev_end);
        }
    }
    *prev_end = c->offset + b;
    *have = 1;
    if (b > 0) {
        int64_t *mx = write ? &r->max_byte_written : &r->max_byte_read;
        if (c->offset + b - 1 > *mx)
            *mx = c->offset + b - 1;
    }
    int op = write ? 2 : 1;
    if (x->last_op && x->last_op != op)
        r->rw_switches++;
    x->last_op = op;
    if (block > 0 && c->offset % block != 0)
        r->unaligned++;
}

/* One call into its record. */
static void count_call(struct acc *x, const struct scope__io_region *ri,
                       const struct scope__io_call *c, int64_t block)
{
    scope_io_record *r = &x->r;
    if (c->start < r->first_ns)
        r->first_ns = c->start;
    if (c->end > r->last_ns)
        r->last_ns = c->end;
    double t = (double)(c->end - c->start) * 1e-9;
    if (c->failed) {
        r->errors++;
        r->meta_time += t;
        return;
    }
    int pattern = ri->layer == SCOPE_IO_POSIX || ri->layer == SCOPE_IO_STDIO;
    switch (ri->cls) {
    case SCOPE_CC_IO_READ:
        data_access(x, 0, c, ri->form, ri->flags, pattern, block);
        return;
    case SCOPE_CC_IO_WRITE:
        data_access(x, 1, c, ri->form, ri->flags, pattern, block);
        return;
    case SCOPE_CC_IO_OPEN:
        r->opens++;
        if (r->open_ns < 0 || c->start < r->open_ns)
            r->open_ns = c->start;
        break;
    case SCOPE_CC_IO_CLOSE:
        r->closes++;
        if (c->end > r->close_ns)
            r->close_ns = c->end;
        break;
    case SCOPE_CC_IO_SEEK: r->seeks++; break;
    case SCOPE_CC_IO_STAT: r->stats++; break;
    case SCOPE_CC_IO_SYNC: r->syncs++; break;
    case SCOPE_CC_IO_MMAP: r->mmaps++; break;
    case SCOPE_CC_IO_DUP: r->dups++; break;
    default: r->metas++; break;     /* ftell, truncate, rename, unlink, set_view, ... */
    }
    r->meta_time += t;
}

static int push_record(scope_io_record **v, int64_t *n, int64_t *cap, const struct acc *x)
{
    if (*n == *cap) {
        int64_t c = *cap ? *cap * 2 : 64;
        scope_io_record *w = realloc(*v, (size_t)c * sizeof *w);
        if (!w)
            return scope__fail(SCOPE_ENOMEM, "out of memory");
        *v = w;
        *cap = c;
    }
    scope_io_record r = x->r;
    vc_top(x->size, x->nsize, r.access_size, r.access_count);
    vc_top(x->stride, x->nstride, r.stride, r.stride_count);
    if (r.first_ns == INT64_MAX)
        r.first_ns = r.last_ns = -1;
    (*v)[(*n)++] = r;
    return 0;
}

/* The index of the total named `name` (and `mount`) in *v, made when
 * new; -1 on ENOMEM. Hosts and file systems are few: a scan. */
static int32_t named(struct named_total **v, int32_t *n, int32_t *cap, const char *name,
                     const char *mount)
{
    for (int32_t i = 0; i < *n; i++)
        if (strcmp((*v)[i].name, name) == 0 && strcmp((*v)[i].mount, mount) == 0)
            return i;
    if (*n == *cap) {
        int32_t c = *cap ? *cap * 2 : 8;
        struct named_total *w = realloc(*v, (size_t)c * sizeof *w);
        if (!w)
            return -1;
        *v = w;
        *cap = c;
    }
    struct named_total *e = &(*v)[*n];
    e->name = strdup(name);
    e->mount = strdup(mount);
    if (!e->name || !e->mount) {
        free(e->name);
        free(e->mount);
        return -1;
    }
    e->t = (scope_io_total){ .rank = -1 };
    return (*n)++;
}

/* The run index of row `row` of the rank's table t, cached in runfile[]
 * (-3: not mapped yet); < -1 on ENOMEM. */
static int32_t map_row(struct build *b, const struct scope__io_files *t, int32_t *runfile, int row)
{
    if (runfile[row] == -3)
        runfile[row] = scope__io_filemap_row(b->map, t, row);
    return runfile[row];
}

static void total_add(scope_io_total *t, const struct scope__io_call *c, int cls, int form)
{
    t->calls++;
    t->time += (double)(c->end - c->start) * 1e-9;
    if (c->failed || form == SCOPE_CF_SPLIT_END)
        return;
    if (cls == SCOPE_CC_IO_READ)
        t->bytes_read += c->bytes;
    else if (cls == SCOPE_CC_IO_WRITE)
        t->bytes_written += c->bytes;
}

/* Spreads a call's bytes over the heat map's bins its duration covers. */
static void heat_add(double *row, int bins, int64_t start, int64_t span, const struct scope__io_call *c)
{
    if (span <= 0 || c->bytes <= 0)
        return;
    double w = (double)span / bins;
    double s = (double)(c->start - start), e = (double)(c->end - start);
    if (s < 0)
        s = 0;
    if (e > (double)span)
        e = (double)span;
    if (e <= s) {
        int b = (int)(s / w);
        row[b < 0 ? 0 : b >= bins ? bins - 1 : b] += (double)c->bytes;
        return;
    }
    for (int b = (int)(s / w); b < bins && b * w < e; b++) {
        double lo = b * w > s ? b * w : s, hi = (b + 1) * w < e ? (b + 1) * w : e;
        if (hi > lo)
            row[b] += (double)c->bytes * (hi - lo) / (e - s);
    }
}

/* One rank: its calls in time order into its records, totals and heat
 * row. */
static int rank_pass(struct build *b, int k, int ri, struct accs *files, struct accs *sets)
{
    scope_profile *p = b->p;
    int rank = p->ranks[k].rank;
    const struct scope__io_files *t;
    struct scope__io_call *calls;
    int64_t n;
    int rc = scope__io_rank_files(p, k, &t);
    if (rc == 0)
        rc = scope__io_rank_calls(p, k, 0, &calls, &n);
    if (rc < 0)
        return rc;
    int32_t *runfile = NULL;
    if (t && t->n && !(runfile = malloc((size_t)t->n * sizeof *runfile))) {
        free(calls);
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    }
    for (int i = 0; t && i < t->n; i++)
        runfile[i] = -3;    /* not mapped yet */
    accs_reset(files);
    accs_reset(sets);
    scope_io_total *rt = &b->ranks[ri];
    *rt = (scope_io_total){ .rank = rank };
    int32_t hi = b->rank_host[ri];
    double *hr = b->heat_read + (size_t)ri * (size_t)b->bins;
    double *hw = b->heat_written + (size_t)ri * (size_t)b->bins;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        const struct scope__io_call *c = &calls[i];
        const struct scope__io_region *reg = &b->s->regions[c->region];
        if (!(b->mask & (1u << reg->layer)) || reg->cls == SCOPE_CC_IO_FDS)
            continue;
        int32_t f = -1;
        if (t && c->row >= 0 && c->row < t->n) {
            f = map_row(b, t, runfile, c->row);
            if (f < -1) {
                rc = scope__fail(SCOPE_ENOMEM, "out of memory");
                break;
            }
        }
        /* a call no chosen layer issued counts in the totals (once) */
        int outer = c->issuer == 0 || !(b->mask & (1u << c->issuer));
        if (outer) {
            total_add(rt, c, reg->cls, reg->form);
            total_add(&b->hosts[hi].t, c, reg->cls, reg->form);
            if (!c->failed && reg->form != SCOPE_CF_SPLIT_END && reg->cls == SCOPE_CC_IO_READ)
                heat_add(hr, b->bins, b->heat_start, b->heat_span, c);
            if (!c->failed && reg->form != SCOPE_CF_SPLIT_END && reg->cls == SCOPE_CC_IO_WRITE)
                heat_add(hw, b->bins, b->heat_start, b->heat_span, c);
        }
        if (f < 0)
            continue;
        int kind = t->kind[c->row];
        int32_t recfile = f;
        if (kind == SCOPE_FILE_DATASET) {
            struct acc *d = acc_get(sets, f, reg->layer, rank);
            if (!d) {
                rc = scope__fail(SCOPE_ENOMEM, "out of memory");
                break;
            }
            count_call(d, reg, c, 0);
            recfile = map_row(b, t, runfile, t->parent[c->row]);
        }
        struct acc *x = recfile >= 0 ? acc_get(files, recfile, reg->layer, rank) : NULL;
        if (!x) {
            rc = scope__fail(SCOPE_ENOMEM, "out of memory");
            break;
        }
        count_call(x, reg, c, kind == SCOPE_FILE_DATASET ? 0 : t->block_size[c->row]);
        if (outer) {
            int frow = kind == SCOPE_FILE_DATASET ? t->parent[c->row] : c->row;
            int32_t fi = named(&b->fs, &b->nfs, &b->capfs, t->fs_type[frow], t->mount[frow]);
            if (fi < 0) {
                rc = scope__fail(SCOPE_ENOMEM, "out of memory");
                break;
            }
            total_add(&b->fs[fi].t, c, reg->cls, reg->form);
        }
    }
    /* the rank's records, and how many files (not datasets) it named */
    for (int64_t i = 0; i < files->n && rc == 0; i++) {
        rc = push_record(&b->rec, &b->nrec, &b->caprec, &files->v[i]);
        int first = 1;
        for (int64_t j = 0; j < i && first; j++)
            first = files->v[j].r.file != files->v[i].r.file;
        rt->nfiles += first;
    }
    for (int64_t i = 0; i < sets->n && rc == 0; i++)
        rc = push_record(&b->ds, &b->nds, &b->capds, &sets->v[i]);
    /* opens past the recorder's table (docs/format.md) */
    int64_t past = 0;
    if (scope_profile_rank_attr_int(p, rank, SCOPE_A_IO_FILES_PAST_BOUND, &past) == 0 && past > 0)
        b->past_bound += past;
    free(runfile);
    free(calls);
    return rc;
}

static int cmp_record(const void *a, const void *b)
{
    const scope_io_record *x = a, *y = b;
    int c = scope__cmp_i64(x->file, y->file);
    if (!c)
        c = scope__cmp_i64(x->layer, y->layer);
    return c ? c : scope__cmp_i64(x->rank, y->rank);
}

static double rec_time(const scope_io_record *r)
{
    return r->read_time + r->write_time + r->meta_time;
}

/* The spread of each (file, layer) that more than one rank named. */
static int spreads(scope_io_report *out)
{
    int32_t cap = 0;
    for (int64_t i = 0; i < out->nrecords;) {
        int64_t j = i;
        while (j < out->nrecords && out->records[j].file == out->records[i].file &&
               out->records[j].layer == out->records[i].layer)
            j++;
        if (j - i > 1) {
            if (out->nspreads == cap) {
                cap = cap ? cap * 2 : 16;
                scope_io_spread *v = realloc(out->spreads, (size_t)cap * sizeof *v);
                if (!v)
                    return scope__fail(SCOPE_ENOMEM, "out of memory");
                out->spreads = v;
            }
            scope_io_spread *s = &out->spreads[out->nspreads++];
            memset(s, 0, sizeof *s);
            s->file = out->records[i].file;
            s->layer = out->records[i].layer;
            s->nranks = (int32_t)(j - i);
            int64_t fast = i, slow = i;
            double mt = 0, mb = 0;
            for (int64_t q = i; q < j; q++) {
                const scope_io_record *r = &out->records[q];
                double tq = rec_time(r);
                /* ties: the lower rank (records are by rank) */
                if (tq < rec_time(&out->records[fast]))
                    fast = q;
                if (tq > rec_time(&out->records[slow]))
                    slow = q;
                s->bytes += r->bytes_read + r->bytes_written;
                s->time += tq;
                mt += tq;
                mb += (double)(r->bytes_read + r->bytes_written);
            }
            mt /= (double)(j - i);
            mb /= (double)(j - i);
            for (int64_t q = i; q < j; q++) {
                const scope_io_record *r = &out->records[q];
                double dt = rec_time(r) - mt, db = (double)(r->bytes_read + r->bytes_written) - mb;
                s->time_variance += dt * dt / (double)(j - i);
                s->bytes_variance += db * db / (double)(j - i);
            }
            s->fastest_rank = out->records[fast].rank;
            s->fastest_time = rec_time(&out->records[fast]);
            s->fastest_bytes = out->records[fast].bytes_read + out->records[fast].bytes_written;
            s->slowest_rank = out->records[slow].rank;
            s->slowest_time = rec_time(&out->records[slow]);
            s->slowest_bytes = out->records[slow].bytes_read + out->records[slow].bytes_written;
        }
        i = j;
    }
    return 0;
}

static int cmp_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

/* Per file: ranks that named it and the bytes of its largest layer; per
 * host: the files its ranks named; per file system: its files. */
static int file_facts(struct build *b, scope_io_report *out)
{
    for (int64_t i = 0; i < out->nrecords;) {
        scope_io_file *f = &out->files[out->records[i].file];
        int64_t j = i;
        int64_t br = 0, bw = 0;
        int layer = out->records[i].layer;
        for (; j < out->nrecords && out->records[j].file == out->records[i].file; j++) {
            if (out->records[j].layer != layer) {
                if (br + bw > f->bytes_read + f->bytes_written) {
                    f->bytes_read = br;
                    f->bytes_written = bw;
                }
                br = bw = 0;
                layer = out->records[j].layer;
            }
            br += out->records[j].bytes_read;
            bw += out->records[j].bytes_written;
        }
        if (br + bw > f->bytes_read + f->bytes_written) {
            f->bytes_read = br;
            f->bytes_written = bw;
        }
        /* distinct ranks (records are by layer, then rank) */
        int64_t *rk = malloc((size_t)(j - i) * sizeof *rk);
        if (!rk)
            return scope__fail(SCOPE_ENOMEM, "out of memory");
        for (int64_t q = i; q < j; q++)
            rk[q - i] = out->records[q].rank;
        qsort(rk, (size_t)(j - i), sizeof *rk, cmp_pair);
        for (int64_t q = 0; q < j - i; q++)
            f->nranks += q == 0 || rk[q] != rk[q - 1];
        free(rk);
        i = j;
    }
    /* (host, file) pairs, distinct, counted per host */
    int64_t *pairs = malloc((size_t)(out->nrecords ? out->nrecords : 1) * sizeof *pairs);
    if (!pairs)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    for (int64_t i = 0; i < out->nrecords; i++) {
        int32_t ri = 0;
        while (ri < out->nranks && out->ranks[ri].rank != out->records[i].rank)
            ri++;
        pairs[i] = (int64_t)b->rank_host[ri] << 32 | (uint32_t)out->records[i].file;
    }
    if (out->nrecords > 0)
        qsort(pairs, (size_t)out->nrecords, sizeof *pairs, cmp_pair);
    for (int64_t i = 0; i < out->nrecords; i++)
        if (i == 0 || pairs[i] != pairs[i - 1])
            out->hosts[pairs[i] >> 32].nfiles++;
    free(pairs);
    for (int32_t i = 0; i < out->nfiles; i++)
        if (out->files[i].kind != SCOPE_FILE_DATASET && out->files[i].nranks)
            for (int32_t k = 0; k < out->nfs; k++)
                if (strcmp(out->fs[k].name, out->files[i].fs_type) == 0 &&
                    strcmp(out->fs[k].mount, out->files[i].mount) == 0)
                    out->fs[k].nfiles++;
    return 0;
}

void scope_io_report_free(scope_io_report *r)
{
    if (!r)
        return;
    scope__io_files_list_free(r->files, r->nfiles);
    free(r->records);
    free(r->datasets);
    free(r->spreads);
    free(r->ranks);
    for (int32_t i = 0; i < r->nhosts; i++)
        free((char *)r->hosts[i].name);
    for (int32_t i = 0; i < r->nfs; i++) {
        free((char *)r->fs[i].name);
        free((char *)r->fs[i].mount);
    }
    free(r->hosts);
    free(r->fs);
    free(r->heat_read);
    free(r->heat_written);
    free(r);
}

int scope__io_chosen_ranks(scope_profile *p, const scope_io_options *opt, int **ks, int *n)
{
    int want = opt && opt->ranks ? opt->nranks : p->nranks;
    *ks = malloc((size_t)(want > 0 ? want : 1) * sizeof **ks);
    if (!*ks)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    *n = 0;
    for (int i = 0; i < want; i++) {
        int k = opt && opt->ranks ? scope__rank_index(p, opt->ranks[i]) : i;
        if (k < 0) {
            free(*ks);
            *ks = NULL;
            return k;
        }
        int dup = 0;
        for (int j = 0; j < *n; j++)
            dup |= (*ks)[j] == k;
        if (!dup)
            (*ks)[(*n)++] = k;
    }
    if (*n > 0)
        qsort(*ks, (size_t)*n, sizeof **ks, scope__cmp_int);
    return 0;
}

int scope_profile_io_report(scope_profile *p, const scope_io_options *opt, scope_io_report **out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *out = NULL;
    struct build b = { .p = p };
    b.mask = opt && opt->layers ? opt->layers : ~0u;
    b.bins = opt && opt->heat_bins > 0 ? opt->heat_bins : 100;
    int *ks = NULL, nk = 0;
    struct accs files = { 0 }, sets = { 0 };
    scope_io_report *r = calloc(1, sizeof *r);
    int rc = r ? scope__io_state(p, &b.s) : scope__fail(SCOPE_ENOMEM, "out of memory");
    if (rc == 0)
        rc = scope__io_chosen_ranks(p, opt, &ks, &nk);
    if (rc < 0)
        goto fail;
    b.map = scope__io_filemap_new();
    b.nranks = nk;
    b.ranks = calloc((size_t)(nk ? nk : 1), sizeof *b.ranks);
    b.rank_host = calloc((size_t)(nk ? nk : 1), sizeof *b.rank_host);
    b.heat_read = calloc((size_t)(nk ? nk : 1) * (size_t)b.bins, sizeof *b.heat_read);
    b.heat_written = calloc((size_t)(nk ? nk : 1) * (size_t)b.bins, sizeof *b.heat_written);
    if (!b.map || !b.ranks || !b.rank_host || !b.heat_read || !b.heat_written) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
        goto fail;
    }
    if (scope_profile_time_origin_ns(p, &b.heat_start) < 0 ||
        scope_profile_time_span_ns(p, &b.heat_span) < 0)
        b.heat_start = b.heat_span = 0;
    int64_t min_start;
    if (scope_profile_min_start_ns(p, &min_start) == 0 && b.heat_span > 0)
        b.heat_span += min_start - b.heat_start;    /* the span is counted from the first call */
    for (int i = 0; i < nk; i++) {
        char host[256] = "";
        if (scope_profile_rank_attr_string(p, p->ranks[ks[i]].rank, SCOPE_A_HOSTNAME, host,
                                           sizeof host) < 0)
            host[0] = 0;
        if ((b.rank_host[i] = named(&b.hosts, &b.nhosts, &b.caphosts, host, "")) < 0) {
            rc = scope__fail(SCOPE_ENOMEM, "out of memory");
            goto fail;
        }
    }
    for (int i = 0; i < nk && rc == 0; i++)
        rc = rank_pass(&b, ks[i], i, &files, &sets);
    if (rc < 0)
        goto fail;
    int32_t *remap = NULL;
    if ((rc = scope__io_filemap_finish(b.map, &r->files, &r->nfiles, &remap)) < 0)
        goto fail;
    for (int64_t i = 0; i < b.nrec; i++)
        b.rec[i].file = remap[b.rec[i].file];
    for (int64_t i = 0; i < b.nds; i++)
        b.ds[i].file = remap[b.ds[i].file];
    free(remap);
    if (b.nrec > 0) /* qsort of NULL is undefined even for 0 elements */
        qsort(b.rec, (size_t)b.nrec, sizeof *b.rec, cmp_record);
    if (b.nds > 0)
        qsort(b.ds, (size_t)b.nds, sizeof *b.ds, cmp_record);
    r->records = b.rec;
    r->nrecords = b.nrec;
    r->datasets = b.ds;
    r->ndatasets = b.nds;
    b.rec = b.ds = NULL;
    r->nranks = b.nranks;
    r->ranks = b.ranks;
    b.ranks = NULL;
    r->nhosts = b.nhosts;
    r->hosts = calloc((size_t)(b.nhosts ? b.nhosts : 1), sizeof *r->hosts);
    r->nfs = b.nfs;
    r->fs = calloc((size_t)(b.nfs ? b.nfs : 1), sizeof *r->fs);
    if (!r->hosts || !r->fs) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
        goto fail;
    }
    for (int32_t i = 0; i < b.nhosts; i++) {
        r->hosts[i] = b.hosts[i].t;
        r->hosts[i].name = b.hosts[i].name;
        free(b.hosts[i].mount);
    }
    b.nhosts = 0;
    for (int32_t i = 0; i < b.nfs; i++) {
        r->fs[i] = b.fs[i].t;
        r->fs[i].name = b.fs[i].name;
        r->fs[i].mount = b.fs[i].mount;
    }
    b.nfs = 0;
    r->heat_bins = b.bins;
    r->heat_start_ns = b.heat_start;
    r->heat_span_ns = b.heat_span;
    r->heat_read = b.heat_read;
    r->heat_written = b.heat_written;
    b.heat_read = b.heat_written = NULL;
    r->files_past_bound = b.past_bound;
    if ((rc = spreads(r)) < 0 || (rc = file_facts(&b, r)) < 0)
        goto fail;
    *out = r;
    r = NULL;
fail:
    scope_io_report_free(r);
    scope__io_filemap_free(b.map);
    free(b.rec);
    free(b.ds);
    free(b.ranks);
    free(b.rank_host);
    free(b.heat_read);
    free(b.heat_written);
    for (int32_t i = 0; i < b.nhosts; i++) {
        free(b.hosts[i].name);
        free(b.hosts[i].mount);
    }
    for (int32_t i = 0; i < b.nfs; i++) {
        free(b.fs[i].name);
        free(b.fs[i].mount);
    }
    free(b.hosts);
    free(b.fs);
    free(ks);
    accs_free(&files);
    accs_free(&sets);
    return rc;
}
