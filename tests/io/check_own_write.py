"""check_own_write.py - prog_own_write.c, a stripped program exporting its
own write(), under the preload (its process recorded by `include`): the
engine finds the I/O capture's exact names in objects it does not read
whole (object_filter.c: the program, whose only user entry cannot match
there, and libc are taken in part from their mapped tables), so the
program's own write is timed as a POSIX write: 10 calls, 60 bytes on
own.dat, and the I/O functions instrumented, and how, are the same when an
entry qualified by the program's name makes the engine read it whole.

usage: check_own_write.py SCOPE PRELOAD PROG OUTDIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_common import counts, expect, fail, profile  # noqa: E402


def io_rows(res):
    """The [io] interposition rows of rank 0, as tuples of str."""
    import h5py
    with h5py.File(res.out, "r") as f:
        g = f["rank0"]
        rows = [tuple(x.decode() if isinstance(x, bytes) else str(x) for x in row)
                for row in g["interposition"][()]]
    return {r for r in rows if r[0].startswith("[io]")}


def main():
    scope, preload, prog, outdir = sys.argv[1:5]
    outdir = os.path.abspath(outdir)
    data = os.path.join(outdir, "data")
    os.makedirs(data, exist_ok=True)
    name = os.path.basename(prog)
    runs = {}
    for label, extra in (("in part", ""), ("whole", f"{name}:scope_no_such_function\n")):
        res = profile(scope, preload, "serial", [os.path.abspath(prog), data], outdir,
                      config=f"include = {name}*\n" + extra, name=label.replace(" ", "_"),
                      extra_env={"SCOPE_VERBOSE": "1"})
        line = next((l for l in res.stderr.splitlines() if "start-up:" in l), "")
        if label == "in part" and " 2 in part" not in line:
            fail(f"the program and libc taken in part, want '2 in part': {line!r}")
        if label == "whole" and " 1 in part" not in line:
            fail(f"the program read whole, libc in part, want '1 in part': {line!r}")
        calls = res.p.io_calls()
        got = {os.path.basename(f): counts(calls, file=f) for f in sorted(set(calls["file"]))}
        expect(got.get("own.dat"), {"open": (1, 0), "write": (10, 60), "close": (1, 0)},
               f"own.dat's calls ({label})")
        rows = io_rows(res)
        mine = {r for r in rows if r[1] == "write" and os.path.basename(r[2]) == name}
        if len(mine) != 1 or next(iter(mine))[4] != "patched":
            fail(f"the program's own write ({label}): {sorted(mine)}")
        runs[label] = rows
    if runs["in part"] != runs["whole"]:
        fail("the I/O functions instrumented differ: only in part "
             f"{sorted(runs['in part'] - runs['whole'])[:4]}, only whole "
             f"{sorted(runs['whole'] - runs['in part'])[:4]}")
    print("ok: a stripped program's own write() found in its mapped tables and timed")


main()
