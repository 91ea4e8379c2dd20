/*
 * cmd_export.c - `scope export PATH... --to FORMAT -o FILE`: the profile in
 * the formats other tools read, so a run can be looked at in Perfetto /
 * chrome://tracing (chrome-trace), speedscope (speedscope), any flame graph
 * tool (folded stacks), Hatchet and Thicket (hatchet), or a spreadsheet /
 * script (csv, json events).
 *
 * chrome-trace and csv/json stream the events; speedscope and folded need
 * the nesting and go rank by rank through the reader's call stacks.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "call_tree.h"
#include "commands.h"
#include "event_output.h"
#include "export_otf2.h"
#include "export_hatchet.h"
#include "io_cells.h"
#include "out_file.h"
#include "output.h"
#include "plots.h"
#include "scope_reader_comm.h"
#include "scope_reader_waits.h"

static const char export_help[] =
    "usage: scope export --to FORMAT -o FILE PATH...\n"
    "\n"
    "Writes the profile in another tool's format (FILE '-' = stdout):\n"
    "  chrome-trace  Trace Event JSON for Perfetto and chrome://tracing: one\n"
    "                process per rank, one thread per thread lane, one\n"
    "                complete (\"X\") event per call, times in microseconds\n"
    "                from the run start (viewers nest X events by time, so\n"
    "                calls that share a timestamp on a coarse clock may\n"
    "                nest differently there; speedscope, folded and\n"
    "                `scope tree` follow the recorded order); I/O calls in\n"
    "                category \"io\" with a colour of their own and their\n"
    "                layer, file, bytes and offset in args\n"
    "  speedscope    speedscope's JSON: one evented profile per (rank,\n"
    "                thread), times in nanoseconds from the run start\n"
    "  folded        folded stacks for flamegraph.pl, inferno, speedscope:\n"
    "                one line 'outer;inner <self time in ns>' per call path,\n"
    "                all ranks added together (';' in a name becomes ':')\n"
    "  hatchet       the call tree in Hatchet's literal JSON (a list of\n"
    "                {\"frame\", \"metrics\", \"children\"} nodes) for LLNL's\n"
    "                Hatchet (GraphFrame.from_literal) and Thicket: per rank a\n"
    "                root \"rank N\" (type \"rank\") over that rank's tree, or\n"
    "                with --aggregate the tree of all ranks added together;\n"
    "                metrics \"time (inc)\" and \"time\" (self) in seconds and\n"
    "                \"calls\"; each root holds the run's metadata\n"
    "  csv, json     the events, as `scope events --format csv|json`: the\n"
    "                columns of the Python module's to_events_dataframe(),\n"
    "                start, end and duration in seconds from the run start,\n"
    "                each MPI call's bytes_sent, bytes_received, dest,\n"
    "                source, tag, comm when the run recorded them\n"
    "  otf2          an OTF2 archive for Vampir, Scalasca, Pipit: -o names\n"
    "                a new (or empty) folder, which gets traces.otf2; one\n"
    "                location per (rank, thread), enter/leave in recorded\n"
    "                order, ns on the aligned timeline, MPI messages,\n"
    "                requests and collectives (docs/export.md)\n"
    "\n"
    "options:\n"
    "  --to FORMAT    chrome-trace, speedscope, folded, hatchet, csv, json or otf2\n"
    "  --aggregate    hatchet: one tree of all ranks, not one per rank\n"
    "  -o, --output FILE (DIR for otf2)\n"
    "  -h, --help     this text\n";

enum { TO_CHROME, TO_SPEEDSCOPE, TO_FOLDED, TO_HATCHET, TO_CSV, TO_JSON, TO_OTF2 };

/* Microseconds with 3 decimals from ns, exactly. */
static void put_us(FILE *out, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    fprintf(out, "%s%llu.%03llu", ns < 0 ? "-" : "",
            (unsigned long long)(a / 1000), (unsigned long long)(a % 1000));
}

/* (rank, thread) lanes seen, for the naming metadata events. */
typedef struct {
    int32_t (*v)[2];
    size_t n, cap;
} lanes;

