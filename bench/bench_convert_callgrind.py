#!/usr/bin/python3
"""bench_convert_callgrind.py [STEPS] - the instructions scope-h5write
spends per recorded MPI call (issue 43, target 2: at most 100 ns of CPU
per call above the writer's fixed cost), counted by callgrind, which the
machine's load does not change (bench_exit.py times the same conversion
in CPU seconds).

Records BUILD/bench/exit_prog (2 ranks under Open MPI's mpirun, every MPI
call timed and its arguments captured, the default) for STEPS steps
(default 16,000: ~165,000 MPI calls per rank) and for 2 steps, keeping rank
0's journal of each (a SCOPE_H5WRITER wrapper copies it before the real
writer runs), then converts each journal under valgrind --tool=callgrind
and prints: the calls in each journal (from the converted file), the
instructions of each conversion, the marginal instructions of one call
(the difference over the difference in calls: the fixed cost, process
start, HDF5's and the file's, taken out), and the functions that grew
most per call (self instructions). SCOPE_BUILD: the build folder (a
release build: `meson setup build-rel --buildtype=release -Ddebug=true`).
Not a test."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import h5py

from benchlib import BUILD as BUILD_DIR, bare_env, cpu_model, journal_keeper

BUILD = os.path.abspath(BUILD_DIR)


def record(tmp, steps):
    """Rank 0's journal of an exit_prog run of `steps` steps."""
    keep = os.path.join(tmp, f"keep{steps}")
    os.makedirs(keep)
    wrapper = journal_keeper(BUILD, tmp)
    env = bare_env("SCOPE")
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", SCOPE_BENCH_KEEP=keep,
               LD_PRELOAD=os.path.join(BUILD, "preload", "libscope_preload.so"),
               SCOPE_OUTPUT=os.path.join(tmp, f"prof{steps}.h5"), SCOPE_H5WRITER=wrapper,
               SCOPE_FINALIZE_WAIT="1")
    cmd = ["mpirun", "-x", "SCOPE_BENCH_KEEP", "-n", "2",
           os.path.join(BUILD, "bench", "exit_prog"), str(steps), "0"]
    p = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, timeout=1800)
    journals = sorted(os.listdir(keep))
    if p.returncode != 0 or len(journals) != 2:
        sys.exit(f"exit_prog {steps}: status {p.returncode}, journals {journals}:\n"
                 f"{p.stderr.decode()[-2000:]}")
    return os.path.join(keep, journals[0])


def calls_in(path):
    """The calls of every region of the rank file at `path`."""
    n = 0
    with h5py.File(path, "r") as f:
        for rank in (k for k in f if k.startswith("rank")):
            for g in f[rank]["regions"].values():
                if "start_times" in g:
                    n += len(g["start_times"])
    return n


def convert(tmp, journal, name):
    """(instructions, {function: self instructions}, calls) of one
    conversion of `journal` under callgrind."""
    out = os.path.join(tmp, name + ".cg")
    dst = os.path.join(tmp, name + ".h5")
    writer = os.path.join(BUILD, "convert", "scope-h5write")
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        writer, "--complete", journal, dst],
                       capture_output=True, timeout=1800)
    m = re.search(rb"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"converting {journal} failed ({r.returncode}):\n{r.stderr.decode()[-2000:]}")
    ann = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", out],
                         capture_output=True, check=True, cwd=tmp).stdout.decode()
    self_ir = {}
    for line in ann.splitlines():
        f = re.match(r"\s*([\d,]+) \([^)]*\)\s+(\S+)\s+\[", line)
        if f:
            fn = re.sub(r"^.*/\.\./", "", f.group(2))
            self_ir[fn] = self_ir.get(fn, 0) + int(f.group(1).replace(",", ""))
    return int(m.group(1)), self_ir, calls_in(dst)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("steps", nargs="?", type=int, default=16000,
                    help="exit_prog's steps in the long run (default 16000)")
    steps = ap.parse_args().steps
    if steps < 3:
        ap.error("steps: at least 3 (the short run has 2)")
    print(f"CPU: {cpu_model()}; build {BUILD}")
    with tempfile.TemporaryDirectory() as tmp:
        big, small = record(tmp, steps), record(tmp, 2)
        ib, fb, nb = convert(tmp, big, "big")
        is_, fs, ns = convert(tmp, small, "small")
    per = (ib - is_) / max(nb - ns, 1)
    print(f"journal of {nb} calls: {ib:,} instructions; of {ns} calls: {is_:,}")
    print(f"per recorded call above the fixed cost: {per:.0f} instructions")
    grew = sorted(((fb.get(k, 0) - fs.get(k, 0)) / max(nb - ns, 1), k) for k in fb)
    print("self instructions per call, the functions that grew most:")
    for x, k in reversed(grew[-15:]):
        print(f"  {x:8.1f}  {k}")


main()
