#!/usr/bin/env python3
"""check_pcoll.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR

Persistent collectives under both MPIs (issue 28): PROGRAM (prog_pcoll.c
or prog_pcoll.f90) makes four collectives persistent on MPI_COMM_WORLD (a
broadcast of 5 doubles from rank 2, an allreduce of 3 ints, a reduce of 2
ints to rank 1, a scatterv of rank + 1 ints from rank 3), starts each 10
times with MPI_Start, then all four once with MPI_Startall, then the
reduce alone with MPI_Startall, and frees them. MPICH (MPI 4) calls them
MPI_Bcast_init & co; Open MPI 4.1 has them only as its extension
MPIX_Bcast_init & co, the same arguments under another name, which `MPI_*`
does not match: the profiled run has no config file, the built-in default
times `MPIX_*` too (and under MPICH, whose MPIX_ functions the program
never calls, the regions must be the same as with `MPI_*` alone). Runs with 4 ranks under MPI's
launcher (openmpi: mpirun; mpich: mpirun.mpich), bare and under the
preload, and checks, each value derived by hand below from the rank alone
(docs/format.md's byte model):
  - both runs print "rank R: ok" on every rank (the program checked the
    values of every round) and exit alike;
  - every MPI region of every rank and its number of calls, the inits
    under the library's names (MPIX_ under Open MPI, from C and from
    Fortran's MPIX_BCAST_INIT);
  - the inits move nothing; each MPI_Start moves the blocking call's
    bytes and names its root as the blocking call does (dest and source),
    without tag; the MPI_Startall of four the four's bytes without partner,
    the MPI_Startall of the reduce alone the reduce's row; MPI_Wait,
    MPI_Waitall and MPI_Request_free none, and each start is a post linked
    to the call that completed it (no partner);
  - the communicator table (MPI_COMM_WORLD, made by MPI_Init);
  - `scope summary` and Python: the byte totals, also derived by hand;
  - the collective matrix (`scope comm --collectives`, Python
    comm_matrix(kind="collective")) and its sizes: each start of the
    rooted ones counted as the blocking call would be, the root to each
    other member (broadcast, scatterv), each other member to the root
    (reduce); the MPI_Startall of four gives none (its row names no
    root), the one of the reduce alone gives the reduce's;
  - the point-to-point matrix, its sizes, Python's message_pairs(), the
    wait-state analysis and the OTF2 export see no message: a root is not
    a partner.
"""
import json
import os
import shutil
import subprocess
import sys

import h5py

from moved_common import (N, chars, check_columns, check_comms, check_no_p2p, check_totals, fail,
                          profile, row, run)

SILENT = ("MPI_Finalize", "MPI_Init..MPI_Finalize")
INITS = ("Bcast_init", "Allreduce_init", "Reduce_init", "Scatterv_init")


def starts(r):
    """The rows of one start of each of the four, on rank r."""
    bcast = row(40, 0, 2, 2) if r == 2 else row(0, 40, 2, 2)
    allreduce = row(12, 12)
    reduce_ = row(8, 8, 1, 1) if r == 1 else row(8, 0, 1, 1)
    # the root sends 1 + 2 + 3 + 4 ints and receives its own 4
    scatterv = row(40, 16, 3, 3) if r == 3 else row(0, 4 * (r + 1), 3, 3)
    return [bcast, allreduce, reduce_, scatterv]


def expected(r):
    """{region: [row per call]} on rank r."""
    one = starts(r)
    return {
        "MPI_Start": one * 10,
        "MPI_Startall": [row(sum(x[0] for x in one), sum(x[1] for x in one)), one[2]],
    }


def calls(mpi):
    """{region: calls}, the same on every rank."""
    pre = "MPIX_" if mpi == "openmpi" else "MPI_"
    c = {pre + name: 1 for name in INITS}
    c.update({"MPI_Init": 1, "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Start": 40,
              "MPI_Wait": 41, "MPI_Startall": 2, "MPI_Waitall": 1, "MPI_Request_free": 4})
    return c


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
        # that completed it (start k by MPI_Wait k, the first MPI_Startall's
        # four by the MPI_Waitall, the second's one by the last MPI_Wait);
        # no partner: a collective's
        want = sorted([("MPI_Start", k, "MPI_Wait", k, -1, -1) for k in range(40)] +
                      [("MPI_Startall", 0, "MPI_Waitall", 0, -1, -1)] * 4 +
                      [("MPI_Startall", 1, "MPI_Wait", 40, -1, -1)])
        if sorted(links) != want:
            fail(f"rank {r}: requests linked\n got  {sorted(links)}\n want {want}")
    print("calls: every region's count as derived, each start linked to its completion")


def collective_matrix(region=None):
    """{(from, to): [messages, bytes]} by hand. Per round of MPI_Start:
    the broadcast 2 -> 0, 1, 3 of 40 bytes; the reduce 0, 2, 3 -> 1 of 8;
    the scatterv 3 -> 0, 1, 2 of 4 (r + 1) bytes; the allreduce none. The
    MPI_Startall of four: none; the one of the reduce alone: the reduce's."""
    want = {}

    def add(s, d, b, times):
        p = want.setdefault((s, d), [0, 0])
        p[0] += times
        p[1] += b * times
    rounds = {None: 10, "MPI_Start": 10, "MPI_Startall": 0}[region]
    reduces = {None: 11, "MPI_Start": 10, "MPI_Startall": 1}[region]
    for m in (0, 1, 3):
        if rounds:
            add(2, m, 40, rounds)
    for m in (0, 2, 3):
        add(m, 1, 8, reduces)
    for m in (0, 1, 2):
        if rounds:
            add(3, m, 4 * (m + 1), rounds)
    return want


