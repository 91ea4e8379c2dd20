#!/usr/bin/env python3
"""check_comm.py SCOPE PRELOAD MPI LANG PROGRAM OUTDIR

What MPI calls moved (issue 28): runs PROGRAM (prog_comm.c or
prog_comm.f90, built with MPI's wrapper compiler) with 4 ranks under MPI's
real launcher (MPI = openmpi: mpirun; mpich: mpirun.mpich), bare and with
PRELOAD and the config `MPI_*`, and checks:
  - stdout (sorted: ranks print in any order) and the exit status are the
    bare run's; the invalid-datatype send is refused with and without scope;
  - every data column of every MPI region of every rank, call by call:
    bytes sent and received, dest and source as world ranks, tag and
    communicator, each value derived by hand below from the rank alone
    (docs/format.md, "What MPI calls moved");
  - the communicators table: MPI_COMM_WORLD and the split with reversed
    keys, whose members come out as world ranks in split order, and the
    call that made each (MPI_Init, MPI_Comm_split, MPI_Intercomm_create,
    MPI_Comm_dup);
  - calls that move nothing record no data columns (MPI_Waitall, MPI_Init);
  - nonblocking and persistent requests followed to their completion (C
    program; persistent ones started by MPI_Startall and MPI_Start): each
    MPI_Irecv's size, and the source and tag of one from MPI_ANY_SOURCE,
    come from the status its MPI_Waitany/Waitsome/Testall/Waitall
    completed it with; /rank<N>/requests names the post and completing
    call of every completed request (a freed one has none, a cancelled
    receive is marked);
  - `scope events --format csv` gives each call's columns;
  - `scope comm --format csv` gives the point-to-point matrix these
    columns imply, `scope summary --format csv` the byte totals, and
    `scope plot --kind comm` and `scope report` one heat-map cell per
    pair, `scope callsites` the bytes of each call site (the config records call
    sites, so each timed begin carries one and its end is a record of its
    own: the data record then follows a plain end);
  - the Python module gives the same matrix, totals and columns.
"""
import csv
import io
import json
import os
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, fail  # noqa: E402

N = 4
NO_TAG = -2147483648
LAUNCHER_VARS = ("OMPI_", "PMI_", "PMIX_", "SLURM_", "MV2_", "PALS_", "ALPS_", "FLUX_", "JSM_")


def launcher(mpi):
    if mpi == "openmpi":
        return ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "btl_tcp_if_include",
                "lo", "--mca", "oob_tcp_if_include", "lo", "-n", str(N)]
    return ["mpirun.mpich", "-n", str(N)]


def row(sent=0, received=0, dest=-1, source=-1, tag=NO_TAG, comm=0):
    return (sent, received, dest, source, tag, comm)


