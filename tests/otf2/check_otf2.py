#!/usr/bin/env python3
"""check_otf2.py MODE --scope TOOL --preload SO --prog PROG [--mpi M] [--fakehost F] OUTDIR

`scope export --to otf2` (issue 31) on a real profiled MPI run: runs
prog_otf2.c (4 ranks, 2 extra threads each, built with the MPI's own
wrapper) under the preload, exports the profile, and reads the archive
back twice, with python3-otf2 (otf2.reader) and with `otf2-print`:

MODE  one    one host, under M's launcher (openmpi: mpirun; mpich:
             mpirun.mpich)
      hosts  two simulated hosts (hostA, hostB, clocks an hour apart) under
             Open MPI, with tests/hosts' launch agent and helpers
             (check_hosts.run_hosts: UTS and time namespaces, needs root)
      ties   one host, a clock made 10 us coarse (SCOPE_CLOCK_ROUND_NS):
             calls share timestamps with their parents and siblings, and
             still nest as recorded (each thread's leaf calls inside its
             thread_work; at least one tie is checked to be there)

Checked, exactly:
  - definitions: one location per (rank, thread lane), numbered as Score-P
    does (lane << 32 | rank), its event count; a location group per rank
    under the system tree node of its host (hostname); one region per
    profile region, MPI roles and paradigm; the clock: 1e9 ticks/s, the
    global offset the earliest call start, the length to the latest end;
    MPI_COMM_WORLD (comm 0) and the two halves of the split as comms whose
    groups are their members as world ranks, and the intercommunicator
    between them as a comm with an empty group (its calls get no records);
  - events: per location, the Enter/Leave sequence equals the one the
    reader's call stack gives (region, time in ns on the aligned timeline,
    nesting by parent links); each extra thread is thread_work with 5
    nested leaf calls; every jumper call (left by longjmp) leaves with the
    attribute unwound = 1, and no other call does; times never decrease
    along a location;
  - MPI records, call by call on each rank's main thread, against what
    the program does (derived by hand below): MpiSend/MpiRecv with the
    partner as a rank of the communicator, tag and bytes; MpiIsend/
    MpiIrecvRequest at the post and MpiIsendComplete/MpiIrecv in the
    MPI_Wait/MPI_Waitall that completed them, with matching request ids
    (persistent ones started by MPI_Start too; a cancelled receive's
    MpiRequestCancelled; a freed send's id of 2^63 or more, never closed);
    MpiCollectiveBegin/End with operation, communicator, root and bytes;
  - every message matched one to one: sends (sender, receiver, comm, tag,
    bytes) equal receives, 32 messages in all (none on the
    intercommunicator, none of MPI_Startall, none to MPI_PROC_NULL);
  - otf2-print shows the same: events per location and kind, every
    message record's fields.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

import h5py
import otf2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
from checker import clean_env, fail, run_limited  # noqa: E402

N = 4
CONF = "MPI_*\nouter\ninner\nthread_work\nleaf\njumper\n"
LAUNCHER_VARS = ("OMPI_", "PMI_", "PMIX_", "SLURM_", "MV2_", "PALS_", "ALPS_", "FLUX_", "JSM_")
UNDEF32 = 0xFFFFFFFF


def launcher(mpi):
    if mpi == "openmpi":
        return ["mpirun", "--oversubscribe", "--mca", "btl_tcp_if_include", "lo",
                "--mca", "oob_tcp_if_include", "lo", "-n", str(N)]
    return ["mpirun.mpich", "-n", str(N)]


def profile_run(a, out):
    """Runs the program under the preload; returns the profile's path and
    {rank: host} as the program was placed."""
    conf = os.path.join(out, "scope.conf")
    with open(conf, "w") as f:
        f.write(CONF)
    if a.mode == "hosts":
        sys.path.insert(0, os.path.join(HERE, "..", "hosts"))
        import check_hosts
        hargs = argparse.Namespace(preload=a.preload, mpi="openmpi", fakehost=a.fakehost)
        path, stdout, _ = check_hosts.run_hosts(hargs, {"hostA": 0, "hostB": 3600}, [a.prog],
                                                out, extra_env={"SCOPE_CONFIG": conf}, ppn=2)
        hosts = {0: "hostA", 1: "hostA", 2: "hostB", 3: "hostB"}
    else:
        path = os.path.join(out, "p.h5")
        env = clean_env(drop=LAUNCHER_VARS, mpi_root=True, SCOPE_CONFIG=conf,
                        SCOPE_OUTPUT=path, LD_PRELOAD=a.preload)
        if a.mode == "ties":
            env["SCOPE_CLOCK_ROUND_NS"] = "10000"
        p = run_limited(launcher(a.mpi) + [a.prog], env, out, "the profiled run", 240)
        if p.returncode != 0:
            fail(f"profiled run exited with {p.returncode}: {p.stderr}")
        stdout = p.stdout
        host = os.uname().nodename
        hosts = {r: host for r in range(N)}
    if sorted(stdout.split("\n")) != sorted([f"rank {r} done" for r in range(N)] + [""]):
        fail(f"the program's output: {stdout!r}")
    return path, hosts


def expected_lanes(prof, path):
    """{(rank, lane): [(kind, region name, time ns, unwound)]} from the
    reader's call stacks: Enter at each start, Leave at each end, calls
    opened and closed along the parent links, as recorded."""
    names = prof.region_names
    lanes = {}
    with h5py.File(path, "r") as f:
        for r in prof.ranks:
            unw = {}
            for link, g in f[f"rank{r}/regions"].items():
                nm = g.attrs.get("name", link)
                nm = nm.decode() if isinstance(nm, bytes) else nm
                if "unwound" in g:
                    unw[nm] = g["unwound"][:].tolist()
            a = prof.call_stack_arrays(r, relative=False, columns=(
                "region", "thread", "call_index", "start_ns", "end_ns", "parent"))
            n = len(a["region"])
            reg, th, ci = a["region"].tolist(), a["thread"].tolist(), a["call_index"].tolist()
            st, en, par = a["start_ns"].tolist(), a["end_ns"].tolist(), a["parent"].tolist()
            tops = {}
            for i in range(n + 1):
                lane_list = list(tops) if i == n else [th[i]]
                for ln in lane_list:
                    ev = lanes.setdefault((r, ln), [])
                    top = tops.get(ln, -1)
                    while top >= 0 and (i == n or top != par[i]):
                        nm = names[reg[top]]
                        u = nm in unw and unw[nm][ci[top]] == 1
                        ev.append(("Leave", nm, en[top], u))
                        top = par[top]
                    tops[ln] = top
                if i == n:
                    break
                lanes.setdefault((r, th[i]), []).append(("Enter", names[reg[i]], st[i], False))
                tops[th[i]] = i
    return lanes


def read_archive(arch):
    """(definitions, {location ref: [event]}) through python3-otf2."""
    per = collections.defaultdict(list)
    with otf2.reader.open(os.path.join(arch, "traces.otf2")) as t:
        d = t.definitions
        for loc, ev in t.events:
            per[loc._ref].append(ev)
        defs = {
            "clock": (d.clock_properties.timer_resolution, d.clock_properties.global_offset,
                      d.clock_properties.trace_length),
            "locations": {l._ref: (l.name, l.number_of_events, l.group._ref, l.group.name,
                                   l.group.system_tree_parent.name,
                                   l.group.system_tree_parent.class_name)
                          for l in d.locations},
            "regions": {r.name: (str(r.region_role), str(r.paradigm)) for r in d.regions},
            "comms": {c._ref: (c.name, [m._ref & 0xFFFFFFFF for m in c.group.members],
                               str(c.group.group_type), c.parent.name if c.parent else None)
                      for c in d.comms},
        }
    return defs, per


def world_of(defs, comm, rank_in_comm):
    return defs["comms"][comm._ref][1][rank_in_comm]


def rec(defs, ev):
    """An MPI record as a comparable tuple; partners as world ranks."""
    k = type(ev).__name__
    if k in ("MpiSend", "MpiIsend"):
        t = (k, world_of(defs, ev.communicator, ev.receiver), ev.communicator.name, ev.msg_tag,
             ev.msg_length)
        return t + (ev.request_id,) if k == "MpiIsend" else t
    if k in ("MpiRecv", "MpiIrecv"):
        t = (k, world_of(defs, ev.communicator, ev.sender), ev.communicator.name, ev.msg_tag,
             ev.msg_length)
        return t + (ev.request_id,) if k == "MpiIrecv" else t
    if k in ("MpiIrecvRequest", "MpiIsendComplete", "MpiRequestCancelled"):
        return (k, ev.request_id)
    if k == "MpiCollectiveBegin":
        return (k,)
    if k == "MpiCollectiveEnd":
        root = ev.root
        root = None if root in (None, UNDEF32) else world_of(defs, ev.communicator, root)
        return (k, str(ev.collective_op).split(".")[-1], ev.communicator.name, root,
                ev.size_sent, ev.size_received)
    fail(f"unexpected record {k}")


def expected_mpi(r, half_name):
    """The MPI records of rank r's main thread, call by call: (region,
    sorted records with request ids as letters). Derived from
    prog_otf2.c and the byte model of docs/format.md."""
    nxt, prv = (r + 1) % N, (r + N - 1) % N
    W = "MPI_COMM_WORLD"
    other = [x for x in range(N) if x % 2 == r % 2 and x != r][0]
    send = ("MPI_Send", [("MpiSend", nxt, W, 7, 16 * (r + 1))])
    recv = ("MPI_Recv", [("MpiRecv", prv, W, 7, 16 * (prv + 1))])
    ring = [send, recv] if r % 2 == 0 else [recv, send]
    coll = lambda op, root, s, rv, comm=W: [("MpiCollectiveBegin",),  # noqa: E731
                                            ("MpiCollectiveEnd", op, comm, root, s, rv)]
    return ring + [
        ("MPI_Irecv", [("MpiIrecvRequest", "A")]),
        ("MPI_Isend", [("MpiIsend", nxt, W, 9, 8, "B")]),
        ("MPI_Waitall", [("MpiIrecv", prv, W, 9, 8, "A"), ("MpiIsendComplete", "B")]),
        ("MPI_Irecv", [("MpiIrecvRequest", "C")]),
        ("MPI_Isend", [("MpiIsend", nxt, W, 10, 24, "D")]),
        ("MPI_Wait", [("MpiIsendComplete", "D")]),
        ("MPI_Wait", [("MpiIrecv", prv, W, 10, 24, "C")]),
        ("MPI_Sendrecv", [("MpiSend", nxt, W, 3, 20), ("MpiRecv", prv, W, 3, 20)]),
        ("MPI_Bcast", coll("BCAST", 1, 64 if r == 1 else 0, 0 if r == 1 else 64)),
        ("MPI_Reduce", coll("REDUCE", 2, 32, 32 if r == 2 else 0)),
        ("MPI_Allreduce", coll("ALLREDUCE", None, 16, 16)),
        ("MPI_Gather", coll("GATHER", 0, 8, 32 if r == 0 else 0)),
        ("MPI_Barrier", coll("BARRIER", None, 0, 0)),
        # persistent: MPI_Start of each, then MPI_Startall, whose requests
        # get no records (docs/export.md), nor does their MPI_Waitall
        ("MPI_Start", [("MpiIrecvRequest", "E")]),
        ("MPI_Start", [("MpiIsend", nxt, W, 91, 8, "F")]),
        ("MPI_Waitall", [("MpiIrecv", prv, W, 91, 8, "E"), ("MpiIsendComplete", "F")]),
        # any source, any tag: sender and tag from the status
        ("MPI_Irecv", [("MpiIrecvRequest", "G")]),
        ("MPI_Send", [("MpiSend", nxt, W, 12, 4)]),
        ("MPI_Wait", [("MpiIrecv", prv, W, 12, 4, "G")]),
        # MPI_PROC_NULL: none; the freed send: an id no completion closes
        ("MPI_Isend", [("MpiIsend", nxt, W, 51, 4, "H")]),
        ("MPI_Recv", [("MpiRecv", prv, W, 51, 4)]),
        ("MPI_Irecv", [("MpiIrecvRequest", "I")]),
        ("MPI_Wait", [("MpiRequestCancelled", "I")]),
        ("MPI_Sendrecv", [("MpiSend", other, half_name, 5, 24),
                          ("MpiRecv", other, half_name, 5, 24)]),
        ("MPI_Allreduce", coll("ALLREDUCE", None, 8, 8, half_name)),
    ]


def is_letter(x):
    """A request named in expected_mpi ("A"), not a value."""
    return isinstance(x, str) and len(x) == 1


def check_mpi(defs, r, evs):
    """The MPI records of rank r's main lane, grouped by the MPI call
    they are in, against expected_mpi; request ids bound consistently."""
    halves = [c for c in defs["comms"].values() if c[0] != "MPI_COMM_WORLD" and c[1]]
    mine = [c for c in halves if r in c[1]]
    if len(mine) != 1 or sorted(mine[0][1]) != [x for x in range(N) if x % 2 == r % 2]:
        fail(f"rank {r}: the split's comm: {halves}")
    got = []
    cur = None
    for ev in evs:
        k = type(ev).__name__
        if k == "Enter" and ev.region.name.startswith("MPI_"):
            cur = (ev.region.name, [])
        elif k == "Leave" and cur and ev.region.name == cur[0]:
            if cur[1]:
                got.append(cur)
            cur = None
        elif k.startswith("Io"):
            continue    # the I/O calls' records (printf & co): tests/io/check_otf2.py
        elif k not in ("Enter", "Leave"):
            if not cur:
                fail(f"rank {r}: {k} outside an MPI call")
            cur[1].append(rec(defs, ev))
    want = expected_mpi(r, mine[0][0])
    if [g[0] for g in got] != [w[0] for w in want]:
        fail(f"rank {r}: MPI calls with records:\n got  {[g[0] for g in got]}\n"
             f" want {[w[0] for w in want]}")
    ids = {}
    for (name, g), (_, w) in zip(got, want):
        if len(g) != len(w):
            fail(f"rank {r} {name}: records {g}, want {w}")
        for w1 in w:    # bind request letters to the ids written
            if is_letter(w1[-1]):
                match = [g1 for g1 in g if g1[:-1] == w1[:-1]]
                if len(match) != 1:
                    fail(f"rank {r} {name}: no record {w1} in {g}")
                if ids.setdefault(w1[-1], match[0][-1]) != match[0][-1]:
                    fail(f"rank {r} {name}: request {w1[-1]} has two ids: {ids[w1[-1]]}, "
                         f"{match[0][-1]}")
        bound = [w1[:-1] + (ids[w1[-1]],) if is_letter(w1[-1]) else w1 for w1 in w]
        if sorted(g, key=repr) != sorted(bound, key=repr):
            fail(f"rank {r} {name}:\n got  {g}\n want {bound}")
    if len(set(ids.values())) != len(ids):
        fail(f"rank {r}: request ids not distinct: {ids}")
    if ids["H"] < 1 << 63 or any(v >= 1 << 63 for k, v in ids.items() if k != "H"):
        fail(f"rank {r}: request ids {ids}: only the freed send's is 2^63 or more")


PRINT_RE = re.compile(r"^(\S+)\s+(\d+)\s+(\d+)\s*(.*)$")


def check_print(arch, per, defs):
    """otf2-print's reading: events per location and kind, and each
    message record's receiver/sender, communicator, tag and length, equal
    python3-otf2's."""
    p = subprocess.run(["otf2-print", os.path.join(arch, "traces.otf2")], capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        fail(f"otf2-print: {p.returncode} {p.stderr}")
    counts = collections.Counter()
    msgs = collections.Counter()
    for line in p.stdout.splitlines():
        m = PRINT_RE.match(line)
        if not m or not m.group(1).isupper():
            continue
        kind, loc = m.group(1), int(m.group(2))
        counts[(loc, kind)] += 1
        if kind in ("MPI_SEND", "MPI_ISEND", "MPI_RECV", "MPI_IRECV"):
            f = re.search(r"(?:Receiver|Sender): (\d+) .*Communicator: \"([^\"]*)\" .*"
                          r"Tag: (\d+), Length: (\d+)", m.group(4))
            if not f:
                fail(f"otf2-print line not understood: {line}")
            msgs[(loc, kind, int(f.group(1)), f.group(2), int(f.group(3)), int(f.group(4)))] += 1
    snake = lambda k: re.sub(r"(?<!^)(?=[A-Z])", "_", k).upper()  # noqa: E731
    want = collections.Counter()
    wmsgs = collections.Counter()
    for loc, evs in per.items():
        for ev in evs:
            k = type(ev).__name__
            pk = snake(k)
            want[(loc, pk)] += 1
            if k in ("MpiSend", "MpiIsend", "MpiRecv", "MpiIrecv"):
                partner = ev.receiver if k in ("MpiSend", "MpiIsend") else ev.sender
                wmsgs[(loc, pk, partner, ev.communicator.name, ev.msg_tag, ev.msg_length)] += 1
    if counts != want:
        fail(f"otf2-print events per location and kind differ:\n print {sorted(counts.items())}"
             f"\n otf2  {sorted(want.items())}")
    if msgs != wmsgs or sum(msgs.values()) != 2 * 8 * N:
        fail(f"otf2-print message records differ:\n print {msgs}\n otf2 {wmsgs}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("one", "hosts", "ties"))
    ap.add_argument("--scope", required=True)
    ap.add_argument("--preload", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--mpi", default="openmpi")
    ap.add_argument("--fakehost")
    ap.add_argument("outdir")
    a = ap.parse_args()
    a.scope, a.preload, a.prog = map(os.path.abspath, (a.scope, a.preload, a.prog))
    out = os.path.abspath(a.outdir)
    os.makedirs(out, exist_ok=True)
    os.chdir(out)       # the index's external links resolve from here too
    path, hosts = profile_run(a, out)

    arch = os.path.join(out, "arch")
    p = subprocess.run([a.scope, "export", path, "--to", "otf2", "-o", arch],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or p.stderr:
        fail(f"scope export --to otf2: {p.returncode} {p.stderr}")
    if sorted(os.listdir(arch)) != ["traces", "traces.def", "traces.otf2"]:
        fail(f"archive folder: {sorted(os.listdir(arch))}")

    from scope_reader import read_h5
    prof = read_h5(path)
    want = expected_lanes(prof, path)
    defs, per = read_archive(arch)

    # definitions
    starts = [e[2] for v in want.values() for e in v if e[0] == "Enter"]
    ends = [e[2] for v in want.values() for e in v if e[0] == "Leave"]
    if defs["clock"] != (1_000_000_000, min(starts), max(ends) - min(starts)):
        fail(f"clock properties {defs['clock']}, want 1e9, {min(starts)}, "
             f"{max(ends) - min(starts)}")
    if sorted(defs["regions"]) != sorted(prof.region_names):
        fail(f"regions {sorted(defs['regions'])} != {sorted(prof.region_names)}")
    roles = {"MPI_Send": "POINT2POINT", "MPI_Isend": "POINT2POINT", "MPI_Bcast": "COLL_ONE2ALL",
             "MPI_Reduce": "COLL_ALL2ONE", "MPI_Allreduce": "COLL_ALL2ALL",
             "MPI_Barrier": "BARRIER", "MPI_Waitall": "FUNCTION", "leaf": "FUNCTION",
             "MPI_Init..MPI_Finalize": "ARTIFICIAL"}
    for nm, role in roles.items():
        got_role, par = defs["regions"][nm]
        want_par = ("MPI" if nm.startswith("MPI_") and ".." not in nm else
                    "MEASUREMENT_SYSTEM" if ".." in nm else "USER")
        if not got_role.endswith("." + role) or not par.endswith("." + want_par):
            fail(f"region {nm}: {got_role} {par}, want {role} {want_par}")
    if sorted(defs["locations"]) != sorted((ln << 32) | r for r, ln in want):
        fail(f"locations {sorted(defs['locations'])}, want {sorted(want)}")
    if sorted(want) != [(r, ln) for r in range(N) for ln in range(3)]:
        fail(f"lanes in the profile: {sorted(want)}")
    for (r, ln), evs in want.items():
        ref = (ln << 32) | r
        name, nev, grp, gname, host, hclass = defs["locations"][ref]
        if (name, grp, gname, host, hclass) != (f"rank {r} thread {ln}", r, f"rank {r}",
                                                hosts[r], "node"):
            fail(f"location {ref}: {defs['locations'][ref]}")
        if nev != len(per[ref]):
            fail(f"location {ref}: defined with {nev} events, holds {len(per[ref])}")
    world = [c for c in defs["comms"].values() if c[0] == "MPI_COMM_WORLD"]
    if world != [("MPI_COMM_WORLD", list(range(N)), "GroupType.COMM_GROUP", None)] or \
            defs["comms"][0] != world[0]:
        fail(f"MPI_COMM_WORLD: {world}")
    if len(defs["comms"]) != 4 or sorted(defs["comms"]) != [0, 1, 2, 3] or \
            sum(1 for c in defs["comms"].values() if not c[1]) != 1:
        fail(f"comms: {defs['comms']}")

    # enter/leave, per location, exactly; the unwound attribute
    unwound = 0
    for (r, ln), w in want.items():
        ref = (ln << 32) | r
        got = []
        for ev in per[ref]:
            k = type(ev).__name__
            if k in ("Enter", "Leave"):
                attrs = {a.name: v for a, v in ev.attributes.items()} if ev.attributes else {}
                u = attrs.get("unwound") == 1
                if attrs and not u:
                    fail(f"location {ref}: attributes {attrs}")
                got.append((k, ev.region.name, ev.time, u))
            if k == "Leave" and ev.attributes:
                unwound += 1
        times = [ev.time for ev in per[ref]]
        if times != sorted(times):
            fail(f"location {ref}: timestamps decrease")
        if got != w:
            for i, (x, y) in enumerate(zip(got, w)):
                if x != y:
                    fail(f"location {ref} event {i}: {x}, want {y}")
            fail(f"location {ref}: {len(got)} enter/leave events, want {len(w)}")
        if ln > 0 and [e[:2] for e in got] != [("Enter", "thread_work")] + \
                [("Enter", "leaf"), ("Leave", "leaf")] * 5 + [("Leave", "thread_work")]:
            fail(f"location {ref}: {[e[:2] for e in got]}")
        if ln == 0:
            ranks_unw = [e[1] for e in got if e[3]]
            if ranks_unw != ["jumper"]:
                fail(f"rank {r}: unwound leaves {ranks_unw}, want the one jumper call")
            if sum(1 for e in got if e[0] == "Enter" and e[1] == "inner") != 3:
                fail(f"rank {r}: inner calls")
    if a.mode == "ties":    # the coarse clock made ties, which nest as recorded
        ties = sum(1 for w in want.values() for x, y in zip(w, w[1:]) if x[2] == y[2])
        if ties < 10:
            fail(f"only {ties} pairs of successive events share a time at a 10 us clock")
    if unwound != N:
        fail(f"{unwound} leaves carry the unwound attribute, want {N}")

    # MPI records of each main thread; the extra threads have none
    for r in range(N):
        check_mpi(defs, r, per[r])
        for ln in (1, 2):
            if any(type(ev).__name__ not in ("Enter", "Leave") for ev in per[(ln << 32) | r]):
                fail(f"rank {r} lane {ln}: MPI records on a thread without MPI")

    # every message matched one to one
    sends, recvs = collections.Counter(), collections.Counter()
    for ref, evs in per.items():
        me = ref & 0xFFFFFFFF
        for ev in evs:
            k = type(ev).__name__
            if k in ("MpiSend", "MpiIsend"):
                sends[(me, world_of(defs, ev.communicator, ev.receiver), ev.communicator.name,
                       ev.msg_tag, ev.msg_length)] += 1
            elif k in ("MpiRecv", "MpiIrecv"):
                recvs[(world_of(defs, ev.communicator, ev.sender), me, ev.communicator.name,
                       ev.msg_tag, ev.msg_length)] += 1
    if sends != recvs or sum(sends.values()) != 8 * N:
        fail(f"messages do not match one to one:\n sends {sends}\n recvs {recvs}")

    check_print(arch, per, defs)
    print(f"ok: {sum(len(v) for v in per.values())} events in {len(per)} locations, "
          f"{sum(sends.values())} messages matched")


if __name__ == "__main__":
    main()
