/*
 * cmd_waits.c - `scope waits`: who waited for whom. The run's time in MPI
 * calls split into waiting (by pattern: late sender, late receiver, wait
 * at barrier, wait at N x N, late broadcast, early reduce) and the rest,
 * the worst (rank, region, waited-for rank) rows, the ranks most waited
 * for (often the culprit of an imbalance), and what could not be matched.
 * --format csv|json carry every row; --calls and --messages list each
 * waiting call and each matched message instead.
 *
 * Everything comes from the reader (scope_reader_waits.h); docs/analysis.md
 * defines the patterns and the clock bound.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "size_parse.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"
#include "scope_reader_waits.h"

static const char waits_help[] =
    "usage: scope waits [--format table|csv|json] [--top N] [--wide]\n"
    "                   [--calls | --messages | --pairs]\n"
    "                   [--memory SIZE] PROFILE...\n"
    "\n"
    "Wait states of the MPI calls (docs/analysis.md): every point-to-point\n"
    "message matched to its receive, every collective matched across its\n"
    "communicator, and the time each call spent waiting for another rank:\n"
    "  late_sender      a receive (or its MPI_Wait) began before the send\n"
    "  late_receiver    a synchronous or rendezvous send waited for the receive\n"
    "  wait_at_barrier  MPI_Barrier: from entry to the last rank's entry\n"
    "  wait_at_nxn      Allreduce, Alltoall*, Allgather*, Reduce_scatter*: same\n"
    "  late_broadcast   Bcast, Scatter(v): a rank entered before the root\n"
    "  early_reduce     Reduce, Gather(v): the root entered before the last rank\n"
    "A wait no longer than the clock bound between the two ranks (0 on one\n"
    "host) is counted as within the bound, not timed. Needs a profile that\n"
    "recorded what its MPI calls moved (MPI_* in the config, the default).\n"
    "\n"
    "  --format F     table (default); csv: one row per (rank, region,\n"
    "                 pattern, waited-for rank), header\n"
    "                   rank,region,pattern,waited_for,instances,time,\n"
    "                   io_ns,io_file,io_files,io_file_ns\n"
    "                 (time in seconds, waits above the clock bound; io_*:\n"
    "                 the waited-for rank's time in I/O calls during them,\n"
    "                 in ns, the file that took the most of it, how many\n"
    "                 files, that file's ns; 0 and empty without I/O);\n"
    "                 json: {\"totals\": ..., \"waits\": [...], \"unmatched\": [...],\n"
    "                 \"communicators\": [...]} (the run's, numbered as the\n"
    "                 `comm` of --messages and the OTF2 export's)\n"
    "  --top N        rows in the table's lists (default 10)\n"
    "  --calls        one row per waiting call instead (csv header\n"
    "                   rank,region,call,pattern,waited_for,wait,bound)\n"
    "  --messages     one row per matched message instead (csv header\n"
    "                   sender,receiver,tag,comm,bytes,send_region,\n"
    "                   recv_region,send_start,recv_end,wait,pattern;\n"
    "                 times in seconds from the run start)\n"
    "  --pairs        one row per (rank, rank it waited for), over regions and\n"
    "                 patterns, longest first (csv header\n"
    "                   rank,waited_for,instances,time)\n"
    "  --memory SIZE  memory for the matching (e.g. 512M, 4G; default 1G or a\n"
    "                 quarter of the machine's): beyond it the ends wait in\n"
    "                 temporary files in $TMPDIR (else /tmp); the results are\n"
    "                 the same\n"
    "  --wide         full region names: no fitting of the table to the\n"
    "                 terminal (csv and json always hold full names)\n"
    "  -h, --help     this text\n";

enum { FMT_TABLE, FMT_CSV, FMT_JSON };
enum { LIST_ROWS, LIST_CALLS, LIST_MESSAGES, LIST_PAIRS };

/* Seconds, exactly (the csv and json of every command: output.c). */
static void put_s(FILE *out, int64_t ns)
{
    char b[48];
    scope__fmt_seconds_i64(b, sizeof b, ns);
    fputs(b, out);
}

static const char *region_of(scope_profile *p, int r)
{
    const char *n = r >= 0 ? scope_profile_region_name(p, r) : NULL;
    return n ? n : "";
}

