"""check_events.py - prog_mpiio.c under Open MPI, 4 ranks: what `scope
events --io` (csv, json) and the Chrome trace (`scope export --to
chrome-trace`) show of each I/O call. Per rank, the MPI-IO calls with
their file, bytes and offsets are the program's design (check_mpiio.py's
expected(), by hand); every I/O call of every layer is listed once, with
the layer, file and bytes the reader's io_calls() gives it; the Chrome
trace puts exactly those calls in category "io" with a colour of their
own.

usage: check_events.py SCOPE PRELOAD PROG OUTDIR
"""
import csv
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_mpiio import expected  # noqa: E402
from io_common import N, expect, fail, profile, run  # noqa: E402


def scope(res, *args):
    env = {k: v for k, v in res.env.items() if k != "LD_PRELOAD"}
    out = run([res.scope, *args], env, res.outdir)
    if out.returncode != 0 or out.stderr:
        fail(f"scope {args}: {out.returncode} {out.stderr}")
    return out.stdout


def tally(rows):
    """{(rank, name): (calls, bytes)} and {(rank, name): [offsets]} and
    {(rank, name): {layer}} and {(rank, name): {file}} of rows: dicts with
    rank, name, layer, file, bytes, offset (None: none)."""
    n, offs, layers, files = {}, {}, {}, {}
    for x in rows:
        k = (int(x["rank"]), x["name"])
        c, b = n.get(k, (0, 0))
        n[k] = (c + 1, b + int(x["bytes"]))
        offs.setdefault(k, []).append(x["offset"])
        layers.setdefault(k, set()).add(x["layer"])
        files.setdefault(k, set()).add(x["file"])
    return n, offs, layers, files


def check(what, rows, calls, shared):
    n, offs, layers, files = tally(rows)
    # every I/O call once, as the reader has it
    want = tally({"rank": r, "name": m, "layer": l, "file": f, "bytes": b,
                  "offset": None if o is None else int(o)}
                 for r, m, l, f, b, o in zip(calls["rank"], calls["name"], calls["layer"],
                                             calls["file"], calls["bytes"],
                                             calls["offset"].astype(object).where(
                                                 calls["offset"].notna(), None)))
    expect(n, want[0], f"{what}: I/O calls and bytes per (rank, call)")
    expect(offs, want[1], f"{what}: offsets per (rank, call)")
    expect(layers, want[2], f"{what}: layers per (rank, call)")
    expect(files, want[3], f"{what}: files per (rank, call)")
    # the MPI-IO calls as the program made them
    design, doffs = expected("c", "openmpi")
    for r in range(N):
        got = {m: v for (rr, m), v in n.items() if rr == r and m.startswith("MPI_File")}
        expect(got, design, f"{what}: rank {r}: MPI-IO calls and bytes")
        expect(sum(v[0] for v in got.values()), 15, f"{what}: rank {r}: MPI-IO calls")
        expect(sum(v[1] for v in got.values()), 578, f"{what}: rank {r}: MPI-IO bytes")
        for m in design:
            expect(files[(r, m)], {shared}, f"{what}: rank {r}: {m}'s file")
            expect(layers[(r, m)], {"mpiio"}, f"{what}: rank {r}: {m}'s layer")
        for m, f in doffs.items():
            expect(offs[(r, m)], f(r), f"{what}: rank {r}: {m}'s offset")


