#!/usr/bin/env python3
"""check_collision.py SCOPE PRELOAD MPI PROGRAM OUTDIR
   check_collision.py SCOPE PRELOAD serial SERIAL_PROGRAM OUTDIR

A forced rank collision, as `srun --mpi=none` gives with MPICH: two
singletons of PROGRAM (mpi_app.c) into one output, each told by Slurm's
variables that it is rank 0 or 1 of 2, while MPI says each is rank 0 of 1.
They are made to overlap (`sync`: each waits before MPI_Finalize until
both got there) and exit with status 3. Checks:
  - each process's stdout and exit status are the bare run's;
  - both datasets are kept: rank0.h5 and rank0.collision1.h5, distinct
    pids, each with the exact MPI call counts of the program;
  - the index links the second as /rank0.collision1 and its /metadata
    rank_collisions is 1; the reader still sees one rank (rank 0);
  - both record rank_mismatch (Slurm said 2 ranks, MPI 1), the one told
    rank 1 naming SLURM_PROCID=1;
  - `scope summary` says so: its first line is the collision warning,
    and the next names rank 0's mismatch.

`serial`: a collision on rank 1 found after the index exists, as srun
(--mpi=none) gives for a program without MPI: three processes of
serial_app.c with a config naming `work`, told SLURM_PROCID 0, 1 and 1
of 2. The third starts first and finishes last, after the other two wrote
rank0.h5, the index (rank 0) and rank1.h5. Checks: rank1.h5 and
rank1.collision1.h5 both kept (distinct pids, work 7 calls each), the
existing index gained /rank1.collision1 and rank_collisions 1, the reader
sees ranks 0 and 1, summary's first line says so, outputs and exit
statuses unchanged."""
import os
import subprocess
import sys
import time

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, io_call_names  # noqa: E402

WANT = {"MPI_Init": 1, "MPI_Allreduce": 5, "MPI_Barrier": 3,
        "MPI_Comm_rank": 1, "MPI_Comm_size": 1}
