/*
 * svg.c - escaping, stable region colours, axis steps and the shared
 * <svg> header for the pictures of `scope plot` and `scope report`
 * (svg.h). The pictures are plain SVG 1.1 that browsers, Inkscape and
 * rsvg-convert all draw; nothing in them loads anything from a network.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scope_calls.h"
#include "scope_omp.h"
#include "scope_reader_io.h"
#include "svg.h"

void scope__xml_put(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            /* XML 1.0 forbids most control characters, even escaped. */
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
                fputc(' ', out);
            else
                fputc(*s, out);
        }
    }
}

/* Light enough for dark labels, far enough apart to tell neighbours. */
static const char *const palette[] = {
    "#8fb3dc", "#f4a261", "#84c98b", "#e9787a", "#b39ddb", "#d6b48c",
    "#f49ac2", "#b0b0b0", "#d4d46a", "#6cc5d0", "#6f9fdc", "#f6c177",
    "#5fbf7f", "#e08aa6", "#9c88d6", "#b5a191", "#f2b8d4", "#8ec3c9",
    "#c8d47a", "#eaa36b"
};
#define NPALETTE (sizeof palette / sizeof palette[0])

static uint32_t fnv1a(const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *s = (const unsigned char *)name; *s; s++)
        h = (h ^ *s) * 16777619u;
    return h;
}

static double hue_to_rgb(double p, double q, double t)
{
    if (t < 0) t += 1;
    if (t > 1) t -= 1;
    if (t < 1.0 / 6) return p + (q - p) * 6 * t;
    if (t < 0.5) return q;
    if (t < 2.0 / 3) return p + (q - p) * (2.0 / 3 - t) * 6;
    return p;
}

void scope__region_colour(const char *name, char buf[8])
{
    uint32_t h = fnv1a(name);
    /* Hash bits spread over hue, and a little over saturation and
     * lightness, so neighbouring hues still differ. */
    double hue = (double)(h % 360) / 360.0;
    double sat = 0.50 + (double)((h >> 9) % 4) * 0.08;
    double lig = 0.62 + (double)((h >> 13) % 3) * 0.06;
    double q = lig < 0.5 ? lig * (1 + sat) : lig + sat - lig * sat;
    double p = 2 * lig - q;
    int r = (int)lround(255 * hue_to_rgb(p, q, hue + 1.0 / 3));
    int g = (int)lround(255 * hue_to_rgb(p, q, hue));
    int b = (int)lround(255 * hue_to_rgb(p, q, hue - 1.0 / 3));
    snprintf(buf, 8, "#%02x%02x%02x", r & 255, g & 255, b & 255);
}

/* OpenMP's regions by what they are, whatever their names' hashes: a
 * thread's work green, the runtime's own time (parallel regions outside
 * their implicit tasks, synchronisation) pale, and waits red, so that a
 * timeline shows at a glance who waited (format/scope_omp.h). NULL for
 * any other region. */
static const char *omp_colour(const char *name)
{
    switch (scope_omp_event_at(scope_omp_event_of(name))->cls) {
    case SCOPE_OMPC_PARALLEL: return "#c9d6e8";
    case SCOPE_OMPC_IMPLICIT_TASK: return "#9fd69b";
    case SCOPE_OMPC_WORK: return "#5fb87f";
    case SCOPE_OMPC_TASK: return "#b7a5e0";
    case SCOPE_OMPC_SYNC: return "#f2c9c4";
    case SCOPE_OMPC_WAIT: return "#d9534f";
    case SCOPE_OMPC_MUTEX: return "#b8322e";
    default: return NULL;
    }
}

/* I/O calls (docs/io.md) by what they do, whatever their layer and name:
 * writes amber, reads gold, the rest (opens, seeks, stats, syncs, ...)
 * pale tan, so that a timeline shows at a glance where a rank did I/O
 * and which. NULL for any other region. */
static const char *io_colour(const char *name)
{
    if (!scope_region_io_layer(name))
        return NULL;
    struct scope_call_name nm;
    switch (scope_call_at(scope_call_parse(name, &nm))->cls) {
    case SCOPE_CC_IO_WRITE: return "#c0782a";
    case SCOPE_CC_IO_READ: return "#d9b44a";
    default: return "#e6d2ad";
    }
}

scope__colour *scope__region_colours(const scope_profile *p)
{
    int n = scope_profile_region_count(p);
    scope__colour *c = malloc((size_t)(n ? n : 1) * sizeof *c);
    if (!c)
        return NULL;
    int taken[NPALETTE] = { 0 };
    for (int r = 0; r < n; r++) {
        const char *name = scope_profile_region_name(p, r);
        const char *omp = omp_colour(name);
        if (!omp)
            omp = io_colour(name);
        if (omp) {
            memcpy(c[r], omp, 8);
            continue;
        }
        if (r >= (int)NPALETTE) {
            scope__region_colour(name, c[r]);
            continue;
        }
        size_t k = fnv1a(name) % NPALETTE;
        while (taken[k])
            k = (k + 1) % NPALETTE;
        taken[k] = 1;
        memcpy(c[r], palette[k], 8);
    }
    return c;
}

double scope__nice_step(double span, int ticks)
{
    double raw = span / (ticks > 0 ? ticks : 1);
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

void scope__svg_open(FILE *out, const char *cls, double width, double height)
{
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"scope-%s\" "
            "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            SCOPE__SVG_FONT " font-size=\"12\">\n"
            "<style>text{fill:#222}.axis text,.muted{fill:#666}"
            ".axis line{stroke:#ccc}.call,.node,.bar{stroke:#fff;"
            "stroke-width:0.5}.call:hover,.node:hover,.bar:hover"
            "{stroke:#000;stroke-width:1}</style>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
            cls, width, height, width, height);
}

double scope__text_px(const char *s, double px)
{
    double n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n * px * 0.6;
}

void scope__xml_put_fit(FILE *out, const char *s, double px, double maxpx)
{
    if (scope__text_px(s, px) <= maxpx) {
        scope__xml_put(out, s);
        return;
    }
    /* Characters that fit next to the ellipsis, cut on a UTF-8 boundary. */
    long fit = (long)(maxpx / (px * 0.6)) - 1;
    if (fit < 1)
        return;
    char buf[256];
    size_t i = 0;
    long chars = 0;
    while (s[i] && i + 4 < sizeof buf) {
        if (((unsigned char)s[i] & 0xC0) != 0x80 && chars++ == fit)
            break;
        i++;
    }
    memcpy(buf, s, i);
    buf[i] = '\0';
    scope__xml_put(out, buf);
    fputs("…", out);
}
