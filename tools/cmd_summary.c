/*
 * cmd_summary.c - `scope summary PATH...`: where the time went, one row per
 * region (calls, total, mean, min, max, std, share of the run), optionally
 * one row per (region, rank), as an aligned table, csv or json.
 *
 * All numbers come from libscope_reader; this file only orders and prints
 * them. The machine formats (csv, json) carry plain seconds so scripts
 * never parse units; the table uses short human units.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "scope_format.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"
#include "scope_reader_io.h"
#include "scope_reader_waits.h"

static const char summary_help[] =
    "usage: scope summary [--per-rank] [--format table|csv|json]\n"
    "                     [--sort total|calls|mean|max|name] [--compensate]\n"
    "                     [--waits] [--wide] PATH...\n"
    "\n"
    "One row per region: calls, total, mean, min, max and std of the call\n"
    "durations, and share = the part of the ranks' time spent in the region:\n"
    "its total / (the run's wall span x the number of ranks), where the span\n"
    "is latest end - earliest start over all ranks; a per-rank row divides\n"
    "by the span alone. Nested regions each count, so shares can add up to\n"
    "more than 1. std is the population standard deviation (ddof = 0; 0 for\n"
    "a single call).\n"
    "\n"
    "PATH is an index file, a merged file, a rank file or a folder of rank\n"
    "files; several paths are merged by rank.\n"
    "\n"
    "options:\n"
    "  --per-rank     table: add one row per (region, rank) under each region\n"
    "                 (rank \"all\" marks the region's row); csv/json: one row\n"
    "                 per (region, rank) instead of per region. Ranks that\n"
    "                 never entered a region get no row.\n"
    "  --format F     table (default, human units), csv or json. csv header:\n"
    "                   region,calls,total,mean,min,max,std,share\n"
    "                 (--per-rank: region,rank,calls,total,...); json:\n"
    "                 {\"regions\":[{...}]} with the same field names. Times in\n"
    "                 plain seconds, share as a fraction (0.5 = 50%).\n"
    "  --sort K       total (default), calls, mean, max: descending; name:\n"
    "                 ascending. Ties keep the order of first entry.\n"
    "  --compensate   subtract what recording cost, as each process measured\n"
    "                 it at start: overhead_inside_ns per call, and per call\n"
    "                 nested in it the whole cost of recording that call;\n"
    "                 said in the first line (on stderr for csv/json)\n"
    "  --waits        add the time each MPI region's calls waited for other\n"
    "                 ranks (scope waits, docs/analysis.md): column waiting\n"
    "                 (csv/json: seconds); needs the MPI calls' data\n"
    SCOPE__HELP_WIDE_AND_HELP;

enum { FMT_TABLE, FMT_CSV, FMT_JSON };
enum { SORT_TOTAL, SORT_CALLS, SORT_MEAN, SORT_MAX, SORT_NAME };

typedef struct {
    int region;
    const char *name;
    scope_stats st;
} region_row;

/* Bytes a row's calls moved (scope_reader_comm.h), when the profile has
 * the data columns. */
typedef struct {
    int64_t sent, received;
    int64_t read, written;  /* I/O regions (scope_reader_io.h) */
    int64_t waiting;        /* --waits: time waiting for other ranks */
} moved_row;

static int sort_key;

static int cmp_rows(const void *a, const void *b)
{
    const region_row *x = a, *y = b;
    int c = 0;
    switch (sort_key) {
    case SORT_TOTAL: c = (x->st.total_ns < y->st.total_ns) -
                         (x->st.total_ns > y->st.total_ns); break;
    case SORT_CALLS: c = (x->st.calls < y->st.calls) -
                         (x->st.calls > y->st.calls); break;
    case SORT_MEAN:  c = (x->st.mean_ns < y->st.mean_ns) -
                         (x->st.mean_ns > y->st.mean_ns); break;
    case SORT_MAX:   c = (x->st.max_ns < y->st.max_ns) -
                         (x->st.max_ns > y->st.max_ns); break;
    case SORT_NAME:  c = strcmp(x->name, y->name); break;
    }
    return c ? c : (x->region > y->region) - (x->region < y->region);
}

