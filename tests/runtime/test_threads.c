/*
 * test_threads.c - 8 threads x 1,000,000 begin/end pairs each, recorded at
 * once: every event must reach the file (8,000,000), each thread's calls
 * nested as recorded. Each thread makes 500,000 "outer" calls that each
 * contain one "inner" call. The per-thread nesting is checked by
 * check_threads.py from the thread_ids column; this program checks the
 * counts through the reader.
 *
 * usage: test_threads OUTDIR
 */
#include <pthread.h>
#include <stdio.h>

#include "check.h"
#include "scope.h"
#include "scope_reader.h"

#define THREADS 8
#define OUTER 500000

static int32_t outer, inner;

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < OUTER; i++) {
        scope_begin(outer);
        scope_begin(inner);
        scope_end(inner);
        scope_end(outer);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char out[4096];
    snprintf(out, sizeof out, "%s/threads.h5", argv[1]);
    scope_options o = { .output = out };
    CHECK_I64(scope_init(&o), 0);
    outer = scope_region("outer");
    inner = scope_region("inner");
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
        return check_result("test_threads");
    scope_stats so, si;
    CHECK_I64(scope_profile_stats(p, scope_profile_region_index(p, "outer"), 0, &so), 0);
    CHECK_I64(scope_profile_stats(p, scope_profile_region_index(p, "inner"), 0, &si), 0);
    CHECK_I64(so.calls + si.calls, 2 * THREADS * OUTER / 1 / 1 * 1 / 1); /* 8,000,000 */
    CHECK_I64(so.calls, THREADS * OUTER);
    CHECK_I64(si.calls, THREADS * OUTER);
    CHECK(si.min_ns >= 0 && so.min_ns >= si.min_ns);
    scope_profile_close(p);
    return check_result("test_threads");
}
