/*
 * calls.c - the calls of a journal into its regions' datasets: the two
 * passes of a conversion (h5writer.c writes the files around them). Memory
 * stays bounded whatever the journal's size:
 *
 *   pass 1  walks every thread's records once and counts the calls of each
 *           region, so every dataset is created at its exact final size,
 *           and notes whether any two events of a thread share a timestamp;
 *   pass 2  merges the threads' record streams by timestamp (ties by thread
 *           index), which yields each region's calls already sorted by
 *           start. Starts are appended to a fixed-size window per region
 *           and written out when it fills; an end fills the slot its begin
 *           reserved, and the rare end that arrives after its slot's window
 *           was written (a long call containing many calls of its own
 *           region) is patched in place with a one-element write.
 *
 * Nesting is decided by each thread's order in the journal (a stack of open
 * calls), never by comparing times, so calls that share timestamps come
 * out as they were recorded. Times alone cannot say that to a reader (a
 * zero-length call at the moment its parent ends is inside it or after
 * it), so when a thread had ties the rank file also gets each call's
 * begin order and depth (docs/format.md, `begin_seq` and `depth`).
 */
#include <hdf5.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock_model.h"
#include "conv.h"
#include "h5_util.h"
#include "journal_read.h"
#include "scope_calls.h"
#include "scope_error.h"
#include "scope_format.h"

#define WINDOW_MAX 65536u
#define WINDOW_MIN 64u
#define WINDOW_BUDGET (64u << 20) /* bytes for all windows together */

/* When the rank stopped recording: the header's end, else its last
 * event, else its start. Cost: one look at each thread. */
int64_t scope__conv_finalize_ns(const struct conv *c)
{
    const struct scope_journal_header *h = &c->jr.hdr;
    if (h->end_ns)
        return h->end_ns;
    uint64_t last = 0;
    for (uint32_t i = 0; i < c->n_threads_used; i++)
        if (c->th[i].last_ticks > last)
            last = c->th[i].last_ticks;
    return last ? scope__jr_ns(&c->jr, last) : h->start_ns;
}

int scope__conv_open_threads(struct conv *c)
{
    c->n_threads_used = c->jr.n_threads;
    c->th = calloc(c->n_threads_used ? c->n_threads_used : 1, sizeof *c->th);
    if (!c->th)
        return SCOPE_ENOMEM;
    for (uint32_t i = 0; i < c->n_threads_used; i++)
        if (scope__jr_cursor_init(&c->th[i].cur, &c->jr, i) < 0)
            return SCOPE_ENOMEM;
    return 0;
}

static int region_ok(const struct conv *c, uint32_t id)
{
    return id < c->jr.n_regions && c->jr.regions[id].defined;
}

