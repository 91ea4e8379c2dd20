#!/usr/bin/env python3
"""check_calibrate_later.py PRELOAD PROG_LIBS LIBPATCHDYN MPI_PROG OUTDIR

Calibration on demand (runtime/calibrate.c, scope__calibrate_later): a
process that instruments nothing at start does not calibrate then, and the
files of processes that do record still carry the measured overhead.

  nothing    /bin/true with the default config: SCOPE_VERBOSE says the
             calibration was deferred; exit status 0, no profile written
  dlopen     prog_libs with a config naming only dyn_compute, which is in
             the library it dlopens later: deferred at start, calibrated at
             that dlopen; the rank file has dyn_compute 7 calls and the
             trampoline's overhead attributes, and not the C API pair's
             (the program does not use the C API: they are not measured)
  finalize   an MPI program under mpirun -n 2 with a config that matches
             nothing: only MPI_Init and the span to MPI_Finalize are timed
             (by the preload's wrappers), so the calibration runs before
             each journal is finished; every rank file has exactly those
             and the overhead attributes
"""
import os
import subprocess
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, region_counts  # noqa: E402

MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
DEFERRED = "calibration deferred: nothing instrumented"
OVERHEAD = ("overhead_inside_ns", "overhead_caller_ns", "overhead_path")
# the C API pair's numbers: measured only in a process that used the C API
API_ONLY = ("overhead_api_inside_ns", "overhead_api_caller_ns", "overhead_empty_pair_ns")
FAIL = []


def check(cond, what):
    if not cond:
        FAIL.append(what)
        print("FAIL:", what, file=sys.stderr)


def verbose_env(**extra):
    return clean_env(mpi_root=True, SCOPE_VERBOSE="1", **extra)


def case_env(pre, out, name, config_line):
    """A case's folder and its profiled environment with a one-line config."""
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    conf = os.path.join(d, "scope.conf")
    with open(conf, "w") as f:
        f.write(config_line + "\n")
    return d, verbose_env(LD_PRELOAD=pre, SCOPE_CONFIG=conf, SCOPE_OUTPUT=f"{d}/p.h5")


def check_overhead(g, where):
    a = g.attrs
    missing = [k for k in OVERHEAD if k not in a]
    check(not missing, f"{where}: no {missing}")
    if missing:
        return
    mode = os.environ.get("SCOPE_TRAMPOLINE", "call")
    check(str(a["overhead_path"]) == f"trampoline ({mode} mode)",
          f"{where}: overhead_path {a['overhead_path']!r}")
    check(float(a["overhead_inside_ns"]) >= 0 and float(a["overhead_caller_ns"]) >= 0,
          f"{where}: {a['overhead_inside_ns']} / {a['overhead_caller_ns']}")
    extra = [k for k in API_ONLY if k in a]
    check(not extra, f"{where}: C API numbers measured, but the C API was not used: {extra}")



def test_nothing(pre, out):
    d = os.path.join(out, "nothing")
    os.makedirs(d, exist_ok=True)
    p = subprocess.run(["/bin/true"], env=verbose_env(LD_PRELOAD=pre, SCOPE_OUTPUT=f"{d}/p.h5"),
                       cwd=d, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and p.stdout == "", f"true: {p.returncode} {p.stdout!r}")
    check(DEFERRED in p.stderr, f"true: no deferred calibration in {p.stderr!r}")
    check(not os.path.exists(f"{d}/p.h5") and not os.path.exists(f"{d}/p.ranks"),
          f"true: wrote a profile: {os.listdir(d)}")


def test_dlopen(pre, prog, dyn, out):
    d, env = case_env(pre, out, "dlopen", "dyn_compute")
    p = subprocess.run([prog, dyn], env=env, cwd=d, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and "dyn again" in p.stdout, f"prog_libs: {p.returncode} {p.stdout!r}")
    check(DEFERRED in p.stderr, f"prog_libs: calibrated at start: {p.stderr!r}")
    with h5py.File(f"{d}/p.h5", "r") as f:
        g = f["rank0"]
        check(region_counts(g).get("dyn_compute") == 7, f"prog_libs: counts {region_counts(g)}")
        check_overhead(g, "prog_libs")


def test_finalize(pre, mpi_prog, out):
    d, env = case_env(pre, out, "finalize", "scope_test_no_such_function_*")
    p = subprocess.run(MPIRUN + ["-n", "2", mpi_prog], env=env, cwd=d, capture_output=True,
                       text=True, timeout=300)
    check(p.returncode == 0, f"mpirun: {p.returncode} {p.stderr[-2000:]}")
    check(p.stderr.count(f"{os.path.basename(mpi_prog)}: recording started") == 2 and
          p.stderr.count(DEFERRED) >= 2, f"mpirun: not deferred on both ranks: {p.stderr[-3000:]}")
    with h5py.File(f"{d}/p.h5", "r") as f:
        for r in range(2):
            g = f[f"rank{r}"]
            c = region_counts(g)
            check(c == {"MPI_Init": 1, "MPI_Init..MPI_Finalize": 1}, f"rank {r}: counts {c}")
            check_overhead(g, f"rank {r}")


def main():
    pre, prog, dyn, mpi_prog, out = (os.path.abspath(a) for a in sys.argv[1:6])
    os.makedirs(out, exist_ok=True)
    test_nothing(pre, out)
    test_dlopen(pre, prog, dyn, out)
    test_finalize(pre, mpi_prog, out)
    if FAIL:
        sys.exit(1)
    print("calibration on demand: ok")


if __name__ == "__main__":
    main()