def expected_c(r, mpi="openmpi"):
    """{region: [row per call, in call order]} of prog_comm.c on rank r.
    Receives from MPI_ANY_SOURCE arrive in any order: they are a set.
    MPICH (MPI 4) also runs the large-count functions."""
    nxt, prv = (r + 1) % N, (r + N - 1) % N
    tri = N * (N + 1) // 2
    send = [row(4 * (r + 1) * 100, dest=nxt, tag=7)]
    if r > 0:
        send.append(row(8 * 10 * r, dest=0, tag=100 + r))
    if r != N - 1:                      # split rank 0 is world rank N-1
        send.append(row(4, dest=N - 1, tag=5, comm=1))
    if r == 0:
        send.append(row(24, dest=1, tag=11))        # the vector type: 3 x 2 ints
    send.append(row())                              # to MPI_PROC_NULL
    if r % 2 == 0:                                  # even side of the intercommunicator
        send.append(row(4, dest=r + 1, tag=71, comm=2))
    send.append(row(comm=-1))                       # refused (the program's last send): no data
    recv = [row(received=4 * (prv + 1) * 100, source=prv, tag=7)]
    if r == 0:
        recv.append({row(received=80 * s, source=s, tag=100 + s) for s in range(1, N)})
    if r == N - 1:
        recv += [row(received=4, source=N - 1 - i, tag=5, comm=1) for i in range(1, N)]
    if r == 1:
        recv.append(row(received=24, source=0, tag=11))
    recv.append(row(received=24, source=prv, tag=51))     # the freed Isend's message
    if r % 2 == 1:
        recv.append(row(received=4, source=r - 1, tag=71, comm=2))
    large = {}
    if mpi == "mpich":
        large = {"MPI_Send_c": [row(8 * (r + 1), dest=nxt, tag=21)],
                 "MPI_Recv_c": [row(received=8 * (prv + 1), source=prv, tag=21)],
                 "MPI_Allreduce_c": [row(12, 12)]}
    return {
        **large,
        "MPI_Send": send,
        "MPI_Recv": recv,
        "MPI_Alltoallv": [row(4 * (r + 1) * tri, 4 * (r + 1) * tri)],
        "MPI_Gatherv": [row(8 * (r + 1), 8 * tri if r == 1 else 0, 1, 1)],
        "MPI_Scatter": [row(12 * N if r == N - 1 else 0, 12, N - 1, N - 1)],
        "MPI_Sendrecv": [row(40 if r + 1 < N else 0, 40 if r > 0 else 0,
                             r + 1 if r + 1 < N else -1, r - 1 if r > 0 else -1, 3),
                         row(8, 8, nxt, prv, 81, comm=3)],     # on the duplicate
        # receives complete with what their status said: size, and the
        # source and tag of the MPI_ANY_SOURCE/ANY_TAG one; the cancelled
        # one keeps what it posted
        "MPI_Irecv": [row(received=4, source=prv, tag=9), row(received=8, source=prv, tag=61),
                      row(received=12, source=prv, tag=31), row(received=16, source=prv, tag=32),
                      row(received=20, source=prv, tag=41), row(source=prv, tag=99)],
        "MPI_Isend": [row(4, dest=nxt, tag=9), row(8, dest=nxt, tag=61), row(12, dest=nxt, tag=31),
                      row(16, dest=nxt, tag=32), row(20, dest=nxt, tag=41), row(24, dest=nxt, tag=51)],
        # root 0 on MPI_COMM_WORLD; then on the intercommunicator: world
        # rank 0 is MPI_ROOT, the other even ranks MPI_PROC_NULL (no
        # data), the odd ranks receive from it
        "MPI_Bcast": [row(64, 0, 0, 0) if r == 0 else row(0, 64, 0, 0),
                      row(20, 0, 0, 0, comm=2) if r == 0 else
                      row(comm=2) if r % 2 == 0 else row(0, 20, 0, 0, comm=2)],
        "MPI_Allreduce": [row(16, 16)],
        "MPI_Barrier": [row(), row()],
        # a start of both requests: the bytes they send together, no
        # destination; the receive's bytes, source and tag from its
        # completion
        "MPI_Startall": [row(8, 8, source=prv, tag=91)] * 10,
        # one by one: each request's own values
        "MPI_Start": [row(received=8, source=prv, tag=91), row(8, dest=nxt, tag=91)] * 3,
    }


# (post region, completing region): completed requests, and how many of
# them were cancelled, per rank of prog_comm.c (/rank<N>/requests)
REQUESTS_C = {("MPI_Irecv", "MPI_Waitall"): 1, ("MPI_Isend", "MPI_Waitall"): 1,
              ("MPI_Irecv", "MPI_Waitany"): 1, ("MPI_Isend", "MPI_Waitany"): 1,
              ("MPI_Irecv", "MPI_Waitsome"): 2, ("MPI_Isend", "MPI_Waitsome"): 2,
              ("MPI_Irecv", "MPI_Testall"): 1, ("MPI_Isend", "MPI_Testall"): 1,
              ("MPI_Irecv", "MPI_Wait"): 1,
              ("MPI_Startall", "MPI_Waitall"): 20, ("MPI_Start", "MPI_Waitall"): 6}


def expected_f(r):
    """The same for prog_comm.f90: the ring, alltoallv, bcast, allreduce
    and the halo, through the Fortran bindings."""
    e = expected_c(r)
    keep = ("MPI_Alltoallv", "MPI_Bcast", "MPI_Allreduce", "MPI_Sendrecv")
    out = {k: e[k][:1] for k in keep}
    out["MPI_Send"] = e["MPI_Send"][:1]
    out["MPI_Recv"] = e["MPI_Recv"][:1]
    return out


