#!/usr/bin/env python3
"""bench_startup.py [BUILD_DIR] [ROUNDS] [CASES]

Start-up cost of the interposition engine (issue 12): how long the
preload's constructor takes to find and patch what a config names, read
from its own SCOPE_VERBOSE line ("scope: start-up: W ms (C ms CPU) for N
functions (index ...; match ...; patch ...; GOT ...)"), best of ROUNDS
(default 3) runs, for:

  genlib    the generated library of 20,000 functions (tests/startup),
            config `gen_f*`
  lmp       Debian's LAMMPS on its melt example under mpirun -n 2, config
            `LAMMPS_NS::*` (rank 0's line)
  mpi-c     a C MPI program (tests/patch/mpi_calls_c) under mpirun -n 2,
            the default config (every MPI_*)
  mpi-lmp   lmp under mpirun -n 2, the default config
  mpich-c   a C MPI program built with MPICH (tests/mpi/mpi_app_c_mpich)
            under mpirun.mpich -n 2, the default config: MPICH defines 616
            MPI_* functions, Open MPI 429
  mpi-lmp-io0, mpi-c-io0
            mpi-lmp and mpi-c with SCOPE_IO=0: the default config without
            the I/O capture's 129 functions, the base issue 46's "start-up
            grows by at most 1 ms" is measured against; each runs only with
            its case (`mpi-c,mpi-c-io0`), their rounds alternating

For each: functions matched and patched, start-up wall and CPU ms, us per
patched function, the parts, and the whole run's wall time bare and
profiled (the profiled run also records and writes: that ratio is not the
start-up alone). Prints the CPU model and the load average: on a shared
machine wall times include other processes' turns, CPU times do not.
CASES (comma-separated, default all) runs only those, e.g. `mpich-c` or
`mpi-c,mpich-c`: lmp alone takes a minute a round.

Targets: lmp <= 200 ms per process; genlib <= 20 us per function; default
MPI_* <= 10 ms. Not a test: nothing is asserted.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from benchlib import cpu_model

LINE = re.compile(r"scope: start-up: ([\d.]+) ms \(([\d.]+) ms CPU\) for (\d+) functions"
                  r"(?: and \d+ of the captures' own)? \(index ([\d.]+) ms.*?; match ([\d.]+) ms.*?; patch ([\d.]+) ms; "
                  r"GOT ([\d.]+) ms")
ENTRY = re.compile(r"scope: '[^']*' \(line \d+\)[^:]*: (\d+) inline, (\d+) GOT, (\d+) refused")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2"]


def run(cmd, env, cwd):
    t = time.monotonic()
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, timeout=1800)
    return time.monotonic() - t, p


def bench(name, cmd, conf, build, tmp, rounds, extra=None):
    """Runs one case; with extra = [(name, env)], the same command with
    those variables too, each round alternating with the first, and prints
    a line per variant."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SCOPE_") and k != "LD_PRELOAD"}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1")
    penv = dict(env, LD_PRELOAD=os.path.join(build, "preload", "libscope_preload.so"),
                SCOPE_VERBOSE="1", SCOPE_OUTPUT=os.path.join(tmp, name + ".h5"),
                SCOPE_H5WRITER=os.path.join(build, "convert", "scope-h5write"))
    if conf:
        path = os.path.join(tmp, name + ".conf")
        with open(path, "w") as f:
            f.write(conf + "\n")
        penv["SCOPE_CONFIG"] = path
    variants = [(name, penv)] + [(n, dict(penv, **e)) for n, e in (extra or [])]
    best = {n: None for n, _ in variants}
    cpus = {n: [] for n, _ in variants}
    bare_t, prof_t, counts = [], {n: [] for n, _ in variants}, {}
    for _ in range(rounds):
        t, p = run(cmd, env, tmp)
        bare_t.append(t)
        for vn, venv in variants:
            t, p = run(cmd, venv, tmp)
            prof_t[vn].append(t)
            err = p.stderr.decode(errors="replace")
            m = LINE.search(err)
            if p.returncode != 0 or not m:
                print(f"{vn}: run failed (exit {p.returncode}):\n{err[-2000:]}")
                return
            v = [float(x) for x in m.groups()]
            cpus[vn].append(v[1])
            if best[vn] is None or v[1] < best[vn][1]:
                best[vn] = v
            e = [tuple(int(x) for x in g) for g in ENTRY.findall(err)]
            counts[vn] = tuple(sum(c[i] for c in e) for i in range(3))
    for vn, _ in variants:
        report(vn, best[vn], counts[vn], bare_t, prof_t[vn], sorted(cpus[vn]))


