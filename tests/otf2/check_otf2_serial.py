#!/usr/bin/env python3
"""check_otf2_serial.py SCOPE PROFILE OUTDIR - `scope export --to otf2` of
a run without MPI (the reader's recorded tutorial workload: manual
regions, one process): one location per thread lane, each lane's
Enter/Leave sequence exactly the reader's call stack (regions, times,
nesting), every region of paradigm user, and no MPI definitions or
records at all (no paradigm, group or comm), as python3-otf2 reads it.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
sys.path.insert(0, HERE)
from checker import fail  # noqa: E402
from check_otf2 import expected_lanes, read_archive  # noqa: E402


def main():
    scope, prof, out = map(os.path.abspath, sys.argv[1:4])
    arch = os.path.join(out, "arch")
    p = subprocess.run([scope, "export", prof, "--to", "otf2", "-o", arch],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or p.stderr:
        fail(f"scope export --to otf2: {p.returncode} {p.stderr}")
    from scope_reader import read_h5
    r = read_h5(prof)
    want = expected_lanes(r, prof)
    defs, per = read_archive(arch)
    if defs["comms"]:
        fail(f"comms in a run without MPI: {defs['comms']}")
    if sorted(defs["regions"]) != sorted(r.region_names) or \
            any(not par.endswith(".USER") for _, par in defs["regions"].values()):
        fail(f"regions {defs['regions']}")
    if sorted(per) != sorted((ln << 32) | rk for rk, ln in want):
        fail(f"locations {sorted(per)}, want {sorted(want)}")
    calls = 0
    for (rk, ln), w in want.items():
        got = [(type(e).__name__, e.region.name, e.time, False) for e in per[(ln << 32) | rk]]
        if got != w:
            fail(f"rank {rk} lane {ln}: {len(got)} events differ from the call stack's {len(w)}")
        calls += len(w) // 2
    want_calls = sum(r[name].num_calls for name in r.region_names)
    if calls == 0 or calls != want_calls:
        fail(f"{calls} calls exported, the profile holds {want_calls}")
    print(f"ok: {calls} calls, {len(per)} locations")


if __name__ == "__main__":
    main()