/* Row i's I/O share (scope_wait_io), zero when the reader has none. */
static scope_wait_io io_of(const scope_waits *w, int64_t i)
{
    const scope_wait_io *io;
    int64_t n = scope_waits_rows_io(w, &io);
    return i < n ? io[i] : (scope_wait_io){ 0, 0, -1, 0 };
}

static const char *io_file_of(const scope_waits *w, int file)
{
    const char *f = scope_waits_io_file(w, file);
    return f ? f : "";
}

static void put_io_json(const scope_waits *w, const scope_wait_io *io)
{
    printf("\"io_ns\": %lld, \"io_file\": ", (long long)io->io_ns);
    if (io->file >= 0)
        scope__put_json_string(stdout, io_file_of(w, io->file));
    else
        fputs("null", stdout);
    printf(", \"io_files\": %d, \"io_file_ns\": %lld", io->files, (long long)io->file_ns);
}

static void put_rows(scope_profile *p, const scope_waits *w, int format)
{
    const scope_wait_row *rows;
    int64_t n = scope_waits_rows(w, &rows);
    if (format == FMT_CSV)
        fputs("rank,region,pattern,waited_for,instances,time,io_ns,io_file,io_files,io_file_ns\n",
              stdout);
    for (int64_t i = 0; i < n; i++) {
        const scope_wait_row *r = &rows[i];
        if (format == FMT_CSV) {
            printf("%d,", r->rank);
            scope__put_csv_field(stdout, region_of(p, r->region));
            printf(",%s,%d,%lld,", scope_wait_pattern_name(r->pattern), r->waited_for,
                   (long long)r->instances);
            put_s(stdout, r->time_ns);
            scope_wait_io io = io_of(w, i);
            printf(",%lld,", (long long)io.io_ns);
            scope__put_csv_field(stdout, io_file_of(w, io.file));
            printf(",%d,%lld\n", io.files, (long long)io.file_ns);
        } else {
            printf("%s{\"rank\": %d, \"region\": ", i ? ", " : "", r->rank);
            scope__put_json_string(stdout, region_of(p, r->region));
            printf(", \"pattern\": \"%s\", \"waited_for\": %d, \"instances\": %lld, \"time\": ",
                   scope_wait_pattern_name(r->pattern), r->waited_for, (long long)r->instances);
            put_s(stdout, r->time_ns);
            printf(", \"within_bound\": %lld, ", (long long)r->within_bound);
            scope_wait_io io = io_of(w, i);
            put_io_json(w, &io);
            putchar('}');
        }
    }
}

/* One (waiting rank, waited-for rank) pair, over regions and patterns. */
struct pair {
    int32_t rank, waited_for;
    int64_t instances, within_bound, time_ns;
};

static int cmp_pair(const void *x, const void *y)
{
    const struct pair *a = x, *b = y;
    if (a->time_ns != b->time_ns)
        return a->time_ns > b->time_ns ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->waited_for > b->waited_for) - (a->waited_for < b->waited_for);
}

/* The rows added up per rank pair, the longest waiting first; *n pairs in
 * a malloc'd array, NULL (and *n = -1) when out of memory. The rows come
 * sorted by rank first among equal times, so pairs are found by a scan of
 * the few made so far for the row's rank. */
static struct pair *pairs_of(const scope_waits *w, int64_t *n)
{
    const scope_wait_row *rows;
    int64_t nr = scope_waits_rows(w, &rows), np = 0;
    struct pair *v = malloc((size_t)(nr ? nr : 1) * sizeof *v);
    *n = -1;
    if (!v)
        return NULL;
    for (int64_t i = 0; i < nr; i++) {
        int64_t k = 0;
        while (k < np && !(v[k].rank == rows[i].rank && v[k].waited_for == rows[i].waited_for))
            k++;
        if (k == np)
            v[np++] = (struct pair){ rows[i].rank, rows[i].waited_for, 0, 0, 0 };
        v[k].instances += rows[i].instances;
        v[k].within_bound += rows[i].within_bound;
        v[k].time_ns += rows[i].time_ns;
    }
    qsort(v, (size_t)np, sizeof *v, cmp_pair);
    *n = np;
    return v;
}

