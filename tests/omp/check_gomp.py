"""check_gomp.py - GCC-built OpenMP programs (libgomp, which has no tool
interface), through `scope run`:

    check_gomp.py openmp  SCOPE PROGRAM SRC_DIR OUT_DIR
        prog_gomp.c under `scope run --openmp` (LLVM's libomp runs its
        GOMP_* calls): its output unchanged; its parallel regions, implicit
        tasks, barrier waits, dynamic loop and critical waits counted
        exactly, derived by hand from the program and from what that path
        delivers (docs/openmp.md: GCC computes static loops inline, so they
        have no loop event; GOMP_barrier is reported as an implicit
        barrier).
    check_gomp.py notice MPI SCOPE PROGRAM OUT_DIR
        prog_hybrid.c built by GCC's MPI wrapper (libgomp) under `scope run
        -- mpirun -n 2` without --openmp: the program's output unchanged,
        its MPI calls recorded, no OpenMP region, and the notice that its
        OpenMP is not visible printed exactly once for the run, not per
        rank; then with --openmp: both ranks record their parallel regions.
"""
import csv
import io
import os
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, expect, expect_eq, fail, run_limited  # noqa: E402

NOTICE = "this program runs on GCC's OpenMP runtime"


def counts(path):
    with h5py.File(path) as f:
        (name,) = [k for k in f if k.startswith("rank")]
        g = f[name]["regions"]
        return {k: len(g[k]["start_times"]) for k in g}


def line_of(src_dir, src, marker):
    with open(os.path.join(src_dir, src)) as f:
        for i, text in enumerate(f, 1):
            if f"/* {marker} */" in text:
                return i
    fail(f"{src}: no /* {marker} */")


def check_openmp(scope, program, src_dir, out_dir):
    env = clean_env(OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    bare = run_limited([program], env, out_dir, "bare run")
    expect_eq(bare.returncode, 0, "bare exit status")
    out = os.path.join(out_dir, "prof.h5")
    prof = run_limited([scope, "run", "--openmp", "-o", out, program], env, out_dir,
                       "scope run --openmp")
    expect_eq(prof.returncode, 0, f"scope run --openmp exit status ({prof.stderr.strip()})")
    expect_eq(prof.stdout, bare.stdout, "the program's output on LLVM's libomp")
    expect(NOTICE not in prof.stderr, "no libgomp notice under --openmp")
    n = counts(os.path.join(out_dir, "prof.ranks", "rank0.h5"))
    want = {
        "omp parallel": 12,                 # 10 loop regions and the two last ones
        "omp implicit task": 24,            # 2 threads each
        # the end of each region (24), the dynamic loop's barrier (2), the
        # explicit barrier, which GOMP_barrier reports as implicit (2), and
        # the barrier ending each of the 20 singles (40)
        "omp implicit barrier wait": 68,
        "omp loop": 2,                      # the dynamic loop's two parts
        "omp critical wait": 2,             # one entry per thread
        "omp single": 20,                   # the thread that ran each
    }
    expect_eq({k: n.get(k, 0) for k in want}, want, "OpenMP regions of the GCC-built program")
    with h5py.File(os.path.join(out_dir, "prof.ranks", "rank0.h5")) as f:
        expect_eq(int(f["rank0"].attrs["unterminated_calls"]), 0,
                  "calls left open (a single's end is never reported: it ends at its barrier)")
    p = subprocess.run([scope, "omp", "--format", "csv", out], capture_output=True, text=True,
                       env=clean_env())
    expect_eq(p.returncode, 0, "scope omp exit status")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    line = line_of(src_dir, "prog_gomp.c", "STATIC")
    static = {int(r["thread"]): int(r["instances"]) for r in rows
              if r["kind"] == "parallel" and f"prog_gomp.c:{line}" in r["region"]}
    expect_eq(static, {0: 10, 1: 10}, f"the parallel for at prog_gomp.c:{line}, per thread")
    crit = {int(r["thread"]): int(r["instances"]) for r in rows if r["kind"] == "critical wait"}
    expect_eq(crit, {0: 1, 1: 1}, "critical entries per thread")


def mpirun(mpi):
    if mpi == "openmpi":
        return ["mpirun", "--oversubscribe", "--mca", "btl_tcp_if_include", "lo",
                "--mca", "oob_tcp_if_include", "lo", "-n", "2"]
    return ["mpirun.mpich", "-n", "2"]


def check_notice(mpi, scope, program, out_dir):
    env = clean_env(mpi_root=True, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    cmd = mpirun(mpi) + [program, "funneled"]
    bare = run_limited(cmd, env, out_dir, "bare run", limit=180)
    expect_eq(bare.returncode, 0, "bare exit status")
    out = os.path.join(out_dir, "prof.h5")
    prof = run_limited([scope, "run", "-o", out, "--"] + cmd, env, out_dir, "scope run",
                       limit=180)
    expect_eq(prof.returncode, 0, f"scope run exit status ({prof.stderr.strip()[-300:]})")
    expect_eq(sorted(prof.stdout.splitlines()), sorted(bare.stdout.splitlines()),
              "the program's output under the preload")
    expect_eq(prof.stderr.count(NOTICE), 1, f"the libgomp notice, once per run: {prof.stderr!r}")
    for r in range(2):
        n = counts(os.path.join(out_dir, "prof.ranks", f"rank{r}.h5"))
        expect_eq(n.get("MPI_Allreduce"), 20, f"rank {r}: MPI_Allreduce calls")
        expect_eq([k for k in n if k.startswith("omp ")], [], f"rank {r}: OpenMP regions")
    # the remedy the notice names: the same run with --openmp
    out2 = os.path.join(out_dir, "prof2.h5")
    prof = run_limited([scope, "run", "--openmp", "-o", out2, "--"] + cmd, env, out_dir,
                       "scope run --openmp", limit=180)
    expect_eq(prof.returncode, 0, f"scope run --openmp exit status ({prof.stderr.strip()[-300:]})")
    expect_eq(sorted(prof.stdout.splitlines()), sorted(bare.stdout.splitlines()),
              "the program's output on LLVM's libomp")
    expect(NOTICE not in prof.stderr, "no notice under --openmp")
    for r in range(2):
        n = counts(os.path.join(out_dir, "prof2.ranks", f"rank{r}.h5"))
        expect_eq((n.get("omp parallel"), n.get("omp implicit task"), n.get("MPI_Allreduce")),
                  (20, 40, 20), f"rank {r}: parallel regions, implicit tasks, MPI_Allreduce")


if sys.argv[1] == "openmp":
    check_openmp(*(os.path.abspath(a) for a in sys.argv[2:6]))
else:
    check_notice(sys.argv[2], *(os.path.abspath(a) for a in sys.argv[3:6]))
print("OK", *sys.argv[1:3])
