#!/usr/bin/python3
"""bench_capture.py [CALLS] - what reading the arguments of MPI calls adds
(issue 28: an MPI_Isend+MPI_Wait pair or an MPI_Allreduce adds at most
30 ns per call): runs build/bench/bench_capture_<mpi> as a
singleton bare, under libscope_preload.so with SCOPE_MPI_DATA=0 (every
MPI_* timed, arguments not read), and under the preload as shipped (timed
and read), interleaved 5 times in this one run, and prints min / median /
max of the per-call difference between the last two. The pair loop is
MPI_Irecv + MPI_Isend + 2 MPI_Wait to itself: two calls whose arguments
are read. The put loop: MPI_Put + MPI_Win_flush into the rank's own
window, one call read. Not a test (the machine's timing is noisy); run after
`meson compile -C build`: /usr/bin/python3 bench/bench_capture.py"""
import os
import sys
import tempfile

from benchlib import bare_env, cpu_model, mmm, mpi_builds, profiled_env
from benchlib import run_figures as run

ROUNDS = 5


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and not sys.argv[1].isdigit()):
        print("usage: bench_capture.py [CALLS]   (calls per loop, default 300000)",
              file=sys.stderr)
        return 2
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 300000
    print(f"CPU: {cpu_model()}; {calls} calls per loop, best of 5 rounds per run, {ROUNDS} "
          f"interleaved runs per variant: min / median / max ns per call")
    base = bare_env()
    with tempfile.TemporaryDirectory() as tmp:
        for mpi, exe in mpi_builds("bench_capture"):
            penv = profiled_env(base, os.path.join(tmp, mpi + ".h5"))
            res = {"bare": [], "timed": [], "timed+data": []}
            for _ in range(ROUNDS):
                res["bare"].append(run(exe, base, calls))
                res["timed"].append(run(exe, dict(penv, SCOPE_MPI_DATA="0"), calls))
                res["timed+data"].append(run(exe, penv, calls))
            for key, label in (("allreduce_ns", "MPI_Allreduce"),
                               ("isend_pair_ns", "MPI_Irecv+Isend+2 Wait"),
                               ("put_flush_ns", "MPI_Put+Win_flush")):
                bare = [r[key] for r in res["bare"]]
                timed = [r[key] for r in res["timed"]]
                data = [r[key] for r in res["timed+data"]]
                added = [d - t for d, t in zip(data, timed)]
                print(f"{mpi} {label:24s} bare {mmm(bare)}  timed {mmm(timed)}  "
                      f"timed+data {mmm(data)}  data adds {mmm(added)}"
                      + ("  (target <= 30 per call)" if key == "allreduce_ns" else
                         "  (1 call read)" if key == "put_flush_ns" else
                         f"  (two Isend/Irecv+Wait pairs, 4 calls read: per pair "
                         f"{mmm([a / 2 for a in added])}, per call {mmm([a / 4 for a in added])})"))


if __name__ == "__main__":
    sys.exit(main())
