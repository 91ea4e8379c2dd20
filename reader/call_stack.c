/*
 * call_stack.c - rebuilds who-called-whom on one rank. This is what
 * `scope tree`, the flame graph, the folded-stack export, self time and
 * the events' call_id / parent_id are built on.
 *
 * Two sources of nesting (docs/format.md, "Call order and ties"):
 *  - the journal's order, when every region of the rank has `begin_seq`
 *    and `depth` (scope writes them when a thread's timestamps tied):
 *    calls in begin_seq order, each the child of the latest open call of
 *    its lane one level up. Exact whatever the clock's resolution: times
 *    alone cannot tell a zero-length call at the moment its parent ends
 *    (inside) from one just after it (a sibling);
 *  - else containment, from the only thing such a file stores per call,
 *    its (start, end) pair: a call that starts while another call of the
 *    same lane is still open is nested in it (ties: the longer call first;
 *    a call starting when another ends is not its child). Exact when no
 *    two events of a thread share a timestamp, which is when scope writes
 *    no order.
 *
 * Algorithm: put the rank's calls from every region in that order by
 * merging the regions' arrays, which the files keep in it (qsort only when
 * a region's array is not in start order), each call nested as it is
 * merged (while its record is in cache), keeping per lane the innermost
 * open call. The open calls of a lane form a chain through their parent
 * links, so no separate stack is needed: closing a call is following its
 * parent link. Each call is opened and closed once, so nesting is linear
 * and the whole costs n log(regions) for the merge. The children lists
 * are counted during the nesting and laid out in one pass after it.
 *
 * Memory: a stack's records, children lists and the times it reads come
 * from the last freed stack's when they fit (fresh pages cost the kernel's
 * zeroing; the rank after rank of a tool then pays it once), else fresh,
 * zeroed by a second thread beside the fill (prefault.c).
 *
 * scope__call_stack_ids runs the same merge and nesting for the event
 * columns without the records: ids, parent ids and depths go straight to
 * the caller's columns, the open calls kept in a small per-lane stack.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prefault.h"
#include "reader_internal.h"

struct scope_call_stack {
    int64_t n;
    int64_t room;       /* calls[], kids[] hold room, kid_off room + 3 */
    scope_call *calls;
    int64_t *kid_off;   /* n + 3: group 0 = roots, group i + 1 = kids of i,
                         * group g is kids[kid_off[g] .. kid_off[g + 1]) */
    int64_t *kids;      /* n: every call is in exactly one group */
};

/* Times read for a stack: into the caller's buffers s, e (room for the
 * rank's calls; `used` of them taken) when it has them, else fresh ones. */
typedef struct {
    int64_t *s, *e;
    int64_t used;
} scratch;

static int cmp_calls(const void *a, const void *b)
{
    const scope_call *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    if (x->end_ns != y->end_ns)
        return x->end_ns > y->end_ns ? -1 : 1;   /* longer first */
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    return (x->call_index > y->call_index) - (x->call_index < y->call_index);
}

/* The buffers of the last freed stack, kept for the next one: a tool
 * walks the ranks one stack at a time, and a fresh buffer's first touch
 * is the kernel zeroing it (a third of a stack's time in perf, 64 bytes
 * per call). One set at most, released by scope_profile_close(). */
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static scope_call_stack spare;
/* The same for the times a stack reads (2 x room int64: starts, then
 * ends), needed only while it is built. */
static int64_t *spare_times, spare_times_room;

static void free_buffers(scope_call_stack *cs)
{
    free(cs->calls);
    free(cs->kid_off);
    free(cs->kids);
}

void scope__call_stack_spare_release(void)
{
    pthread_mutex_lock(&spare_lock);
    scope_call_stack s = spare;
    memset(&spare, 0, sizeof spare);
    int64_t *t = spare_times;
    spare_times = NULL;
    spare_times_room = 0;
    pthread_mutex_unlock(&spare_lock);
    free_buffers(&s);
    free(t);
}

/* Gives cs the spare buffers when they hold `room` calls (else frees
 * them: the stack allocates bigger ones). 1 when taken. */
static int take_spare(scope_call_stack *cs, int64_t room)
{
    pthread_mutex_lock(&spare_lock);
    scope_call_stack s = spare;
    memset(&spare, 0, sizeof spare);
    pthread_mutex_unlock(&spare_lock);
    if (!s.calls)
        return 0;
    if (s.room < room) {
        free_buffers(&s);
        return 0;
    }
    cs->calls = s.calls;
    cs->kid_off = s.kid_off;
    cs->kids = s.kids;
    cs->room = s.room;
    return 1;
}

/* Scratch for `load` calls' times in *sc: the spare's when it has room,
 * else fresh. 0 (sc unset) when out of memory or `load` is small (a fresh
 * buffer per cell then, as before). */
