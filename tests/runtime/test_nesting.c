/*
 * test_nesting.c - the nesting a program recorded comes back from the
 * call stack exactly, however many of its events share a timestamp.
 *
 * Two threads each repeat, ROUNDS times:
 *
 *   A { B {} C { D {} } }  E {}  F { G {} }  H { H { H {} } }
 *
 * B and D record nothing inside them (completed in place in the journal),
 * G is F's only content (a child equal to its parent on a coarse clock),
 * H recurses. On a fine clock few of these times tie; meson runs this test
 * again with SCOPE_CLOCK_ROUND_NS at 1 us, 10 us and 1 ms, where most do
 * (zero-length calls, a child starting and ending with its parent,
 * siblings at one instant). Every call's region, parent, depth and
 * children must be the recorded ones, and the counts exact.
 *
 * usage: test_nesting OUTDIR
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scope.h"
#include "scope_reader.h"

#define THREADS 2
#define ROUNDS 20000

enum { A, B, C, D, E, F, G, H, NREG };
static const char *const names[NREG] = { "A", "B", "C", "D", "E", "F", "G", "H" };
static int32_t id[NREG];

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        scope_begin(id[A]);
        scope_begin(id[B]);
        scope_end(id[B]);
        scope_begin(id[C]);
        scope_begin(id[D]);
        scope_end(id[D]);
        scope_end(id[C]);
        scope_end(id[A]);
        scope_begin(id[E]);
        scope_end(id[E]);
        scope_begin(id[F]);
        scope_begin(id[G]);
        scope_end(id[G]);
        scope_end(id[F]);
        for (int k = 0; k < 3; k++)
            scope_begin(id[H]);
        for (int k = 0; k < 3; k++)
            scope_end(id[H]);
    }
    return NULL;
}

/* The expected parent region of each region's calls (-1: a root), and
 * the children's regions in order. H's parent is H except at depth 0. */
static const int parent_of[NREG] = { -1, A, A, C, -1, -1, F, -1 };

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char out[4096];
    snprintf(out, sizeof out, "%s/nesting.h5", argv[1]);
    scope_options o = { .output = out };
    CHECK_I64(scope_init(&o), 0);
    for (int r = 0; r < NREG; r++)
        id[r] = scope_region(names[r]);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, work, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    CHECK_I64(scope_dropped_events(), 0);
    CHECK_I64(scope_finalize(), 0);

    scope_profile *p = NULL;
    CHECK_I64(scope_profile_open(out, &p), 0);
    if (!p)
        return check_result("test_nesting");
    int map[NREG];  /* reader region index -> our enum */
    int rev[64];
    memset(rev, -1, sizeof rev);
    for (int r = 0; r < NREG; r++) {
        map[r] = scope_profile_region_index(p, names[r]);
        CHECK(map[r] >= 0 && map[r] < 64);
        if (map[r] >= 0 && map[r] < 64)
            rev[map[r]] = r;
        scope_stats st;
        CHECK_I64(scope_profile_stats(p, map[r], 0, &st), 0);
        CHECK_I64(st.calls, (r == H ? 3 : 1) * THREADS * ROUNDS);
    }

    scope_call_stack *cs = NULL;
    int rc = scope_profile_call_stack(p, 0, SCOPE_ALL_THREADS, &cs);
    CHECK_I64(rc, 0);
    if (rc < 0) {
        fprintf(stderr, "%s\n", scope_reader_errmsg());
        scope_profile_close(p);
        return check_result("test_nesting");
    }
    const scope_call *calls = scope_call_stack_calls(cs);
    int64_t n = scope_call_stack_count(cs), bad = 0, roots = 0;
    CHECK_I64(n, 10LL * THREADS * ROUNDS);
    for (int64_t i = 0; i < n && bad < 10; i++) {
        const scope_call *c = &calls[i];
        int r = rev[c->region];
        int pr = c->parent >= 0 ? rev[calls[c->parent].region] : -1;
        int want_parent = r == H ? (c->depth > 0 ? H : -1) : parent_of[r];
        int want_depth = r == D ? 2 : r == H ? c->depth : want_parent >= 0 ? 1 : 0;
        if (r == H && (c->depth > 2 || (c->depth > 0 && calls[c->parent].depth != c->depth - 1)))
            want_depth = -1;
        const int64_t *kids;
        int64_t nk = -1;
        scope_call_stack_children(cs, i, &kids, &nk);
        /* children's regions, in order */
        char got[8] = "", want[8] = "";
        for (int64_t k = 0; k < nk && k < 7; k++)
            got[k] = names[rev[calls[kids[k]].region]][0];
        strcpy(want, r == A ? "BC" : r == C ? "D" : r == F ? "G" : r == H && c->depth < 2 ? "H" : "");
        if (pr != want_parent || c->depth != want_depth || strcmp(got, want) != 0 ||
            (c->parent >= 0 && calls[c->parent].thread != c->thread)) {
            fprintf(stderr, "call %lld (%s #%lld, thread %d, [%lld, %lld]): parent %s, depth %d, "
                    "children \"%s\"; expected parent %s, depth %d, children \"%s\"\n",
                    (long long)i, names[r], (long long)c->call_index, c->thread,
                    (long long)c->start_ns, (long long)c->end_ns,
                    pr >= 0 ? names[pr] : "none", c->depth, got,
                    want_parent >= 0 ? names[want_parent] : "none", want_depth, want);
            bad++;
        }
        roots += c->parent < 0;
    }
    CHECK_I64(bad, 0);
    CHECK_I64(roots, 4LL * THREADS * ROUNDS);
    scope_call_stack_free(cs);
    scope_profile_close(p);
    return check_result("test_nesting");
}
