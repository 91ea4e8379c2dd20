#!/usr/bin/env python3
"""check_fbind.py SCOPE PRELOAD MPI BINDING PROGRAM OUTDIR

The three Fortran bindings (issue 28): PROGRAM is prog_fbind.F90 built
for BINDING (f08: `use mpi_f08`, mpif: `include 'mpif.h'`, mpi: `use mpi`)
with MPI's wrapper (openmpi: mpif90; mpich: mpif90.mpich). It runs with 4
ranks under MPI's launcher, bare and under the preload (config `MPI_*`, then Fortran names),
and the checks, each value derived by hand below from the rank alone, are:
  - both runs print "rank R: ok" on every rank (the program checked every
    value it received) and exit alike;
  - every MPI region of every rank, and how many times it was called,
    exactly (MPI_Finalize and the Init..Finalize region aside);
  - every data column of every call: the blocking ring (the receive's size
    from its status, passed or MPI_STATUS_IGNORE), the nonblocking ring's
    MPI_Isend/MPI_Irecv completed by MPI_Waitall with an array of statuses
    (f08: of type(MPI_Status)) and with MPI_STATUSES_IGNORE, MPI_Allreduce
    in place, MPI_Bcast from rank 2, rank 0's three receives from
    MPI_ANY_SOURCE/MPI_ANY_TAG with MPI_STATUS_IGNORE (their source and
    tag from the status scope substituted; they arrive in any order);
  - /rank<N>/requests: each MPI_Irecv and MPI_Isend completed by an
    MPI_Waitall, the receives with their size, source and tag;
  - the communicator table (MPI_COMM_WORLD, made by MPI_Init);
  - `scope comm --format csv`: the point-to-point matrix the sends imply;
    `scope summary` and Python: the byte totals;
  - all of it again with a config naming each call by its upper-case
    Fortran name only (MPI_SEND, ...), which names the call from every
    binding.
"""
import csv
import io
import os
import sys

import h5py

from moved_common import (N, chars, check_columns, check_comms, check_totals, fail, profile,
                          row, run)

SILENT = ("MPI_Finalize", "MPI_Init..MPI_Finalize")


def expected(r):
    """{region: [row per call]} of prog_fbind.F90 on rank r."""
    nxt, prv = (r + 1) % N, (r + N - 1) % N
    send = [row(4 * 10 * (r + 1), dest=nxt, tag=7)]
    if r > 0:
        send.append(row(4 * 3 * r, dest=0, tag=100 + r))
    recv = [row(received=4 * 10 * (prv + 1), source=prv, tag=7)]
    if r == 0:
        recv.append({row(received=4 * 3 * s, source=s, tag=100 + s) for s in range(1, N)})
    return {
        "MPI_Send": send,
        "MPI_Recv": recv,
        # 2*(rank+1) doubles with tag 8, then 3*(rank+1) integers with tag 9
        "MPI_Isend": [row(8 * 2 * (r + 1), dest=nxt, tag=8), row(4 * 3 * (r + 1), dest=nxt, tag=9)],
        "MPI_Irecv": [row(received=8 * 2 * (prv + 1), source=prv, tag=8),
                      row(received=4 * 3 * (prv + 1), source=prv, tag=9)],
        "MPI_Allreduce": [row(12, 12)],
        "MPI_Bcast": [row(48, 0, 2, 2) if r == 2 else row(0, 48, 2, 2)],
    }


def calls(r):
    """{region: calls} of every MPI region on rank r."""
    c = {name: sum(len(x) if isinstance(x, set) else 1 for x in rows)
         for name, rows in expected(r).items()}
    # even ranks ask the ring's status for its count, every rank the
    # Waitall's first status
    c.update({"MPI_Init": 1, "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Waitall": 2,
              "MPI_Get_count": 2 if r % 2 == 0 else 1})
    return c


