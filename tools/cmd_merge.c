/*
 * cmd_merge.c - `scope merge PATH... -o FILE`: one self-contained profile
 * file from an index and its rank folder, a folder of rank files, several
 * runs' files, or scope-profiler files, so a run can be moved as one file.
 * The copying is the reader's scope_profile_merge(); this file is the
 * command line around it.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "event_output.h"

static const char merge_help[] =
    "usage: scope merge -o FILE PATH...\n"
    "\n"
    "Copies /metadata and every rank of the profiles named by PATH (index\n"
    "files, merged files, rank files, folders of rank files, scope-profiler\n"
    "files) into FILE: one file with the same layout and no external links,\n"
    "which opens alone in scope, h5py and scope-profiler. The same rank in\n"
    "two PATHs is an error. FILE is written under a temporary name and\n"
    "renamed; an existing FILE is replaced only if it is a scope profile.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE\n"
    "  -h, --help     this text\n";

static void show_progress(void *ctx, int64_t done, int64_t total)
{
    (void)ctx;
    scope__progress("merge", done, total);
}

int scope_cmd_merge(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *outpath = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            outpath = optarg;
            break;
        case 'h':
            fputs(merge_help, stdout);
            return 0;
        default: /* ':' or an unknown option */
            return scope__option_error("merge", c, argv);
        }
    }
    if (!outpath)
        return scope__usage_error("merge", "no output file given (-o)");
    if (optind >= argc)
        return scope__usage_error("merge", "no profile path given");
    scope_profile *p = scope__open_or_report(argv + optind, argc - optind);
    if (!p)
        return 1;
    int status = 0;
    if (scope_profile_merge(p, outpath, show_progress, NULL) < 0)
        status = scope__fail_msg(scope_reader_errmsg());
    scope_profile_close(p);
    return status;
}
