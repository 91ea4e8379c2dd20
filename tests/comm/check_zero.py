#!/usr/bin/env python3
"""check_zero.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR

Messages of 0 bytes (issue 44 item 4, docs/format.md "Messages of 0
bytes"): PROGRAM is prog_zero.c (its comment lists the calls), run with 4
ranks under MPI's launcher, bare and under the preload with the config
`MPI_*`. Every call moves 0 elements, and each matrix counts the messages
its model names all the same, each of 0 bytes, derived by hand below:
  - point to point: one per rank to next;
  - collective: 3 MPI_Bcasts from root 0 to each other member, an
    MPI_Reduce from each other member to root 1, an MPI_Alltoall and an
    MPI_Allgather from each rank to each other (MPI_Allreduce: none);
  - one-sided: a put from each rank to next, a get from prev to each rank;
`scope comm` (csv, each kind), the Python module's comm_matrix and
message_sizes (all in the "0 .. 0" bucket).
"""
import csv
import io
import sys

from moved_common import N, fail, profile, run


def by_hand():
    """{kind: {(from, to): [messages, bytes]}}."""
    p2p, coll, rma = {}, {}, {}

    def add(t, s, d, k=1):
        t.setdefault((s, d), [0, 0])[0] += k
    for r in range(N):
        nxt, prv = (r + 1) % N, (r + N - 1) % N
        add(p2p, r, nxt)
        if r != 0:
            add(coll, 0, r, 3)      # MPI_Bcast x 3
        if r != 1:
            add(coll, r, 1)         # MPI_Reduce
        for m in range(N):
            if m != r:
                add(coll, r, m, 2)  # MPI_Alltoall, MPI_Allgather
        add(rma, r, nxt)            # MPI_Put
        add(rma, prv, r)            # MPI_Get
    return {"p2p": p2p, "collective": coll, "one-sided": rma}


def main():
    if len(sys.argv) != 7:
        fail("usage: check_zero.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR")
    res = profile(sys.argv[1:7])
    if sorted(ln for ln in res.stdout.splitlines() if ln.startswith("rank")) != \
            [f"rank {r}: done" for r in range(N)]:
        fail(f"stdout: {res.stdout}")
    want = by_hand()
    import scope_reader
    p = scope_reader.read_h5(res.out)
    for kind, flags in (("p2p", []), ("collective", ["--collectives"]),
                        ("one-sided", ["--one-sided"])):
        r = run([res.scope, "comm", "--format", "csv"] + flags + [res.out], res.env, res.outdir)
        if r.returncode != 0:
            fail(f"scope comm {flags}: {r.returncode} {r.stderr}")
        got = {(int(x["sender"]), int(x["receiver"])): [int(x["messages"]), int(x["bytes"])]
               for x in csv.DictReader(io.StringIO(r.stdout))}
        if got != want[kind]:
            fail(f"scope comm {kind}:\n got  {sorted(got.items())}\n want {sorted(want[kind].items())}")
        msgs, nbytes = p.comm_matrix(kind=kind) if kind != "p2p" else p.comm_matrix()
        got = {(s, t): [int(msgs[s, t]), int(nbytes[s, t])]
               for s in range(msgs.shape[0]) for t in range(msgs.shape[1]) if msgs[s, t]}
        if got != want[kind]:
            fail(f"python comm_matrix({kind}):\n got  {sorted(got.items())}\n"
                 f" want {sorted(want[kind].items())}")
        sizes = p.message_sizes(kind=kind) if kind != "p2p" else p.message_sizes()
        total = sum(v[0] for v in want[kind].values())
        if sum(sizes.values()) != total or max(sizes.values()) != total:
            fail(f"python message_sizes({kind}): {sizes}, want {total} messages of 0 bytes")
        print(f"{kind}: {total} messages of 0 bytes as derived")
    p.close()
    print("ok")


if __name__ == "__main__":
    main()