static int take_times(scratch *sc, int64_t load)
{
    if (load < ((int64_t)1 << 16))
        return 0;
    pthread_mutex_lock(&spare_lock);
    int64_t *t = spare_times, room = spare_times_room;
    spare_times = NULL;
    spare_times_room = 0;
    pthread_mutex_unlock(&spare_lock);
    if (t && room < load) {
        free(t);
        t = NULL;
    }
    if (!t) {
        t = scope__malloc_big(2 * (size_t)load * sizeof *t);
        room = load;
    }
    if (!t)
        return 0;
    sc->s = t;
    sc->e = t + room;
    sc->used = 0;
    return 1;
}

/* Puts sc's buffer back as the spare, or frees it when a spare is
 * there. */
static void keep_times(scratch *sc)
{
    if (!sc->s)
        return;
    int64_t room = sc->e - sc->s;
    pthread_mutex_lock(&spare_lock);
    int kept = !spare_times;
    if (kept) {
        spare_times = sc->s;
        spare_times_room = room;
    }
    pthread_mutex_unlock(&spare_lock);
    if (!kept)
        free(sc->s);
    sc->s = sc->e = NULL;
}

void scope_call_stack_free(scope_call_stack *cs)
{
    if (!cs)
        return;
    int kept = 0;
    if (cs->calls && cs->kid_off && cs->kids) {
        pthread_mutex_lock(&spare_lock);
        if (!spare.calls) {
            spare = *cs;
            kept = 1;
        }
        pthread_mutex_unlock(&spare_lock);
    }
    if (!kept)
        free_buffers(cs);
    free(cs);
}

int64_t scope_call_stack_count(const scope_call_stack *cs)
{
    return cs ? cs->n : 0;
}

const scope_call *scope_call_stack_calls(const scope_call_stack *cs)
{
    return cs ? cs->calls : NULL;
}

int scope_call_stack_children(const scope_call_stack *cs, int64_t call,
                              const int64_t **kids, int64_t *n)
{
    if (!cs || !kids || !n)
        return scope__fail(SCOPE_EINVAL, "no call stack or no output");
    if (call < -1 || call >= cs->n)
        return scope__fail(SCOPE_ENOTFOUND, "no call %lld (the stack has "
                           "%lld)", (long long)call, (long long)cs->n);
    int64_t g = call + 1;
    *kids = cs->kids + cs->kid_off[g];
    *n = cs->kid_off[g + 1] - cs->kid_off[g];
    return 0;
}

/* One region's calls on the rank, as a sorted stream for the merge. The
 * arrays are the cell's cached ones, or loaded here (own = 1: freed at
 * the end). */
typedef struct {
    const int64_t *s, *e;
    const int32_t *t;       /* NULL: every call on lane 0 */
    int64_t *q, *d;         /* begin_seq and depth, NULL when absent */
    int64_t i, n;
    int32_t region;
    int own_times, own_tids;
} stream;

static void free_streams(stream *st, int n)
{
    for (int k = 0; k < n; k++) {
        if (st[k].own_times) {
            free((void *)st[k].s);
            free((void *)st[k].e);
        }
        if (st[k].own_tids)
            free((void *)st[k].t);
        free(st[k].q);
        free(st[k].d);
    }
    free(st);
}

/* Loads cell c (region r) as a stream. */
static int open_stream(scope_profile *p, scope__cell *c, int r, stream *st, scratch *sc)
{
    int64_t *s = c->starts, *e = c->ends;
    int32_t *t = c->tids;
    int rc;
    memset(st, 0, sizeof *st);
    if (!s && sc) {
        s = sc->s + sc->used;
        e = sc->e + sc->used;
        if ((rc = scope__cell_load_into(p, c, s, e)) < 0)
            return rc;
        sc->used += c->n;
    } else if (!s) {
        if ((rc = scope__cell_load(p, c, &s, &e)) < 0)
            return rc;
        st->own_times = 1;
    }
    st->s = s;
    st->e = e;
    st->n = c->n;
    st->region = r;
    if (!c->tids_loaded) {
        if ((rc = scope__cell_load_tids(p, c, &t)) < 0)
            return rc;      /* the caller frees s and e */
        st->own_tids = t != NULL;
    }
    st->t = t;
    return 0;
}

/* Loads the cell's begin_seq and depth into st->q and st->d, both or
 * neither (a region with only one of them has no usable order). */