typedef struct {
    FILE *out;
    int format, per_rank, wide;
    int moved;              /* bytes_sent and bytes_received columns */
    int io;                 /* bytes_read and bytes_written columns */
    int waits;              /* and the waiting column (--waits) */
    size_t nrows;           /* rows written so far (json separators) */
    int64_t span;
    int nranks;             /* ranks in the profile: the all-ranks share */
    scope__table table;
} printer;

/* Writes one row; rank < 0 means the all-ranks row. */
static int put_row(printer *pr, const char *name, int rank,
                   const scope_stats *st, const moved_row *mv)
{
    char calls[32], total[48], mean[48], min[48], max[48], std[48],
         share[48], rk[16], sent[48], recv[48], rd[48], wr[48], wait[48];
    double denom = (double)pr->span * (rank >= 0 || pr->nranks < 1 ? 1 : pr->nranks);
    double sh = pr->span > 0 ? (double)st->total_ns / denom : 0.0;
    snprintf(calls, sizeof calls, "%lld", (long long)st->calls);
    if (rank >= 0)
        snprintf(rk, sizeof rk, "%d", rank);
    else
        strcpy(rk, "all");
    if (pr->format == FMT_TABLE) {
        scope__fmt_human(total, sizeof total, (double)st->total_ns);
        scope__fmt_human(mean, sizeof mean, st->mean_ns);
        scope__fmt_human(min, sizeof min, (double)st->min_ns);
        scope__fmt_human(max, sizeof max, (double)st->max_ns);
        scope__fmt_human(std, sizeof std, st->std_ns);
        snprintf(share, sizeof share, "%.1f%%", sh * 100.0);
        scope__fmt_bytes(sent, sizeof sent, mv->sent);
        scope__fmt_bytes(recv, sizeof recv, mv->received);
        scope__fmt_bytes(rd, sizeof rd, mv->read);
        scope__fmt_bytes(wr, sizeof wr, mv->written);
        scope__fmt_human(wait, sizeof wait, (double)mv->waiting);
        /* the columns begin_output() laid out: those of the profile's data */
        const char *cells[14] = { name, rk, calls, total, mean, min, max, std, share };
        int n = 0;
        for (int i = 0; i < 9; i++)
            if (i != 1 || pr->per_rank)
                cells[n++] = cells[i];
        if (pr->moved) {
            cells[n++] = sent;
            cells[n++] = recv;
        }
        if (pr->io) {
            cells[n++] = rd;
            cells[n++] = wr;
        }
        if (pr->waits)
            cells[n++] = wait;
        return scope__table_add(&pr->table, cells);
    }
    scope__fmt_seconds_i64(total, sizeof total, st->total_ns);
    scope__fmt_seconds_dbl(mean, sizeof mean, st->mean_ns);
    scope__fmt_seconds_i64(min, sizeof min, st->min_ns);
    scope__fmt_seconds_i64(max, sizeof max, st->max_ns);
    scope__fmt_seconds_dbl(std, sizeof std, st->std_ns);
    scope__fmt_ratio(share, sizeof share, sh);
    if (pr->format == FMT_CSV) {
        scope__put_csv_field(pr->out, name);
        if (pr->per_rank)
            fprintf(pr->out, ",%s", rk);
        fprintf(pr->out, ",%s,%s,%s,%s,%s,%s,%s", calls, total, mean, min,
                max, std, share);
        if (pr->moved)
            fprintf(pr->out, ",%lld,%lld", (long long)mv->sent, (long long)mv->received);
        if (pr->io)
            fprintf(pr->out, ",%lld,%lld", (long long)mv->read, (long long)mv->written);
        if (pr->waits) {
            scope__fmt_seconds_i64(wait, sizeof wait, mv->waiting);
            fprintf(pr->out, ",%s", wait);
        }
        fputc('\n', pr->out);
    } else {
        fputs(pr->nrows ? ",\n  {\"region\": " : "\n  {\"region\": ", pr->out);
        scope__put_json_string(pr->out, name);
        if (pr->per_rank)
            fprintf(pr->out, ", \"rank\": %s", rk);
        fprintf(pr->out, ", \"calls\": %s, \"total\": %s, \"mean\": %s, "
                "\"min\": %s, \"max\": %s, \"std\": %s, \"share\": %s",
                calls, total, mean, min, max, std, share);
        if (pr->moved)
            fprintf(pr->out, ", \"bytes_sent\": %lld, \"bytes_received\": %lld",
                    (long long)mv->sent, (long long)mv->received);
        if (pr->io)
            fprintf(pr->out, ", \"bytes_read\": %lld, \"bytes_written\": %lld",
                    (long long)mv->read, (long long)mv->written);
        if (pr->waits) {
            scope__fmt_seconds_i64(wait, sizeof wait, mv->waiting);
            fprintf(pr->out, ", \"waiting\": %s", wait);
        }
        fputc('}', pr->out);
    }
    pr->nrows++;
    return 0;
}

