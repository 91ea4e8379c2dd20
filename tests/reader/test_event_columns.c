/*
 * test_event_columns.c - scope_profile_event_columns() on nested.h5
 * (make_profiles.py, section 7: two ranks, two threads on rank 0): every
 * column equals the field scope_events_read() gives for the same query,
 * with the call stack columns and without (the two ways of filling), with
 * include / rank filters and a time window; depth as the call stack's;
 * taking a column out and freeing it; scope_call_stack_columns() against
 * the stack's records; ties.h5 and ties_one_order.h5 (the journal's
 * order: the whole call stack's path); the errors (bad bits, an inverted
 * window, an unknown rank, call ids on overlap.h5) leave the output empty.
 * Run under valgrind too (tests/reader/meson.build).
 *
 * usage: test_event_columns PROFILE_DIR
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scope_reader.h"

#define ALL ((uint32_t)(SCOPE_COL_SITE << 1) - 1u)
#define PLAIN (ALL & ~(uint32_t)(SCOPE_COL_CALL_ID | SCOPE_COL_PARENT_ID | SCOPE_COL_DEPTH))

/* The events of q by the iterator, with call ids when `ids`. */
static int64_t per_call(scope_profile *p, scope_event_query q, int ids, scope_event *ev,
                        int64_t cap)
{
    scope_events *it;
    q.call_ids = ids;
    q.call_sites = 1;
    CHECK_I64(scope_profile_events_open(p, &q, &it), 0);
    int64_t n = scope_events_read(it, ev, cap);
    scope_events_close(it);
    return n;
}

