#!/usr/bin/env python3
"""check_finalize_kill.py SCOPE PRELOAD MPI PROGRAM OUTDIR

A rank's MPI_Finalize no longer waits for its file (SCOPE_FINALIZE_WAIT=0,
the default): a scope-h5write that outlives the rank writes it. Nothing
may be lost for that, even when every rank is killed (SIGKILL, which
nothing catches) right after MPI_Finalize returns (finalize_kill_app.c,
4 ranks, N = 300 MPI_Allreduce and 300 MPI_Sendrecv each). Four runs
under MPI's own launcher, each against the same program run bare:

  kill, `scope run -- mpirun ...`   the profile is complete when scope
                                    run returns (it waits for the writers)
  kill, LD_PRELOAD mpirun ...       complete once the writers are done:
                                    Open MPI's mpirun returns as soon as a
                                    rank dies of a signal; the writers
                                    outlive it and finish (waited for here
                                    by their journals, at most 120 s)
  kill, SCOPE_FINALIZE_WAIT=1       complete when mpirun returns (the file
                                    was written inside MPI_Finalize)
  exit, LD_PRELOAD mpirun ...       complete when mpirun returns: the
                                    writers hold the ranks' standard
                                    output and error, which the launcher
                                    reads to the end

The writers that outlive their ranks start 2 s late here (a wrapper
around scope-h5write as SCOPE_H5WRITER), so that the launcher and scope
run are seen to wait for them, not to be done before them by luck.

Complete means: the index links ranks 0..3, each rank file holds exactly
its calls (MPI_Allreduce N, MPI_Sendrecv N, MPI_Barrier 1, MPI_Init 1,
MPI_Comm_rank 1, MPI_Comm_size 1, the span 1), says
complete = 1, and no journal nor temporary file is left. The exit status
and the program's output are the bare run's.
"""
import glob
import os
import subprocess
import sys
import time

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, fail, run_limited  # noqa: E402

RANKS, N = 4, 300
# MPI_Finalize itself is not among them: the file is made inside it
WANT = {"MPI_Allreduce": N, "MPI_Sendrecv": N, "MPI_Barrier": 1, "MPI_Init": 1,
        "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Init..MPI_Finalize": 1}


def left_over(ranks_dir):
    """Journals and temporaries still in the ranks folder."""
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(ranks_dir, "*"))
                  if os.path.basename(p).startswith("journal.") or ".tmp." in p)


def check_complete(out, what):
    ranks_dir = out[:-3] + ".ranks"
    left = left_over(ranks_dir)
    if left:
        fail(f"{what}: left in {ranks_dir}: {left}")
    if not os.path.exists(out):
        fail(f"{what}: no index {out}")
    with h5py.File(out, "r") as f:
        have = sorted(k for k in f if k.startswith("rank"))
        if have != [f"rank{r}" for r in range(RANKS)]:
            fail(f"{what}: the index links {have}")
        for r in range(RANKS):
            g = f[f"rank{r}"]
            got = {str(v.attrs.get("name", k)): len(v["start_times"])
                   for k, v in g["regions"].items()}
            if got != WANT:
                fail(f"{what}: rank {r}: calls {got}, want {WANT}")
            if int(g.attrs["complete"]) != 1:
                fail(f"{what}: rank {r}: complete = {g.attrs['complete']}")


def main():
    scope, preload, mpi, prog = (os.path.abspath(x) for x in sys.argv[1:5])
    mpi = os.path.basename(mpi)
    outdir = os.path.abspath(sys.argv[5])
    launcher = ["mpirun", "--oversubscribe"] if mpi == "openmpi" else ["mpirun.mpich"]
    env = clean_env(mpi_root=True)
    real = env.get("SCOPE_H5WRITER")
    if not real:
        fail("SCOPE_H5WRITER is not set (meson sets it to the build's writer)")
    slow = os.path.join(outdir, "slow-writer.sh")
    with open(slow, "w") as f:
        f.write(f"""#!/bin/sh
# a writer that outlives its rank starts 2 s late (check_finalize_kill.py)
if [ "$1" = --detach ]; then
    ( sleep 2; exec '{real}' "$@" ) &
    exit 0
fi
exec '{real}' "$@"
""")
    os.chmod(slow, 0o755)
    env["SCOPE_H5WRITER"] = slow

    def cmd(mode):
        return launcher + ["-n", str(RANKS), prog, str(N), mode]

    def lines(p):
        return sorted(l for l in p.stdout.splitlines() if "made" in l)

    bare = {m: run_limited(cmd(m), env, outdir, f"bare {m}") for m in ("kill", "exit")}
    if bare["exit"].returncode != 0 or len(lines(bare["exit"])) != RANKS:
        fail(f"bare run: {bare['exit'].returncode} {bare['exit'].stdout}{bare['exit'].stderr}")

    cases = [
        ("kill, scope run", "kill", {}, True),
        ("kill, LD_PRELOAD", "kill", {}, False),
        ("kill, SCOPE_FINALIZE_WAIT=1", "kill", {"SCOPE_FINALIZE_WAIT": "1"}, False),
        ("exit, LD_PRELOAD", "exit", {}, False),
    ]
    for i, (what, mode, extra, with_run) in enumerate(cases):
        out = os.path.join(outdir, f"p{i}.h5")
        if with_run:
            c = [scope, "run", "-o", out, "--"] + cmd(mode)
            e = dict(env, **extra)
        else:
            c = cmd(mode)
            e = dict(env, LD_PRELOAD=preload, SCOPE_OUTPUT=out, **extra)
        p = run_limited(c, e, outdir, what, limit=300)
        if p.returncode != bare[mode].returncode or lines(p) != lines(bare[mode]):
            fail(f"{what}: exit {p.returncode} (bare {bare[mode].returncode}), output "
                 f"{lines(p)}; {p.stderr[-2000:]}")
        if what == "kill, LD_PRELOAD":
            # the writers outlive mpirun when it returns at the first
            # killed rank: their journals go once the files are in place
            for _ in range(1200):
                if not left_over(out[:-3] + ".ranks"):
                    break
                time.sleep(0.1)
        check_complete(out, what)
    print(f"check_finalize_kill {mpi}: every rank killed right after MPI_Finalize, "
          f"{len(cases)} runs, every profile complete with its exact calls")


if __name__ == "__main__":
    main()
