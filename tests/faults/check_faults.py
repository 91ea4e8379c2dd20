"""check_faults.py - the fault matrix: programs that die or exit early on
purpose after a known number of instrumented calls, each run twice, bare
and under libscope_preload.so.

For every case:
  - the exit status (or killing signal) and the output are the same with
    and without the preload: scope never changes how a program ends;
  - a process killed by a signal it could catch wrote its own rank file
    before dying (runtime/death.c); after SIGKILL only the journal is left,
    and `scope recover` turns it (and anything else left) into rank files;
  - every rank file holds exactly the N calls of work() made before the
    fault, and the calls that were open when it hit are there, closed and
    marked in the region's `unwound` column.

usage: check_faults.py CASE --scope SCOPE --preload SO --prog PROG [--np 4]
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import h5py

ap = argparse.ArgumentParser()
ap.add_argument("case")
ap.add_argument("--scope", required=True)
ap.add_argument("--preload", required=True)
ap.add_argument("--prog", required=True)
ap.add_argument("--config", required=True)
ap.add_argument("--np", type=int, default=0)
ap.add_argument("-n", type=int, default=1000)
a = ap.parse_args()

MODES = {  # case: (program arguments, open calls expected per rank file,
           #        rank files written before recover: by the death handler,
           #        or at exit; SIGKILL leaves only the journal)
    "kill": (["kill"], {}, False),
    "segv": (["segv"], {"crash_here": 1}, True),
    "abort": (["abort"], {"crash_here": 1}, True),
    "exit3": (["exit3"], {"nested": 3}, True),
    "cxx_uncaught": ([], {"thrower()": 1}, True),
    "mpi_abort": (["abort2"], {}, None),        # rank 2 writes; the others
    "mpi_nofinalize": (["nofinalize"], {}, None),  # depend on mpirun's timing
}
args, open_calls, at_death = MODES[a.case]
cmd = [os.path.abspath(a.prog)] + args + [str(a.n)]
env = {k: v for k, v in os.environ.items() if (not k.startswith("SCOPE") or k == "SCOPE_TRAMPOLINE") and k != "LD_PRELOAD"}
if a.np:
    cmd = ["mpirun", "--oversubscribe", "-n", str(a.np)] + cmd
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def run(extra, cwd):
    p = subprocess.run(cmd, env=dict(env, **extra), cwd=cwd, capture_output=True, text=True,
                       timeout=120)
    lines = sorted(l for l in p.stdout.splitlines() if "recorded" in l)
    return p.returncode, lines


def fail(msg):
    sys.exit(f"FAIL ({a.case}): {msg}")


with tempfile.TemporaryDirectory() as d:
    bare = run({}, d)
    out = os.path.join(d, "prof.h5")
    prof = run({"LD_PRELOAD": os.path.abspath(a.preload),
                "SCOPE_CONFIG": os.path.abspath(a.config), "SCOPE_OUTPUT": out}, d)
    if bare != prof:
        fail(f"bare run ended {bare}, profiled run {prof}")
    if bare[0] == 0:
        fail("the program was supposed to fail")
    before = sorted(glob.glob(os.path.join(d, "prof.ranks", "rank*.h5")))
    if at_death is True and len(before) != max(a.np, 1):
        fail(f"the dying process wrote no rank file: {os.listdir(os.path.join(d, 'prof.ranks'))}")
    if at_death is False and before:
        fail(f"rank files {before} before recover: SIGKILL cannot be caught")
    r = subprocess.run([a.scope, "recover", out], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        fail(f"scope recover exited {r.returncode}: {r.stderr}")
    files = sorted(glob.glob(os.path.join(d, "prof.ranks", "rank*.h5")))
    want = max(a.np, 1)
    if len(files) != want or glob.glob(os.path.join(d, "prof.ranks", "journal.*")):
        fail(f"rank files {files}, journals left {glob.glob(os.path.join(d, 'prof.ranks', '*'))}")
    if not os.path.exists(out):
        fail("no index file")
    for path in files:
        with h5py.File(path, "r") as f:
            (rank_name,) = [k for k in f if k.startswith("rank")]
            regions = f[rank_name]["regions"]
            work = "work" if "work" in regions else "work(int)"
            n = len(regions[work]["start_times"])
            if n != a.n:
                fail(f"{path}: {n} calls of {work}, expected exactly {a.n}")
            for name, count in open_calls.items():
                g = regions[name]
                flags = list(g["unwound"][:]) if "unwound" in g else []
                if len(g["start_times"]) != count or flags != [1] * count:
                    fail(f"{path}: {name}: {len(g['start_times'])} calls, unwound {flags}")
            sig = {"segv": 11, "abort": 6, "cxx_uncaught": 6}.get(a.case)
            if sig is not None and f[rank_name].attrs.get("died_signal") != sig:
                fail(f"{path}: died_signal {f[rank_name].attrs.get('died_signal')}, expected {sig}")
            if a.np and "MPI_Barrier" in regions:
                nb = len(regions["MPI_Barrier"]["start_times"])
                if nb != 1:
                    fail(f"{path}: {nb} MPI_Barrier calls, expected 1")
print(f"check_faults {a.case}: status {bare[0]} kept; {want} rank file(s) with {a.n} calls each")
