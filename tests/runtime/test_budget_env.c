/*
 * test_budget_env.c - SCOPE_MEMORY_BUDGET as the recorder itself reads it
 * (a program linked with libscope.so, no preload, no config layer): the
 * same byte-count grammar as the config (base/size_parse.c), and a bad
 * value ignored with one message naming it.
 *
 * The budget is observed through its effect: with 256 KiB (four 64 KiB
 * chunks, one kept for metadata) and 8 threads recording at once, exactly
 * 3 threads get a chunk and the 5 others' 2,000 events each are dropped;
 * with the 64 MiB default every thread gets one and nothing is dropped.
 *   valid     "256KiB" and "256k" in the variable win over the program's
 *             64 MiB: 3 threads record, stderr stays empty;
 *   bad       "256X", "256MB" (not K/M/G/T or KiB/MiB/GiB/TiB), "0",
 *             "99999999999999999999" (too large): ignored, the program's
 *             256 KiB is used (3 threads record), and stderr holds exactly
 *             one line: "scope: SCOPE_MEMORY_BUDGET='<value>' ignored
 *             (<why>); using 262144 bytes";
 *   default   a bad value and no budget from the program: the 64 MiB
 *             default, all 8 threads record, the line says 67108864.
 * Each case runs in a child process with stderr sent to a file.
 *
 * usage: test_budget_env OUTDIR
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "scope.h"
#include "scope_reader.h"

#define THREADS 8
#define CALLS 1000

static char out[4096], err_path[4096];
static int32_t region;
static pthread_barrier_t bar;

static void *thread_main(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar); /* all threads record at the same time */
    for (int i = 0; i < CALLS; i++) {
        scope_begin(region);
        scope_end(region);
    }
    pthread_barrier_wait(&bar); /* and none exits (freeing its chunk) early */
    return NULL;
}

/* Records with budget `program_budget` (0: none) under SCOPE_MEMORY_BUDGET
 * = `env` in a child whose stderr goes to err_path. Returns its status. */
static int run_child(const char *env, uint64_t program_budget)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 2) < 0)
            _exit(9);
        setenv("SCOPE_MEMORY_BUDGET", env, 1);
        scope_options o = { .output = out, .memory_budget = program_budget };
        if (scope_init(&o) != 0)
            _exit(3);
        region = scope_region("r");
        pthread_t th[THREADS];
        pthread_barrier_init(&bar, NULL, THREADS);
        for (int i = 0; i < THREADS; i++)
            pthread_create(&th[i], NULL, thread_main, NULL);
        for (int i = 0; i < THREADS; i++)
            pthread_join(th[i], NULL);
        _exit(scope_finalize() == 0 ? 0 : 4);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void read_stderr(char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(err_path, "r");
    if (!f)
        return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = 0;
    fclose(f);
}

/* One case: `threads_recording` of the 8 got a chunk, and stderr is
 * exactly `want_err`. */
static void check_case(const char *dir, const char *tag, const char *env,
                       uint64_t program_budget, int threads_recording, const char *want_err)
{
    snprintf(out, sizeof out, "%s/%s.h5", dir, tag);
    snprintf(err_path, sizeof err_path, "%s/%s.stderr", dir, tag);
    fprintf(stderr, "case %s: SCOPE_MEMORY_BUDGET='%s'\n", tag, env);
    CHECK_I64(run_child(env, program_budget), 0);
    char got_err[1024];
    read_stderr(got_err, sizeof got_err);
    CHECK_STR(got_err, want_err);
    scope_profile *p = NULL;
    CHECK_I64(scope_profile_open(out, &p), 0);
    if (!p)
        return;
    int64_t dropped = -1;
    CHECK_I64(scope_profile_rank_attr_int(p, 0, "dropped_events", &dropped), 0);
    /* every begin and end is one event: kept calls * 2 + dropped = all */
    CHECK_I64(scope_profile_calls(p, scope_profile_region_index(p, "r"), 0),
              threads_recording * CALLS);
    CHECK_I64(dropped, (THREADS - threads_recording) * 2 * CALLS);
    scope_profile_close(p);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    const char *dir = argv[1];
    const uint64_t small = 256 << 10, big = 64ull << 20;

    check_case(dir, "kib", "256KiB", big, 3, "");
    check_case(dir, "k", "256k", big, 3, "");

    /* the settings table's one message grammar (base/settings.c) */
    check_case(dir, "suffix", "256X", small, 3,
               "scope: SCOPE_MEMORY_BUDGET: bad number '256X'; using 262144 bytes\n");
    check_case(dir, "mb", "256MB", small, 3,
               "scope: SCOPE_MEMORY_BUDGET: bad number '256MB'; using 262144 bytes\n");
    check_case(dir, "zero", "0", small, 3,
               "scope: SCOPE_MEMORY_BUDGET: must be greater than 0, not '0'; using "
               "262144 bytes\n");
    check_case(dir, "huge", "99999999999999999999", small, 3,
               "scope: SCOPE_MEMORY_BUDGET: number too large '99999999999999999999'; using "
               "262144 bytes\n");

    check_case(dir, "default", "lots", 0, THREADS,
               "scope: SCOPE_MEMORY_BUDGET: bad number 'lots'; using 67108864 bytes\n");
    return check_result("test_budget_env");
}
