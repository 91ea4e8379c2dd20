/*
 * cmd_diff.c - `scope diff`: did it get slower? Two sets of runs of the
 * same program, A (the baseline) and B, compared region by region with
 * the reader's statistics (scope_reader_compare.h): the change of the
 * median per-call time and of the total, each with a bootstrap interval,
 * a Mann-Whitney U test and a verdict, sorted by the size of the
 * significant changes. One run against one keeps the plain form (totals,
 * means, calls, and the change) and says that no test is possible.
 * docs/analysis.md "Comparing runs" explains the figures.
 */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "scope_format.h"
#include "scope_reader_compare.h"

static const char diff_help[] =
    "usage: scope diff [options] A... --vs B...\n"
    "       scope diff [options] A B\n"
    "\n"
    "Compares the runs of set A (the baseline) with those of set B, region\n"
    "by region (matched by name). Each run is one profile path (index file,\n"
    "merged file, rank file, or a folder of rank files); a folder that holds\n"
    "no rank files is a folder of runs: each profile file and run folder in\n"
    "it is one run (a run's <name>.ranks folder goes with <name>.h5).\n"
    "\n"
    "With several runs in a set, each run gives one sample per region: the\n"
    "median duration of its calls and their total. Per region the output\n"
    "gives the median of those over each set's runs, the relative change\n"
    "B/A - 1 with a bootstrap confidence interval (percentile method,\n"
    "seeded), a two-sided Mann-Whitney U test of A's runs against B's, and\n"
    "a verdict: slower, faster, no change (the data show none; the\n"
    "interval bounds what could be hidden), untested (too few runs for the\n"
    "test to ever reject at the level: at 95 % it needs 4 runs each, or\n"
    "3 against 5), only in A / only in B. Rows with a significant change\n"
    "come first, largest relative change first.\n"
    "\n"
    "One run against one (A B, each a single run) prints the plain change\n"
    "of totals, means and calls, and says that no test is possible (on\n"
    "stderr with the table, in json's \"warnings\"); or, with --calls,\n"
    "tests the calls of the two runs against each other.\n"
    "\n"
    "When A and B are different jobs (executables of different names, or\n"
    "different numbers of ranks), a note says so (stderr with the table\n"
    "and csv, json's \"warnings\"): the rows then compare two jobs, not\n"
    "two runs of one.\n"
    "\n"
    "options:\n"
    "  --vs           the runs after it are set B\n"
    "  --level L      confidence level of the intervals, also the test's:\n"
    "                 p < 1 - L is a change (default 0.95)\n"
    "  --resamples N  bootstrap resamples (default 10000)\n"
    "  --seed S       bootstrap seed (default 1): the same seed, the same\n"
    "                 intervals\n"
    "  --metric M     median (default) or total: the figure that decides\n"
    "                 the verdict and the order\n"
    "  --per-rank     one row per (region, rank): every run must have the\n"
    "                 same ranks\n"
    "  --calls        samples are the calls, not the runs: every call's\n"
    "                 duration, the calls of a set's runs pooled. For runs\n"
    "                 that were not repeated; calls of one run are not\n"
    "                 independent, see docs/analysis.md\n"
    "  --format F     table (default), csv or json. csv header:\n"
    "                 region,rank,verdict,runs_a,runs_b,samples_a,samples_b,\n"
    "                 calls_a,calls_b,median_a,median_b,median_change,\n"
    "                 median_lo,median_hi,median_u,median_p,total_a,total_b,\n"
    "                 total_change,total_lo,total_hi,total_u,total_p,min_p,\n"
    "                 exact (times in plain seconds, changes as fractions:\n"
    "                 0.05 = 5 % slower, rank 'all' without --per-rank,\n"
    "                 empty where a figure does not exist); json: the same\n"
    "                 fields in {\"regions\": [...]} with the settings and\n"
    "                 warnings. One run each without --calls: the plain\n"
    "                 form, csv header region,calls_a,calls_b,total_a,\n"
    "                 total_b,total_change,mean_a,mean_b,mean_change\n"
    "  --wide         full names: no fitting of the table to the terminal\n"
    "  -h, --help     this text\n";

typedef struct {
    const char *name;
    scope_stats a, b;
} row;

static int cmp_rows(const void *x, const void *y)
{
    const row *r = x, *s = y;
    int64_t dr = llabs(r->b.total_ns - r->a.total_ns);
    int64_t ds = llabs(s->b.total_ns - s->a.total_ns);
    if (dr != ds)
        return dr > ds ? -1 : 1;
    return strcmp(r->name, s->name);
}

static int stats_of(scope_profile *p, const char *name, scope_stats *st)
{
    memset(st, 0, sizeof *st);
    int r = scope_profile_region_index(p, name);
    return r < 0 ? 0 : scope_profile_stats(p, r, SCOPE_ALL_RANKS, st);
}