def same(got, want):
    """Rows in order, a set standing for as many rows in any order."""
    i = 0
    for w in want:
        if isinstance(w, set):
            part = set(got[i:i + len(w)])
            if part != w or len(got[i:i + len(w)]) != len(w):
                return False
            i += len(w)
        else:
            if i >= len(got) or got[i] != w:
                return False
            i += 1
    return i == len(got)


def run(cmd, env, cwd):
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=240)


def collective_pairs(coll, inter):
    """The pairwise shares of docs/format.md's collective model, from the
    columns checked above (MPI_COMM_WORLD, ranks 0-3; a call on an
    intercommunicator has none, and the program makes no other): a root to each other member for
    Bcast/Scatter(v) (what the member received), each other member to the
    root for Gather(v)/Reduce (what it sent), a member's sent bytes split
    in 4 equal blocks for Alltoall, what it sent the others (its own block
    left out) spread over them for Alltoallv, and its one block for Allgather(v)
    to each other member; Allreduce and Barrier have none."""
    want = {}

    def add(s, d, b):
        p = want.setdefault((s, d), [0, 0])
        p[0] += 1
        p[1] += b
    for (r, name), calls in coll.items():
        op = name[4:].removesuffix("_c")
        if op not in ("Bcast", "Scatter", "Scatterv", "Gather", "Gatherv", "Reduce", "Alltoall",
                      "Alltoallv", "Alltoallw", "Allgather", "Allgatherv"):
            continue
        for sent, received, dest, source, tag, comm in calls:
            if (r, comm) in inter:
                continue
            if comm != 0:
                fail(f"rank {r} {name}: a collective on communicator {comm}")
            root = dest if dest >= 0 else source
            # a share of 0 bytes is a message all the same (docs/format.md)
            if op in ("Bcast", "Scatter", "Scatterv") and 0 <= root != r:
                add(root, r, received)
            elif op in ("Gather", "Gatherv", "Reduce") and 0 <= root != r:
                add(r, root, sent)
            elif op == "Alltoall":
                for m in range(N):
                    if m != r:
                        add(r, m, sent // N)
            elif op == "Alltoallv":
                # rank r sends (r+1)(j+1) ints to rank j: what went to the
                # others, its own (r+1)^2 ints left out, spread over them,
                # the remainder a byte each to the first ones
                each, extra = divmod(sent - 4 * (r + 1) ** 2, N - 1)
                for i, m in enumerate(x for x in range(N) if x != r):
                    add(r, m, each + (1 if i < extra else 0))
            elif op in ("Allgather", "Allgatherv"):
                for m in range(N):
                    if m != r:
                        add(r, m, sent)
    return want


NO_PAIRS = ("Allreduce", "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan", "Barrier",
            "Neighbor_allgather", "Neighbor_allgatherv", "Neighbor_alltoall",
            "Neighbor_alltoallv", "Neighbor_alltoallw")


def unpaired(coll):
    """{region: calls with data} of the collectives the byte model gives
    no pair (docs/format.md): reductions to all, scans, barriers,
    neighbourhood collectives, blocking or nonblocking (MPI_Iallreduce),
    int or large-count; from the columns checked."""
    want = {}
    for (r, name), calls in coll.items():
        op = name[4:].removesuffix("_c")
        nb = op[:1] == "I" and op[1:2].upper() + op[2:] in NO_PAIRS
        n = sum(1 for c in calls if c[5] >= 0)
        if (op in NO_PAIRS or nb) and n:
            want[name] = want.get(name, 0) + n
    return want


def check_unpaired(scope, out, env, outdir, want):
    """`scope comm --collectives` lists the collective regions without
    pairs and their calls: json's "unpaired", and the table's lines."""
    r = run([scope, "comm", "--collectives", "--format", "json", out], env, outdir)
    if r.returncode != 0:
        fail(f"scope comm --collectives --format json: {r.returncode} {r.stderr}")
    got = {x["region"]: x["calls"] for x in json.loads(r.stdout)["unpaired"]}
    if got != want:
        fail(f"scope comm --collectives unpaired:\n got  {got}\n want {want}")
    r = run([scope, "comm", "--collectives", out], env, outdir)
    lines = r.stdout.split("\nno pairs (")[-1].splitlines()[1:] if want else []
    got = {x.split()[0]: int(x.split()[1]) for x in lines}
    if r.returncode != 0 or got != want:
        fail(f"scope comm --collectives, the regions without pairs:\n{r.stdout}\n want {want}")
    print(f"scope comm --collectives: {len(want)} regions without pairs listed")


def check_collectives(scope, out, env, outdir, coll):
    inter = set()
    for r in range(N):
        with h5py.File(os.path.join(out[:-3] + ".ranks", f"rank{r}.h5"), "r") as f:
            rs = f[f"rank{r}/communicators/remote_size"][:]
            inter |= {(r, c) for c in range(len(rs)) if rs[c] > 0}
    want = collective_pairs(coll, inter)
    if not any(s == 0 and d == 1 for s, d in want):
        fail(f"the expected collective matrix lacks MPI_Bcast's 0 -> 1: {want}")
    r = run([scope, "comm", "--collectives", "--format", "csv", out], env, outdir)
    if r.returncode != 0:
        fail(f"scope comm --collectives: {r.returncode} {r.stderr}")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    got = {(int(x["sender"]), int(x["receiver"])): [int(x["messages"]), int(x["bytes"])]
           for x in rows}
    if got != want:
        fail(f"scope comm --collectives:\n got  {got}\n want {want}")
    r = run([scope, "comm", "--collectives", "--one-sided", out], env, outdir)
    if r.returncode != 2 or "exclude each other" not in r.stderr:
        fail(f"scope comm --collectives --one-sided: {r.returncode} {r.stderr}")
    print(f"scope comm --collectives: {len(want)} pairs as the byte model says")
    check_unpaired(scope, out, env, outdir, unpaired(coll))
    return want


def main():
    scope, preload, mpi, lang, prog, outdir = sys.argv[1:7]
    scope, preload, prog = map(os.path.abspath, (scope, preload, prog))
    os.makedirs(outdir, exist_ok=True)
    outdir = os.path.abspath(outdir)
    env = clean_env(drop=LAUNCHER_VARS, mpi_root=True)
    bare = run(launcher(mpi) + [prog], env, outdir)
    conf = os.path.join(outdir, "scope.conf")
    with open(conf, "w") as f:
        f.write("callsites = 1\nMPI_*\n")     # a begin with a site: its end is a record
    out = os.path.join(outdir, "p.h5")
    penv = dict(env, SCOPE_CONFIG=conf, SCOPE_OUTPUT=out, LD_PRELOAD=preload)
    prof = run(launcher(mpi) + [prog], penv, outdir)
    if prof.returncode != bare.returncode:
        fail(f"exit status {prof.returncode} under scope, {bare.returncode} bare: {prof.stderr}")
    if sorted(prof.stdout.splitlines()) != sorted(bare.stdout.splitlines()):
        fail(f"stdout differs:\n{prof.stdout}\n--- bare:\n{bare.stdout}")
    if lang == "c" and prof.stdout.count("bad type: refused") != N:
        fail("the invalid datatype was not refused on every rank: " + prof.stdout)

    want_of = (lambda r: expected_c(r, mpi)) if lang == "c" else expected_f
    ranks_dir = out[:-3] + ".ranks"
    totals = {}
    pairs = {}
    coll = {}  # (rank, region) -> the checked columns of its collective calls
    for r in range(N):
        with h5py.File(os.path.join(ranks_dir, f"rank{r}.h5"), "r") as f:
            g = f[f"rank{r}/regions"]
            want = want_of(r)
            for name in g:
                rg = g[name]
                has = "bytes_sent" in rg
                if name not in want:
                    if has:
                        fail(f"rank {r} {name}: data columns on a call that moves nothing")
                    continue
                if not has:
                    fail(f"rank {r} {name}: no data columns")
                cols = [rg[k][:].tolist() for k in
                        ("bytes_sent", "bytes_received", "dest", "source", "tag", "comm")]
                got = list(zip(*cols))
                if not same(got, want[name]):
                    fail(f"rank {r} {name}:\n got  {got}\n want {want[name]}")
                coll[(r, name)] = got
                t = totals.setdefault(name, [0, 0])
                t[0] += sum(c[0] for c in got)
                t[1] += sum(c[1] for c in got)
                if name in ("MPI_Send", "MPI_Isend", "MPI_Sendrecv", "MPI_Send_c", "MPI_Start",
                            "MPI_Startall"):
                    for c in got:
                        if c[2] >= 0:
                            p = pairs.setdefault((r, c[2]), [0, 0])
                            p[0] += 1
                            p[1] += c[0]
                        elif name == "MPI_Startall":
                            # its one send, to rank + 1 (the request rows
                            # say where it went; the call's columns cannot)
                            p = pairs.setdefault((r, (r + 1) % N), [0, 0])
                            p[0] += 1
                            p[1] += c[0]
            missing = set(want) - set(g)
            if missing:
                fail(f"rank {r}: no region {sorted(missing)}")
            if lang == "c":
                q = f[f"rank{r}/requests"]
                names = bytes(q["region_names"][:]).split(b"\0")[:-1]
                names = [x.decode() for x in names]
                got = {}
                for pr_, dr_ in zip(q["post_region"][:], q["done_region"][:]):
                    key = (names[pr_], names[dr_])
                    got[key] = got.get(key, 0) + 1
                cancelled = int(q["cancelled"][:].sum())
                if got != REQUESTS_C or cancelled != 1:
                    fail(f"rank {r} requests: {got}, {cancelled} cancelled")
                # each row names a real post: its call index is in range
                for pr_, pc_ in zip(q["post_region"][:], q["post_call"][:]):
                    if not 0 <= pc_ < len(g[names[pr_]]["start_times"]):
                        fail(f"rank {r} requests: post call {pc_} of {names[pr_]} out of range")
            cm = f[f"rank{r}/communicators"]
            sizes = cm["size"][:].tolist()
            members = cm["members"][:].tolist()
            names = bytes(cm["names"][:]).split(b"\0")[:-1]
            # world; the reversed split; the intercommunicator (this side,
            # then the other); the duplicate
            mine = [x for x in range(N) if x % 2 == r % 2]
            other = [x for x in range(N) if x % 2 != r % 2]
            want_sizes = [N, N, 2, N] if lang == "c" else [N]
            want_members = list(range(N)) + (list(range(N - 1, -1, -1)) + mine + other +
                                             list(range(N)) if lang == "c" else [])
            if lang == "c" and cm["remote_size"][:].tolist() != [0, 0, 2, 0]:
                fail(f"rank {r} communicators: remote sizes {cm['remote_size'][:]}")
            if sizes != want_sizes or members != want_members or names[0] != b"MPI_COMM_WORLD":
                fail(f"rank {r} communicators: sizes {sizes} members {members} names {names}")
            # the call that made each
            creators = [x.decode() for x in bytes(cm["creators"][:]).split(b"\0")[:-1]]
            want_creators = (["MPI_Init", "MPI_Comm_split", "MPI_Intercomm_create",
                              "MPI_Comm_dup"] if lang == "c" else ["MPI_Init"])
            if creators != want_creators:
                fail(f"rank {r} communicators: made by {creators}, want {want_creators}")
    print("columns: every call of every rank as derived")

    # the tool: the matrix and the totals, from the same columns
    r = run([scope, "comm", "--format", "csv", out], env, outdir)
    if r.returncode != 0:
        fail(f"scope comm: {r.returncode} {r.stderr}")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    got = {(int(x["sender"]), int(x["receiver"])): [int(x["messages"]), int(x["bytes"])] for x in rows}
    if got != pairs:
        fail(f"scope comm matrix:\n got  {got}\n want {pairs}")
    coll_pairs = check_collectives(scope, out, env, outdir, coll)
    r = run([scope, "summary", "--format", "csv", out], env, outdir)
    if r.returncode != 0:
        fail(f"scope summary: {r.stderr}")
    summ = {x["region"]: x for x in csv.DictReader(io.StringIO(r.stdout))}
    for name, (s, rcv) in totals.items():
        if int(summ[name]["bytes_sent"]) != s or int(summ[name]["bytes_received"]) != rcv:
            fail(f"scope summary {name}: {summ[name]} want sent {s} received {rcv}")
    # mpiP's table: bytes per call site (every MPI_Send of rank 0 is on a
    # line of its own)
    r = run([scope, "callsites", "--region", "^MPI_Send$", "--rank", "0", "--format", "csv", out],
            env, outdir)
    if r.returncode != 0:
        fail(f"scope callsites: {r.returncode} {r.stderr}")
    sites = sorted(int(x["bytes_sent"]) for x in csv.DictReader(io.StringIO(r.stdout)))
    want = sorted(c[0] for c in want_of(0)["MPI_Send"])
    if sites != want:
        fail(f"scope callsites bytes per site of rank 0's MPI_Send: {sites} want {want}")
    # scope events: the columns of every call, here rank 0's receives
    r = run([scope, "events", "--format", "csv", "--include", "^MPI_Recv$", "--ranks", "0", out],
            env, outdir)
    ev = [(int(x["bytes_sent"]), int(x["bytes_received"]), int(x["dest"]), int(x["source"]),
           int(x["tag"]) if x["tag"] else NO_TAG, int(x["comm"]))
          for x in csv.DictReader(io.StringIO(r.stdout))]
    if r.returncode != 0 or not same(ev, want_of(0)["MPI_Recv"]):
        fail(f"scope events rank 0 MPI_Recv: {ev} {r.stderr}")

    # the picture and the report: one heat-map cell per pair
    r = run([scope, "plot", "--kind", "comm", "-o", "-", out], env, outdir)
    cells = r.stdout.count("</title></rect>") - r.stdout.count("messages</title></rect>")
    if r.returncode != 0 or cells != len(pairs):
        fail(f"scope plot --kind comm: status {r.returncode}, {cells} cells for {len(pairs)} "
             f"pairs {r.stderr}")
    html = os.path.join(outdir, "report.html")
    r = run([scope, "report", "-o", html, out], env, outdir)
    with open(html) as f:
        page = f.read()
    if r.returncode != 0 or '<section id="comm">' not in page:
        fail(f"scope report: status {r.returncode}, no communication section {r.stderr}")
    print("scope comm, summary, callsites, plot and report: the matrix, totals and sites "
          "of the columns")

    # the Python module: the same matrix and columns as numpy arrays
    import scope_reader
    p = scope_reader.read_h5(out)
    msgs, nbytes = p.comm_matrix()
    got = {(s_, r_): [int(msgs[s_, r_]), int(nbytes[s_, r_])]
           for s_ in range(msgs.shape[0]) for r_ in range(msgs.shape[1]) if msgs[s_, r_]}
    if got != pairs:
        fail(f"python comm_matrix:\n got  {got}\n want {pairs}")
    # the long table the Dask matrix adds up, MPI_Startall's sends included
    lp = p.message_pairs()
    got = {(int(s_), int(r_)): [int(m_), int(b_)] for s_, r_, m_, b_ in
           zip(lp["sender"], lp["receiver"], lp["messages"], lp["bytes"])}
    if got != pairs:
        fail(f"python message_pairs:\n got  {got}\n want {pairs}")
    msgs, nbytes = p.comm_matrix(kind="collective")
    got = {(s_, r_): [int(msgs[s_, r_]), int(nbytes[s_, r_])]
           for s_ in range(msgs.shape[0]) for r_ in range(msgs.shape[1]) if msgs[s_, r_]}
    if got != coll_pairs:
        fail(f"python comm_matrix(kind='collective'):\n got  {got}\n want {coll_pairs}")
    for name, (s, rcv) in totals.items():
        if (p[name].bytes_sent, p[name].bytes_received) != (s, rcv):
            fail(f"python {name}: {p[name].bytes_sent}, {p[name].bytes_received} want {s}, {rcv}")
    m = p["MPI_Send"].moved(rank=0)
    want = [c for c in expected_c(0)["MPI_Send"]] if lang == "c" else expected_f(0)["MPI_Send"]
    cols = list(zip(*(m[k].tolist() for k in ("bytes_sent", "bytes_received", "dest", "source",
                                               "tag", "comm"))))
    if cols != want:
        fail(f"python MPI_Send moved(rank=0): {cols} want {want}")
    if "MPI_Init" in p and p["MPI_Init"].moved(rank=0) is not None:
        fail("python: MPI_Init has data columns")
    p.close()
    print("python: comm_matrix, message_pairs, bytes and moved() agree")
    print("ok")


if __name__ == "__main__":
    main()
