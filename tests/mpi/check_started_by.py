#!/usr/bin/env python3
"""check_started_by.py SCOPE PRELOAD MODE APP

Processes a program starts (system(), popen(), posix_spawn()) are under
the preload too, and a config that names functions they have records
them. They used to take /rank<N> when they ended first, which they
usually do, and the program the user ran became the rank collision that
`scope summary` leaves out: an MPI run whose ranks each called
system("hostname") showed the 4 mallocs of `hostname` as the run. Now a
process started by a process of this run that is still recording keeps
the attribute started_by_pid and a collision name (docs/format.md).

MODE: serial (rank files), serial-hostfiles (SCOPE_HOST_FILES=1: one host
file, groups added under the host's lock), openmpi or mpich (mpirun -n 2).
APP is started_app.c built for it. Asserted, per rank r of the run:
  - exit status and output as bare (pids aside), each parent's 3 children ran;
  - /rank<r> is the parent (its pid), with work 5 (and MPI_Barrier 1 under
    MPI) and no started_by_pid;
  - 3 collision groups /rank<r>.collision<K>, each work 2, started_by_pid =
    that parent's pid, 3 distinct pids; /metadata rank_collisions = 3 per rank;
  - `scope summary` counts the parents only (work 5 per rank) and says the
    children are kept aside.
"""
import os
import re
import subprocess
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, region_counts  # noqa: E402

FAIL = []


def check(cond, what):
    if not cond:
        FAIL.append(what)
        print("FAIL:", what)


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    lines = sorted(re.sub(r"^pid \d+ ", "pid P ", ln) for ln in p.stdout.splitlines())
    return p, lines



def main():
    scope, preload, mode, app = sys.argv[1:5]
    app = os.path.abspath(app)
    mpi = mode in ("openmpi", "mpich")
    n = 2 if mpi else 1
    launcher = {"openmpi": ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2"],
                "mpich": ["mpirun.mpich", "-n", "2"]}.get(mode, [])
    cmd = launcher + [app, "parent", app]
    env = clean_env(mpi_root=True)
    bare, bare_lines = run(cmd, env)
    with open("scope.conf", "w") as f:
        f.write("work\nMPI_*\n" if mpi else "work\n")
    penv = dict(env, LD_PRELOAD=os.path.abspath(preload), SCOPE_CONFIG="scope.conf",
                SCOPE_OUTPUT=os.path.abspath("run.h5"))
    if mode == "serial-hostfiles":
        penv["SCOPE_HOST_FILES"] = "1"
    prof, prof_lines = run(cmd, penv)
    check(prof.returncode == bare.returncode == 0,
          f"exit status {prof.returncode} profiled, {bare.returncode} bare: {prof.stderr[-800:]}")
    check(prof_lines == bare_lines, f"output {prof_lines}, bare {bare_lines}")
    check(prof_lines == [f"pid P rank {r} children ok 3" for r in range(n)],
          f"the children did not all run: {prof_lines}")
    parent = {int(m.group(2)): int(m.group(1))
              for m in re.finditer(r"^pid (\d+) rank (\d+)", prof.stdout, re.M)}
    want_parent = {"work": 5, "MPI_Barrier": 1} if mpi else {"work": 5}
    with h5py.File("run.h5", "r") as f:
        names = sorted(k for k in f if k.startswith("rank"))
        for r in range(n):
            g = f[f"rank{r}"]
            got = region_counts(g)
            if mpi:
                got = {k: v for k, v in got.items() if k in want_parent}
            check(got == want_parent, f"rank {r}: counts {got}, want the parent's {want_parent}")
            check(int(g.attrs["pid"]) == parent.get(r), f"rank {r}: pid {g.attrs['pid']}, "
                  f"the parent printed {parent.get(r)}")
            check("started_by_pid" not in g.attrs, f"rank {r}: has started_by_pid")
            kids = [k for k in names if k.startswith(f"rank{r}.collision")]
            check(len(kids) == 3, f"rank {r}: collision groups {kids}, want 3 (the children)")
            pids = set()
            for k in kids:
                c = f[k]
                got = region_counts(c)
                check(got == {"work": 2}, f"{k}: counts {got}, want work 2")
                check(int(c.attrs.get("started_by_pid", -1)) == parent.get(r),
                      f"{k}: started_by_pid {c.attrs.get('started_by_pid')}, want {parent.get(r)}")
                pids.add(int(c.attrs["pid"]))
            check(len(pids) == 3 and parent.get(r) not in pids, f"rank {r}: children pids {pids}")
        check(len(names) == 4 * n, f"groups in the index: {names}")
        check(int(f["metadata"].attrs.get("rank_collisions", -1)) == 3 * n,
              f"rank_collisions {f['metadata'].attrs.get('rank_collisions')}, want {3 * n}")
    s = subprocess.run([scope, "summary", "run.h5"], capture_output=True, text=True)
    lines = s.stdout.splitlines()
    check(s.returncode == 0 and lines and lines[0].startswith(f"warning: {3 * n} processes")
          and "started" in lines[0], f"summary's first line: {lines[:1]}")
    work = [ln.split() for ln in lines if ln.startswith("work ")]
    check(len(work) == 1 and work[0][1] == str(5 * n), f"summary's work row: {work}")
    if FAIL:
        sys.exit(1)
    print(f"check_started_by {mode}: {n} parent(s) keep their rank, 3 children each kept aside "
          "with started_by_pid")


if __name__ == "__main__":
    main()
