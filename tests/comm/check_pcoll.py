#!/usr/bin/env python3
"""check_pcoll.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR

Persistent collectives under both MPIs (issue 28): PROGRAM (prog_pcoll.c
or prog_pcoll.f90) makes four collectives persistent on MPI_COMM_WORLD (a
broadcast of 5 doubles from rank 2, an allreduce of 3 ints, a reduce of 2
ints to rank 1, a scatterv of rank + 1 ints from rank 3), starts each 10
times with MPI_Start, then all four once with MPI_Startall, then the
reduce alone with MPI_Startall; then starts an alltoall of 2 ints to each
rank and an allgather of 3 once each with MPI_Start; then the broadcast
and the reduce together with a persistent send of 6 ints to rank + 1 and
its receive from rank - 1 (tag 5) by one MPI_Startall; and frees them all.
MPICH (MPI 4) calls them
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
    the MPI_Startall of the reduce alone the reduce's row, the mixed one
    its four requests' bytes and its receive's source and tag; MPI_Wait,
    MPI_Waitall and MPI_Request_free none, and each start is a post linked
    to the call that completed it: a collective's row says which
    collective it is (its shape), its root (a column of its own: its dest
    stays -1) and the bytes its pairs need, a send's where it went, a
    receive's what arrived;
  - the communicator table (MPI_COMM_WORLD, made by MPI_Init);
  - `scope summary` and Python: the byte totals, also derived by hand;
  - the collective matrix (`scope comm --collectives`, Python
    comm_matrix(kind="collective")) and its sizes: each start counted as
    the blocking call would be, however it was started (MPI_Start, or
    MPI_Startall of one, of several collectives, or of collectives with
    point-to-point requests): the root to each other member (broadcast,
    scatterv), each other member to the root (reduce), each member's
    equal block to each other (alltoall), its block to each other
    (allgather); the allreduce none;
  - the point-to-point matrix, its sizes, Python's message_pairs(), the
    wait-state analysis and the OTF2 export see only the persistent send
    to rank + 1: a root is not a partner;
  - the same files made old (the requests' `collective` and `root`
    columns removed, as files before them): the collective matrix is the older rule's, read from the
    starting calls' own rows (only a start of one rooted collective has
    pairs), and the point-to-point matrix is unchanged.
"""
import json
import os
import shutil
import subprocess
import sys

import h5py

from moved_common import (N, chars, check_columns, check_comms, check_totals, fail, profile, row,
                          run)

SILENT = ("MPI_Finalize", "MPI_Init..MPI_Finalize")
INITS = ("Bcast_init", "Allreduce_init", "Reduce_init", "Scatterv_init", "Alltoall_init",
         "Allgather_init")
# the requests' `collective` column (docs/format.md): each collective's shape
NO_PAIRS, ONE_TO_ALL, ALL_TO_ONE, ALL_EQUAL, ALL_SAME = 1, 2, 3, 4, 5
NXT = lambda r: (r + 1) % N          # noqa: E731  the persistent send's receiver
PRV = lambda r: (r + N - 1) % N      # noqa: E731  and the receive's sender


def starts(r):
    """The rows of one start of each of the four rooted-or-allreduce, on
    rank r."""
    bcast = row(40, 0, 2, 2) if r == 2 else row(0, 40, 2, 2)
    allreduce = row(12, 12)
    reduce_ = row(8, 8, 1, 1) if r == 1 else row(8, 0, 1, 1)
    # the root sends 1 + 2 + 3 + 4 ints and receives its own 4
    scatterv = row(40, 16, 3, 3) if r == 3 else row(0, 4 * (r + 1), 3, 3)
    return [bcast, allreduce, reduce_, scatterv]


def unrooted():
    """The rows of the alltoall's start (2 ints to and from each of the 4)
    and the allgather's (3 ints out, 4 x 3 in): no root."""
    return [row(32, 32), row(12, 48)]


def expected(r):
    """{region: [row per call]} on rank r."""
    one = starts(r)
    # the mixed MPI_Startall: the broadcast, the reduce, the send of 24
    # bytes, the receive of 24 (its source and tag from its completion)
    mixed = row(one[0][0] + one[2][0] + 24, one[0][1] + one[2][1] + 24, -1, PRV(r), 5)
    return {
        "MPI_Start": one * 10 + unrooted(),
        "MPI_Startall": [row(sum(x[0] for x in one), sum(x[1] for x in one)), one[2], mixed],
    }