/* --waits: the time each region's calls waited for other ranks, above
 * the clock bound (scope_reader_waits.h), laid out as the compensated
 * statistics: [(rank index + 1) * nreg + region], row 0 all ranks. One pass
 * over the wait rows (a lookup per printed row scanned them all). NULL:
 * out of memory. */
static int64_t *waiting_table(scope_profile *p, const scope_waits *w, int nreg)
{
    int nranks = scope_profile_rank_count(p);
    int64_t *t = calloc(((size_t)nranks + 1) * (size_t)nreg + 1, sizeof *t);
    const scope_wait_row *rows;
    int64_t n = scope_waits_rows(w, &rows);
    for (int64_t i = 0; t && i < n; i++) {
        int lo = 0, hi = nranks; /* ranks ascend: the rank's index */
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (scope_profile_rank(p, mid) < rows[i].rank)
                lo = mid + 1;
            else
                hi = mid;
        }
        t[rows[i].region] += rows[i].time_ns;
        if (lo < nranks)
            t[(size_t)(lo + 1) * (size_t)nreg + (size_t)rows[i].region] += rows[i].time_ns;
    }
    return t;
}

static int fail(const char *msg)
{
    fprintf(stderr, "scope: %s\n", msg);
    return 1;
}

/* fail() for the helpers that return -1. */
static int fail_neg(const char *msg)
{
    fail(msg);
    return -1;
}

/* Says first what the numbers below do not contain: processes that
 * recorded under a rank another process of the run has (processes a rank
 * started, or rank collisions: their data is kept aside, linked as
 * /rank<N>.collision<K>; the first line, since the
 * per-rank numbers below then describe only one of them), events a rank
 * could not record (the memory budget or the disk ran out), ranks that
 * called MPI_Abort, ranks recovered after a crash, and ranks whose launcher and MPI disagreed on
 * the rank. On stdout above a table, on stderr for csv/json so that their
 * output stays machine-readable. */
