#!/usr/bin/env python3
"""check_rma.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR

One-sided calls (issue 28): runs PROGRAM (prog_rma.c or prog_rma.f90,
built with MPI's wrapper compiler) with 4 ranks under MPI's launcher (MPI =
openmpi: mpirun; mpich: mpirun.mpich), bare and under the preload, and
checks, with every value derived by hand below from the rank alone:
  - stdout and the exit status are the bare run's (the invalid datatype is
    refused with and without scope, and recorded without data);
  - each one-sided call's origin bytes and its target as a world rank
    (through the window's communicator: a split with reversed keys makes
    split rank k world rank 3 - k), MPI_PROC_NULL moving nothing,
    MPI_NO_OP sending nothing and naming no destination (issue 44: a
    fetch is one message, the get); the window-making calls carry their
    communicator; MPI_Put_c under MPICH;
  - the communicator table: MPI_COMM_WORLD made by MPI_Init, the split by
    MPI_Comm_split;
  - a config that times MPI_Put alone (the windows are made untimed): the
    targets still come out as world ranks, each window's group a
    communicator row made by "MPI_Win_get_group";
  - `scope comm --one-sided --format csv` gives the one-sided matrix these
    columns imply (a put from origin to target, a get from target to
    origin, a get-accumulate both ways, a fetch only from the target),
    message by message and direction by direction as derived by hand from
    the program, the Python module the same
    (comm_matrix(kind="one-sided"), communicators()); the point-to-point
    matrix stays empty; `scope waits` says it reads none of these calls;
    `scope report` draws the one-sided heat map (one
    cell per pair); `scope summary` and Python give the byte totals.
"""
import csv
import io
import os
import sys

from moved_common import (N, check_columns, check_comms, check_no_p2p, check_totals, fail, profile,
                          row, run)


def expected_c(r, mpi):
    nxt, prv = (r + 1) % N, (r + N - 1) % N
    out = {
        "MPI_Win_create": [row(comm=0)],
        # rank+1 ints to next; MPI_PROC_NULL; the refused datatype; the
        # shared window's double
        "MPI_Put": [row(4 * (r + 1), dest=nxt), row(), row(comm=-1), row(8, dest=nxt)],
        "MPI_Get": [row(received=12, source=prv)],
        "MPI_Accumulate": [row(20, dest=0)],
        # MPI_SUM, then MPI_NO_OP: a fetch sends no message, so no dest
        "MPI_Get_accumulate": [row(8, 8, nxt, nxt), row(0, 16, -1, prv)],
        "MPI_Fetch_and_op": [row(4, 4, 0, 0), row(0, 4, -1, 1)],
        "MPI_Compare_and_swap": [row(8, 4, 1, 1)],     # the new value and the compared one
        # the split window: split rank k is world rank 3 - k
        "MPI_Win_allocate": [row(comm=1)],
        "MPI_Rput": [row(4, dest=3, comm=1)],
        "MPI_Rget": [row(received=8, source=2, comm=1)],
        "MPI_Raccumulate": [row(12, dest=1, comm=1)],
        "MPI_Rget_accumulate": [row(4, 4, 0, 0, comm=1), row(0, 8, -1, 1, comm=1)],
        "MPI_Win_allocate_shared": [row(comm=0)],
    }
    if mpi == "mpich":
        out["MPI_Put_c"] = [row(8, dest=nxt)]
    return out


def expected_f(r, mpi):
    """prog_rma.f90: the world window's put, get and accumulate."""
    e = expected_c(r, mpi)
    out = {k: e[k] for k in ("MPI_Win_create", "MPI_Get", "MPI_Accumulate")}
    out["MPI_Put"] = e["MPI_Put"][:1]
    return out


def rma_matrix(got_all):
    """{(from, to): [messages, bytes]} of the one-sided calls."""
    pairs = {}
    for origin, regions in got_all.items():
        for name, rows in regions.items():
            if name.startswith("MPI_Win_"):
                continue
            for c in rows:
                if c[2] >= 0:
                    p = pairs.setdefault((origin, c[2]), [0, 0])
                    p[0] += 1
                    p[1] += c[0]
                if c[3] >= 0:
                    p = pairs.setdefault((c[3], origin), [0, 0])
                    p[0] += 1
                    p[1] += c[1]
    return pairs


