"""check_record.py - runs record_sites and asserts, with h5py, the exact
call-site data the writer produced: the /rank0/callsites table (one row
per frame of each path, ids 0-based in definition order) and the
callsite_ids column of region "f" (-1 for calls without a known site),
while region "plain", which never had a call site, has no such column.

usage: check_record.py RECORD_SITES_EXE OUTDIR
"""
import subprocess
import sys

import h5py
import numpy as np

exe, outdir = sys.argv[1], sys.argv[2]
r = subprocess.run([exe, outdir], capture_output=True, text=True)
assert r.returncode == 0 and r.stdout == "ok\n", (r.returncode, r.stdout, r.stderr)

with h5py.File(f"{outdir}/sites.h5", "r") as f:
    t = f["rank0/callsites"][:]
    rows = [(int(x["id"]), int(x["frame"]), int(x["depth"]), int(x["offset"]),
             x["build_id"].decode(), x["object"].decode()) for x in t]
    assert rows == [
        (0, 0, 2, 0x1234, "00aa", "/bin/prog"),
        (0, 1, 2, 0x2000, "00aa", "/bin/prog"),
        (1, 0, 1, 0x1234, "00aa", "/bin/prog"),
        (2, 0, 1, 0x40, "", "/lib/libx.so"),
    ], rows
    g = f["rank0/regions/f"]
    ids = g["callsite_ids"][:]
    assert ids.dtype == np.int32, ids.dtype
    assert list(ids) == [0, 0, 0, 2, -1, -1], list(ids)
    s, e = g["start_times"][:], g["end_times"][:]
    assert len(s) == 6 and all(e >= s), (s, e)
    # the call with site 2 contains the "plain" call: ends are not lost
    p = f["rank0/regions/plain"]
    assert "callsite_ids" not in p, list(p)
    assert s[3] <= p["start_times"][0] <= p["end_times"][0] <= e[3]
print("check_record: ok")