static const char one_run_note[] =
    "one run each: no test is possible, this is the plain change (give several "
    "runs of each: A... --vs B..., or test the calls with --calls)";

/* The plain change of one run against one (no statistics possible):
 * the form `scope diff A B` always had. Returns the exit status. */
static int plain_diff(scope_profile *pa, scope_profile *pb, int format,
                      int wide, const char *job)
{
    int status = 1;
    row *rows = NULL;
    int na = scope_profile_region_count(pa), nb = scope_profile_region_count(pb);
    size_t n = 0;
    if (!(rows = calloc((size_t)(na + nb) + 1, sizeof *rows))) {
        scope__fail_msg("out of memory");
        goto fail;
    }
    for (int i = 0; i < na + nb; i++) {
        const char *name = i < na ? scope_profile_region_name(pa, i)
                                  : scope_profile_region_name(pb, i - na);
        if (i >= na && scope_profile_region_index(pa, name) >= 0)
            continue;   /* already a row from A */
        rows[n].name = name;
        if (stats_of(pa, name, &rows[n].a) < 0 ||
            stats_of(pb, name, &rows[n].b) < 0) {
            scope__fail_msg(scope_reader_errmsg());
            goto fail;
        }
        n++;
    }
    if (n)
        qsort(rows, n, sizeof *rows, cmp_rows);
    static const char *const heads[9] = { "region", "calls A", "calls B",
                                          "total A", "total B", "change",
                                          "mean A", "mean B", "change" };
    static const int right[9] = { 0, 1, 1, 1, 1, 1, 1, 1, 1 };
    static const int shrink[9] = { 1 };    /* the region names */
    scope__table tab;
    scope__table_init(&tab, 9, heads, right);
    scope__table_fit(&tab, scope__out_width(stdout, wide), shrink);
    if (format == 1)
        fputs("region,calls_a,calls_b,total_a,total_b,total_change,"
              "mean_a,mean_b,mean_change\n", stdout);
    else if (format == 2) {
        printf("{\"warnings\": [\"%s\"", one_run_note);
        if (job[0]) {
            fputs(", ", stdout);
            scope__put_json_string(stdout, job);
        }
        fputs("], \"regions\": [", stdout);
    }
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        char ca[32], cb[32], ta[48], tb[48], td[48], ma[48], mb[48], md[48];
        snprintf(ca, sizeof ca, "%lld", (long long)r->a.calls);
        snprintf(cb, sizeof cb, "%lld", (long long)r->b.calls);
        double dm = r->b.mean_ns - r->a.mean_ns;
        if (format == 0) {
            scope__fmt_human(ta, sizeof ta, (double)r->a.total_ns);
            scope__fmt_human(tb, sizeof tb, (double)r->b.total_ns);
            scope__fmt_human(td + 1, sizeof td - 1,
                             fabs((double)(r->b.total_ns - r->a.total_ns)));
            td[0] = r->b.total_ns >= r->a.total_ns ? '+' : '-';
            scope__fmt_human(ma, sizeof ma, r->a.mean_ns);
            scope__fmt_human(mb, sizeof mb, r->b.mean_ns);
            scope__fmt_human(md + 1, sizeof md - 1, fabs(dm));
            md[0] = dm >= 0 ? '+' : '-';
            const char *cells[9] = { r->name, ca, cb, ta, tb, td, ma, mb, md };
            if (scope__table_add(&tab, cells) < 0) {
                scope__table_free(&tab);
                scope__fail_msg("out of memory");
                goto fail;
            }
            continue;
        }
        scope__fmt_seconds_i64(ta, sizeof ta, r->a.total_ns);
        scope__fmt_seconds_i64(tb, sizeof tb, r->b.total_ns);
        scope__fmt_seconds_i64(td, sizeof td, r->b.total_ns - r->a.total_ns);
        scope__fmt_seconds_dbl(ma, sizeof ma, r->a.mean_ns);
        scope__fmt_seconds_dbl(mb, sizeof mb, r->b.mean_ns);
        scope__fmt_seconds_dbl(md, sizeof md, dm);
        if (format == 1) {
            scope__put_csv_field(stdout, r->name);
            printf(",%s,%s,%s,%s,%s,%s,%s,%s\n", ca, cb, ta, tb, td, ma, mb, md);
        } else {
            fputs(i ? ",\n  {\"region\": " : "\n  {\"region\": ", stdout);
            scope__put_json_string(stdout, r->name);
            printf(", \"calls_a\": %s, \"calls_b\": %s, \"total_a\": %s, "
                   "\"total_b\": %s, \"total_change\": %s, \"mean_a\": "
                   "%s, \"mean_b\": %s, \"mean_change\": %s}", ca, cb, ta,
                   tb, td, ma, mb, md);
        }
    }
    if (format == 0 && scope__table_print(&tab, stdout) < 0) {
        scope__table_free(&tab);
        scope__fail_msg("out of memory");
        goto fail;
    } else if (format == 2)
        fputs(n ? "\n]}\n" : "]}\n", stdout);
    scope__table_free(&tab);
    status = scope__stdout_check("cannot write the diff to standard output");
