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
#include <sys/mman.h>

#include "clock_model.h"
#include "conv.h"
#include "h5_util.h"
#include "journal_read.h"
#include "scope_calls.h"
#include "scope_error.h"
#include "scope_format.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  /* Linux 5.14 */
#endif

/* Calls per window. A window is written out when full (a few HDF5 writes
 * of some µs each), and its memory is written again and again: 4,096
 * calls keep the writes under ~15 ns a call, and the memory of every
 * window small enough to stay in the caches. Windows of 65,536 calls
 * (before) held a whole region of most runs, in fresh pages, each of
 * which cost a page fault of ~13 µs on a virtual machine: a fifth of
 * the conversion's time. */
#define WINDOW_MAX 4096u
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

/* The least tick difference that always moves scope__jr_ns() by 1 ns or
 * more: with ns = floor((ticks - base) * mult / 2^64), two times at
 * least 2^64 / mult ticks apart cannot share a ns. 0 when the map is not
 * one where that holds without overflow (a damaged journal): then every
 * pair is converted and compared. */
static uint64_t tie_free_ticks(const struct scope_jr *jr)
{
    if (jr->mult <= 0 || jr->mult >= ((__int128)1 << 66))
        return 0;
    __int128 d = ((((__int128)1) << 64) + jr->mult - 1) / jr->mult;
    return d < ((__int128)1 << 40) ? (uint64_t)d : 0;
}

/* Whether two times of one thread, a <= b in ticks, are the same ns as
 * stored. Most pairs are far enough apart to say no without converting;
 * the rest are converted. */
