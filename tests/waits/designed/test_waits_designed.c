/*
 * test_waits_designed.c - the wait-state analysis (scope_reader_waits.h)
 * on profiles designed by hand (make_waits_profiles.py: every message,
 * call and wait is in its table), checked to the nanosecond: the
 * patterns, the rank waited for, the clock bound between two hosts, the
 * unmatched ends, damaged input, and the same results when the matching
 * goes through temporary files; regions a config renamed read by the
 * call their file says they are (renamed.h5), in the analysis and the
 * matrices; the waits' time in the waited-for rank's I/O (io.h5). Needs no MPI run, so it runs in the
 * sanitizer builds and under valgrind, where the MPI tests cannot.
 *
 *   test_waits_designed PROFILE_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"
#include "scope_reader_waits.h"

static const char *dir;

static scope_profile *open_one(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    scope_profile *p = NULL;
    int rc = scope_profile_open(path, &p);
    CHECK_INT(rc, 0);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", path, scope_reader_errmsg());
        exit(1);
    }
    return p;
}

static int region(scope_profile *p, const char *name)
{
    for (int r = 0; r < scope_profile_region_count(p); r++)
        if (strcmp(scope_profile_region_name(p, r), name) == 0)
            return r;
    return -1;
}

struct want_call {
    int rank;
    const char *region;
    int pattern, waited_for;
    int64_t wait, bound;
};

/* Every waiting call is one of `want` and every one of `want` is there
 * (each region's call #0 or #1 as the table says: the regions here have
 * their waiting call at index `call`). */
static void check_calls(scope_profile *p, const scope_waits *w, const struct want_call *want,
                        int n, const int64_t *call)
{
    const scope_wait_call *c;
    int64_t got = scope_waits_calls(w, &c);
    CHECK_I64(got, n);
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int64_t k = 0; k < got; k++)
            if (c[k].rank == want[i].rank && c[k].region == region(p, want[i].region) &&
                c[k].call == call[i]) {
                found = 1;
                CHECK_INT(c[k].pattern, want[i].pattern);
                CHECK_INT(c[k].waited_for, want[i].waited_for);
                CHECK_I64(c[k].wait_ns, want[i].wait);
                CHECK_I64(c[k].bound_ns, want[i].bound);
            }
        if (!found)
            fprintf(stderr, "no waiting call: rank %d %s #%lld\n", want[i].rank, want[i].region,
                    (long long)call[i]);
        CHECK(found);
    }
    /* sorted by (rank, region, call) */
    for (int64_t k = 1; k < got; k++)
        CHECK(c[k - 1].rank < c[k].rank ||
              (c[k - 1].rank == c[k].rank && (c[k - 1].region < c[k].region ||
                                              (c[k - 1].region == c[k].region &&
                                               c[k - 1].call < c[k].call))));
}

enum { LS = SCOPE_WAIT_LATE_SENDER, LR = SCOPE_WAIT_LATE_RECEIVER,
       BAR = SCOPE_WAIT_AT_BARRIER, BC = SCOPE_WAIT_LATE_BROADCAST,
       RED = SCOPE_WAIT_EARLY_REDUCE };

static const struct want_call designed_calls[] = {
    { 0, "MPI_Recv", LS, 1, 150, 0 },      { 0, "MPI_Recv", LS, 2, 20, 0 },
    { 0, "MPI_Wait", LS, 3, 50, 0 },       { 0, "MPI_Barrier", BAR, 3, 90, 0 },
    { 0, "MPI_Reduce", RED, 2, 250, 0 },   { 1, "MPI_Ssend", LR, 2, 150, 0 },
    { 1, "MPI_Barrier", BAR, 3, 40, 0 },   { 1, "MPI_Bcast", BC, 0, 100, 0 },
    { 2, "MPI_Barrier", BAR, 3, 10, 0 },   { 2, "MPI_Sendrecv", LS, 1, 50, 0 },
};
static const int64_t designed_call_ix[] = { 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 };

struct want_msg {
    int sender, receiver, tag;
    int64_t bytes, wait;
    int pattern;
};