fail:
    free(rows);
    return status;
}

/* ------------------------------------------------------------------ */
/* Sets of runs                                                        */

typedef struct {
    char **paths;
    int n, cap;
} run_list;

static int push_path(run_list *l, const char *path)
{
    if (l->n == l->cap) {
        int nc = l->cap ? l->cap * 2 : 8;
        char **q = realloc(l->paths, (size_t)nc * sizeof *q);
        if (!q)
            return -1;
        l->paths = q;
        l->cap = nc;
    }
    return (l->paths[l->n] = strdup(path)) ? (l->n++, 0) : -1;
}

static void free_list(run_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* A rank or host file's name, as a folder of one run holds them. */
static int is_rank_file(const char *name)
{
    return scope_is_host_file(name) || scope_is_rank_file(name);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the runs `path` names: itself, unless it is a folder without rank
 * files, whose profile files and run folders (sorted by name; a
 * <stem>.ranks folder beside <stem>.h5 belongs to that run) are each one
 * run. 0, or 1 after printing why not. */
static int add_runs(run_list *l, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return push_path(l, path) < 0 ? scope__fail_msg("out of memory") : 0;
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "scope: %s: cannot read the folder\n", path);
        return 1;
    }
    run_list names = { 0 };
    int rank_files = 0, status = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        rank_files |= is_rank_file(e->d_name);
        if (push_path(&names, e->d_name) < 0) {
            status = scope__fail_msg("out of memory");
            break;
        }
    }
    closedir(d);
    if (status || rank_files) {     /* a folder of one run */
        free_list(&names);
        return status ? status
                      : push_path(l, path) < 0 ? scope__fail_msg("out of memory") : 0;
    }
    if (names.n > 1)
        qsort(names.paths, (size_t)names.n, sizeof *names.paths, cmp_str);
    int before = l->n;
    for (int i = 0; i < names.n && !status; i++) {
        const char *nm = names.paths[i];
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", path, nm);
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            char stem[PATH_MAX];
            if (scope_index_of_ranks_dir(stem, sizeof stem, full) == 0) {
                if (access(stem, F_OK) == 0)
                    continue;   /* its index is the run */
            }
        } else if (!ends_with(nm, ".h5"))
            continue;
        if (push_path(l, full) < 0)
            status = scope__fail_msg("out of memory");
    }
    free_list(&names);
    if (!status && l->n == before) {
        fprintf(stderr, "scope: %s: the folder holds no profile (no .h5 file, "
                "no run folder)\n", path);
        status = 1;
    }
    return status;
}

/* The ranks of p as "0-3" or "0,2,5" for messages (first few). */
static void rank_text(const scope_profile *p, char *buf, size_t len)
{
    int n = scope_profile_rank_count(p);
    size_t k = 0;
    buf[0] = 0;
    if (n > 0 && scope_profile_rank(p, n - 1) - scope_profile_rank(p, 0) == n - 1) {
        snprintf(buf, len, n > 1 ? "%d-%d" : "%d", scope_profile_rank(p, 0),
                 scope_profile_rank(p, n - 1));
        return;
    }
    for (int i = 0; i < n && k + 16 < len; i++)
        k += (size_t)snprintf(buf + k, len - k, i ? ",%d" : "%d", scope_profile_rank(p, i));
}

static int same_ranks(const scope_profile *p, const scope_profile *q)
{
    int n = scope_profile_rank_count(p);
    if (n != scope_profile_rank_count(q))
        return 0;
    for (int i = 0; i < n; i++)
        if (scope_profile_rank(p, i) != scope_profile_rank(q, i))
            return 0;
    return 1;
}

/* Opens every run of a set and checks that they have the same ranks, so
 * that the set is repetitions of one job. 0, or 1 after printing why
 * not. */
static int open_runs(run_list *l, scope_profile **out, const char *set)
{
    for (int i = 0; i < l->n; i++) {
        if (!(out[i] = scope__open_or_report(&l->paths[i], 1)))
            return 1;
        if (i && !same_ranks(out[0], out[i])) {
            char r0[128], ri[128];
            rank_text(out[0], r0, sizeof r0);
            rank_text(out[i], ri, sizeof ri);
            fprintf(stderr, "scope: diff: set %s mixes runs of different jobs: "
                    "%s has ranks %s, %s has ranks %s (the runs of a set must "
                    "be repetitions of one job)\n", set, l->paths[0], r0,
                    l->paths[i], ri);
            return 1;
        }
    }
    return 0;
}

