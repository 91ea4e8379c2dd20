#!/usr/bin/env python3
"""check_pcoll.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR

Persistent collectives under both MPIs (issue 28): PROGRAM (prog_pcoll.c
or prog_pcoll.f90) makes a broadcast of 5 doubles from rank 2 and an
allreduce of 3 ints persistent, starts each 10 times with MPI_Start, then
both once with MPI_Startall, and frees them. MPICH (MPI 4) calls them
MPI_Bcast_init and MPI_Allreduce_init; Open MPI 4.1 has them only as its
extension MPIX_Bcast_init and MPIX_Allreduce_init, the same arguments
under another name, which `MPI_*` does not match: the config is
`MPI_*` and `MPIX_*`. Runs with 4 ranks under MPI's launcher (openmpi:
mpirun; mpich: mpirun.mpich), bare and under the preload, and checks,
each value derived by hand below from the rank alone (docs/format.md's
byte model):
  - both runs print "rank R: ok" on every rank (the program checked the
    values of every round) and exit alike;
  - every MPI region of every rank and its number of calls, the inits
    under the library's names (MPIX_ under Open MPI, from C and from
    Fortran's MPIX_BCAST_INIT);
  - the inits move nothing; each MPI_Start moves the blocking call's
    bytes (the broadcast: 40 sent by the root, 40 received by the others;
    the allreduce: 12 and 12), without partner or tag; the MPI_Startall
    both requests' bytes; MPI_Wait, MPI_Waitall and MPI_Request_free none,
    and each start is a post linked to the call that completed it (no partner);
  - the communicator table (MPI_COMM_WORLD, made by MPI_Init);
  - `scope summary` and Python: the byte totals, also derived by hand;
    the point-to-point matrix stays empty.
"""
import os
import sys

import h5py

from moved_common import (N, chars, check_columns, check_comms, check_no_p2p, check_totals, fail,
                          profile, row)

SILENT = ("MPI_Finalize", "MPI_Init..MPI_Finalize")
ROOT = 2


def expected(r):
    """{region: [row per call]} on rank r."""
    bcast = row(40, 0) if r == ROOT else row(0, 40)
    allreduce = row(12, 12)
    return {
        "MPI_Start": [bcast, allreduce] * 10,
        "MPI_Startall": [row(bcast[0] + 12, bcast[1] + 12)],
    }


def calls(mpi):
    """{region: calls}, the same on every rank."""
    pre = "MPIX_" if mpi == "openmpi" else "MPI_"
    return {pre + "Bcast_init": 1, pre + "Allreduce_init": 1, "MPI_Init": 1, "MPI_Comm_rank": 1,
            "MPI_Comm_size": 1, "MPI_Start": 20, "MPI_Wait": 20, "MPI_Startall": 1,
            "MPI_Waitall": 1, "MPI_Request_free": 2}


def check_calls(res):
    for r in range(N):
        with h5py.File(os.path.join(res.ranks_dir, f"rank{r}.h5"), "r") as f:
            g = f[f"rank{r}/regions"]
            got = {name: len(g[name]["start_times"]) for name in g if name not in SILENT}
            links = []
            if "requests" in f[f"rank{r}"]:
                q = f[f"rank{r}/requests"]
                names = bytes(q["region_names"][:]).split(b"\0")[:-1]
                links = [(names[pr].decode(), int(pc), names[dr].decode(), int(dc), int(s), int(d))
                         for pr, pc, dr, dc, s, d in zip(q["post_region"], q["post_call"],
                                                         q["done_region"], q["done_call"],
                                                         q["source"], q["dest"])]
        if got != calls(res.mpi):
            fail(f"rank {r} calls:\n got  {sorted(got.items())}\n want {sorted(calls(res.mpi).items())}")
        # each start of a persistent collective is a post linked to the call
        # that completed it (start k by MPI_Wait k, the MPI_Startall's two by
        # the MPI_Waitall); no partner: a collective's
        want = sorted([("MPI_Start", k, "MPI_Wait", k, -1, -1) for k in range(20)] +
                      [("MPI_Startall", 0, "MPI_Waitall", 0, -1, -1)] * 2)
        if sorted(links) != want:
            fail(f"rank {r}: requests linked\n got  {sorted(links)}\n want {want}")
    print("calls: every region's count as derived, each start linked to its completion")


def main():
    res = profile(sys.argv[1:7], config="MPI_*\nMPIX_*\n")
    if chars(res.stdout) != chars("".join(f"rank {r}: ok" for r in range(N))):
        fail(f"the program saw wrong values: {res.stdout}")
    check_calls(res)
    got_all = check_columns(res, expected)
    check_comms(res, lambda r: [N], lambda r: list(range(N)), lambda r: ["MPI_Init"])
    totals = check_totals(res, got_all)
    # by hand: per round the root sends 40 + 12 and receives 12, the
    # other three send 12 and receive 40 + 12; 10 rounds of MPI_Start
    # and one MPI_Startall
    per_round = [52 + 3 * 12, 12 + 3 * 52]
    want = {"MPI_Start": [10 * x for x in per_round], "MPI_Startall": per_round}
    if totals != want:
        fail(f"byte totals {totals} want {want}")
    check_no_p2p(res, "collectives")
    print("ok")


if __name__ == "__main__":
    main()