def rma_pairs_by_hand(lang, mpi):
    """{(from, to): [messages, bytes]}: every one-sided message of the
    program, direction by direction, from its source alone. A fetch
    (MPI_NO_OP) is one message, target to origin, never one the other
    way."""
    msgs = []
    for r in range(N):
        nxt, prv = (r + 1) % N, (r + N - 1) % N
        msgs += [(r, nxt, 4 * (r + 1)),             # MPI_Put
                 (prv, r, 12),                      # MPI_Get
                 (r, 0, 20)]                        # MPI_Accumulate
        if lang != "c":
            continue
        msgs += [(r, nxt, 8), (nxt, r, 8),          # MPI_Get_accumulate, MPI_SUM
                 (prv, r, 16),                      # its MPI_NO_OP fetch: the get alone
                 (r, 0, 4), (0, r, 4),              # MPI_Fetch_and_op, MPI_SUM
                 (1, r, 4),                         # its MPI_NO_OP fetch: the get alone
                 (r, 1, 8), (1, r, 4),              # MPI_Compare_and_swap
                 (r, 3, 4), (2, r, 8), (r, 1, 12),  # MPI_Rput, MPI_Rget, MPI_Raccumulate
                 (r, 0, 4), (0, r, 4),              # MPI_Rget_accumulate, MPI_SUM
                 (1, r, 8),                         # its MPI_NO_OP fetch: the get alone
                 (r, nxt, 8)]                       # the shared window's MPI_Put
        if mpi == "mpich":
            msgs.append((r, nxt, 8))                # MPI_Put_c
    pairs = {}
    for s, t, b in msgs:
        p = pairs.setdefault((s, t), [0, 0])
        p[0] += 1
        p[1] += b
    return pairs


def check_rma_requests(res):
    """Each request-based call (MPI_Rput, MPI_Rget, MPI_Raccumulate,
    MPI_Rget_accumulate, in that order) is linked to the MPI_Wait that
    completed it, MPI_Wait k for the k-th: rows without partner."""
    import h5py
    want = sorted([("MPI_Rput", 0, "MPI_Wait", 0), ("MPI_Rget", 0, "MPI_Wait", 1),
                   ("MPI_Raccumulate", 0, "MPI_Wait", 2), ("MPI_Rget_accumulate", 0, "MPI_Wait", 3),
                   ("MPI_Rget_accumulate", 1, "MPI_Wait", 4)])
    for r in range(N):
        with h5py.File(os.path.join(res.ranks_dir, f"rank{r}.h5"), "r") as f:
            if "requests" not in f[f"rank{r}"]:
                fail(f"rank {r}: no request linked")
                continue
            q = f[f"rank{r}/requests"]
            names = bytes(q["region_names"][:]).split(b"\0")[:-1]
            got = sorted((names[pr].decode(), int(pc), names[dr].decode(), int(dc))
                         for pr, pc, dr, dc in zip(q["post_region"], q["post_call"],
                                                   q["done_region"], q["done_call"]))
            if got != want:
                fail(f"rank {r}: one-sided requests\n got  {got}\n want {want}")
            if any(int(x) != -1 for x in q["source"]) or any(int(x) != -1 for x in q["dest"]):
                fail(f"rank {r}: a one-sided request row with a partner")
    print("requests: each R- call linked to the MPI_Wait that completed it")