/* Pass 1: calls per region, which threads recorded, first/last ticks. */
int scope__conv_count_calls(struct conv *c)
{
    c->reg = calloc(c->jr.n_regions ? c->jr.n_regions : 1, sizeof *c->reg);
    if (!c->reg)
        return SCOPE_ENOMEM;
    int orc = scope__conv_omp_classify(c);
    if (orc < 0)
        return orc;
    uint32_t threads_with_events = 0;
    for (uint32_t t = 0; t < c->n_threads_used; t++) {
        struct scope_jr_cursor cur;
        if (scope__jr_cursor_init(&cur, &c->jr, t) < 0)
            return SCOPE_ENOMEM;
        struct scope_rec r;
        int rc, any = 0;
        int64_t prev_ns = 0;
        while ((rc = scope__jr_cursor_next(&cur, &r)) > 0) {
            /* a tie: this event's time (in ns, as stored) equals the
             * previous one's of the thread, or a call lasts 0 ns */
            int64_t ns = scope__jr_ns(&c->jr, r.ticks);
            if (any && ns == prev_ns)
                c->write_order = 1;
            prev_ns = ns;
            if (r.word & SCOPE_REC_COMPLETE) {
                int64_t end_ns = scope__jr_ns(&c->jr, r.ticks + r.aux);
                if (end_ns == ns)
                    c->write_order = 1;
                prev_ns = end_ns;
            }
            if (!any)
                c->th[t].first_ticks = r.ticks;
            any = 1;
            /* a complete record's last moment is its end */
            uint64_t last = r.ticks + ((r.word & SCOPE_REC_COMPLETE) ? r.aux : 0);
            if (last > c->th[t].last_ticks)
                c->th[t].last_ticks = last;
            uint32_t id = scope_rec_region_of(r.word);
            if (cur.has_data && region_ok(c, id))
                c->reg[id].has_data = 1;
            if (cur.has_self && region_ok(c, id))
                c->reg[id].has_self = 1;
            if (cur.has_io && region_ok(c, id))
                c->reg[id].has_io = 1;
            if (r.word & SCOPE_REC_END)
                continue;
            if (!region_ok(c, id)) {
                c->invalid++;
                continue;
            }
            struct region_out *o = &c->reg[id];
            if ((!(r.word & SCOPE_REC_COMPLETE) && r.aux && scope__conv_omp_site_aux(o)) ||
                scope__conv_omp_carries_site(o))
                o->has_sites = 1;
            if (o->count == 0)
                o->first_thread = t;
            else if (o->first_thread != t)
                o->multi_thread = 1;
            o->count++;
        }
        scope__jr_cursor_free(&cur);
        if (rc < 0)
            return rc;
        threads_with_events += any;
    }
    c->write_tid = threads_with_events > 1;
    /* Calls still open at the end are closed at the thread's exit or at
     * finalize (merge_events): a call that began at that very moment ties
     * with its inferred end, as its parent's end does. */
    int64_t fin = scope__conv_finalize_ns(c);
    for (uint32_t t = 0; t < c->n_threads_used && !c->write_order; t++) {
        const struct scope_jr_thread *jt = &c->jr.threads[t];
        if (!c->th[t].last_ticks)
            continue;
        int64_t end = jt->end_ticks ? scope__jr_ns(&c->jr, jt->end_ticks) : fin;
        if (scope__jr_ns(&c->jr, c->th[t].last_ticks) >= end)
            c->write_order = 1;
    }
    return 0;
}

/* Creates /rank<N>/regions and sizes each region's window; the regions'
 * own groups and datasets are made when their first window is written
 * (region_datasets). Returns 0 or SCOPE_E*. */
int scope__conv_create_regions(struct conv *c)
{
    c->regions_grp = H5Gcreate2(c->rank_grp, SCOPE_G_REGIONS, H5P_DEFAULT, H5P_DEFAULT,
                                H5P_DEFAULT);
    if (c->regions_grp < 0)
        return SCOPE_EHDF5;
    uint64_t active = 0;
    for (uint32_t i = 0; i < c->jr.n_regions; i++)
        active += c->reg[i].count > 0;
    uint64_t per = WINDOW_MAX;
    if (active && active * WINDOW_MAX * 20 > WINDOW_BUDGET)
        per = WINDOW_BUDGET / 20 / active;
    if (per < WINDOW_MIN)
        per = WINDOW_MIN;
    for (uint32_t i = 0; i < c->jr.n_regions; i++) {
        struct region_out *o = &c->reg[i];
        o->ds_start = o->ds_end = o->ds_tid = o->ds_unwound = o->ds_site = H5I_INVALID_HID;
        o->ds_seq = o->ds_dep = H5I_INVALID_HID;
        if (!o->count)
            continue;
        o->link = scope_region_link_name_dup(c->jr.regions[i].name);
        o->win = (uint32_t)(o->count < per ? o->count : per);
        if (!o->link)
            return SCOPE_ENOMEM;
    }
    return 0;
}

/* The operation of an MPI or I/O region (docs/format.md, `operation`):
 * what its symbol is by the vocabulary, else what its name is (a region
 * named in the config keeps the symbol's operation). 1 with op filled, 0
 * when the region is no MPI or I/O call the vocabulary knows. */
