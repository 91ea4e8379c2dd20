#!/usr/bin/env python3
"""check_neighbor.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR

Collectives whose blocks differ per partner (issue 28): runs PROGRAM
(prog_neighbor.c or .f90) with 4 ranks under MPI's launcher (openmpi:
mpirun; mpich: mpirun.mpich), bare and under the preload, and checks, each
value derived by hand below from the rank alone (docs/format.md's byte
model):
  - MPI_Alltoallw and MPI_Ialltoallw: a datatype per block;
  - the neighbourhood collectives on a 1-D Cartesian communicator that is
    not periodic (the end ranks' missing neighbours are MPI_PROC_NULL and
    move nothing), on a distributed graph (in- and out-degree 2) and on a
    graph (a ring);
  - the large-count MPI_Neighbor_alltoallv_c and MPI_Alltoallw_c (MPICH:
    MPI 4), as their int forms;
  - persistent collectives (MPICH: MPI 4): MPI_Bcast_init and
    MPI_Allreduce_init move nothing at the init; each MPI_Start moves the
    blocking call's bytes and names its root (the broadcast's rank 2; the
    allreduce none), without tag; MPI_Startall both requests' bytes, no
    root;
  - the communicator table: each communicator's creating call
    (MPI_Init, MPI_Cart_create, MPI_Dist_graph_create_adjacent,
    MPI_Graph_create);
  - `scope summary` and Python give the byte totals; the point-to-point
    matrix stays empty; `scope comm --collectives` lists the neighbourhood
    collectives as calls without pairs (many partners, no partner column).
"""
import sys

from check_comm import check_unpaired, unpaired
from moved_common import (N, check_columns, check_comms, check_no_p2p, check_totals, fail, profile,
                          row)


def expected_c(r, mpi):
    lo, hi = int(r > 0), int(r < N - 1)     # the Cartesian neighbours that exist
    live = lo + hi
    size_r = 4 if r % 2 == 0 else 8         # what rank r receives in MPI_Alltoallw
    w = row(sum((j + 1) * (4 if j % 2 == 0 else 8) for j in range(N)), N * (r + 1) * size_r)
    out = {
        "MPI_Alltoallw": [w],
        "MPI_Ialltoallw": [w],
        # Cartesian (comm 1), then the distributed graph (2), the graph (3)
        "MPI_Neighbor_allgather": [row(12, 12 * live, comm=1), row(20, 40, comm=2),
                                   row(8, 16, comm=3)],
        "MPI_Neighbor_allgatherv": [row(8, 8 * live, comm=1)],
        "MPI_Neighbor_alltoall": [row(16 * live, 16 * live, comm=1), row(8, 8, comm=2)],
        "MPI_Ineighbor_alltoall": [row(16 * live, 16 * live, comm=1)],
        "MPI_Neighbor_alltoallv": [row(4 * (2 * lo + 3 * hi), 4 * (3 * lo + 2 * hi), comm=1)],
        "MPI_Neighbor_alltoallw": [row(12 * lo + 8 * hi, 8 * lo + 12 * hi, comm=1)],
    }
    if mpi == "mpich":
        out["MPI_Neighbor_alltoallv_c"] = out["MPI_Neighbor_alltoallv"]
        out["MPI_Alltoallw_c"] = [w]
        bcast = row(24, 0, 2, 2) if r == 2 else row(0, 24, 2, 2)
        out["MPI_Start"] = [bcast] * 3 + [row(32, 32)]
        out["MPI_Startall"] = [row(24 + 32, 32) if r == 2 else row(32, 24 + 32)]
    return out


def expected_f(r, mpi):
    """prog_neighbor.f90: the Cartesian allgather and alltoall (row 0);
    under MPICH the persistent broadcast's starts (MPI_COMM_WORLD, row 1)."""
    live = int(r > 0) + int(r < N - 1)
    out = {"MPI_Neighbor_allgather": [row(12, 12 * live)],
           "MPI_Neighbor_alltoall": [row(16 * live, 16 * live)]}
    if mpi == "mpich":      # MPI_Bcast_init, started 3 times, on MPI_COMM_WORLD (row 1)
        out["MPI_Start"] = [row(24, 0, 2, 2, comm=1) if r == 2 else row(0, 24, 2, 2, comm=1)] * 3
    return out


def main():
    res = profile(sys.argv[1:7])
    want = expected_c if res.lang == "c" else expected_f
    got_all = check_columns(res, lambda r: want(r, res.mpi))
    if res.lang == "c":
        check_comms(res, lambda r: [N] * 4, lambda r: list(range(N)) * 4,
                    lambda r: ["MPI_Init", "MPI_Cart_create", "MPI_Dist_graph_create_adjacent",
                               "MPI_Graph_create"])
    else:
        mpich = res.mpi == "mpich"
        check_comms(res, lambda r: [N] * (1 + mpich), lambda r: list(range(N)) * (1 + mpich),
                    lambda r: ["MPI_Cart_create"] + ["MPI_Init"] * mpich)
    check_totals(res, got_all)
    check_no_p2p(res, "collectives")
    # every neighbourhood collective's call, by hand: C on each of the 4
    # ranks 3 allgathers, an allgatherv, 2 alltoalls, an ialltoall, an
    # alltoallv (and its _c under MPICH), an alltoallw; Fortran an
    # allgather and an alltoall
    per_rank = ({"MPI_Neighbor_allgather": 3, "MPI_Neighbor_allgatherv": 1,
                 "MPI_Neighbor_alltoall": 2, "MPI_Ineighbor_alltoall": 1,
                 "MPI_Neighbor_alltoallv": 1, "MPI_Neighbor_alltoallw": 1}
                if res.lang == "c" else {"MPI_Neighbor_allgather": 1, "MPI_Neighbor_alltoall": 1})
    if res.lang == "c" and res.mpi == "mpich":
        per_rank["MPI_Neighbor_alltoallv_c"] = 1
    want = {name: N * k for name, k in per_rank.items()}
    coll = {(r, name): rows for r, regions in got_all.items() for name, rows in regions.items()}
    if unpaired(coll) != want:
        fail(f"the columns' neighbourhood calls {unpaired(coll)} want {want}")
    check_unpaired(res.scope, res.out, res.env, res.outdir, want)
    print("ok")


if __name__ == "__main__":
    main()
