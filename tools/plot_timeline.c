/*
 * plot_timeline.c - the timeline picture (plots.h): one lane per (rank,
 * thread), time left to right on a shared axis, each call a box at its
 * nesting depth, coloured by region, with a tooltip and, when wide
 * enough, its name.
 *
 * A big run has far more calls than pixels, so a lane draws at most
 * max_calls of them: the longest, since those are the ones wide enough to
 * see; the lane's label says how many of how many are drawn. The call
 * stacks are built rank by rank and only the kept calls are held, so
 * memory is bounded by (lanes x max_calls) plus one rank's call stack.
 */
#include <stdlib.h>
#include <string.h>

#include "event_output.h"
#include "output.h"
#include "plots.h"
#include "scope_reader_comm.h"
#include "scope_reader_waits.h"
#include "svg.h"

#define LEFT 150.0          /* lane labels */
#define RIGHT 24.0
#define TOP 34.0            /* time axis */
#define ROW 16.0            /* one nesting level */
#define LANE_GAP 8.0
#define MAX_ROWS 24         /* deeper calls are not drawn (and counted) */

typedef struct {
    int64_t start, end;
    int32_t region, depth;
} lane_call;

typedef struct {
    int32_t rank, thread;
    int multi;              /* the rank has several lanes: name the thread */
    lane_call *c;
    int64_t n, total;       /* kept, and recorded on the lane */
    int32_t rows;
} lane;

typedef struct {
    lane *v;
    int64_t n, cap;
} lanes;

int32_t scope__call_lane(scope_profile *p, int region, int rank, int64_t k)
{
    const int32_t *tids = NULL;
    int64_t n = 0;
    if (region < 0 || scope_profile_thread_ids(p, region, rank, &tids, &n) < 0 || !tids || k >= n)
        return 0;
    return tids[k];
}

/* At most this many message arrows: beyond, the picture is a smear; the
 * longest waits are kept (they are what the arrows are for). */
#define MAX_ARROWS 2000

static int cmp_msg_wait(const void *a, const void *b)
{
    const scope_message *x = *(const scope_message *const *)a, *y = *(const scope_message *const *)b;
    if (x->wait_ns != y->wait_ns)
        return x->wait_ns > y->wait_ns ? -1 : 1;
    return x->send_start_ns < y->send_start_ns ? -1 : x->send_start_ns > y->send_start_ns;
}

/* The middle of the lane of (rank, thread), or -1 when none is drawn. */
static double lane_mid(const lanes *l, const double *mid, int32_t rank, int32_t thread)
{
    for (int64_t i = 0; i < l->n; i++)
        if (l->v[i].rank == rank && l->v[i].thread == thread)
            return mid[i];
    return -1;
}

/* One arrow per matched message (scope_reader_waits.h) from the send's
 * start on its lane to the end of the call that completed the receive on
 * the receiver's; red when the message made someone wait. */
static void draw_messages(FILE *out, scope_profile *p, const scope_waits *w,
                          const scope_message **v, const lanes *l, const double *mid, double x0,
                          double scale, int64_t t0, scope__plot_counts *counts)
{
    const scope_message *m;
    int64_t n = scope_waits_messages(w, &m), k = n < MAX_ARROWS ? n : MAX_ARROWS;
    for (int64_t i = 0; i < n; i++)
        v[i] = &m[i];
    if (n > k)
        qsort(v, (size_t)n, sizeof *v, cmp_msg_wait);
    fputs("<defs><marker id=\"arrow\" viewBox=\"0 0 6 6\" refX=\"6\" refY=\"3\" "
          "markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0L6,3L0,6z\" "
          "fill=\"#555\"/></marker></defs>\n<g class=\"messages\">\n", out);
    for (int64_t i = 0; i < k; i++) {
        const scope_message *e = v[i];
        double ya = lane_mid(l, mid, e->sender,
                             scope__call_lane(p, e->send_region, e->sender, e->send_call));
        double yb = lane_mid(l, mid, e->receiver,
                             scope__call_lane(p, e->recv_done_region, e->receiver,
                                              e->recv_done_call));
        if (ya < 0 || yb < 0)
            continue;
        fprintf(out, "<line class=\"message\" data-sender=\"%d\" data-receiver=\"%d\" "
                "data-tag=\"%d\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
                "stroke=\"%s\" stroke-width=\"0.8\" marker-end=\"url(#arrow)\"/>\n",
                e->sender, e->receiver, e->tag, x0 + (double)(e->send_start_ns - t0) * scale, ya,
                x0 + (double)(e->recv_end_ns - t0) * scale, yb,
                e->wait_ns > 0 ? "#c0392b" : "#555");
        counts->messages++;
    }
    fputs("</g>\n", out);
    counts->messages_total = n;
}