static int load_order(scope_profile *p, scope__cell *c, stream *st)
{
    char *qpath = NULL, *dpath = NULL;
    int rc = scope__cell_read_column(p, c, SCOPE_D_BEGIN_SEQ, &st->q, &qpath);
    if (rc >= 0 && st->q)
        rc = scope__cell_read_column(p, c, SCOPE_D_DEPTH, &st->d, &dpath);
    free(qpath);
    free(dpath);
    if (rc < 0 || !st->d) {
        free(st->q);
        st->q = NULL;
    }
    return rc;
}

/* Whether stream x's begin_seq increases strictly, as scope writes it. */
static int order_sorted(const stream *x)
{
    for (int64_t i = 1; i < x->n; i++)
        if (x->q[i - 1] >= x->q[i])
            return 0;
    return 1;
}

/* Whether stream x's calls are already in cmp_calls order. The files keep
 * them sorted by start, ties by thread: that order, except where equal
 * starts need the longer call first. */
static int stream_sorted(const stream *x)
{
    for (int64_t i = 1; i < x->n; i++) {
        if (x->s[i - 1] != x->s[i]) {
            if (x->s[i - 1] > x->s[i])
                return 0;
            continue;
        }
        if (x->e[i - 1] != x->e[i]) {
            if (x->e[i - 1] < x->e[i])
                return 0;       /* equal starts: the longer call first */
            continue;
        }
        if (x->t && x->t[i - 1] > x->t[i])
            return 0;
    }
    return 1;
}

/* A stream's head as the merge compares it, copied out of the stream's
 * arrays: a comparison then reads two small structs instead of following
 * up to six pointers (the merge's comparisons were a third of the call
 * stack's instructions). k, the stream, is its region's rank in region
 * order (collect_nested adds the streams in that order). */
typedef struct {
    int64_t key;        /* start, or begin_seq in the journal's order */
    int64_t end;        /* unused in the journal's order */
    int32_t lane;
    int32_t k;
} head;

static inline void head_load(const stream *x, int k, head *h)
{
    h->k = k;
    if (x->q) {
        h->key = x->q[x->i];
        h->end = 0;
        h->lane = 0;
        return;
    }
    h->key = x->s[x->i];
    h->end = x->e[x->i];
    h->lane = x->t ? x->t[x->i] : 0;
}

/* cmp_calls on the heads of two streams (regions differ, so no tie), or
 * begin_seq order alone when the streams have it (`ordered`). */
static inline int head_less(const head *a, const head *b, int ordered)
{
    if (ordered || a->key != b->key)
        return a->key < b->key;
    if (a->end != b->end)
        return a->end > b->end;
    if (a->lane != b->lane)
        return a->lane < b->lane;
    return a->k < b->k;
}

static inline int put_call(scope_call *calls, int64_t *n, int thread, const stream *x)
{
    int32_t lane = x->t ? x->t[x->i] : 0;
    if (thread != SCOPE_ALL_THREADS && lane != thread)
        return 0;
    scope_call *k = &calls[(*n)++];
    k->start_ns = x->s[x->i];
    k->end_ns = x->e[x->i];
    k->call_index = x->i;
    k->region = x->region;
    k->thread = lane;
    /* the recorded depth, checked against the nesting by nest_call() */
    k->depth = x->d ? (int32_t)(x->d[x->i] < 0 ? -1 : x->d[x->i] > INT32_MAX ? INT32_MAX
                                                                            : x->d[x->i])
                    : 0;
    k->reserved = 0;
    return 1;
}

/* The nesting pass's state: per lane the innermost open call (the open
 * calls of a lane form a chain through their parent links), and where to
 * count each call's children (NULL: nowhere). */
typedef struct {
    const scope_profile *p;
    int rank, ordered;
    scope_call *calls;
    int64_t *top;       /* maxlane + 1 */
    int64_t *kids_of;   /* kids_of[parent] += 1 per call, parent -1: roots */
} nester;

static int64_t parent_by_depth(const scope_profile *p, int rank, const scope_call *calls,
                               int64_t i, int64_t j);
static int overlap(const scope_profile *p, int rank, const scope_call *c, const scope_call *o);

/* Parent link, depth and self time of calls[i], every call before it
 * done: in the journal's order (each call's depth is the recorded one)
 * or in start order (containment). Called as each call is merged, while
 * its record and its parent's are still in cache (a pass of its own over
 * the records afterwards was a sixth of the call stack's time). */
static inline int nest_call(nester *ns, int64_t i)
{
    scope_call *calls = ns->calls, *c = &calls[i];
    int64_t j = ns->top[c->thread];
    if (ns->ordered) {
        j = parent_by_depth(ns->p, ns->rank, calls, i, j);
        if (j < -1)
            return (int)j;
    } else {
        while (j >= 0 && calls[j].end_ns <= c->start_ns)
            j = calls[j].parent;
        if (j >= 0 && c->end_ns > calls[j].end_ns)
            return overlap(ns->p, ns->rank, c, &calls[j]);
    }
    int64_t len = c->end_ns - c->start_ns;
    c->parent = j;
    c->depth = j >= 0 ? calls[j].depth + 1 : 0;
    c->self_ns = len;
    if (j >= 0)
        calls[j].self_ns -= len;
    if (ns->kids_of)
        ns->kids_of[j]++;
    ns->top[c->thread] = i;
    return 0;
}