def calls(mpi):
    """{region: calls}, the same on every rank."""
    pre = "MPIX_" if mpi == "openmpi" else "MPI_"
    c = {pre + name: 1 for name in INITS}
    c.update({"MPI_Init": 1, "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Send_init": 1,
              "MPI_Recv_init": 1, "MPI_Start": 42, "MPI_Wait": 43, "MPI_Startall": 3,
              "MPI_Waitall": 2, "MPI_Request_free": 8})
    return c


def request_rows(r):
    """The request rows of rank r by hand: (post region, post call, done
    region, done call, source, dest, collective, root, bytes sent, bytes
    received). A collective's: no source or dest (no message), its shape,
    its root, the bytes its pairs need (received for the one-to-all ones,
    sent for the others)."""
    bcast = (-1, -1, ONE_TO_ALL, 2, 0, 0 if r == 2 else 40)
    allreduce = (-1, -1, NO_PAIRS, -1, 12, 0)
    reduce_ = (-1, -1, ALL_TO_ONE, 1, 8, 0)
    scatterv = (-1, -1, ONE_TO_ALL, 3, 0, 16 if r == 3 else 4 * (r + 1))
    four = [bcast, allreduce, reduce_, scatterv]
    rows = [("MPI_Start", 4 * k + j, "MPI_Wait", 4 * k + j) + four[j]
            for k in range(10) for j in range(4)]
    rows += [("MPI_Startall", 0, "MPI_Waitall", 0) + x for x in four]
    rows += [("MPI_Startall", 1, "MPI_Wait", 40) + reduce_]
    rows += [("MPI_Start", 40, "MPI_Wait", 41, -1, -1, ALL_EQUAL, -1, 32, 0),
             ("MPI_Start", 41, "MPI_Wait", 42, -1, -1, ALL_SAME, -1, 12, 0)]
    rows += [("MPI_Startall", 2, "MPI_Waitall", 1) + x
             for x in (bcast, reduce_, (-1, NXT(r), 0, -1, 24, 0), (PRV(r), -1, 0, -1, 0, 24))]
    return sorted(rows)


def check_calls(res):
    for r in range(N):
        with h5py.File(os.path.join(res.ranks_dir, f"rank{r}.h5"), "r") as f:
            g = f[f"rank{r}/regions"]
            # the I/O calls timed by default (issue 46: rank 0's printf) are tests/io's
            got = {name: len(g[name]["start_times"]) for name in g if name not in SILENT
                   and g[name].attrs.get("kind", b"") not in (b"io", "io")}
            links = []
            if "requests" in f[f"rank{r}"]:
                q = f[f"rank{r}/requests"]
                names = bytes(q["region_names"][:]).split(b"\0")[:-1]
                links = [(names[pr].decode(), int(pc), names[dr].decode(), int(dc), int(s), int(d),
                          int(c), int(rt), int(bs), int(br))
                         for pr, pc, dr, dc, s, d, c, rt, bs, br in zip(
                             q["post_region"], q["post_call"], q["done_region"], q["done_call"],
                             q["source"], q["dest"], q["collective"], q["root"],
                             q["bytes_sent"], q["bytes_received"])]
        if got != calls(res.mpi):
            fail(f"rank {r} calls:\n got  {sorted(got.items())}\n want {sorted(calls(res.mpi).items())}")
        # each start is a post linked to the call that completed it (start
        # k by MPI_Wait k, the first MPI_Startall's four by the first
        # MPI_Waitall, the second's one by MPI_Wait 40, the unrooted ones
        # by the next two, the mixed MPI_Startall's by the second Waitall)
        want = request_rows(r)
        if sorted(links) != want:
            fail(f"rank {r}: requests linked\n got  {sorted(links)}\n want {want}")
    print("calls: every region's count as derived, each start linked to its completion and "
          "saying which collective it started")


