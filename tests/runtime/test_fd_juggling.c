/*
 * test_fd_juggling.c - a program's own descriptor juggling never breaks
 * recording nor lets the recorder write into the program's files (issue
 * 46, "Reliability"). Mid-run the program closes every descriptor from 3
 * up (close_range), opens files that take the low numbers, puts one of
 * its files at the very number the journal had (dup2) and writes its own
 * bytes there, then closes from 3 up again (closefrom) and opens again;
 * meanwhile it records enough calls for the journal to write dozens of
 * full chunks. Then: every call is in the profile (exact count), each of
 * the program's files holds exactly the bytes it wrote, and the journal
 * is gone after the clean finalize.
 *
 * usage: test_fd_juggling OUTDIR
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "scope.h"
#include "scope_reader.h"

#define CALLS_PER_PHASE 100000

/* The descriptor whose target's name starts with "journal.", or -1. */
static int journal_fd(void)
{
    DIR *d = opendir("/proc/self/fd");
    int found = -1;
    for (struct dirent *e; d && (e = readdir(d));) {
        char link[300], target[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = 0;
        const char *base = strrchr(target, '/');
        if (base && strncmp(base + 1, "journal.", 8) == 0)
            found = atoi(e->d_name);
    }
    if (d)
        closedir(d);
    return found;
}

static void record(int32_t id, int n)
{
    for (int i = 0; i < n; i++) {
        scope_begin(id);
        scope_end(id);
    }
}

/* Writes `len` bytes of `c` to fd, all of them. */
static void fill(int fd, char c, size_t len)
{
    char buf[4096];
    memset(buf, c, sizeof buf);
    while (len) {
        size_t k = len < sizeof buf ? len : sizeof buf;
        ssize_t w = write(fd, buf, k);
        CHECK(w > 0);
        if (w <= 0)
            return;
        len -= (size_t)w;
    }
}

/* The file holds exactly `len` bytes, all `c`. */
static void holds(const char *path, char c, size_t len)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    size_t n = 0, bad = 0;
    for (int ch; (ch = fgetc(f)) != EOF; n++)
        bad += ch != (unsigned char)c;
    fclose(f);
    if (n != len || bad)
        fprintf(stderr, "%s: %zu bytes, %zu not '%c' (want %zu)\n", path, n, bad, c, len);
    CHECK_I64((int64_t)n, (int64_t)len);
    CHECK_I64((int64_t)bad, 0);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char out[4096], path[4200];
    snprintf(out, sizeof out, "%s/juggle.h5", argv[1]);
    scope_options o = { .output = out };
    CHECK_I64(scope_init(&o), 0);
    int32_t id = scope_region("work");
    record(id, CALLS_PER_PHASE);
    int j = journal_fd();
    CHECK(j >= 3);

    /* every descriptor from 3 up, the journal's included */
    CHECK_I64(close_range(3, ~0U, 0), 0);
    CHECK_I64(journal_fd(), -1);
    snprintf(path, sizeof path, "%s/a.dat", argv[1]);
    int a = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK_I64(a, 3);
    fill(a, 'a', 100000);
    record(id, CALLS_PER_PHASE);            /* the journal reopened, not a.dat */
    fill(a, 'a', 100000);
    /* the program's file at the journal's first number */
    snprintf(path, sizeof path, "%s/b.dat", argv[1]);
    int b = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(b >= 0);
    int jb = journal_fd();
    CHECK(jb >= 3);
    CHECK_I64(dup2(b, jb), jb);             /* the journal's new number too */
    fill(jb, 'b', 50000);
    record(id, CALLS_PER_PHASE);
    fill(b, 'b', 50000);
    close(jb);
    closefrom(3);
    snprintf(path, sizeof path, "%s/c.dat", argv[1]);
    int c = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK_I64(c, 3);
    record(id, CALLS_PER_PHASE);
    fill(c, 'c', 70000);
    close(c);
    CHECK_I64(scope_finalize(), 0);

    snprintf(path, sizeof path, "%s/a.dat", argv[1]);
    holds(path, 'a', 200000);
    snprintf(path, sizeof path, "%s/b.dat", argv[1]);
    holds(path, 'b', 100000);
    snprintf(path, sizeof path, "%s/c.dat", argv[1]);
    holds(path, 'c', 70000);
    scope_profile *p;
    CHECK_I64(scope_profile_open(out, &p), 0);
    if (p) {
        int r = scope_profile_region_index(p, "work");
        CHECK(r >= 0);
        CHECK_I64(scope_profile_calls(p, r, 0), 4 * CALLS_PER_PHASE);
        int64_t dropped = -1;
        CHECK_I64(scope_profile_rank_attr_int(p, 0, "dropped_events", &dropped), 0);
        CHECK_I64(dropped, 0);
        scope_profile_close(p);
    }
    /* the clean finalize removed the journal */
    char ranks[4200];
    snprintf(ranks, sizeof ranks, "%s/juggle.ranks", argv[1]);
    DIR *d = opendir(ranks);
    int journals = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        journals += strncmp(e->d_name, "journal.", 8) == 0;
    if (d)
        closedir(d);
    CHECK_I64(journals, 0);
    return check_result("test_fd_juggling");
}
