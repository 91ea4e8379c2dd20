/*
 * cmd_plot.c - `scope plot PATH... --kind timeline|flame|imbalance -o
 * FILE.svg`: one of the report's pictures as a standalone SVG file, for
 * papers, slides and wikis. The drawing is in plot_*.c (plots.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "out_file.h"
#include "plots.h"

static const char plot_help[] =
    "usage: scope plot --kind KIND -o FILE.svg [options] PATH...\n"
    "\n"
    "Draws the profile as a standalone SVG picture (FILE '-' = stdout):\n"
    "  timeline   one lane per rank and thread, calls as boxes at their\n"
    "             nesting depth, coloured by region; at most --max-calls\n"
    "             calls per lane (the longest; the lane says how many)\n"
    "  flame      flame graph of the call tree, all ranks and threads added\n"
    "             together: box width = total time of the call path\n"
    "  imbalance  per region, one bar per rank with its total time in the\n"
    "             region, and the mean; label: max/mean and slowest rank\n"
    "  comm       bytes each world rank sent to each other (heat map of\n"
    "             point-to-point MPI messages) and the message sizes\n"
    "Hovering a box shows its numbers. Colours are fixed per region name.\n"
    "\n"
    "options:\n"
    "  --kind KIND       timeline, flame, imbalance or comm\n"
    "  -o, --output FILE\n"
    "  --width PX        picture width (default 1200, 400 to 20000)\n"
    "  --max-calls N     timeline: calls drawn per lane (default 4000)\n"
    "  --max-regions N   imbalance: regions drawn (default 16)\n"
    "  -h, --help        this text\n";

enum { KIND_TIMELINE, KIND_FLAME, KIND_IMBALANCE, KIND_COMM };

/* Parses --width / --max-* values; -1 when out of [lo, hi]. */
static int64_t parse_bounded(const char *s, int64_t lo, int64_t hi)
{
    int64_t v;
    if (scope__parse_i64(s, &v) < 0 || v < lo || v > hi)
        return -1;
    return v;
}

/* What write_picture draws. */
struct picture {
    scope_profile *p;
    int kind;
    const scope__plot_opts *po;
};

/* Writes the picture the options ask for into out: 0, or 1 (said). */
static int write_picture(FILE *out, void *ctx)
{
    const struct picture *pic = ctx;
    scope__plot_counts counts;
    int rc;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    switch (pic->kind) {
    case KIND_TIMELINE: rc = scope__plot_timeline(out, pic->p, pic->po, &counts); break;
    case KIND_FLAME: rc = scope__plot_flame(out, pic->p, pic->po, &counts); break;
    case KIND_COMM: rc = scope__plot_comm(out, pic->p, pic->po, &counts); break;
    default: rc = scope__plot_imbalance(out, pic->p, pic->po, &counts); break;
    }
    return rc < 0 ? scope__fail_msg(scope__plot_errmsg(rc)) : 0;
}

int scope_cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {
        { "kind", required_argument, NULL, 'k' },
        { "output", required_argument, NULL, 'o' },
        { "width", required_argument, NULL, 'w' },
        { "max-calls", required_argument, NULL, 'c' },
        { "max-regions", required_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    static const char *const kinds[] = { "timeline", "flame", "imbalance", "comm",
                                         NULL };
    scope__plot_opts po = SCOPE__PLOT_DEFAULTS;
    const char *outpath = NULL;
    int c, k, kind = -1, rc;
    int64_t v;
    scope__options parse = { .cmd = "plot", .help = plot_help, .argc = argc, .argv = argv,
                              .shortopts = ":ho:", .longopts = opts };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 'k':
            if ((k = scope__parse_choice("plot", "kind", optarg, kinds, &kind)) != 0)
                return k;
            break;
        case 'o':
            outpath = optarg;
            break;
        case 'w':
            if ((v = parse_bounded(optarg, 400, 20000)) < 0)
                return scope__usage_error("plot", "--width needs a number "
                                          "from 400 to 20000, not '%s'",
                                          optarg);
            po.width = (int)v;
            break;
        case 'c':
        case 'r':
            if ((rc = scope__parse_plot_limit("plot", c, optarg, &po)) != 0)
                return rc;
            break;
        }
    }
    if (c < 0)
        return parse.status;
    if (kind < 0)
        return scope__usage_error("plot", "no kind given (--kind)");
    scope_profile *p;
    if ((k = scope__operands("plot", argc, argv, 1, outpath, &p)) != 0)
        return k;
    struct picture pic = { p, kind, &po };
    int status = scope__out_write(outpath, "picture", write_picture, &pic);
    scope_profile_close(p);
    return status;
}