static void sift_down(head *heap, int nheap, int at, int ordered)
{
    head v = heap[at];
    for (;;) {
        int c = 2 * at + 1;
        if (c >= nheap)
            break;
        if (c + 1 < nheap && head_less(&heap[c + 1], &heap[c], ordered))
            c++;
        if (!head_less(&heap[c], &v, ordered))
            break;
        heap[at] = heap[c];
        at = c;
    }
    heap[at] = v;
}

/* At most this many streams merge by a scan of their heads instead of a
 * heap (merge_scan) */
#define SCAN_STREAMS 8

/* merge_streams for at most SCAN_STREAMS streams: the least head found by
 * a scan, selected without branches, and that stream's calls taken while
 * they come before the next least head (a region's run). On the bench
 * profile (4 regions, a switch every 2.5 calls) the heap's sifts were a
 * sixth of a stack's time in perf, their branches taken either way. */
static int merge_scan(stream *st, int nst, int thread, scope_call *calls, int64_t *n,
                      nester *ns, int ordered)
{
    head h[SCAN_STREAMS];
    int nh = 0, rc = 0;
    for (int k = 0; k < nst; k++)
        if (st[k].n > 0)
            head_load(&st[k], k, &h[nh++]);
    while (nh > 1 && rc >= 0) {
        int b = 0, o;
        for (int i = 1; i < nh; i++)
            b = head_less(&h[i], &h[b], ordered) ? i : b;
        o = b == 0;
        for (int i = o + 1; i < nh; i++)
            o = i != b && head_less(&h[i], &h[o], ordered) ? i : o;
        stream *x = &st[h[b].k];
        for (;;) {
            if (put_call(calls, n, thread, x) && (rc = nest_call(ns, *n - 1)) < 0)
                break;
            if (++x->i == x->n) {
                h[b] = h[--nh];
                break;
            }
            head_load(x, h[b].k, &h[b]);
            if (!head_less(&h[b], &h[o], ordered))
                break;
        }
    }
    if (nh == 1)        /* the last stream: no more comparisons */
        for (stream *x = &st[h[0].k]; rc >= 0 && x->i < x->n; x->i++)
            if (put_call(calls, n, thread, x))
                rc = nest_call(ns, *n - 1);
    return rc;
}

/* Fills calls in cmp_calls order from streams that each are in that
 * order, nesting each call as it comes (ns): a k-way merge with a binary
 * heap, n log(regions) instead of qsort's n log n with an indirect
 * comparator. The streams all have a begin_seq or none has
 * (collect_nested). */
static int merge_streams(stream *st, int nst, int thread, scope_call *calls,
                         int64_t *n, nester *ns)
{
    int nheap = 0, ordered = nst > 0 && st[0].q != NULL, rc = 0;
    if (nst <= SCAN_STREAMS)
        return merge_scan(st, nst, thread, calls, n, ns, ordered);
    head *heap = malloc((size_t)(nst ? nst : 1) * sizeof *heap);
    if (!heap)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    for (int k = 0; k < nst; k++)
        if (st[k].n > 0)
            head_load(&st[k], k, &heap[nheap++]);
    for (int k = nheap / 2 - 1; k >= 0; k--)
        sift_down(heap, nheap, k, ordered);
    int least = -1;     /* the root's smaller child, -1: not known */
    while (nheap > 1) {
        stream *x = &st[heap[0].k];
        if (put_call(calls, n, thread, x) && (rc = nest_call(ns, *n - 1)) < 0)
            break;
        if (++x->i == x->n) {
            heap[0] = heap[--nheap];
        } else {
            head_load(x, heap[0].k, &heap[0]);
            /* a run: the stream still holds the least head, the heap
             * stays as it is (one comparison instead of a sift) */
            if (least < 0)
                least = nheap > 2 && head_less(&heap[2], &heap[1], ordered) ? 2 : 1;
            if (head_less(&heap[0], &heap[least], ordered))
                continue;
        }
        sift_down(heap, nheap, 0, ordered);
        least = -1;
    }
    if (nheap == 1)     /* the last stream: no more comparisons */
        for (stream *x = &st[heap[0].k]; rc >= 0 && x->i < x->n; x->i++)
            if (put_call(calls, n, thread, x))
                rc = nest_call(ns, *n - 1);
    free(heap);
    return rc;
}

