#!/usr/bin/env python3
"""check_sites.py PRELOAD PROG SOURCE_DIR OUTDIR

Runs prog_sites (PIE, -g, calling site_target in libsitelib.so from the
lines marked SITE_A x3, SITE_B x5 and, inside the library, SITE_LIB x7)
under the preload with `site_target callsites=2`, twice (two processes,
two address-space layouts), and asserts with h5py:

- /rank0/callsites holds exactly three paths; frame 0 of each is a
  (build-id, object, offset) whose offset, given to addr2line, is the
  marked line, in prog_sites (SITE_A, SITE_B) and in libsitelib.so
  (SITE_LIB); frame 1 of the library path is the SITE_VIA line of main;
- the callsite_ids column of site_target counts exactly 3, 5 and 7 calls
  per path, in call order;
- both runs store identical (build-id, object, offset) rows although the
  objects were loaded at different addresses (ASLR);
- the output of the program is unchanged.

With SCOPE_TOOL and SCOPE_SITE_READER_TEST set (meson sets both), also:
- test_site_reader (the reader API) passes on the profile;
- `scope callsites --format csv` gives exactly three rows, one per site,
  with 3, 5 and 7 calls, shares adding up to 1, and locations
  "from_a (prog_sites.c:<SITE_A>) <- main (prog_sites.c:<CALL_A>)" etc.;
- a copy of the program stripped with `strip --strip-debug` (symbol table
  kept, DWARF gone) gives "from_a+0x.. (prog_sd) <- main+0x.. (prog_sd)"
  with the offsets from nm, while the library keeps its file:line;
- a copy stripped with `strip -s` (no symbol table at all) gives
  "prog_s+0x<offset>";
- failure paths: a deleted object says "(object missing)", a replaced
  one "(build-id differs)"; bad usage exits 2, an unknown rank exits 1,
  each with its exact message; --top 1 keeps the largest row;
- `scope events --format csv|json` and `scope export --to chrome-trace`
  carry each call's immediate caller ("from_a (prog_sites.c:<SITE_A>)"
  x3, from_b x5, via_lib x7, in call order), and --no-call-sites drops
  the column.
"""
import json
import csv
import io
import shutil
import os
import re
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import io_call_names  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env  # noqa: E402


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def marker_lines(src_dir, kind="SITE"):
    lines = {}
    for name in ("prog_sites.c", "sitelib.c"):
        with open(os.path.join(src_dir, name)) as f:
            for i, text in enumerate(f, 1):
                m = re.search(r"/\* (" + kind + r"_\w+) \*/", text)
                if m:
                    lines[m.group(1)] = (name, i)
    return lines


def addr2line(obj, offset):
    # a return address: the call is the instruction before it
    out = subprocess.run(["addr2line", "-e", obj, hex(offset - 1)], capture_output=True,
                         text=True, check=True).stdout.strip()
    m = re.match(r"(.*):(\d+)", out)
    return (os.path.basename(m.group(1)), int(m.group(2))) if m else (out, 0)