/* When A's first run and B's are not runs of one job, a note saying so
 * in note (else ""): different programs (the executables' names, when
 * both runs recorded one), or one program on different numbers of ranks.
 * A diff of either is still printed: a program against a rewrite of it,
 * or a scaling step, can be what was meant; but the rows then compare two
 * jobs, not two runs of one. Cost: two attribute reads. */
static void job_note(scope_profile *pa, scope_profile *pb, char *note, size_t len)
{
    char ea[512] = "", eb[512] = "";
    int na = scope_profile_rank_count(pa), nb = scope_profile_rank_count(pb);
    int known = scope_profile_metadata_string(pa, "executable", ea, sizeof ea) >= 0 &&
                scope_profile_metadata_string(pb, "executable", eb, sizeof eb) >= 0 &&
                ea[0] && eb[0];
    const char *ba = strrchr(ea, '/') ? strrchr(ea, '/') + 1 : ea;
    const char *bb = strrchr(eb, '/') ? strrchr(eb, '/') + 1 : eb;
    note[0] = 0;
    if (known && strcmp(ba, bb) != 0)
        snprintf(note, len, "A and B are different jobs: A ran %s on %d rank%s, B ran %s "
                 "on %d rank%s; the rows compare two programs, not two runs of one",
                 ba, na, na == 1 ? "" : "s", bb, nb, nb == 1 ? "" : "s");
    else if (na != nb)
        snprintf(note, len, "A and B are different jobs: %s%s%son %d and %d ranks; a "
                 "total adds over the ranks, so it changes with the job's size as well "
                 "as with the code", known ? "the same program, " : "", known ? ba : "",
                 known ? " " : "", na, nb);
}

/* The same file named twice (also through another path). */
static int check_distinct(run_list *a, run_list *b)
{
    int n = a->n + b->n;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const char *x = i < a->n ? a->paths[i] : b->paths[i - a->n];
            const char *y = j < a->n ? a->paths[j] : b->paths[j - a->n];
            struct stat sx, sy;
            if (stat(x, &sx) == 0 && stat(y, &sy) == 0 && sx.st_dev == sy.st_dev &&
                sx.st_ino == sy.st_ino) {
                fprintf(stderr, "scope: diff: %s and %s are the same run (each run "
                        "may be given once)\n", x, y);
                return 1;
            }
        }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Output of the statistics                                            */

/* Seconds, or "" for NaN (csv). */
static void put_csv_sec(double ns)
{
    char b[48];
    if (isnan(ns))
        return;
    scope__fmt_seconds_dbl(b, sizeof b, ns);
    fputs(b, stdout);
}

static void put_csv_num(double v)
{
    if (!isnan(v) && !isinf(v))
        printf("%.10g", v);
}

static void put_json_num(const char *key, double v, int sec)
{
    char b[48];
    printf(", \"%s\": ", key);
    if (isnan(v) || isinf(v))
        fputs("null", stdout);
    else if (sec) {
        scope__fmt_seconds_dbl(b, sizeof b, v);
        fputs(b, stdout);
    } else
        printf("%.10g", v);
}

/* "+5.0 % [+3.1, +7.2]" for a table; "" parts for NaN. */
static void fmt_change(char *buf, size_t len, double c, double lo, double hi)
{
    if (isnan(c)) {
        snprintf(buf, len, "-");
        return;
    }
    int k = snprintf(buf, len, "%+.1f %%", 100 * c);
    if (!isnan(lo) && k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, " [%+.1f, %+.1f]", 100 * lo, 100 * hi);
}

static void fmt_p(char *buf, size_t len, double p)
{
    if (isnan(p))
        snprintf(buf, len, "-");
    else if (p < 0.001)
        snprintf(buf, len, "<0.001");
    else
        snprintf(buf, len, "%.3f", p);
}

static void fmt_time(char *buf, size_t len, double ns)
{
    if (isnan(ns))
        snprintf(buf, len, "-");
    else
        scope__fmt_human(buf, len, ns);
}

typedef struct {
    scope_compare_result **res;     /* one per rank row group */
    int nres;
    int format, wide, per_rank, calls, metric;
    double level;
    int resamples;
    uint64_t seed;
    run_list *a, *b;
    char warn[4][1400];
    int nwarn;
} report;

