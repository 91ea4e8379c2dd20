/*
 * scope.c - main() of the `scope` command: a dispatcher that hands
 * `scope <command> [args]` to scope_cmd_<command>() (commands.h), plus
 * `scope --help`, `scope --version` and `scope help <command>`.
 *
 * Exit status: what the command returns (0 ok, 1 failure, 2 bad usage);
 * errors are one line "scope: <problem>" on stderr.
 */
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

#ifndef SCOPE_TOOL_VERSION
#define SCOPE_TOOL_VERSION "unknown"
#endif

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} command;

#define SCOPE__CMD_ENTRY(fn, name, help) { name, scope_cmd_##fn, help },
static const command commands[] = { SCOPE_COMMANDS(SCOPE__CMD_ENTRY) };
#undef SCOPE__CMD_ENTRY

static void usage(FILE *out)
{
    fprintf(out,
            "usage: scope <command> [options] [args]\n"
            "       scope --help | --version\n"
            "       scope help <command>   (same as scope <command> --help)\n"
            "\n"
            "Profiles HPC and MPI programs and analyses the profiles.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].help);
}

static const command *find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    fprintf(stderr, "scope: unknown command '%s' (try 'scope --help')\n", name);
    return NULL;
}

int main(int argc, char **argv)
{
    /* Fixed malloc thresholds instead of glibc's sliding ones. Opening a
     * run allocates and frees a few blocks of 0.5-1 MiB per file inside
     * libhdf5 (its metadata cache, the in-memory copy of a small file);
     * with the default, sliding thresholds glibc gives that memory back
     * to the kernel after each file and faults it in again for the next:
     * 44,000 page faults and a third of the CPU time of summarizing 4,096
     * rank files (bench/bench_reader_scale.py). Blocks up to 32 MiB (the
     * sliding maximum) come from the heap, and up to 64 MiB of free heap
     * is kept for reuse: small for a command that reads profiles. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    if (argc < 2) {
        fprintf(stderr, "scope: no command given (try 'scope --help')\n");
        return 2;
    }
    const char *a = argv[1];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
        printf("scope %s\n", SCOPE_TOOL_VERSION);
        return 0;
    }
    if (strcmp(a, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return 0;
        }
        const command *c = find(argv[2]);
        char *help_argv[] = { argv[2], "--help", NULL };
        return c ? c->fn(2, help_argv) : 2;
    }
    if (a[0] == '-') {
        fprintf(stderr, "scope: unknown option '%s' (try 'scope --help')\n", a);
        return 2;
    }
    const command *c = find(a);
    int status = c ? c->fn(argc - 1, argv + 1) : 2;
    /* Every command has closed what it wrote by now. Leaving without the
     * atexit handlers skips libhdf5's library shutdown, which after reading
     * a damaged file can only print "infinite loop closing library" and a
     * page of internals under the one-line error already given. */
    fflush(stdout);
    fflush(stderr);
    _exit(status);
}
