#!/usr/bin/env python3
"""check_mpi.py PRELOAD NP PROGRAM [ARGS...] OUTDIR

Runs PROGRAM (mpi_calls.c or its Fortran twin) under `mpirun -n NP` bare
and with PRELOAD and a config naming MPI_* (plus, for Fortran, `compute`
and `scale` by their Fortran names). Requires the same output, then checks
with h5py that every rank file holds exactly the MPI calls the program
made, each once, with kind "mpi", and the Fortran procedures' counts; and
that each MPI region the vocabulary of calls knows says which call it is
(its `operation` attribute, docs/format.md "Operations"), every other
region (MPI_Comm_rank, the Fortran procedures, the preload's span) none."""
import os
import subprocess
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env  # noqa: E402

# SCOPE_TEST_MPIRUN: another launcher (the arm64 sysroot's orterun under
# qemu, tests/arm64), with the loopback-only options the tests use
MPIRUN = ([os.environ["SCOPE_TEST_MPIRUN"], "--mca", "btl_tcp_if_include", "lo",
           "--mca", "oob_tcp_if_include", "lo"] if os.environ.get("SCOPE_TEST_MPIRUN")
          else ["mpirun"]) + ["--allow-run-as-root", "--oversubscribe"]
# MPI_Init and MPI_Finalize are timed by the preload's own wrappers.
EXPECT = {"MPI_Init": 1, "MPI_Comm_rank": 1, "MPI_Comm_size": 1,
          "MPI_Barrier": 3, "MPI_Allreduce": 5, "MPI_Bcast": 4,
          "MPI_Send": 2, "MPI_Recv": 2}
FORTRAN = {"compute": 6, "scale": 3}
# the regions whose function is no row of format/calls_mpi.def
NO_OPERATION = {"MPI_Comm_rank", "MPI_Comm_size", "MPI_Init..MPI_Finalize"}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    preload, np_, outdir = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[-1])
    prog = [os.path.abspath(a) if os.path.exists(a) else a for a in sys.argv[3:-1]]
    fortran = prog[0].endswith("_f")
    python = prog[-1].endswith(".py")
    conf = os.path.join(outdir, "mpi.conf")
    with open(conf, "w") as f:
        f.write("MPI_*\n" + ("compute\nscale\n" if fortran else ""))
    env = clean_env(keep=("SCOPE_TRAMPOLINE",), mpi_root=True)
    env.pop("SCOPE_TEST_MPIRUN", None)
    cmd = MPIRUN + ["-n", np_] + prog
    bare = subprocess.run(cmd, env=env, cwd=outdir, capture_output=True, timeout=600)
    penv = dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=conf,
                SCOPE_OUTPUT=os.path.join(outdir, "p.h5"))
    if os.environ.get("SCOPE_H5WRITER"):
        penv["SCOPE_H5WRITER"] = os.environ["SCOPE_H5WRITER"]
    prof = subprocess.run(cmd, env=penv, cwd=outdir, capture_output=True, timeout=600)
    sys.stderr.write(prof.stderr.decode(errors="replace"))
    if bare.returncode != 0 or prof.returncode != 0:
        fail(f"exit status {prof.returncode} profiled, {bare.returncode} bare")
    if sorted(bare.stdout.splitlines()) != sorted(prof.stdout.splitlines()):
        fail(f"output differs:\n{bare.stdout!r}\n{prof.stdout!r}")
    want = dict(EXPECT, **(FORTRAN if fortran else {}))
    if python:              # mpi4py starts MPI with MPI_Init_thread
        want["MPI_Init_thread"] = want.pop("MPI_Init")
    with h5py.File(os.path.join(outdir, "p.h5"), "r") as f:
        ranks = sorted(k for k in f.keys() if k.startswith("rank"))
        if ranks != [f"rank{r}" for r in range(int(np_))]:
            fail(f"rank groups {ranks}")
        for rk in ranks:
            got, kinds, ops = {}, {}, {}
            for link, g in f[rk]["regions"].items():
                name = g.attrs.get("name", link)
                name = name.decode() if isinstance(name, bytes) else str(name)
                kind = g.attrs["kind"]
                kinds[name] = kind.decode() if isinstance(kind, bytes) else str(kind)
                got[name] = len(g["start_times"])
                op = g.attrs.get("operation")
                ops[name] = op.decode() if isinstance(op, bytes) else op
            for name, op in ops.items():
                if name in NO_OPERATION or name in FORTRAN or name.endswith("_"):
                    want_op = None
                elif name in EXPECT or name in ("MPI_Init_thread", "MPI_Finalize"):
                    want_op = name
                else:
                    continue    # mpi4py's own calls
                if op != want_op:
                    fail(f"{rk}: {name} has operation {op!r}, expected {want_op!r}")
            # the preload's own span region and MPI_Finalize (written as the
            # file is closed) are not calls of this test
            if fortran:
                got = {("compute" if k == "compute_" else
                        "scale" if k == "__kernels_MOD_scale" else k): v for k, v in got.items()}
            got = {k: v for k, v in got.items() if k.startswith("MPI_") or k in FORTRAN}
            got.pop("MPI_Finalize", None)
            got.pop("MPI_Init..MPI_Finalize", None)
            if python:
                # mpi4py makes MPI calls of its own (MPI_Initialized,
                # MPI_Comm_rank, MPI_Type_get_extent, ...): only the calls
                # this script makes and mpi4py does not are exact
                got = {k: v for k, v in got.items() if k in want and k != "MPI_Comm_rank"}
                want = {k: v for k, v in want.items() if k != "MPI_Comm_rank"}
            if got != want:
                fail(f"{rk}: counts {got}, expected {want}")
            for n in want:
                if n not in FORTRAN and kinds.get(n) != "mpi":
                    fail(f"{rk}: {n} has kind {kinds.get(n)!r}")
    print(f"ok: {len(ranks)} ranks, each {want}")


main()
