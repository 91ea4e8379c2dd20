/*
 * test_events.c - scope_profile_events_open()/read() and region selection
 * on nested.h5 (make_profiles.py, section 7): order (region, then rank,
 * then call), every field of every event, the three time modes, include /
 * exclude / rank filters, reading in small batches, thread ids, call ids
 * from the call stack, and the errors (bad regex, unknown rank, overlap).
 *
 * usage: test_events PROFILE_DIR
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scope_reader.h"

/* Reads every event of the query, in batches of `batch`. */
static int64_t read_all(scope_profile *p, const scope_event_query *q,
                        int64_t batch, scope_event *out, int64_t cap, int *rc)
{
    scope_events *it = NULL;
    *rc = scope_profile_events_open(p, q, &it);
    if (*rc < 0)
        return 0;
    int64_t n = 0, got;
    while (n < cap &&
           (got = scope_events_read(it, out + n,
                                    batch < cap - n ? batch : cap - n)) > 0)
        n += got;
    CHECK_I64(n, scope_events_count(it));
    CHECK_I64(scope_events_read(it, out, 1), 0);   /* stays at the end */
    scope_events_close(it);
    return n;
}

typedef struct {
    const char *region;
    int rank, thread;
    int64_t start, end, call_index, call_id, parent_id;
} want_event;

/* Region order main, work, leaf (first starts 0, 5, 10); times relative
 * to the run start (BASE); call ids as in test_call_stack.c. */
