/*
 * args.h - what several `scope` commands parse the same way: their
 * options (the getopt loop's frame), rank lists ("0,2-3"), the one-line
 * usage error, and opening the profile paths with the reader's message
 * on failure.
 */
#ifndef SCOPE_TOOLS_ARGS_H
#define SCOPE_TOOLS_ARGS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "plots.h"
#include "scope_reader.h"

/* Prints "scope: <cmd>: <formatted message> (try 'scope <cmd> --help')"
 * and returns 2, the bad-usage exit status. */
int scope__usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The value of a choice (--format, --to, --kind, --sort): the index of
 * `arg` among `names` (NULL-terminated) into *out and 0; else the usage
 * error "unknown <what> 'arg' (a, b or c)" and 2. */
int scope__parse_choice(const char *cmd, const char *what, const char *arg,
                        const char *const *names, int *out);

/* What follows a command's options, the same everywhere: with `out`
 * (the command writes a file: -o), the usage error "no output file given
 * (-o)" when *outpath is NULL; then the profile paths argv[optind ..)
 * (the usage error "no profile path given" when there is none) opened as
 * one profile into *p. Returns 0 with *p, 2 after a usage error, 1 after
 * the reader's message. */
int scope__operands(const char *cmd, int argc, char **argv, int out, const char *outpath,
                    scope_profile **p);

/* --format of the commands that print tables: "table" (0), "csv" (1) or
 * "json" (2) into *out and 0, else the usage error (2). */
int scope__parse_format(const char *cmd, const char *arg, int *out);

/* Reading a command's options, the same in every command: getopt_long
 * over argv from its start (the state reset, as a process may run more
 * than one command, and getopt's own messages off: ours are one line),
 * with -h/--help printing `help` on stdout and a missing value (':' in
 * shortopts) or an unknown option reported in scope__usage_error's words.
 * With `profile` set, the operands are read too (scope__operands: with
 * `output` set, -o is required first); with `format` set, --format too.
 * Fill the fields (designated),
 * then loop on scope__next_option. */
typedef struct {
    const char *cmd;                /* the command's name, for messages */
    const char *help;               /* what --help prints */
    int argc;
    char **argv;
    const char *shortopts;          /* ":h", ":ho:", ... as getopt_long's */
    const struct option *longopts;
    scope_profile **profile;        /* NULL: the command reads its operands */
    const char **output;            /* with profile: the -o value, required */
    int *format;                    /* set: --format (code 'f') is read here into
                                       *format (scope__parse_format), never returned */
    int status;                     /* after -1: the exit status */
    int started;                    /* 0 before the first call */
} scope__options;

/* The next option's code (getopt_long's; optarg holds its value), 0 when
 * the options are read (the operands are argv[optind ..); with `profile`,
 * opened into *profile), or -1 when the command ends with o->status: 0
 * after --help, 2 after a bad option or operand, 1 when the profile does
 * not open (all said). Cost: one getopt_long step; the last opens. */
int scope__next_option(scope__options *o);

/* The last lines of the help of the commands that fit a table to the
 * terminal (scope__out_width): --wide and -h. */
#define SCOPE__HELP_WIDE_AND_HELP                                              \
    "  --wide         full names: no fitting of the table to the terminal\n"   \
    "                 (a table on a terminal, or with $COLUMNS set, is cut\n"  \
    "                 to its width by eliding the middle of long names;\n"     \
    "                 csv and json always hold full names)\n"                  \
    "  -h, --help     this text\n"

/* Prints "scope: <msg>" and returns 1. */
int scope__fail_msg(const char *msg);

/* The end of a command that prints on stdout: flushes it and checks that
 * every write went through (a full disk, a closed pipe). Returns 0, or 1
 * after scope__fail_msg(msg). */
int scope__stdout_check(const char *msg);

/* Parses "0,2-3" into a malloc'd ascending-as-written list of ranks.
 * Returns the count, or -1 for a malformed list (nothing allocated). */
int scope__parse_ranks(const char *s, int32_t **out);

/* Parses a decimal int64 (the whole string); 0 ok, -1 if not one. */
int scope__parse_i64(const char *s, int64_t *out);

/* Opens argv[0 .. n) as one profile; on failure prints the reader's
 * message and returns NULL. */
scope_profile *scope__open_or_report(char **paths, int n);

/* --compensate (summary, tree): writes the header line saying that and
 * what measured cost is subtracted, for `rank` or SCOPE_ALL_RANKS.
 * Returns 0, or 1 after printing the reader's message when a rank stores
 * no measurement. Cost: two attribute reads per rank. */
int scope__note_compensation(scope_profile *p, int rank, FILE *out);

/* The pictures' limits, the same in `scope plot` and `scope report`:
 * `c` is the getopt code of --max-calls ('c') or --max-regions ('r'),
 * `arg` its value, a whole number from 1 to 100000000. Returns 0 with *po
 * set, or the usage error's status (2) after printing it for `cmd`. */
int scope__parse_plot_limit(const char *cmd, int c, const char *arg, scope__plot_opts *po);

#endif