static inline int same_ns(const struct scope_jr *jr, uint64_t tie_free, uint64_t a, uint64_t b)
{
    /* b - a in [tie_free, 2^40), a within 2^60 ticks of the base (so b
     * within 2^61): times mult < 2^66, no product overflows */
    const uint64_t lim = (uint64_t)1 << 60;
    if (b - a - tie_free < ((uint64_t)1 << 40) - tie_free &&
        (uint64_t)(a - jr->base_ticks) + lim < 2 * lim)
        return 0;
    return scope__jr_ns(jr, a) == scope__jr_ns(jr, b);
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
    const struct scope_jr *jr = &c->jr;
    /* 0 (a damaged map): every pair is converted and compared */
    uint64_t tie_free = tie_free_ticks(jr);
    if (!tie_free)
        tie_free = (uint64_t)1 << 40;
    struct region_out *reg = c->reg;
    const struct scope_jr_region *regions = jr->regions;
    const uint32_t n_regions = jr->n_regions;
    uint32_t threads_with_events = 0;
    int ties = 0;
    uint64_t invalid = 0;
    for (uint32_t t = 0; t < c->n_threads_used; t++) {
        struct scope_jr_cursor cur;
        if (scope__jr_cursor_init(&cur, jr, t) < 0)
            return SCOPE_ENOMEM;
        cur.skim = 1;   /* this pass reads no call's data, only whether it has some */
        struct scope_rec r;
        int rc, any = 0;
        uint64_t prev = 0, first = 0, last = 0;
        while ((rc = scope__jr_cursor_next(&cur, &r)) > 0) {
            uint64_t end = r.ticks;
            int complete = (r.word & SCOPE_REC_COMPLETE) != 0;
            if (complete)
                end += r.aux; /* a complete record's last moment is its end */
            /* a tie: this event's time (in ns, as stored) equals the
             * previous one's of the thread, or a call lasts 0 ns */
            if (!ties && any &&
                (r.ticks >= prev ? same_ns(jr, tie_free, prev, r.ticks)
                                 : same_ns(jr, tie_free, r.ticks, prev)))
                ties = 1;
            if (!ties && complete && same_ns(jr, tie_free, r.ticks, end))
                ties = 1;
            prev = end;
            if (!any)
                first = r.ticks;
            any = 1;
            if (end > last)
                last = end;
            uint32_t id = scope_rec_region_of(r.word);
            int ok = id < n_regions && regions[id].defined;
            if (cur.has_data && ok)
                reg[id].has_data = 1;
            if (cur.has_self && ok)
                reg[id].has_self = 1;
            if (cur.has_io && ok)
                reg[id].has_io = 1;
            if (r.word & SCOPE_REC_END)
                continue;
            if (!ok) {
                invalid++;
                continue;
            }
            struct region_out *o = &reg[id];
            /* (the OpenMP tests out of line only for an OpenMP region) */
            if ((!complete && r.aux && (!o->omp || scope__conv_omp_site_aux(o))) ||
                (o->omp && scope__conv_omp_carries_site(o)))
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
        if (any)
            c->th[t].first_ticks = first;
        c->th[t].last_ticks = last;
        threads_with_events += any;
    }
    c->invalid += invalid;
    c->write_order = ties;
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

/* The memory of one region's window: the columns this rank writes. */
static size_t window_bytes(const struct conv *c, const struct region_out *o)
{
    size_t per = 2 * sizeof(int64_t);
    if (c->write_tid)
        per += sizeof(int32_t);
    if (o->has_sites)
        per += sizeof(int32_t);
    if (c->write_order)
        per += sizeof(int64_t) + sizeof(int32_t);
    size_t b = (size_t)o->win * per;
    if (o->has_data)
        b += scope__conv_data_window_bytes(o->win) + 8;
    return (b + 63) & ~(size_t)63;
}

/* Lays every region's window over one anonymous mapping of `total`
 * bytes whose pages are made present in one call: on a virtual machine
 * that costs ~1 µs a page, against ~13 µs for each page faulted in as
 * the windows fill. Returns 0 or SCOPE_ENOMEM. */
static int make_windows(struct conv *c, size_t total)
{
    char *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return SCOPE_ENOMEM;
    madvise(m, total, MADV_POPULATE_WRITE); /* Linux >= 5.14; else the faults come one by one */
    c->windows = m;
    c->windows_len = total;
    for (uint32_t i = 0; i < c->jr.n_regions; i++) {
        struct region_out *o = &c->reg[i];
        if (!o->count)
            continue;
        char *p = m;
        size_t w = o->win;
        o->start = (int64_t *)p, p += w * sizeof(int64_t);
        o->end = (int64_t *)p, p += w * sizeof(int64_t);
        if (c->write_order) {
            o->seq = (int64_t *)p, p += w * sizeof(int64_t);
            o->dep = (int32_t *)p, p += w * sizeof(int32_t);
        }
        if (c->write_tid)
            o->tid = (int32_t *)p, p += w * sizeof(int32_t);
        if (o->has_sites)
            o->site = (int32_t *)p, p += w * sizeof(int32_t);
        if (o->has_data) {
            p = (char *)(((uintptr_t)p + 7) & ~(uintptr_t)7);
            if (scope__conv_data_window(o, p) < 0)
                return SCOPE_ENOMEM;
        }
        m += window_bytes(c, o);
    }
    return 0;
}

void scope__conv_windows_free(struct conv *c)
{
    if (c->windows)
        munmap(c->windows, c->windows_len);
    c->windows = NULL;
    c->windows_len = 0;
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
    size_t total = 0;
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
        total += window_bytes(c, o);
    }
    return total ? make_windows(c, total) : 0;
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

/* The window slot of the region's next call, its window written out
 * first when full; its
 * start, its end (a placeholder until the end arrives, or the end of a
 * complete record), thread, call site, order and data slots filled.
 * Returns the slot's index in the window, or < 0 (SCOPE_E*). */
static int64_t open_slot(struct conv *c, struct region_out *o, uint32_t t, int64_t ns,
                         int64_t end_ns, uint32_t site)
{
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
    if (o->has_io) {
        int rc = scope__conv_io_begin(o, i);
        if (rc < 0)
            return rc;
    }
    o->start[i] = ns;
    o->end[i] = end_ns;
    if (o->tid)
        o->tid[i] = (int32_t)t;
    /* file ids are 0-based rows of the path list; -1 = none or unknown */
    if (o->site)
        o->site[i] = site && site <= c->jr.n_sites && c->jr.sites[site - 1].depth
                         ? (int32_t)(site - 1) : -1;
    /* the journal's order (docs/format.md): begins counted over all threads
     * in merge order, depth = calls of this thread open at the begin */
    uint64_t seq = c->begins++;
    if (o->seq) {
        size_t depth = c->th[t].depth;
        o->seq[i] = (int64_t)seq;
        o->dep[i] = depth > INT32_MAX ? INT32_MAX : (int32_t)depth;
    }
    return (int64_t)i;
}

/* A complete record (a call with nothing recorded inside it): what
 * on_begin and then on_end do for it, without the stack. Returns 0, 1
 * when the call is not this simple case (the caller takes the general
 * path), or < 0. */
static int on_complete(struct conv *c, uint32_t t, uint32_t id, int64_t ns, int64_t end_ns)
{
    struct region_out *o = &c->reg[id];
    if (o->next >= o->count || o->omp)
        return 1; /* a racing thread at finalize, or an OpenMP region's
                   * instance: on_begin/on_end decide */
    int64_t i = open_slot(c, o, t, ns, end_ns, 0);
    if (i < 0)
        return (int)i;
    struct thread_in *th = &c->th[t];
    th->closed = (struct frame){ .region = id, .tag = 0, .slot = o->next++ };
    th->has_closed = 1;
    return 0;
}

/* `aux` is the begin record's: its call-site id (journal, from 1; 0
 * none), or what an OpenMP region's class puts there (omp_calls.c). */
static int on_begin(struct conv *c, uint32_t t, uint32_t id, int64_t ns, uint32_t aux)
{
    struct region_out *o = &c->reg[id];
    if (o->next >= o->count)
        return 0; /* recorded after pass 1 counted: racing thread at finalize */
    int64_t i = open_slot(c, o, t, ns, ns, scope__conv_omp_site_aux(o) ? aux : 0);
    if (i < 0)
        return (int)i;
    uint32_t tag = 0;
    if (o->omp) {
        int rc = scope__conv_omp_begin(c, o, (uint64_t)i, aux, &tag);
        if (rc < 0)
            return rc;
    }
    struct thread_in *th = &c->th[t];
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
                    int64_t end_ns = c->reg[id].omp ? scope__conv_omp_clip_end(c, th, ns) : ns;
                    rc = on_end(c, best, id, end_ns, (th->rec.aux & SCOPE_REC_UNWOUND) != 0);
                    if (rc == 0 && c->reg[id].omp && th->has_closed && th->closed.region == id)
                        rc = scope__conv_omp_end(c, th->closed, th->rec.aux, ns);
                } else if (th->rec.word & SCOPE_REC_COMPLETE) {
                    int64_t end_ns = scope__jr_ns(&c->jr, th->rec.ticks + th->rec.aux);
                    rc = on_complete(c, best, id, ns, end_ns);
                    if (rc == 1) {
                        rc = on_begin(c, best, id, ns, 0);
                        if (rc == 0 && c->reg[id].omp)
                            end_ns = scope__conv_omp_clip_end(c, th, end_ns);
                        if (rc == 0)
                            rc = on_end(c, best, id, end_ns, 0);
                    }
                } else {
                    rc = on_begin(c, best, id, ns, th->rec.aux);
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