static void warn_incomplete(scope_profile *p, FILE *out)
{
    int64_t dropped = 0, v;
    int dropping_ranks = 0, recovered = 0, aborted = 0, unrecorded_ranks = 0;
    int64_t unrecorded = 0;
    char abort_ranks[200] = "", abort_codes[200] = "";
    if (scope_profile_metadata_int(p, "rank_collisions", &v) == 0 && v > 0)
        fprintf(out, "warning: %lld process%s of this run recorded under a rank another "
                     "process has (started by a rank, e.g. through system(), or a rank "
                     "collision); %s kept as /rank<N>.collision<K> in the index and not "
                     "counted below\n",
                (long long)v, v == 1 ? "" : "es", v == 1 ? "its data is" : "their data are");
    for (int i = 0; i < scope_profile_rank_count(p); i++) {
        int rank = scope_profile_rank(p, i);
        if (scope_profile_rank_attr_int(p, rank, "dropped_events", &v) == 0 && v > 0) {
            dropped += v;
            dropping_ranks++;
        }
        if (scope_profile_rank_attr_int(p, rank, "unrecorded_calls", &v) == 0 && v > 0) {
            unrecorded += v;
            unrecorded_ranks++;
        }
        if (scope_profile_rank_attr_int(p, rank, "mpi_abort_errorcode", &v) == 0) {
            /* the first few, by rank: usually one rank aborts the job */
            size_t lr = strlen(abort_ranks), lc = strlen(abort_codes);
            if (aborted < 8) {
                snprintf(abort_ranks + lr, sizeof abort_ranks - lr, "%s%d", aborted ? ", " : "",
                         rank);
                snprintf(abort_codes + lc, sizeof abort_codes - lc, "%s%lld", aborted ? ", " : "",
                         (long long)v);
            } else if (aborted == 8) {
                snprintf(abort_ranks + lr, sizeof abort_ranks - lr, ", ...");
                snprintf(abort_codes + lc, sizeof abort_codes - lc, ", ...");
            }
            aborted++;
        } else if (scope_profile_rank_attr_int(p, rank, "complete", &v) == 0 && v == 0) {
            recovered++;
        }
    }
    /* Missing rank files (their journals are kept), then each missing
     * host file with the ranks it held. */
    int nmissing = scope_profile_missing_rank_count(p), nrankfiles = 0;
    for (int i = 0; i < nmissing; i++)
        nrankfiles += !scope_is_host_file(scope_profile_missing_rank_file(p, i));
    if (nrankfiles) {
        fprintf(out, "warning: %d rank%s of the run ha%s no rank file (not written: killed "
                     "before it could be, or the disk filled or failed; the journal is kept, "
                     "`scope recover` writes it):",
                nrankfiles, nrankfiles == 1 ? "" : "s", nrankfiles == 1 ? "s" : "ve");
        for (int i = 0; i < nmissing; i++)
            if (!scope_is_host_file(scope_profile_missing_rank_file(p, i)))
                fprintf(out, " %d", scope_profile_missing_rank(p, i));
        fputc('\n', out);
    }
    for (int i = 0; i < nmissing; i++) {
        const char *f = scope_profile_missing_rank_file(p, i);
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = strcmp(scope_profile_missing_rank_file(p, j), f) != 0;
        if (!first || !scope_is_host_file(f))
            continue;
        fprintf(out, "warning: host file %s is missing; its ranks are not in this summary:", f);
        for (int j = i; j < nmissing; j++)
            if (strcmp(scope_profile_missing_rank_file(p, j), f) == 0)
                fprintf(out, " %d", scope_profile_missing_rank(p, j));
        fputc('\n', out);
    }
    if (dropped)
        fprintf(out, "warning: %lld events were not recorded on %d rank%s (memory budget "
                     "or disk full); raise memory_budget in the config or SCOPE_MEMORY_BUDGET\n",
                (long long)dropped, dropping_ranks, dropping_ranks == 1 ? "" : "s");
    if (unrecorded)
        fprintf(out, "warning: at least %lld call%s on %d rank%s %s not recorded (made in a "
                     "signal handler while scope was recording another call, or past the "
                     "shadow stack's depth); the counts below miss them\n",
                (long long)unrecorded, unrecorded == 1 ? "" : "s", unrecorded_ranks,
                unrecorded_ranks == 1 ? "" : "s", unrecorded == 1 ? "was" : "were");
    if (aborted)
        fprintf(out, "warning: rank%s %s called MPI_Abort (error code%s %s): the run ended "
                     "there (complete = 0)\n", aborted == 1 ? "" : "s", abort_ranks,
                aborted == 1 ? "" : "s", abort_codes);
    if (recovered)
        fprintf(out, "warning: %d rank%s recovered after a crash (complete = 0): %s end%s "
                     "early\n", recovered, recovered == 1 ? " was" : "s were",
                recovered == 1 ? "its profile" : "their profiles",
                recovered == 1 ? "s" : "");
    /* a coarse clock makes short calls 0 ns: say so where it matters */
    if (scope_profile_clock_resolution_ns(p, SCOPE_ALL_RANKS, &v) == 0 && v > 20)
        fprintf(out, "clock resolution: %lld ns (coarsest rank); shorter durations are "
                     "not resolved\n", (long long)v);
    for (int i = 0; i < scope_profile_rank_count(p); i++) {
        int rank = scope_profile_rank(p, i);
        char why[512];
        if (scope_profile_rank_attr_string(p, rank, "rank_mismatch", why, sizeof why) >= 0)
            fprintf(out, "warning: rank %d: the launcher and MPI disagree on the rank (%s)\n",
                    rank, why);
    }
}

