/*
 * cmd_callsites.c - `scope callsites PATH...`: where each timed function
 * was called from, mpiP style: one row per (region, call site) with calls,
 * total, mean, min, max and the site's share of the region's time, and
 * the site resolved to "function (file:line) <- caller (file:line)".
 *
 * The numbers come from libscope_reader (sites merged across ranks by
 * their frames); the locations from symbolize.c (libdw), done once per
 * site that is printed.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"
#include "scope_reader_io.h"
#include "scope_reader_waits.h"
#include "symbolize.h"

static const char callsites_help[] =
    "usage: scope callsites [--region RE]... [--top N] [--rank R]\n"
    "                       [--format table|csv|json] [--waits] [--wide] PATH...\n"
    "\n"
    "One row per (region, call site), for the regions recorded with call\n"
    "sites (config: `name callsites=N`): calls, total, mean, min and max of\n"
    "the call durations, and share = the site's part of the region's total\n"
    "time. A site is a call path (N frames); the same path on several ranks\n"
    "is one site, numbered in the \"site\" column. Calls the recorder could\n"
    "not attribute get a row with site \"-\". Rows are sorted by total time,\n"
    "largest first (ties: region order, then site).\n"
    "\n"
    "location: each frame as \"function (file:line)\" from the object's\n"
    "DWARF (inline frames as \"f (a.h:3) inlined in g (b.c:9)\"), else\n"
    "\"symbol+0xOFF (object)\" from its symbol table, else \"object+0xOFF\";\n"
    "frames are joined by \" <- \" (frame 0, the immediate caller, first).\n"
    "Objects are opened at the path the run recorded; \"(object missing)\" or\n"
    "\"(build-id differs)\" say why a frame could not be resolved.\n"
    "\n"
    "options:\n"
    "  --region RE    only regions whose name matches RE (POSIX extended\n"
    "                 regex, matched anywhere); repeatable\n"
    "  --top N        only the N rows with the largest total\n"
    "  --rank R       statistics of rank R alone (default: all ranks)\n"
    "  --format F     table (default, human units), csv or json. csv header:\n"
    "                   region,rank,site,calls,total,mean,min,max,\n"
    "                   share,location\n"
    "                 json: {\"callsites\":[{...}]} with the same names;\n"
    "                 times in plain seconds, share as a fraction;\n"
    "                 rank is \"all\" or the rank; site -1 for unattributed\n"
    "  --waits        add the time the calls of each site waited for other\n"
    "                 ranks (scope waits, docs/analysis.md): column waiting\n"
    SCOPE__HELP_WIDE_AND_HELP;

enum { FMT_TABLE, FMT_CSV, FMT_JSON };

typedef struct {
    int region;
    int site;               /* -1: calls without a site */
    scope_stats st;
    double share;
    int64_t sent, received; /* what the calls moved (MPI; 0 otherwise) */
    int64_t read, written;  /* what I/O calls read or wrote (0 otherwise) */
    int64_t waiting;        /* --waits: time waiting for other ranks */
} site_row;

/* --waits: adds the waits of `region`'s calls on `rank` (or every rank)
 * into waiting[site] (index nsites: calls without a site). Returns 0 or
 * -1 (the reader's message is set). */
static int site_waits(scope_profile *p, const scope_waits *w, int region, int rank, int nsites,
                      int64_t *waiting)
{
    const scope_wait_call *c;
    int64_t n = scope_waits_calls(w, &c);
    for (int64_t i = 0; i < n; i++) {
        if (c[i].region != region || (rank != SCOPE_ALL_RANKS && c[i].rank != rank) ||
            c[i].wait_ns <= c[i].bound_ns)
            continue;
        const int32_t *sites;
        int64_t ns;
        if (scope_profile_call_sites(p, region, c[i].rank, &sites, &ns) < 0)
            return -1;
        int64_t k = c[i].call;
        int s = sites && k < ns && sites[k] >= 0 && sites[k] < nsites ? sites[k] : nsites;
        waiting[s] += c[i].wait_ns;
    }
    return 0;
}

/* Adds the bytes of `region`'s calls on `rank` (or every rank) into
 * sent[site], received[site]; index nsites holds the calls without a
 * site. Returns 0 or -1 (the reader's message is set). */
