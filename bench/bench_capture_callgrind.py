#!/usr/bin/python3
"""bench_capture_callgrind.py [PRELOAD] - the instructions the preload's
hot path executes per MPI call, counted by callgrind, which the machine's
load does not change (bench_capture.py times the same loops in ns).

Runs build/bench/bench_capture_<mpi> as a singleton under valgrind
--tool=callgrind, one loop at a time (its LOOP argument), at two loop
lengths, and prints the difference divided by the extra iterations: the
marginal instructions of one iteration, start-up excluded. Each loop runs
under the preload with SCOPE_MPI_DATA=0 (timed) and as shipped (timed and
read): "capture" is what reading the arguments adds, "total" what one
iteration costs with the preload (MPI's own instructions included).
PRELOAD: another libscope_preload.so (a build of another commit, to
compare); the bench programs are this build's. Not a test; run after
`meson compile -C build`."""
import os
import re
import subprocess
import sys
import tempfile

from benchlib import PRELOAD, bare_env, mpi_builds, profiled_env

SHORT, LONG = 1000, 3000          # calls per round; the program runs 5 rounds
LOOPS = (("allreduce", "MPI_Allreduce, per call"),
         ("pair", "Irecv+Isend+2 Wait, per iteration"),
         ("put", "MPI_Put+Win_flush, per iteration"))


def instructions(exe, env, calls, loop, tmp):
    out = os.path.join(tmp, "cg.out")
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        exe, str(calls), loop], env=env, capture_output=True, timeout=900)
    m = re.search(rb"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"{exe} {calls} {loop} failed ({r.returncode}):\n{r.stderr.decode()[-2000:]}")
    return int(m.group(1))


def per_iteration(exe, env, loop, tmp):
    a = instructions(exe, env, SHORT, loop, tmp)
    b = instructions(exe, env, LONG, loop, tmp)
    return (b - a) / (5 * (LONG - SHORT))


def main():
    if len(sys.argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    preload = sys.argv[1] if len(sys.argv) == 2 else PRELOAD
    base = bare_env()
    print(f"preload {preload}; instructions per iteration (callgrind, marginal over "
          f"{5 * (LONG - SHORT)} iterations)")
    with tempfile.TemporaryDirectory() as tmp:
        for mpi, exe in mpi_builds("bench_capture"):
            env = profiled_env(base, os.path.join(tmp, "p.h5"), preload)
            for loop, label in LOOPS:
                timed = per_iteration(exe, dict(env, SCOPE_MPI_DATA="0"), loop, tmp)
                data = per_iteration(exe, env, loop, tmp)
                print(f"{mpi:8s} {label:36s} total {data:8.1f}  timed only {timed:8.1f}  "
                      f"capture {data - timed:7.1f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
