/*
 * commands.h - the subcommands of the `scope` tool, one file each
 * (cmd_<name>.c), all with one signature (uftrace style):
 *
 *     int scope_cmd_<name>(int argc, char **argv);
 *
 * argv[0] is the subcommand's name, the rest its arguments; the return
 * value is the process exit status (0 ok, 1 failure, 2 bad usage). A
 * command prints its errors itself as one line "scope: <problem>".
 *
 * To add a command: write cmd_<name>.c, add one X(...) line below and the
 * file to tools/meson.build. scope.c builds its table from this list.
 */
#ifndef SCOPE_TOOLS_COMMANDS_H
#define SCOPE_TOOLS_COMMANDS_H

/* X(function suffix, name typed on the command line, one-line help) */
#define SCOPE_COMMANDS(X)                                                     \
    X(summary, "summary", "time per region: calls, total, mean, min, max, "  \
                          "std, share of the run; bytes and waits of MPI calls") \
    X(events, "events", "one row per call: region, rank, thread, start, end, "  \
                        "duration, nesting ids")                          \
    X(callsites, "callsites", "where timed functions were called from: "    \
                              "calls and time per call site, file:line")  \
    X(comm, "comm", "who sent how much to whom: the rank-to-rank matrix of "  \
                    "MPI messages and their sizes (point-to-point, "        \
                    "one-sided, collectives)")                            \
    X(waits, "waits", "who waited for whom: late senders and receivers, "  \
                      "waits at barriers and collectives, by rank")         \
    X(omp, "omp", "the threads inside each rank: OpenMP parallel regions, "  \
                  "their work, waits and imbalance, loops, locks")           \
    X(efficiency, "efficiency", "POP's metrics of a hybrid run: MPI and "  \
                                "OpenMP load balance, communication and "      \
                                "parallel efficiency")                        \
    X(io, "io", "what each rank read and wrote, file by file: bytes, sizes, " \
                "access patterns, slowest ranks, findings")               \
    X(tree, "tree", "the call tree by call path: calls, total and self time") \
    X(export, "export", "write chrome-trace, speedscope, folded stacks, "    \
                        "hatchet, csv, json or otf2")                     \
    X(report, "report", "one self-contained HTML page: summary, timeline, " \
                        "flame graph, imbalance; with MPI data also "     \
                        "communication, one-sided, wait states; with I/O " \
                        "data also I/O by file")                          \
    X(plot, "plot", "draw a timeline, flame graph, imbalance chart or "    \
                    "communication matrix (comm) as SVG")                 \
    X(merge, "merge", "copy a run's index and rank files into one file")   \
    X(diff, "diff", "per-region change between two runs, or two sets of "  \
                    "runs (A... --vs B...) with intervals and a test")    \
    X(run, "run", "run a command (e.g. mpirun -n 4 ./app) under the profiler") \
    X(check_config, "check-config", "validate a config file and print what it means") \
    X(recover, "recover", "turn journals left by crashed processes into rank files")

#define SCOPE__DECLARE_CMD(fn, name, help) int scope_cmd_##fn(int argc, char **argv);
SCOPE_COMMANDS(SCOPE__DECLARE_CMD)
#undef SCOPE__DECLARE_CMD

#endif