static int site_bytes(scope_profile *p, int region, int rank, int nsites, int64_t *sent,
                      int64_t *received)
{
    int nr = scope_profile_rank_count(p);
    for (int k = 0; k < nr; k++) {
        int rk = scope_profile_rank(p, k);
        if (rank != SCOPE_ALL_RANKS && rk != rank)
            continue;
        scope_moved m;
        const int32_t *sites;
        int64_t n;
        if (scope_profile_moved(p, region, rk, &m) < 0 ||
            scope_profile_call_sites(p, region, rk, &sites, &n) < 0)
            return -1;
        for (int64_t i = 0; m.bytes_sent && i < m.n; i++) {
            int s = sites && i < n && sites[i] >= 0 && sites[i] < nsites ? sites[i] : nsites;
            sent[s] += m.bytes_sent[i];
            received[s] += m.bytes_received[i];
        }
    }
    return 0;
}

/* Adds the bytes the I/O calls of `region` on `rank` (or every rank)
 * read or wrote into bytes[site] (index nsites: calls without a site),
 * and says in *dir which: 1 read, 2 written, 0 neither (a region that
 * moves no data). Returns 0 or -1 (the reader's message is set). */
static int site_io_bytes(scope_profile *p, int region, int rank, int nsites, int64_t *bytes,
                         int *dir)
{
    int64_t rd, wr;
    if (scope_profile_io_bytes(p, region, rank, &rd, &wr) < 0)
        return -1;
    *dir = rd > 0 ? 1 : wr > 0 ? 2 : 0;
    int nr = scope_profile_rank_count(p);
    for (int k = 0; *dir && k < nr; k++) {
        int rk = scope_profile_rank(p, k);
        if (rank != SCOPE_ALL_RANKS && rk != rank)
            continue;
        scope_io_columns c;
        const int32_t *sites;
        int64_t n;
        if (scope_profile_io_columns(p, region, rk, &c) < 0 ||
            scope_profile_call_sites(p, region, rk, &sites, &n) < 0)
            return -1;
        for (int64_t i = 0; c.bytes && i < c.n; i++) {
            int s = sites && i < n && sites[i] >= 0 && sites[i] < nsites ? sites[i] : nsites;
            bytes[s] += c.bytes[i];
        }
    }
    return 0;
}

static int cmp_rows(const void *a, const void *b)
{
    const site_row *x = a, *y = b;
    if (x->st.total_ns != y->st.total_ns)
        return x->st.total_ns < y->st.total_ns ? 1 : -1;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    return (x->site > y->site) - (x->site < y->site);
}

/* Collects the rows of every selected region that holds call sites.
 * Returns the row count or -1 (message printed). */
static int collect(scope_profile *p, const scope_waits *w, const int *regions, int nreg,
                   int rank, int nsites, site_row **out)
{
    size_t cap = 64, n = 0;
    site_row *rows = malloc(cap * sizeof *rows);
    scope_stats *st = calloc((size_t)nsites + 1, sizeof *st);
    int64_t *sb = calloc((size_t)nsites + 1, sizeof *sb), *rb = calloc((size_t)nsites + 1, sizeof *rb);
    int64_t *wb = calloc((size_t)nsites + 1, sizeof *wb), *ib = calloc((size_t)nsites + 1, sizeof *ib);
    if (!rows || !st || !sb || !rb || !wb || !ib)
        goto fail_mem;
    for (int i = 0; i < nreg; i++) {
        int r = regions[i];
        scope_stats none, all;
        if (scope_profile_site_stats(p, r, rank, st, &none) < 0 ||
            scope_profile_stats(p, r, rank, &all) < 0)
            goto fail_reader;
        int any = 0;
        for (int s = 0; s < nsites; s++)
            any |= st[s].calls > 0;
        if (!any)
            continue;
        memset(sb, 0, ((size_t)nsites + 1) * sizeof *sb);
        memset(rb, 0, ((size_t)nsites + 1) * sizeof *rb);
        if (site_bytes(p, r, rank, nsites, sb, rb) < 0)
            goto fail_reader;
        memset(wb, 0, ((size_t)nsites + 1) * sizeof *wb);
        if (w && site_waits(p, w, r, rank, nsites, wb) < 0)
            goto fail_reader;
        memset(ib, 0, ((size_t)nsites + 1) * sizeof *ib);
        int dir = 0;
        if (site_io_bytes(p, r, rank, nsites, ib, &dir) < 0)
            goto fail_reader;
        for (int s = -1; s < nsites; s++) {
            const scope_stats *one = s < 0 ? &none : &st[s];
            if (one->calls == 0)
                continue;
            if (n == cap) {
                site_row *nr = realloc(rows, 2 * cap * sizeof *nr);
                if (!nr)
                    goto fail_mem;
                rows = nr;
                cap *= 2;
            }
            int b = s < 0 ? nsites : s;
            rows[n++] = (site_row){ r, s, *one,
                all.total_ns > 0 ? (double)one->total_ns / (double)all.total_ns : 0.0,
                sb[b], rb[b], dir == 1 ? ib[b] : 0, dir == 2 ? ib[b] : 0, wb[b] };
        }
    }
    free(st);
    free(sb);
    free(rb);
    free(wb);
    free(ib);
    *out = rows;
    return (int)n;
fail_mem:
    fprintf(stderr, "scope: out of memory\n");
    goto fail;
fail_reader:
    fprintf(stderr, "scope: %s\n", scope_reader_errmsg());
fail:
    free(rows);
    free(st);
    free(sb);
    free(rb);
    free(wb);
    free(ib);
    return -1;
}