static int note_lane(lanes *l, int32_t rank, int32_t thread)
{
    /* Events come region by region, so lanes repeat; a linear look at the
     * last few is enough to keep this small without a hash. */
    for (size_t i = l->n; i-- > 0 && i + 64 >= l->n;)
        if (l->v[i][0] == rank && l->v[i][1] == thread)
            return 0;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        void *q = realloc(l->v, nc * sizeof *l->v);
        if (!q)
            return -1;
        l->v = q;
        l->cap = nc;
    }
    l->v[l->n][0] = rank;
    l->v[l->n][1] = thread;
    l->n++;
    return 0;
}

static int cmp_lane(const void *a, const void *b)
{
    const int32_t *x = a, *y = b;
    if (x[0] != y[0])
        return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* " (hostB)" for a process name, from the rank's hostname attribute;
 * "" when there is none. Characters JSON would need escaped are dropped
 * (host names have none). */
static void process_host(scope_profile *p, int rank, char *buf, size_t len)
{
    char h[64];
    buf[0] = 0;
    if (scope_profile_rank_attr_string(p, rank, "hostname", h, sizeof h) <= 0)
        return;
    size_t k = 0;
    for (size_t j = 0; h[j] && k + 1 < sizeof h; j++)
        if (h[j] != '"' && h[j] != '\\' && (unsigned char)h[j] >= 0x20)
            h[k++] = h[j];
    h[k] = 0;
    snprintf(buf, len, " (%s)", h);
}

/* One flow arrow per matched message (scope_reader_waits.h), from the
 * send's start to the end of the call that completed the receive: flow
 * events "s" and "f" bound to the enclosing slices, which Perfetto and
 * chrome://tracing draw as arrows between the ranks' lanes. Nothing for a
 * profile without MPI data. Returns 0, or 1 with the message printed. */
static int chrome_flows(FILE *out, scope_profile *p, int64_t *written)
{
    scope_waits *w;
    if (!scope_profile_has_moved(p))
        return 0;
    if (scope_profile_waits(p, 0, &w) < 0)
        return scope__fail_msg(scope_reader_errmsg());
    int64_t origin = 0;
    scope_profile_time_origin_ns(p, &origin);
    const scope_message *m;
    int64_t n = scope_waits_messages(w, &m);
    for (int64_t i = 0; i < n; i++) {
        int32_t st = scope__call_lane(p, m[i].send_region, m[i].sender, m[i].send_call);
        int32_t rt = scope__call_lane(p, m[i].recv_done_region, m[i].receiver, m[i].recv_done_call);
        fprintf(out, "%s{\"ph\": \"s\", \"cat\": \"message\", \"name\": \"message\", "
                "\"id\": %lld, \"pid\": %d, \"tid\": %d, \"ts\": ", *written ? ",\n" : "\n",
                (long long)i, m[i].sender, st);
        put_us(out, m[i].send_start_ns - origin);
        fprintf(out, ", \"args\": {\"tag\": %d, \"bytes\": %lld}},\n"
                "{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"message\", \"name\": \"message\", "
                "\"id\": %lld, \"pid\": %d, \"tid\": %d, \"ts\": ", m[i].tag,
                (long long)m[i].bytes, (long long)i, m[i].receiver, rt);
        /* bound to the completing call: its end lies inside it */
        put_us(out, m[i].recv_end_ns - origin);
        fputs("}", out);
        (*written)++;
    }
    scope_waits_free(w);
    return 0;
}

static int write_chrome(FILE *out, scope_profile *p)
{
    scope_event_query q;
    memset(&q, 0, sizeof q);
    q.call_sites = 1;
    scope__site_names sn;
    if (scope__site_names_init(p, &sn) < 0) {
        scope__site_names_free(&sn);
        return 1;
    }
    scope_events *it;
    if (scope_profile_events_open(p, &q, &it) < 0) {
        scope__site_names_free(&sn);
        return scope__fail_msg(scope_reader_errmsg());
    }
    scope_event buf[4096];
    lanes l = { NULL, 0, 0 };
    scope__io_cache ic;
    scope__io_cache_init(&ic, p);
    int64_t got, done = 0, total = scope_events_count(it);
    int status = 1;
    fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [", out);
    while ((got = scope_events_read(it, buf, 4096)) > 0) {
        for (int64_t i = 0; i < got; i++) {
            const scope_event *e = &buf[i];
            scope__io_cell io;
            int is_io = scope__io_cell_of(&ic, e->region, e->rank, e->call_index, &io);
            if (is_io < 0) {
                scope__fail_msg(is_io == -2 ? "out of memory" : scope_reader_errmsg());
                goto fail_events;
            }
            /* I/O calls: a category of their own, coloured by the
             * viewer's reserved I/O-wait colour */
            fprintf(out, "%s{\"ph\": \"X\", \"cat\": \"%s\", %s\"name\": ",
                    done + i ? ",\n" : "\n", is_io ? "io" : "scope",
                    is_io ? "\"cname\": \"thread_state_iowait\", " : "");
            scope__put_json_string(out, scope_profile_region_name(p, e->region));
            fprintf(out, ", \"pid\": %d, \"tid\": %d, \"ts\": ", e->rank,
                    e->thread);
            put_us(out, e->start_ns);
            fputs(", \"dur\": ", out);
            put_us(out, e->end_ns - e->start_ns);
            fprintf(out, ", \"args\": {\"call_index\": %lld",
                    (long long)e->call_index);
            if (is_io) {
                fprintf(out, ", \"layer\": \"%s\", \"file\": ", scope_io_layer_name(io.layer));
                scope__put_json_string(out, io.file_name);
                fprintf(out, ", \"bytes\": %lld", (long long)io.bytes);
                if (io.offset >= 0)
                    fprintf(out, ", \"offset\": %lld", (long long)io.offset);
            }
            if (sn.n > 0) {     /* runs with call sites: the caller's line */
                const char *site = scope__site_name(p, &sn, e->site);
                if (!site) {
                    scope__fail_msg("out of memory");
                    goto fail_events;
                }
                fputs(", \"callsite\": ", out);
                scope__put_json_string(out, site);
            }
            fputs("}}", out);
            if (note_lane(&l, e->rank, e->thread) < 0) {
                scope__fail_msg("out of memory");
                goto fail_events;
            }
        }
        done += got;
        scope__progress("export", done, total);
    }
    scope__progress("export", total, total);
    if (got < 0) {
        scope__fail_msg(scope_reader_errmsg());
        goto fail_events;
    }
    if (chrome_flows(out, p, &done) != 0)
        goto fail_events;
    /* Name every process and thread; duplicates from note_lane's short
     * memory are dropped after sorting. */
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_lane);
    for (size_t i = 0; i < l.n; i++) {
        if (i && l.v[i][0] == l.v[i - 1][0] && l.v[i][1] == l.v[i - 1][1])
            continue;
        const char *sep = done || i ? ",\n" : "\n";
        if (i == 0 || l.v[i][0] != l.v[i - 1][0]) {
            char host[80];
            process_host(p, l.v[i][0], host, sizeof host);
            fprintf(out, "%s{\"ph\": \"M\", \"name\": \"process_name\", "
                    "\"pid\": %d, \"args\": {\"name\": \"rank %d%s\"}},\n"
                    "{\"ph\": \"M\", \"name\": \"process_sort_index\", "
                    "\"pid\": %d, \"args\": {\"sort_index\": %d}}", sep,
                    l.v[i][0], l.v[i][0], host, l.v[i][0], l.v[i][0]);
        }
        fprintf(out, ",\n{\"ph\": \"M\", \"name\": \"thread_name\", "
                "\"pid\": %d, \"tid\": %d, \"args\": {\"name\": "
                "\"thread %d\"}}", l.v[i][0], l.v[i][1], l.v[i][1]);
    }
    fputs("\n]}\n", out);
    status = 0;
fail_events:
    free(l.v);
    scope__io_cache_free(&ic);
    scope_events_close(it);
    scope__site_names_free(&sn);
    return status;
}

/* One evented profile: the calls of one lane, opened and closed in the
 * call stack's order. The parent links are the lane's open-call chain:
 * before a call opens, every open call that is not its parent closes. Never
 * decided by times, which tie on a coarse clock (a 0 ns call as its parent
 * ends is still inside it). */
static void speedscope_lane(FILE *out, const scope_call *c, int64_t n,
                            int32_t lane, int64_t origin)
{
    int64_t top = -1, nev = 0;
    for (int64_t i = 0; i <= n; i++) {
        if (i < n && c[i].thread != lane)
            continue;
        while (top >= 0 && (i == n || top != c[i].parent)) {
            fprintf(out, "%s{\"type\": \"C\", \"frame\": %d, \"at\": %lld}",
                    nev++ ? ", " : "", c[top].region,
                    (long long)(c[top].end_ns - origin));
            top = c[top].parent;
        }
        if (i == n)
            break;
        fprintf(out, "%s{\"type\": \"O\", \"frame\": %d, \"at\": %lld}",
                nev++ ? ", " : "", c[i].region,
                (long long)(c[i].start_ns - origin));
        top = i;
    }
}

static int write_speedscope(FILE *out, scope_profile *p)
{
    int64_t origin = 0;
    scope_profile_time_origin_ns(p, &origin);
    fputs("{\"$schema\": \"https://www.speedscope.app/file-format-schema."
          "json\", \"exporter\": \"scope\", \"shared\": {\"frames\": [", out);
    for (int r = 0; r < scope_profile_region_count(p); r++) {
        fputs(r ? ", {\"name\": " : "{\"name\": ", out);
        scope__put_json_string(out, scope_profile_region_name(p, r));
        fputc('}', out);
    }
    fputs("]}, \"profiles\": [", out);
    int nprof = 0;
    for (int k = 0; k < scope_profile_rank_count(p); k++) {
        int rank = scope_profile_rank(p, k);
        scope_call_stack *cs;
        if (scope_profile_call_stack(p, rank, SCOPE_ALL_THREADS, &cs) < 0)
            return scope__fail_msg(scope_reader_errmsg());
        const scope_call *c = scope_call_stack_calls(cs);
        int64_t n = scope_call_stack_count(cs);
        int32_t maxlane = -1;
        for (int64_t i = 0; i < n; i++)
            if (c[i].thread > maxlane)
                maxlane = c[i].thread;
        char *seen = calloc((size_t)maxlane + 2, 1);
        int64_t *first = calloc((size_t)maxlane + 2, sizeof *first);
        int64_t *last = calloc((size_t)maxlane + 2, sizeof *last);
        if (!seen || !first || !last) {
            free(seen);
            free(first);
            free(last);
            scope_call_stack_free(cs);
            return scope__fail_msg("out of memory");
        }
        for (int64_t i = 0; i < n; i++) {
            int32_t l = c[i].thread;
            if (!seen[l])
                first[l] = c[i].start_ns;
            if (!seen[l] || c[i].end_ns > last[l])
                last[l] = c[i].end_ns;
            seen[l] = 1;
        }
        for (int32_t l = 0; l <= maxlane; l++) {
            if (!seen[l])
                continue;
            fprintf(out, "%s\n{\"type\": \"evented\", \"name\": \"rank %d "
                    "thread %d\", \"unit\": \"nanoseconds\", \"startValue\": "
                    "%lld, \"endValue\": %lld, \"events\": [",
                    nprof++ ? "," : "", rank, l,
                    (long long)(first[l] - origin),
                    (long long)(last[l] - origin));
            speedscope_lane(out, c, n, l, origin);
            fputs("]}", out);
        }
        free(seen);
        free(first);
        free(last);
        scope_call_stack_free(cs);
    }
    fputs("\n], \"name\": \"scope profile\", \"activeProfileIndex\": 0}\n",
          out);
    return 0;
}

static int write_folded(FILE *out, scope_profile *p)
{
    scope__tree t;
    memset(&t, 0, sizeof t);
    int status = 1;
    int64_t *order = NULL;
    if (scope__tree_add(&t, p, SCOPE_ALL_RANKS, SCOPE_ALL_THREADS) < 0) {
        scope__fail_msg(scope_reader_errmsg());
        goto fail_tree;
    }
    if (!(order = scope__tree_order(&t))) {
        scope__fail_msg("out of memory");
        goto fail_tree;
    }
    for (int64_t i = 0; i < t.n; i++) {
        const scope__tree_node *x = &t.nodes[order[i]];
        if (x->self_ns <= 0)
            continue;
        char *path = scope__tree_path(p, &t, order[i], 1);
        if (!path) {
            scope__fail_msg("out of memory");
            goto fail_tree;
        }
        fprintf(out, "%s %lld\n", path, (long long)x->self_ns);
        free(path);
    }
    status = 0;
fail_tree:
    free(order);
    scope__tree_free(&t);
    return status;
}

/* What write_export writes: the profile, --to and --aggregate. */
struct export {
    scope_profile *p;
    int to, aggregate;
};

/* scope__out_write's writer: the export into out; 0, or 1 (said). */
static int write_export(FILE *out, void *ctx)
{
    const struct export *x = ctx;
    scope_event_query q;
    memset(&q, 0, sizeof q);
    q.call_ids = 1;
    q.call_sites = 1;
    switch (x->to) {
    case TO_CHROME: return write_chrome(out, x->p);
    case TO_SPEEDSCOPE: return write_speedscope(out, x->p);
    case TO_FOLDED: return write_folded(out, x->p);
    case TO_HATCHET: return scope__write_hatchet(out, x->p, x->aggregate);
    case TO_CSV: return scope__write_events(out, x->p, &q, SCOPE__EV_CSV, 0, 0);
    default: return scope__write_events(out, x->p, &q, SCOPE__EV_JSON, 0, 0);
    }
}

int scope_cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        { "to", required_argument, NULL, 't' },
        { "output", required_argument, NULL, 'o' },
        { "aggregate", no_argument, NULL, 'A' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    static const char *const formats[] = { "chrome-trace", "speedscope", "folded", "hatchet",
                                           "csv", "json", "otf2", NULL };
    int c, k, to = -1, aggregate = 0;
    const char *outpath = NULL;
    scope__options parse = { .cmd = "export", .help = export_help, .argc = argc, .argv = argv,
                              .shortopts = ":ho:", .longopts = opts };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 't':
            if ((k = scope__parse_choice("export", "format", optarg, formats, &to)) != 0)
                return k;
            break;
        case 'o':
            outpath = optarg;
            break;
        case 'A':
            aggregate = 1;
            break;
        }
    }
    if (c < 0)
        return parse.status;
    if (to < 0)
        return scope__usage_error("export", "no format given (--to)");
    if (aggregate && to != TO_HATCHET)
        return scope__usage_error("export", "--aggregate is for --to hatchet");
    if (!outpath)
        return scope__usage_error("export", "no output file given (-o)");
    if (optind >= argc)
        return scope__usage_error("export", "no profile path given");
    if (to == TO_OTF2 && !strcmp(outpath, "-"))
        return scope__usage_error("export", "--to otf2 writes a folder, not "
                                  "stdout: give -o DIR");
    if (to == TO_OTF2 && !scope__otf2_available())
        return scope__fail_msg("export: scope was built without OTF2 (install "
                               "libopen-trace-format2-dev and rebuild)");
    scope_profile *p = scope__open_or_report(argv + optind, argc - optind);
    if (!p)
        return 1;
    int status;
    if (to == TO_OTF2) {    /* a folder, not a stream: no out file */
        status = scope__export_otf2(p, outpath);
    } else {
        struct export x = { p, to, aggregate };
        status = scope__out_write(outpath, "export", write_export, &x);
    }
    scope_profile_close(p);
    return status;
}
