#!/usr/bin/python3
"""bench_mpi.py [CALLS] - per-call cost of an intercepted MPI call under
each MPI (issue 10): runs build/bench/bench_mpi_<mpi> bare and with
libscope_preload.so (built-in default: every MPI_* timed), as singletons,
alternating bare and preloaded 5 times in this one run, and prints min /
median / max over the pairs of the added ns per MPI_Comm_rank call and per
MPI_Allreduce of one double, and their ratio to two clock reads (target
<= 1.3x, issue 43; 1.5x in issue 13). Variants, interleaved in each
round: the built-in default in both trampoline modes
(SCOPE_TRAMPOLINE=call, redirect), only MPI_Comm_rank patched, the
preload loaded with nothing patched, and the default with the arguments
not read (SCOPE_MPI_DATA=0: timed only); with
SCOPE_BENCH_BASE_PRELOAD=path/to/another/libscope_preload.so, that build's
default too (before and after a change in the same rounds). Not a test (the machine's timing
is noisy); run after `meson compile -C build`:
/usr/bin/python3 bench/bench_mpi.py"""
import os
import sys
import tempfile

from benchlib import bare_env, cpu_model, mmm, mpi_builds, profiled_env
from benchlib import run_figures as run

ROUNDS = 5


def main():
    usage = "usage: bench_mpi.py [CALLS]   (calls per run, default 2000000)"
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(usage)
        return 0
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and not (sys.argv[1].isdigit()
                                                          and 1000 <= int(sys.argv[1]) <= 10**9)):
        print(f"bench_mpi.py: CALLS must be a count from 1000 to 1000000000, not "
              f"'{' '.join(sys.argv[1:])}'\n{usage}", file=sys.stderr)
        return 2
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000000
    load = open("/proc/loadavg").read().split()[:3]
    print(f"CPU: {cpu_model()}; load average {' '.join(load)}; {calls} calls, fastest batch of 1000 "
          f"over 5 rounds in each of {ROUNDS} alternated bare/preloaded runs: min / median / max")
    base = bare_env()
    with tempfile.TemporaryDirectory() as tmp:
        # the ablation of the intercepted call, one variant per line, all
        # interleaved in each round: what the preload costs with nothing
        # patched, the one function alone, and the built-in default (every
        # MPI_* patched) in both trampoline modes
        only = os.path.join(tmp, "only.conf")
        with open(only, "w") as f:
            f.write("MPI_Comm_rank\n")
        nothing = os.path.join(tmp, "nothing.conf")
        with open(nothing, "w") as f:
            f.write("scope_bench_no_such_function\n")
        variants = [
            ("default MPI_*, call", {"SCOPE_TRAMPOLINE": "call"}),
            ("default MPI_*, redirect", {"SCOPE_TRAMPOLINE": "redirect"}),
            ("only MPI_Comm_rank, call", {"SCOPE_TRAMPOLINE": "call", "SCOPE_CONFIG": only}),
            ("preload, nothing patched", {"SCOPE_CONFIG": nothing}),
            ("default MPI_*, data off", {"SCOPE_TRAMPOLINE": "call", "SCOPE_MPI_DATA": "0"}),
        ]
        base_so = os.environ.get("SCOPE_BENCH_BASE_PRELOAD")
        if base_so:
            variants += [("base preload, default", {"LD_PRELOAD": base_so}),
                         ("base preload, data off", {"LD_PRELOAD": base_so,
                                                     "SCOPE_MPI_DATA": "0"})]
        for mpi, exe in mpi_builds("bench_mpi"):
            penv = profiled_env(base, os.path.join(tmp, mpi + ".h5"))
            # interleaved runs; each run prints its best of 5 rounds, and the
            # runs give min / median / max of the added cost (within a round)
            added = {v[0]: [] for v in variants}
            ratio = {v[0]: [] for v in variants}
            ar_added = {v[0]: [] for v in variants}
            ar_ratio = {v[0]: [] for v in variants}
            ar_bare = []
            two = []
            for _ in range(ROUNDS):
                b = run(exe, base, calls)
                t = b["two_reads_ns"]
                for name, extra in variants:
                    p = run(exe, dict(penv, **extra), calls)
                    t = min(t, p["two_reads_ns"])
                    added[name].append(p["comm_rank_ns"] - b["comm_rank_ns"])
                    ar_added[name].append(p["allreduce_ns"] - b["allreduce_ns"])
                two.append(t)
                ar_bare.append(b["allreduce_ns"])
                for name, _ in variants:
                    ratio[name].append(added[name][-1] / t)
                    ar_ratio[name].append(ar_added[name][-1] / t)
            print(f"{mpi}: two clock reads {mmm(two, '%.2f')} ns")
            for name, _ in variants:
                print(f"  {name:26s} MPI_Comm_rank added {mmm(added[name], '%.2f')} ns = "
                      f"{mmm(ratio[name], '%.2f')}x two clock reads"
                      + (" (target <= 1.3x)" if name.startswith("default MPI_*, call") else ""))
            print(f"  MPI_Allreduce of one double, bare {mmm(ar_bare, '%.2f')} ns")
            for name, _ in variants:
                print(f"  {name:26s} MPI_Allreduce added {mmm(ar_added[name], '%.2f')} ns = "
                      f"{mmm(ar_ratio[name], '%.2f')}x two clock reads")


if __name__ == "__main__":
    sys.exit(main())
