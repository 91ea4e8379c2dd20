/*
 * test_lifecycle.c - the recorder's life around the program's:
 *   atexit   a program that never calls scope_finalize() still gets its file
 *            at normal exit;
 *   fork     a fork child never writes into the parent's journal (its
 *            events are not in the parent's file) and writes no file;
 *   budget   with the smallest budget (256 KiB: four 64 KiB chunks, one
 *            kept for metadata) and 8 threads recording at once, exactly 3
 *            threads get a chunk; the 5 others' events are counted in
 *            dropped_events and the rest arrive;
 *   nothing  a process that recorded nothing writes nothing;
 *   clobber  a file at the output path that is not a scope profile is
 *            never replaced: finalize fails with a message, the file is
 *            unchanged and the profile stays under its temporary name.
 * Each case runs in a child process of this program so exit paths are real.
 *
 * usage: test_lifecycle OUTDIR
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "scope.h"
#include "scope_reader.h"

static char out[4096];

static int run_child(void (*fn)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        fn();
        exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void child_atexit(void)
{
    scope_options o = { .output = out };
    scope_init(&o);
    int32_t id = scope_region("work");
    for (int i = 0; i < 3; i++) {
        scope_begin(id);
        scope_end(id);
    }
    /* no scope_finalize: exit() must write the file */
}

static void child_fork(void)
{
    scope_options o = { .output = out };
    scope_init(&o);
    int32_t parent = scope_region("parent"), child = scope_region("child");
    scope_begin(parent);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 100000; i++) { /* enough to need new chunks */
            scope_begin(child);
            scope_end(child);
        }
        CHECK_I64(scope_finalize(), 0); /* a no-op in the child */
        _exit(check_failures ? 1 : 0);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        exit(3);
    scope_end(parent);
    scope_finalize();
}

#define BUDGET_THREADS 8
static int32_t budget_id;
static pthread_barrier_t bar;
static void *budget_thread(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar); /* all threads record at the same time */
    for (int i = 0; i < 1000; i++) {
        scope_begin(budget_id);
        scope_end(budget_id);
    }
    pthread_barrier_wait(&bar); /* and none exits (freeing its chunk) early */
    return NULL;
}

static void child_budget(void)
{
    scope_options o = { .output = out, .memory_budget = 256 << 10 };
    scope_init(&o);
    budget_id = scope_region("b");
    pthread_t th[BUDGET_THREADS];
    pthread_barrier_init(&bar, NULL, BUDGET_THREADS);
    for (int i = 0; i < BUDGET_THREADS; i++)
        pthread_create(&th[i], NULL, budget_thread, NULL);
    for (int i = 0; i < BUDGET_THREADS; i++)
        pthread_join(th[i], NULL);
    if (scope_finalize() != 0)
        exit(4);
}

static void child_nothing(void)
{
    scope_options o = { .output = out };
    scope_init(&o);
    scope_region("never_called");
}

static void child_clobber(void)
{
    scope_options o = { .output = out };
    scope_init(&o);
    int32_t id = scope_region("x");
    scope_begin(id);
    scope_end(id);
    exit(scope_finalize() == SCOPE_EIO ? 0 : 5);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int64_t rank_attr_dropped(const char *path)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import h5py; print(h5py.File('%s')['rank0'].attrs['dropped_events'])\"",
             path);
    FILE *f = popen(cmd, "r");
    long long v = -1;
    if (f) {
        if (fscanf(f, "%lld", &v) != 1)
            v = -1;
        pclose(f);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    const char *dir = argv[1];
    scope_profile *p;

    snprintf(out, sizeof out, "%s/atexit.h5", dir);
    CHECK_I64(run_child(child_atexit), 0);
    p = NULL;
    CHECK_I64(scope_profile_open(out, &p), 0);
    if (p) {
        CHECK_I64(scope_profile_calls(p, scope_profile_region_index(p, "work"), 0), 3);
        scope_profile_close(p);
    }

    snprintf(out, sizeof out, "%s/fork.h5", dir);
    CHECK_I64(run_child(child_fork), 0);
    p = NULL;
    CHECK_I64(scope_profile_open(out, &p), 0);
    if (p) {
        CHECK_I64(scope_profile_region_count(p), 1);
        CHECK_I64(scope_profile_calls(p, scope_profile_region_index(p, "parent"), 0), 1);
        CHECK_I64(scope_profile_region_index(p, "child") < 0, 1);
        scope_profile_close(p);
    }

    snprintf(out, sizeof out, "%s/budget.h5", dir);
    CHECK_I64(run_child(child_budget), 0);
    p = NULL;
    CHECK_I64(scope_profile_open(out, &p), 0);
    if (p) {
        int64_t got = scope_profile_calls(p, scope_profile_region_index(p, "b"), 0);
        int64_t dropped = rank_attr_dropped(out);
        /* every begin and end is one event: kept calls * 2 + dropped = all */
        CHECK_I64(got, 3 * 1000);
        CHECK_I64(dropped, (BUDGET_THREADS - 3) * 2000);
        scope_profile_close(p);
    }

    snprintf(out, sizeof out, "%s/nothing.h5", dir);
    CHECK_I64(run_child(child_nothing), 0);
    CHECK_I64(exists(out), 0);
    char ranks[4200];
    snprintf(ranks, sizeof ranks, "%s/nothing.ranks", dir);
    CHECK_I64(exists(ranks), 0);
    snprintf(out, sizeof out, "%s/precious.h5", dir);
    FILE *f = fopen(out, "w");
    fputs("my thesis\n", f);
    fclose(f);
    CHECK_I64(run_child(child_clobber), 0);
    char buf[64] = { 0 };
    f = fopen(out, "r");
    CHECK(f && fgets(buf, sizeof buf, f));
    if (f)
        fclose(f);
    CHECK_STR(buf, "my thesis\n");
    snprintf(ranks, sizeof ranks, "%s/precious.ranks/rank0.h5", dir);
    CHECK_I64(exists(ranks), 1); /* the rank file itself was written */
    return check_result("test_lifecycle");
}