static int put_pairs(const scope_waits *w, int format)
{
    int64_t n;
    struct pair *v = pairs_of(w, &n);
    if (!v)
        return -1;
    fputs(format == FMT_JSON ? "{\"pairs\": [" : "rank,waited_for,instances,time\n", stdout);
    for (int64_t i = 0; i < n; i++) {
        if (format == FMT_JSON)
            printf("%s{\"rank\": %d, \"waited_for\": %d, \"instances\": %lld, "
                   "\"within_bound\": %lld, \"time\": ", i ? ", " : "", v[i].rank,
                   v[i].waited_for, (long long)v[i].instances, (long long)v[i].within_bound);
        else
            printf("%d,%d,%lld,", v[i].rank, v[i].waited_for, (long long)v[i].instances);
        put_s(stdout, v[i].time_ns);
        fputs(format == FMT_JSON ? "}" : "\n", stdout);
    }
    if (format == FMT_JSON)
        fputs("]}\n", stdout);
    free(v);
    return 0;
}

static void put_calls(scope_profile *p, const scope_waits *w, int format)
{
    const scope_wait_call *c;
    int64_t n = scope_waits_calls(w, &c);
    if (format != FMT_JSON)
        fputs("rank,region,call,pattern,waited_for,wait,bound\n", stdout);
    else
        fputs("{\"calls\": [", stdout);
    for (int64_t i = 0; i < n; i++) {
        if (format == FMT_JSON) {
            printf("%s{\"rank\": %d, \"region\": ", i ? ", " : "", c[i].rank);
            scope__put_json_string(stdout, region_of(p, c[i].region));
            printf(", \"call\": %lld, \"pattern\": \"%s\", \"waited_for\": %d, \"wait\": ",
                   (long long)c[i].call, scope_wait_pattern_name(c[i].pattern), c[i].waited_for);
            put_s(stdout, c[i].wait_ns);
            fputs(", \"bound\": ", stdout);
            if (c[i].bound_ns == INT64_MAX)
                fputs("null", stdout);
            else
                put_s(stdout, c[i].bound_ns);
            putchar('}');
            continue;
        }
        printf("%d,", c[i].rank);
        scope__put_csv_field(stdout, region_of(p, c[i].region));
        printf(",%lld,%s,%d,", (long long)c[i].call, scope_wait_pattern_name(c[i].pattern),
               c[i].waited_for);
        put_s(stdout, c[i].wait_ns);
        putchar(',');
        if (c[i].bound_ns != INT64_MAX)
            put_s(stdout, c[i].bound_ns);
        putchar('\n');
    }
    if (format == FMT_JSON)
        fputs("]}\n", stdout);
}

static void put_messages(scope_profile *p, const scope_waits *w, int format)
{
    const scope_message *m;
    int64_t n = scope_waits_messages(w, &m);
    int64_t t0 = 0;
    if (scope_profile_time_origin_ns(p, &t0) < 0)
        t0 = 0;
    if (format != FMT_JSON)
        fputs("sender,receiver,tag,comm,bytes,send_region,recv_region,send_start,recv_end,wait,"
              "pattern\n", stdout);
    else
        fputs("{\"messages\": [", stdout);
    for (int64_t i = 0; i < n; i++) {
        const char *pat = m[i].pattern >= 0 ? scope_wait_pattern_name(m[i].pattern) : "";
        if (format == FMT_JSON) {
            printf("%s{\"sender\": %d, \"receiver\": %d, \"tag\": %d, \"comm\": ", i ? ", " : "",
                   m[i].sender, m[i].receiver, m[i].tag);
            scope__put_json_string(stdout, scope_waits_comm_name(w, m[i].comm));
            printf(", \"bytes\": %lld, \"send_region\": ", (long long)m[i].bytes);
            scope__put_json_string(stdout, region_of(p, m[i].send_region));
            fputs(", \"recv_region\": ", stdout);
            scope__put_json_string(stdout, region_of(p, m[i].recv_region));
            fputs(", \"send_start\": ", stdout);
            put_s(stdout, m[i].send_start_ns - t0);
            fputs(", \"recv_end\": ", stdout);
            put_s(stdout, m[i].recv_end_ns - t0);
            fputs(", \"wait\": ", stdout);
            put_s(stdout, m[i].wait_ns);
            printf(", \"pattern\": \"%s\"}", pat);
            continue;
        }
        printf("%d,%d,%d,", m[i].sender, m[i].receiver, m[i].tag);
        scope__put_csv_field(stdout, scope_waits_comm_name(w, m[i].comm));
        printf(",%lld,", (long long)m[i].bytes);
        scope__put_csv_field(stdout, region_of(p, m[i].send_region));
        putchar(',');
        scope__put_csv_field(stdout, region_of(p, m[i].recv_region));
        putchar(',');
        put_s(stdout, m[i].send_start_ns - t0);
        putchar(',');
        put_s(stdout, m[i].recv_end_ns - t0);
        putchar(',');
        put_s(stdout, m[i].wait_ns);
        printf(",%s\n", pat);
    }
    if (format == FMT_JSON)
        fputs("]}\n", stdout);
}

