"""check_journal_ties.py SCOPE_H5WRITE SCOPE SEEDS_SCRIPT OUTDIR - journals
written by hand (tests/fuzz/make_journal_seeds.py, from format/journal.h
alone) in which most records share one timestamp convert into exact counts
and the recorded nesting:

  ties                  two threads, each: outer { inner, inner,
                        MPI_Send { inner } } then outer {}, all at one tick
                        (0-tick calls completed in place): 4 outer, 6 inner,
                        2 MPI_Send, the order stored (begin_seq, depth),
                        nesting as recorded in `scope tree`;
  ties_staging_cleared  a reused staging chunk (SCOPE_CHUNK_CLEARED) whose
                        new records tie with its first record: the 250
                        calls of its EVENTS copy plus the 1 new call:
                        a cleared chunk's records are all valid, whatever
                        their ticks.
"""
import subprocess
import sys

import h5py

h5write, scope, seeds, out = sys.argv[1:5]
subprocess.run(["/usr/bin/python3", seeds, out], check=True)


def convert(name):
    subprocess.run([h5write, "--incomplete", f"{out}/{name}", f"{out}/{name}.h5"], check=True)
    with h5py.File(f"{out}/{name}.h5", "r") as f:
        g = f["rank0"]
        counts = {k: len(v["start_times"]) for k, v in g["regions"].items()}
        order = all("begin_seq" in v and "depth" in v for v in g["regions"].values())
        return counts, order, int(g.attrs["unterminated_calls"])


counts, order, unterminated = convert("ties")
assert counts == {"outer": 4, "inner%2Fx": 6, "MPI_Send": 2}, counts
assert order and unterminated == 0, (order, unterminated)
tree = subprocess.run([scope, "tree", f"{out}/ties.h5"], check=True,
                      capture_output=True, text=True).stdout.splitlines()
# the region column starts under "region"; nesting is its indentation
col = tree[0].index("region")
got = [(l[col:].rstrip(), l[:col].split()[-1]) for l in tree[1:]]
assert got == [("outer", "4"), ("  MPI_Send", "2"), ("    inner/x", "2"),
               ("  inner/x", "4")], tree

counts, order, _ = convert("ties_staging_cleared")
assert counts == {"outer": 1, "inner%2Fx": 250}, counts
print("check_journal_ties: tied journals convert into exact counts and nesting")