/* "4.2 µs", "118 µs", "1.3 ms": an error bound for people. */
static void fmt_bound(char *buf, size_t len, int64_t ns)
{
    if (ns < 1000)
        snprintf(buf, len, "%lld ns", (long long)ns);
    else if (ns < 10000)
        snprintf(buf, len, "%.1f \u00b5s", (double)ns / 1e3);
    else if (ns < 1000000)
        snprintf(buf, len, "%.0f \u00b5s", (double)ns / 1e3);
    else
        snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
}

/* The first line of a run over several hosts: how many, and how well
 * their clocks were put on rank 0's host timeline; or which ranks could
 * not be (docs/clocks.md). Nothing for one host or files without clock
 * attributes. Same stream rule as warn_incomplete. */
static void note_clocks(scope_profile *p, FILE *out)
{
    scope_clock_info ci;
    if (scope_profile_clock_info(p, &ci) < 0)
        return;
    if (ci.hosts < 2) {
        /* nothing measured on ranks of an MPI run: the hosts are unknown.
         * Processes that never called MPI_Init (serial programs a launcher
         * started) have nothing to align: no warning for them. */
        if (ci.ranks_unaligned > 1 && scope_profile_region_index(p, SCOPE_MPI_SPAN_REGION) >= 0)
            fprintf(out, "warning: %d ranks were not aligned to rank 0's host clock: if they "
                         "ran on several hosts, their times are not comparable\n",
                    ci.ranks_unaligned);
        return;
    }
    char b[32] = "an unknown bound";
    if (ci.error_ns >= 0)
        fmt_bound(b, sizeof b, ci.error_ns);
    fprintf(out, "%lld hosts, clocks aligned within %s\n", (long long)ci.hosts, b);
    if (ci.ranks_init_only)
        fprintf(out, "warning: %d rank%s (first: rank %d) aligned at MPI_Init only (crashed or "
                     "recovered): clock drift after MPI_Init is not corrected\n",
                ci.ranks_init_only, ci.ranks_init_only == 1 ? "" : "s", ci.first_suspect_rank);
    if (ci.ranks_unaligned || ci.ranks_unknown)
        fprintf(out, "warning: %d rank%s not aligned to rank 0's host clock: %s times "
                     "are not comparable with the others\n",
                ci.ranks_unaligned + ci.ranks_unknown,
                ci.ranks_unaligned + ci.ranks_unknown == 1 ? " is" : "s are",
                ci.ranks_unaligned + ci.ranks_unknown == 1 ? "its" : "their");
}

/* What the options asked for, besides the printer's settings. */
typedef struct {
    int compensate;     /* --compensate */
    int want_waits;     /* --waits */
} summary_opts;

/* Reads the options into pr and o (and sort_key). Returns -1 to go on,
 * else the exit status (0 after --help, 2 on bad usage). */
static int parse_options(int argc, char **argv, printer *pr, summary_opts *o)
{
    static const struct option opts[] = {
        { "per-rank", no_argument, NULL, 'r' },
        { "format", required_argument, NULL, 'f' },
        { "sort", required_argument, NULL, 's' },
        { "wide", no_argument, NULL, 'w' },
        { "compensate", no_argument, NULL, 'c' },
        { "waits", no_argument, NULL, 'W' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    static const char *const sorts[] = { "total", "calls", "mean", "max",
                                         "name", NULL };
    int c, k;
    scope__options parse = { .cmd = "summary", .help = summary_help, .argc = argc, .argv = argv,
                              .shortopts = ":h", .longopts = opts, .format = &pr->format };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 'r':
            pr->per_rank = 1;
            break;
        case 'w':
            pr->wide = 1;
            break;
        case 'c':
            o->compensate = 1;
            break;
        case 'W':
            o->want_waits = 1;
            break;
        case 's':
            if ((k = scope__parse_choice("summary", "sort key", optarg, sorts, &sort_key)))
                return k;
            break;
        }
    }
    if (c < 0)
        return parse.status;
    if (optind >= argc)
        return scope__usage_error("summary", "no profile path given");
    return -1;
}

/* --compensate: the compensated statistics, row 0 for all ranks and row
 * k + 1 for rank index k (when --per-rank), nreg each; the note on the
 * compensation printed first. NULL on failure (said). */