def pairs_of(stdout):
    lines = stdout.strip().split("\n")
    if lines[0] != "sender,receiver,messages,bytes":
        fail(f"scope comm: no csv header: {stdout}")
    return {(int(s), int(d)): [int(m), int(b)]
            for s, d, m, b in (x.split(",") for x in lines[1:])}


def check_collective_matrix(res):
    for region in (None, "MPI_Start", "MPI_Startall"):
        args = ["--region", region] if region else []
        r = run([res.scope, "comm", "--collectives", "--format", "csv"] + args + [res.out],
                res.env, res.outdir)
        if r.returncode != 0:
            fail(f"scope comm --collectives {args}: {r.returncode} {r.stderr}")
        got, want = pairs_of(r.stdout), collective_matrix(region)
        if got != want:
            fail(f"scope comm --collectives {args}:\n got  {sorted(got.items())}\n"
                 f" want {sorted(want.items())}")
    # sizes: the scatterv's 4 bytes (10 to rank 0), its 8 and 12 and the
    # reduce's 8 (10 + 10 + 33), the broadcast's 40 (30)
    r = run([res.scope, "comm", "--collectives", "--format", "json", res.out], res.env, res.outdir)
    j = json.loads(r.stdout)
    sizes = {(x["min_bytes"], x["max_bytes"]): x["messages"] for x in j["sizes"]}
    if sizes != {(4, 7): 10, (8, 15): 53, (32, 63): 30}:
        fail(f"scope comm --collectives sizes: {sizes}")
    # no collective region: the allreduce's starts are MPI_Start's calls
    if j["unpaired"] != []:
        fail(f"scope comm --collectives unpaired: {j['unpaired']}")
    import scope_reader
    p = scope_reader.read_h5(res.out)
    msgs, nbytes = p.comm_matrix(kind="collective")
    got = {(s, d): [int(msgs[s, d]), int(nbytes[s, d])]
           for s in range(msgs.shape[0]) for d in range(msgs.shape[1]) if msgs[s, d]}
    if got != collective_matrix():
        fail(f"python comm_matrix(kind='collective'):\n got  {got}\n want {collective_matrix()}")
    p.close()
    print("collective matrix: every start of the rooted ones, as the blocking calls")


def check_no_messages(res):
    """A root is not a partner: no point-to-point pair, size, or message
    anywhere."""
    check_no_p2p(res, "persistent collectives")
    for args in ([], ["--region", "MPI_Start"], ["--region", "MPI_Startall"]):
        r = run([res.scope, "comm", "--format", "json"] + args + [res.out], res.env, res.outdir)
        j = json.loads(r.stdout) if r.returncode == 0 else None
        if not j or j["pairs"] or j["sizes"] or j["messages"]:
            fail(f"scope comm {args}: point-to-point traffic: {r.stdout} {r.stderr}")
    import scope_reader
    p = scope_reader.read_h5(res.out)
    msgs, _ = p.comm_matrix()
    pairs = p.message_pairs()
    if msgs.any() or len(pairs["sender"]) or p.message_sizes():
        fail(f"python: point-to-point traffic: {msgs} {pairs} {p.message_sizes()}")
    p.close()
    r = run([res.scope, "waits", "--format", "json", res.out], res.env, res.outdir)
    if r.returncode != 0:
        fail(f"scope waits: {r.returncode} {r.stderr}")
    t = json.loads(r.stdout)["totals"]
    if t["messages"] or t["unmatched_sends"] or t["unmatched_receives"]:
        fail(f"scope waits: the starts read as messages: {r.stdout}")
    # the OTF2 export writes no point-to-point record for a start (no
    # MpiIsend to the root); skipped where scope or the machine lacks OTF2
    arch = os.path.join(res.outdir, "otf2")
    r = run([res.scope, "export", res.out, "--to", "otf2", "-o", arch], res.env, res.outdir)
    if r.returncode != 0 and "built without OTF2" not in r.stderr:
        fail(f"scope export --to otf2: {r.returncode} {r.stderr}")
    if r.returncode == 0 and shutil.which("otf2-print"):
        p = subprocess.run(["otf2-print", os.path.join(arch, "traces.otf2")], capture_output=True,
                           text=True, timeout=120)
        kinds = {line.split()[0] for line in p.stdout.splitlines() if line.startswith("MPI_")}
        if p.returncode != 0 or kinds:
            fail(f"otf2-print: {p.returncode} MPI records {sorted(kinds)} {p.stderr}")
    print("point to point: no pair, no size, no message (a root is no partner)")


def main():
    res = profile(sys.argv[1:7], config=None)
    if chars(res.stdout) != chars("".join(f"rank {r}: ok" for r in range(N))):
        fail(f"the program saw wrong values: {res.stdout}")
    check_calls(res)
    got_all = check_columns(res, expected)
    check_comms(res, lambda r: [N], lambda r: list(range(N)), lambda r: ["MPI_Init"])
    totals = check_totals(res, got_all)
    # by hand, per round of the four over the 4 ranks: sent 40 (the
    # broadcast's root) + 4 x 12 + 4 x 8 + 40 (the scatterv's root) = 160,
    # received 3 x 40 + 4 x 12 + 8 (the reduce's root) + 4 x (1+2+3+4) = 216;
    # 10 rounds of MPI_Start, one MPI_Startall of the four and one of the
    # reduce (32 sent, 8 received)
    want = {"MPI_Start": [1600, 2160], "MPI_Startall": [160 + 32, 216 + 8]}
    if totals != want:
        fail(f"byte totals {totals} want {want}")
    check_collective_matrix(res)
    check_no_messages(res)
    print("ok")


if __name__ == "__main__":
    main()