static void put_csv_row(const scope_region_change *c, double level)
{
    (void)level;
    scope__put_csv_field(stdout, c->region);
    if (c->rank == SCOPE_ALL_RANKS)
        fputs(",all", stdout);
    else
        printf(",%d", c->rank);
    printf(",%s,%lld,%lld,%lld,%lld,%lld,%lld,", scope_compare_verdict_name(c->verdict),
           (long long)c->runs_a, (long long)c->runs_b, (long long)c->samples_a,
           (long long)c->samples_b, (long long)c->calls_a, (long long)c->calls_b);
    const double sec[] = { c->median_a, c->median_b }, tsec[] = { c->total_a, c->total_b };
    put_csv_sec(sec[0]); putchar(','); put_csv_sec(sec[1]); putchar(',');
    put_csv_num(c->median_change); putchar(','); put_csv_num(c->median_lo); putchar(',');
    put_csv_num(c->median_hi); putchar(','); put_csv_num(c->median_u); putchar(',');
    put_csv_num(c->median_p); putchar(',');
    put_csv_sec(tsec[0]); putchar(','); put_csv_sec(tsec[1]); putchar(',');
    put_csv_num(c->total_change); putchar(','); put_csv_num(c->total_lo); putchar(',');
    put_csv_num(c->total_hi); putchar(','); put_csv_num(c->total_u); putchar(',');
    put_csv_num(c->total_p); putchar(',');
    put_csv_num(c->min_p);
    printf(",%d\n", c->exact);
}

static void put_json_row(const scope_region_change *c, int first)
{
    fputs(first ? "\n  {\"region\": " : ",\n  {\"region\": ", stdout);
    scope__put_json_string(stdout, c->region);
    if (c->rank == SCOPE_ALL_RANKS)
        fputs(", \"rank\": \"all\"", stdout);
    else
        printf(", \"rank\": %d", c->rank);
    printf(", \"verdict\": \"%s\", \"runs_a\": %lld, \"runs_b\": %lld, \"samples_a\": "
           "%lld, \"samples_b\": %lld, \"calls_a\": %lld, \"calls_b\": %lld",
           scope_compare_verdict_name(c->verdict), (long long)c->runs_a,
           (long long)c->runs_b, (long long)c->samples_a, (long long)c->samples_b,
           (long long)c->calls_a, (long long)c->calls_b);
    put_json_num("median_a", c->median_a, 1);
    put_json_num("median_b", c->median_b, 1);
    put_json_num("median_change", c->median_change, 0);
    put_json_num("median_lo", c->median_lo, 0);
    put_json_num("median_hi", c->median_hi, 0);
    put_json_num("median_u", c->median_u, 0);
    put_json_num("median_p", c->median_p, 0);
    put_json_num("total_a", c->total_a, 1);
    put_json_num("total_b", c->total_b, 1);
    put_json_num("total_change", c->total_change, 0);
    put_json_num("total_lo", c->total_lo, 0);
    put_json_num("total_hi", c->total_hi, 0);
    put_json_num("total_u", c->total_u, 0);
    put_json_num("total_p", c->total_p, 0);
    put_json_num("min_p", c->min_p, 0);
    printf(", \"exact\": %s}", c->exact ? "true" : "false");
}

/* The reader's order (scope_compare_sets) over the rows of all ranks:
 * significant changes first, then the size of the relative change of the
 * verdict's metric (a change from 0 first), then name, then rank. */