/* The lanes of the calls on `thread` (or all) in *maxlane: thread ids
 * come from the file, and lanes index a small array, so a damaged column
 * must not make it huge, nor negative (SCOPE_EFORMAT). */
static int check_lanes(const scope_profile *p, int k, const stream *st, int nst, int thread,
                       int32_t *maxlane)
{
    int32_t lo = 0, hi = 0;
    for (int j = 0; j < nst; j++) {
        const int32_t *t = st[j].t;
        for (int64_t i = 0; t && i < st[j].n; i++) {
            if (thread != SCOPE_ALL_THREADS && t[i] != thread)
                continue;
            lo = t[i] < lo ? t[i] : lo;
            hi = t[i] > hi ? t[i] : hi;
        }
    }
    int rank = p->ranks[k].rank;
    if (hi > (1 << 20))
        return scope__fail(SCOPE_EFORMAT, "rank %d: thread id %d is out of range", rank,
                           (int)hi);
    if (lo < 0)
        return scope__fail(SCOPE_EFORMAT, "rank %d: negative thread id %d", rank, (int)lo);
    *maxlane = hi;
    return 0;
}

/* A nester for rank index k with every lane up to maxlane empty. */
static int nester_init(nester *ns, const scope_profile *p, int k, scope_call *calls,
                       int32_t maxlane, int ordered, int64_t *kids_of)
{
    *ns = (nester){ .p = p, .rank = p->ranks[k].rank, .ordered = ordered, .calls = calls,
                    .kids_of = kids_of };
    ns->top = malloc(((size_t)maxlane + 1) * sizeof *ns->top);
    if (!ns->top)
        return scope__fail(SCOPE_ENOMEM, "out of memory for %d thread lanes", maxlane + 1);
    for (int32_t l = 0; l <= maxlane; l++)
        ns->top[l] = -1;
    return 0;
}

/* Gathers the rank's calls on `thread` (or all) into calls[] and nests
 * them (parent, depth, self time; children counted in kids_of[parent]
 * unless NULL): in the journal's begin order when every region has it
 * (merged, EFORMAT when a region's order is damaged), else sorted by
 * cmp_calls: merged when every region's calls are in order already (files
 * written by scope are), else copied and sorted. */
static int collect_nested(scope_profile *p, int k, int thread, scope_call *calls,
                          int64_t *n, int64_t *kids_of, scratch *sc)
{
    stream *st = calloc((size_t)(p->nregions ? p->nregions : 1), sizeof *st);
    int nst = 0, rc = 0, sorted = 1, ordered = 1;
    int32_t maxlane = 0;
    nester ns = { .top = NULL };
    if (!st)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    for (int r = 0; r < p->nregions && rc >= 0; r++) {
        scope__cell *c = scope__cell_at(p, r, k);
        if (!c || c->n == 0)
            continue;
        rc = open_stream(p, c, r, &st[nst], sc);
        /* open_stream leaves what it loaded in st[nst] even on failure */
        nst++;
        if (rc >= 0 && ordered)
            rc = load_order(p, c, &st[nst - 1]);
        if (rc >= 0 && !st[nst - 1].q)
            ordered = 0;
        if (rc >= 0 && sorted)
            sorted = stream_sorted(&st[nst - 1]);
    }
    if (rc >= 0 && ordered) {
        for (int j = 0; j < nst && rc >= 0; j++)
            if (!order_sorted(&st[j]))
                rc = scope__fail(SCOPE_EFORMAT, "rank %d: begin_seq of \"%s\" does not "
                                 "increase; the call order is damaged",
                                 p->ranks[k].rank, p->regions[st[j].region].name);
    } else if (rc >= 0) {
        /* containment: a region's order, if any, is not used */
        for (int j = 0; j < nst; j++) {
            free(st[j].q);
            free(st[j].d);
            st[j].q = st[j].d = NULL;
        }
    }
    if (rc >= 0)
        rc = check_lanes(p, k, st, nst, thread, &maxlane);
    if (rc >= 0)
        rc = nester_init(&ns, p, k, calls, maxlane, ordered, kids_of);
    if (rc >= 0 && (ordered || sorted)) {
        rc = merge_streams(st, nst, thread, calls, n, &ns);
    } else if (rc >= 0) {
        for (int j = 0; j < nst; j++)
            for (st[j].i = 0; st[j].i < st[j].n; st[j].i++)
                put_call(calls, n, thread, &st[j]);
        if (*n > 1)
            qsort(calls, (size_t)*n, sizeof *calls, cmp_calls);
        for (int64_t i = 0; i < *n; i++)
            calls[i].depth = 0;
        for (int64_t i = 0; i < *n && rc >= 0; i++)
            rc = nest_call(&ns, i);
    }
    free(ns.top);
    free_streams(st, nst);
    return rc;
}

