"""check_cp2k.py - CP2K (Debian's cp2k.psmp: MPI + OpenMP, built by GCC,
so its OpenMP runs on libgomp) under `scope run --openmp`, 2 OpenMP
threads, one process: the energy of cp2k_h2o.inp unchanged (to 1e-10
hartree: the OpenMP runtime combines the threads' sums in its own order,
which moves the last of its 17 printed digits), every call closed, its
parallel regions recorded, and `scope omp` and `scope efficiency` read
the profile.

    check_cp2k.py SCOPE CP2K INPUT OUT_DIR
"""
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, fail, run_limited  # noqa: E402

SCOPE, CP2K, INPUT, OUT = sys.argv[1:5]
SCOPE, INPUT, OUT = (os.path.abspath(a) for a in (SCOPE, INPUT, OUT))


def energy(text, what):
    m = re.findall(r"ENERGY\| Total FORCE_EVAL \( QS \) energy \[a\.u\.\]:\s+(\S+)", text)
    if len(m) != 1:
        fail(f"{what}: no single total energy in CP2K's output:\n{text[-2000:]}")
    return float(m[0])


def main():
    shutil.copy(INPUT, os.path.join(OUT, "h2o.inp"))
    env = clean_env(mpi_root=True, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    bare = run_limited([CP2K, "-i", "h2o.inp"], env, OUT, "bare cp2k", limit=600)
    if bare.returncode != 0:
        fail(f"bare cp2k exit status {bare.returncode}: {bare.stderr[-1000:]}")
    e0 = energy(bare.stdout, "bare run")
    out = os.path.join(OUT, "prof.h5")
    prof = run_limited([SCOPE, "run", "--openmp", "-o", out, CP2K, "-i", "h2o.inp"], env, OUT,
                       "cp2k under scope run --openmp", limit=600)
    if prof.returncode != 0:
        fail(f"profiled cp2k exit status {prof.returncode}: {prof.stderr[-1000:]}")
    e1 = energy(prof.stdout, "profiled run")
    if abs(e1 - e0) > 1e-10:
        fail(f"energy {e1!r} on LLVM's libomp under scope, {e0!r} bare")
    if "this program runs on GCC's OpenMP runtime" in prof.stderr:
        fail("the libgomp notice under --openmp")
    with h5py.File(os.path.join(OUT, "prof.ranks", "rank0.h5")) as f:
        g = f["rank0"]
        n = {k: len(v["start_times"]) for k, v in g["regions"].items()}
        if g.attrs["unterminated_calls"] != 0:
            fail(f"{g.attrs['unterminated_calls']} calls left open")
        if n.get("omp parallel", 0) < 100:
            fail(f"CP2K's parallel regions: {n}")
        # each region's team: 1 (CP2K serialises some) or 2 threads
        team = np.bincount(g["regions/omp implicit task/omp_parallel"][()],
                           minlength=n["omp parallel"])
        if team.min() < 1 or team.max() > 2:
            fail(f"team sizes {sorted(set(team.tolist()))}, not 1 or 2")
    if n.get("MPI_Allreduce", 0) < 1:
        fail(f"CP2K's MPI calls: {n}")
    for cmd in (["omp", "--format", "csv"], ["efficiency", "--format", "csv"]):
        p = subprocess.run([SCOPE, *cmd, out], capture_output=True, text=True, env=clean_env())
        if p.returncode != 0 or len(p.stdout.splitlines()) < 2:
            fail(f"scope {' '.join(cmd)}: {p.returncode} {p.stderr.strip()}")
    print("OK energy", e0, e1, "parallel regions", n["omp parallel"])


main()
