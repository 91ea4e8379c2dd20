/*
 * cmd_omp.c - `scope omp PATH...`: the threads inside each rank. The
 * parallel regions (largest first) with their team sizes, time, work,
 * waits, imbalance, efficiency and slowest thread; the work-sharing
 * constructs; the waits to acquire locks, critical sections, ordered
 * regions and atomics; the explicit tasks; the threads OpenMP reported
 * (begin, end, type). --threads adds each thread's row under its region;
 * csv has one row per (construct, rank, thread).
 *
 * The numbers come from libscope_reader (scope_profile_omp,
 * docs/analysis.md "OpenMP"); a construct's location from symbolize.c,
 * once per construct printed.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "scope_omp.h"
#include "scope_reader.h"
#include "scope_reader_omp.h"
#include "symbolize.h"

static const char omp_help[] =
    "usage: scope omp [--threads] [--rank R] [--top N] [--format table|csv|json]\n"
    "                 [--wide] PATH...\n"
    "\n"
    "What the OpenMP runtime said of each construct (recorded through OMPT:\n"
    "LLVM's libomp, or a GCC-built program under `scope run --openmp`), per\n"
    "rank: the parallel regions, largest time first, with their instances,\n"
    "team sizes, time (elapsed on the thread that started them), work (the\n"
    "threads' time in the region less their waits), waits, imbalance (max\n"
    "over mean of the threads' work), efficiency (load balance x scheduling,\n"
    "docs/analysis.md \"OpenMP\") and the slowest thread; then the\n"
    "work-sharing constructs (loops with their iterations), the waits to\n"
    "acquire locks, critical, ordered and atomic, and the explicit tasks.\n"
    "A construct is named by its region and its code location\n"
    "(\"omp parallel @ main (prog.c:12)\" with debug info). Last, the threads\n"
    "the runtime reported: per rank and lane (the recorder's thread), its type\n"
    "(initial, worker, other), its begin, first and last OpenMP event and end\n"
    "(seconds after the rank's first thread began; '-' not recorded: LLVM's\n"
    "runtime ends its threads at exit, after recording stopped).\n"
    "\n"
    "options:\n"
    "  --threads      each thread's row under its region (thread = its number\n"
    "                 in the team)\n"
    "  --rank R       rank R only\n"
    "  --top N        the N largest rows of each table\n"
    "  --format F     table (default), csv or json. csv: one row per region,\n"
    "                 rank and thread; its header begins\n"
    "                   region,rank,thread,instances,time,work,wait\n"
    "                 then one column per kind of wait (implicit_barrier,\n"
    "                 barrier, taskwait, taskgroup, reduction, lock, critical,\n"
    "                 ordered, atomic), iterations, kind, location, lane (the\n"
    "                 recorder's thread its parts ran on, -1 several),\n"
    "                 thread_type, thread_begin, thread_end (that lane's;\n"
    "                 the profile's clock, empty when not recorded); times in\n"
    "                 seconds. json: {\"omp\": [{...region, \"threads\": [...]}],\n"
    "                 \"threads\": [{rank, lane, type, begin, end, ...}]}\n"
    "  --wide         no fitting of the tables to the terminal\n"
    "  -h, --help     this text\n";

enum { FMT_TABLE, FMT_CSV, FMT_JSON };

struct ctx {
    scope_profile *p;
    const scope_omp_construct *cons;
    int64_t ncons;
    const scope_omp_region *regs;
    int64_t nregs;
    const scope_omp_row *rows;
    int64_t nrows;
    const scope_omp_thread *threads;
    int64_t nthreads;
    char **names;           /* per construct: "omp parallel @ location" */
    char **locs;            /* per construct: the location alone ("" none) */
    scope__symbolizer *sym;
};

static int cls_of(const struct ctx *c, int32_t cons)
{
    const char *region = scope_profile_region_name(c->p, c->cons[cons].region);
    return scope_omp_event_at(scope_omp_event_of(region))->cls;
}

/* What a construct's name shows of its location, malloc'd: the innermost
 * frame only ("main (prog.c:12)"), and only "prog.c:12" when its function
 * is the compiler's outlined body of a construct (clang's .omp_outlined.,
 * gcc's main._omp_fn.0), which names nothing of the program's. */
