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
"""
import os
import re
import subprocess
import sys

import h5py
import numpy as np


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def marker_lines(src_dir):
    lines = {}
    for name in ("prog_sites.c", "sitelib.c"):
        with open(os.path.join(src_dir, name)) as f:
            for i, text in enumerate(f, 1):
                m = re.search(r"/\* (SITE_\w+) \*/", text)
                if m:
                    lines[m.group(1)] = (name, i)
    return lines


def addr2line(obj, offset):
    # a return address: the call is the instruction before it
    out = subprocess.run(["addr2line", "-e", obj, hex(offset - 1)], capture_output=True,
                         text=True, check=True).stdout.strip()
    m = re.match(r"(.*):(\d+)", out)
    return (os.path.basename(m.group(1)), int(m.group(2))) if m else (out, 0)


def run_once(preload, prog, outdir, tag):
    conf = os.path.join(outdir, "scope.conf")
    with open(conf, "w") as f:
        f.write("site_target callsites=2\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOPE_") and k != "LD_PRELOAD"}
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
    print("check_sites: ok", {k: seq.count(k) for k in sorted(set(seq))})


main()