static scope_stats *compensated_stats(scope_profile *p, const printer *pr, int nreg)
{
    int nrows = pr->per_rank ? pr->nranks + 1 : 1;
    if (scope__note_compensation(p, SCOPE_ALL_RANKS, pr->format == FMT_TABLE ? pr->out : stderr))
        return NULL;
    scope_stats *comp = calloc((size_t)nrows * (size_t)(nreg ? nreg : 1), sizeof *comp);
    if (!comp) {
        fail("out of memory");
        return NULL;
    }
    for (int k = 0; k < nrows; k++)
        if (scope_profile_stats_compensated(p, k ? scope_profile_rank(p, k - 1) : SCOPE_ALL_RANKS,
                                            comp + (size_t)k * (size_t)nreg) < 0) {
            fail(scope_reader_errmsg());
            free(comp);
            return NULL;
        }
    return comp;
}

/* One row per region over all ranks, sorted by sort_key (comp: the
 * compensated statistics, or NULL). NULL on failure (said). */
static region_row *region_rows(scope_profile *p, const scope_stats *comp, int nreg)
{
    region_row *rows = calloc(nreg ? (size_t)nreg : 1, sizeof *rows);
    if (!rows) {
        fail("out of memory");
        return NULL;
    }
    for (int r = 0; r < nreg; r++) {
        rows[r].region = r;
        rows[r].name = scope_profile_region_name(p, r);
        if (comp)
            rows[r].st = comp[r];
        else if (scope_profile_stats(p, r, SCOPE_ALL_RANKS, &rows[r].st) < 0) {
            fail(scope_reader_errmsg());
            free(rows);
            return NULL;
        }
    }
    if (nreg)
        qsort(rows, (size_t)nreg, sizeof *rows, cmp_rows);
    return rows;
}

/* The table's columns, or the csv header or json opening. */
static void begin_output(printer *pr)
{
    static const char *const all[9] = { "region", "rank", "calls", "total", "mean", "min",
                                        "max", "std", "share" };
    /* static: the table keeps the pointers until it is printed */
    static const char *heads[14];
    static int right[14];
    static const int shrink[14] = { 1 };    /* the region names */
    int n = 0;
    for (int i = 0; i < 9; i++)
        if (i != 1 || pr->per_rank)
            heads[n++] = all[i];
    if (pr->moved) {
        heads[n++] = "sent";
        heads[n++] = "received";
    }
    if (pr->io) {
        heads[n++] = "read";
        heads[n++] = "written";
    }
    if (pr->waits)
        heads[n++] = "waiting";
    for (int i = 0; i < n; i++)
        right[i] = i > 0;
    scope__table_init(&pr->table, n, heads, right);
    scope__table_fit(&pr->table, scope__out_width(pr->out, pr->wide), shrink);
    if (pr->format == FMT_CSV)
        fprintf(pr->out, "%s%s%s%s\n",
                pr->per_rank ? "region,rank,calls,total,mean,min,max,std,share"
                             : "region,calls,total,mean,min,max,std,share",
                pr->moved ? ",bytes_sent,bytes_received" : "",
                pr->io ? ",bytes_read,bytes_written" : "", pr->waits ? ",waiting" : "");
    else if (pr->format == FMT_JSON)
        fputs("{\"regions\": [", pr->out);
}

/* The rows of one region: the all-ranks row (always in the table, and in
 * csv/json unless they were asked for per-rank rows: one kind of row),
 * then one per rank that entered it with --per-rank. comp and waiting as
 * compensated_stats() and waiting_table() lay them out, or NULL. Returns
 * 0 or -1 (said). */
