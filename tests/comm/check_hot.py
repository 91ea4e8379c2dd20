#!/usr/bin/env python3
"""check_hot.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR

The capture's own paths for MPI_Isend & co, MPI_Irecv, MPI_Wait and
MPI_Allreduce/Scan/Exscan (preload/mpi/mpi_capture_hot.c), in the cases they
must tell apart: PROGRAM is prog_hot.c (its comment lists the sections),
run with 4 ranks under MPI's launcher (openmpi: mpirun; mpich:
mpirun.mpich), bare and under the preload with the config `MPI_*`.
Checks, every value derived by hand below from the rank alone:
  - both runs print the same lines (the error classes of the calls given
    MPI_DATATYPE_NULL) and exit alike;
  - every data column of every call: a status given or MPI_STATUS_IGNORE,
    MPI_ANY_SOURCE/ANY_TAG, a tag past the one-record post (20000),
    MPI_PROC_NULL, partners as world ranks on a reversed split used in
    turn with MPI_COMM_WORLD, and on a split made after it was freed (the
    thread's cached communicator must not outlive it), predefined and
    derived datatypes, MPI_IN_PLACE, the calls MPI refused (no data), the
    large-count forms (MPICH);
  - /rank<N>/requests: each post linked to the MPI_Wait that completed it,
    with what the receive's status said and where the send went; MPI_Wait
    of MPI_REQUEST_NULL links nothing;
  - the communicator table (the world, the reversed split, the ordered
    one);
  - `scope summary`, Python and `scope comm`: the byte totals and the
    point-to-point matrix;
  - all of it again under the config `*PI_*`, whose entry is not an MPI
    one by its text: the functions it matches with the MPI standard's
    names are MPI calls all the same (their data captured).
"""
import csv
import io
import os
import sys

import h5py

from moved_common import (N, check_columns, check_comms, check_totals, fail, profile, row, run)

NO_TAG = -2147483648


def expected(r, mpi):
    """{region: [row per call, in call order]} on rank r."""
    nxt, prv = (r + 1) % N, (r + N - 1) % N
    refused = row(comm=-1)      # a call MPI refused: no data
    irecv = [row(0, 12, -1, prv, 5), row(0, 8, -1, prv, 6), row(0, 4, -1, prv, 20000), row()]
    isend = [row(12, 0, nxt, -1, 5), row(8, 0, nxt, -1, 6), row()]
    for _ in range(3):
        irecv += [row(0, 4, -1, prv, 9), row(0, 4, -1, nxt, 8, comm=1)]
        isend += [row(4, 0, nxt, -1, 9), row(4, 0, prv, -1, 8, comm=1)]
    irecv.append(row(0, 4, -1, prv, 10, comm=2))
    isend += [row(4, 0, nxt, -1, 10, comm=2), refused]
    e = {
        "MPI_Irecv": irecv,
        "MPI_Isend": isend,
        "MPI_Issend": [row(4, 0, nxt, -1, 20000)],
        "MPI_Allreduce": [row(12, 12), row(12, 12), row(32, 32), row(32, 32), row(8, 8, comm=2),
                          refused],
        "MPI_Scan": [row(4, 4)],
        "MPI_Exscan": [row(8, 8)],
    }
    if mpi == "mpich":
        e["MPI_Irecv_c"] = [row(0, 16, -1, prv, 12)]
        e["MPI_Isend_c"] = [row(16, 0, nxt, -1, 12)]
        e["MPI_Allreduce_c"] = [row(12, 12)]
    return e