/* The location of a site (cached in locs[]); "" for -1. NULL: no memory. */
static const char *location(scope_profile *p, scope__symbolizer *sym,
                            char **locs, int site)
{
    if (site < 0)
        return "";
    if (!locs[site]) {
        const scope_callsite_frame *fr;
        int depth;
        if (scope_profile_site_frames(p, site, &fr, &depth) < 0)
            return NULL;
        locs[site] = scope__symbolize_site(sym, fr, depth);
    }
    return locs[site];
}

/* Which optional columns a listing has: bytes moved, time waiting. */
struct columns {
    int moved, io, waits;
};

/* One row of the table for people (rk: the rank column's text). Returns
 * 0 or -1 (out of memory). */
static int table_row(scope__table *t, const site_row *r, const char *name, const char *rk,
                     const char *loc, struct columns c)
{
    char site[16], calls[32], total[48], mean[48], min[48], max[48], share[48];
    snprintf(calls, sizeof calls, "%lld", (long long)r->st.calls);
    if (r->site < 0)
        strcpy(site, "-");
    else
        snprintf(site, sizeof site, "%d", r->site);
    scope__fmt_human(total, sizeof total, (double)r->st.total_ns);
    scope__fmt_human(mean, sizeof mean, r->st.mean_ns);
    scope__fmt_human(min, sizeof min, (double)r->st.min_ns);
    scope__fmt_human(max, sizeof max, (double)r->st.max_ns);
    snprintf(share, sizeof share, "%.1f%%", r->share * 100.0);
    char sent[48], recv[48], rd[48], wr[48], wait[48];
    scope__fmt_bytes(sent, sizeof sent, r->sent);
    scope__fmt_bytes(recv, sizeof recv, r->received);
    scope__fmt_bytes(rd, sizeof rd, r->read);
    scope__fmt_bytes(wr, sizeof wr, r->written);
    scope__fmt_human(wait, sizeof wait, (double)r->waiting);
    const char *cells[15] = { name, rk, site, calls, total, mean, min, max, share };
    int k = 9;
    if (c.moved) {
        cells[k++] = sent;
        cells[k++] = recv;
    }
    if (c.io) {
        cells[k++] = rd;
        cells[k++] = wr;
    }
    if (c.waits)
        cells[k++] = wait;
    cells[k] = loc;
    return scope__table_add(t, cells) < 0 ? -1 : 0;
}

/* One row of csv or json (the i-th: json separates them), times in
 * seconds. */