static void put_totals_json(const scope_waits *w, const scope_waits_totals *t)
{
    printf("{\"messages\": %lld, \"unmatched_sends\": %lld, \"unmatched_receives\": %lld, "
           "\"collective_instances\": %lld, \"incomplete_collectives\": %lld, "
           "\"unanalysed_calls\": %lld, \"communicators\": %d, \"buckets\": %d, "
           "\"spilled\": %s, \"mpi_time\": ",
           (long long)t->messages, (long long)t->unmatched_sends, (long long)t->unmatched_receives,
           (long long)t->collective_instances, (long long)t->incomplete_collectives,
           (long long)t->unanalysed_calls, t->comms, t->buckets, t->spilled ? "true" : "false");
    put_s(stdout, t->mpi_ns);
    fputs(", \"waiting_time\": ", stdout);
    put_s(stdout, t->waiting_total_ns);
    fputs(", \"clock_bound\": ", stdout);
    if (t->max_bound_ns < 0)
        fputs("null", stdout);
    else
        put_s(stdout, t->max_bound_ns);
    fputs(", \"patterns\": {", stdout);
    for (int k = 0; k < SCOPE_WAIT_PATTERNS; k++) {
        printf("%s\"%s\": {\"instances\": %lld, \"time\": ", k ? ", " : "",
               scope_wait_pattern_name(k), (long long)t->instances[k]);
        put_s(stdout, t->waiting_ns[k]);
        printf(", \"within_bound\": %lld}", (long long)t->within_bound[k]);
    }
    /* the analysis's own cost: varies run to run, so never compared */
    fputs("}, \"cost\": {\"gather\": ", stdout);
    put_s(stdout, t->gather_ns);
    fputs(", \"gather_cpu\": ", stdout);
    put_s(stdout, t->gather_cpu_ns);
    fputs(", \"match\": ", stdout);
    put_s(stdout, t->match_ns);
    fputs(", \"match_cpu\": ", stdout);
    put_s(stdout, t->match_cpu_ns);
    /* the waits' time in the waited-for ranks' I/O calls */
    scope_wait_io io;
    scope_waits_io_totals(w, &io);
    fputs("}, \"io\": {", stdout);
    put_io_json(w, &io);
    fputs("}}", stdout);
}

/* The run's communicators as json objects (id, name, creator, size,
 * remote_size, members): the numbering of --messages' `comm` and of the
 * OTF2 export. 0, or -1 after saying the reader's error. */
static int put_comms(scope_profile *p)
{
    int n = scope_profile_run_comm_count(p);
    for (int c = 0; c < n; c++) {
        scope_run_comm d;
        if (scope_profile_run_comm(p, c, &d) < 0)
            return scope__fail_msg(scope_reader_errmsg()), -1;
        printf("%s{\"id\": %d, \"name\": ", c ? ", " : "", c);
        scope__put_json_string(stdout, d.label);
        fputs(", \"creator\": ", stdout);
        scope__put_json_string(stdout, d.creator);
        printf(", \"size\": %d, \"remote_size\": %d, \"members\": [", (int)d.size,
               (int)d.remote_size);
        for (int32_t i = 0; i < d.size + d.remote_size; i++)
            printf("%s%d", i ? ", " : "", (int)d.members[i]);
        fputs("]}", stdout);
    }
    return n < 0 ? scope__fail_msg(scope_reader_errmsg()), -1 : 0;
}

