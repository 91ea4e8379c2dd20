/*
 * plot_imbalance.c - the load-imbalance picture (plots.h): one panel per
 * region, largest total first, with one bar per rank for the region's
 * total time on that rank and a dashed line at the mean over the ranks
 * that entered it. A rank that waits for the others shows as a short bar
 * next to tall ones; the panel's label gives max/mean (1.0 = even) and
 * the slowest rank.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "plots.h"
#include "svg.h"

#define LEFT 230.0
#define RIGHT 24.0
#define TOP 26.0
#define PANEL 70.0
#define BAR_H 46.0

typedef struct {
    int region;
    int64_t total;
    scope_balance bal;
    int64_t *per_rank;      /* -1 = the rank never entered the region */
} panel;

static int cmp_panel(const void *a, const void *b)
{
    const panel *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return x->region - y->region;
}

static void free_panels(panel *v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i].per_rank);
    free(v);
}

static void draw_panel(FILE *out, scope_profile *p, const panel *pn,
                       const char *col, double y, double width)
{
    int nranks = scope_profile_rank_count(p);
    const char *name = scope_profile_region_name(p, pn->region);
    char mean[48], max[48];
    scope__fmt_human(mean, sizeof mean, pn->bal.mean_ns);
    scope__fmt_human(max, sizeof max, (double)pn->bal.max_ns);
    double pw = width - LEFT - RIGHT, slot = pw / nranks;
    if (slot > 56)          /* few ranks: bars, not blocks */
        slot = 56;
    double bw = slot * 0.75 < 0.5 ? 0.5 : slot * 0.75;
    double base = y + 8 + BAR_H, top = (double)pn->bal.max_ns;
    fprintf(out, "<g class=\"panel\" data-region=\"%d\">\n<text x=\"12\" "
            "y=\"%.1f\" font-weight=\"bold\">", pn->region, y + 20);
    scope__xml_put_fit(out, name, 12, LEFT - 24);
    fprintf(out, "</text>\n<text class=\"muted\" x=\"12\" y=\"%.1f\" "
            "font-size=\"11\">max/mean %.2f× · slowest rank %d</text>\n"
            "<text class=\"muted\" x=\"12\" y=\"%.1f\" font-size=\"11\">"
            "mean %s · max %s</text>\n", y + 36, pn->bal.imbalance,
            pn->bal.max_rank, y + 51, mean, max);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#bbb\"/>\n", LEFT, base, width - RIGHT, base);
    for (int k = 0; k < nranks; k++) {
        int64_t v = pn->per_rank[k];
        if (v < 0)
            continue;
        double h = top > 0 ? (double)v / top * BAR_H : 0;
        double x = LEFT + k * slot + (slot - bw) / 2;
        char tot[48];
        scope__fmt_human(tot, sizeof tot, (double)v);
        fprintf(out, "<rect class=\"bar\" data-rank=\"%d\" x=\"%.2f\" "
                "y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
                "<title>", scope_profile_rank(p, k), x, base - h, bw,
                h < 0.5 ? 0.5 : h, col);
        scope__xml_put(out, name);
        fprintf(out, "\nrank %d: %s (%.2f× the mean)</title></rect>\n",
                scope_profile_rank(p, k), tot,
                pn->bal.mean_ns > 0 ? (double)v / pn->bal.mean_ns : 0.0);
        if (slot >= 18)
            fprintf(out, "<text class=\"muted\" x=\"%.2f\" y=\"%.1f\" "
                    "font-size=\"9\" text-anchor=\"middle\">%d</text>\n",
                    x + bw / 2, base + 10, scope_profile_rank(p, k));
    }
    if (top > 0) {
        double my = base - pn->bal.mean_ns / top * BAR_H;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" "
                "stroke=\"#333\" stroke-dasharray=\"4 3\"><title>mean %s"
                "</title></line>\n", LEFT, my, width - RIGHT, my, mean);
    }
    fputs("</g>\n", out);
}

int scope__plot_imbalance(FILE *out, scope_profile *p,
                          const scope__plot_opts *o,
                          scope__plot_counts *counts)
{
    memset(counts, 0, sizeof *counts);
    int nreg = scope_profile_region_count(p);
    int nranks = scope_profile_rank_count(p), n = 0, rc = 0;
    panel *v = calloc((size_t)(nreg ? nreg : 1), sizeof *v);
    scope__colour *colours = scope__region_colours(p);
    if (!v || !colours) {
        free(colours);
        free(v);
        return SCOPE_ENOMEM;
    }
    for (int r = 0; r < nreg; r++) {
        scope_stats s;
        if ((rc = scope_profile_stats(p, r, SCOPE_ALL_RANKS, &s)) < 0)
            goto fail_read;
        if (s.calls == 0)
            continue;
        panel *pn = &v[n++];
        pn->region = r;
        pn->total = s.total_ns;
        if ((rc = scope_profile_balance(p, r, &pn->bal)) < 0)
            goto fail_read;
        if (!(pn->per_rank = malloc((size_t)nranks * sizeof *pn->per_rank))) {
            rc = SCOPE_ENOMEM;
            goto fail_read;
        }
        for (int k = 0; k < nranks; k++) {
            int rank = scope_profile_rank(p, k);
            pn->per_rank[k] = -1;
            if (scope_profile_calls(p, r, rank) <= 0)
                continue;
            if ((rc = scope_profile_stats(p, r, rank, &s)) < 0)
                goto fail_read;
            pn->per_rank[k] = s.total_ns;
        }
    }
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_panel);
    int shown = o->max_regions > 0 && n > o->max_regions ? o->max_regions : n;
    double width = o->width;
    scope__svg_open(out, "imbalance", width, TOP + shown * PANEL + 8);
    fprintf(out, "<text class=\"muted\" x=\"12\" y=\"17\" font-size=\"11\">"
            "Bars: each rank's total time in the region; dashed line: the "
            "mean over the ranks that entered it.");
    if (shown < n)
        fprintf(out, " The %d regions with the largest total of %d.", shown,
                n);
    fputs("</text>\n", out);
    for (int i = 0; i < shown; i++) {
        draw_panel(out, p, &v[i], colours[v[i].region], TOP + i * PANEL,
                   width);
        counts->regions++;
        for (int k = 0; k < nranks; k++)
            counts->bars += v[i].per_rank[k] >= 0;
    }
    fputs("</svg>\n", out);
    rc = 0;
fail_read:
    free(colours);
    free_panels(v, n);
    return rc;
}