static const struct want_msg designed_msgs[] = {
    { 1, 0, 5, 8, 150, LS }, { 2, 0, 9, 8, 20, LS }, { 3, 0, 1, 4, 50, LS },
    { 1, 2, 3, 8, 150, LR }, { 1, 2, 4, 4, 50, LS }, { 2, 1, 4, 4, 0, -1 },
};

static void check_msgs(const scope_waits *w, const struct want_msg *want, int n)
{
    const scope_message *m;
    int64_t got = scope_waits_messages(w, &m);
    CHECK_I64(got, n);
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int64_t k = 0; k < got; k++)
            if (m[k].sender == want[i].sender && m[k].receiver == want[i].receiver &&
                m[k].tag == want[i].tag) {
                found++;
                CHECK_I64(m[k].bytes, want[i].bytes);
                CHECK_I64(m[k].wait_ns, want[i].wait);
                CHECK_INT(m[k].pattern, want[i].pattern);
                CHECK_STR(scope_waits_comm_name(w, m[k].comm), "MPI_COMM_WORLD");
            }
        CHECK_INT(found, 1);
    }
}

static void check_unmatched(const scope_waits *w, int recvs_from_1)
{
    const scope_unmatched *u;
    int64_t n = scope_waits_unmatched(w, &u);
    CHECK_I64(n, 2);
    int sends = 0, recvs = 0;
    for (int64_t i = 0; i < n; i++) {
        if (u[i].is_send) {
            sends++;
            CHECK(u[i].rank == 3 && u[i].peer == 1 && u[i].count == 1);
        } else {
            recvs++;
            CHECK(u[i].rank == 0 && u[i].peer == 1 && u[i].count == recvs_from_1);
        }
    }
    CHECK(sends == 1 && recvs == 1);
}

/* The totals of designed.h5 and their pattern split. */
static void check_designed_totals(const scope_waits *w)
{
    scope_waits_totals t;
    scope_waits_totals_get(w, &t);
    CHECK_I64(t.messages, 6);
    CHECK_I64(t.unmatched_sends, 1);
    CHECK_I64(t.unmatched_receives, 1);
    CHECK_I64(t.collective_instances, 3);
    CHECK_I64(t.incomplete_collectives, 0);
    CHECK_I64(t.unanalysed_calls, 0);
    CHECK_INT(t.comms, 1);
    CHECK_I64(t.mpi_ns, 1860);
    CHECK_I64(t.waiting_total_ns, 910);
    CHECK_I64(t.max_bound_ns, 0);
    const int64_t inst[SCOPE_WAIT_PATTERNS] = { 4, 1, 3, 0, 1, 1 };
    const int64_t time[SCOPE_WAIT_PATTERNS] = { 270, 150, 140, 0, 100, 250 };
    for (int k = 0; k < SCOPE_WAIT_PATTERNS; k++) {
        CHECK_I64(t.instances[k], inst[k]);
        CHECK_I64(t.waiting_ns[k], time[k]);
        CHECK_I64(t.within_bound[k], 0);
    }
}

/* The run's communicators (scope_profile_run_comm*): designed.h5's one,
 * the world, on every rank's row 0. */
static void run_comms(void)
{
    scope_profile *p = open_one("designed.h5");
    CHECK_INT(scope_profile_run_comm_count(p), 1);
    scope_run_comm c;
    CHECK_INT(scope_profile_run_comm(p, 0, &c), 0);
    CHECK_STR(c.name, "MPI_COMM_WORLD");
    CHECK_STR(c.label, "MPI_COMM_WORLD");
    CHECK_STR(c.creator, "");
    CHECK_INT(c.world, 1);
    CHECK_INT(c.size, 4);
    CHECK_INT(c.remote_size, 0);
    for (int i = 0; i < 4; i++)
        CHECK_INT(c.members[i], i);
    CHECK_INT(scope_profile_run_comm(p, 1, &c), SCOPE_ENOTFOUND);
    for (int r = 0; r < 4; r++) {
        const int32_t *ids;
        int n;
        CHECK_INT(scope_profile_run_comm_ids(p, r, &ids, &n), 0);
        CHECK(n == 1 && ids[0] == 0);
    }
    const int32_t *ids;
    int n;
    CHECK_INT(scope_profile_run_comm_ids(p, 9, &ids, &n), SCOPE_ENOTFOUND);
    scope_profile_close(p);
}

