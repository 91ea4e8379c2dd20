/*
 * cmd_recover.c - `scope recover PATH...`: turns the journals that dead
 * processes left behind into the rank files a clean finish writes.
 *
 * The policy (which journals, which files they become, the journal
 * folders apart, temporaries, fault markers, the index's links) is the
 * converter's (convert/scope_recover.h, convert/recover.c); this command
 * parses its options and prints what recovery says.
 */
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "scope_convert.h"
#include "scope_recover.h"

static const char recover_help[] =
    "usage: scope recover [-q] [--journals DIR]... PATH...\n"
    "\n"
    "Converts the journals left by processes that died (killed, crashed, cut\n"
    "off by the scheduler, or exited without finalizing) into the same rank\n"
    "files a clean finish writes, marked complete = 0, with calls still open\n"
    "at the crash closed at the last recorded time. Writes the index file\n"
    "when it is missing. Journals of processes still running are refused.\n"
    "Running it again is harmless. Also for journals kept because the disk\n"
    "was full or read-only at the end of the run: run it once there is room.\n"
    "On a full disk it fails with the reason and keeps every journal.\n"
    "\n"
    "PATH is an index file (run.h5: its run.ranks/ folder is searched), a\n"
    "folder of rank files, or one journal file.\n"
    "\n"
    "Journals kept in a separate folder during the run (SCOPE_JOURNAL_DIR,\n"
    "e.g. node-local /tmp) are found through the journals.<host> files the\n"
    "run leaves in the ranks folder, when that folder is visible where\n"
    "recover runs: run it on the node that has the folder (before the\n"
    "scheduler cleans it), or name where it is mounted with --journals.\n"
    "\n"
    "options:\n"
    "  --journals DIR also recover this run's journals found in DIR\n"
    "  -q, --quiet    print only errors\n"
    "  -h, --help     this text\n"
    "\n"
    "exit status: 0 when every journal found was recovered (or none was\n"
    "found), 1 when any was refused or failed.\n";

static int quiet;

/* What recovery says: its notes on stdout unless -q, its problems on
 * stderr as the tool's one-line errors. */
static void print_line(void *arg, enum scope_recover_say kind, const char *text)
{
    (void)arg;
    if (kind == SCOPE_RECOVER_PROBLEM)
        fprintf(stderr, "scope: %s\n", text);
    else if (!quiet)
        printf("%s\n", text);
}

int scope_cmd_recover(int argc, char **argv)
{
    static const struct option opts[] = {
        { "quiet", no_argument, NULL, 'q' },
        { "journals", required_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    char *jdirs[64];
    size_t n_jdirs = 0;
    int c;
    scope__options parse = { .cmd = "recover", .help = recover_help, .argc = argc, .argv = argv,
                              .shortopts = "qh", .longopts = opts };
    while ((c = scope__next_option(&parse)) > 0) {
        if (c == 'q') {
            quiet = 1;
        } else if (c == 'j') {
            if (n_jdirs == sizeof jdirs / sizeof *jdirs)
                return scope__usage_error("recover", "--journals given more than 64 times");
            jdirs[n_jdirs++] = optarg;
        }
    }
    if (c < 0)
        return parse.status;
    if (optind >= argc)
        return scope__usage_error("recover", "no PATH given");
    struct scope_recover_options opt = {
        .journal_dirs = (const char *const *)jdirs,
        .n_journal_dirs = n_jdirs,
        .say = print_line,
    };
    struct scope_recover *r = scope_recover_begin(&opt);
    if (!r) {
        fprintf(stderr, "scope: out of memory\n");
        return 1;
    }
    int status = 0, found = 0;
    for (int i = optind; i < argc; i++)
        status |= scope_recover_path(r, argv[i], &found) < 0;
    scope_recover_end(r);
    if (!found && !quiet)
        printf("nothing to recover\n");
    if (scope_convert_hdf5_broken()) {
        /* libhdf5's exit handler would crash on the file it could not
         * close (scope_convert_hdf5_broken) */
        fflush(stdout);
        fflush(stderr);
        _exit(status | 1);
    }
    return status;
}
