/*
 * cmd_events.c - `scope events PATH...`: one row per call (the tutorial's
 * events()), in region order, then rank, then call order, filtered by
 * region regexes and ranks, with times relative to the run start, absolute
 * or relative to any origin, as a table, csv or json.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "event_output.h"
#include "output.h"

static const char events_help[] =
    "usage: scope events [--include RE]... [--exclude RE]... [--ranks LIST]\n"
    "                    [--absolute | --origin NS] [--no-call-ids]\n"
    "                    [--no-call-sites] [--no-io]\n"
    "                    [--format table|csv|json] [--wide] PATH...\n"
    "\n"
    "One row per recorded call, with the names and column order of the\n"
    "Python module's events() and to_events_dataframe(): name, rank,\n"
    "call_index (the call's index among that region's calls on that rank),\n"
    "start, end, duration (in seconds), call_id (the call's index in its\n"
    "rank's call stack, calls sorted by start), parent_id (the call_id of\n"
    "the call it is nested in, -1 if none) and thread (the thread lane, 0\n"
    "for the first). Rows come in region order (by first entry), then rank,\n"
    "then call order. When the run recorded call sites (config:\n"
    "`name callsites=N`), a last column, callsite, gives each call's\n"
    "immediate caller as \"function (file:line)\" (see scope callsites;\n"
    "empty for calls without one). When the run recorded what its MPI\n"
    "calls moved, csv and json add bytes_sent, bytes_received, dest,\n"
    "source, tag, comm (docs/format.md; to_events_dataframe() has them\n"
    "too): empty cells (csv) or no keys (json) for calls of other regions,\n"
    "an empty cell or null for a tag of none. When the run recorded I/O\n"
    "calls, csv and json add what each did (docs/io.md): io_layer (posix,\n"
    "stdio, mpiio, hdf5), io_file (the file's resolved name, as `scope\n"
    "io`), io_bytes, io_offset (bytes for POSIX and stdio, etypes of the\n"
    "view for MPI-IO): empty cells (csv) or no keys (json) for other calls\n"
    "and for an offset of none; the table shows the same in an io column\n"
    "(\"stdio 4096 B /path @0\").\n"
    "\n"
    "options:\n"
    "  --include RE   only regions whose name matches RE (POSIX extended\n"
    "                 regex, matched anywhere; ^...$ for a whole name);\n"
    "                 repeat for several (a region matching any is kept)\n"
    "  --exclude RE   drop regions matching RE; repeatable\n"
    "  --ranks LIST   only these ranks, e.g. 0,2-3\n"
    "  --absolute     times as recorded (ns clock / 1e9), not relative\n"
    "  --origin NS    times relative to NS (recorded clock, nanoseconds)\n"
    "                 instead of the run start (default: the run start, or\n"
    "                 the first call when the file records none)\n"
    "  --no-call-ids  leave out call_id and parent_id (faster; needed when\n"
    "                 calls overlap partially and nesting cannot be built)\n"
    "  --no-call-sites  leave out the callsite column\n"
    "  --no-io        leave out the I/O columns (--io: keep them even for a\n"
    "                 run that recorded no I/O call)\n"
    "  --format F     table (default), csv or json ({\"events\": [...]})\n"
    SCOPE__HELP_WIDE_AND_HELP;

int scope_cmd_events(int argc, char **argv)
{
    static const struct option opts[] = {
        { "include", required_argument, NULL, 'i' },
        { "exclude", required_argument, NULL, 'x' },
        { "ranks", required_argument, NULL, 'r' },
        { "absolute", no_argument, NULL, 'a' },
        { "origin", required_argument, NULL, 'o' },
        { "no-call-ids", no_argument, NULL, 'n' },
        { "no-call-sites", no_argument, NULL, 's' },
        { "format", required_argument, NULL, 'f' },
        { "wide", no_argument, NULL, 'w' },
        { "io", no_argument, NULL, 'I' },
        { "no-io", no_argument, NULL, 'N' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char **inc = calloc((size_t)argc, sizeof *inc);
    const char **exc = calloc((size_t)argc, sizeof *exc);
    int32_t *ranks = NULL;
    scope_event_query q;
    memset(&q, 0, sizeof q);
    q.call_ids = 1;
    q.call_sites = 1;
    int c, format = SCOPE__EV_TABLE, status = 2, wide = 0, io = 0;
    if (!inc || !exc) {
        status = scope__fail_msg("out of memory");
        goto fail_args;
    }
    scope_profile *p;
    scope__options parse = { .cmd = "events", .help = events_help, .argc = argc, .argv = argv,
                              .shortopts = ":h", .longopts = opts, .profile = &p,
                              .format = &format };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 'i':
            inc[q.ninclude++] = optarg;
            break;
        case 'x':
            exc[q.nexclude++] = optarg;
            break;
        case 'r':
            free(ranks);
            if ((q.nranks = scope__parse_ranks(optarg, &ranks)) < 0) {
                ranks = NULL;
                scope__usage_error("events", "bad rank list '%s' (e.g. "
                                   "0,2-3)", optarg);
                goto fail_args;
            }
            break;
        case 'a':
            if (q.time_mode == SCOPE_TIME_ORIGIN)
                goto fail_both;
            q.time_mode = SCOPE_TIME_ABSOLUTE;
            break;
        case 'o':
            if (q.time_mode == SCOPE_TIME_ABSOLUTE)
                goto fail_both;
            if (scope__parse_i64(optarg, &q.origin_ns) < 0) {
                scope__usage_error("events", "--origin needs nanoseconds, "
                                   "not '%s'", optarg);
                goto fail_args;
            }
            q.time_mode = SCOPE_TIME_ORIGIN;
            break;
        case 'n':
            q.call_ids = 0;
            break;
        case 'w':
            wide = 1;
            break;
        case 's':
            q.call_sites = 0;
            break;
        case 'I':
            io = 1;
            break;
        case 'N':
            io = -1;
            break;
        }
    }
    if (c < 0) {
        status = parse.status;
        goto fail_args;
    }
    q.include = inc;
    q.exclude = exc;
    q.ranks = ranks;
    status = scope__write_events(stdout, p, &q, format, scope__out_width(stdout, wide), io);
    scope_profile_close(p);
    goto fail_args;
fail_both:
    scope__usage_error("events", "--absolute and --origin exclude each "
                       "other");
fail_args:
    free(ranks);
    free(inc);
    free(exc);
    return status;
}
