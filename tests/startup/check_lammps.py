#!/usr/bin/env python3
"""check_lammps.py PRELOAD OUTDIR

Start-up on a large C++ code: Debian's `lmp` (LAMMPS, its code in
liblammps.so) runs the melt example under `mpirun -n 2` bare and with
PRELOAD and the one-line config `LAMMPS_NS::*` (about 9,900 functions).
Requires the same exit status and the same output apart from the lines
that report timings, then checks with h5py that each rank recorded exactly
251 calls of LAMMPS_NS::PairLJCut::compute(int, int) (setup + 250 steps)
and 13 of LAMMPS_NS::Neighbor::build(int) (setup + 12 rebuilds), that both
ranks patched the same functions the same way, and, for the LAMMPS version
Debian 12 ships, the exact numbers of the issue (9,494 inline, 202 through
the GOT, 156 refused). LAMMPS missing is a failure that says what to
install: the CI installs it (tools/install-deps.sh).

Then `lmp` alone with the default config (`MPI_*` and the I/O calls):
liblammps.so names ~100 MPI_* functions and the I/O calls it imports but
defines none, so the object filter must not read its 16,000 symbols (the
start-up line says 2 objects read: libmpi and libc, whose I/O calls are
looked up in its hash table, not scanned for; with `io = off`, 1: libmpi;
`lmp` itself is stripped), and every MPI_* function is still found: the
same functions, all in libmpi, and MPI_Init recorded once. libc is taken
in part (its I/O functions and the symbols at and around them, from its
mapped tables, not its file): the I/O functions instrumented, and how,
must be exactly those of a run whose config makes libc be read whole."""
import collections
import os
import re
import shutil
import subprocess
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env  # noqa: E402

EXAMPLE = "/usr/share/lammps/examples/melt/in.melt"
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2"]
WANT = {"LAMMPS_NS::PairLJCut::compute(int, int)": 251,
        "LAMMPS_NS::Neighbor::build(int)": 13}
# what `LAMMPS_NS::*` instruments in Debian 12's liblammps.so.0
KNOWN = {"LAMMPS (29 Sep 2021 - Update 2)": {("inline", "patched"): 9494,
                                             ("got", "patched"): 202,
                                             ("inline", "refused"): 156}}
TIMING = re.compile(r"CPU = |^Loop time of |^Performance: |% CPU use |^Total wall time: |"
                    r"^(Pair|Bond|Kspace|Neigh|Comm|Output|Modify|Other) +\|")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def profiled_env(env, preload, conf, h5):
    penv = dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=conf, SCOPE_VERBOSE="1", SCOPE_OUTPUT=h5)
    if os.environ.get("SCOPE_H5WRITER"):
        penv["SCOPE_H5WRITER"] = os.environ["SCOPE_H5WRITER"]
    return penv


def calls_and_rows(rank):
    """{region name: calls} and the interposition rows (tuples of str) of
    a /rank<N> group."""
    counts = {text(g.attrs.get("name", k)): len(g["start_times"])
              for k, g in rank["regions"].items()}
    rows = [tuple(text(x) for x in row) for row in rank["interposition"][()]]
    return counts, rows


def main():
    preload, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    lmp = shutil.which("lmp")
    if not lmp or not os.path.exists(EXAMPLE):
        fail("LAMMPS is not installed: this test needs the Debian packages `lammps` "
             "(/usr/bin/lmp) and `lammps-examples` (" + EXAMPLE + "); "
             "tools/install-deps.sh installs them (apt-get install lammps lammps-examples)")
    shutil.copy(EXAMPLE, out)
    conf = os.path.join(out, "lmp.conf")
    with open(conf, "w") as f:
        f.write("LAMMPS_NS::*\n")
    env = clean_env(keep=("SCOPE_TRAMPOLINE",))
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1")
    cmd = MPIRUN + [lmp, "-log", "none", "-in", "in.melt"]
    bare = subprocess.run(cmd, env=env, cwd=out, capture_output=True, timeout=900)
    penv = profiled_env(env, preload, conf, os.path.join(out, "lmp.h5"))
    prof = subprocess.run(cmd, env=penv, cwd=out, capture_output=True, timeout=900)
    err = prof.stderr.decode(errors="replace")
    sys.stderr.write("".join(l[:300] + "\n" for l in err.splitlines()
                             if "start-up" in l or "LAMMPS_NS" in l))
    if bare.returncode != 0 or prof.returncode != 0:
        fail(f"exit status {prof.returncode} profiled, {bare.returncode} bare:\n{err[-3000:]}")
    keep = lambda b: [l for l in b.decode(errors="replace").splitlines()
                      if not TIMING.search(l)]
    if keep(bare.stdout) != keep(prof.stdout):
        fail("lmp's output differs beyond timing lines:\n" +
             "\n".join(a + "  |  " + b for a, b in zip(keep(bare.stdout), keep(prof.stdout))
                       if a != b))
    version = bare.stdout.decode(errors="replace").splitlines()[0].strip()
    tables = []
    with h5py.File(os.path.join(out, "lmp.h5"), "r") as f:
        ranks = sorted(k for k in f.keys() if k.startswith("rank"))
        if ranks != ["rank0", "rank1"]:
            fail(f"rank groups {ranks}")
        for rk in ranks:
            counts, rows = calls_and_rows(f[rk])
            got = {k: counts.get(k) for k in WANT}
            if got != WANT:
                fail(f"{rk}: {got}, want {WANT}")
            tables.append(sorted(rows))
    if tables[0] != tables[1]:
        fail("the two ranks instrumented different functions")
    methods = collections.Counter((r[3], r[4]) for r in tables[0] if r[0] == "LAMMPS_NS::*")
    if version in KNOWN and dict(methods) != KNOWN[version]:
        fail(f"{version}: {dict(methods)}, want {KNOWN[version]}")
    check_default_config(lmp, env, out, preload)
    print(f"ok: {version}: {dict(methods)}; per rank {WANT}")