/* Columns of q (and window w) against the iterator's events kept by w. */
static void same(scope_profile *p, const scope_event_query *q, const scope_time_window *w,
                 uint32_t cols)
{
    scope_event ev[32];
    int ids = (cols & SCOPE_COL_CALL_ID) != 0;
    int64_t n = per_call(p, *q, ids, ev, 32), k = 0;
    scope_event_columns c;
    CHECK_I64(scope_profile_event_columns(p, q, w, cols, &c), 0);
    for (int64_t i = 0; i < n; i++) {
        const scope_event *e = &ev[i];
        if (w && (e->end_ns < w->from_ns || e->start_ns > w->to_ns))
            continue;
        CHECK(k < c.n);
        if (k >= c.n)
            break;
        CHECK_I64(c.region[k], e->region);
        CHECK_I64(c.rank[k], e->rank);
        CHECK_I64(c.thread[k], e->thread);
        CHECK_I64(c.site[k], e->site);
        CHECK_I64(c.start_ns[k], e->start_ns);
        CHECK_I64(c.end_ns[k], e->end_ns);
        CHECK_I64(c.duration_ns[k], e->end_ns - e->start_ns);
        CHECK_I64(c.call_index[k], e->call_index);
        CHECK_DBL(c.start_s[k], (double)e->start_ns / 1e9, 0);
        CHECK_DBL(c.end_s[k], (double)e->end_ns / 1e9, 0);
        CHECK_DBL(c.duration_s[k], (double)(e->end_ns - e->start_ns) / 1e9, 0);
        if (ids) {
            CHECK_I64(c.call_id[k], e->call_id);
            CHECK_I64(c.parent_id[k], e->parent_id);
        } else {
            CHECK(!c.call_id && !c.parent_id && !c.depth);
        }
        k++;
    }
    CHECK_I64(c.n, k);
    scope_event_columns_free(&c);
    CHECK(!c.start_ns && c.n == 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROFILE_DIR\n", argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/nested.h5", argv[1]);
    scope_profile *p = NULL;
    int rc = scope_profile_open(path, &p);
    CHECK_I64(rc, 0);
    if (rc < 0) {
        fprintf(stderr, "%s\n", scope_reader_errmsg());
        return check_result("test_event_columns");
    }
    scope_event_query q;
    memset(&q, 0, sizeof q);
    const scope_time_window mid = { 12, 45 }, none = { 1000, 2000 };
    for (int k = 0; k < 2; k++) {
        uint32_t cols = k ? PLAIN : ALL;
        memset(&q, 0, sizeof q);
        same(p, &q, NULL, cols);
        same(p, &q, &mid, cols);
        same(p, &q, &none, cols);
        q.time_mode = SCOPE_TIME_ABSOLUTE;
        same(p, &q, NULL, cols);
        /* seconds from an origin after the calls (negative times) and
         * one 2^52 ns before them (past the exact two-at-once conversion,
         * so converted one by one): the same doubles either way */
        q.time_mode = SCOPE_TIME_ORIGIN;
        q.origin_ns = 1100;
        same(p, &q, NULL, cols);
        q.origin_ns = -((int64_t)1 << 52);
        same(p, &q, NULL, cols);
        q.origin_ns = 0;
        const char *inc[] = { "^(work|leaf)$" };
        const int32_t one[] = { 1, 1 };
        q.include = inc;
        q.ninclude = 1;
        same(p, &q, NULL, cols);
        q.ranks = one;
        q.nranks = 2;
        q.time_mode = SCOPE_TIME_RELATIVE;
        same(p, &q, &mid, cols);
    }

    /* depth is the call stack's depth of the call with that call id */
    scope_event_columns c;
    CHECK_I64(scope_profile_event_columns(p, NULL, NULL, SCOPE_COL_RANK |
                                          SCOPE_COL_CALL_ID | SCOPE_COL_DEPTH, &c), 0);
    CHECK_I64(c.n, 10);
    for (int64_t i = 0; i < c.n; i++) {
        scope_call_stack *cs;
        CHECK_I64(scope_profile_call_stack(p, c.rank[i], SCOPE_ALL_THREADS, &cs), 0);
        CHECK_I64(c.depth[i], scope_call_stack_calls(cs)[c.call_id[i]].depth);
        scope_call_stack_free(cs);
    }
    /* a column taken out is the caller's: freed apart, not twice */
    int32_t *depth = c.depth;
    c.depth = NULL;
    scope_event_columns_free(&c);
    CHECK_I64(depth[0], 0);
    scope_reader_free(depth);
    scope_reader_free(NULL);
    scope_event_columns_free(NULL);

    /* a call stack's columns: its records, row for row, shifted */
    scope_call_stack *cs;
    CHECK_I64(scope_profile_call_stack(p, 0, SCOPE_ALL_THREADS, &cs), 0);
    const uint32_t stack_cols = (ALL | SCOPE_COL_SELF_NS | SCOPE_COL_SELF_S) &
                                ~(uint32_t)(SCOPE_COL_RANK | SCOPE_COL_SITE);
    CHECK_I64(scope_call_stack_columns(cs, 7, stack_cols, &c), 0);
    CHECK_I64(c.n, scope_call_stack_count(cs));
    const scope_call *calls = scope_call_stack_calls(cs);
    for (int64_t i = 0; i < c.n; i++) {
        const scope_call *k = &calls[i];
        CHECK_I64(c.region[i], k->region);
        CHECK_I64(c.thread[i], k->thread);
        CHECK_I64(c.depth[i], k->depth);
        CHECK_I64(c.call_index[i], k->call_index);
        CHECK_I64(c.call_id[i], i);
        CHECK_I64(c.parent_id[i], k->parent);
        CHECK_I64(c.start_ns[i], k->start_ns - 7);
        CHECK_I64(c.end_ns[i], k->end_ns - 7);
        CHECK_I64(c.duration_ns[i], k->end_ns - k->start_ns);
        CHECK_I64(c.self_ns[i], k->self_ns);
        CHECK_DBL(c.start_s[i], (double)(k->start_ns - 7) / 1e9, 0);
        CHECK_DBL(c.self_s[i], (double)k->self_ns / 1e9, 0);
        CHECK_DBL(c.duration_s[i], (double)(k->end_ns - k->start_ns) / 1e9, 0);
    }
    scope_event_columns_free(&c);
    CHECK_I64(scope_call_stack_columns(cs, 0, SCOPE_COL_RANK, &c), SCOPE_EINVAL);
    CHECK_I64(scope_call_stack_columns(cs, 0, SCOPE_COL_SITE, &c), SCOPE_EINVAL);
    CHECK(c.n == 0 && !c.region);
    CHECK_I64(scope_call_stack_columns(NULL, 0, SCOPE_COL_REGION, &c), SCOPE_EINVAL);
    scope_call_stack_free(cs);
    /* and the self columns are not event columns */
    CHECK_I64(scope_profile_event_columns(p, NULL, NULL, SCOPE_COL_SELF_NS, &c),
              SCOPE_EINVAL);

    /* errors: nothing to free afterwards */
    const scope_time_window inverted = { 10, 5 };
    const int32_t bad_rank[] = { 7 };
    memset(&q, 0, sizeof q);
    CHECK_I64(scope_profile_event_columns(p, &q, NULL, ALL << 1, &c), SCOPE_EINVAL);
    CHECK(c.n == 0 && !c.region);
    CHECK_I64(scope_profile_event_columns(p, &q, &inverted, ALL, &c), SCOPE_EINVAL);
    q.ranks = bad_rank;
    q.nranks = 1;
    CHECK_I64(scope_profile_event_columns(p, &q, NULL, ALL, &c), SCOPE_ENOTFOUND);
    CHECK(c.n == 0 && !c.start_ns);
    CHECK_I64(scope_profile_event_columns(NULL, &q, NULL, ALL, &c), SCOPE_EINVAL);
    CHECK_I64(scope_profile_event_columns(p, &q, NULL, ALL, NULL), SCOPE_EINVAL);
    scope_profile_close(p);

    /* the journal's order (ties.h5), and regions of which only some carry
     * it (ties_one_order.h5): the ranks the lean call id pass hands to the
     * whole call stack give the same columns */
    const char *tied[] = { "ties.h5", "ties_one_order.h5" };
    const scope_time_window early = { 0, 10 };
    for (int f = 0; f < 2; f++) {
        snprintf(path, sizeof path, "%s/%s", argv[1], tied[f]);
        CHECK_I64(scope_profile_open(path, &p), 0);
        memset(&q, 0, sizeof q);
        same(p, &q, NULL, ALL);
        same(p, &q, &early, ALL);
        const char *some[] = { "^(S|W|Q)$" };
        q.include = some;
        q.ninclude = 1;
        same(p, &q, NULL, ALL);
        scope_profile_close(p);
    }

    snprintf(path, sizeof path, "%s/overlap.h5", argv[1]);
    CHECK_I64(scope_profile_open(path, &p), 0);
    CHECK_I64(scope_profile_event_columns(p, NULL, NULL, ALL, &c), SCOPE_EOVERLAP);
    CHECK(c.n == 0 && !c.call_id);
    CHECK_I64(scope_profile_event_columns(p, NULL, NULL, PLAIN, &c), 0);
    CHECK_I64(c.n, 2);
    scope_event_columns_free(&c);
    scope_profile_close(p);
    return check_result("test_event_columns");
}