static char *short_location(const char *loc)
{
    const char *inl = strstr(loc, " inlined in ");
    size_t end = inl ? (size_t)(inl - loc) : strlen(loc);
    if (strncmp(loc, ".omp_outlined", 13) == 0 || memmem(loc, end, "._omp_fn.", 9)) {
        const char *open = memchr(loc, '(', end);
        const char *close = open ? memchr(open, ')', end - (size_t)(open - loc)) : NULL;
        if (close && memchr(open, ':', (size_t)(close - open)))   /* (file:line) */
            return strndup(open + 1, (size_t)(close - open - 1));
    }
    return strndup(loc, end);
}

/* The construct's name and location (cached). 0 or -1 (no memory). */
static int name_of(struct ctx *c, int32_t cons)
{
    if (c->names[cons])
        return 0;
    const char *region = scope_profile_region_name(c->p, c->cons[cons].region);
    const scope_callsite_frame *fr;
    int depth;
    char *loc = NULL;
    if (c->cons[cons].site >= 0 &&
        scope_profile_site_frames(c->p, c->cons[cons].site, &fr, &depth) == 0 && depth > 0)
        loc = scope__symbolize(c->sym, &fr[0]);
    else
        loc = strdup("");
    if (!loc)
        return -1;
    size_t n = strlen(region) + strlen(loc) + 4;
    c->names[cons] = malloc(n);
    if (!c->names[cons]) {
        free(loc);
        return -1;
    }
    char *at = short_location(loc);
    if (!at) {
        free(loc);
        free(c->names[cons]);
        c->names[cons] = NULL;
        return -1;
    }
    if (loc[0])
        snprintf(c->names[cons], n, "%s @ %s", region, at);
    else
        snprintf(c->names[cons], n, "%s", region);
    free(at);
    c->locs[cons] = loc;
    return 0;
}

/* Which table a class goes to. */
enum { T_PARALLEL, T_WORK, T_MUTEX, T_TASK, N_TABLES };

static int table_of(int cls)
{
    switch (cls) {
    case SCOPE_OMPC_PARALLEL: return T_PARALLEL;
    case SCOPE_OMPC_WORK: return T_WORK;
    case SCOPE_OMPC_MUTEX: return T_MUTEX;
    default: return T_TASK;
    }
}

static const struct ctx *sort_ctx;

