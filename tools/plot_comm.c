/*
 * plot_comm.c - the communication picture (plots.h): a heat map of the
 * bytes each world rank sent to each other in point-to-point messages
 * (rows senders, columns receivers; blocks of ranks when there are more
 * ranks than fit the width at 4 px each), beside a bar chart of the
 * message sizes in power-of-two buckets. Both come from the reader's data
 * columns (scope_reader_comm.h), as `scope comm` prints them; the
 * one-sided kind draws the one-sided calls the same way (`scope comm
 * --one-sided`: rows the rank data left, columns the rank it reached).
 */
#include <math.h>
#include <stdlib.h>

#include "output.h"
#include "plots.h"
#include "scope_reader_comm.h"
#include "svg.h"

#define MAP 420.0       /* the heat map's side in px */
#define PAD 56.0
#define HIST_W 360.0

int scope__plot_comm(FILE *out, scope_profile *p, const scope__plot_opts *o,
                     scope__plot_counts *counts)
{
    return scope__plot_comm_kind(out, p, o, SCOPE_COMM_P2P, counts);
}

int scope__plot_comm_kind(FILE *out, scope_profile *p, const scope__plot_opts *o, int kind,
                          scope__plot_counts *counts)
{
    (void)o;
    *counts = (scope__plot_counts){ 0 };
    int n = scope_profile_world_size(p);
    int64_t *bytes = calloc((size_t)n * (size_t)n + 1, sizeof *bytes);
    int64_t *msgs = calloc((size_t)n * (size_t)n + 1, sizeof *msgs);
    int64_t hist[SCOPE_SIZE_BUCKETS] = { 0 };
    int rc = bytes && msgs ? 0 : SCOPE_ENOMEM;
    if (rc == 0)
        rc = scope_profile_comm_matrix_kind(p, kind, SCOPE_COMM_ALL_REGIONS, n, msgs, bytes);
    if (rc == 0)
        rc = scope_profile_size_histogram_kind(p, kind, SCOPE_COMM_ALL_REGIONS, SCOPE_ALL_RANKS,
                                               hist);
    if (rc < 0)
        goto out;
    /* blocks of ranks: at least 4 px per cell */
    int block = (int)ceil((double)n * 4.0 / MAP);
    if (block < 1)
        block = 1;
    int nb = n ? (n + block - 1) / block : 0;
    int64_t *agg = calloc((size_t)nb * (size_t)nb + 1, sizeof *agg);
    if (!agg) {
        rc = SCOPE_ENOMEM;
        goto out;
    }
    int64_t top = 0, hmax = 0;
    for (int s = 0; s < n; s++)
        for (int r = 0; r < n; r++) {
            int64_t *a = &agg[(size_t)(s / block) * (size_t)nb + (size_t)(r / block)];
            *a += bytes[(size_t)s * (size_t)n + (size_t)r];
            if (*a > top)
                top = *a;
            counts->calls += msgs[(size_t)s * (size_t)n + (size_t)r];
        }
    int nrows = 0;
    for (int k = 0; k < SCOPE_SIZE_BUCKETS; k++) {
        if (hist[k] > hmax)
            hmax = hist[k];
        nrows += hist[k] > 0;
    }
    double width = PAD + MAP + PAD + HIST_W + 24;
    double height = PAD + (MAP > nrows * 18.0 ? MAP : nrows * 18.0) + 40;
    scope__svg_open(out, "comm", width, height);
    double cell = nb ? MAP / nb : MAP;
    fprintf(out, "<text x=\"%.1f\" y=\"18\" font-weight=\"bold\">%s%s</text>\n", PAD,
            kind == SCOPE_COMM_P2P ? "bytes sent, sender (rows) to receiver (columns)"
                                   : "bytes moved one-sided, from (rows) to (columns)",
            block > 1 ? ", blocks of ranks" : "");
    if (block > 1)
        fprintf(out, "<text class=\"muted\" x=\"%.1f\" y=\"34\">%d ranks per block</text>\n",
                PAD, block);
    for (int s = 0; s < nb; s++)
        for (int r = 0; r < nb; r++) {
            int64_t v = agg[(size_t)s * (size_t)nb + (size_t)r];
            if (!v)
                continue;
            /* light to dark blue, by the share of the busiest cell */
            double t = sqrt((double)v / (double)top);
            int red = (int)(235 - 205 * t), green = (int)(242 - 160 * t), blue = 250 - (int)(60 * t);
            char sz[48];
            scope__fmt_bytes(sz, sizeof sz, v);
            fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                    "fill=\"#%02x%02x%02x\"><title>%d%s to %d%s: %s</title></rect>\n",
                    PAD + r * cell, PAD + s * cell, cell, cell, red, green, blue, s * block,
                    block > 1 ? "…" : "", r * block, block > 1 ? "…" : "", sz);
            counts->nodes++;
        }
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#9aa5b1\"/>\n", PAD, PAD, MAP, MAP);
    int step = nb > 8 ? (nb + 7) / 8 : 1;
    for (int i = 0; i < nb; i += step) {
        fprintf(out, "<text class=\"muted\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d</text>\n",
                PAD - 4, PAD + i * cell + cell / 2 + 4, i * block);
        fprintf(out, "<text class=\"muted\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n",
                PAD + i * cell + cell / 2, PAD + MAP + 14, i * block);
    }
    /* the sizes: one bar per bucket that holds messages */
    double hx = PAD + MAP + PAD, hy = PAD;
    fprintf(out, "<text x=\"%.1f\" y=\"18\" font-weight=\"bold\">message sizes</text>\n", hx);
    int row = 0;
    for (int k = 0; k < SCOPE_SIZE_BUCKETS; k++) {
        if (!hist[k])
            continue;
        char lo[48];
        scope__fmt_bytes(lo, sizeof lo, k == 0 ? 0 : (int64_t)1 << (k - 1));
        double w = (HIST_W - 150) * (double)hist[k] / (double)hmax;
        double y = hy + row * 18;
        fprintf(out, "<text class=\"muted\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s%s</text>\n"
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"13\" fill=\"#4c78a8\">"
                "<title>%lld messages</title></rect>\n<text x=\"%.1f\" y=\"%.1f\">%lld</text>\n",
                hx + 80, y + 11, k == 0 ? "" : "≥ ", lo, hx + 86, y, w > 0.5 ? w : 0.5,
                (long long)hist[k], hx + 90 + w, y + 11, (long long)hist[k]);
        counts->bars++;
        row++;
    }
    fputs("</svg>\n", out);
    counts->lanes = n;
    free(agg);
out:
    free(bytes);
    free(msgs);
    return rc;
}