static void designed(int64_t budget)
{
    scope_profile *p = open_one("designed.h5");
    scope_waits *w = NULL;
    CHECK_INT(scope_profile_waits_budget(p, 0, budget, &w), 0);
    CHECK_INT(scope_waits_has_data(w), 1);
    check_designed_totals(w);
    check_calls(p, w, designed_calls, 10, designed_call_ix);
    check_msgs(w, designed_msgs, 6);
    check_unmatched(w, 1);
    scope_waits_totals t;
    scope_waits_totals_get(w, &t);
    if (budget == 1) { /* far below the ends: every bucket, through files */
        CHECK_INT(t.buckets, 128);
        CHECK_INT(t.spilled, 1);
    } else {
        CHECK_INT(t.buckets, 1);
        CHECK_INT(t.spilled, 0);
    }
    /* rows: per (rank, region, pattern, waited-for), longest first */
    const scope_wait_row *rows;
    int64_t nr = scope_waits_rows(w, &rows);
    CHECK_I64(nr, 10);
    for (int64_t i = 1; i < nr; i++)
        CHECK(rows[i - 1].time_ns >= rows[i].time_ns);
    CHECK(nr > 0 && rows[0].rank == 0 && rows[0].region == region(p, "MPI_Reduce") &&
          rows[0].time_ns == 250 && rows[0].waited_for == 2);
    scope_waits_free(w);
    /* without the message rows: the same counts, no rows */
    CHECK_INT(scope_profile_waits_budget(p, SCOPE_WAITS_NO_MESSAGES, budget, &w), 0);
    const scope_message *m;
    CHECK_I64(scope_waits_messages(w, &m), 0);
    scope_waits_totals_get(w, &t);
    CHECK_I64(t.messages, 6);
    scope_waits_free(w);
    scope_profile_close(p);
}

/* Ranks 2 and 3 on a second host, 30 ns of clock error each: waits
 * between the hosts of at most 60 ns are within the bound. */
static void two_hosts(void)
{
    scope_profile *p = open_one("two_hosts.h5");
    scope_waits *w = NULL;
    CHECK_INT(scope_profile_waits(p, 0, &w), 0);
    static const struct want_call calls[] = {
        { 0, "MPI_Recv", LS, 1, 150, 0 },      { 0, "MPI_Recv", LS, 2, 20, 60 },
        { 0, "MPI_Wait", LS, 3, 50, 60 },      { 0, "MPI_Barrier", BAR, 3, 90, 60 },
        { 0, "MPI_Reduce", RED, 2, 250, 60 },  { 1, "MPI_Ssend", LR, 2, 150, 60 },
        { 1, "MPI_Barrier", BAR, 3, 40, 60 },  { 1, "MPI_Bcast", BC, 0, 100, 0 },
        { 2, "MPI_Barrier", BAR, 3, 10, 0 },   { 2, "MPI_Sendrecv", LS, 1, 50, 60 },
    };
    check_calls(p, w, calls, 10, designed_call_ix);
    scope_waits_totals t;
    scope_waits_totals_get(w, &t);
    CHECK_I64(t.max_bound_ns, 60);
    const int64_t inst[SCOPE_WAIT_PATTERNS] = { 1, 1, 2, 0, 1, 1 };
    const int64_t within[SCOPE_WAIT_PATTERNS] = { 3, 0, 1, 0, 0, 0 };
    const int64_t time[SCOPE_WAIT_PATTERNS] = { 150, 150, 100, 0, 100, 250 };
    for (int k = 0; k < SCOPE_WAIT_PATTERNS; k++) {
        CHECK_I64(t.instances[k], inst[k]);
        CHECK_I64(t.within_bound[k], within[k]);
        CHECK_I64(t.waiting_ns[k], time[k]);
    }
    CHECK_I64(t.waiting_total_ns, 750);
    /* the analysis's own cost: measured, so only its sign is known */
    CHECK_INT(t.gather_ns >= 0 && t.gather_cpu_ns >= 0 && t.match_ns >= 0 &&
                  t.match_cpu_ns >= 0, 1);
    scope_waits_free(w);
    scope_profile_close(p);
}

