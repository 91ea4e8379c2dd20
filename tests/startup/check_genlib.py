#!/usr/bin/env python3
"""check_genlib.py PRELOAD N PROGRAM OUTDIR

Start-up at scale: PROGRAM calls each of the N generated functions of its
library (gen_funcs.py) exactly (i % 3) + 1 times. Runs it bare and under
PRELOAD with the one-line config `gen_f*`, requires the same output and
exit status, then checks with h5py that every function was found and
patched inline (the /rank0/interposition table has one `inline`/`patched`
row per function and nothing else) and that every call was counted: region
gen_f<i> holds exactly (i % 3) + 1 calls, and there is no other gen_ region.
"""
import os
import subprocess
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env  # noqa: E402


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def main():
    preload, n, prog, out = (os.path.abspath(sys.argv[1]), int(sys.argv[2]),
                             os.path.abspath(sys.argv[3]), os.path.abspath(sys.argv[4]))
    conf = os.path.join(out, "gen.conf")
    with open(conf, "w") as f:
        f.write("gen_f*\n")
    env = clean_env(keep=("SCOPE_TRAMPOLINE",))
    bare = subprocess.run([prog], env=env, cwd=out, capture_output=True, timeout=600)
    penv = dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=conf, SCOPE_VERBOSE="1",
                SCOPE_OUTPUT=os.path.join(out, "gen.h5"))
    if os.environ.get("SCOPE_H5WRITER"):
        penv["SCOPE_H5WRITER"] = os.environ["SCOPE_H5WRITER"]
    prof = subprocess.run([prog], env=penv, cwd=out, capture_output=True, timeout=600)
    err = prof.stderr.decode(errors="replace")
    sys.stderr.write("".join(l + "\n" for l in err.splitlines()
                             if "start-up" in l or "gen_f*" in l))
    if bare.returncode != 0 or prof.returncode != 0:
        fail(f"exit status {prof.returncode} profiled, {bare.returncode} bare:\n{err}")
    if bare.stdout != prof.stdout:
        fail(f"output differs: {bare.stdout!r} bare, {prof.stdout!r} profiled")
    want_line = f"scope: 'gen_f*' (line 1): {n} inline, 0 GOT, 0 refused: "
    if not any(l.startswith(want_line) for l in err.splitlines()):
        fail(f"no line starting {want_line!r} on stderr")
    # " for N functions (index" or, with the I/O capture's own functions
    # (issue 46), " for N functions and M of the captures' own (index"
    if not any(l.startswith("scope: start-up: ") and f" for {n} functions " in l
               for l in err.splitlines()):
        fail(f"no start-up timing line for {n} functions on stderr")
    with h5py.File(os.path.join(out, "gen.h5"), "r") as f:
        r = f["rank0"]
        counts = {}
        for link, g in r["regions"].items():
            name = text(g.attrs.get("name", link))
            if name.startswith("gen_"):
                counts[name] = len(g["start_times"])
        rows = [tuple(text(x) for x in row) for row in r["interposition"][()]]
    want = {"gen_f%05d" % i: i % 3 + 1 for i in range(n)}
    if counts != want:
        missing = sorted(set(want) - set(counts))[:5]
        wrong = sorted(k for k in counts if counts[k] != want.get(k))[:5]
        fail(f"{len(counts)} gen_ regions, want {n}; missing {missing}; wrong counts "
             f"{[(k, counts[k], want.get(k)) for k in wrong]}")
    patched = {row[1] for row in rows if row[0] == "gen_f*" and row[3] == "inline"
               and row[4] == "patched"}
    others = [row for row in rows if row[0] == "gen_f*" and row[1] not in want]
    if patched != set(want) or others or len([r for r in rows if r[0] == "gen_f*"]) != n:
        fail(f"interposition table: {len(patched)} of {n} patched inline; other rows "
             f"{others[:3]}")
    print(f"ok: {n} functions patched inline, {sum(want.values())} calls counted exactly")


if __name__ == "__main__":
    main()