def expected_requests(r, mpi):
    """(post region, post call, MPI_Wait call, source, tag, bytes received,
    dest, bytes sent) of each completed request on rank r, in completion
    order. The tag 20000 is past what a post or completion record holds:
    not known there (docs/format.md), while the call's own row has it."""
    nxt, prv = (r + 1) % N, (r + N - 1) % N
    q = [("MPI_Isend", 0, -1, 5, 0, nxt, 12), ("MPI_Irecv", 0, prv, 5, 12, -1, 0),
         ("MPI_Irecv", 1, prv, 6, 8, -1, 0), ("MPI_Isend", 1, -1, 6, 0, nxt, 8),
         ("MPI_Issend", 0, -1, NO_TAG, 0, nxt, 4), ("MPI_Irecv", 2, prv, NO_TAG, 4, -1, 0),
         ("MPI_Isend", 2, -1, NO_TAG, 0, -1, 0), ("MPI_Irecv", 3, -1, NO_TAG, 0, -1, 0)]
    for i in range(3):
        q += [("MPI_Isend", 3 + 2 * i, -1, 9, 0, nxt, 4), ("MPI_Irecv", 4 + 2 * i, prv, 9, 4, -1, 0),
              ("MPI_Isend", 4 + 2 * i, -1, 8, 0, prv, 4), ("MPI_Irecv", 5 + 2 * i, nxt, 8, 4, -1, 0)]
    q += [("MPI_Isend", 9, -1, 10, 0, nxt, 4), ("MPI_Irecv", 10, prv, 10, 4, -1, 0)]
    if mpi == "mpich":
        q += [("MPI_Isend_c", 0, -1, 12, 0, nxt, 16), ("MPI_Irecv_c", 0, prv, 12, 16, -1, 0)]
    # MPI_Wait call 22 is the one of MPI_REQUEST_NULL: no row
    return [(p, c, w if w < 22 else w + 1, *rest) for w, (p, c, *rest) in enumerate(q)]


def check_requests(res):
    for r in range(N):
        with h5py.File(os.path.join(res.ranks_dir, f"rank{r}.h5"), "r") as f:
            q = f[f"rank{r}/requests"]
            names = [x.decode() for x in bytes(q["region_names"][:]).split(b"\0")[:-1]]
            got = [(names[pr], pc, dc, src, tag, br, dst, bs) for pr, pc, dr, dc, src, tag, br, dst, bs
                   in zip(*(q[k][:].tolist() for k in
                            ("post_region", "post_call", "done_region", "done_call", "source",
                             "tag", "bytes_received", "dest", "bytes_sent")))
                   if names[dr] == "MPI_Wait"]
            if len(got) != len(q["post_region"]):
                fail(f"rank {r} requests: completed by another call than MPI_Wait")
            want = expected_requests(r, res.mpi)
            if got != want:
                fail(f"rank {r} requests:\n got  {got}\n want {want}")
    print("requests: each post linked to its MPI_Wait, with its status's values")


def check_matrix(res):
    """Rank r sends 7 messages (40 bytes) to next, 3 (12) to prev on the
    reversed split; MPICH adds MPI_Isend_c's 16 bytes to next."""
    r = run([res.scope, "comm", "--format", "csv", res.out], res.env, res.outdir)
    if r.returncode != 0:
        fail(f"scope comm: {r.stderr}")
    got = sorted((int(x["sender"]), int(x["receiver"]), int(x["messages"]), int(x["bytes"]))
                 for x in csv.DictReader(io.StringIO(r.stdout)))
    big = res.mpi == "mpich"
    want = sorted([(s, (s + 1) % N, 7 + big, 40 + 16 * big) for s in range(N)] +
                  [(s, (s + N - 1) % N, 3, 12) for s in range(N)])
    if got != want:
        fail(f"scope comm:\n got  {got}\n want {want}")
    print("scope comm: the point-to-point matrix as derived")


def main():
    if len(sys.argv) != 7:
        fail("usage: check_hot.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR")
    for config, name in (("MPI_*\n", "p"), ("*PI_*\n", "broad")):
        print(f"config {config.strip()}:")
        res = profile(sys.argv[1:7], config=config, name=name)
        lines = sorted(ln for ln in res.stdout.splitlines() if ln.startswith("rank"))
        if len(lines) != 2 * N:
            fail(f"stdout: {res.stdout}")
        got = check_columns(res, lambda r: expected(r, res.mpi))
        check_requests(res)
        check_comms(res, lambda r: [N, N, N],
                    lambda r: list(range(N)) + list(range(N - 1, -1, -1)) + list(range(N)),
                    lambda r: ["MPI_Init", "MPI_Comm_split", "MPI_Comm_split"])
        check_totals(res, got)
        check_matrix(res)
    print("ok")


if __name__ == "__main__":
    main()