const char *scope__plot_errmsg(int code)
{
    return code == SCOPE_ENOMEM ? "out of memory" : scope_reader_errmsg();
}

static void lanes_free(lanes *l)
{
    for (int64_t i = 0; i < l->n; i++)
        free(l->v[i].c);
    free(l->v);
}

static int cmp_dur_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* Adds the lane of `thread` from calls[0..n) (sorted by start), keeping
 * the `cap` longest calls shallower than MAX_ROWS. */
static int add_lane(lanes *l, int32_t rank, int32_t thread,
                    const scope_call *c, int64_t n, int64_t cap)
{
    int64_t count = 0, eligible = 0;
    for (int64_t i = 0; i < n; i++)
        if (c[i].thread == thread) {
            count++;
            eligible += c[i].depth < MAX_ROWS;
        }
    if (count == 0)
        return 0;
    /* Durations at or above `cut` are kept; ties at cut are kept in time
     * order until cap is reached. */
    int64_t cut = INT64_MIN, at_cut = INT64_MAX;
    if (eligible > cap) {
        int64_t *d = malloc((size_t)eligible * sizeof *d), k = 0;
        if (!d)
            return SCOPE_ENOMEM;
        for (int64_t i = 0; i < n; i++)
            if (c[i].thread == thread && c[i].depth < MAX_ROWS)
                d[k++] = c[i].end_ns - c[i].start_ns;
        qsort(d, (size_t)eligible, sizeof *d, cmp_dur_desc);
        cut = d[cap - 1];
        at_cut = 0;
        for (int64_t i = 0; i < cap; i++)
            at_cut += d[i] == cut;
        free(d);
    }
    if (l->n == l->cap) {
        int64_t nc = l->cap ? l->cap * 2 : 16;
        lane *q = realloc(l->v, (size_t)nc * sizeof *q);
        if (!q)
            return SCOPE_ENOMEM;
        l->v = q;
        l->cap = nc;
    }
    int64_t keep = eligible < cap ? eligible : cap;
    lane *ln = &l->v[l->n];
    memset(ln, 0, sizeof *ln);
    ln->rank = rank;
    ln->thread = thread;
    ln->total = count;
    ln->c = malloc((size_t)(keep ? keep : 1) * sizeof *ln->c);
    if (!ln->c)
        return SCOPE_ENOMEM;
    l->n++;
    for (int64_t i = 0; i < n && ln->n < keep; i++) {
        const scope_call *x = &c[i];
        int64_t d = x->end_ns - x->start_ns;
        if (x->thread != thread || x->depth >= MAX_ROWS || d < cut)
            continue;
        if (d == cut && at_cut-- <= 0)
            continue;
        ln->c[ln->n++] = (lane_call){ x->start_ns, x->end_ns, x->region,
                                      x->depth };
        if (x->depth + 1 > ln->rows)
            ln->rows = x->depth + 1;
    }
    return 0;
}

/* The calls of one rank without nesting (depth 0), for when calls overlap
 * partially and the call stack cannot be rebuilt. */
static int flat_calls(scope_profile *p, int rank, scope_call **out,
                      int64_t *nout)
{
    int64_t total = 0, n = 0;
    for (int r = 0; r < scope_profile_region_count(p); r++)
        total += scope_profile_calls(p, r, rank);
    scope_call *c = calloc((size_t)(total ? total : 1), sizeof *c);
    if (!c)
        return SCOPE_ENOMEM;
    for (int r = 0; r < scope_profile_region_count(p); r++) {
        const int64_t *s, *e;
        const int32_t *t;
        int64_t m, mt;
        int rc;
        if ((rc = scope_profile_times(p, r, rank, &s, &e, &m)) < 0 ||
            (rc = scope_profile_thread_ids(p, r, rank, &t, &mt)) < 0) {
            free(c);
            return rc;
        }
        for (int64_t i = 0; i < m && n < total; i++, n++)
            c[n] = (scope_call){ .start_ns = s[i], .end_ns = e[i],
                                 .region = r, .thread = t ? t[i] : 0 };
    }
    *out = c;
    *nout = n;
    return 0;
}