/* The EOVERLAP message naming call c and the open call o it escapes. */
static int overlap(const scope_profile *p, int rank, const scope_call *c, const scope_call *o)
{
    return scope__fail(SCOPE_EOVERLAP, "rank %d, thread %d: call %lld "
                       "of \"%s\" [%lld, %lld] starts inside call "
                       "%lld of \"%s\" [%lld, %lld] and ends after "
                       "it; nesting cannot be rebuilt", rank,
                       c->thread, (long long)c->call_index,
                       p->regions[c->region].name,
                       (long long)c->start_ns, (long long)c->end_ns,
                       (long long)o->call_index,
                       p->regions[o->region].name,
                       (long long)o->start_ns, (long long)o->end_ns);
}

/* The parent of calls[i] by its recorded depth (journal order): the open
 * call of its lane one level up. Returns the parent's index or -1, or
 * SCOPE_EFORMAT / SCOPE_EOVERLAP (as a value < -1) when the file's depth
 * or times contradict that nesting. */
static int64_t parent_by_depth(const scope_profile *p, int rank, const scope_call *calls,
                               int64_t i, int64_t j)
{
    const scope_call *c = &calls[i];
    while (j >= 0 && calls[j].depth >= c->depth)
        j = calls[j].parent;
    int32_t want = j >= 0 ? calls[j].depth + 1 : 0;
    if (c->depth != want)
        return scope__fail(SCOPE_EFORMAT, "rank %d, thread %d: call %lld of \"%s\" "
                           "has depth %d, but the calls open before it give depth %d; the call "
                           "order is damaged", rank, c->thread, (long long)c->call_index,
                           p->regions[c->region].name, (int)c->depth, (int)want);
    if (j >= 0 && (c->start_ns < calls[j].start_ns || c->end_ns > calls[j].end_ns))
        return overlap(p, rank, c, &calls[j]);
    return j;
}

/* Children lists as one array sliced per parent (a counting sort by
 * parent, stable, so each list is in index order). The nesting counted
 * the children: group g = parent + 1 (0 = roots) has its count in
 * kid_off[g + 2]; after the prefix sum [g + 1] is the start of group g,
 * used as its fill cursor, which leaves it at the end of group g = the
 * start of g + 1. */
static void link_children(scope_call_stack *cs)
{
    int64_t n = cs->n, *off = cs->kid_off, *kids = cs->kids;
    const scope_call *calls = cs->calls;
    for (int64_t g = 2; g < n + 3; g++)
        off[g] += off[g - 1];
    for (int64_t i = 0; i < n; i++)
        kids[off[calls[i].parent + 2]++] = i;
}

int scope_call_stack_compensate(scope_call_stack *cs, double inside_ns,
                                double caller_ns)
{
    if (!cs || !(inside_ns >= 0) || !(caller_ns >= 0))
        return scope__fail(SCOPE_EINVAL, "no call stack or a negative overhead");
    int64_t *desc = calloc((size_t)(cs->n ? cs->n : 1), sizeof *desc);
    if (!desc)
        return scope__fail(SCOPE_ENOMEM, "out of memory for %lld calls",
                           (long long)cs->n);
    /* a parent always comes before its children (sorted by start, the
     * longer call first on a tie), so one backward pass counts them */
    for (int64_t i = cs->n - 1; i >= 0; i--) {
        int64_t up = cs->calls[i].parent;
        if (up >= 0 && up < i)
            desc[up] += desc[i] + 1;
    }
    for (int64_t i = 0; i < cs->n; i++) {
        scope_call *c = &cs->calls[i];
        int64_t kids = cs->kid_off[i + 2] - cs->kid_off[i + 1];
        double d = (double)(c->end_ns - c->start_ns) - inside_ns -
                   (double)desc[i] * (inside_ns + caller_ns);
        double s = (double)c->self_ns - inside_ns - (double)kids * caller_ns;
        c->end_ns = c->start_ns + (d > 0 ? llround(d) : 0);
        c->self_ns = s > 0 ? llround(s) : 0;
    }
    free(desc);
    return 0;
}

/* An open call of the id pass below: a lane's open calls form a stack
 * through `under`; freed entries are reused, so the pool holds at most the
 * calls open at once (the nesting depth per lane), not one per call. */
typedef struct {
    int64_t end, id, under;
    int32_t depth;
} open_call;

typedef struct {
    open_call *pool;
    int64_t npool, cap, free_list;  /* free_list chains through `under` */
    int64_t *top;                   /* per lane: its innermost open call */
} lanes;