static void put_unmatched(const scope_waits *w, int format)
{
    const scope_unmatched *u;
    int64_t n = scope_waits_unmatched(w, &u);
    for (int64_t i = 0; i < n; i++) {
        if (format == FMT_JSON) {
            printf("%s{\"rank\": %d, \"peer\": %d, \"side\": \"%s\", \"messages\": %lld}",
                   i ? ", " : "", u[i].rank, u[i].peer, u[i].is_send ? "send" : "receive",
                   (long long)u[i].count);
        } else if (u[i].is_send) {
            printf("  rank %d sent %lld message%s to rank %d that no receive matched\n", u[i].rank,
                   (long long)u[i].count, u[i].count == 1 ? "" : "s", u[i].peer);
        } else {
            printf("  rank %d received %lld message%s from rank %d that no send matched\n",
                   u[i].rank, (long long)u[i].count, u[i].count == 1 ? "" : "s", u[i].peer);
        }
    }
}

static int cmp_i64_desc(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[1] != y[1] ? (x[1] < y[1] ? 1 : -1) : (x[0] > y[0]) - (x[0] < y[0]);
}

/* The last name of a file in the "in I/O" cell, at most this many
 * characters: the share before it is never cut. */
#define IO_NAME_WIDTH 24

/* A row's "in I/O" cell: the share of its time the waited-for rank spent
 * in I/O calls and the file that took the most, by its last name
 * (elided to IO_NAME_WIDTH), "+N" for the other files; empty when none. */
static void io_cell(const scope_waits *w, const scope_wait_row *r, int64_t i, char *buf,
                    size_t len)
{
    scope_wait_io io = io_of(w, i);
    buf[0] = 0;
    if (io.io_ns <= 0 || r->time_ns <= 0)
        return;
    const char *f = io_file_of(w, io.file), *slash = strrchr(f, '/');
    const char *base = slash && slash[1] ? slash + 1 : f;
    char *cut = scope__elide(base, IO_NAME_WIDTH);
    int n = snprintf(buf, len, "%.0f %%%s%s", 100.0 * (double)io.io_ns / (double)r->time_ns,
                     *base ? " " : "", cut ? cut : base);
    free(cut);
    if (io.files > 1 && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " +%d", io.files - 1);
}