static int gather(scope_profile *p, int64_t cap, lanes *l,
                  scope__plot_counts *counts)
{
    int64_t total = scope__rank_events(p, SCOPE_ALL_RANKS), done = 0;
    for (int k = 0; k < scope_profile_rank_count(p); k++) {
        int rank = scope_profile_rank(p, k), rc;
        scope__progress("timeline", done, total);
        done += scope__rank_events(p, rank);
        scope_call_stack *cs = NULL;
        scope_call *flat = NULL;
        const scope_call *c;
        int64_t n;
        rc = scope_profile_call_stack(p, rank, SCOPE_ALL_THREADS, &cs);
        if (rc == SCOPE_EOVERLAP) {
            counts->nesting_lost = 1;
            if ((rc = flat_calls(p, rank, &flat, &n)) < 0)
                return rc;
            c = flat;
        } else if (rc < 0) {
            return rc;
        } else {
            c = scope_call_stack_calls(cs);
            n = scope_call_stack_count(cs);
        }
        int32_t maxlane = -1;
        for (int64_t i = 0; i < n; i++)
            if (c[i].thread > maxlane)
                maxlane = c[i].thread;
        int64_t first = l->n;
        for (int32_t t = 0; t <= maxlane && rc >= 0; t++)
            rc = add_lane(l, rank, t, c, n, cap);
        for (int64_t i = first; i < l->n; i++)
            l->v[i].multi = l->n - first > 1 || maxlane > 0;
        scope_call_stack_free(cs);
        free(flat);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* One call's box, tooltip and (when it fits) name. */
static void draw_call(FILE *out, scope_profile *p, const char *col,
                      const lane *ln, const lane_call *c, double x0,
                      double scale,
                      int64_t t0, int64_t origin, double y)
{
    const char *name = scope_profile_region_name(p, c->region);
    char at[48], dur[48];
    double x = x0 + (double)(c->start - t0) * scale;
    double w = (double)(c->end - c->start) * scale;
    if (w < 0.5)
        w = 0.5;
    y += c->depth * ROW;
    scope__fmt_human(at, sizeof at, (double)(c->start - origin));
    scope__fmt_human(dur, sizeof dur, (double)(c->end - c->start));
    fprintf(out, "<rect class=\"call\" data-region=\"%d\" x=\"%.2f\" "
            "y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>",
            c->region, x, y, w, ROW - 1, col);
    scope__xml_put(out, name);
    fprintf(out, "\nrank %d, thread %d, depth %d\nstart %s, duration %s"
            "</title></rect>\n", ln->rank, ln->thread, c->depth, at, dur);
    if (w > 24) {
        fprintf(out, "<text x=\"%.2f\" y=\"%.1f\" font-size=\"10\" "
                "pointer-events=\"none\">", x + 3, y + ROW - 4.5);
        scope__xml_put_fit(out, name, 10, w - 6);
        fputs("</text>\n", out);
    }
}

static void draw_axis(FILE *out, double x0, double pw, double bottom,
                      int64_t t0, int64_t span, int64_t origin)
{
    double scale = pw / (double)span;
    double step = scope__nice_step((double)span, 8);
    double rel0 = (double)(t0 - origin);
    double first = step * (double)(int64_t)(rel0 / step);
    if (first < rel0)
        first += step;
    fputs("<g class=\"axis\">\n", out);
    for (double v = first; v <= rel0 + (double)span + step * 1e-6; v += step) {
        double x = x0 + (v - rel0) * scale;
        char lab[48];
        scope__fmt_human(lab, sizeof lab, v);
        fprintf(out, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>"
                "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\" "
                "font-size=\"11\">%s</text>\n", x, TOP - 6, x, bottom, x,
                TOP - 10, lab);
    }
    fputs("</g>\n", out);
}

/* The regions drawn, with their colours, flowing in rows. Returns the
 * height used; counts the entries. */
static double draw_legend(FILE *out, scope_profile *p, const char *used,
                          const scope__colour *colours, double y,
                          double width, int64_t *nregions, int draw)
{
    double x = 12, h = 18;
    int any = 0;
    if (draw)
        fprintf(out, "<g class=\"legend\" transform=\"translate(0,%.1f)\">\n",
                y);
    for (int r = 0; r < scope_profile_region_count(p); r++) {
        if (!used[r])
            continue;
        const char *name = scope_profile_region_name(p, r);
        double w = 22 + (scope__text_px(name, 11) < 220
                         ? scope__text_px(name, 11) : 220) + 16;
        if (x + w > width - 12 && x > 12) {
            x = 12;
            h += 18;
        }
        any = 1;
        if (draw) {
            const char *col = colours[r];
            fprintf(out, "<g class=\"legend-item\"><rect x=\"%.1f\" y=\"%.1f\" "
                    "width=\"14\" height=\"12\" rx=\"2\" fill=\"%s\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", x,
                    h - 16, col, x + 19, h - 6);
            scope__xml_put_fit(out, name, 11, 220);
            fputs("</text></g>\n", out);
            (*nregions)++;
        }
        x += w;
    }
    if (draw)
        fputs("</g>\n", out);
    return any ? h + 6 : 0;
}

int scope__plot_timeline(FILE *out, scope_profile *p,
                         const scope__plot_opts *o, scope__plot_counts *counts)
{
    memset(counts, 0, sizeof *counts);
    lanes l = { NULL, 0, 0 };
    int nreg = scope_profile_region_count(p);
    char *used = calloc((size_t)(nreg ? nreg : 1), 1);
    scope__colour *colours = scope__region_colours(p);
    int rc = SCOPE_ENOMEM;
    if (!used || !colours)
        goto fail_gather;
    if ((rc = gather(p, o->max_calls > 0 ? o->max_calls : 1, &l, counts)) < 0)
        goto fail_gather;
    int64_t t0 = 0, span = 0, origin = 0;
    if (scope_profile_min_start_ns(p, &t0) == 0 &&
        (rc = scope_profile_time_span_ns(p, &span)) < 0)
        goto fail_gather;
    if (scope_profile_time_origin_ns(p, &origin) < 0)
        origin = t0;
    if (span <= 0)
        span = 1;
    double width = o->width, pw = width - LEFT - RIGHT;
    double scale = pw / (double)span, y = TOP;
    for (int64_t i = 0; i < l.n; i++) {
        y += (l.v[i].rows ? l.v[i].rows : 1) * ROW + LANE_GAP;
        for (int64_t j = 0; j < l.v[i].n; j++)
            used[l.v[i].c[j].region] = 1;
    }
    double lanes_bottom = y;
    /* the messages are matched before anything is written: a failure
     * leaves nothing half drawn */
    scope_waits *w = NULL;
    const scope_message **msgs = NULL;
    if (scope_profile_has_moved(p)) {
        const scope_message *m;
        if ((rc = scope_profile_waits(p, 0, &w)) < 0)
            goto fail_gather;
        int64_t n = scope_waits_messages(w, &m);
        if (!(msgs = malloc((size_t)(n ? n : 1) * sizeof *msgs))) {
            rc = SCOPE_ENOMEM;
            goto fail_waits;
        }
    }
    double *mid = malloc((size_t)(l.n ? l.n : 1) * sizeof *mid);
    if (!mid) {
        rc = SCOPE_ENOMEM;
        goto fail_waits;
    }
    double legend_h = draw_legend(out, p, used, colours, 0, width, NULL,
                                   0);
    scope__svg_open(out, "timeline", width, lanes_bottom + 12 + legend_h);
    draw_axis(out, LEFT, pw, lanes_bottom - LANE_GAP, t0, span, origin);
    y = TOP;
    for (int64_t i = 0; i < l.n; i++) {
        const lane *ln = &l.v[i];
        double h = (ln->rows ? ln->rows : 1) * ROW;
        mid[i] = y + h / 2;
        fprintf(out, "<g class=\"lane\" data-rank=\"%d\" data-thread=\"%d\" "
                "data-calls=\"%lld\" data-drawn=\"%lld\">\n"
                "<rect x=\"0\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" "
                "fill=\"%s\"/>\n<text x=\"10\" y=\"%.1f\" font-weight=\"bold\">"
                "rank %d%s", ln->rank, ln->thread, (long long)ln->total,
                (long long)ln->n, y - LANE_GAP / 2, width, h + LANE_GAP,
                i % 2 ? "#ffffff" : "#f3f5f8", y + 12, ln->rank,
                ln->multi ? "" : "</text>\n");
        if (ln->multi)
            fprintf(out, " · thread %d</text>\n", ln->thread);
        if (ln->n < ln->total)
            fprintf(out, "<text class=\"muted\" x=\"10\" y=\"%.1f\" "
                    "font-size=\"10\">%lld of %lld calls (longest)</text>\n",
                    y + 25, (long long)ln->n, (long long)ln->total);
        for (int64_t j = 0; j < ln->n; j++)
            draw_call(out, p, colours[ln->c[j].region], ln, &ln->c[j], LEFT,
                      scale, t0, origin, y);
        fputs("</g>\n", out);
        counts->calls += ln->n;
        counts->calls_total += ln->total;
        y += h + LANE_GAP;
    }
    counts->lanes = l.n;
    if (w)
        draw_messages(out, p, w, msgs, &l, mid, LEFT, scale, t0, counts);
    free(mid);
    draw_legend(out, p, used, colours, lanes_bottom + 12, width,
                &counts->regions, 1);
    fputs("</svg>\n", out);
    rc = 0;
fail_waits:
    free(msgs);
    scope_waits_free(w);
fail_gather:
    lanes_free(&l);
    free(colours);
    free(used);
    return rc;
}
