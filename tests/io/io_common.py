"""io_common.py - what the checkers of tests/io share: run a program
under an MPI's launcher (4 ranks) or alone, bare and under the preload,
compare what it printed and its exit status, and read back what its I/O
calls did through the Python module (scope_reader: io_calls(), io()).

    res = profile(scope, preload, mpi, prog_args, outdir)
    calls = res.p.io_calls()          # a pandas DataFrame, one row per call
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, fail  # noqa: E402,F401

N = 4
LAUNCHER_VARS = ("OMPI_", "PMI_", "PMIX_", "SLURM_", "MV2_", "PALS_", "ALPS_", "FLUX_", "JSM_")


def launcher(mpi, n=N):
    """The command that starts n ranks under `mpi` ("openmpi", "mpich"),
    or nothing for "serial"."""
    if mpi == "openmpi":
        return ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "btl_tcp_if_include",
                "lo", "--mca", "oob_tcp_if_include", "lo", "-n", str(n)]
    if mpi == "mpich":
        return ["mpirun.mpich", "-n", str(n)]
    return []


def run(cmd, env, cwd, limit=600):
    try:
        return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        fail(f"{cmd}: still running after {limit} s")


class Run:
    pass


def chars(text):
    return sorted(c for c in text if not c.isspace())


def profile(scope, preload, mpi, argv, outdir, config=None, extra_env=None, bare=True,
            name="p", n=N, limit=600):
    """Runs argv (a program and its arguments) under `mpi`'s launcher,
    bare (unless bare=False) and under the preload with `config` (text,
    None: the built-in default) into outdir/name.h5; fails on a different
    exit status or output. Returns a Run: out (the index), p (the opened
    profile), stdout, env."""
    import scope_reader
    os.makedirs(outdir, exist_ok=True)
    outdir = os.path.abspath(outdir)
    env = clean_env(drop=LAUNCHER_VARS, mpi_root=True, **(extra_env or {}))
    cmd = launcher(mpi, n) + argv
    if bare:
        b = run(cmd, env, outdir, limit)
        if b.returncode != 0:
            fail(f"the bare run failed ({b.returncode}): {b.stdout} {b.stderr}")
    out = os.path.join(outdir, name + ".h5")
    penv = dict(env, SCOPE_OUTPUT=out, LD_PRELOAD=os.path.abspath(preload))
    penv.pop("SCOPE_CONFIG", None)
    if config is not None:
        conf = os.path.join(outdir, name + ".conf")
        with open(conf, "w") as f:
            f.write(config)
        penv["SCOPE_CONFIG"] = conf
    prof = run(cmd, penv, outdir, limit)
    if prof.returncode != 0:
        fail(f"exit status {prof.returncode} under scope: {prof.stdout} {prof.stderr}")
    if bare and chars(prof.stdout) != chars(b.stdout):
        fail(f"stdout differs:\n{prof.stdout}\n--- bare:\n{b.stdout}")
    r = Run()
    r.scope = os.path.abspath(scope) if os.path.exists(scope) else scope
    r.out, r.env, r.outdir, r.stdout, r.stderr = out, penv, outdir, prof.stdout, prof.stderr
    r.p = scope_reader.read_h5(out)
    return r


def expect(got, want, what):
    if got != want:
        fail(f"{what}: got {got!r}, want {want!r}")


def io_bytes_by_region(res, sites=False):
    """{region: (bytes read, bytes written)} of every I/O region that moved
    data, three ways: from io_calls() (by hand), from `scope summary
    --format csv` and from `scope callsites --format csv` (its sites
    summed; sites: the profile has call sites, else callsites lists no
    region and is not asked); fails unless they agree. Returns the first."""
    import csv
    import io as _io
    calls = res.p.io_calls()
    want = {}
    for (name, cls), g in calls.groupby(["name", "cls"]):
        if cls in ("io_read", "io_write") and int(g["bytes"].sum()):
            r, w = want.get(name, (0, 0))
            b = int(g["bytes"].sum())
            want[name] = (r + b, w) if cls == "io_read" else (r, w + b)
    env = {k: v for k, v in res.env.items() if k != "LD_PRELOAD"}
    for cmd in ("summary", "callsites") if sites else ("summary",):
        out = run([res.scope, cmd, "--format", "csv", res.out], env, res.outdir)
        if out.returncode != 0:
            fail(f"scope {cmd}: {out.stderr}")
        got = {}
        for row in csv.DictReader(_io.StringIO(out.stdout)):
            if "bytes_read" not in row:
                fail(f"scope {cmd}: no bytes_read column: {out.stdout[:200]}")
            r, w = got.get(row["region"], (0, 0))
            got[row["region"]] = (r + int(row["bytes_read"]), w + int(row["bytes_written"]))
        got = {k: v for k, v in got.items() if v != (0, 0)}
        expect(got, want, f"scope {cmd}: bytes read and written per I/O region")
    return want


def counts(frame, **where):
    """{call name: (calls, bytes)} of the rows of `frame` matching where."""
    sel = frame
    for k, v in where.items():
        sel = sel[sel[k] == v]
    out = {}
    for name, g in sel.groupby("name"):
        out[name] = (len(g), int(g["bytes"].sum()))
    return out
