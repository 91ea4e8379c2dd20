#!/usr/bin/env python3
"""check_patch.py CASE PRELOAD PROGRAM... OUTDIR

Runs one interposition case: writes the case's config into OUTDIR, runs the
program bare and under PRELOAD (LD_PRELOAD + SCOPE_CONFIG + SCOPE_OUTPUT),
requires byte-identical stdout and exit status, then opens the profile with
h5py and checks the exact count of every region, its kind, the nesting the
case implies, and the /rank0/interposition rows. Exits 1 with a message on
the first difference.
"""
import os
import subprocess
import sys

import h5py
import numpy as np

BASIC = ["depth", "vsum", "vfmt", "many", "ffun", "dfun", "ldfun", "mkbig",
         "mkpair", "by_pointer", "tail_inner", "tail_outer", "exported_add", "tiny"]
BASIC_COUNTS = {"depth": 10000, "vsum": 3, "vfmt": 1, "many": 2, "ffun": 1,
                "dfun": 1, "ldfun": 1, "mkbig": 1, "mkpair": 1,
                "by_pointer": 5, "tail_inner": 4, "tail_outer": 4,
                "exported_add": 2}

CASES = {
    "basic_pie": dict(config="\n".join(BASIC), counts=BASIC_COUNTS,
                      nested=[("tail_inner", "tail_outer")],
                      max_depth={"depth": 10000},
                      refused={"tiny": "function is 4 bytes, shorter than the 5-byte patch"}),
    "basic_nopie": dict(config="\n".join(BASIC), counts=BASIC_COUNTS,
                        nested=[("tail_inner", "tail_outer")],
                        max_depth={"depth": 10000},
                        refused={"tiny": "function is 4 bytes, shorter than the 5-byte patch"}),
    "basic_stripped": dict(config="\n".join(BASIC),
                           counts={"exported_add": 2},
                           not_found=[n for n in BASIC if n not in ("exported_add", "tiny")],
                           refused={"tiny": "function is 4 bytes, shorter than the 5-byte patch"}),
}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd, env, cwd):
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    return p.returncode, p.stdout, p.stderr


def regions_of(path):
    """{name: (starts, ends, threads, kind)} of rank 0."""
    out = {}
    with h5py.File(path, "r") as f:
        r = f["rank0"]
        for link, g in r["regions"].items():
            name = g.attrs.get("name", link)
            if isinstance(name, bytes):
                name = name.decode()
            kind = g.attrs.get("kind", b"")
            if isinstance(kind, bytes):
                kind = kind.decode()
            s = np.asarray(g["start_times"][()])
            e = np.asarray(g["end_times"][()])
            t = np.asarray(g["thread_ids"][()]) if "thread_ids" in g else np.zeros(len(s), int)
            out[name] = (s, e, t, kind)
        rows = []
        if "interposition" in r:
            tab = r["interposition"][()]
            for row in tab:
                rows.append(tuple(x.decode() if isinstance(x, bytes) else str(x) for x in row))
    return out, rows


def max_nesting(s, e):
    ev = sorted([(x, 1) for x in s] + [(x, -1) for x in e], key=lambda p: (p[0], p[1]))
    d = m = 0
    for _, k in ev:
        d += k
        m = max(m, d)
    return m


def main():
    case, outdir = sys.argv[1], os.path.abspath(sys.argv[-1])
    preload, prog = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    c = CASES[case]
    conf = os.path.join(outdir, "scope.conf")
    with open(conf, "w") as f:
        f.write(c["config"] + "\n")
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("SCOPE_") or k == "LD_PRELOAD":
            del env[k]
    rc0, out0, err0 = run([prog], env, outdir)
    penv = dict(env, LD_PRELOAD=preload, SCOPE_H5WRITER=os.environ.get("SCOPE_H5WRITER", ""), SCOPE_CONFIG=conf,
                SCOPE_OUTPUT=os.path.join(outdir, "p.h5"), SCOPE_VERBOSE="1")
    rc1, out1, err1 = run([prog], penv, outdir)
    sys.stderr.write(err1.decode(errors="replace"))
    if rc0 != rc1:
        fail(f"exit status {rc1} under the preload, {rc0} bare")
    if out0 != out1:
        fail(f"output differs:\n--- bare\n{out0!r}\n--- profiled\n{out1!r}")
    regs, rows = regions_of(os.path.join(outdir, "p.h5"))
    got = {n: len(v[0]) for n, v in regs.items()}
    if got != c["counts"]:
        fail(f"counts {got}, expected {c['counts']}")
    for n, (s, e, t, kind) in regs.items():
        if np.any(e < s):
            fail(f"{n}: an end before its start")
        want = c.get("kinds", {}).get(n, "function")
        if kind != want:
            fail(f"{n}: kind {kind!r}, expected {want!r}")
    for inner, outer in c.get("nested", []):
        si, ei, _, _ = regs[inner]
        so, eo, _, _ = regs[outer]
        for a, b in zip(si, ei):
            if not np.any((so <= a) & (b <= eo)):
                fail(f"a call of {inner} at {a} is not inside any {outer}")
    for n, d in c.get("max_depth", {}).items():
        m = max_nesting(*regs[n][:2])
        if m != d:
            fail(f"{n}: nesting depth {m}, expected {d}")
    status = {}
    for row in rows:
        status.setdefault(row[0], []).append(row)
    for n in c.get("not_found", []):
        r = status.get(n)
        if not r or r[0][4] != "not found":
            fail(f"{n}: interposition rows {r}, expected 'not found'")
        if f"'{n}'" not in err1.decode():
            fail(f"no warning for {n} on stderr")
    for n, why in c.get("refused", {}).items():
        r = status.get(n)
        if not r or r[0][4] != "refused" or r[0][5] != why:
            fail(f"{n}: interposition rows {r}, expected refused: {why}")
    for n in c["counts"]:
        r = [x for x in rows if x[1] == n or x[0] == n]
        if not r or r[0][4] != "patched":
            fail(f"{n}: interposition rows {r}, expected 'patched'")
    print(f"ok: {case}: {sum(got.values())} events in {len(got)} regions")


main()