static int cmp_rows_ranked(const void *x, const void *y, void *metric)
{
    const scope_region_change *a = *(const scope_region_change *const *)x;
    const scope_region_change *b = *(const scope_region_change *const *)y;
    int m = *(const int *)metric;
    int sa = a->verdict == SCOPE_VERDICT_SLOWER || a->verdict == SCOPE_VERDICT_FASTER;
    int sb = b->verdict == SCOPE_VERDICT_SLOWER || b->verdict == SCOPE_VERDICT_FASTER;
    if (sa != sb)
        return sb - sa;
    double da = m ? a->total_change : a->median_change;
    double db = m ? b->total_change : b->median_change;
    da = isnan(da) ? INFINITY : fabs(da);
    db = isnan(db) ? INFINITY : fabs(db);
    if (da != db)
        return da > db ? -1 : 1;
    int c = strcmp(a->region, b->region);
    return c ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

/* Prints the rows of every result (per rank: of every rank, in one
 * order) in the chosen format, after the warnings. Returns the status. */
static int print_report(report *r)
{
    int64_t total = 0;
    for (int k = 0; k < r->nres; k++)
        total += scope_compare_count(r->res[k]);
    const scope_region_change **rows = malloc((size_t)(total ? total : 1) * sizeof *rows);
    if (!rows)
        return scope__fail_msg("out of memory");
    int64_t n = 0;
    for (int k = 0; k < r->nres; k++)
        for (int64_t i = 0; i < scope_compare_count(r->res[k]); i++)
            rows[n++] = scope_compare_row(r->res[k], i);
    if (r->nres > 1 && n > 1)   /* per rank: one order over all the rows */
        qsort_r(rows, (size_t)n, sizeof *rows, cmp_rows_ranked, &r->metric);
    for (int w = 0; w < r->nwarn; w++)
        fprintf(stderr, "scope: diff: %s\n", r->warn[w]);
    int status = 0;
    if (r->format == 1) {
        fputs("region,rank,verdict,runs_a,runs_b,samples_a,samples_b,calls_a,calls_b,"
              "median_a,median_b,median_change,median_lo,median_hi,median_u,median_p,"
              "total_a,total_b,total_change,total_lo,total_hi,total_u,total_p,min_p,"
              "exact\n", stdout);
        for (int64_t i = 0; i < n; i++)
            put_csv_row(rows[i], r->level);
    } else if (r->format == 2) {
        printf("{\"level\": %g, \"resamples\": %d, \"seed\": %llu, \"samples\": \"%s\", "
               "\"metric\": \"%s\", \"test\": \"Mann-Whitney U, two-sided\", "
               "\"interval\": \"percentile bootstrap\", \"a\": [", r->level, r->resamples,
               (unsigned long long)r->seed, r->calls ? "calls" : "runs",
               r->metric ? "total" : "median");
        for (int i = 0; i < r->a->n; i++) {
            fputs(i ? ", " : "", stdout);
            scope__put_json_string(stdout, r->a->paths[i]);
        }
        fputs("], \"b\": [", stdout);
        for (int i = 0; i < r->b->n; i++) {
            fputs(i ? ", " : "", stdout);
            scope__put_json_string(stdout, r->b->paths[i]);
        }
        fputs("], \"warnings\": [", stdout);
        for (int w = 0; w < r->nwarn; w++) {
            fputs(w ? ", " : "", stdout);
            scope__put_json_string(stdout, r->warn[w]);
        }
        fputs("], \"regions\": [", stdout);
        for (int64_t i = 0; i < n; i++)
            put_json_row(rows[i], i == 0);
        fputs(n ? "\n]}\n" : "]}\n", stdout);
    } else {
        printf("A: %d run%s, B: %d run%s; samples: %s; %g %% intervals (percentile "
               "bootstrap, %d resamples, seed %llu); test: Mann-Whitney U, two-sided, "
               "p < %g; verdict by the %s\n", r->a->n, r->a->n > 1 ? "s" : "", r->b->n,
               r->b->n > 1 ? "s" : "", r->calls ? "calls (pooled)" : "one per run",
               100 * r->level, r->resamples, (unsigned long long)r->seed, 1 - r->level,
               r->metric ? "total time" : "median per-call time");
        static const char *const heads[10] = { "region", "rank", "verdict", "median A",
                                               "median B", "change [interval]", "p",
                                               "total A", "total B", "change [interval]" };
        static const int right[10] = { 0, 1, 0, 1, 1, 1, 1, 1, 1, 1 };
        static const int shrink[10] = { 1 };
        scope__table tab;
        scope__table_init(&tab, 10, heads, right);
        scope__table_fit(&tab, scope__out_width(stdout, r->wide), shrink);
        for (int64_t i = 0; i < n && !status; i++) {
            const scope_region_change *c = rows[i];
            char rk[16], ma[48], mb[48], mc[80], p[16], ta[48], tb[48], tc[80];
            if (c->rank == SCOPE_ALL_RANKS)
                snprintf(rk, sizeof rk, "all");
            else
                snprintf(rk, sizeof rk, "%d", c->rank);
            fmt_time(ma, sizeof ma, c->median_a);
            fmt_time(mb, sizeof mb, c->median_b);
            fmt_change(mc, sizeof mc, c->median_change, c->median_lo, c->median_hi);
            fmt_p(p, sizeof p, r->metric ? c->total_p : c->median_p);
            fmt_time(ta, sizeof ta, c->total_a);
            fmt_time(tb, sizeof tb, c->total_b);
            fmt_change(tc, sizeof tc, c->total_change, c->total_lo, c->total_hi);
            const char *cells[10] = { c->region, rk, scope_compare_verdict_name(c->verdict),
                                      ma, mb, mc, p, ta, tb, tc };
            if (scope__table_add(&tab, cells) < 0)
                status = scope__fail_msg("out of memory");
        }
        if (!status && scope__table_print(&tab, stdout) < 0)
            status = scope__fail_msg("out of memory");
        scope__table_free(&tab);
    }
    free(rows);
    if (!status)
        status = scope__stdout_check("cannot write the diff to standard output");
    return status;
}

/* Warnings about what the sizes of the sets allow. */
static void size_warnings(report *r)
{
    int na = r->a->n, nb = r->b->n;
    double alpha = 1 - r->level;
    if (r->calls) {
        if (na > 1 || nb > 1)
            snprintf(r->warn[r->nwarn++], sizeof r->warn[0], "--calls pools the calls "
                     "of %d and %d runs: differences between runs count as differences "
                     "between calls; without --calls the runs are the samples", na, nb);
        return;
    }
    double minp = scope_stat_mwu_min_p(na, nb);
    if (minp >= alpha)
        snprintf(r->warn[r->nwarn++], sizeof r->warn[0], "too few runs to conclude "
                 "anything: with %d vs %d runs no two-sided test at %g %% can reject "
                 "(the smallest p-value is %.3g); it needs at least %d runs each%s",
                 na, nb, 100 * alpha, minp, scope_stat_min_runs(r->level),
                 fabs(r->level - 0.95) < 1e-12 ? " (or 3 vs 5)" : "");
}

static int parse_double(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return end == s || *end ? -1 : 0;
}

/* What the options asked for, and the operands: pos[0] before --vs (or
 * both of "A B"), pos[1] after it. */
typedef struct {
    int format, wide, vs, per_rank, calls, metric;
    scope_compare_options o;
    run_list pos[2];
} diff_opts;

/* Reads the options and operands into d. Returns -1 to go on, else the
 * exit status (0 after --help, 1 out of memory, 2 on bad usage). */
static int parse_options(int argc, char **argv, diff_opts *d)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "wide", no_argument, NULL, 'w' },
        { "vs", no_argument, NULL, 'V' },
        { "level", required_argument, NULL, 'L' },
        { "resamples", required_argument, NULL, 'R' },
        { "seed", required_argument, NULL, 'S' },
        { "metric", required_argument, NULL, 'M' },
        { "per-rank", no_argument, NULL, 'P' },
        { "calls", no_argument, NULL, 'C' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    scope_compare_options *o = &d->o;
    int c;
    int64_t v;
    /* '-': operands come back in order as option 1, so that --vs splits
     * them wherever the options are */
    scope__options parse = { .cmd = "diff", .help = diff_help, .argc = argc, .argv = argv,
                              .shortopts = "-:h", .longopts = opts, .format = &d->format };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 1:
            if (push_path(&d->pos[d->vs], optarg) < 0)
                return scope__fail_msg("out of memory");
            break;
        case 'V':
            if (d->vs)
                return scope__usage_error("diff", "--vs given twice");
            d->vs = 1;
            break;
        case 'w':
            d->wide = 1;
            break;
        case 'P':
            d->per_rank = 1;
            break;
        case 'C':
            d->calls = o->calls = 1;
            break;
        case 'L':
            if (parse_double(optarg, &o->level) < 0 || !(o->level > 0 && o->level < 1))
                return scope__usage_error("diff", "--level '%s' is not a number between 0 "
                                          "and 1 (e.g. 0.95)", optarg);
            break;
        case 'R':
            if (scope__parse_i64(optarg, &v) < 0 || v < 2 || v > 100000000)
                return scope__usage_error("diff", "--resamples '%s' is not a whole number "
                                          "from 2 to 100000000", optarg);
            o->resamples = (int32_t)v;
            break;
        case 'S':
            if (scope__parse_i64(optarg, &v) < 0 || v < 0)
                return scope__usage_error("diff", "--seed '%s' is not a whole number >= 0",
                                          optarg);
            o->seed = (uint64_t)v;
            break;
        case 'M':
            if (strcmp(optarg, "median") && strcmp(optarg, "total"))
                return scope__usage_error("diff", "unknown metric '%s' (median or total)",
                                          optarg);
            d->metric = o->metric = !strcmp(optarg, "total");
            break;
        }
    }
    if (c < 0)
        return parse.status;
    if (d->vs && (d->pos[0].n == 0 || d->pos[1].n == 0))
        return scope__usage_error("diff", "an empty set: give at least one run before and "
                                  "after --vs");
    if (!d->vs && d->pos[0].n == 0)
        return scope__usage_error("diff", "no runs given: A B (two runs, or two folders of "
                                  "runs), or sets of runs A... --vs B...");
    if (!d->vs && d->pos[0].n != 2)
        return scope__usage_error("diff", "%d run%s without --vs: give A B (two runs, or two "
                                  "folders of runs), or sets of runs A... --vs B...",
                                  d->pos[0].n, d->pos[0].n == 1 ? "" : "s");
    return -1;
}

