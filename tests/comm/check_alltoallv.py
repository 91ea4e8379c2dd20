#!/usr/bin/env python3
"""check_alltoallv.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR

All-to-all collectives with per-member counts in the collective matrix
(issue 44 item 2, docs/format.md): PROGRAM is prog_alltoallv.c (its
comment lists the calls), run with 4 ranks under MPI's launcher, bare and
under the preload with the config `MPI_*`. Checks, every value derived by
hand below from the program's counts:
  - each rank's bytes_to_self column (its block to itself) in the
    regions MPI_Alltoallv, MPI_Ialltoallv and MPI_Alltoallw;
  - `scope comm --collectives` and Python's comm_matrix(kind="collective"):
    on a communicator of two, the one other member gets exactly what the
    rank sent it (rank 0 sends 1 B to itself and 3 B to rank 1: 3 B from
    0 to 1); on the world, each rank's row total is exactly what it sent
    the others (its block to itself left out), spread over them with the
    remainder a byte each to the first ones.
"""
import csv
import io
import os
import sys

import h5py

from moved_common import N, fail, profile, run


def blocks():
    """[(call, comm members, {rank: [bytes to each member]})]."""
    out = []
    for lo in (0, 2):
        out.append(("MPI_Alltoallv", [lo, lo + 1], {lo: [1, 3], lo + 1: [5, 2]}))
    world = {r: [4 * (3 * r + k + 1) for k in range(N)] for r in range(N)}
    out.append(("MPI_Alltoallv", list(range(N)), world))
    out.append(("MPI_Ialltoallv", list(range(N)), world))
    out.append(("MPI_Alltoallw", list(range(N)),
                {r: [(k + 1) * (8 if k % 2 else 4) for k in range(N)] for r in range(N)}))
    return out


def by_hand():
    """{(from, to): [messages, bytes]}, and {(rank, region): [self bytes]}."""
    pairs, selfs = {}, {}
    for name, members, sent in blocks():
        for r, b in sent.items():
            me = members.index(r)
            selfs.setdefault((r, name), []).append(b[me])
            others = [m for m in members if m != r]
            rest = sum(b) - b[me]
            each, extra = divmod(rest, len(others))
            for i, m in enumerate(others):
                p = pairs.setdefault((r, m), [0, 0])
                p[0] += 1
                p[1] += each + (1 if i < extra else 0)
    return pairs, selfs


def main():
    if len(sys.argv) != 7:
        fail("usage: check_alltoallv.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR")
    res = profile(sys.argv[1:7])
    if sorted(ln for ln in res.stdout.splitlines() if ln.startswith("rank")) != \
            [f"rank {r}: done" for r in range(N)]:
        fail(f"stdout: {res.stdout}")
    pairs, selfs = by_hand()
    # by the numbers, 0 -> 1: 3 B on the pair (the example); the
    # world's 36 B to the others (4 + 8 + 12 + 16 less its own 4) in three
    # 12s, twice; MPI_Alltoallw's 60 B (4 + 16 + 12 + 32 less 4) in three
    # 20s. 1 -> 0: 5 B; 68 B (16 + 20 + 24 + 28 less 20) as 23, 23, 22 (the
    # remainder to the first others), twice; 48 B (4 + 16 + 12 + 32 less 16)
    # in three 16s
    if pairs[(0, 1)] != [4, 3 + 12 + 12 + 20] or pairs[(1, 0)] != [4, 5 + 23 + 23 + 16]:
        fail(f"by_hand() is not the program: {pairs}")
    for r in range(N):
        with h5py.File(os.path.join(res.ranks_dir, f"rank{r}.h5"), "r") as f:
            g = f[f"rank{r}/regions"]
            for name in ("MPI_Alltoallv", "MPI_Ialltoallv", "MPI_Alltoallw"):
                got = g[name]["bytes_to_self"][:].tolist() if "bytes_to_self" in g[name] else None
                if got != selfs[(r, name)]:
                    fail(f"rank {r} {name} bytes_to_self: {got}, want {selfs[(r, name)]}")
            for name in g:
                if name not in ("MPI_Alltoallv", "MPI_Ialltoallv", "MPI_Alltoallw") and \
                        "bytes_to_self" in g[name]:
                    fail(f"rank {r} {name}: a bytes_to_self column")
    print("bytes_to_self: each rank's block to itself as derived")
    r = run([res.scope, "comm", "--collectives", "--format", "csv", res.out], res.env, res.outdir)
    if r.returncode != 0:
        fail(f"scope comm --collectives: {r.returncode} {r.stderr}")
    got = {(int(x["sender"]), int(x["receiver"])): [int(x["messages"]), int(x["bytes"])]
           for x in csv.DictReader(io.StringIO(r.stdout))}
    if got != pairs:
        fail(f"scope comm --collectives:\n got  {sorted(got.items())}\n want {sorted(pairs.items())}")
    import scope_reader
    p = scope_reader.read_h5(res.out)
    msgs, nbytes = p.comm_matrix(kind="collective")
    got = {(s, t): [int(msgs[s, t]), int(nbytes[s, t])]
           for s in range(msgs.shape[0]) for t in range(msgs.shape[1]) if msgs[s, t]}
    p.close()
    if got != pairs:
        fail(f"python comm_matrix(kind='collective'):\n got  {sorted(got.items())}\n"
             f" want {sorted(pairs.items())}")
    rows = {s: sum(v[1] for (a, _), v in pairs.items() if a == s) for s in range(N)}
    print(f"collective matrix: rows {rows} exact")
    print("ok")


if __name__ == "__main__":
    main()