static int table(scope_profile *p, const scope_waits *w, int64_t top, int wide)
{
    scope_waits_totals t;
    scope_waits_totals_get(w, &t);
    char a[32], b[32], c[32];
    scope__fmt_human(a, sizeof a, (double)t.waiting_total_ns);
    scope__fmt_human(b, sizeof b, (double)t.mpi_ns);
    scope__fmt_human(c, sizeof c, (double)(t.mpi_ns - t.waiting_total_ns));
    printf("waiting: %s of %s in MPI calls (%.1f %%); the rest, %s, is transfer and MPI's own work\n",
           a, b, t.mpi_ns > 0 ? 100.0 * (double)t.waiting_total_ns / (double)t.mpi_ns : 0.0, c);
    if (t.max_bound_ns < 0) {
        printf("clocks: some ranks' clocks are not aligned: their waits on each other are "
               "counted within the bound, not timed\n");
    } else if (t.max_bound_ns == 0) {
        printf("clocks: ranks that met share a host's clock: every wait is timed\n");
    } else {
        scope__fmt_human(a, sizeof a, (double)t.max_bound_ns);
        printf("clocks: waits up to %s (the bound between two hosts' clocks; 0 on one host) "
               "are counted, not timed\n", a);
    }
    printf("matched: %lld message%s, %lld collective instance%s on %d communicator%s\n",
           (long long)t.messages, t.messages == 1 ? "" : "s", (long long)t.collective_instances,
           t.collective_instances == 1 ? "" : "s", t.comms, t.comms == 1 ? "" : "s");
    if (t.spilled)
        printf("memory: matched in %d buckets, written to temporary files between their "
               "turns (--memory sets the budget)\n", t.buckets);
    printf("\n%-16s %10s %12s %14s\n", "pattern", "instances", "time", "within bound");
    for (int k = 0; k < SCOPE_WAIT_PATTERNS; k++) {
        if (!t.instances[k] && !t.within_bound[k])
            continue;
        scope__fmt_human(a, sizeof a, (double)t.waiting_ns[k]);
        printf("%-16s %10lld %12s %14lld\n", scope_wait_pattern_name(k), (long long)t.instances[k],
               a, (long long)t.within_bound[k]);
    }
    const scope_wait_row *rows;
    int64_t n = scope_waits_rows(w, &rows);
    /* the "in I/O" column only when some wait overlapped I/O */
    scope_wait_io iot;
    scope_waits_io_totals(w, &iot);
    int with_io = iot.io_ns > 0;
    if (with_io) {
        scope__fmt_human(a, sizeof a, (double)iot.io_ns);
        printf("in I/O: %s of the waiting (%.1f %%) the waited-for ranks spent in I/O calls, "
               "%.0f %% of it on %s (%d file%s)\n", a,
               t.waiting_total_ns ? 100.0 * (double)iot.io_ns / (double)t.waiting_total_ns : 0.0,
               100.0 * (double)iot.file_ns / (double)iot.io_ns, io_file_of(w, iot.file),
               iot.files, iot.files == 1 ? "" : "s");
    }
    static const char *const heads[] = { "rank", "region", "pattern", "waited for", "instances",
                                         "time", "in I/O" };
    static const int right[] = { 1, 0, 0, 1, 1, 1, 0 };
    scope__table tb;
    scope__table_init(&tb, with_io ? 7 : 6, heads, right);
    int width = scope__out_width(stdout, wide);
    static const int shrink[] = { 0, 1, 0, 0, 0, 0, 0 };
    scope__table_fit(&tb, width > 0 ? width : 0, shrink);
    int64_t shown = 0;
    for (int64_t i = 0; i < n && shown < top; i++) {
        if (!rows[i].instances)
            continue;
        char rk[16], wf[16], in[24], tm[32], io[64 + 4 * IO_NAME_WIDTH];
        snprintf(rk, sizeof rk, "%d", rows[i].rank);
        snprintf(wf, sizeof wf, "%d", rows[i].waited_for);
        snprintf(in, sizeof in, "%lld", (long long)rows[i].instances);
        scope__fmt_human(tm, sizeof tm, (double)rows[i].time_ns);
        io_cell(w, &rows[i], i, io, sizeof io);
        const char *cells[] = { rk, region_of(p, rows[i].region),
                                scope_wait_pattern_name(rows[i].pattern), wf, in, tm, io };
        if (scope__table_add(&tb, cells) < 0) {
            scope__table_free(&tb);
            return -1;
        }
        shown++;
    }
    if (shown) {
        printf("\nworst waits\n");
        if (scope__table_print(&tb, stdout) < 0) {
            scope__table_free(&tb);
            return -1;
        }
    }
    scope__table_free(&tb);
    /* waited-for ranks: the time others lost waiting for each */
    int world = 0;
    for (int64_t i = 0; i < n; i++)
        if (rows[i].waited_for + 1 > world)
            world = rows[i].waited_for + 1;
    int64_t (*by)[2] = calloc((size_t)world + 1, sizeof *by);
    if (!by)
        return -1;
    for (int r = 0; r < world; r++)
        by[r][0] = r;
    for (int64_t i = 0; i < n; i++)
        if (rows[i].waited_for >= 0)
            by[rows[i].waited_for][1] += rows[i].time_ns;
    qsort(by, (size_t)world, sizeof *by, cmp_i64_desc);
    if (world > 0 && by[0][1] > 0) {
        printf("\nmost waited for (time other ranks lost waiting for this one)\n");
        for (int r = 0; r < world && r < top && by[r][1] > 0; r++) {
            scope__fmt_human(a, sizeof a, (double)by[r][1]);
            printf("  rank %-6lld %12s  %5.1f %%\n", (long long)by[r][0], a,
                   t.waiting_total_ns ? 100.0 * (double)by[r][1] / (double)t.waiting_total_ns : 0.0);
        }
    }
    free(by);
    int64_t np;
    struct pair *pv = pairs_of(w, &np);
    if (!pv)
        return -1;
    if (np > 0 && pv[0].time_ns > 0) {
        printf("\nworst pairs (rank waited for rank)\n");
        for (int64_t i = 0; i < np && i < top && pv[i].time_ns > 0; i++) {
            scope__fmt_human(a, sizeof a, (double)pv[i].time_ns);
            printf("  %6d -> %-6d %12s  %8lld waits\n", pv[i].rank, pv[i].waited_for, a,
                   (long long)pv[i].instances);
        }
    }
    free(pv);
    if (t.unmatched_sends || t.unmatched_receives || t.incomplete_collectives) {
        printf("\nnot matched: %lld sends, %lld receives, %lld collective instances some rank "
               "never entered\n", (long long)t.unmatched_sends, (long long)t.unmatched_receives,
               (long long)t.incomplete_collectives);
        put_unmatched(w, FMT_TABLE);
    }
    for (int i = 0; i < scope_profile_missing_rank_count(p); i++)
        printf("rank %d is missing from the profile (%s): its messages count as unmatched\n",
               scope_profile_missing_rank(p, i), scope_profile_missing_rank_file(p, i));
    if (t.unanalysed_calls)
        printf("\n%lld MPI calls could not be placed (no data recorded, MPI_Startall, "
               "intercommunicator collectives)\n", (long long)t.unanalysed_calls);
    return 0;
}

