#!/usr/bin/env python3
"""check_libc_config.py PRELOAD PROG_LIBC_CALLS MPI_PROG OUTDIR

A config that names libc functions (`malloc`, `free`, `strdup`): what
users ask first ("how many mallocs does my code make?"). scope's own code
calls them too, mostly through libc (its strdup and qsort call malloc),
and before preload/self_depth.h those calls were recorded as the
program's; the first of them could re-enter the recorder under its own
lock, and every such process hung at start.

  serial   prog_libc_calls.c, config malloc/free/strdup/work: exit status 5
           and output as bare; exactly the program's calls: malloc 10
           (7 + 1 in each of 3 strdup), free 10, strdup 3, work 5; no call
           lasting a millisecond (the first call of a thread no longer
           carries the journal's creation)
  mpi      mpi_calls.c under mpirun -n 2, config malloc/free/MPI_*: exit
           status 0 and output as bare; on every rank exactly the MPI calls
           of check_mpi.py, and mallocs (Open MPI's own, inside the
           program's MPI calls) recorded
Each run has a time limit: a hang fails the test.
"""
import os
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, fail, run_limited, region_counts  # noqa: E402

MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
SERIAL = {"malloc": 10, "free": 10, "strdup": 3, "work": 5}
MPI = {"MPI_Init": 1, "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Barrier": 3,
       "MPI_Allreduce": 5, "MPI_Bcast": 4, "MPI_Send": 2, "MPI_Recv": 2,
       "MPI_Init..MPI_Finalize": 1}


def run(cmd, env, cwd, what):
    p = run_limited(cmd, env, cwd, what)
    return p.returncode, sorted(p.stdout.splitlines())  # ranks print in any order



def case(name, cmd, conf_lines, preload, outdir):
    d = os.path.join(outdir, name)
    os.makedirs(d)
    env = clean_env(mpi_root=True)
    bare = run(cmd, env, d, f"{name}, bare")
    conf = os.path.join(d, "scope.conf")
    with open(conf, "w") as f:
        f.write("\n".join(conf_lines) + "\n")
    prof = run(cmd, dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=conf,
                         SCOPE_OUTPUT=os.path.join(d, "p.h5")), d, f"{name}, profiled")
    if prof != bare:
        fail(f"{name}: profiled {prof!r}, bare {bare!r}")
    return h5py.File(os.path.join(d, "p.h5"), "r")


def main():
    preload, prog, mpi_prog = (os.path.abspath(a) for a in sys.argv[1:4])
    outdir = os.path.abspath(sys.argv[4])
    with case("serial", [prog], ["malloc", "free", "strdup", "work"], preload, outdir) as f:
        g = f["rank0"]
        got = region_counts(g)
        if got != SERIAL:
            fail(f"serial: counts {got}, want {SERIAL}")
        for name in SERIAL:
            r = g["regions"][name]
            longest = max(int(e) - int(s) for s, e in zip(r["start_times"], r["end_times"]))
            if longest > 1_000_000:
                fail(f"serial: a call of {name} lasted {longest} ns (scope's set-up in it?)")
    with case("mpi", MPIRUN + ["-n", "2", mpi_prog], ["malloc", "free", "MPI_*"],
              preload, outdir) as f:
        for r in range(2):
            got = region_counts(f[f"rank{r}"])
            mallocs = got.pop("malloc", 0)
            got.pop("free", None)
            if got != MPI or mallocs < 1:
                fail(f"mpi: rank {r}: counts {got}, malloc {mallocs}; want {MPI} and mallocs")
    print("check_libc_config: malloc/free/strdup counted exactly, no hang, serial and MPI")


if __name__ == "__main__":
    main()
