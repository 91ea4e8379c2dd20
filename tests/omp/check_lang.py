"""check_lang.py - OpenMP in C++ and Fortran, recorded and counted:

    check_lang.py cxx     SCOPE PRELOAD PROGRAM OUT_DIR
        prog_cxx.cpp (clang++, LLVM's libomp) under the preload;
    check_lang.py fortran SCOPE PRELOAD PROGRAM OUT_DIR
        prog_fortran.f90 (gfortran, GCC's libgomp) under `scope run
        --openmp` (LLVM's libomp runs its GOMP_* calls; its dynamic loop
        has loop events, its real(16) atomic is GOMP_atomic_start's lock).

Each runs bare and recorded on 2 threads (OMP_WAIT_POLICY=passive): the
output must be the same; every count of regions, instances, entries and
iterations per thread is derived by hand from the program.
"""
import csv
import io
import os
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, expect, expect_eq, run_limited  # noqa: E402

WHAT = sys.argv[1]
SCOPE, PRELOAD, PROGRAM, OUT = (os.path.abspath(a) for a in sys.argv[2:6])


def main():
    env = clean_env(OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    bare = run_limited([PROGRAM], env, OUT, "bare run")
    expect_eq(bare.returncode, 0, "bare exit status")
    out = os.path.join(OUT, "prof.h5")
    if WHAT == "cxx":
        prof = run_limited([PROGRAM], dict(env, LD_PRELOAD=PRELOAD, SCOPE_OUTPUT=out), OUT,
                           "profiled run")
        want_out = "total 49500 hits 10 v99 990\n"  # 10 x (0 + ... + 99); 10 x 99
    else:
        prof = run_limited([SCOPE, "run", "--openmp", "-o", out, PROGRAM], env, OUT,
                           "scope run --openmp")
        want_out = "total 50500 hits 10 atomic 15.0\n"  # 10 x (1 + ... + 100); 10 x 1.5
    expect_eq(prof.returncode, 0, f"profiled exit status ({prof.stderr.strip()})")
    expect_eq(bare.stdout, want_out, "the program's output")
    expect_eq(prof.stdout, bare.stdout, "the program's output when recorded")
    rank0 = os.path.join(OUT, "prof.ranks", "rank0.h5")
    with h5py.File(rank0) as f:
        g = f["rank0/regions"]
        n = {k: len(g[k]["start_times"]) for k in g if k.startswith("omp ")}
        it_thread = g["omp implicit task"]["omp_thread"][()]
        counts = g["omp loop"]["omp_count"][()]
        expect_eq(int(f["rank0"].attrs["unterminated_calls"]), 0, "calls left open")
    # C++: 10 loop regions + the critical one; Fortran: + the atomic one
    regions = 11 if WHAT == "cxx" else 12
    want = {"omp parallel": regions, "omp implicit task": 2 * regions,
            "omp implicit barrier wait": 2 * regions,   # each thread's at each region's end
            "omp loop": 20,                              # each thread's part of 10 loops
            "omp critical wait": 10,                     # 5 entries per thread
            "omp atomic wait": 0 if WHAT == "cxx" else 10,
            "omp initial thread begin": 1, "omp worker thread begin": 1}
    expect_eq({k: n.get(k, 0) for k in want}, want, "OpenMP regions")
    expect_eq(np.bincount(it_thread).tolist(), [regions] * 2, "implicit tasks per thread")
    expect_eq(counts.tolist(), [100] * 20, "iterations of each loop part (the trip count)")
    p = subprocess.run([SCOPE, "omp", "--format", "csv", rank0], capture_output=True, text=True,
                       env=clean_env())
    expect_eq(p.returncode, 0, f"scope omp exit status ({p.stderr.strip()})")
    expect(p.stdout.startswith("region,rank,thread,instances,time,work,wait"), "csv header")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))

    def per_thread(kind, field="instances"):
        got = {}
        for r in rows:
            if r["kind"] == kind:
                got.setdefault(int(r["thread"]), []).append(int(r[field]))
        return {t: sorted(v) for t, v in got.items()}

    par = [1, 10] if WHAT == "cxx" else [1, 1, 10]   # the loop construct and the others
    expect_eq(per_thread("parallel"), {0: par, 1: par}, "parallel instances per thread")
    expect_eq(per_thread("loop"), {0: [10], 1: [10]}, "loop parts per thread")
    expect_eq(per_thread("loop", "iterations"), {0: [1000], 1: [1000]},
              "loop iterations per thread (10 x 100)")
    expect_eq(per_thread("critical wait"), {0: [5], 1: [5]}, "critical entries per thread")
    expect_eq(per_thread("atomic wait"), {} if WHAT == "cxx" else {0: [5], 1: [5]},
              "atomic waits per thread")
    for r in rows:
        if r["kind"] in ("critical wait", "atomic wait"):
            expect(float(r["wait"]) <= float(r["time"]), f"{r['kind']}: wait <= time")


main()
print("OK", WHAT)