def main():
    scope_exe, preload, prog, outdir = sys.argv[1:5]
    outdir = os.path.abspath(outdir)
    data = os.path.join(outdir, "data")
    os.makedirs(data, exist_ok=True)
    res = profile(scope_exe, preload, "openmpi", [os.path.abspath(prog), data], outdir,
                  bare=False)
    shared = os.path.join(data, "mpiio.dat")
    calls = res.p.io_calls()
    if (calls["layer"] == "posix").sum() == 0:
        fail("no POSIX call recorded under MPI-IO")

    # csv: the four columns last, empty for calls that are no I/O call; by
    # default, since the run recorded I/O calls
    text = scope(res, "events", "--no-call-ids", "--format", "csv", res.out)
    rows = list(csv.DictReader(io.StringIO(text)))
    expect(text.split("\n", 1)[0].split(",")[-4:], ["io_layer", "io_file", "io_bytes", "io_offset"],
           "csv header's last columns")
    ior = [dict(rank=x["rank"], name=x["name"], layer=x["io_layer"], file=x["io_file"],
                bytes=x["io_bytes"], offset=int(x["io_offset"]) if x["io_offset"] else None)
           for x in rows if x["io_layer"]]
    mpi = [x for x in rows if x["name"] in ("MPI_Init", "MPI_Barrier")]
    if not mpi or any(x["io_file"] or x["io_bytes"] for x in mpi):
        fail(f"csv: MPI calls with I/O cells: {mpi[:2]}")
    check("events csv", ior, calls, shared)
    # --no-io: the columns of a run without I/O; --io (the default here) the same text
    head = scope(res, "events", "--no-io", "--no-call-ids", "--format", "csv",
                 res.out).split("\n", 1)[0]
    if "io_bytes" in head:
        fail(f"csv with --no-io has the I/O columns: {head}")
    expect(scope(res, "events", "--io", "--no-call-ids", "--format", "csv", res.out), text,
           "csv with --io")

    # the table: an io column (before the callsite), "<layer> <bytes> B <file>"
    table = scope(res, "events", "--no-call-ids", "--wide", res.out).splitlines()
    expect(table[0].split()[-2:] in (["io"], ["io", "callsite"]) or
           table[0].split()[-1] == "io", True, "table header's io column")
    ncol = table[0].index("  io") + 2
    tio = [ln[ncol:ncol + 40].split() for ln in table[1:] if ln[ncol:ncol + 40].strip()]
    expect(len(tio), len(ior), "table: rows with an io cell")
    want = sorted((x["layer"], x["bytes"]) for x in ior)
    expect(sorted((c[0], c[1]) for c in tio), want, "table: each I/O call's layer and bytes")
    if any(c[2] != "B" for c in tio):
        fail(f"table: an io cell not '<layer> <bytes> B <file>': {tio[:2]}")

    # json: the keys on I/O calls only
    ev = json.loads(scope(res, "events", "--no-call-ids", "--format", "json",
                          res.out))["events"]
    ioj = [dict(rank=x["rank"], name=x["name"], layer=x["io_layer"], file=x["io_file"],
                bytes=x["io_bytes"], offset=x.get("io_offset")) for x in ev if "io_layer" in x]
    check("events json", ioj, calls, shared)
    expect(len(ev) - len(ioj), len(rows) - len(ior), "json: calls that are no I/O call")

    # the Chrome trace
    trace = os.path.join(outdir, "trace.json")
    scope(res, "export", "--to", "chrome-trace", "-o", trace, res.out)
    with open(trace) as f:
        tev = json.load(f)["traceEvents"]
    x = [e for e in tev if e["ph"] == "X"]
    cio = [e for e in x if e["cat"] == "io"]
    if any(e.get("cname") != "thread_state_iowait" for e in cio):
        fail("chrome-trace: an I/O call without the I/O colour")
    if any("cname" in e or "bytes" in e["args"] for e in x if e["cat"] != "io"):
        fail("chrome-trace: a call that is no I/O call with the I/O colour or bytes")
    check("chrome-trace", [dict(rank=e["pid"], name=e["name"], layer=e["args"]["layer"],
                                file=e["args"]["file"], bytes=e["args"]["bytes"],
                                offset=e["args"].get("offset")) for e in cio], calls, shared)
    per_rank = [sum(1 for e in cio if e["pid"] == r) for r in range(N)]
    expect(per_rank, [int((calls["rank"] == r).sum()) for r in range(N)],
           "chrome-trace: I/O calls per rank")
    print(f"ok: events csv/json and chrome-trace: {len(cio)} I/O calls, per rank {per_rank}, "
          f"15 MPI-IO calls of 578 bytes on each rank")


main()