def messages(region=None, old=False):
    """The collective messages by hand, [(from, to, bytes)] once per
    message. Per start: the broadcast 2 -> 0, 1, 3 of 40 bytes; the
    reduce 0, 2, 3 -> 1 of 8; the scatterv 3 -> 0, 1, 2 of 4 (r + 1); the
    allreduce none; the alltoall each rank's 32 bytes in 4 equal blocks,
    one of 8 to each other rank; the allgather each rank's 12 to each
    other. MPI_Start: 10 rounds of the four, one alltoall, one allgather;
    MPI_Startall: the four once, the reduce alone, the broadcast and the
    reduce beside the send and receive. `old`: as a file before the
    requests' `collective` column reads, from the calls' own rows: only
    the MPI_Start of a rooted one and the MPI_Startall of the reduce
    alone name a root."""
    bcasts = {None: 12, "MPI_Start": 10, "MPI_Startall": 2}[region]
    reduces = {None: 13, "MPI_Start": 10, "MPI_Startall": 3}[region]
    scatters = {None: 11, "MPI_Start": 10, "MPI_Startall": 1}[region]
    unrooted_ = {None: 1, "MPI_Start": 1, "MPI_Startall": 0}[region]
    if old:
        bcasts = {None: 10, "MPI_Start": 10, "MPI_Startall": 0}[region]
        reduces = {None: 11, "MPI_Start": 10, "MPI_Startall": 1}[region]
        scatters, unrooted_ = bcasts, 0
    out = []
    for m in (0, 1, 3):
        out += [(2, m, 40)] * bcasts
    for m in (0, 2, 3):
        out += [(m, 1, 8)] * reduces
    for m in (0, 1, 2):
        out += [(3, m, 4 * (m + 1))] * scatters
    for s_ in range(N):
        for d in range(N):
            if s_ != d:
                out += [(s_, d, 8), (s_, d, 12)] * unrooted_
    return out


def collective_matrix(region=None, old=False):
    """{(from, to): [messages, bytes]} of messages(region, old)."""
    want = {}
    for s_, d, b in messages(region, old):
        p = want.setdefault((s_, d), [0, 0])
        p[0] += 1
        p[1] += b
    return want


def sizes_of(msgs):
    """{(min_bytes, max_bytes): messages}, power-of-two buckets."""
    out = {}
    for b in msgs:
        k = b.bit_length()
        key = (0, 0) if b == 0 else (1 << (k - 1), (1 << k) - 1)
        out[key] = out.get(key, 0) + 1
    return out


def pairs_of(stdout):
    lines = stdout.strip().split("\n")
    if lines[0] != "sender,receiver,messages,bytes":
        fail(f"scope comm: no csv header: {stdout}")
    return {(int(s), int(d)): [int(m), int(b)]
            for s, d, m, b in (x.split(",") for x in lines[1:])}


def check_collective_matrix(res):
    import scope_reader
    p = scope_reader.read_h5(res.out)
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
        msgs, nbytes = p.comm_matrix(region=region, kind="collective")
        got = {(s_, d): [int(msgs[s_, d]), int(nbytes[s_, d])]
               for s_ in range(msgs.shape[0]) for d in range(msgs.shape[1]) if msgs[s_, d]}
        if got != want:
            fail(f"python comm_matrix({region!r}, kind='collective'):\n got  {sorted(got.items())}"
                 f"\n want {sorted(want.items())}")
        sizes = p.message_sizes(region=region, kind="collective")
        want_sizes = sizes_of([b for _, _, b in messages(region)])
        if sizes != want_sizes:
            fail(f"python message_sizes({region!r}, kind='collective'): {sizes} want {want_sizes}")
    p.close()
    r = run([res.scope, "comm", "--collectives", "--format", "json", res.out], res.env, res.outdir)
    j = json.loads(r.stdout)
    sizes = {(x["min_bytes"], x["max_bytes"]): x["messages"] for x in j["sizes"]}
    if sizes != sizes_of([b for _, _, b in messages()]):
        fail(f"scope comm --collectives sizes: {sizes}")
    # no collective region: the allreduce's starts are MPI_Start's calls
    if j["unpaired"] != []:
        fail(f"scope comm --collectives unpaired: {j['unpaired']}")
    print("collective matrix: every start, alone or with others, as its blocking call")