static void machine_row(FILE *out, int format, int i, const site_row *r, const char *name,
                        int rank, const char *rk, const char *loc, struct columns c)
{
    char site[16], calls[32], total[48], mean[48], min[48], max[48], share[48];
    snprintf(calls, sizeof calls, "%lld", (long long)r->st.calls);
    snprintf(site, sizeof site, "%d", r->site);
    scope__fmt_seconds_i64(total, sizeof total, r->st.total_ns);
    scope__fmt_seconds_dbl(mean, sizeof mean, r->st.mean_ns);
    scope__fmt_seconds_i64(min, sizeof min, r->st.min_ns);
    scope__fmt_seconds_i64(max, sizeof max, r->st.max_ns);
    scope__fmt_ratio(share, sizeof share, r->share);
    if (format == FMT_CSV) {
        scope__put_csv_field(out, name);
        fprintf(out, ",%s,%s,%s,%s,%s,%s,%s,%s,", rk, site, calls, total, mean,
                min, max, share);
        scope__put_csv_field(out, loc);
        if (c.moved)
            fprintf(out, ",%lld,%lld", (long long)r->sent, (long long)r->received);
        if (c.io)
            fprintf(out, ",%lld,%lld", (long long)r->read, (long long)r->written);
        if (c.waits) {
            scope__fmt_seconds_i64(total, sizeof total, r->waiting);
            fprintf(out, ",%s", total);
        }
        fputc('\n', out);
        return;
    }
    fputs(i ? ",\n  {\"region\": " : "\n  {\"region\": ", out);
    scope__put_json_string(out, name);
    if (rank == SCOPE_ALL_RANKS)
        fputs(", \"rank\": \"all\"", out);
    else
        fprintf(out, ", \"rank\": %d", rank);
    fprintf(out, ", \"site\": %s, \"calls\": %s, \"total\": %s, \"mean\": %s, "
            "\"min\": %s, \"max\": %s, \"share\": %s, \"location\": ", site,
            calls, total, mean, min, max, share);
    scope__put_json_string(out, loc);
    if (c.moved)
        fprintf(out, ", \"bytes_sent\": %lld, \"bytes_received\": %lld",
                (long long)r->sent, (long long)r->received);
    if (c.io)
        fprintf(out, ", \"bytes_read\": %lld, \"bytes_written\": %lld",
                (long long)r->read, (long long)r->written);
    if (c.waits) {
        scope__fmt_seconds_i64(total, sizeof total, r->waiting);
        fprintf(out, ", \"waiting\": %s", total);
    }
    fputc('}', out);
}

static int print_rows(FILE *out, scope_profile *p, const site_row *rows,
                      int n, int rank, int format, int wide, char **locs, int waits)
{
    /* the byte columns (mpiP's table) when the profile records them, and
     * the waiting column when asked */
    int moved = scope_profile_has_moved(p), io = scope_profile_has_io(p);
    const char *heads[15] = { "region", "rank", "site", "calls", "total", "mean", "min",
                              "max", "share" };
    int right[15] = { 0, 1, 1, 1, 1, 1, 1, 1, 1 }, shrink[15] = { 1 }, ncol = 9;
    if (moved) {
        heads[ncol] = "sent";
        right[ncol++] = 1;
        heads[ncol] = "received";
        right[ncol++] = 1;
    }
    if (io) {
        heads[ncol] = "read";
        right[ncol++] = 1;
        heads[ncol] = "written";
        right[ncol++] = 1;
    }
    if (waits) {
        heads[ncol] = "waiting";
        right[ncol++] = 1;
    }
    heads[ncol] = "location";
    shrink[ncol++] = 1;
    scope__symbolizer *sym = scope__symbolizer_new();
    scope__table t;
    scope__table_init(&t, ncol, heads, right);
    scope__table_fit(&t, scope__out_width(out, wide), shrink);
    int status = 1;
    if (!sym)
        goto fail_mem;
    char rk[16];
    if (rank == SCOPE_ALL_RANKS)
        strcpy(rk, "all");
    else
        snprintf(rk, sizeof rk, "%d", rank);
    if (format == FMT_CSV)
        fprintf(out, "region,rank,site,calls,total,mean,min,max,share,location%s%s%s\n",
                moved ? ",bytes_sent,bytes_received" : "", io ? ",bytes_read,bytes_written" : "",
                waits ? ",waiting" : "");
    else if (format == FMT_JSON)
        fputs("{\"callsites\": [", out);
    for (int i = 0; i < n; i++) {
        const site_row *r = &rows[i];
        const char *name = scope_profile_region_name(p, r->region);
        const char *loc = location(p, sym, locs, r->site);
        if (!loc)
            goto fail_mem;
        struct columns c = { moved, io, waits };
        if (format == FMT_TABLE) {
            if (table_row(&t, r, name, rk, loc, c) < 0)
                goto fail_mem;
        } else {
            machine_row(out, format, i, r, name, rank, rk, loc, c);
        }
    }
    if (format == FMT_TABLE && scope__table_print(&t, out) < 0)
        goto fail_mem;
    else if (format == FMT_JSON)
        fputs(n ? "\n]}\n" : "]}\n", out);
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "scope: cannot write the table\n");
        goto fail;
    }
    status = 0;
    goto fail;