def report(name, best, counts, bare_t, prof_t, cpus):
    wall, cpu, n, idx, match, patch, got = best
    inl, gotn, ref = counts
    print(f"{name:8} {inl + gotn + ref:6d} {inl + gotn:7d} {wall:9.1f} {cpu:8.1f} "
          f"{1e3 * cpu / max(n, 1):8.1f} {1e3 * wall / max(n, 1):8.1f}   "
          f"{idx:.1f}/{match:.1f}/{patch:.1f}/{got:.1f}   "
          f"{min(bare_t):.2f} s / {min(prof_t):.2f} s = {min(prof_t) / min(bare_t):.2f}x   "
          f"CPU ms median {cpus[len(cpus) // 2]:.1f}")


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    known = ("genlib", "lmp", "mpi-lmp", "mpi-c", "mpich-c", "mpi-lmp-io0", "mpi-c-io0")
    cases = sys.argv[3].split(",") if len(sys.argv) > 3 else list(known)
    for c in cases:
        if c not in known:
            sys.exit(f"bench_startup.py: unknown case '{c}' (cases: {', '.join(known)})")
    print(f"CPU: {cpu_model()}, {os.cpu_count()} cores; load average "
          f"{os.getloadavg()[0]:.1f} (a shared machine: compare CPU ms, and wall ratios "
          f"taken in the same minute)")
    print(f"best of {rounds} rounds; parts = index/match/patch/GOT wall ms")
    print("case     matched patched   wall ms   CPU ms CPU us/fn wall us/fn   parts"
          "                  run bare / profiled")
    tmp = tempfile.mkdtemp(prefix="scope-bench-startup-")
    try:
        gen = os.path.join(build, "tests", "startup", "startup_genprog")
        if "genlib" in cases:
            if os.path.exists(gen):
                bench("genlib", [gen], "gen_f*", build, tmp, rounds)
            else:
                print("genlib: not built (tests/startup)")
        lmp = shutil.which("lmp")
        melt = "/usr/share/lammps/examples/melt/in.melt"
        lmp_cases = [c for c in ("lmp", "mpi-lmp") if c in cases]
        if lmp_cases and not (lmp and os.path.exists(melt)):
            print("lmp: LAMMPS not installed (Debian lammps, lammps-examples)")
        elif lmp_cases:
            shutil.copy(melt, tmp)
            cmd = MPIRUN + [lmp, "-log", "none", "-in", "in.melt"]
            for c in lmp_cases:
                bench(c, cmd, "LAMMPS_NS::*" if c == "lmp" else None, build, tmp, rounds,
                      [("mpi-lmp-io0", {"SCOPE_IO": "0"})]
                      if c == "mpi-lmp" and "mpi-lmp-io0" in cases else None)
        mpic = os.path.join(build, "tests", "patch", "mpi_calls_c")
        if "mpi-c" in cases and os.path.exists(mpic):
            bench("mpi-c", MPIRUN + [mpic], None, build, tmp, rounds,
                  [("mpi-c-io0", {"SCOPE_IO": "0"})] if "mpi-c-io0" in cases else None)
        mpich = os.path.join(build, "tests", "mpi", "mpi_app_c_mpich")
        if "mpich-c" in cases:
            if os.path.exists(mpich) and shutil.which("mpirun.mpich"):
                bench("mpich-c", ["mpirun.mpich", "-n", "2", mpich], None, build, tmp, rounds)
            else:
                print("mpich-c: MPICH or tests/mpi/mpi_app_c_mpich missing")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