/* A call naming a communicator row that does not exist, and a request
 * row naming a region past the table: not placed, the rest matched. */
static void damaged(void)
{
    scope_profile *p = open_one("damaged.h5");
    scope_waits *w = NULL;
    CHECK_INT(scope_profile_waits_budget(p, 0, 1, &w), 0);
    scope_waits_totals t;
    scope_waits_totals_get(w, &t);
    CHECK_I64(t.unanalysed_calls, 1);    /* rank 1's MPI_Send */
    CHECK_I64(t.messages, 5);
    CHECK_I64(t.unmatched_sends, 1);
    CHECK_I64(t.unmatched_receives, 2);  /* rank 0's receive from it too */
    check_unmatched(w, 2);
    scope_waits_free(w);
    scope_profile_close(p);
}

/* Failure paths: bad arguments, and a temporary directory that does not
 * exist when the matching must use files. */
static void failures(void)
{
    scope_profile *p = open_one("designed.h5");
    scope_waits *w = (scope_waits *)p;
    CHECK_INT(scope_profile_waits_budget(p, 0, -1, &w), SCOPE_EINVAL);
    CHECK(w == NULL);
    CHECK_INT(scope_profile_waits(NULL, 0, &w), SCOPE_EINVAL);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/no-such-dir", dir);
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("TMPDIR", tmp, 1);
    CHECK_INT(scope_profile_waits_budget(p, 0, 1, &w), SCOPE_EIO);
    CHECK(w == NULL);
    CHECK(strstr(scope_reader_errmsg(), tmp) != NULL);
    if (saved) {
        setenv("TMPDIR", saved, 1);
        free(saved);
    } else {
        unsetenv("TMPDIR");
    }
    /* the profile is still usable after the failure */
    CHECK_INT(scope_profile_waits(p, 0, &w), 0);
    check_designed_totals(w);
    scope_waits_free(w);
    scope_profile_close(p);
}

/* started.h5: MPI_Startall's messages matched one per request from the
 * request rows, nonblocking collectives waiting in the MPI_Wait that
 * completed them (none in an MPI_Test). */
static void started(void)
{
    scope_profile *p = open_one("started.h5");
    scope_waits *w = NULL;
    CHECK_INT(scope_profile_waits(p, 0, &w), 0);
    static const struct want_call want[] = {
        { 0, "MPI_Waitall", LS, 1, 230, 0 },
        { 0, "MPI_Wait", SCOPE_WAIT_AT_NXN, 1, 180, 0 },
    };
    static const int64_t ix[] = { 0, 0 };
    check_calls(p, w, want, 2, ix);
    static const struct want_msg msgs[] = { { 0, 1, 7, 8, 180, LR }, { 1, 0, 8, 4, 230, LS } };
    check_msgs(w, msgs, 2);
    scope_waits_totals t;
    scope_waits_totals_get(w, &t);
    CHECK_I64(t.messages, 2);
    CHECK_I64(t.collective_instances, 2);
    CHECK_I64(t.incomplete_collectives, 0);
    const scope_unmatched *u;
    CHECK_I64(scope_waits_unmatched(w, &u), 0);
    scope_waits_free(w);
    scope_profile_close(p);
}

/* renamed.h5: designed.h5's calls under names of their own ("halo_recv"),
 * each region saying which call it is (`operation`): read as designed.h5
 * is, from the attribute. */