int scope_cmd_waits(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "top", required_argument, NULL, 't' },
        { "calls", no_argument, NULL, 'c' },
        { "messages", no_argument, NULL, 'm' },
        { "pairs", no_argument, NULL, 'p' },
        { "memory", required_argument, NULL, 'M' },
        { "wide", no_argument, NULL, 'w' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int format = FMT_TABLE, list = LIST_ROWS, wide = 0, c;
    int64_t top = 10;
    uint64_t memory = 0;
    size_t bad;
    scope_profile *p;
    scope__options parse = { .cmd = "waits", .help = waits_help, .argc = argc, .argv = argv,
                              .shortopts = ":h", .longopts = opts, .profile = &p,
                              .format = &format };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 't':
            if (scope__parse_i64(optarg, &top) < 0 || top < 0)
                return scope__usage_error("waits", "--top takes a whole number, not '%s'", optarg);
            break;
        case 'c':
        case 'm':
        case 'p':
            if (list != LIST_ROWS)
                return scope__usage_error("waits", "--calls, --messages and --pairs exclude "
                                          "each other");
            list = c == 'c' ? LIST_CALLS : c == 'm' ? LIST_MESSAGES : LIST_PAIRS;
            break;
        case 'M':
            if (scope__parse_size(optarg, strlen(optarg), &memory, &bad) != SCOPE__SIZE_OK ||
                memory == 0 || memory > (uint64_t)INT64_MAX)
                return scope__usage_error("waits", "--memory takes a byte count such as 512M or "
                                          "4G, not '%s'", optarg);
            break;
        case 'w':
            wide = 1;
            break;
        }
    }
    if (c < 0)
        return parse.status;
    int status = 1;
    scope_waits *w = NULL;
    if (scope_profile_waits_budget(p, list == LIST_MESSAGES ? 0 : SCOPE_WAITS_NO_MESSAGES,
                                   (int64_t)memory, &w) < 0) {
        scope__fail_msg(scope_reader_errmsg());
        goto out;
    }
    if (!scope_waits_has_data(w) && format == FMT_TABLE && scope_profile_has_moved(p)) {
        /* data, but only of calls the analysis does not read (one-sided,
         * neighbourhood collectives, ...) */
        printf("no wait states: none of the profile's MPI calls with data is one the analysis "
               "reads (docs/analysis.md \"What is not analysed yet\")\n");
    } else if (!scope_waits_has_data(w) && format == FMT_TABLE) {
        printf("the profile records no data of MPI calls, so no wait states: record them with "
               "MPI_* in the config (the default), without SCOPE_MPI_DATA=0\n");
    } else if (list == LIST_CALLS) {
        put_calls(p, w, format);
    } else if (list == LIST_MESSAGES) {
        put_messages(p, w, format);
    } else if (list == LIST_PAIRS) {
        if (put_pairs(w, format) < 0) {
            scope__fail_msg("out of memory");
            goto out;
        }
    } else if (format == FMT_CSV) {
        put_rows(p, w, format);
    } else if (format == FMT_JSON) {
        scope_waits_totals t;
        scope_waits_totals_get(w, &t);
        fputs("{\"totals\": ", stdout);
        put_totals_json(w, &t);
        fputs(", \"waits\": [", stdout);
        put_rows(p, w, format);
        fputs("], \"unmatched\": [", stdout);
        put_unmatched(w, format);
        fputs("], \"communicators\": [", stdout);
        if (put_comms(p) < 0)
            goto out;
        fputs("]}\n", stdout);
    } else if (table(p, w, top, wide) < 0) {
        scope__fail_msg("out of memory");
        goto out;
    }
    status = scope__stdout_check("cannot write to standard output");
out:
    scope_waits_free(w);
    scope_profile_close(p);
    return status;
}