LAUNCHER_VARS = ("OMPI_", "PMI_", "PMIX_", "SLURM_", "MV2_", "PALS_", "ALPS_", "FLUX_", "JSM_")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run_pair(prog, env, outdir, tag):
    sync = os.path.join(outdir, "sync." + tag)
    os.mkdir(sync)
    procs = []
    for procid in (0, 1):
        e = dict(env, SLURM_PROCID=str(procid), SLURM_NTASKS="2")
        procs.append(subprocess.Popen([prog, "sync", sync, "2", "exit", "3"], env=e, cwd=outdir,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    out = [p.communicate(timeout=300) for p in procs]
    return [(p.returncode, o, e) for p, (o, e) in zip(procs, out)]


def is_io(g):
    """An I/O call every process times by default (issue 46): tests/io's."""
    return g.attrs.get("kind", b"") in (b"io", "io")


def counts(group):
    got = {str(g.attrs.get("name", k)): len(g["start_times"]) for k, g in group["regions"].items()
           if not is_io(g)}
    got.pop("MPI_Init..MPI_Finalize", None)
    got.pop("MPI_Finalize", None)
    return got


def serial_run(prog, env, outdir, tag):
    """Runs the three processes in the order of the docstring; returns
    [(status, stdout)] in SLURM_PROCID order 0, 1, 1 (late)."""
    ready, go = os.path.join(outdir, tag + ".ready"), os.path.join(outdir, tag + ".go")
    late = subprocess.Popen([prog, "ready", ready, "wait", go], cwd=outdir,
                            env=dict(env, SLURM_PROCID="1", SLURM_NTASKS="2"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    while not os.path.exists(ready) and late.poll() is None:
        time.sleep(0.01)
    out = []
    for procid in (0, 1):
        r = subprocess.run([prog], cwd=outdir, capture_output=True, timeout=300,
                           env=dict(env, SLURM_PROCID=str(procid), SLURM_NTASKS="2"))
        sys.stderr.write(r.stderr.decode(errors="replace"))
        out.append((r.returncode, r.stdout))
    open(go, "w").close()
    o, e = late.communicate(timeout=300)
    sys.stderr.write(e.decode(errors="replace"))
    return out + [(late.returncode, o)]


def serial_case(scope, preload, prog, outdir, env):
    bare = serial_run(prog, env, outdir, "bare")
    conf = os.path.join(outdir, "work.conf")
    with open(conf, "w") as f:
        f.write("work\n")
    penv = dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=conf,
                SCOPE_OUTPUT=os.path.join(outdir, "p.h5"))
    if os.environ.get("SCOPE_H5WRITER"):
        penv["SCOPE_H5WRITER"] = os.environ["SCOPE_H5WRITER"]
    prof = serial_run(prog, penv, outdir, "prof")
    if bare != prof or any(rc != 0 or o != b"work 1.984375\n" for rc, o in prof):
        fail(f"outputs or statuses differ: bare {bare}, profiled {prof}")
    ranks = os.path.join(outdir, "p.ranks")
    files = sorted(f for f in os.listdir(ranks))
    if files != ["rank0.h5", "rank1.collision1.h5", "rank1.h5"]:
        fail(f"rank files {files}")
    with h5py.File(os.path.join(outdir, "p.h5"), "r") as f:
        if sorted(f.keys()) != ["metadata", "rank0", "rank1", "rank1.collision1"]:
            fail(f"index links {sorted(f.keys())}")
        if int(f["metadata"].attrs.get("rank_collisions", -1)) != 1:
            fail(f"rank_collisions {f['metadata'].attrs.get('rank_collisions')}")
        pids = set()
        for link in ("rank0", "rank1", "rank1.collision1"):
            g = f[link]
            pids.add(int(g.attrs["pid"]))
            calls = {str(r.attrs["name"]): len(r["start_times"]) for r in g["regions"].values()
                     if not is_io(r)}
            if calls != {"work": 7}:
                fail(f"/{link}: {calls}")
            if g.attrs.get("rank_source") not in (None, "SLURM_PROCID"):
                fail(f"/{link}: rank_source {g.attrs.get('rank_source')!r}")
        if len(pids) != 3:
            fail(f"pids {pids}")
    summ = subprocess.run([scope, "summary", "--per-rank", os.path.join(outdir, "p.h5")],
                          capture_output=True, timeout=300)
    lines = summ.stdout.decode().splitlines()
    if summ.returncode != 0 or not lines or not lines[0].startswith("warning: 1 process") \
            or "rank collision" not in lines[0]:
        fail(f"summary: {summ.returncode} {lines[:2]} {summ.stderr!r}")
    csvout = subprocess.run([scope, "summary", "--per-rank", "--format", "csv",
                             os.path.join(outdir, "p.h5")], capture_output=True, timeout=300)
    io_calls = io_call_names()  # timed by default (issue 46): tests/io's subject
    rows = [ln.split(",") for ln in csvout.stdout.decode().splitlines()[1:]]
    rows = [r for r in rows if r[0] not in io_calls]
    if sorted((r[0], r[1], r[2]) for r in rows) != [("work", "0", "7"), ("work", "1", "7")]:
        fail(f"reader rows {rows}")
    print("ok: serial: a late collision on rank 1 was linked into the existing index")


def main():
    scope, preload, mpi, prog = (os.path.abspath(a) if os.path.exists(a) else a
                                 for a in sys.argv[1:5])
    outdir = os.path.abspath(sys.argv[5])
    env = clean_env(keep=("SCOPE_TRAMPOLINE",), drop=LAUNCHER_VARS, mpi_root=True)
    if mpi == "serial":
        serial_case(scope, preload, prog, outdir, env)
        return
    bare = run_pair(prog, env, outdir, "bare")
    penv = dict(env, LD_PRELOAD=preload, SCOPE_OUTPUT=os.path.join(outdir, "p.h5"))
    if os.environ.get("SCOPE_H5WRITER"):
        penv["SCOPE_H5WRITER"] = os.environ["SCOPE_H5WRITER"]
    prof = run_pair(prog, penv, outdir, "prof")
    for (brc, bout, _), (prc, pout, perr) in zip(bare, prof):
        sys.stderr.write(perr.decode(errors="replace"))
        if brc != 3 or prc != 3:
            fail(f"exit status {prc} profiled, {brc} bare, want 3")
        if bout != pout or bout != b"size 1 sum 1.984375\n":
            fail(f"output differs: {bout!r} bare, {pout!r} profiled")

    ranks = os.path.join(outdir, "p.ranks")
    files = sorted(f for f in os.listdir(ranks) if f.endswith(".h5"))
    if files != ["rank0.collision1.h5", "rank0.h5"]:
        fail(f"rank files {files}")
    pids, mismatches = set(), []
    for name in files:
        with h5py.File(os.path.join(ranks, name), "r") as f:
            g = f["rank0"]
            pids.add(int(g.attrs["pid"]))
            if int(g.attrs["rank"]) != 0:
                fail(f"{name}: rank {g.attrs['rank']}")
            if counts(g) != WANT:
                fail(f"{name}: {counts(g)}, want {WANT}")
            if g.attrs.get("launcher_rank_variable") != "SLURM_PROCID":
                fail(f"{name}: launcher_rank_variable {g.attrs.get('launcher_rank_variable')!r}")
            mismatches.append(str(g.attrs.get("rank_mismatch")))
    if len(pids) != 2:
        fail(f"pids {pids}: both files come from one process")
    want = sorted(f"launcher: SLURM_PROCID={r} SLURM_NTASKS=2 (Slurm); MPI_Comm_rank: 0 of 1"
                  for r in (0, 1))
    if sorted(mismatches) != want:
        fail(f"rank_mismatch {mismatches}, want {want}")

    with h5py.File(os.path.join(outdir, "p.h5"), "r") as f:
        if int(f["metadata"].attrs.get("rank_collisions", -1)) != 1:
            fail(f"rank_collisions {f['metadata'].attrs.get('rank_collisions')}")
        if sorted(f.keys()) != ["metadata", "rank0", "rank0.collision1"]:
            fail(f"index links {sorted(f.keys())}")
        linked = {int(f["rank0"].attrs["pid"]), int(f["rank0.collision1"].attrs["pid"])}
        if linked != pids:
            fail(f"the index links pids {linked}, the files hold {pids}")
        if counts(f["rank0.collision1"]) != WANT:
            fail("the collision link does not reach the second dataset")

    summ = subprocess.run([scope, "summary", os.path.join(outdir, "p.h5")],
                          capture_output=True, timeout=300)
    lines = summ.stdout.decode().splitlines()
    if summ.returncode != 0 or not lines:
        fail(f"scope summary: {summ.returncode} {summ.stderr!r}")
    if not (lines[0].startswith("warning: 1 process") and "rank collision" in lines[0]):
        fail(f"summary's first line: {lines[0]!r}")
    if not any(ln.startswith("warning: rank 0: the launcher and MPI disagree") and
               "SLURM_NTASKS=2 (Slurm); MPI_Comm_rank: 0 of 1" in ln for ln in lines[1:3]):
        fail(f"summary does not show the mismatch: {lines[:5]}")
    csvout = subprocess.run([scope, "summary", "--per-rank", "--format", "csv",
                             os.path.join(outdir, "p.h5")], capture_output=True, timeout=300)
    rows = [ln.split(",") for ln in csvout.stdout.decode().splitlines()[1:]]
    if {r[1] for r in rows} != {"0"}:
        fail(f"the reader sees ranks {sorted({r[1] for r in rows})}, want only 0")
    if b"rank collision" not in csvout.stderr:
        fail(f"csv summary: no collision warning on stderr: {csvout.stderr!r}")
    print(f"ok: {mpi}: collision kept both datasets (pids {sorted(pids)}), counted and reported")


if __name__ == "__main__":
    main()
