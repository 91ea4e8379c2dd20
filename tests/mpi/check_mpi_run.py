#!/usr/bin/env python3
"""check_mpi_run.py SCOPE PRELOAD MPI NP CONFIG INIT PROGRAM [ARGS...] OUTDIR

One cell of the MPI matrix (tests/mpi/meson.build): runs PROGRAM bare and
with PRELOAD, under MPI's real launcher with NP ranks (MPI = openmpi:
`mpirun --oversubscribe`; mpich: `mpirun.mpich`), or as a singleton
(NP = 1, no launcher), and checks:
  - stdout byte for byte and the exit status are the bare run's; nothing
    of the preload on stderr (launchers and their daemons print nothing)
    and exactly one file per rank in p.ranks (they write nothing);
  - with h5py: /metadata mpi_size = NP, mpi_abi = the MPI's ABI,
    mpi_library_version names it; rank groups exactly rank0..rank<NP-1>,
    their `rank` attributes 0..NP-1, distinct pids, rank_source
    PMPI_Comm_rank, no rank_mismatch, no rank collision;
  - through the reader (`scope summary --per-rank --format csv`): the exact
    per-rank call counts, and no warning line; the init call and the
    MPI_Init..MPI_Finalize span with a config as without one.
CONFIG: `user` (a config naming the user function `work` and
MPI_Allreduce) or `none` (the built-in MPI_* default). INIT: MPI_Init or
MPI_Init_thread, the init call the program makes."""
import csv
import io
import os
import subprocess
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, io_call_names  # noqa: E402

# the I/O calls every rank times by default (issue 46): tests/io's subject
IO_CALLS = io_call_names()

ABI = {"openmpi": ("Open MPI", "Open MPI"), "mpich": ("MPICH", "MPICH")}
LAUNCHER_VARS = ("OMPI_", "PMI_", "PMIX_", "SLURM_", "MV2_", "PALS_", "ALPS_", "FLUX_", "JSM_")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def launcher(mpi, np_):
    if np_ == 1:
        return []
    if mpi == "openmpi":
        return ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca",
                "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo",
                "-n", str(np_)]
    return ["mpirun.mpich", "-n", str(np_)]


def base_env():
    env = clean_env(keep=("SCOPE_TRAMPOLINE",), drop=LAUNCHER_VARS, mpi_root=True)
    return env


def expected(config, init, lang):
    """{region: calls per rank}; user function regions are normalised to
    'work' (C: work, C++: work(double), Fortran: work_)."""
    if lang == "py":        # mpi4py's own MPI calls are not this test's
        return {init: 1, "MPI_Allreduce": 5, "MPI_Barrier": 3}
    if config == "user":
        return {init: 1, "work": 7, "MPI_Allreduce": 5}
    return {init: 1, "MPI_Allreduce": 5, "MPI_Barrier": 3,
            "MPI_Comm_rank": 1, "MPI_Comm_size": 1}


def norm(name):
    base = name.split("(")[0]
    return "work" if base.rstrip("_") == "work" else name