static void renamed(void)
{
    scope_profile *p = open_one("renamed.h5"), *d = open_one("designed.h5");
    CHECK_STR(scope_profile_region_operation(p, region(p, "halo_recv")), "MPI_Recv");
    CHECK(scope_profile_region_operation(d, region(d, "MPI_Recv")) != NULL);
    CHECK_STR(scope_profile_region_operation(d, region(d, "MPI_Recv")), "MPI_Recv");
    scope_waits *w = NULL;
    CHECK_INT(scope_profile_waits(p, 0, &w), 0);
    check_designed_totals(w);
    struct want_call calls[10];
    char names[10][64];
    for (int i = 0; i < 10; i++) {
        calls[i] = designed_calls[i];
        snprintf(names[i], sizeof names[i], "halo_%s", designed_calls[i].region + 4);
        for (char *c = names[i]; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        calls[i].region = names[i];
    }
    check_calls(p, w, calls, 10, designed_call_ix);
    check_msgs(w, designed_msgs, 6);
    check_unmatched(w, 1);
    scope_waits_free(w);
    /* the point-to-point and collective matrices: designed.h5's */
    for (int kind = SCOPE_COMM_P2P; kind <= SCOPE_COMM_COLLECTIVE; kind++) {
        int64_t mp[16] = { 0 }, bp[16] = { 0 }, md[16] = { 0 }, bd[16] = { 0 };
        CHECK_INT(scope_profile_comm_matrix_kind(p, kind, SCOPE_COMM_ALL_REGIONS, 4, mp, bp), 0);
        CHECK_INT(scope_profile_comm_matrix_kind(d, kind, SCOPE_COMM_ALL_REGIONS, 4, md, bd), 0);
        CHECK(memcmp(mp, md, sizeof mp) == 0 && memcmp(bp, bd, sizeof bp) == 0);
    }
    int64_t m[16] = { 0 };
    CHECK_INT(scope_profile_comm_matrix(p, SCOPE_COMM_ALL_REGIONS, 4, m, NULL), 0);
    CHECK_I64(m[1 * 4 + 0] + m[2 * 4 + 0] + m[3 * 4 + 0], 3);  /* 1, 2, 3 sent to 0 */
    scope_profile_close(p);
    scope_profile_close(d);
}

/* newcalls.h5: MPI_Isendrecv (both ends, one request), MPI_Mrecv and
 * MPI_Imrecv (receives whose source and tag came from the status),
 * MPI_Mprobe (nothing), read from the vocabulary's rows alone. */
static void newcalls(void)
{
    scope_profile *p = open_one("newcalls.h5");
    scope_waits *w = NULL;
    CHECK_INT(scope_profile_waits(p, 0, &w), 0);
    static const struct want_call want[] = {
        { 0, "MPI_Wait", LS, 1, 230, 0 },
        { 1, "MPI_Wait", LS, 0, 130, 0 },
    };
    static const int64_t ix[] = { 0, 0 };
    check_calls(p, w, want, 2, ix);
    static const struct want_msg msgs[] = {
        { 0, 1, 3, 4, 0, -1 }, { 1, 0, 3, 4, 230, LS }, { 0, 1, 4, 8, 130, LS },
    };
    check_msgs(w, msgs, 3);
    scope_waits_totals t;
    scope_waits_totals_get(w, &t);
    CHECK_I64(t.messages, 3);
    CHECK_I64(t.unmatched_sends, 0);
    CHECK_I64(t.unmatched_receives, 0);
    CHECK_I64(t.unanalysed_calls, 0);
    CHECK_I64(t.mpi_ns, 10 + 280 + 10 + 10 + 10 + 10 + 180);   /* not the probe */
    scope_waits_free(w);
    int64_t m[4] = { 0 }, b[4] = { 0 };
    CHECK_INT(scope_profile_comm_matrix(p, SCOPE_COMM_ALL_REGIONS, 2, m, b), 0);
    CHECK(m[0] == 0 && m[1] == 2 && m[2] == 1 && m[3] == 0);    /* 0 -> 1 twice, 1 -> 0 */
    CHECK(b[1] == 12 && b[2] == 4);
    CHECK(scope_region_is_point_to_point("MPI_Isendrecv_replace"));
    CHECK(scope_region_is_point_to_point("MPI_Imrecv"));
    CHECK(!scope_region_is_point_to_point("MPI_Improbe"));
    CHECK(!scope_region_is_point_to_point("MPI_Send_init"));
    scope_profile_close(p);
}

/* far.h5: ranks 0, 1 and 2^20: each message its own key however far the
 * ranks are apart. */
static void far(void)
{
    scope_profile *p = open_one("far.h5");
    scope_waits *w = NULL;
    CHECK_INT(scope_profile_waits(p, 0, &w), 0);
    static const struct want_msg msgs[] = {
        { 0, 1 << 20, 5, 8, 0, -1 }, { 1, 0, 5, 4, 150, LS },
    };
    check_msgs(w, msgs, 2);
    scope_waits_totals t;
    scope_waits_totals_get(w, &t);
    CHECK_I64(t.messages, 2);
    CHECK_I64(t.unmatched_sends + t.unmatched_receives, 0);
    scope_waits_free(w);
    scope_profile_close(p);
}

/* io.h5: the waits' time in rank 1's outermost I/O calls, per file (the
 * table in make_waits_profiles.py): nested calls counted once, two
 * threads' overlap once, a dataset's calls on its file, a call on no
 * file in io_ns only; designed.h5 has no I/O: zeros, no file. */
static void waits_io(void)
{
    scope_profile *p = open_one("io.h5");
    scope_waits *w = NULL;
    CHECK_INT(scope_profile_waits(p, SCOPE_WAITS_NO_MESSAGES, &w), 0);
    CHECK_INT(scope_waits_has_io(w), 1);
    const scope_wait_row *rows;
    const scope_wait_io *io;
    int64_t n = scope_waits_rows(w, &rows);
    CHECK_I64(scope_waits_rows_io(w, &io), n);
    CHECK_I64(n, 2);
    for (int64_t i = 0; i < n && i < 2; i++) {
        const char *reg = scope_profile_region_name(p, rows[i].region);
        if (rows[i].pattern == LS) {
            CHECK_STR(reg, "MPI_Recv");
            CHECK_I64(rows[i].time_ns, 800);
            CHECK_I64(io[i].io_ns, 20 + 250 + 50 + 40 + 100 + 50 + 20);
            CHECK_STR(scope_waits_io_file(w, io[i].file), "/d/a.dat");
            CHECK_I64(io[i].file_ns, 250 + 50 + 20);
            CHECK_INT(io[i].files, 2);
        } else {
            CHECK_STR(reg, "MPI_Barrier");
            CHECK_INT(rows[i].pattern, SCOPE_WAIT_AT_BARRIER);
            CHECK_I64(rows[i].time_ns, 50);
            CHECK_I64(io[i].io_ns, 40 + 5);
            CHECK_STR(scope_waits_io_file(w, io[i].file), "/d/c.h5");
            CHECK_I64(io[i].file_ns, 40);
            CHECK_INT(io[i].files, 1);
        }
    }
    scope_wait_io t;
    scope_waits_io_totals(w, &t);
    CHECK_I64(t.io_ns, 530 + 45);
    CHECK_STR(scope_waits_io_file(w, t.file), "/d/a.dat");
    CHECK_I64(t.file_ns, 320);
    CHECK_INT(t.files, 3);
    CHECK(scope_waits_io_file(w, 3) == NULL && scope_waits_io_file(w, -1) == NULL);
    scope_waits_free(w);
    /* within a budget that spills: the same */
    CHECK_INT(scope_profile_waits_budget(p, 0, 1, &w), 0);
    n = scope_waits_rows(w, &rows);
    CHECK_I64(scope_waits_rows_io(w, &io), 2);
    CHECK_I64(io[0].io_ns + io[1].io_ns, 575);
    scope_waits_free(w);
    scope_profile_close(p);

    p = open_one("designed.h5");
    CHECK_INT(scope_profile_waits(p, 0, &w), 0);
    CHECK_INT(scope_waits_has_io(w), 0);
    n = scope_waits_rows(w, &rows);
    CHECK_I64(scope_waits_rows_io(w, &io), n);
    for (int64_t i = 0; i < n; i++)
        CHECK(io[i].io_ns == 0 && io[i].file == -1 && io[i].files == 0 && io[i].file_ns == 0);
    scope_waits_io_totals(w, &t);
    CHECK(t.io_ns == 0 && t.file == -1 && t.files == 0);
    scope_waits_free(w);
    scope_profile_close(p);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_waits_designed PROFILE_DIR\n");
        return 2;
    }
    dir = argv[1];
    run_comms();
    designed(0);
    designed(1);
    two_hosts();
    damaged();
    started();
    renamed();
    newcalls();
    far();
    waits_io();
    failures();
    return check_result("test_waits_designed");
}
