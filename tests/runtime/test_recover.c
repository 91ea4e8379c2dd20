/*
 * test_recover.c - `scope recover` after processes die.
 *
 *   killed   a process records one open "outer" call containing 50,000
 *            "inner" calls (several journal chunks), then SIGKILLs itself:
 *            recover gives exactly 50,000 inner calls and the outer call
 *            closed at the last recorded time, complete = 0,
 *            unterminated_calls = 1, every inner call nested in the outer
 *            one (also on a coarse clock), the outer call's end marked
 *            unwound (h5py and scope_profile_unwound), and writes the index;
 *   busy     the journal of a process that is still running is refused
 *            (exit 1, "still in use") and left alone; once that process
 *            is killed, recover takes it;
 *   twice    a second recover finds nothing and changes nothing;
 *   again    a second run into the same folder crashes too: its journal is
 *            recovered beside the first run's rank0.h5 (rank0.pid<P>.h5),
 *            never over it.
 *
 * usage: test_recover SCOPE_EXE OUTDIR
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "scope.h"
#include "scope_reader.h"

static const char *scope_exe;

/* Runs `scope recover ARG` and returns its exit status; its output goes
 * to `log`. */
static int recover(const char *arg, const char *log)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' recover '%s' >'%s' 2>&1", scope_exe, arg, log);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int file_has(const char *path, const char *text)
{
    char buf[8192] = { 0 };
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, text) != NULL;
}

static int64_t h5_attr(const char *file, const char *attr)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import h5py; print(int(h5py.File('%s')['rank0'].attrs['%s']))\"",
             file, attr);
    FILE *f = popen(cmd, "r");
    long long v = -999;
    if (f) {
        if (fscanf(f, "%lld", &v) != 1)
            v = -999;
        pclose(f);
    }
    return v;
}

static void record_and_die(const char *out, int pipe_fd)
{
    scope_options o = { .output = out };
    scope_init(&o);
    int32_t outer = scope_region("outer"), inner = scope_region("inner");
    scope_begin(outer);
    for (int i = 0; i < 50000; i++) {
        scope_begin(inner);
        scope_end(inner);
    }
    if (pipe_fd >= 0) { /* stay alive until the parent closes the pipe */
        char c;
        while (read(pipe_fd, &c, 1) > 0)
            ;
    }
    kill(getpid(), SIGKILL);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    scope_exe = argv[1];
    const char *dir = argv[2];
    char out[4096], ranks[4200], log[4200], rank0[4300];
    snprintf(out, sizeof out, "%s/crash.h5", dir);
    snprintf(ranks, sizeof ranks, "%s/crash.ranks", dir);
    snprintf(log, sizeof log, "%s/recover.log", dir);
    snprintf(rank0, sizeof rank0, "%s/rank0.h5", ranks);

    /* busy: a live process's journal is refused */
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[1]);
        record_and_die(out, fds[0]);
        _exit(0);
    }
    close(fds[0]);
    /* wait until the child's journal exists and holds its events */
    struct stat st;
    for (int i = 0; i < 500 && (stat(ranks, &st) != 0); i++)
        usleep(10000);
    usleep(200000);
    CHECK_I64(recover(out, log), 1);
    CHECK(file_has(log, "still in use by a running process"));
    CHECK(stat(rank0, &st) != 0);

    /* killed: once it is dead, recover converts its journal */
    close(fds[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CHECK_I64(recover(out, log), 0);
    CHECK(file_has(log, "-> "));
    scope_profile *p = NULL;
    CHECK_I64(scope_profile_open(out, &p), 0); /* through the index it wrote */
    if (p) {
        int in = scope_profile_region_index(p, "inner"), ou = scope_profile_region_index(p, "outer");
        CHECK_I64(scope_profile_calls(p, in, 0), 50000);
        CHECK_I64(scope_profile_calls(p, ou, 0), 1);
        const int64_t *is, *ie, *os, *oe;
        int64_t ni = 0, no = 0;
        CHECK_I64(scope_profile_times(p, in, 0, &is, &ie, &ni), 0);
        CHECK_I64(scope_profile_times(p, ou, 0, &os, &oe, &no), 0);
        if (ni == 50000 && no == 1) {
            CHECK(os[0] <= is[0]);
            CHECK_I64(oe[0], ie[ni - 1]); /* closed at the last recorded time */
        }
        /* every inner call is inside the outer one, also the last, which
         * ends (on a coarse clock: begins, too) when outer is closed */
        scope_call_stack *cs = NULL;
        CHECK_I64(scope_profile_call_stack(p, 0, SCOPE_ALL_THREADS, &cs), 0);
        int64_t inside = 0, roots = 0;
        for (int64_t i = 0; i < scope_call_stack_count(cs); i++) {
            const scope_call *c = &scope_call_stack_calls(cs)[i];
            roots += c->parent < 0;
            inside += c->region == in && c->parent >= 0 &&
                      scope_call_stack_calls(cs)[c->parent].region == ou;
        }
        CHECK_I64(inside, 50000);
        CHECK_I64(roots, 1);
        scope_call_stack_free(cs);
        /* the reader gives the `unwound` flags: the closed outer call is
         * marked, and inner, whose calls all returned, has none */
        const int8_t *uw = NULL;
        int64_t nu = -1;
        CHECK_I64(scope_profile_unwound(p, ou, 0, &uw, &nu), 0);
        CHECK_I64(nu, 1);
        CHECK(uw != NULL && uw[0] == 1);
        CHECK_I64(scope_profile_unwound(p, in, 0, &uw, &nu), 0);
        CHECK(uw == NULL);
        CHECK_I64(nu, 50000);
        CHECK_I64(scope_profile_unwound(p, ou, 7, &uw, &nu), SCOPE_ENOTFOUND);
        CHECK_I64(scope_profile_unwound(p, -1, 0, &uw, &nu), SCOPE_ENOTFOUND);
        CHECK_I64(scope_profile_unwound(p, ou, 0, NULL, &nu), SCOPE_EINVAL);
        scope_profile_close(p);
    }
    CHECK_I64(h5_attr(rank0, "complete"), 0);
    CHECK_I64(h5_attr(rank0, "unterminated_calls"), 1);
    /* the closed call is marked in the region's `unwound` column; the
     * region without such calls has no column */
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import h5py; r=h5py.File('%s')['rank0/regions'];"
             "print(list(r['outer/unwound'][:]), 'unwound' in r['inner'])\"", rank0);
    FILE *py = popen(cmd, "r");
    char line[256] = "";
    if (py) {
        if (!fgets(line, sizeof line, py))
            line[0] = 0;
        pclose(py);
    }
    CHECK_STR(line, "[1] False\n");

    /* twice: nothing left to do, nothing changed */
    struct stat before, after;
    stat(rank0, &before);
    CHECK_I64(recover(out, log), 0);
    CHECK(file_has(log, "nothing to recover"));
    stat(rank0, &after);
    CHECK(before.st_mtime == after.st_mtime && before.st_size == after.st_size);

    pid = fork();
    if (pid == 0) {
        record_and_die(out, -1);
        _exit(0);
    }
    waitpid(pid, &status, 0);
    CHECK_I64(recover(out, log), 0);
    char beside[4400];
    snprintf(beside, sizeof beside, "%s/rank0.pid%ld.h5", ranks, (long)pid);
    CHECK(stat(beside, &st) == 0);
    stat(rank0, &after);
    CHECK(before.st_mtime == after.st_mtime && before.st_size == after.st_size);
    return check_result("test_recover");
}