def main():
    scope, preload, mpi, np_, config, init = sys.argv[1:7]
    scope, preload = os.path.abspath(scope), os.path.abspath(preload)
    np_ = int(np_)
    outdir = os.path.abspath(sys.argv[-1])
    prog = [os.path.abspath(a) if os.path.exists(a) else a for a in sys.argv[7:-1]]
    lang = ("py" if prog[-1].endswith(".py") else "f" if "_f_" in os.path.basename(prog[0])
            else "cxx" if "_cxx_" in os.path.basename(prog[0]) else "c")
    if lang == "py":
        lang = "py"
    env = base_env()
    cmd = launcher(mpi, np_) + prog
    bare = subprocess.run(cmd, env=env, cwd=outdir, capture_output=True, timeout=600)
    penv = dict(env, LD_PRELOAD=preload, SCOPE_OUTPUT=os.path.join(outdir, "p.h5"))
    if config == "user":
        conf = os.path.join(outdir, "user.conf")
        with open(conf, "w") as f:
            f.write(("work(double)" if lang == "cxx" else "work") + "\nMPI_Allreduce\n")
        penv["SCOPE_CONFIG"] = conf
    if os.environ.get("SCOPE_H5WRITER"):
        penv["SCOPE_H5WRITER"] = os.environ["SCOPE_H5WRITER"]
    prof = subprocess.run(cmd, env=penv, cwd=outdir, capture_output=True, timeout=600)
    sys.stderr.write(prof.stderr.decode(errors="replace"))
    if bare.returncode != prof.returncode:
        fail(f"exit status {prof.returncode} profiled, {bare.returncode} bare")
    if bare.returncode != 0:
        fail(f"the program failed bare ({bare.returncode}): {bare.stderr!r}")
    if bare.stdout != prof.stdout:
        fail(f"output differs:\n{bare.stdout!r}\n{prof.stdout!r}")
    if b"scope" in prof.stderr and b"scope" not in bare.stderr:
        fail("the preload printed something (a launcher daemon, or a rank)")
    files = sorted(os.listdir(os.path.join(outdir, "p.ranks")))
    if files != sorted(f"rank{r}.h5" for r in range(np_)):
        fail(f"files in p.ranks: {files} (a launcher wrote, or a journal is left)")
    if not bare.stdout.startswith(b"size %d " % np_):
        fail(f"the program ran with the wrong size: {bare.stdout!r}")

    want = expected(config, init, lang)
    abi, libname = ABI[mpi]
    with h5py.File(os.path.join(outdir, "p.h5"), "r") as f:
        meta = f["metadata"].attrs
        if int(meta["mpi_size"]) != np_:
            fail(f"mpi_size {meta['mpi_size']}, want {np_}")
        if meta.get("mpi_abi") != abi:
            fail(f"mpi_abi {meta.get('mpi_abi')!r}, want {abi!r}")
        if libname not in str(meta.get("mpi_library_version", "")):
            fail(f"mpi_library_version {meta.get('mpi_library_version')!r}")
        if int(meta.get("rank_collisions", 0)) != 0:
            fail(f"rank_collisions {meta['rank_collisions']}")
        groups = sorted(k for k in f.keys() if k.startswith("rank"))
        if groups != sorted(f"rank{r}" for r in range(np_)):
            fail(f"rank groups {groups}")
        pids = set()
        for r in range(np_):
            g = f[f"rank{r}"]
            if int(g.attrs["rank"]) != r:
                fail(f"/rank{r} says rank {g.attrs['rank']}")
            pids.add(int(g.attrs["pid"]))
            if g.attrs.get("rank_source") != "PMPI_Comm_rank":
                fail(f"/rank{r} rank_source {g.attrs.get('rank_source')!r}")
            if "rank_mismatch" in g.attrs:
                fail(f"/rank{r} rank_mismatch {g.attrs['rank_mismatch']!r}")
            got = {}
            for link, rg in g["regions"].items():
                if rg.attrs.get("kind", b"") in (b"io", "io"):
                    continue    # the I/O calls timed by default (issue 46): tests/io's
                name = norm(str(rg.attrs.get("name", link)))
                got[name] = len(rg["start_times"])
            # with a config too: the span (docs/config.md, "What a rank
            # records besides the config's functions")
            if got.pop("MPI_Init..MPI_Finalize", None) != 1:
                fail(f"rank {r} (h5py): no MPI_Init..MPI_Finalize span of one call")
            got.pop("MPI_Finalize", None)
            if lang == "py":
                got = {k: v for k, v in got.items() if k in want}
            if got != want:
                fail(f"rank {r} (h5py): {got}, want {want}")
        if len(pids) != np_:
            fail(f"pids {sorted(pids)} are not distinct")

    summ = subprocess.run([scope, "summary", "--per-rank", "--format", "csv",
                           os.path.join(outdir, "p.h5")], capture_output=True, timeout=300)
    if summ.returncode != 0 or summ.stderr:
        fail(f"scope summary: {summ.returncode} {summ.stderr!r}")
    per_rank = {r: {} for r in range(np_)}
    for row in csv.DictReader(io.StringIO(summ.stdout.decode())):
        if row["region"] not in IO_CALLS:
            per_rank[int(row["rank"])][norm(row["region"])] = int(row["calls"])
    for r, got in per_rank.items():
        got.pop("MPI_Init..MPI_Finalize", None)
        got.pop("MPI_Finalize", None)
        if lang == "py":
            got = {k: v for k, v in got.items() if k in want}
        if got != want:
            fail(f"rank {r} (reader): {got}, want {want}")
    print(f"ok: {mpi} np={np_} {lang} config={config} {init}: {want} on each rank")


if __name__ == "__main__":
    main()
