/*
 * cmd_diff.c - `scope diff A B`: how each region changed between two runs
 * (total and mean time, calls), sorted by the size of the change in total,
 * so a regression or an optimisation shows at the top. Regions are matched
 * by name; a region in only one run counts as 0 in the other.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"

static const char diff_help[] =
    "usage: scope diff [--format table|csv|json] [--wide] A B\n"
    "\n"
    "Per region (matched by name, all ranks together): total and mean call\n"
    "time in A and in B, the change B - A of each, and calls in both. Rows\n"
    "are sorted by the absolute change in total, largest first (ties by\n"
    "name). A region missing from one run has 0 calls there. A and B are\n"
    "each one profile path (index file, merged file, rank file or folder).\n"
    "\n"
    "options:\n"
    "  --format F     table (default), csv or json; csv header:\n"
    "                 region,calls_a,calls_b,total_a,total_b,\n"
    "                 total_change,mean_a,mean_b,mean_change (times in\n"
    "                 plain seconds); json: {\"regions\": [...]}, same fields\n"
    "  --wide         full names: no fitting of the table to the terminal\n"
    "                 (a table on a terminal, or with $COLUMNS set, is cut\n"
    "                 to its width by eliding the middle of long names;\n"
    "                 csv and json always hold full names)\n"
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

int scope_cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "wide", no_argument, NULL, 'w' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    static const char *const formats[] = { "table", "csv", "json", NULL };
    int c, k, format = 0, wide = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'w':
            wide = 1;
            break;
        case 'f':
            for (k = 0; formats[k] && strcmp(formats[k], optarg); k++)
                ;
            if (!formats[k])
                return scope__usage_error("diff", "unknown format '%s' "
                                          "(table, csv or json)", optarg);
            format = k;
            break;
        case 'h':
            fputs(diff_help, stdout);
            return 0;
        default: /* ':' or an unknown option */
            return scope__option_error("diff", c, argv);
        }
    }
    if (argc - optind != 2)
        return scope__usage_error("diff", "needs exactly two profiles, A "
                                  "and B");
    scope_profile *pa = scope__open_or_report(argv + optind, 1), *pb = NULL;
    if (!pa)
        return 1;
    int status = 1;
    row *rows = NULL;
    if (!(pb = scope__open_or_report(argv + optind + 1, 1)))
        goto fail_open;
    int na = scope_profile_region_count(pa), nb = scope_profile_region_count(pb);
    size_t n = 0;
    if (!(rows = calloc((size_t)(na + nb) + 1, sizeof *rows))) {
        scope__fail_msg("out of memory");
        goto fail_open;
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
            goto fail_open;
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
    else if (format == 2)
        fputs("{\"regions\": [", stdout);
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
                goto fail_open;
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
        goto fail_open;
    } else if (format == 2)
        fputs(n ? "\n]}\n" : "]}\n", stdout);
    scope__table_free(&tab);
    status = fflush(stdout) != 0 || ferror(stdout)
             ? scope__fail_msg("cannot write the diff to standard output") : 0;
fail_open:
    free(rows);
    scope_profile_close(pb);
    scope_profile_close(pa);
    return status;
}