static int cmp_time(const void *a, const void *b)
{
    const scope_omp_region *x = &sort_ctx->regs[*(const int64_t *)a];
    const scope_omp_region *y = &sort_ctx->regs[*(const int64_t *)b];
    if (x->time != y->time)
        return x->time < y->time ? 1 : -1;
    if (x->construct != y->construct)
        return x->construct < y->construct ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static void human(char *b, size_t n, double s)
{
    scope__fmt_human(b, n, s * 1e9);
}

static void seconds(char *b, size_t n, double s)
{
    scope__fmt_seconds_dbl(b, n, s * 1e9);
}

/* --- table ------------------------------------------------------------- */

static const char *const heads[N_TABLES][11] = {
    { "parallel region", "rank", "thread", "instances", "team", "time", "work", "wait",
      "imbalance", "efficiency", "slowest" },
    { "work-sharing", "rank", "thread", "instances", "iterations", "time", "work", "wait",
      "imbalance", "", "" },
    { "waits to acquire", "rank", "thread", "waits", "time", "", "", "", "", "", "" },
    { "explicit tasks", "rank", "thread", "runs", "time", "work", "wait", "", "", "", "" },
};
static const int ncols[N_TABLES] = { 11, 9, 5, 7 };

static int add_region_row(struct ctx *c, scope__table *t, int tab, const scope_omp_region *r)
{
    char rk[16], in[32], team[32], time[48], work[48], wait[48], imb[32], eff[32], slow[16],
        it[32];
    snprintf(rk, sizeof rk, "%d", r->rank);
    snprintf(in, sizeof in, "%lld", (long long)r->instances);
    if (r->team_min == r->team_max)
        snprintf(team, sizeof team, "%d", r->team_max);
    else
        snprintf(team, sizeof team, "%d-%d", r->team_min, r->team_max);
    human(time, sizeof time, r->time);
    human(work, sizeof work, r->work);
    human(wait, sizeof wait, r->wait);
    snprintf(imb, sizeof imb, "%.2f", r->imbalance);
    snprintf(eff, sizeof eff, "%.1f%%", r->efficiency * 100);
    if (r->slowest_thread >= 0)
        snprintf(slow, sizeof slow, "%d", r->slowest_thread);
    else
        strcpy(slow, "-");
    snprintf(it, sizeof it, "%lld", (long long)r->iterations);
    const char *name = c->names[r->construct];
    const char *cells[N_TABLES][11] = {
        { name, rk, "all", in, team, time, work, wait, imb, eff, slow },
        { name, rk, "all", in, it, time, work, wait, imb },
        { name, rk, "all", in, time },
        { name, rk, "all", in, time, work, wait },
    };
    return scope__table_add(t, cells[tab]);
}

static int add_thread_row(struct ctx *c, scope__table *t, int tab, const scope_omp_row *r)
{
    char rk[16], th[16], in[32], time[48], work[48], wait[48], it[32];
    snprintf(rk, sizeof rk, "%d", r->rank);
    snprintf(th, sizeof th, "%d", r->thread);
    snprintf(in, sizeof in, "%lld", (long long)r->instances);
    human(time, sizeof time, r->time);
    human(work, sizeof work, r->work);
    human(wait, sizeof wait, r->wait);
    snprintf(it, sizeof it, "%lld", (long long)r->iterations);
    (void)c;
    const char *cells[N_TABLES][11] = {
        { "", rk, th, in, "", time, work, wait, "", "", "" },
        { "", rk, th, in, it, time, work, wait, "" },
        { "", rk, th, in, time },
        { "", rk, th, in, time, work, wait },
    };
    return scope__table_add(t, cells[tab]);
}

static int print_tables(struct ctx *c, const int64_t *order, int64_t n, int threads, int64_t top,
                        int wide)
{
    static const int right[11] = { 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, shrink[11] = { 1 };
    int printed = 0;
    for (int tab = 0; tab < N_TABLES; tab++) {
        scope__table t;
        scope__table_init(&t, ncols[tab], heads[tab], right);
        scope__table_fit(&t, scope__out_width(stdout, wide), shrink);
        int64_t shown = 0;
        for (int64_t i = 0; i < n; i++) {
            const scope_omp_region *r = &c->regs[order[i]];
            if (table_of(cls_of(c, r->construct)) != tab || (top >= 0 && shown >= top))
                continue;
            shown++;
            if (add_region_row(c, &t, tab, r) < 0)
                goto fail;
            for (int64_t q = 0; threads && q < c->nrows; q++)
                if (c->rows[q].construct == r->construct && c->rows[q].rank == r->rank &&
                    add_thread_row(c, &t, tab, &c->rows[q]) < 0)
                    goto fail;
        }
        if (shown) {
            if (printed++)
                fputc('\n', stdout);
            if (scope__table_print(&t, stdout) < 0)
                goto fail;
        }
        scope__table_free(&t);
        continue;
fail:
        scope__table_free(&t);
        return -1;
    }
    if (!printed)
        fputs("no OpenMP regions in this profile (a program on LLVM's libomp records them; "
              "GCC's libgomp needs `scope run --openmp`)\n", stdout);
    return 0;
}

/* The thread of `lane` on `rank`, NULL none. */
static const scope_omp_thread *thread_at(const struct ctx *c, int rank, int lane)
{
    for (int64_t i = 0; i < c->nthreads; i++)
        if (c->threads[i].rank == rank && c->threads[i].lane == lane)
            return &c->threads[i];
    return NULL;
}

/* "+1.234 ms" after `t0`, "-" when ns < 0. */
static void after(char *b, size_t n, int64_t ns, int64_t t0)
{
    if (ns < 0) {
        snprintf(b, n, "-");
        return;
    }
    b[0] = '+';
    scope__fmt_human(b + 1, n - 1, (double)(ns - t0));
}

static int print_threads(const struct ctx *c, int rank, int wide)
{
    static const char *const head[] = { "threads", "rank", "lane", "type", "begin", "first",
                                        "last", "end", "events" };
    static const int right[9] = { 0, 1, 1, 0, 1, 1, 1, 1, 1 }, shrink[9] = { 0 };
    scope__table t;
    scope__table_init(&t, 9, head, right);
    scope__table_fit(&t, scope__out_width(stdout, wide), shrink);
    int64_t shown = 0, t0 = -1;
    int t0_rank = -1;
    for (int64_t i = 0; i < c->nthreads; i++) {
        const scope_omp_thread *th = &c->threads[i];
        if (rank >= 0 && th->rank != rank)
            continue;
        if (th->rank != t0_rank) {  /* the rank's earliest begin (or event) */
            t0_rank = th->rank;
            t0 = INT64_MAX;
            for (int64_t j = i; j < c->nthreads && c->threads[j].rank == th->rank; j++) {
                int64_t b = c->threads[j].begin_ns >= 0 ? c->threads[j].begin_ns
                                                        : c->threads[j].first_ns;
                if (b >= 0 && b < t0)
                    t0 = b;
            }
        }
        char rk[16], ln[16], b[48], f[48], l[48], e[48], ev[32];
        snprintf(rk, sizeof rk, "%d", th->rank);
        snprintf(ln, sizeof ln, "%d", th->lane);
        after(b, sizeof b, th->begin_ns, t0);
        after(f, sizeof f, th->first_ns, t0);
        after(l, sizeof l, th->last_ns, t0);
        after(e, sizeof e, th->end_ns, t0);
        snprintf(ev, sizeof ev, "%lld", (long long)th->events);
        const char *type = th->type ? scope_omp_thread_type_name_at(th->type) : "-";
        const char *cells[9] = { "", rk, ln, type, b, f, l, e, ev };
        if (scope__table_add(&t, cells) < 0) {
            scope__table_free(&t);
            return -1;
        }
        shown++;
    }
    int rc = 0;
    if (shown) {
        fputc('\n', stdout);
        rc = scope__table_print(&t, stdout);
    }
    scope__table_free(&t);
    return rc;
}

/* --- csv and json ---------------------------------------------------------- */

/* A time of the profile's clock in seconds, "" when ns < 0 (csv) or
 * null (json). */
static void clock_secs(char *b, size_t n, int64_t ns, int json)
{
    if (ns < 0)
        snprintf(b, n, "%s", json ? "null" : "");
    else
        snprintf(b, n, "%lld.%09lld", (long long)(ns / 1000000000), (long long)(ns % 1000000000));
}

static const char *kind_name(const struct ctx *c, int32_t cons)
{
    return scope_profile_region_name(c->p, c->cons[cons].region) + 4;  /* after "omp " */
}

static void csv_rows(struct ctx *c, const int64_t *order, int64_t n)
{
    fputs("region,rank,thread,instances,time,work,wait", stdout);
    for (int k = 1; k < SCOPE_OMP_WAIT_KINDS; k++)
        printf(",%s", scope_omp_wait_kind_name(k));
    fputs(",iterations,kind,location,lane,thread_type,thread_begin,thread_end\n", stdout);
    for (int64_t i = 0; i < n; i++) {
        const scope_omp_region *r = &c->regs[order[i]];
        for (int64_t q = 0; q < c->nrows; q++) {
            const scope_omp_row *t = &c->rows[q];
            if (t->construct != r->construct || t->rank != r->rank)
                continue;
            char time[48], work[48], wait[48], v[48];
            seconds(time, sizeof time, t->time);
            seconds(work, sizeof work, t->work);
            seconds(wait, sizeof wait, t->wait);
            scope__put_csv_field(stdout, c->names[t->construct]);
            printf(",%d,%d,%lld,%s,%s,%s", t->rank, t->thread, (long long)t->instances, time,
                   work, wait);
            for (int k = 1; k < SCOPE_OMP_WAIT_KINDS; k++) {
                seconds(v, sizeof v, t->waits[k]);
                printf(",%s", v);
            }
            printf(",%lld,", (long long)t->iterations);
            scope__put_csv_field(stdout, kind_name(c, t->construct));
            fputc(',', stdout);
            scope__put_csv_field(stdout, c->locs[t->construct]);
            const scope_omp_thread *th = t->lane >= 0 ? thread_at(c, t->rank, t->lane) : NULL;
            char tb[48], te[48];
            clock_secs(tb, sizeof tb, th ? th->begin_ns : -1, 0);
            clock_secs(te, sizeof te, th ? th->end_ns : -1, 0);
            printf(",%d,%s,%s,%s\n", t->lane,
                   th && th->type ? scope_omp_thread_type_name_at(th->type) : "", tb, te);
        }
    }
}

static void json_rows(struct ctx *c, const int64_t *order, int64_t n, int rank)
{
    fputs("{\"omp\": [", stdout);
    for (int64_t i = 0; i < n; i++) {
        const scope_omp_region *r = &c->regs[order[i]];
        char time[48], work[48], wait[48], v[48];
        seconds(time, sizeof time, r->time);
        seconds(work, sizeof work, r->work);
        seconds(wait, sizeof wait, r->wait);
        fputs(i ? ",\n  {\"region\": " : "\n  {\"region\": ", stdout);
        scope__put_json_string(stdout, c->names[r->construct]);
        fputs(", \"kind\": ", stdout);
        scope__put_json_string(stdout, kind_name(c, r->construct));
        fputs(", \"location\": ", stdout);
        scope__put_json_string(stdout, c->locs[r->construct]);
        printf(", \"rank\": %d, \"instances\": %lld, \"team_min\": %d, \"team_max\": %d, "
               "\"time\": %s, \"work\": %s, \"wait\": %s",
               r->rank, (long long)r->instances, r->team_min, r->team_max, time, work, wait);
        scope__fmt_ratio(v, sizeof v, r->imbalance);
        printf(", \"imbalance\": %s", v);
        scope__fmt_ratio(v, sizeof v, r->load_balance);
        printf(", \"load_balance\": %s", v);
        scope__fmt_ratio(v, sizeof v, r->scheduling);
        printf(", \"scheduling\": %s", v);
        scope__fmt_ratio(v, sizeof v, r->efficiency);
        printf(", \"efficiency\": %s, \"slowest_thread\": %d, \"iterations\": %lld, "
               "\"threads\": [", v, r->slowest_thread, (long long)r->iterations);
        int first = 1;
        for (int64_t q = 0; q < c->nrows; q++) {
            const scope_omp_row *t = &c->rows[q];
            if (t->construct != r->construct || t->rank != r->rank)
                continue;
            seconds(time, sizeof time, t->time);
            seconds(work, sizeof work, t->work);
            seconds(wait, sizeof wait, t->wait);
            printf("%s{\"thread\": %d, \"lane\": %d, \"instances\": %lld, \"time\": %s, "
                   "\"work\": %s, \"wait\": %s, \"iterations\": %lld, \"waits\": {",
                   first ? "" : ", ", t->thread, t->lane, (long long)t->instances, time, work, wait,
                   (long long)t->iterations);
            for (int k = 1; k < SCOPE_OMP_WAIT_KINDS; k++) {
                seconds(v, sizeof v, t->waits[k]);
                printf("%s\"%s\": %s", k > 1 ? ", " : "", scope_omp_wait_kind_name(k), v);
            }
            fputs("}}", stdout);
            first = 0;
        }
        fputs("]}", stdout);
    }
    fputs(n ? "\n], \"threads\": [" : "], \"threads\": [", stdout);
    int first = 1;
    for (int64_t i = 0; i < c->nthreads; i++) {
        const scope_omp_thread *th = &c->threads[i];
        if (rank >= 0 && th->rank != rank)
            continue;
        char b[48], f[48], l[48], e[48];
        clock_secs(b, sizeof b, th->begin_ns, 1);
        clock_secs(f, sizeof f, th->first_ns, 1);
        clock_secs(l, sizeof l, th->last_ns, 1);
        clock_secs(e, sizeof e, th->end_ns, 1);
        printf("%s\n  {\"rank\": %d, \"lane\": %d, \"type\": \"%s\", \"begin\": %s, "
               "\"first\": %s, \"last\": %s, \"end\": %s, \"events\": %lld}",
               first ? "" : ",", th->rank, th->lane, scope_omp_thread_type_name_at(th->type), b,
               f, l, e, (long long)th->events);
        first = 0;
    }
    fputs(first ? "]}\n" : "\n]}\n", stdout);
}

static int run(scope_profile *p, int threads, int rank, int64_t top, int format, int wide)
{
    scope_omp *o = NULL;
    struct ctx c = { .p = p };
    int64_t *order = NULL;
    int status = 1;
    if (scope_profile_omp(p, &o) < 0)
        return scope__fail_msg(scope_reader_errmsg());
    c.ncons = scope_omp_constructs(o, &c.cons);
    c.nregs = scope_omp_regions(o, &c.regs);
    c.nrows = scope_omp_rows(o, &c.rows);
    c.nthreads = scope_omp_threads(o, &c.threads);
    c.names = calloc((size_t)c.ncons + 1, sizeof *c.names);
    c.locs = calloc((size_t)c.ncons + 1, sizeof *c.locs);
    order = malloc(((size_t)c.nregs + 1) * sizeof *order);
    c.sym = scope__symbolizer_new();
    if (!c.names || !c.locs || !order || !c.sym)
        goto fail_mem;
    int64_t n = 0;
    for (int64_t i = 0; i < c.nregs; i++)
        if (rank < 0 || c.regs[i].rank == rank)
            order[n++] = i;
    if (scope_profile_site_count(p) < 0) {
        status = scope__fail_msg(scope_reader_errmsg());
        goto out;
    }
    for (int64_t i = 0; i < c.ncons; i++)
        if (name_of(&c, (int32_t)i) < 0)
            goto fail_mem;
    sort_ctx = &c;
    qsort(order, (size_t)n, sizeof *order, cmp_time);
    if (format == FMT_TABLE) {
        if (print_tables(&c, order, n, threads, top, wide) < 0 ||
            (n && print_threads(&c, rank, wide) < 0))
            goto fail_mem;
    } else if (format == FMT_CSV) {
        csv_rows(&c, order, n);
    } else {
        json_rows(&c, order, n, rank);
    }
    status = scope__stdout_check("cannot write the table");
    goto out;
fail_mem:
    fprintf(stderr, "scope: out of memory\n");
out:
    for (int64_t i = 0; c.names && i < c.ncons; i++) {
        free(c.names[i]);
        free(c.locs[i]);
    }
    free(c.names);
    free(c.locs);
    free(order);
    scope__symbolizer_free(c.sym);
    scope_omp_free(o);
    return status;
}

int scope_cmd_omp(int argc, char **argv)
{
    static const struct option opts[] = {
        { "threads", no_argument, NULL, 'T' },
        { "rank", required_argument, NULL, 'r' },
        { "top", required_argument, NULL, 't' },
        { "format", required_argument, NULL, 'f' },
        { "wide", no_argument, NULL, 'w' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int c, format = FMT_TABLE, wide = 0, threads = 0, rank = -1;
    int64_t top = -1, v;
    scope_profile *p;
    scope__options parse = { .cmd = "omp", .help = omp_help, .argc = argc, .argv = argv,
                              .shortopts = ":h", .longopts = opts, .profile = &p,
                              .format = &format };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 'T':
            threads = 1;
            break;
        case 'w':
            wide = 1;
            break;
        case 't':
            if (scope__parse_i64(optarg, &top) < 0 || top < 0)
                return scope__usage_error("omp", "--top needs a count, not '%s'", optarg);
            break;
        case 'r':
            if (scope__parse_i64(optarg, &v) < 0 || v < 0 || v > 0x7fffffff)
                return scope__usage_error("omp", "--rank needs a rank number, not '%s'",
                                          optarg);
            rank = (int)v;
            break;
        }
    }
    if (c < 0)
        return parse.status;
    int status = run(p, threads, rank, top, format, wide);
    scope_profile_close(p);
    return status;
}
