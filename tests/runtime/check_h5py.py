"""check_h5py.py - a profile written by the recorder opens in h5py (Debian's
python3-h5py) through the index file, as docs/format.md promises: the index has
/metadata and /rank0 (an external link to the rank file), every region is
rank0/regions/<encoded name> with the true name in its "name" attribute,
and start_times/end_times are int64 arrays equal to what libscope_reader
returns (dump_times prints those).

usage: check_h5py.py DUMP_TIMES_EXE OUTDIR
"""
import subprocess
import sys

import h5py
import numpy as np

exe, outdir = sys.argv[1], sys.argv[2]
lines = subprocess.run([exe, outdir], check=True, capture_output=True, text=True).stdout
reader = {}
for line in lines.splitlines():
    name, rank, starts, ends = line.split("\t")
    reader[name] = ([int(x) for x in starts.split(",")], [int(x) for x in ends.split(",")])
assert set(reader) == {"solve/phase 1", "100% λ"}, reader.keys()

with h5py.File(f"{outdir}/dump.h5", "r") as f:
    assert f.attrs["scope_format"] == 1 and f.attrs["scope_profiler_schema"] == 1
    assert f["metadata"].attrs["mpi_size"] == 1
    assert isinstance(f.get("rank0", getlink=True), h5py.ExternalLink)
    links = sorted(f["rank0/regions"].keys())
    assert links == ["100%25 λ", "solve%2Fphase 1"], links
    for link in links:
        g = f["rank0/regions"][link]
        name = g.attrs["name"]
        assert g.attrs["kind"] == "manual"
        s, e = g["start_times"], g["end_times"]
        assert s.dtype == np.int64 and e.dtype == np.int64, (s.dtype, e.dtype)
        assert list(s[:]) == reader[name][0], (name, list(s[:]), reader[name][0])
        assert list(e[:]) == reader[name][1], name
    # two threads recorded "100% λ": the thread_ids column and threads table
    tids = f["rank0/regions/100%25 λ/thread_ids"][:]
    assert tids.dtype == np.int32 and sorted(set(tids)) == [0, 1], tids
    assert len(f["rank0/threads"]) == 2
    rows = f["rank0/interposition"][:]
    assert len(rows) == 1 and rows[0]["pattern"] == b"solve_*" and rows[0]["status"] == b"patched", rows
    assert rows[0]["reason"] == b"", rows
    assert len(reader["100% λ"][0]) == 7 and len(reader["solve/phase 1"][0]) == 4
print("check_h5py: h5py and libscope_reader agree")