/* The runs of sets A and B from the operands (a folder stands for the
 * runs in it). Returns 0, or 1 (said). */
static int gather_sets(diff_opts *d, run_list *a, run_list *b)
{
    if (!d->vs) {
        /* A B: each may be a folder of runs */
        d->pos[1].n = 0;
        if (push_path(&d->pos[1], d->pos[0].paths[1]) < 0)
            return scope__fail_msg("out of memory");
        free(d->pos[0].paths[1]);
        d->pos[0].n = 1;
    }
    for (int i = 0; i < d->pos[0].n; i++)
        if (add_runs(a, d->pos[0].paths[i]))
            return 1;
    for (int i = 0; i < d->pos[1].n; i++)
        if (add_runs(b, d->pos[1].paths[i]))
            return 1;
    /* a run in a set twice would count twice; one run against itself
     * (the plain form) is a harmless check and stays allowed */
    if ((a->n > 1 || b->n > 1) && check_distinct(a, b))
        return 1;
    return 0;
}

/* The opened sets pa (a->n runs) and pb compared and printed: the plain
 * change for one run each, else the statistics of scope_compare_sets(),
 * per rank with --per-rank. Returns the exit status. */
static int compare_sets(diff_opts *d, scope_profile **pa, scope_profile **pb, run_list *a,
                        run_list *b)
{
    if (d->per_rank && !same_ranks(pa[0], pb[0])) {
        char r0[128], r1[128];
        rank_text(pa[0], r0, sizeof r0);
        rank_text(pb[0], r1, sizeof r1);
        fprintf(stderr, "scope: diff: --per-rank needs the same ranks in both sets: %s "
                "has ranks %s, %s has ranks %s\n", a->paths[0], r0, b->paths[0], r1);
        return 1;
    }
    char job[1400];
    job_note(pa[0], pb[0], job, sizeof job);
    if (a->n == 1 && b->n == 1 && !d->calls) {
        if (d->per_rank) {
            fprintf(stderr, "scope: diff: --per-rank needs several runs per set, or "
                    "--calls, to test anything; one run each gives the plain change "
                    "of all ranks\n");
            return 1;
        }
        if (d->format == 0)    /* csv and json are read by scripts: json says it */
            fprintf(stderr, "scope: diff: %s\n", one_run_note);
        /* different jobs: also beside csv, where nothing else would say it */
        if (job[0] && d->format != 2)
            fprintf(stderr, "scope: diff: %s\n", job);
        return plain_diff(pa[0], pb[0], d->format, d->wide, job);
    }
    int status = 1, nres = d->per_rank ? scope_profile_rank_count(pa[0]) : 1;
    scope_compare_result **res = calloc((size_t)nres, sizeof *res);
    if (!res)
        return scope__fail_msg("out of memory");
    for (int i = 0; i < nres; i++) {
        d->o.rank = d->per_rank ? scope_profile_rank(pa[0], i) : SCOPE_ALL_RANKS;
        if (scope_compare_sets(pa, a->n, pb, b->n, &d->o, &res[i]) < 0) {
            scope__fail_msg(scope_reader_errmsg());
            goto done;
        }
    }
    report r = { .res = res, .nres = nres, .format = d->format, .wide = d->wide,
                 .per_rank = d->per_rank, .calls = d->calls, .metric = d->metric,
                 .level = d->o.level, .resamples = d->o.resamples, .seed = d->o.seed,
                 .a = a, .b = b };
    if (job[0])
        snprintf(r.warn[r.nwarn++], sizeof r.warn[0], "%s", job);
    size_warnings(&r);
    status = print_report(&r);
done:
    for (int i = 0; i < nres; i++)
        scope_compare_free(res[i]);
    free(res);
    return status;
}

int scope_cmd_diff(int argc, char **argv)
{
    diff_opts d = { 0 };
    scope_compare_options_init(&d.o);
    run_list a = { 0 }, b = { 0 };
    scope_profile **pa = NULL, **pb = NULL;
    int status = parse_options(argc, argv, &d);
    if (status >= 0)
        goto done;
    status = 1;
    if (gather_sets(&d, &a, &b))
        goto done;
    if (!(pa = calloc((size_t)a.n, sizeof *pa)) || !(pb = calloc((size_t)b.n, sizeof *pb))) {
        scope__fail_msg("out of memory");
        goto done;
    }
    if (open_runs(&a, pa, "A") || open_runs(&b, pb, "B"))
        goto done;
    status = compare_sets(&d, pa, pb, &a, &b);
done:
    for (int i = 0; pa && i < a.n; i++)
        scope_profile_close(pa[i]);
    for (int i = 0; pb && i < b.n; i++)
        scope_profile_close(pb[i]);
    free(pa);
    free(pb);
    free_list(&a);
    free_list(&b);
    free_list(&d.pos[0]);
    free_list(&d.pos[1]);
    return status;
}