def check_default_config(lmp, env, out, preload):
    """lmp alone under the default config (`MPI_*`, and the I/O capture's
    129 default functions) and under `io = off`: the object filter reads
    exactly libmpi and, for the I/O calls, libc (2 objects; 1 with io =
    off), not the 56 objects it read when the I/O defaults were past its
    bound of 64 patterns."""
    part = check_objects_read(lmp, env, out, preload, "default", "MPI_*\n", 2,
                              "libmpi and libc (the I/O calls)", 1)
    # an entry qualified by libc's name makes the filter read libc whole
    whole = check_objects_read(lmp, env, out, preload, "libc-whole",
                               "MPI_*\nlibc.so.6:scope_no_such_function\n", 2,
                               "libmpi and libc, whole", 0)
    if part != whole:
        fail("the I/O functions instrumented from libc taken in part differ from those of "
             f"libc read whole: only in part {sorted(part - whole)[:5]}, only whole "
             f"{sorted(whole - part)[:5]}")
    check_objects_read(lmp, env, out, preload, "io-off", "MPI_*\nio = off\n", 1, "libmpi", 0)


def check_objects_read(lmp, env, out, preload, name, text, want, which, want_part):
    """Runs lmp alone with config `text`: `want` objects read, `want_part`
    of them in part; returns the set of the [io] interposition rows."""
    conf = os.path.join(out, name + ".conf")
    with open(conf, "w") as f:
        f.write(text)
    h5 = os.path.join(out, name + ".h5")
    penv = profiled_env(env, preload, conf, h5)
    p = subprocess.run([lmp, "-log", "none", "-in", "in.melt"], env=penv, cwd=out,
                       capture_output=True, timeout=900)
    err = p.stderr.decode(errors="replace")
    if p.returncode != 0:
        fail(f"lmp with {name}: exit status {p.returncode}:\n{err[-3000:]}")
    line = next((l for l in err.splitlines() if "start-up:" in l), "")
    sys.stderr.write(line[:300] + "\n")
    m = re.search(r"(\d+) objects read, (\d+) skipped, (\d+) in part", line)
    if not m or m.group(1) != str(want) or m.group(3) != str(want_part):
        fail(f"{name} on lmp: want {want} objects read, {want_part} of them in part ({which}; "
             f"liblammps.so only imports MPI_* and the I/O calls): {line!r}")
    with h5py.File(h5, "r") as f:
        names, rows = calls_and_rows(f["rank0"])
    mine = [r for r in rows if r[0] == "MPI_*"]
    libs = {os.path.basename(r[2]).split(".so")[0] for r in mine}
    if len(mine) < 300 or libs != {"libmpi"}:
        fail(f"{name} on lmp: {len(mine)} MPI_* functions in {sorted(libs)}, want 300+ in libmpi")
    io = {os.path.basename(r[2]).split(".so")[0] for r in rows if r[0].startswith("[io]")}
    if want == 2 and not {"libc", "libmpi"} <= io:
        fail(f"{name} on lmp: I/O calls found in {sorted(io)}, want libc's and libmpi's")
    if want == 1 and io:
        fail(f"{name} on lmp: I/O calls instrumented with io = off: {sorted(io)}")
    if names.get("MPI_Init") != 1:
        fail(f"{name} on lmp: MPI_Init recorded {names.get('MPI_Init')} times, want 1")
    return {r for r in rows if r[0].startswith("[io]")}


if __name__ == "__main__":
    main()
