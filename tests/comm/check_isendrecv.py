#!/usr/bin/env python3
"""check_isendrecv.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR

MPI 4's nonblocking send-receive (docs/format.md "What MPI calls moved"):
PROGRAM is prog_isendrecv.c (its comment lists the sections), run with
4 ranks under MPI's launcher, bare and under the preload with the config
`MPI_*`. An MPI without MPI_Isendrecv (Open MPI 4.1: the program finds
no such symbol and says so) skips the test (exit 77). Checks, every value
derived by hand below from the rank alone:
  - both runs print the same lines and exit alike;
  - every data column: the send as MPI_Send's, the receive as posted
    (MPI_ANY_SOURCE: the status's source at its completion), the bytes
    received from the status at its MPI_Wait or MPI_Waitall, the tag the
    send tag (as MPI_Sendrecv's); MPI_PROC_NULL on either side; a reversed
    split (partners as world ranks); MPI_Isendrecv_replace;
  - /rank<N>/requests: each linked to its MPI_Wait or MPI_Waitall, a
    receive's row with what its status said, or, receiving from
    MPI_PROC_NULL, its send's (where it went);
  - what a status said is what the program found in it (it writes each
    into isendrecv_status_<rank>.txt): the receive's own where MPI fills
    it (checked against the values derived by hand), another receive's
    under MPICH 4.0, which the capture must report as it is;
  - the communicator table, `scope summary`'s and Python's byte totals,
    the point-to-point matrix of `scope comm`.
"""
import os
import sys

from check_matched import check_matrix, check_requests
from moved_common import N, check_columns, check_comms, check_totals, fail, profile, row

NO_TAG = -2147483648


PROC_NULL = {"mpich": -1, "openmpi": -2}


def statuses(res, r):
    """[(source, tag, bytes)] of the program's completions on rank r."""
    st = {}
    with open(os.path.join(res.outdir, f"isendrecv_status_{r}.txt")) as f:
        for ln in f:
            k, src, tag, n = map(int, ln.split())
            st[k] = (src, tag, n)
    return [st[k] for k in range(6)]


def truth(r):
    """The statuses the completions 0, 1, 2, 4, 5 should have (3 is a
    send's)."""
    nxt, prv = (r + 1) % N, (r + N - 1) % N
    return {0: (prv, 31, 16), 1: (prv, 32, 8), 2: (prv, 33, 24), 4: (prv, 34, 4),
            5: (N - 1 - nxt, 35, 4)}       # on the reversed split: next's rank there


def read(res, r, k, s):
    """What the capture reads of status s of completion k: (world rank of
    its source or -1, its tag or none, its bytes)."""
    src, tag, n = s
    if src == PROC_NULL[res.mpi]:
        return -1, NO_TAG, 0
    world = (N - 1 - src if k == 5 else src) if 0 <= src < N else -1
    return world, tag if -1 <= tag < (1 << 14) - 2 else NO_TAG, n


def expected(res, r):
    """{region: [row per call]} on rank r, the receives' bytes (and an
    MPI_ANY_SOURCE receive's source) from what the statuses said."""
    nxt, prv = (r + 1) % N, (r + N - 1) % N
    got = [read(res, r, k, s) for k, s in enumerate(statuses(res, r))]
    return {
        "MPI_Isendrecv": [row(16, got[0][2], nxt, prv, 31),
                          row(8, got[1][2], nxt, got[1][0], 32),    # MPI_ANY_SOURCE
                          row(4, 0, nxt, -1, 34), row(0, got[4][2], -1, prv, 34),
                          row(4, got[5][2], prv, nxt, 35, comm=1)],
        "MPI_Isendrecv_replace": [row(24, got[2][2], nxt, prv, 33)],
    }


def expected_requests(res, r):
    """Each completed request on rank r, in completion order: a receive's
    row says what its status said."""
    nxt = (r + 1) % N
    got = [read(res, r, k, s) for k, s in enumerate(statuses(res, r))]
    return [("MPI_Isendrecv", 0, "MPI_Wait", 0, *got[0], -1, 0),
            ("MPI_Isendrecv", 1, "MPI_Wait", 1, *got[1], -1, 0),
            ("MPI_Isendrecv_replace", 0, "MPI_Wait", 2, *got[2], -1, 0),
            ("MPI_Isendrecv", 2, "MPI_Waitall", 0, -1, 34, 0, nxt, 4),   # receives from MPI_PROC_NULL
            ("MPI_Isendrecv", 3, "MPI_Waitall", 0, *got[4], -1, 0),
            ("MPI_Isendrecv", 4, "MPI_Wait", 3, *got[5], -1, 0)]


def main():
    if len(sys.argv) != 7:
        fail("usage: check_isendrecv.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR")
    res = profile(sys.argv[1:7])
    if "MPI_Isendrecv: none" in res.stdout:
        print(f"skip: {res.mpi} has no MPI_Isendrecv")
        sys.exit(77)
    lines = sorted(ln for ln in res.stdout.splitlines() if ln.startswith("rank"))
    if lines != [f"rank {r}: exchanged as sent" for r in range(N)]:
        fail(f"stdout: {res.stdout}")
    filled = all(statuses(res, r)[k] == t for r in range(N) for k, t in truth(r).items())
    print(f"{res.mpi}: " + ("each MPI_Isendrecv completed with its receive's status, as derived"
                            if filled else "MPI_Isendrecv completed with another receive's status "
                            "(MPICH 4.0): checked against what it said"))
    got = check_columns(res, lambda r: expected(res, r))
    check_requests(res, lambda r: expected_requests(res, r))
    check_comms(res, lambda r: [N, N], lambda r: list(range(N)) + list(range(N - 1, -1, -1)),
                lambda r: ["MPI_Init", "MPI_Comm_split"])
    check_totals(res, got)
    # rank s sent 16 + 8 + 24 + 4 bytes to next on the world, 4 to prev on the split
    check_matrix(res, [(s, (s + 1) % N, 4, 52) for s in range(N)] +
                 [(s, (s + N - 1) % N, 1, 4) for s in range(N)])
    print("ok")


if __name__ == "__main__":
    main()
