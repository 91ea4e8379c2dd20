"""moved_common.py - what check_rma.py, check_neighbor.py, check_pcoll.py
and check_fbind.py share: run a program with 4 ranks under an MPI's
launcher bare and under the preload (config `MPI_*`, or the caller's),
compare what the program printed and its exit status, and compare the
data columns of every MPI region of every rank, and each rank's
communicator table, with tables derived by hand
(docs/format.md "What MPI calls moved"); then `scope summary`'s byte
totals and the Python module's.

    res = profile(sys.argv[1:7])        # SCOPE PRELOAD MPI LANG PROGRAM OUTDIR
    got = check_columns(res, expected)  # expected(rank) -> {region: [row...]}
    check_comms(res, sizes, members, creators)
"""
import csv
import io
import os
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from check_comm import LAUNCHER_VARS, N, launcher, row, run, same  # noqa: E402,F401
from checker import clean_env, fail  # noqa: E402

COLS = ("bytes_sent", "bytes_received", "dest", "source", "tag", "comm")


class Run:
    pass


def chars(text):
    """The characters of `text` but white space, sorted."""
    return sorted(c for c in text if not c.isspace())


def profile(args, config="MPI_*\n", name="p"):
    """Runs the program bare and profiled (with `config`, into `name`.h5;
    config None: no config file, the built-in default); returns a Run with
    scope, mpi, lang, out (the index), ranks_dir, env, outdir, stdout."""
    scope, preload, mpi, lang, prog, outdir = args
    scope, preload, prog = map(os.path.abspath, (scope, preload, prog))
    os.makedirs(outdir, exist_ok=True)
    outdir = os.path.abspath(outdir)
    env = clean_env(drop=LAUNCHER_VARS, mpi_root=True)
    bare = run(launcher(mpi) + [prog], env, outdir)
    out = os.path.join(outdir, name + ".h5")
    penv = dict(env, SCOPE_OUTPUT=out, LD_PRELOAD=preload)
    penv.pop("SCOPE_CONFIG", None)
    if config is not None:
        conf = os.path.join(outdir, name + ".conf")
        with open(conf, "w") as f:
            f.write(config)
        penv["SCOPE_CONFIG"] = conf
    prof = run(launcher(mpi) + [prog], penv, outdir)
    if bare.returncode != 0:
        fail(f"the bare run failed ({bare.returncode}): {bare.stdout} {bare.stderr}")
    if prof.returncode != bare.returncode:
        fail(f"exit status {prof.returncode} under scope, {bare.returncode} bare: {prof.stderr}")
    # the ranks' lines in any order; MPICH's launcher, loaded, can also
    # interleave the ranks' lines within a line: compare the characters
    if chars(prof.stdout) != chars(bare.stdout):
        fail(f"stdout differs:\n{prof.stdout}\n--- bare:\n{bare.stdout}\n--- bare stderr:\n"
             f"{bare.stderr}")
    r = Run()
    r.scope, r.mpi, r.lang, r.out, r.env, r.outdir = scope, mpi, lang, out, env, outdir
    r.ranks_dir = out[:-3] + ".ranks"
    r.stdout = prof.stdout
    return r


def check_columns(res, expected):
    """Every region of every rank against expected(rank) ({region: rows});
    a region the table does not name must have no data columns. Returns
    {rank: {region: rows got}}."""
    got_all = {}
    for r in range(N):
        want = expected(r)
        got_all[r] = {}
        with h5py.File(os.path.join(res.ranks_dir, f"rank{r}.h5"), "r") as f:
            g = f[f"rank{r}/regions"]
            for name in g:
                has = "bytes_sent" in g[name]
                if name not in want:
                    if has:
                        fail(f"rank {r} {name}: data columns on a call that moves nothing")
                    continue
                if not has:
                    fail(f"rank {r} {name}: no data columns")
                got = list(zip(*(g[name][k][:].tolist() for k in COLS)))
                if not same(got, want[name]):
                    fail(f"rank {r} {name}:\n got  {got}\n want {want[name]}")
                got_all[r][name] = got
            missing = set(want) - set(g)
            if missing:
                fail(f"rank {r}: no region {sorted(missing)}")
    print("columns: every call of every rank as derived")
    return got_all


def check_comms(res, sizes, members, creators):
    """Each rank's communicator table: sizes, members (world ranks, row
    after row) and creating calls; each argument a function of the rank."""
    for r in range(N):
        with h5py.File(os.path.join(res.ranks_dir, f"rank{r}.h5"), "r") as f:
            cm = f[f"rank{r}/communicators"]
            got = (cm["size"][:].tolist(), cm["members"][:].tolist(),
                   [x.decode() for x in bytes(cm["creators"][:]).split(b"\0")[:-1]])
            want = (sizes(r), members(r), creators(r))
            if got != want:
                fail(f"rank {r} communicators (sizes, members, creators):\n got  {got}\n"
                     f" want {want}")
    print("communicators: members and creating calls as derived")


def totals_of(got_all):
    """{region: [bytes sent, bytes received]} over the ranks."""
    t = {}
    for regions in got_all.values():
        for name, rows in regions.items():
            x = t.setdefault(name, [0, 0])
            x[0] += sum(c[0] for c in rows)
            x[1] += sum(c[1] for c in rows)
    return t


def check_totals(res, got_all):
    """`scope summary --format csv` and the Python module give the byte
    totals of the columns."""
    totals = totals_of(got_all)
    r = run([res.scope, "summary", "--format", "csv", res.out], res.env, res.outdir)
    if r.returncode != 0:
        fail(f"scope summary: {r.stderr}")
    summ = {x["region"]: x for x in csv.DictReader(io.StringIO(r.stdout))}
    for name, (s, rcv) in totals.items():
        if int(summ[name]["bytes_sent"]) != s or int(summ[name]["bytes_received"]) != rcv:
            fail(f"scope summary {name}: {summ[name]} want sent {s} received {rcv}")
    import scope_reader
    p = scope_reader.read_h5(res.out)
    for name, (s, rcv) in totals.items():
        if (p[name].bytes_sent, p[name].bytes_received) != (s, rcv):
            fail(f"python {name}: {p[name].bytes_sent}, {p[name].bytes_received} want {s}, {rcv}")
    p.close()
    print("scope summary and python: the byte totals of the columns")
    return totals


def check_no_p2p(res, what):
    """`scope comm --format csv` has the header and no pair: `what` (the
    program's calls) is not point-to-point traffic."""
    r = run([res.scope, "comm", "--format", "csv", res.out], res.env, res.outdir)
    if r.returncode != 0 or r.stdout.strip() != "sender,receiver,messages,bytes":
        fail(f"scope comm: {what} in the point-to-point matrix: {r.stdout} {r.stderr}")
