#!/usr/bin/env python3
"""check_warnings.py CASE --preload LIB [--serial PROG] [--mpi PROG] [--np N]

Who prints the interposition engine's "matched no function" warnings (a
config naming the application's functions, `compute` and `MPI_Allreduce`):

  helpers  shells and helpers under LD_PRELOAD (`bash -c 'ls; env'`,
           `hostname`, `mpirun -n 2 hostname`, ...) print nothing on stderr,
           print what they print without the preload, and create nothing:
           no file, no folder, not the output's folder;
  serial   a serial target warns once, at exit: one line for the entry it
           does not have when another entry matched (its profile is
           written), one line when `include` names it and nothing matches
           (nothing written), one line for `mpirun -n 2` of it (rank 0);
           kind-mpi entries are not warned about in a program without MPI;
  mpi      `mpirun -n N` of an MPI program (C, and mpi4py, which dlopens
           libmpi: MPI entries match late and are not warned about), the
           preload on mpirun too: one warning line for the whole job (rank
           0, at MPI_Init), while every rank file's /rank<N>/interposition
           table still has the entry as 'not found'.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_check import (MPIRUN, CheckFailed, all_files, clean_env, expect,  # noqa: E402
                           expect_eq, run)

APP_CONFIG = "output = {out}\ncompute\nMPI_Allreduce\n"
WARN = re.compile(r"^scope: warning: '([^']*)' \(line (\d+)\) matched no function "
                  r"loaded at start")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def everything(root):
    """Files and folders below root (relative), the config file excepted."""
    out = []
    for d, dirs, files in os.walk(root):
        out += [os.path.relpath(os.path.join(d, x), root) for x in dirs + files]
    return sorted(x for x in out if x != "app.conf")


def warnings(stderr):
    """[(entry, line)] of the warning lines; fails on any other stderr line."""
    got = []
    for line in stderr.splitlines():
        m = WARN.match(line)
        if not m:
            raise CheckFailed(f"unexpected stderr line {line!r}")
        got.append((m[1], int(m[2])))
    return got


def without_scope_vars(text):
    return sorted(x for x in text.splitlines()
                  if not x.startswith(("LD_PRELOAD=", "SCOPE_")))


def cmd_helpers(a):
    with tempfile.TemporaryDirectory(prefix="scope-warn-") as tmp:
        conf = os.path.join(tmp, "app.conf")
        write(conf, APP_CONFIG.format(out=os.path.join(tmp, "out", "prof.h5")))
        base = clean_env()
        pre = clean_env(LD_PRELOAD=a.preload, SCOPE_CONFIG=conf)
        cases = [
            ["bash", "-c", "ls; env"],
            ["hostname"],
            ["sh", "-c", "cat /proc/self/comm; hostname"],
            ["/usr/bin/python3", "-c", "print('py')"],
            MPIRUN + ["-n", "2", "hostname"],
            MPIRUN + ["-n", "2", "bash", "-c", "ls; env | grep -c ."],
        ]
        for cmd in cases:
            label = " ".join(cmd)
            want = run(cmd, base, tmp)
            got = run(cmd, pre, tmp)
            expect_eq(got.returncode, want.returncode, f"{label}: exit status")
            if cmd[-1] == "ls; env":
                # env prints the preload's own variables; the rest is equal
                expect_eq(without_scope_vars(got.stdout), without_scope_vars(want.stdout),
                          f"{label}: output")
            elif "grep -c" not in label:
                expect_eq(sorted(got.stdout.splitlines()), sorted(want.stdout.splitlines()),
                          f"{label}: output")
            expect_eq(got.stderr, "", f"{label}: nothing on stderr")
            expect_eq(everything(tmp), [], f"{label}: nothing created")
        # A config named relative to the job's folder, and helpers that
        # run elsewhere (a script's cd, pyenv's shims): they find the same
        # file (the first process pins its absolute path), so they say
        # nothing either.
        rel = clean_env(LD_PRELOAD=a.preload, SCOPE_CONFIG="app.conf")
        for cmd in (["bash", "-c", "cd / && ls >/dev/null && hostname && bash -c 'cd /tmp; hostname'"],
                    ["sh", "-c", "cd /usr && /usr/bin/python3 -c \"import os; os.chdir('/'); os.system('hostname')\""]):
            label = " ".join(cmd)
            want = run(cmd, base, tmp)
            got = run(cmd, rel, tmp)
            expect_eq(got.returncode, want.returncode, f"{label}: exit status")
            expect_eq(got.stdout, want.stdout, f"{label}: output")
            expect_eq(got.stderr, "", f"{label} (relative SCOPE_CONFIG): nothing on stderr")
            expect_eq(everything(tmp), [], f"{label}: nothing created")


def cmd_serial(a):
    with tempfile.TemporaryDirectory(prefix="scope-warn-") as tmp:
        conf = os.path.join(tmp, "app.conf")
        out = os.path.join(tmp, "prof.h5")
        pre = clean_env(LD_PRELOAD=a.preload, SCOPE_CONFIG=conf)
        # `main` matches, `compte` does not: one warning, at exit
        write(conf, f"output = {out}\nmain\ncompte\nMPI_Allreduce\n")
        p = run([a.serial, "0"], pre, tmp, check_rc=0)
        expect_eq(warnings(p.stderr), [("compte", 3)], "serial target: its one warning")
        expect_eq(all_files(tmp), ["app.conf", "prof.h5", "prof.ranks/rank0.h5"],
                  "serial target: its profile")
        with h5py.File(os.path.join(tmp, "prof.ranks", "rank0.h5"), "r") as f:
            rows = [tuple(x.decode() if isinstance(x, bytes) else str(x) for x in r)
                    for r in f["rank0"]["interposition"][()]]
            # "[io] write": the I/O calls the I/O capture times by default
            expect_eq(sorted((r[0], r[4]) for r in rows
                             if r[0] != "main" and not r[0].startswith("[io] ")),
                      [("MPI_Allreduce", "not found"), ("compte", "not found")],
                      "serial target: the unmatched entries in the interposition table")
            expect_eq(len(f["rank0"]["regions"]["main"]["start_times"]), 1, "calls of main")
        os.remove(out)
        subprocess.run(["rm", "-rf", os.path.join(tmp, "prof.ranks")], check=True)
        # named by `include`, matching nothing: warned; its I/O calls are
        # recorded (issue 46: its printf, nothing else)
        write(conf, f"output = {out}\ninclude = {os.path.basename(a.serial)}\n"
                    "compute\nMPI_Allreduce\n")
        p = run([a.serial, "0"], pre, tmp, check_rc=0)
        expect_eq(warnings(p.stderr), [("compute", 3)], "included target: its one warning")
        expect_eq(all_files(tmp), ["app.conf", "prof.h5", "prof.ranks/rank0.h5"],
                  "included target: the profile of its I/O")
        with h5py.File(os.path.join(tmp, "prof.ranks", "rank0.h5"), "r") as f:
            regs = f["rank0"]["regions"]
            kinds = {k: regs[k].attrs["kind"] for k in regs}
            kinds = {k: v.decode() if isinstance(v, bytes) else str(v) for k, v in kinds.items()}
            expect_eq(set(kinds.values()), {"io"}, "included target: only I/O regions")
            expect_eq(len(regs["printf"]["start_times"]), 1, "included target: calls of printf")
        os.remove(out)
        subprocess.run(["rm", "-rf", os.path.join(tmp, "prof.ranks")], check=True)
        # and with `io = off`: nothing recorded, nothing written
        write(conf, f"output = {out}\ninclude = {os.path.basename(a.serial)}\nio = off\n"
                    "compute\nMPI_Allreduce\n")
        p = run([a.serial, "0"], pre, tmp, check_rc=0)
        expect_eq(warnings(p.stderr), [("compute", 4)], "included target, io off: its one warning")
        expect_eq(all_files(tmp), ["app.conf"], "included target that recorded nothing")
        # two processes of one job (no MPI_Init): launcher rank 0 warns
        p = run(MPIRUN + ["-n", "2", a.serial, "0"], pre, tmp, check_rc=0)
        expect_eq(warnings(p.stderr), [("compute", 4)], "mpirun -n 2 serial: one warning")
        expect_eq(all_files(tmp), ["app.conf"], "mpirun -n 2 serial: nothing written")
        # not included: a program the config is not about says nothing
        write(conf, f"output = {out}\ncompute\nMPI_Allreduce\n")
        p = run([a.serial, "0"], pre, tmp, check_rc=0)
        expect_eq(p.stderr, "", "a target matching nothing, not included: silent")
        expect_eq(all_files(tmp), ["app.conf"], "a target matching nothing: nothing written")


def cmd_mpi(a):
    progs = [("C", [a.mpi])]
    if a.mpi4py:
        # libmpi is dlopen'ed by mpi4py: MPI_Barrier matches only then, so
        # it must not be warned about at start
        progs.append(("mpi4py", ["/usr/bin/python3", a.mpi4py]))
    for label, prog in progs:
        mpi_job(a, label, prog)


def mpi_job(a, label, prog):
    with tempfile.TemporaryDirectory(prefix="scope-warn-") as tmp:
        conf = os.path.join(tmp, "app.conf")
        out = os.path.join(tmp, "prof.h5")
        write(conf, APP_CONFIG.format(out=out) + "MPI_Barrier\n")
        pre = clean_env(LD_PRELOAD=a.preload, SCOPE_CONFIG=conf)
        p = run(MPIRUN + ["-n", str(a.np)] + prog, pre, tmp, check_rc=0)
        expect_eq(warnings(p.stderr), [("compute", 2)],
                  f"{label}, {a.np} ranks: one warning line")
        ranks = [f"prof.ranks/rank{r}.h5" for r in range(a.np)]
        expect_eq(all_files(tmp), sorted(["app.conf", "prof.h5"] + ranks),
                  f"{label}: files of the job")
        for r in range(a.np):
            with h5py.File(os.path.join(tmp, ranks[r]), "r") as f:
                g = f[f"rank{r}"]
                rows = [tuple(x.decode() if isinstance(x, bytes) else str(x) for x in row)
                        for row in g["interposition"][()]]
                expect_eq([row[4] for row in rows if row[0] == "compute"], ["not found"],
                          f"rank {r}: 'compute' in the interposition table")
                expect_eq(len(g["regions"]["MPI_Barrier"]["start_times"]), 1,
                          f"rank {r}: calls of MPI_Barrier")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case", choices=["helpers", "serial", "mpi"])
    ap.add_argument("--preload", required=True)
    ap.add_argument("--serial")
    ap.add_argument("--mpi")
    ap.add_argument("--mpi4py")
    ap.add_argument("--np", type=int, default=4)
    a = ap.parse_args()
    for field in ("preload", "serial", "mpi", "mpi4py"):
        if getattr(a, field):
            setattr(a, field, os.path.abspath(getattr(a, field)))
    try:
        {"helpers": cmd_helpers, "serial": cmd_serial, "mpi": cmd_mpi}[a.case](a)
    except (CheckFailed, subprocess.TimeoutExpired, KeyError, OSError) as e:
        print(f"FAIL: {type(e).__name__}: {e}")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