static int region_operation(const struct scope_jr_region *jrr, char *op, size_t len)
{
    if (jrr->kind != SCOPE_KIND_MPI && jrr->kind != SCOPE_KIND_IO)
        return 0;
    struct scope_call_name n;
    if (!(jrr->symbol[0] && scope_call_parse(jrr->symbol, &n)) && !scope_call_parse(jrr->name, &n))
        return 0;
    return scope_call_operation(n.id, n.big, op, len) > 0;
}

/* Makes the region's group, its attributes and its datasets at their
 * final size, the first time one of its windows is written, and leaves
 * the datasets open until close_region_datasets. Creating them then, not
 * all at once before the events and reopened by name at each write, is
 * what keeps 20,000 regions cheap: a region whose calls fit in one window
 * (most of them) is created, written and closed in one go, and only
 * regions too large for their window hold open datasets meanwhile.
 * Returns 0 or SCOPE_EHDF5. */
static int region_datasets(struct conv *c, struct region_out *o)
{
    if (o->ds_start >= 0)
        return 0;
    const struct scope_jr_region *jrr = &c->jr.regions[o - c->reg];
    hid_t g = H5Gcreate2(c->regions_grp, o->link, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return SCOPE_EHDF5;
    int arc = scope__h5_attr_str(g, SCOPE_A_NAME, jrr->name) |
              scope__h5_attr_str(g, SCOPE_A_KIND, scope_kind_name(jrr->kind));
    if (jrr->symbol[0])
        arc |= scope__h5_attr_str(g, SCOPE_A_SYMBOL, jrr->symbol);
    if (jrr->object[0])
        arc |= scope__h5_attr_str(g, SCOPE_A_OBJECT, jrr->object);
    char op[SCOPE_CALL_OPERATION_MAX];
    if (region_operation(jrr, op, sizeof op))
        arc |= scope__h5_attr_str(g, SCOPE_A_OPERATION, op);
    o->ds_start = scope__h5_make_dataset(g, SCOPE_D_START_TIMES, H5T_STD_I64LE, o->count);
    o->ds_end = scope__h5_make_dataset(g, SCOPE_D_END_TIMES, H5T_STD_I64LE, o->count);
    if (c->write_tid)
        o->ds_tid = scope__h5_make_dataset(g, SCOPE_D_THREAD_IDS, H5T_STD_I32LE, o->count);
    if (o->has_sites)
        o->ds_site = scope__h5_make_dataset(g, SCOPE_D_CALLSITE_IDS, H5T_STD_I32LE, o->count);
    if (c->write_order) {
        o->ds_seq = scope__h5_make_dataset(g, SCOPE_D_BEGIN_SEQ, H5T_STD_I64LE, o->count);
        o->ds_dep = scope__h5_make_dataset(g, SCOPE_D_DEPTH, H5T_STD_I32LE, o->count);
    }
    arc |= scope__conv_data_datasets(o, g);
    arc |= scope__conv_omp_datasets(o, g);
    arc |= scope__conv_io_datasets(o, g);
    H5Gclose(g);
    return arc || o->ds_start < 0 || o->ds_end < 0 || (c->write_tid && o->ds_tid < 0) ||
           (o->has_sites && o->ds_site < 0) ||
           (c->write_order && (o->ds_seq < 0 || o->ds_dep < 0)) ? SCOPE_EHDF5 : 0;
}

void scope__conv_close_region(struct region_out *o)
{
    hid_t *ds[7] = { &o->ds_start, &o->ds_end, &o->ds_tid, &o->ds_unwound, &o->ds_site,
                     &o->ds_seq, &o->ds_dep };
    for (int k = 0; k < 7; k++) {
        if (*ds[k] > 0)
            H5Dclose(*ds[k]);
        *ds[k] = H5I_INVALID_HID;
    }
    scope__conv_data_close(o);
    scope__conv_omp_close(o);
    scope__conv_io_close(o);
}

/* Writes slots [base, upto) of a region's window and moves the window. */
static int flush_window(struct conv *c, struct region_out *o, uint64_t upto)
{
    uint64_t n = upto - o->base;
    if (n == 0)
        return 0;
    if (region_datasets(c, o) < 0)
        return SCOPE_EHDF5;
    if (scope__h5_write_slice(o->ds_start, H5T_NATIVE_INT64, o->start, o->base, n) < 0 ||
        scope__h5_write_slice(o->ds_end, H5T_NATIVE_INT64, o->end, o->base, n) < 0 ||
        (c->write_tid && scope__h5_write_slice(o->ds_tid, H5T_NATIVE_INT32, o->tid, o->base, n) < 0) ||
        (o->has_sites && scope__h5_write_slice(o->ds_site, H5T_NATIVE_INT32, o->site, o->base, n) < 0) ||
        (c->write_order && (scope__h5_write_slice(o->ds_seq, H5T_NATIVE_INT64, o->seq, o->base, n) < 0 ||
                            scope__h5_write_slice(o->ds_dep, H5T_NATIVE_INT32, o->dep, o->base, n) < 0)) ||
        scope__conv_data_flush(o, n) < 0 || scope__conv_omp_flush(o, n) < 0 ||
        scope__conv_io_flush(o, n) < 0)
        return SCOPE_EHDF5;
    o->base = upto;
    return 0;
}

static int set_end(struct conv *c, struct frame f, int64_t end_ns)
{
    struct region_out *o = &c->reg[f.region];
    if (f.slot >= o->base) {
        o->end[f.slot - o->base] = end_ns;
        return 0;
    }
    if (region_datasets(c, o) < 0)
        return SCOPE_EHDF5;
    return scope__h5_write_slice(o->ds_end, H5T_NATIVE_INT64, &end_ns, f.slot, 1) < 0 ? SCOPE_EHDF5 : 0;
}

/* `aux` is the begin record's: its call-site id (journal, from 1; 0
 * none), or what an OpenMP region's class puts there (omp_calls.c). */
static int on_begin(struct conv *c, uint32_t t, uint32_t id, int64_t ns, uint32_t aux)
{
    struct region_out *o = &c->reg[id];
    if (o->next >= o->count)
        return 0; /* recorded after pass 1 counted: racing thread at finalize */
    if (!o->start) {
        o->start = malloc(o->win * sizeof *o->start);
        o->end = malloc(o->win * sizeof *o->end);
        o->tid = malloc(o->win * sizeof *o->tid);
        o->site = malloc(o->win * sizeof *o->site);
        o->seq = malloc(o->win * sizeof *o->seq);
        o->dep = malloc(o->win * sizeof *o->dep);
        if (!o->start || !o->end || !o->tid || !o->site || !o->seq || !o->dep)
            return SCOPE_ENOMEM;
    }
    if (o->next - o->base == o->win) {
        int rc = flush_window(c, o, o->next);
        if (rc < 0)
            return rc;
    }
    uint64_t i = o->next - o->base;
    if (o->has_data) {
        int rc = scope__conv_data_begin(o, i);
        if (rc < 0)
            return rc;
    }
    uint32_t tag = 0, site = scope__conv_omp_site_aux(o) ? aux : 0;
    if (o->omp) {
        int rc = scope__conv_omp_begin(c, o, i, aux, &tag);
        if (rc < 0)
            return rc;
    }
    if (o->has_io) {
        int rc = scope__conv_io_begin(o, i);
        if (rc < 0)
            return rc;
    }
    o->start[i] = ns;
    o->end[i] = ns; /* placeholder until the end arrives */
    o->tid[i] = (int32_t)t;
    /* file ids are 0-based rows of the path list; -1 = none or unknown */
    o->site[i] = site && site <= c->jr.n_sites && c->jr.sites[site - 1].depth
                     ? (int32_t)(site - 1) : -1;
    struct thread_in *th = &c->th[t];
    /* the journal's order (docs/format.md): begins counted over all threads
     * in merge order, depth = calls of this thread open at the begin */
    o->seq[i] = (int64_t)c->begins++;
    o->dep[i] = th->depth > INT32_MAX ? INT32_MAX : (int32_t)th->depth;
    if (th->depth == th->cap) {
        size_t cap = th->cap ? th->cap * 2 : 64;
        struct frame *s = realloc(th->stack, cap * sizeof *s);
        if (!s)
            return SCOPE_ENOMEM;
        th->stack = s;
        th->cap = cap;
    }
    th->stack[th->depth++] = (struct frame){ id, tag, o->next++ };
    return 0;
}

/* Marks one call whose end was inferred, not seen (docs/format.md,
 * `unwound`). The dataset is created at the region's first such call with
 * fill value 0, so every other call reads 0 without being written; marked
 * calls are rare, and each costs a one-element write. */
static int mark_unwound(struct conv *c, struct frame f)
{
    struct region_out *o = &c->reg[f.region];
    if (o->ds_unwound < 0) {
        if (region_datasets(c, o) < 0)
            return SCOPE_EHDF5;
        hid_t rg = H5Gopen2(c->regions_grp, o->link, H5P_DEFAULT);
        if (rg >= 0) {
            hsize_t dims[1] = { o->count };
            hid_t sp = H5Screate_simple(1, dims, NULL);
            hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
            int8_t zero = 0;
            H5Pset_fill_value(dcpl, H5T_NATIVE_INT8, &zero);
            o->ds_unwound = H5Dcreate2(rg, SCOPE_D_UNWOUND, H5T_STD_I8LE, sp, H5P_DEFAULT, dcpl,
                                       H5P_DEFAULT);
            H5Pclose(dcpl);
            H5Sclose(sp);
            H5Gclose(rg);
        }
        if (o->ds_unwound < 0)
            return SCOPE_EHDF5;
    }
    int8_t one = 1;
    return scope__h5_write_slice(o->ds_unwound, H5T_NATIVE_INT8, &one, f.slot, 1) < 0 ? SCOPE_EHDF5 : 0;
}

/* Closes the innermost open call of `id`; calls opened inside it and not
 * closed are closed at the same time (counted as unterminated and marked
 * unwound, as is the call itself when its end record says so). */
static int on_end(struct conv *c, uint32_t t, uint32_t id, int64_t ns, int unwound)
{
    struct thread_in *th = &c->th[t];
    size_t k = th->depth;
    while (k > 0 && th->stack[k - 1].region != id)
        k--;
    if (k == 0) {
        c->invalid++; /* an end without a begin */
        return 0;
    }
    th->closed = th->stack[k - 1];
    th->has_closed = 1;
    while (th->depth >= k) {
        struct frame f = th->stack[--th->depth];
        int inner = th->depth >= k;
        if (inner)
            c->unterminated++;
        int rc = set_end(c, f, ns);
        if (rc == 0 && (inner || unwound))
            rc = mark_unwound(c, f);
        if (rc < 0)
            return rc;
        if (th->depth == k - 1)
            break;
    }
    return 0;
}

/* Pass 2: a merge of all threads by (ticks, thread index). A binary heap
 * would pay off past a few dozen threads; a linear scan of the thread
 * heads is simpler and cheaper below that, and one thread is the norm. */
int scope__conv_merge_events(struct conv *c)
{
    uint32_t n = c->n_threads_used;
    for (uint32_t t = 0; t < n; t++) {
        int rc = scope__jr_cursor_next(&c->th[t].cur, &c->th[t].rec);
        if (rc < 0)
            return rc;
        c->th[t].live = rc;
    }
    for (;;) {
        uint32_t best = UINT32_MAX;
        for (uint32_t t = 0; t < n; t++)
            if (c->th[t].live && (best == UINT32_MAX || c->th[t].rec.ticks < c->th[best].rec.ticks))
                best = t;
        if (best == UINT32_MAX)
            break;
        struct thread_in *th = &c->th[best];
        /* drain this thread while it stays first */
        uint64_t limit = UINT64_MAX;
        for (uint32_t t = 0; t < n; t++) {
            if (t == best || !c->th[t].live)
                continue;
            /* at equal ticks the lower thread index goes first */
            uint64_t l = c->th[t].rec.ticks + (t > best ? 1 : 0);
            if (l < limit)
                limit = l;
        }
        do {
            uint32_t id = scope_rec_region_of(th->rec.word);
            int rc = 0;
            if (region_ok(c, id)) {
                int64_t ns = scope__jr_ns(&c->jr, th->rec.ticks);
                if (th->rec.word & SCOPE_REC_END) {
                    rc = on_end(c, best, id, ns, (th->rec.aux & SCOPE_REC_UNWOUND) != 0);
                    if (rc == 0 && c->reg[id].omp && th->has_closed && th->closed.region == id)
                        rc = scope__conv_omp_end(c, th->closed, th->rec.aux, ns);
                } else {
                    int complete = (th->rec.word & SCOPE_REC_COMPLETE) != 0;
                    rc = on_begin(c, best, id, ns, complete ? 0 : th->rec.aux);
                    if (rc == 0 && complete)
                        rc = on_end(c, best, id,
                                    scope__jr_ns(&c->jr, th->rec.ticks + th->rec.aux), 0);
                }
                if (rc == 0 && th->cur.has_data && th->has_closed && th->closed.region == id)
                    rc = scope__conv_data_set(c, th->closed, &th->cur.data,
                                              th->cur.has_self ? &th->cur.self_bytes : NULL);
                if (rc == 0 && th->cur.has_io && th->has_closed && th->closed.region == id)
                    rc = scope__conv_io_set(c, th->closed, &th->cur.io);
                if (rc == 0 && th->cur.n_req && th->has_closed && th->closed.region == id)
                    rc = scope__conv_requests(c, th->closed, th->cur.req, th->cur.n_req);
                th->has_closed = 0;
            }
            if (rc < 0)
                return rc;
            rc = scope__jr_cursor_next(&th->cur, &th->rec);
            if (rc < 0)
                return rc;
            th->live = rc;
        } while (th->live && th->rec.ticks < limit);
    }
    /* calls still open: closed when their thread ended, else at finalize;
     * an OpenMP worker's part of a parallel region that ended, when that
     * region ended (omp_calls.c) */
    int64_t fin = scope__conv_finalize_ns(c);
    for (uint32_t t = 0; t < n; t++) {
        struct thread_in *th = &c->th[t];
        const struct scope_jr_thread *jt = &c->jr.threads[t];
        int64_t end = jt->end_ticks ? scope__jr_ns(&c->jr, jt->end_ticks) : fin;
        for (size_t k = 0; c->omp && k < th->depth; k++) {
            int64_t at = scope__conv_omp_task_end(c, th->stack[k]);
            if (at == INT64_MIN || at > end)
                continue;
            while (th->depth > k) {
                int rc = set_end(c, th->stack[--th->depth], at);
                if (rc < 0)
                    return rc;
            }
            break;
        }
        while (th->depth) {
            c->unterminated++;
            struct frame f = th->stack[--th->depth];
            int rc = set_end(c, f, end);
            if (rc == 0)
                rc = mark_unwound(c, f);
            if (rc < 0)
                return rc;
        }
    }
    for (uint32_t i = 0; i < c->jr.n_regions; i++) {
        struct region_out *o = &c->reg[i];
        if (o->count && flush_window(c, o, o->next) < 0)
            return SCOPE_EHDF5;
        scope__conv_close_region(o); /* written in full */
    }
    return 0;
}