static int print_region(printer *pr, scope_profile *p, const region_row *row,
                        const scope_stats *comp, const int64_t *waiting, int nreg)
{
    moved_row mv = { 0, 0, 0, 0, 0 };
    if (pr->waits)
        mv.waiting = waiting[row->region];
    if (pr->moved &&
        scope_profile_bytes(p, row->region, SCOPE_ALL_RANKS, &mv.sent, &mv.received) < 0)
        return fail_neg(scope_reader_errmsg());
    if (pr->io &&
        scope_profile_io_bytes(p, row->region, SCOPE_ALL_RANKS, &mv.read, &mv.written) < 0)
        return fail_neg(scope_reader_errmsg());
    if ((pr->format == FMT_TABLE || !pr->per_rank) &&
        put_row(pr, row->name, -1, &row->st, &mv) < 0)
        return fail_neg("out of memory");
    for (int k = 0; pr->per_rank && k < pr->nranks; k++) {
        scope_stats st;
        int rank = scope_profile_rank(p, k);
        if (comp)
            st = comp[(size_t)(k + 1) * (size_t)nreg + (size_t)row->region];
        else if (scope_profile_stats(p, row->region, rank, &st) < 0)
            return fail_neg(scope_reader_errmsg());
        if (st.calls == 0)
            continue;
        if (pr->moved && scope_profile_bytes(p, row->region, rank, &mv.sent, &mv.received) < 0)
            return fail_neg(scope_reader_errmsg());
        if (pr->io && scope_profile_io_bytes(p, row->region, rank, &mv.read, &mv.written) < 0)
            return fail_neg(scope_reader_errmsg());
        if (pr->waits)
            mv.waiting = waiting[(size_t)(k + 1) * (size_t)nreg + (size_t)row->region];
        if (put_row(pr, row->name, rank, &st, &mv) < 0)
            return fail_neg("out of memory");
    }
    return 0;
}

int scope_cmd_summary(int argc, char **argv)
{
    printer pr;
    memset(&pr, 0, sizeof pr);
    pr.out = stdout;
    sort_key = SORT_TOTAL;
    summary_opts o = { 0, 0 };
    int status = parse_options(argc, argv, &pr, &o);
    if (status >= 0)
        return status;
    scope_waits *waits = NULL;
    int64_t *waiting = NULL;    /* --waits: waiting_table() */
    scope_stats *comp = NULL;   /* --compensate: compensated_stats() */
    region_row *rows = NULL;
    scope_profile *p = scope__open_or_report(argv + optind, argc - optind);
    if (!p)
        return 1;
    int nreg = scope_profile_region_count(p);
    status = 1;
    /* The span first: it reads every cell rank by rank (file by file) and
     * caches their statistics, which the per-region calls then reuse. */
    if (scope_profile_time_span_ns(p, &pr.span) < 0) {
        fail(scope_reader_errmsg());
        goto fail_rows;
    }
    pr.nranks = scope_profile_rank_count(p);
    note_clocks(p, pr.format == FMT_TABLE ? pr.out : stderr);
    warn_incomplete(p, pr.format == FMT_TABLE ? pr.out : stderr);
    if (o.compensate && !(comp = compensated_stats(p, &pr, nreg)))
        goto fail_rows;
    if (!(rows = region_rows(p, comp, nreg)))
        goto fail_rows;

    /* the byte columns only for a profile that records them: a timing-only
     * profile's summary keeps its columns (docs/format.md) */
    pr.moved = scope_profile_has_moved(p);
    pr.io = scope_profile_has_io(p);
    if (o.want_waits && !pr.moved)
        fprintf(stderr, "scope: summary: --waits: the profile records no data of MPI calls, "
                "so no wait states (MPI_* in the config, without SCOPE_MPI_DATA=0)\n");
    if (o.want_waits && pr.moved) {
        if (scope_profile_waits(p, SCOPE_WAITS_NO_MESSAGES, &waits) < 0) {
            fail(scope_reader_errmsg());
            goto fail_rows;
        }
        if (!(waiting = waiting_table(p, waits, nreg))) {
            fail("out of memory");
            goto fail_rows;
        }
        pr.waits = 1;
    }
    begin_output(&pr);
    for (int i = 0; i < nreg; i++)
        if (print_region(&pr, p, &rows[i], comp, waiting, nreg) < 0)
            goto fail_table;
    if (pr.format == FMT_TABLE && scope__table_print(&pr.table, pr.out) < 0) {
        fail("out of memory");
        goto fail_table;
    } else if (pr.format == FMT_JSON)
        fputs(pr.nrows ? "\n]}\n" : "]}\n", pr.out);
    if (fflush(pr.out) != 0 || ferror(pr.out)) {
        fail("cannot write the summary to standard output");
        goto fail_table;
    }
    status = 0;
fail_table:
    scope__table_free(&pr.table);
fail_rows:
    free(waiting);
    scope_waits_free(waits);
    free(comp);
    free(rows);
    scope_profile_close(p);
    return status;
}