def check_calls(res):
    for r in range(N):
        with h5py.File(os.path.join(res.ranks_dir, f"rank{r}.h5"), "r") as f:
            g = f[f"rank{r}/regions"]
            # the I/O calls timed by default (issue 46: rank 0's printf) are tests/io's
            got = {name: len(g[name]["start_times"]) for name in g if name not in SILENT
                   and g[name].attrs.get("kind", b"") not in (b"io", "io")}
            q = f[f"rank{r}/requests"]
            names = [x.decode() for x in bytes(q["region_names"][:]).split(b"\0")[:-1]]
            pairs = {}
            recvs = []
            for i, (pr_, dr_) in enumerate(zip(q["post_region"][:], q["done_region"][:])):
                key = (names[pr_], names[dr_])
                pairs[key] = pairs.get(key, 0) + 1
                if names[pr_] == "MPI_Irecv":
                    recvs.append((int(q["bytes_received"][i]), int(q["source"][i]),
                                  int(q["tag"][i])))
            cancelled = int(q["cancelled"][:].sum())
        if got != calls(r):
            fail(f"rank {r} calls:\n got  {sorted(got.items())}\n want {sorted(calls(r).items())}")
        want_recvs = [(x[1], x[3], x[4]) for x in expected(r)["MPI_Irecv"]]
        if (pairs != {("MPI_Irecv", "MPI_Waitall"): 2, ("MPI_Isend", "MPI_Waitall"): 2} or
                cancelled or sorted(recvs) != sorted(want_recvs)):
            fail(f"rank {r} requests: {pairs}, {cancelled} cancelled, receives {recvs} "
                 f"want {want_recvs}")
    print("calls: every region's count as derived; requests: each completed by its MPI_Waitall")


def check_matrix(res, got_all):
    want = {}
    for r, regions in got_all.items():
        for name in ("MPI_Send", "MPI_Isend"):
            for c in regions[name]:
                p = want.setdefault((r, c[2]), [0, 0])
                p[0] += 1
                p[1] += c[0]
    # by hand: 3 messages of 68*(r+1) bytes to the next rank (the 3 rings),
    # and ranks 1..3 one of 12*r bytes to rank 0 (rank 3's is the same pair)
    hand = {(r, (r + 1) % N): [3, 68 * (r + 1)] for r in range(N)}
    for r in range(1, N):
        p = hand.setdefault((r, 0), [0, 0])
        p[0] += 1
        p[1] += 12 * r
    if want != hand:
        fail(f"the columns' matrix {want} is not the hand-made one {hand}")
    r = run([res.scope, "comm", "--format", "csv", res.out], res.env, res.outdir)
    if r.returncode != 0:
        fail(f"scope comm: {r.returncode} {r.stderr}")
    got = {(int(x["sender"]), int(x["receiver"])): [int(x["messages"]), int(x["bytes"])]
           for x in csv.DictReader(io.StringIO(r.stdout))}
    if got != hand:
        fail(f"scope comm matrix:\n got  {got}\n want {hand}")
    print("scope comm: the matrix of the sends")


# The same calls named by their upper-case Fortran names only: each names
# the call from every binding (the C function too), so the profile is the
# one `MPI_*` gives.
FORTRAN_NAMES = ("MPI_INIT\nMPI_COMM_RANK\nMPI_COMM_SIZE\nMPI_SEND\nMPI_RECV\nMPI_ISEND\n"
                 "MPI_IRECV\nMPI_WAITALL\nMPI_ALLREDUCE\nMPI_BCAST\nMPI_GET_COUNT\n")


def main():
    for config, name in (("MPI_*\n", "p"), (FORTRAN_NAMES, "fortran_names")):
        res = profile(sys.argv[1:7], config, name)
        print(f"config {config!r}:")
        # the lines' characters: MPICH's launcher can interleave the ranks' lines
        if chars(res.stdout) != chars("".join(f"rank {r}: ok" for r in range(N))):
            fail(f"the program saw wrong data: {res.stdout}")
        check_calls(res)
        got_all = check_columns(res, expected)
        check_comms(res, lambda r: [N], lambda r: list(range(N)), lambda r: ["MPI_Init"])
        check_matrix(res, got_all)
        check_totals(res, got_all)
    print("ok")


if __name__ == "__main__":
    main()