fail_mem:
    fprintf(stderr, "scope: out of memory\n");
fail:
    scope__table_free(&t);
    scope__symbolizer_free(sym);
    return status;
}

/* Runs the command on an opened profile; returns the exit status. */
static int run(scope_profile *p, const char *const *inc, int ninc, int rank,
               int64_t top, int format, int wide, int want_waits)
{
    scope_waits *w = NULL;
    int status = 1, nsites = scope_profile_site_count(p);
    int *regions = malloc(((size_t)scope_profile_region_count(p) + 1) * sizeof *regions);
    char **locs = NULL;
    site_row *rows = NULL;
    if (!regions)
        return scope__fail_msg("out of memory");
    int nreg = nsites < 0 ? -1 : scope_profile_select_regions(p, inc, ninc, NULL, 0, regions);
    if (nreg < 0 || (rank != SCOPE_ALL_RANKS && scope_profile_rank_callsite_count(p, rank) < 0)) {
        status = scope__fail_msg(scope_reader_errmsg());
        goto fail;
    }
    if (nsites == 0)
        fprintf(stderr, "scope: the profile holds no call sites (record them with "
                        "'NAME callsites=N' in the config)\n");
    if (want_waits && !scope_profile_has_moved(p))
        fprintf(stderr, "scope: callsites: --waits: the profile records no data of MPI calls, "
                "so no wait states\n");
    else if (want_waits && scope_profile_waits(p, SCOPE_WAITS_NO_MESSAGES, &w) < 0) {
        status = scope__fail_msg(scope_reader_errmsg());
        goto fail;
    }
    int n = collect(p, w, regions, nreg, rank, nsites, &rows);
    if (n < 0)
        goto fail;
    qsort(rows, (size_t)n, sizeof *rows, cmp_rows);
    if (top >= 0 && top < n)
        n = (int)top;
    if (!(locs = calloc((size_t)nsites + 1, sizeof *locs))) {
        status = scope__fail_msg("out of memory");
        goto fail;
    }
    status = print_rows(stdout, p, rows, n, rank, format, wide, locs, w != NULL);
fail:
    scope_waits_free(w);
    for (int s = 0; locs && s < nsites; s++)
        free(locs[s]);
    free(locs);
    free(rows);
    free(regions);
    return status;
}

int scope_cmd_callsites(int argc, char **argv)
{
    static const struct option opts[] = {
        { "region", required_argument, NULL, 'e' },
        { "top", required_argument, NULL, 't' },
        { "rank", required_argument, NULL, 'r' },
        { "format", required_argument, NULL, 'f' },
        { "wide", no_argument, NULL, 'w' },
        { "waits", no_argument, NULL, 'W' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char **inc = calloc((size_t)argc, sizeof *inc);
    int c, ninc = 0, format = FMT_TABLE, wide = 0, rank = SCOPE_ALL_RANKS, status = 2;
    int want_waits = 0;
    int64_t top = -1, v;
    if (!inc)
        return scope__fail_msg("out of memory");
    scope_profile *p;
    scope__options parse = { .cmd = "callsites", .help = callsites_help, .argc = argc, .argv = argv,
                              .shortopts = ":h", .longopts = opts, .profile = &p,
                              .format = &format };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 'e':
            inc[ninc++] = optarg;
            break;
        case 'w':
            wide = 1;
            break;
        case 'W':
            want_waits = 1;
            break;
        case 't':
            if (scope__parse_i64(optarg, &top) < 0 || top < 0) {
                scope__usage_error("callsites", "--top needs a count, not '%s'", optarg);
                goto fail;
            }
            break;
        case 'r':
            if (scope__parse_i64(optarg, &v) < 0 || v < 0 || v > 0x7fffffff) {
                scope__usage_error("callsites", "--rank needs a rank number, not "
                                   "'%s'", optarg);
                goto fail;
            }
            rank = (int)v;
            break;
        }
    }
    if (c < 0) {
        status = parse.status;
        goto fail;
    }
    status = run(p, inc, ninc, rank, top, format, wide, want_waits);
    scope_profile_close(p);
fail:
    free(inc);
    return status;
}
