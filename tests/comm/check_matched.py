#!/usr/bin/env python3
"""check_matched.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR

Matched probes and receives (docs/format.md "What MPI calls moved"):
PROGRAM is prog_matched.c (its comment lists the sections), run with 4
ranks under MPI's launcher, bare and under the preload with the config
`MPI_*`. Checks, every value derived by hand below from the rank alone:
  - both runs print the same lines and exit alike;
  - every data column of every call: a matched receive's source and tag
    from its status (a status given or MPI_STATUS_IGNORE, MPI_ANY_SOURCE
    and MPI_ANY_TAG), on the communicator its probe matched it on (the
    world, a reversed split: partners as world ranks); MPI_Imrecv's
    completed from its status at its MPI_Wait; a probe moves nothing (no
    data columns on MPI_Mprobe and MPI_Improbe), nor an MPI_Mrecv of
    MPI_MESSAGE_NO_PROC;
  - /rank<N>/requests: each MPI_Imrecv linked to the MPI_Wait that
    completed it, with what its status said;
  - the communicator table, `scope summary`'s and Python's byte totals,
    the point-to-point matrix of `scope comm`.
"""
import csv
import io
import os
import sys

import h5py

from moved_common import N, check_columns, check_comms, check_totals, fail, profile, row, run


def expected(r):
    """{region: [row per call, in call order]} on rank r."""
    nxt, prv = (r + 1) % N, (r + N - 1) % N
    return {
        "MPI_Send": [row(12, 0, nxt, -1, 21), row(40, 0, nxt, -1, 22), row(28, 0, nxt, -1, 23),
                     row(8, 0, prv, -1, 24, comm=1)],
        "MPI_Mrecv": [row(0, 12, -1, prv, 21), row(0, 40, -1, prv, 22),
                      row(comm=-1)],            # MPI_MESSAGE_NO_PROC: nothing
        "MPI_Imrecv": [row(0, 28, -1, prv, 23), row(0, 8, -1, nxt, 24, comm=1)],
    }


def expected_requests(r):
    """(post region, post call, completing region, its call, source, tag,
    bytes received, dest, bytes sent) of each completed request on rank r,
    in completion order."""
    nxt, prv = (r + 1) % N, (r + N - 1) % N
    return [("MPI_Imrecv", 0, "MPI_Wait", 0, prv, 23, 28, -1, 0),
            ("MPI_Imrecv", 1, "MPI_Wait", 1, nxt, 24, 8, -1, 0)]


def check_requests(res, expected_requests):
    for r in range(N):
        with h5py.File(os.path.join(res.ranks_dir, f"rank{r}.h5"), "r") as f:
            q = f[f"rank{r}/requests"]
            names = [x.decode() for x in bytes(q["region_names"][:]).split(b"\0")[:-1]]
            got = [(names[pr], pc, names[dr], dc, src, tag, br, dst, bs)
                   for pr, pc, dr, dc, src, tag, br, dst, bs
                   in zip(*(q[k][:].tolist() for k in
                            ("post_region", "post_call", "done_region", "done_call", "source",
                             "tag", "bytes_received", "dest", "bytes_sent")))]
            want = expected_requests(r)
            if got != want:
                fail(f"rank {r} requests:\n got  {got}\n want {want}")
    print("requests: each post linked to the call that completed it, with its status's values")


def check_matrix(res, want):
    r = run([res.scope, "comm", "--format", "csv", res.out], res.env, res.outdir)
    if r.returncode != 0:
        fail(f"scope comm: {r.stderr}")
    got = sorted((int(x["sender"]), int(x["receiver"]), int(x["messages"]), int(x["bytes"]))
                 for x in csv.DictReader(io.StringIO(r.stdout)))
    if got != sorted(want):
        fail(f"scope comm:\n got  {got}\n want {sorted(want)}")
    print("scope comm: the point-to-point matrix as derived")


def main():
    if len(sys.argv) != 7:
        fail("usage: check_matched.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR")
    res = profile(sys.argv[1:7])
    lines = sorted(ln for ln in res.stdout.splitlines() if ln.startswith("rank"))
    if lines != [f"rank {r}: matched as sent" for r in range(N)]:
        fail(f"stdout: {res.stdout}")
    got = check_columns(res, expected)
    check_requests(res, expected_requests)
    check_comms(res, lambda r: [N, N], lambda r: list(range(N)) + list(range(N - 1, -1, -1)),
                lambda r: ["MPI_Init", "MPI_Comm_split"])
    check_totals(res, got)
    # rank s sent 12 + 40 + 28 bytes to next on the world, 8 to prev on the split
    check_matrix(res, [(s, (s + 1) % N, 3, 80) for s in range(N)] +
                 [(s, (s + N - 1) % N, 1, 8) for s in range(N)])
    print("ok")


if __name__ == "__main__":
    main()
