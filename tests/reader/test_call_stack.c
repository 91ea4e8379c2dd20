/*
 * test_call_stack.c - scope_profile_call_stack() on nested.h5 and
 * overlap.h5 (make_profiles.py, section 7 and 8): the exact order, parent,
 * depth, self time and children of every call, per thread lane and for all
 * lanes, a sibling that starts exactly when its neighbour ends, a rank
 * without thread ids, and the EOVERLAP error with its message; ties.h5
 * (section 9): equal starts, equal ends, zero-length calls and a child
 * equal to its parent nest as the stored journal order says, a damaged
 * depth is EFORMAT, and without the order on every region containment
 * applies.
 *
 * usage: test_call_stack PROFILE_DIR
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scope_reader.h"

static scope_profile *open_in(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    scope_profile *p = NULL;
    int rc = scope_profile_open(path, &p);
    CHECK_I64(rc, 0);
    if (rc < 0)
        fprintf(stderr, "%s\n", scope_reader_errmsg());
    return p;
}

typedef struct {
    const char *region;
    int thread;
    int64_t start, end, self, call_index, parent;
    int depth;
} want_call;

static void check_stack(scope_profile *p, int rank, int thread,
                        const want_call *w, int64_t n)
{
    scope_call_stack *cs = NULL;
    int rc = scope_profile_call_stack(p, rank, thread, &cs);
    CHECK_I64(rc, 0);
    if (rc < 0) {
        fprintf(stderr, "%s\n", scope_reader_errmsg());
        return;
    }
    CHECK_I64(scope_call_stack_count(cs), n);
    const scope_call *c = scope_call_stack_calls(cs);
    for (int64_t i = 0; i < n && i < scope_call_stack_count(cs); i++) {
        CHECK_STR(scope_profile_region_name(p, c[i].region), w[i].region);
        CHECK_I64(c[i].thread, w[i].thread);
        CHECK_I64(c[i].start_ns, 1000 + w[i].start);
        CHECK_I64(c[i].end_ns, 1000 + w[i].end);
        CHECK_I64(c[i].self_ns, w[i].self);
        CHECK_I64(c[i].call_index, w[i].call_index);
        CHECK_I64(c[i].parent, w[i].parent);
        CHECK_I64(c[i].depth, w[i].depth);
    }
    scope_call_stack_free(cs);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROFILE_DIR\n", argv[0]);
        return 2;
    }
    scope_profile *p = open_in(argv[1], "nested.h5");
    if (!p)
        return check_result("test_call_stack");

    /* All lanes of rank 0: sorted by start, the longer call first on a tie
     * (main t0 before main t1, work t0 [10,40] before leaf t1 [10,20]). */
    static const want_call all[] = {
        { "main", 0, 0, 100, 55, 0, -1, 0 },
        { "main", 1, 0, 90, 45, 1, -1, 0 },
        { "work", 1, 5, 50, 35, 0, 1, 1 },
        { "work", 0, 10, 40, 20, 1, 0, 1 },
        { "leaf", 1, 10, 20, 10, 0, 2, 2 },
        { "leaf", 0, 20, 30, 10, 1, 3, 2 },
        { "leaf", 0, 40, 45, 5, 2, 0, 1 },
        { "work", 0, 60, 70, 10, 2, 0, 1 },
    };
    check_stack(p, 0, SCOPE_ALL_THREADS, all, 8);

    scope_call_stack *cs = NULL;
    CHECK_I64(scope_profile_call_stack(p, 0, SCOPE_ALL_THREADS, &cs), 0);
    const int64_t *kids;
    int64_t nk;
    CHECK_I64(scope_call_stack_children(cs, -1, &kids, &nk), 0);
    CHECK_I64(nk, 2);
    if (nk == 2) {
        CHECK_I64(kids[0], 0);
        CHECK_I64(kids[1], 1);
    }
    CHECK_I64(scope_call_stack_children(cs, 0, &kids, &nk), 0);
    CHECK_I64(nk, 3);
    if (nk == 3) {
        CHECK_I64(kids[0], 3);
        CHECK_I64(kids[1], 6);
        CHECK_I64(kids[2], 7);
    }
    CHECK_I64(scope_call_stack_children(cs, 2, &kids, &nk), 0);
    CHECK_I64(nk, 1);
    CHECK_I64(nk ? kids[0] : -1, 4);
    CHECK_I64(scope_call_stack_children(cs, 7, &kids, &nk), 0);
    CHECK_I64(nk, 0);
    CHECK_I64(scope_call_stack_children(cs, 8, &kids, &nk), SCOPE_ENOTFOUND);
    CHECK_I64(scope_call_stack_children(cs, -2, &kids, &nk), SCOPE_ENOTFOUND);
    scope_call_stack_free(cs);

    /* One lane at a time: indices are within the lane's own list. */
    static const want_call t0[] = {
        { "main", 0, 0, 100, 55, 0, -1, 0 },
        { "work", 0, 10, 40, 20, 1, 0, 1 },
        { "leaf", 0, 20, 30, 10, 1, 1, 2 },
        { "leaf", 0, 40, 45, 5, 2, 0, 1 },
        { "work", 0, 60, 70, 10, 2, 0, 1 },
    };
    check_stack(p, 0, 0, t0, 5);
    static const want_call t1[] = {
        { "main", 1, 0, 90, 45, 1, -1, 0 },
        { "work", 1, 5, 50, 35, 0, 0, 1 },
        { "leaf", 1, 10, 20, 10, 0, 1, 2 },
    };
    check_stack(p, 0, 1, t1, 3);
    check_stack(p, 0, 7, NULL, 0);     /* a lane with no calls: empty */

    /* Rank 1 has no thread_ids: everything is lane 0. */
    static const want_call r1[] = {
        { "main", 0, 0, 50, 40, 0, -1, 0 },
        { "work", 0, 10, 20, 10, 0, 0, 1 },
    };
    check_stack(p, 1, SCOPE_ALL_THREADS, r1, 2);
    check_stack(p, 1, 0, r1, 2);

    CHECK_I64(scope_profile_call_stack(p, 5, SCOPE_ALL_THREADS, &cs),
              SCOPE_ENOTFOUND);
    CHECK_STR(scope_reader_errmsg(), "no rank 5 in this profile");
    CHECK_I64(scope_profile_call_stack(p, 0, -2, &cs), SCOPE_EINVAL);
    scope_profile_close(p);

    p = open_in(argv[1], "overlap.h5");
    if (p) {
        cs = (scope_call_stack *)1;
        CHECK_I64(scope_profile_call_stack(p, 0, SCOPE_ALL_THREADS, &cs),
                  SCOPE_EOVERLAP);
        CHECK(cs == NULL);
        CHECK_STR(scope_reader_errmsg(), "rank 0, thread 0: call 0 of \"b\" "
                  "[5, 15] starts inside call 0 of \"a\" [0, 10] and ends "
                  "after it; nesting cannot be rebuilt");
        scope_profile_close(p);
    }

    /* ties.h5 (make_profiles.py, section 9): the journal's order decides
     * wherever times tie. Rank 0, all lanes, in begin_seq order. */
    p = open_in(argv[1], "ties.h5");
    if (p) {
        static const want_call ties[] = {
            { "P", 0, 0, 10, 0, 0, -1, 0 },  { "C", 0, 0, 10, 10, 0, 0, 1 },
            { "R", 1, 0, 10, 10, 0, -1, 0 }, { "S", 1, 0, 0, 0, 0, 2, 1 },
            { "S", 1, 0, 0, 0, 1, 2, 1 },    { "Z", 0, 10, 10, 0, 0, -1, 0 },
            { "Q", 0, 10, 20, 10, 0, -1, 0 }, { "S", 1, 10, 10, 0, 2, 2, 1 },
            { "Y", 0, 20, 20, 0, 0, 6, 1 },  { "X", 0, 20, 20, 0, 0, -1, 0 },
            { "W", 0, 20, 20, 0, 0, 9, 1 },
        };
        check_stack(p, 0, SCOPE_ALL_THREADS, ties, 11);
        /* lane 1 alone: R with its three S children, in order */
        static const want_call lane1[] = {
            { "R", 1, 0, 10, 10, 0, -1, 0 }, { "S", 1, 0, 0, 0, 0, 0, 1 },
            { "S", 1, 0, 0, 0, 1, 0, 1 },    { "S", 1, 10, 10, 0, 2, 0, 1 },
        };
        check_stack(p, 0, 1, lane1, 4);
        CHECK_I64(scope_profile_call_stack(p, 0, SCOPE_ALL_THREADS, &cs), 0);
        const int64_t *k2;
        int64_t n2 = -1;
        CHECK_I64(scope_call_stack_children(cs, -1, &k2, &n2), 0);
        CHECK_I64(n2, 5);   /* P, R, Z, Q, X */
        CHECK_I64(scope_call_stack_children(cs, 2, &k2, &n2), 0);
        CHECK_I64(n2, 3);
        if (n2 == 3) {
            CHECK_I64(k2[0], 3);
            CHECK_I64(k2[1], 4);
            CHECK_I64(k2[2], 7);
        }
        scope_call_stack_free(cs);
        scope_profile_close(p);
    }
    p = open_in(argv[1], "ties_bad_depth.h5");
    if (p) {
        CHECK_I64(scope_profile_call_stack(p, 0, SCOPE_ALL_THREADS, &cs), SCOPE_EFORMAT);
        CHECK_STR(scope_reader_errmsg(), "rank 0, thread 0: call 0 of \"W\" has depth 2, "
                  "but the calls open before it give depth 1; the call order is damaged");
        scope_profile_close(p);
    }
    /* one region without the order: containment for the whole rank, which
     * makes the zero-length W a sibling of X (the documented fallback) */
    p = open_in(argv[1], "ties_one_order.h5");
    if (p) {
        CHECK_I64(scope_profile_call_stack(p, 0, 0, &cs), 0);
        const scope_call *c = scope_call_stack_calls(cs);
        int64_t n = scope_call_stack_count(cs);
        CHECK_I64(n, 7);
        for (int64_t i = 0; i < n; i++)
            if (strcmp(scope_profile_region_name(p, c[i].region), "W") == 0)
                CHECK_I64(c[i].depth, 0);
        scope_call_stack_free(cs);
        scope_profile_close(p);
    }
    return check_result("test_call_stack");
}
