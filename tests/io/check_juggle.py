"""check_juggle.py - prog_juggle.c (a serial program the config names)
under the preload: its descriptor juggling (close_range from 3 up, dup2
onto descriptor 0, closefrom) loses nothing of the profile (every call,
no event dropped) and misattributes nothing (the writes through 0 are
b.dat's, not <STDIN>'s), and nothing of scope's own files (the journal,
the profile) is in any table.

usage: check_juggle.py SCOPE PRELOAD PROG OUTDIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_common import counts, expect, fail, io_bytes_by_region, profile  # noqa: E402


def main():
    scope, preload, prog, outdir = sys.argv[1:5]
    outdir = os.path.abspath(outdir)
    data = os.path.join(outdir, "data")
    os.makedirs(data, exist_ok=True)
    res = profile(scope, preload, "serial", [os.path.abspath(prog), data], outdir,
                  config="include = prog_juggle*\ncallsites = 2\n")
    calls = res.p.io_calls()
    got = {os.path.basename(f): counts(calls, file=f) for f in sorted(set(calls["file"]))}
    want = {"a.dat": {"open": (1, 0), "write": (3, 300)},
            "b.dat": {"open": (1, 0), "write": (2, 250), "dup2": (1, 0), "close": (1, 0)},
            "c.dat": {"open": (1, 0), "write": (30000, 300000), "close": (1, 0)}}
    expect(got, want, "every call on each file")
    expect(res.p.rank_attribute(0, "dropped_events"), 0, "dropped events")
    files = res.p.io_files(0)
    if any(not n.startswith(data + "/") for n in files["resolved"]):
        fail(f"a file of scope's own in the table: {files['resolved'].tolist()}")
    with open(os.path.join(data, "c.dat"), "rb") as f:
        expect(f.read(), b"j" * 300000, "c.dat's content")
    # scope summary and scope callsites (the I/O calls at their call sites)
    expect(io_bytes_by_region(res, sites=True), {"write": (0, 300 + 250 + 300000)},
           "bytes written by region")
    print("ok: descriptor juggling: every call, under the right file, nothing of scope's")


main()