static const want_event all_events[] = {
    { "main", 0, 0, 0, 100, 0, 0, -1 },
    { "main", 0, 1, 0, 90, 1, 1, -1 },
    { "main", 1, 0, 0, 50, 0, 0, -1 },
    { "work", 0, 1, 5, 50, 0, 2, 1 },
    { "work", 0, 0, 10, 40, 1, 3, 0 },
    { "work", 0, 0, 60, 70, 2, 7, 0 },
    { "work", 1, 0, 10, 20, 0, 1, 0 },
    { "leaf", 0, 1, 10, 20, 0, 4, 2 },
    { "leaf", 0, 0, 20, 30, 1, 5, 3 },
    { "leaf", 0, 0, 40, 45, 2, 6, 0 },
};

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
        return check_result("test_events");
    }
    scope_event ev[32];
    scope_event_query q;

    /* Everything, with call ids, read 3 at a time (batches cross cells). */
    memset(&q, 0, sizeof q);
    q.call_ids = 1;
    int64_t n = read_all(p, &q, 3, ev, 32, &rc);
    CHECK_I64(rc, 0);
    CHECK_I64(n, 10);
    for (int64_t i = 0; i < n && i < 10; i++) {
        const want_event *w = &all_events[i];
        CHECK_STR(scope_profile_region_name(p, ev[i].region), w->region);
        CHECK_I64(ev[i].rank, w->rank);
        CHECK_I64(ev[i].thread, w->thread);
        CHECK_I64(ev[i].start_ns, w->start);
        CHECK_I64(ev[i].end_ns, w->end);
        CHECK_I64(ev[i].call_index, w->call_index);
        CHECK_I64(ev[i].call_id, w->call_id);
        CHECK_I64(ev[i].parent_id, w->parent_id);
    }

    /* Without call ids: -1; absolute times. */
    q.call_ids = 0;
    q.time_mode = SCOPE_TIME_ABSOLUTE;
    n = read_all(p, &q, 100, ev, 32, &rc);
    CHECK_I64(n, 10);
    CHECK_I64(ev[3].start_ns, 1005);
    CHECK_I64(ev[3].call_id, -1);
    CHECK_I64(ev[3].parent_id, -1);

    /* Any origin. */
    q.time_mode = SCOPE_TIME_ORIGIN;
    q.origin_ns = 1005;
    n = read_all(p, &q, 100, ev, 32, &rc);
    CHECK_I64(ev[0].start_ns, -5);
    CHECK_I64(ev[3].start_ns, 0);
    CHECK_I64(ev[9].end_ns, 40);
    q.time_mode = 9;
    read_all(p, &q, 100, ev, 32, &rc);
    CHECK_I64(rc, SCOPE_EINVAL);
    CHECK_STR(scope_reader_errmsg(), "unknown time mode 9");

    /* include / exclude / ranks. */
    const char *inc[] = { "^w", "f$" }, *exc[] = { "ea" };
    memset(&q, 0, sizeof q);
    q.include = inc;
    q.ninclude = 2;
    n = read_all(p, &q, 100, ev, 32, &rc);
    CHECK_I64(n, 7);     /* work (4) + leaf (3) */
    q.exclude = exc;
    q.nexclude = 1;
    n = read_all(p, &q, 100, ev, 32, &rc);
    CHECK_I64(n, 4);     /* work only */
    int32_t ranks[] = { 1, 1 };
    q.ranks = ranks;
    q.nranks = 2;        /* repeats count once */
    n = read_all(p, &q, 100, ev, 32, &rc);
    CHECK_I64(n, 1);
    CHECK_I64(ev[0].rank, 1);
    CHECK_I64(ev[0].start_ns, 10);
    ranks[1] = 4;
    read_all(p, &q, 100, ev, 32, &rc);
    CHECK_I64(rc, SCOPE_ENOTFOUND);
    CHECK_STR(scope_reader_errmsg(), "no rank 4 in this profile");
    const char *bad[] = { "(" };
    memset(&q, 0, sizeof q);
    q.exclude = bad;
    q.nexclude = 1;
    read_all(p, &q, 100, ev, 32, &rc);
    CHECK_I64(rc, SCOPE_EINVAL);
    CHECK(strncmp(scope_reader_errmsg(), "bad regular expression \"(\": ",
                  28) == 0);

    /* Region selection on its own. */
    int sel[3];
    CHECK_I64(scope_profile_select_regions(p, NULL, 0, NULL, 0, sel), 3);
    CHECK_I64(sel[2], 2);
    const char *ma[] = { "a" };
    CHECK_I64(scope_profile_select_regions(p, ma, 1, NULL, 0, sel), 2);
    CHECK_I64(sel[0], 0);       /* main */
    CHECK_I64(sel[1], 2);       /* leaf */
    const char *whole[] = { "^leaf$", "^nothing$" };
    CHECK_I64(scope_profile_select_regions(p, whole, 2, NULL, 0, sel), 1);
    CHECK_I64(scope_profile_select_regions(p, NULL, 0, ma, 1, sel), 1);
    CHECK_I64(sel[0], 1);       /* work */

    /* Thread ids of a cell, and of a rank that has none. */
    const int32_t *tids;
    CHECK_I64(scope_profile_thread_ids(p, 1, 0, &tids, &n), 0);
    CHECK_I64(n, 3);
    CHECK(tids != NULL);
    if (tids && n == 3) {
        CHECK_I64(tids[0], 1);
        CHECK_I64(tids[1], 0);
        CHECK_I64(tids[2], 0);
    }
    CHECK_I64(scope_profile_thread_ids(p, 1, 1, &tids, &n), 0);
    CHECK_I64(n, 1);
    CHECK(tids == NULL);
    CHECK_I64(scope_profile_thread_ids(p, 2, 1, &tids, &n), 0);
    CHECK_I64(n, 0);            /* rank 1 never entered leaf */
    CHECK_I64(scope_profile_thread_ids(p, 3, 0, &tids, &n), SCOPE_ENOTFOUND);
    scope_profile_close(p);

    /* Call ids need nesting: a partial overlap is an error at open. */
    snprintf(path, sizeof path, "%s/overlap.h5", argv[1]);
    if (scope_profile_open(path, &p) == 0) {
        memset(&q, 0, sizeof q);
        n = read_all(p, &q, 100, ev, 32, &rc);
        CHECK_I64(n, 2);        /* fine without call ids */
        CHECK_I64(ev[1].start_ns, 5);   /* no run start: first entry */
        q.call_ids = 1;
        read_all(p, &q, 100, ev, 32, &rc);
        CHECK_I64(rc, SCOPE_EOVERLAP);
        scope_profile_close(p);
    }
    return check_result("test_events");
}
