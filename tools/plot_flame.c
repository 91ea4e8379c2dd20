/*
 * plot_flame.c - the flame graph picture (plots.h): the call tree of
 * every rank and thread added together (call_tree.h), one box per call
 * path, as wide as its total time, stacked on its caller; the widest
 * children first. Boxes narrower than half a pixel are left out (and so
 * is everything above them), since they cannot be seen or pointed at.
 */
#include <stdlib.h>
#include <string.h>

#include "call_tree.h"
#include "output.h"
#include "plots.h"
#include "svg.h"

#define SIDE 12.0
#define TOP 10.0
#define ROW 18.0
#define MIN_PX 0.5

int scope__plot_flame(FILE *out, scope_profile *p, const scope__plot_opts *o,
                      scope__plot_counts *counts)
{
    memset(counts, 0, sizeof *counts);
    scope__tree t;
    memset(&t, 0, sizeof t);
    int64_t *order = NULL;
    double *x = NULL, *next = NULL;
    scope__colour *colours = NULL;
    int rc = scope__tree_add(&t, p, SCOPE_ALL_RANKS, SCOPE_ALL_THREADS);
    if (rc < 0)
        goto fail_tree;
    order = scope__tree_order(&t);
    x = malloc((size_t)(t.n ? t.n : 1) * sizeof *x);
    next = malloc((size_t)(t.n ? t.n : 1) * sizeof *next);
    colours = scope__region_colours(p);
    if (!order || !x || !next || !colours) {
        rc = SCOPE_ENOMEM;
        goto fail_tree;
    }
    int64_t all = 0;
    int32_t maxdepth = 0;
    for (int64_t i = 0; i < t.n; i++) {
        if (t.nodes[i].parent < 0)
            all += t.nodes[i].total_ns;
        if (t.nodes[i].depth > maxdepth)
            maxdepth = t.nodes[i].depth;
    }
    double width = o->width, pw = width - 2 * SIDE;
    double scale = all > 0 ? pw / (double)all : 0;
    double height = TOP + (maxdepth + 1) * ROW + 10;
    /* Depth-first order visits a node before its children and siblings
     * widest first, so each node's x is its parent's running cursor. */
    double root_next = SIDE;
    scope__svg_open(out, "flame", width, height);
    for (int64_t i = 0; i < t.n; i++) {
        int64_t v = order[i];
        const scope__tree_node *nd = &t.nodes[v];
        double *cursor = nd->parent < 0 ? &root_next : &next[nd->parent];
        double w = (double)nd->total_ns * scale;
        x[v] = *cursor;
        next[v] = x[v];
        *cursor += w;
        /* A child is never wider than its parent, so leaving out a
         * narrow box leaves out everything above it too. */
        if (w < MIN_PX)
            continue;
        const char *name = scope_profile_region_name(p, nd->region);
        const char *col = colours[nd->region];
        char total[48], self[48];
        scope__fmt_human(total, sizeof total, (double)nd->total_ns);
        scope__fmt_human(self, sizeof self, (double)nd->self_ns);
        double y = TOP + (maxdepth - nd->depth) * ROW;
        char *path = scope__tree_path(p, &t, v, 0);
        fprintf(out, "<g><rect class=\"node\" data-region=\"%d\" "
                "data-depth=\"%d\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
                "height=\"%.1f\" rx=\"1.5\" fill=\"%s\"><title>", nd->region,
                nd->depth, x[v], y, w, ROW - 1, col);
        scope__xml_put(out, path ? path : name);
        fprintf(out, "\n%lld calls, total %s (%.1f%%), self %s</title></rect>",
                (long long)nd->calls, total,
                all > 0 ? 100.0 * (double)nd->total_ns / (double)all : 0.0,
                self);
        free(path);
        if (w > 24) {
            fprintf(out, "<text x=\"%.2f\" y=\"%.1f\" font-size=\"11\" "
                    "pointer-events=\"none\">", x[v] + 4, y + ROW - 5.5);
            scope__xml_put_fit(out, name, 11, w - 8);
            fputs("</text>", out);
        }
        fputs("</g>\n", out);
        counts->nodes++;
    }
    fputs("</svg>\n", out);
    rc = 0;
fail_tree:
    free(colours);
    free(x);
    free(next);
    free(order);
    scope__tree_free(&t);
    return rc;
}