def run_once(preload, prog, outdir, tag, extra_env=None):
    conf = os.path.join(outdir, "scope.conf")
    with open(conf, "w") as f:
        f.write("site_target callsites=2\n")
    env = clean_env(keep=("SCOPE_TRAMPOLINE",))
    env.update(extra_env or {})
    bare = subprocess.run([prog], env=env, capture_output=True, text=True, timeout=120)
    penv = dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=conf,
                SCOPE_OUTPUT=os.path.join(outdir, tag + ".h5"),
                SCOPE_H5WRITER=os.environ.get("SCOPE_H5WRITER", ""))
    p = subprocess.run([prog], env=penv, capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or p.stdout != bare.stdout:
        fail(f"profiled run: rc {p.returncode}, stdout {p.stdout!r} vs {bare.stdout!r}, "
             f"stderr {p.stderr!r}")
    with h5py.File(os.path.join(outdir, tag + ".h5"), "r") as f:
        rows = [(int(r["id"]), int(r["frame"]), int(r["depth"]), int(r["offset"]),
                 r["build_id"].decode(), r["object"].decode()) for r in f["rank0/callsites"][:]]
        ids = [int(x) for x in f["rank0/regions/site_target/callsite_ids"][:]]
    return rows, ids


def main():
    preload, prog, src_dir, outdir = (os.path.abspath(a) for a in sys.argv[1:5])
    want = marker_lines(src_dir)
    rows, ids = run_once(preload, prog, outdir, "a")
    paths = {}
    for pid, frame, depth, off, bid, obj in rows:
        paths.setdefault(pid, []).append((frame, depth, off, bid, obj))
    if sorted(paths) != [0, 1, 2]:
        fail(f"paths {sorted(paths)}, expected 3: {rows}")
    site_of = {}
    for pid, frames in paths.items():
        frames.sort()
        if [f[0] for f in frames] != [0, 1] or any(f[1] != 2 for f in frames):
            fail(f"path {pid}: frames {frames}")
        _, _, off, bid, obj = frames[0]
        if not re.fullmatch(r"[0-9a-f]{40}", bid):
            fail(f"path {pid}: build-id {bid!r}")
        loc = addr2line(obj, off)
        names = [k for k, v in want.items() if v == loc]
        if len(names) != 1:
            fail(f"path {pid}: frame 0 {obj}+{off:#x} is {loc}, not a marked line {want}")
        site_of[pid] = names[0]
        if names[0] == "SITE_LIB":
            if os.path.basename(obj) != "libsitelib.so":
                fail(f"SITE_LIB in {obj}")
            loc1 = addr2line(frames[1][4], frames[1][2])
            if loc1 != want["SITE_VIA"]:
                fail(f"SITE_LIB's caller is {loc1}, expected {want['SITE_VIA']}")
        elif os.path.realpath(obj) != os.path.realpath(prog):
            fail(f"{names[0]} in {obj}, expected {prog}")
    seq = [site_of.get(i, "none") for i in ids]
    if seq != ["SITE_A"] * 3 + ["SITE_B"] * 5 + ["SITE_LIB"] * 7:
        fail(f"call sites in call order: {seq}")
    rows2, ids2 = run_once(preload, prog, outdir, "b")
    if rows2 != rows or ids2 != ids:
        fail(f"a second run (other addresses) stored other rows:\n{rows}\n{rows2}")
    if os.environ.get("SCOPE_TOOL"):
        check_tools(preload, prog, src_dir, outdir, want, rows)
    print("check_sites: ok", {k: seq.count(k) for k in sorted(set(seq))})


def scope(*args, rc=0):
    p = subprocess.run([os.environ["SCOPE_TOOL"], *args], capture_output=True, text=True,
                       timeout=120)
    if p.returncode != rc:
        fail(f"scope {' '.join(args)}: rc {p.returncode} (expected {rc}), stderr {p.stderr!r}")
    return p


def callsite_rows(h5):
    out = scope("callsites", "--format", "csv", h5).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    return {r["location"]: r for r in rows}, rows


def nm_addrs(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    return {p[2]: int(p[0], 16) for p in (l.split() for l in out.splitlines()) if len(p) == 3}


def paths_of(rows):
    paths = {}
    for pid, frame, _, off, _, obj in rows:
        paths.setdefault(pid, {})[frame] = (off, obj)
    return paths


def expect_rows(h5, want_locs, what):
    got, rows = callsite_rows(h5)
    have = {loc: (int(r["site"]), int(r["calls"])) for loc, r in got.items()}
    if have != want_locs:
        fail(f"{what}: scope callsites gave\n{have}\nexpected\n{want_locs}")
    if any(r["region"] != "site_target" or r["rank"] != "all" for r in rows):
        fail(f"{what}: rows {rows}")
    return rows


def check_tools(preload, prog, src_dir, outdir, want, rows_a):
    h5 = os.path.join(outdir, "a.h5")
    t = subprocess.run([os.environ["SCOPE_SITE_READER_TEST"], "pie", h5], capture_output=True,
                       text=True, timeout=120)
    if t.returncode != 0:
        fail(f"test_site_reader: {t.stderr}")
    call = marker_lines(src_dir, "CALL")
    ln = {k: v[1] for k, v in want.items()}
    full = {f"from_a (prog_sites.c:{ln['SITE_A']}) <- main (prog_sites.c:{call['CALL_A'][1]})": (0, 3),
            f"from_b (prog_sites.c:{ln['SITE_B']}) <- main (prog_sites.c:{call['CALL_B'][1]})": (1, 5),
            f"via_lib (sitelib.c:{ln['SITE_LIB']}) <- main (prog_sites.c:{ln['SITE_VIA']})": (2, 7)}
    rows = expect_rows(h5, full, "-g build")
    share = sum(float(r["share"]) for r in rows)
    if abs(share - 1.0) > 1e-5:
        fail(f"shares add up to {share}")
    totals = [int(round(float(r["total"]) * 1e9)) for r in rows]
    if totals != sorted(totals, reverse=True):
        fail(f"rows not sorted by total: {totals}")
    top = list(csv.DictReader(io.StringIO(scope("callsites", "--top", "1", "--format", "csv",
                                                 h5).stdout)))
    if len(top) != 1 or top[0] != rows[0]:
        fail(f"--top 1 gave {top}, expected {rows[0]}")
    none = scope("callsites", "--region", "^nothing$", "--format", "csv", h5).stdout
    # the program's printf is an I/O call timed by default (issue 46): the
    # profile has I/O regions, so the byte columns of I/O are there
    if none != "region,rank,site,calls,total,mean,min,max,share,location,bytes_read,bytes_written\n":
        fail(f"--region matching nothing: {none!r}")

    # the callsite column of events and exports: frame 0 only
    seq = ([f"from_a (prog_sites.c:{ln['SITE_A']})"] * 3 + [f"from_b (prog_sites.c:{ln['SITE_B']})"] * 5
           + [f"via_lib (sitelib.c:{ln['SITE_LIB']})"] * 7)
    # (the program's printf, timed by default as an I/O call, is tests/io's)
    io_calls = io_call_names()
    ev = list(csv.DictReader(io.StringIO(scope("events", "--format", "csv", h5).stdout)))
    ev = [r for r in ev if r["name"] not in io_calls]
    if [r["callsite"] for r in ev] != seq:
        fail(f"events csv callsites: {[r.get('callsite') for r in ev]}")
    ev = json.loads(scope("events", "--format", "json", h5).stdout)["events"]
    ev = [r for r in ev if r["name"] not in io_calls]
    if [r["callsite"] for r in ev] != seq:
        fail(f"events json callsites: {ev}")
    # the program's printf, an I/O call, adds the four I/O columns at the end
    # (docs/cli.md)
    head = scope("events", "--no-call-sites", "--format", "csv", h5).stdout.splitlines()[0]
    if head != ("name,rank,call_index,start,end,duration,call_id,parent_id,thread,"
                "io_layer,io_file,io_bytes,io_offset"):
        fail(f"--no-call-sites header: {head!r}")
    head = scope("events", "--no-call-sites", "--no-io", "--format", "csv",
                 h5).stdout.splitlines()[0]
    if head != "name,rank,call_index,start,end,duration,call_id,parent_id,thread":
        fail(f"--no-call-sites --no-io header: {head!r}")
    trace = os.path.join(outdir, "trace.json")
    scope("export", h5, "--to", "chrome-trace", "-o", trace)
    with open(trace) as f:
        tr = [e for e in json.load(f)["traceEvents"] if e["ph"] == "X" and e["name"] not in io_calls]
    if [e["args"]["callsite"] for e in sorted(tr, key=lambda e: e["args"]["call_index"])] != seq:
        fail(f"chrome-trace callsites: {tr}")

    # stripped copies; the library stays as built (-g)
    syms = nm_addrs(prog)
    libenv = {"LD_LIBRARY_PATH": os.path.dirname(prog)}
    sd, ss = os.path.join(outdir, "prog_sd"), os.path.join(outdir, "prog_s")
    for dst, how in ((sd, "--strip-debug"), (ss, "-s")):
        shutil.copy(prog, dst)
        subprocess.run(["strip", how, dst], check=True)
    rows_sd, _ = run_once(preload, sd, outdir, "sd", libenv)
    rows_s, _ = run_once(preload, ss, outdir, "s", libenv)
    p = paths_of(rows_sd)
    lib = f"via_lib (sitelib.c:{ln['SITE_LIB']})"
    rel = lambda off, sym: hex(off - syms[sym])
    expect_rows(os.path.join(outdir, "sd.h5"), {
        f"from_a+{rel(p[0][0][0], 'from_a')} (prog_sd) <- main+{rel(p[0][1][0], 'main')} (prog_sd)": (0, 3),
        f"from_b+{rel(p[1][0][0], 'from_b')} (prog_sd) <- main+{rel(p[1][1][0], 'main')} (prog_sd)": (1, 5),
        f"{lib} <- main+{rel(p[2][1][0], 'main')} (prog_sd)": (2, 7)}, "strip --strip-debug")
    p = paths_of(rows_s)
    expect_rows(os.path.join(outdir, "s.h5"), {
        f"prog_s+{hex(p[0][0][0])} <- prog_s+{hex(p[0][1][0])}": (0, 3),
        f"prog_s+{hex(p[1][0][0])} <- prog_s+{hex(p[1][1][0])}": (1, 5),
        f"{lib} <- prog_s+{hex(p[2][1][0])}": (2, 7)}, "strip -s")
    # stripping moves no code: the same offsets as the -g build
    if [r[3] for r in rows_s] != [r[3] for r in rows_a]:
        fail(f"stripped offsets differ: {rows_s} vs {rows_a}")

    # failure paths: the object gone, the object replaced by another build
    os.unlink(sd)
    p = paths_of(rows_sd)
    expect_rows(os.path.join(outdir, "sd.h5"), {
        f"prog_sd+{hex(p[0][0][0])} (object missing) <- prog_sd+{hex(p[0][1][0])} (object missing)": (0, 3),
        f"prog_sd+{hex(p[1][0][0])} (object missing) <- prog_sd+{hex(p[1][1][0])} (object missing)": (1, 5),
        f"{lib} <- prog_sd+{hex(p[2][1][0])} (object missing)": (2, 7)}, "deleted object")
    shutil.copy(os.environ["SCOPE_SITE_READER_TEST"], ss)
    p = paths_of(rows_s)
    expect_rows(os.path.join(outdir, "s.h5"), {
        f"prog_s+{hex(p[0][0][0])} (build-id differs) <- prog_s+{hex(p[0][1][0])} (build-id differs)": (0, 3),
        f"prog_s+{hex(p[1][0][0])} (build-id differs) <- prog_s+{hex(p[1][1][0])} (build-id differs)": (1, 5),
        f"{lib} <- prog_s+{hex(p[2][1][0])} (build-id differs)": (2, 7)}, "replaced object")

    # usage and errors
    e = scope("callsites", rc=2).stderr
    if e != "scope: callsites: no profile path given (try 'scope callsites --help')\n":
        fail(f"no path: {e!r}")
    e = scope("callsites", "--format", "xml", h5, rc=2).stderr
    if e != "scope: callsites: unknown format 'xml' (table, csv or json) (try 'scope callsites --help')\n":
        fail(f"bad format: {e!r}")
    e = scope("callsites", "--rank", "9", h5, rc=1).stderr
    if e != "scope: no rank 9 in this profile\n":
        fail(f"unknown rank: {e!r}")


main()
