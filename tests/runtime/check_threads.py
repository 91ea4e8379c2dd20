"""check_threads.py - runs test_threads, then checks with h5py that every
thread's "inner" calls sit inside its own "outer" calls, one each, and that
8 distinct threads recorded 1,000,000 events each.

usage: check_threads.py TEST_THREADS_EXE OUTDIR
"""
import subprocess
import sys

import h5py
import numpy as np

exe, outdir = sys.argv[1], sys.argv[2]
subprocess.run([exe, outdir], check=True)

with h5py.File(f"{outdir}/threads.h5", "r") as f:
    regions = f["rank0/regions"]
    threads = f["rank0/threads"][:]
    assert len(threads) == 8, threads
    assert len(set(threads["tid"])) == 8, "thread ids are not distinct"
    cols = {}
    for name in ("outer", "inner"):
        g = regions[name]
        assert g["start_times"].dtype == np.int64
        cols[name] = (g["start_times"][:], g["end_times"][:], g["thread_ids"][:])
        starts = cols[name][0]
        assert np.all(np.diff(starts) >= 0), f"{name} not sorted by start"
    for t in range(8):
        os_, oe, ot = cols["outer"]
        is_, ie, it = cols["inner"]
        o_s, o_e = os_[ot == t], oe[ot == t]
        i_s, i_e = is_[it == t], ie[it == t]
        assert len(o_s) == 500000 and len(i_s) == 500000, (t, len(o_s), len(i_s))
        assert np.all(o_s <= i_s) and np.all(i_e <= o_e), f"thread {t}: inner not inside outer"
        assert np.all(o_e[:-1] <= o_s[1:]), f"thread {t}: outer calls overlap"
print("check_threads: 8 threads x 1,000,000 events, nesting intact")