/* 1 when call (lane, start, end) was nested (its parent's id in *parent,
 * its depth in *depth, itself pushed as id), 0 when it escapes the open
 * call it starts in (the full path reports that), < 0 out of memory. */
static inline int nest_one(lanes *L, int32_t lane, int64_t start, int64_t end, int64_t id,
                           int64_t *parent, int32_t *depth)
{
    int64_t j = L->top[lane];
    while (j >= 0 && L->pool[j].end <= start) {
        int64_t up = L->pool[j].under;
        L->pool[j].under = L->free_list;
        L->free_list = j;
        j = up;
    }
    if (j >= 0 && end > L->pool[j].end)
        return 0;
    int64_t at = L->free_list;
    if (at >= 0) {
        L->free_list = L->pool[at].under;
    } else {
        open_call *more = scope__grow(L->pool, L->npool, &L->cap, sizeof *more, 64);
        if (!more)
            return scope__fail(SCOPE_ENOMEM, "out of memory");
        L->pool = more;
        at = L->npool++;
    }
    *parent = j >= 0 ? L->pool[j].id : -1;
    *depth = j >= 0 ? L->pool[j].depth + 1 : 0;
    L->pool[at] = (open_call){ .end = end, .id = id, .under = j, .depth = *depth };
    L->top[lane] = at;
    return 1;
}

/* The merge and nesting of scope__call_stack_fill for a rank in
 * containment order, writing each call's id, parent id and depth to its
 * row instead of a record (see scope__call_stack_ids). */
static int ids_merge(stream *st, int nst, int32_t maxlane, const int64_t *row0,
                     int64_t *call_id, int64_t *parent_id, int32_t *depth)
{
    lanes L = { .free_list = -1 };
    head *heap = malloc((size_t)(nst ? nst : 1) * sizeof *heap);
    L.top = malloc(((size_t)maxlane + 1) * sizeof *L.top);
    int nheap = 0, rc = 1, least = -1;   /* least: the root's smaller child */
    int64_t id = 0;
    if (!heap || !L.top) {
        free(heap);
        free(L.top);
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    }
    for (int32_t l = 0; l <= maxlane; l++)
        L.top[l] = -1;
    for (int k = 0; k < nst; k++)
        if (st[k].n > 0)
            head_load(&st[k], k, &heap[nheap++]);
    for (int k = nheap / 2 - 1; k >= 0; k--)
        sift_down(heap, nheap, k, 0);
    while (nheap > 0 && rc == 1) {
        stream *x = &st[heap[0].k];
        int64_t i = x->i, up = -1;
        int32_t d = 0;
        rc = nest_one(&L, heap[0].lane, heap[0].key, heap[0].end, id, &up, &d);
        int64_t r0 = row0[x->region];
        if (rc == 1 && r0 >= 0) {
            if (call_id)
                call_id[r0 + i] = id;
            if (parent_id)
                parent_id[r0 + i] = up;
            if (depth)
                depth[r0 + i] = d;
        }
        id++;
        if (++x->i == x->n) {
            heap[0] = heap[--nheap];
            sift_down(heap, nheap, 0, 0);
            least = -1;
            continue;
        }
        head_load(x, heap[0].k, &heap[0]);
        if (nheap == 1)
            continue;
        /* a run: while the same stream's next call still comes before the
         * root's smaller child, the heap stays as it is (one comparison,
         * not a sift: regions called in loops come in runs) */
        if (least < 0)
            least = nheap > 2 && head_less(&heap[2], &heap[1], 0) ? 2 : 1;
        if (head_less(&heap[0], &heap[least], 0))
            continue;
        sift_down(heap, nheap, 0, 0);
        least = -1;
    }
    free(heap);
    free(L.top);
    free(L.pool);
    return rc;
}