def check_old_files(res):
    """Makes the rank files old in place (no `collective` or `root`
    column): the older rule, from the calls' rows."""
    for r in range(N):
        with h5py.File(os.path.join(res.ranks_dir, f"rank{r}.h5"), "r+") as f:
            q = f[f"rank{r}/requests"]
            del q["collective"]
            del q["root"]
    import scope_reader
    p = scope_reader.read_h5(res.out)
    for region in (None, "MPI_Start", "MPI_Startall"):
        msgs, nbytes = p.comm_matrix(region=region, kind="collective")
        got = {(s_, d): [int(msgs[s_, d]), int(nbytes[s_, d])]
               for s_ in range(msgs.shape[0]) for d in range(msgs.shape[1]) if msgs[s_, d]}
        want = collective_matrix(region, old=True)
        if got != want:
            fail(f"old files: comm_matrix({region!r}, kind='collective'):\n got  "
                 f"{sorted(got.items())}\n want {sorted(want.items())}")
    pairs = p.message_pairs()
    got = {(int(s_), int(d)): [int(m), int(b)] for s_, d, m, b in
           zip(pairs["sender"], pairs["receiver"], pairs["messages"], pairs["bytes"])}
    if got != {(r, NXT(r)): [1, 24] for r in range(N)}:
        fail(f"old files: message_pairs {got}")
    p.close()
    r = run([res.scope, "comm", "--collectives", "--format", "csv", res.out], res.env, res.outdir)
    if r.returncode != 0 or pairs_of(r.stdout) != collective_matrix(None, old=True):
        fail(f"old files: scope comm --collectives: {r.stdout} {r.stderr}")
    print("old files: the collective matrix of the calls' own rows, as before the column")


def check_p2p(res):
    """A root is not a partner: the only point-to-point messages are the
    persistent sends, r -> r + 1 of 24 bytes, once, all in MPI_Startall."""
    want = {(r, NXT(r)): [1, 24] for r in range(N)}
    for region in (None, "MPI_Start", "MPI_Startall"):
        args = ["--region", region] if region else []
        w = want if region != "MPI_Start" else {}
        r = run([res.scope, "comm", "--format", "csv"] + args + [res.out], res.env, res.outdir)
        if r.returncode != 0 or pairs_of(r.stdout) != w:
            fail(f"scope comm {args}: {r.stdout} {r.stderr} want {w}")
        r = run([res.scope, "comm", "--format", "json"] + args + [res.out], res.env, res.outdir)
        j = json.loads(r.stdout) if r.returncode == 0 else None
        sizes = {(x["min_bytes"], x["max_bytes"]): x["messages"] for x in j["sizes"]} if j else None
        if sizes != ({(16, 31): N} if w else {}):
            fail(f"scope comm {args}: sizes {r.stdout} {r.stderr}")
    import scope_reader
    p = scope_reader.read_h5(res.out)
    msgs, nbytes = p.comm_matrix()
    got = {(s_, d): [int(msgs[s_, d]), int(nbytes[s_, d])]
           for s_ in range(msgs.shape[0]) for d in range(msgs.shape[1]) if msgs[s_, d]}
    pairs = p.message_pairs()
    got_pairs = {(int(s_), int(d)): [int(m), int(b)] for s_, d, m, b in
                 zip(pairs["sender"], pairs["receiver"], pairs["messages"], pairs["bytes"])}
    if got != want or got_pairs != want or p.message_sizes() != {(16, 31): N}:
        fail(f"python: point-to-point traffic: {got} {got_pairs} {p.message_sizes()} want {want}")
    for r in range(N):
        pairs = p.message_pairs(ranks=[r])
        if list(pairs["sender"]) != [r] or list(pairs["receiver"]) != [NXT(r)]:
            fail(f"python message_pairs(ranks=[{r}]): {pairs}")
    p.close()
    r = run([res.scope, "waits", "--format", "json", res.out], res.env, res.outdir)
    if r.returncode != 0:
        fail(f"scope waits: {r.returncode} {r.stderr}")
    t = json.loads(r.stdout)["totals"]
    if t["messages"] != N or t["unmatched_sends"] or t["unmatched_receives"]:
        fail(f"scope waits: not the {N} persistent sends: {r.stdout}")
    # the OTF2 export writes no point-to-point record for a start of a
    # collective (no MpiIsend to the root), nor for an MPI_Startall's
    # requests; skipped where scope or the machine lacks OTF2
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
    print("point to point: the persistent sends alone (a root is no partner)")


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
    # MPI_Start: 10 rounds, the alltoall (4 x 32 each way) and the
    # allgather (4 x 12 sent, 4 x 48 received); MPI_Startall: the four, the
    # reduce (32 sent, 8 received), and the broadcast, the reduce and the
    # send and receive (40 + 32 + 4 x 24 sent, 120 + 8 + 4 x 24 received)
    want = {"MPI_Start": [1600 + 128 + 48, 2160 + 128 + 192],
            "MPI_Startall": [160 + 32 + 168, 216 + 8 + 224]}
    if totals != want:
        fail(f"byte totals {totals} want {want}")
    check_collective_matrix(res)
    check_p2p(res)
    check_old_files(res)    # last: it rewrites the rank files
    print("ok")


if __name__ == "__main__":
    main()
