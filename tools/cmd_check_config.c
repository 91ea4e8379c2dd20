/*
 * cmd_check_config.c - `scope check-config FILE [--quiet]`: validates a
 * config file the way the preload will read it (SCOPE_* variables applied)
 * and prints what it means, so a mistake shows up before a long job is
 * queued rather than as one line in a rank's stderr.
 *
 * Exit status: 0 valid, 1 invalid or unreadable (the one
 * "scope: <file>:<line>:<col>: <problem>" line on stderr), 2 usage error.
 */
#include <stdio.h>
#include <string.h>

#include "scope_config.h"

static const char usage[] =
    "usage: scope check-config FILE [--quiet]\n"
    "  Checks a scope config file (SCOPE_* variables applied) and prints what it\n"
    "  means: each setting with where it came from, each function entry.\n"
    "  -q, --quiet  print nothing when the file is valid (exit status only)\n"
    "  -h, --help   this text\n";

static void print_line(void *ctx, const char *line)
{
    FILE *f = ctx;
    fputs(line, f);
    fputc('\n', f);
}

/* Same shape as the other commands' usage errors. Returns 2. */
static int usage_error(const char *fmt, const char *arg)
{
    fputs("scope: check-config: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (try 'scope check-config --help')\n", stderr);
    return 2;
}

/* argv[0] is the command's name ("check-config"), as the dispatcher passes
 * it (tools/commands.h). Returns the exit status. */
int scope_cmd_check_config(int argc, char **argv)
{
    const char *path = NULL;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return usage_error("unknown option '%s'", argv[i]);
        } else if (path) {
            return usage_error("one config file only, not also '%s'", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return usage_error("%s", "no config file given");

    char err[1024];
    scope_config *cfg = NULL;
    int rc = scope__config_load(path, &cfg, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "scope: %s\n", err);
        return 1;
    }
    if (!quiet)
        scope__config_describe(cfg, print_line, stdout);
    scope__config_free(cfg);
    return fflush(stdout) == 0 ? 0 : 1;
}