def main():
    res = profile(sys.argv[1:7])
    if res.lang == "c" and res.stdout.count("bad type: refused") != N:
        fail("the invalid datatype was not refused on every rank: " + res.stdout)
    want = expected_c if res.lang == "c" else expected_f
    got_all = check_columns(res, lambda r: want(r, res.mpi))
    if res.lang == "c":
        check_comms(res, lambda r: [N, N], lambda r: list(range(N)) + list(range(N - 1, -1, -1)),
                    lambda r: ["MPI_Init", "MPI_Comm_split"])
    else:
        check_comms(res, lambda r: [N], lambda r: list(range(N)), lambda r: ["MPI_Init"])
    check_totals(res, got_all)
    if res.lang == "c":
        check_rma_requests(res)

    pairs = rma_matrix(got_all)
    if pairs != rma_pairs_by_hand(res.lang, res.mpi):
        fail(f"one-sided messages of the columns:\n got  {pairs}\n want "
             f"{rma_pairs_by_hand(res.lang, res.mpi)}")
    r = run([res.scope, "comm", "--one-sided", "--format", "csv", res.out], res.env, res.outdir)
    if r.returncode != 0:
        fail(f"scope comm --one-sided: {r.returncode} {r.stderr}")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    got = {(int(x["sender"]), int(x["receiver"])): [int(x["messages"]), int(x["bytes"])]
           for x in rows}
    if got != pairs:
        fail(f"scope comm --one-sided matrix:\n got  {got}\n want {pairs}")
    check_no_p2p(res, "one-sided calls")
    r = run([res.scope, "comm", "--one-sided", res.out], res.env, res.outdir)
    if r.returncode != 0 or "one-sided messages" not in r.stdout:
        fail(f"scope comm --one-sided table: {r.returncode} {r.stdout} {r.stderr}")
    # the wait-state analysis does not read one-sided calls, and says so
    r = run([res.scope, "waits", res.out], res.env, res.outdir)
    if r.returncode != 0 or not r.stdout.startswith("no wait states: none of the profile's"):
        fail(f"scope waits on one-sided calls only: {r.returncode} {r.stdout} {r.stderr}")
    html = os.path.join(res.outdir, "report.html")
    r = run([res.scope, "report", "-o", html, res.out], res.env, res.outdir)
    with open(html) as f:
        page = f.read()
    sec = page[page.find('<section id="comm-rma">'):]
    sec = sec[:sec.find("</section>")]
    cells = sec.count("</title></rect>") - sec.count("messages</title></rect>")
    if r.returncode != 0 or cells != len(pairs):
        fail(f"scope report: one-sided section with {cells} cells for {len(pairs)} pairs "
             f"{r.stderr}")

    import scope_reader
    p = scope_reader.read_h5(res.out)
    msgs, nbytes = p.comm_matrix(kind="one-sided")
    got = {(s, t): [int(msgs[s, t]), int(nbytes[s, t])]
           for s in range(msgs.shape[0]) for t in range(msgs.shape[1]) if msgs[s, t]}
    if got != pairs:
        fail(f"python comm_matrix(kind='one-sided'):\n got  {got}\n want {pairs}")
    if p.comm_matrix()[0].sum() != 0:
        fail("python comm_matrix(): one-sided calls in the point-to-point matrix")
    sizes = p.message_sizes(kind="one-sided")
    if sum(sizes.values()) != sum(v[0] for v in pairs.values()):
        fail(f"python message_sizes(kind='one-sided'): {sizes} for {pairs}")
    creators = [c["creator"] for c in p.communicators(rank=1)]
    if creators != (["MPI_Init", "MPI_Comm_split"] if res.lang == "c" else ["MPI_Init"]):
        fail(f"python communicators(rank=1): {p.communicators(rank=1)}")
    p.close()
    print("scope comm --one-sided and python: the one-sided matrix of the columns")

    if res.lang == "c":
        # the windows' making untimed: each window's group is learnt at its
        # first MPI_Put (the world window, then the shared one)
        res2 = profile(sys.argv[1:7], config="MPI_Put\n", name="put_only")

        def put_only(r, mpi):
            nxt = (r + 1) % N
            return {"MPI_Put": [row(4 * (r + 1), dest=nxt), row(), row(comm=-1),
                                row(8, dest=nxt, comm=1)]}
        check_columns(res2, lambda r: put_only(r, res2.mpi))
        check_comms(res2, lambda r: [N, N], lambda r: list(range(N)) * 2,
                    lambda r: ["MPI_Win_get_group"] * 2)
    print("ok")


if __name__ == "__main__":
    main()