int scope__call_stack_ids(scope_profile *p, int k, const int64_t *row0, int64_t *call_id,
                          int64_t *parent_id, int32_t *depth, int64_t *s_buf,
                          int64_t *e_buf, scope__cells_fn each, void *ctx)
{
    stream *st = calloc((size_t)(p->nregions ? p->nregions : 1), sizeof *st);
    int nst = 0, rc = 1;
    int32_t maxlane = 0;
    int64_t used = 0;
    if (!st)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    for (int r = 0; r < p->nregions && rc == 1; r++) {
        scope__cell *c = scope__cell_at(p, r, k);
        if (!c || c->n == 0)
            continue;
        stream *x = &st[nst++];
        x->region = r;
        x->n = c->n;
        x->s = c->starts;
        x->e = c->ends;
        if (!x->s && call_id && parent_id && row0[r] >= 0) {
            /* into the id columns' own rows: the merge reads call i's
             * times before it writes call i's ids over them, and that
             * memory is touched anyway (no other fresh memory for them) */
            if ((rc = scope__cell_load_into(p, c, call_id + row0[r], parent_id + row0[r])) < 0)
                break;
            rc = 1;
            x->s = call_id + row0[r];
            x->e = parent_id + row0[r];
        } else if (!x->s) {
            /* loaded into the caller's buffers, reused rank after rank */
            if ((rc = scope__cell_load_into(p, c, s_buf + used, e_buf + used)) < 0)
                break;
            rc = 1;
            x->s = s_buf + used;
            x->e = e_buf + used;
            used += c->n;
        }
        x->t = c->tids;
        if (!c->tids_loaded) {
            int32_t *t;
            if ((rc = scope__cell_load_tids(p, c, &t)) < 0)
                break;
            rc = 1;
            x->t = t;
            x->own_tids = t != NULL;
        }
        for (int64_t i = 0; x->t && i < x->n; i++)
            maxlane = x->t[i] > maxlane ? x->t[i] : maxlane;
        /* the journal's order, or calls out of order: the full path */
        if ((rc = load_order(p, c, x)) < 0)
            break;
        rc = !x->q && stream_sorted(x) && maxlane <= (1 << 20);
    }
    scope_h5_quiet_end(&quiet);
    for (int j = 0; j < nst && rc == 1; j++) {
        int r = each(ctx, st[j].region, st[j].s, st[j].e, st[j].t, st[j].n);
        rc = r < 0 ? r : 1;
    }
    if (rc == 1)
        rc = ids_merge(st, nst, maxlane, row0, call_id, parent_id, depth);
    free_streams(st, nst);
    return rc;
}

/* scope__call_stack_fill, counting each call's children in
 * kids_of[parent] (kids_of[-1]: the roots) unless kids_of is NULL. */
static int fill_counted(scope_profile *p, int k, int thread, scope_call *calls, int64_t *n,
                        int64_t *kids_of, scratch *sc)
{
    *n = 0;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    int rc = collect_nested(p, k, thread, calls, n, kids_of, sc);
    scope_h5_quiet_end(&quiet);
    return rc;
}

int scope__call_stack_fill(scope_profile *p, int k, int thread, scope_call *calls,
                           int64_t *n)
{
    return fill_counted(p, k, thread, calls, n, NULL, NULL);
}

int scope_profile_call_stack(scope_profile *p, int rank, int thread,
                             scope_call_stack **out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *out = NULL;
    if (thread < SCOPE_ALL_THREADS)
        return scope__fail(SCOPE_EINVAL, "bad thread lane %d", thread);
    int k = scope__rank_index(p, rank);
    if (k < 0)
        return k;
    int64_t total = 0, load = 0;    /* load: calls whose times are read */
    for (int r = 0; r < p->nregions; r++) {
        scope__cell *c = scope__cell_at(p, r, k);
        total += c ? c->n : 0;
        load += c && !c->starts ? c->n : 0;
    }
    scope_call_stack *cs = calloc(1, sizeof *cs);
    if (!cs)
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    int rc = 0;
    int fresh = !take_spare(cs, total);
    if (fresh) {
        cs->room = total;
        cs->calls = scope__malloc_big((size_t)(total ? total : 1) * sizeof *cs->calls);
        cs->kid_off = scope__malloc_big(((size_t)total + 3) * sizeof *cs->kid_off);
        cs->kids = scope__malloc_big((size_t)(total ? total : 1) * sizeof *cs->kids);
    }
    if (!cs->calls || !cs->kid_off || !cs->kids) {
        rc = scope__fail(SCOPE_ENOMEM, "out of memory for %lld calls",
                         (long long)total);
        goto fail_stack;
    }
    /* the children are counted while nesting: kid_off zeroed up front */
    memset(cs->kid_off, 0, ((size_t)total + 3) * sizeof *cs->kid_off);
    /* the records' and children's fresh pages zeroed beside the fill
     * (a third of the time in perf when the fill faulted them itself) */
    scope__prefault pf = { .rows = fresh ? total : 0 };
    scope__prefault_add(&pf, cs->calls, sizeof *cs->calls);
    scope__prefault_add(&pf, cs->kids, sizeof *cs->kids);
    scope__prefault_start(&pf);
    scratch sc = { .s = NULL };
    if (take_times(&sc, load))
        rc = fill_counted(p, k, thread, cs->calls, &cs->n, cs->kid_off + 3, &sc);
    else
        rc = fill_counted(p, k, thread, cs->calls, &cs->n, cs->kid_off + 3, NULL);
    keep_times(&sc);
    scope__prefault_join(&pf);
    if (rc < 0)
        goto fail_stack;
    link_children(cs);
    *out = cs;
    return 0;
fail_stack:
    scope_call_stack_free(cs);
    return rc;
}
