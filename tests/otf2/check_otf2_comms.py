#!/usr/bin/python3
"""check_otf2_comms.py MODE --scope S --preload P --prog PROG --mpi MPI --out DIR

The communicators of `scope export --to otf2` (issue 44 item 1, issue
42): prog_comms.c MODE runs under the preload (the built-in default
config), its profile is exported, and the archive is read back with
python3-otf2, which Pipit reads through, and otf2-print:

  - the archive opens (a definition naming one defined after it made
    python3-otf2 fail with KeyError when the first communicator a program
    used was not MPI_COMM_WORLD), otf2-print warns of nothing, and the
    comms are numbered 0, 1, ... in definition order, MPI_COMM_WORLD 0
    without a parent, every other with it as parent;
  - every location's events: as many as its definition says, as many
    Enters of each region as the reader's calls on that rank, Enter and
    Leave nested as a stack;
  - the comms are the run's communicators as `scope waits --format json`
    numbers and names them (the reader's one identity across ranks):
    same numbers, names and members; an intercommunicator is there with
    an empty group (python3-otf2 cannot read InterComm definitions), two
    dups of one communicator are two;
  - each collective's MpiCollectiveEnd names its operation, communicator
    (by its members, as world ranks) and root, per mode:
      dup    a barrier on the dup of the world, then on the world
      order  a barrier on a dup of the halves, an allreduce on the halves,
             a broadcast from world rank 3 on the reversed split, a
             barrier on the world
      nbc    MPI_Iallreduce on the world, MPI_Ibcast from world rank 2,
             MPI_Ibarrier on the halves: each an MPI collective with its
             role (read with otf2-print too, as a user would)
      inter  a barrier on the second dup, then on the first, then on the
             world; the intercommunicator's message is not written
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

import otf2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
from checker import clean_env, fail, run_limited  # noqa: E402

import scope_reader  # noqa: E402

LAUNCHER_VARS = ("OMPI_", "PMI_", "PMIX_", "SLURM_", "MV2_", "PALS_", "ALPS_", "FLUX_", "JSM_")
UNDEF32 = 0xFFFFFFFF
N = {"dup": 2, "order": 4, "nbc": 4, "inter": 4}
EVENS, ODDS = [0, 2], [1, 3]


def launcher(mpi, n):
    if mpi == "openmpi":
        return ["mpirun", "--oversubscribe", "--mca", "btl_tcp_if_include", "lo",
                "--mca", "oob_tcp_if_include", "lo", "-n", str(n)]
    return ["mpirun.mpich", "-n", str(n)]


def half(r):
    return EVENS if r % 2 == 0 else ODDS


# per mode, per rank: the collectives' (operation, members of the
# communicator as world ranks, root as a world rank or None), in order
def want_colls(mode, r):
    world = [0, 1, 2, 3][:N[mode]]
    if mode == "dup":
        return [("BARRIER", world, None), ("BARRIER", world, None)]
    if mode == "order":
        return [("BARRIER", half(r), None), ("ALLREDUCE", half(r), None),
                ("BCAST", [3, 2, 1, 0], 3), ("BARRIER", world, None)]
    if mode == "nbc":
        return [("ALLREDUCE", world, None), ("BCAST", world, 2), ("BARRIER", half(r), None)]
    return [("BARRIER", world, None)] * 3


# the comm numbers each rank's collectives are on, where the mode says
# which of two same-member communicators it is
WANT_COMM_IDS = {"dup": [1, 0], "inter": [1, 2, 0]}


def run(a, out):
    path = os.path.join(out, "p.h5")
    env = clean_env(drop=LAUNCHER_VARS, mpi_root=True, SCOPE_OUTPUT=path, LD_PRELOAD=a.preload)
    p = run_limited(launcher(a.mpi, N[a.mode]) + [a.prog, a.mode], env, out, "the profiled run",
                    240)
    if p.returncode != 0:
        fail(f"profiled run exited with {p.returncode}: {p.stderr}")
    if sorted(p.stdout.splitlines()) != sorted(f"rank {r} done" for r in range(N[a.mode])):
        fail(f"the program's output: {p.stdout!r}")
    return path


def read_archive(arch):
    """(comms in definition order, {location: (rank, declared events,
    [events])}, regions {name: (role, paradigm)})."""
    per = collections.defaultdict(list)
    with otf2.reader.open(os.path.join(arch, "traces.otf2")) as t:
        d = t.definitions
        comms = [(c._ref, c.name, [m._ref & 0xFFFFFFFF for m in c.group.members],
                  c.parent._ref if c.parent else None) for c in d.comms]
        locs = {l._ref: (l.group._ref, l.number_of_events) for l in d.locations}
        regions = {r.name: (str(r.region_role).split(".")[-1], str(r.paradigm).split(".")[-1])
                   for r in d.regions}
        for loc, ev in t.events:
            per[loc._ref].append(ev)
    return comms, {ref: (locs[ref][0], locs[ref][1], per[ref]) for ref in locs}, regions


def check_events(prof, locs):
    """Counts and nesting per location; returns {rank: [MpiCollectiveEnd]}."""
    names = prof.region_names
    ends = {}
    for ref, (rank, declared, evs) in sorted(locs.items()):
        if len(evs) != declared:
            fail(f"location {ref}: {len(evs)} events, its definition says {declared}")
        stack, enters = [], collections.Counter()
        for ev in evs:
            k = type(ev).__name__
            if k == "Enter":
                stack.append(ev.region.name)
                enters[ev.region.name] += 1
            elif k == "Leave":
                if not stack or stack[-1] != ev.region.name:
                    fail(f"location {ref}: Leave {ev.region.name} with {stack} open")
                stack.pop()
            elif k == "MpiCollectiveEnd":
                ends.setdefault(rank, []).append(ev)
        if stack:
            fail(f"location {ref}: never left {stack}")
        a = prof.call_stack_arrays(rank, columns=("region", "thread"))
        want = collections.Counter(names[g] for g, th in zip(a["region"].tolist(),
                                                             a["thread"].tolist())
                                   if th == (ref >> 32))
        if enters != want:
            fail(f"location {ref}: Enters {dict(enters)}, the reader's calls {dict(want)}")
    return ends


def check_comms(a, comms, waits):
    """The archive's comms are `scope waits`'s, numbered alike."""
    if waits is None:
        fail("scope waits --format json lists no communicators")
    refs = [c[0] for c in comms]
    if refs != list(range(len(comms))):
        fail(f"comms numbered {refs}, not 0, 1, ... in definition order")
    if len(comms) != len(waits):
        fail(f"{len(comms)} comms in the archive, {len(waits)} in scope waits: {comms} {waits}")
    for (ref, name, members, parent), w in zip(comms, waits):
        if (ref, name) != (w["id"], w["name"]):
            fail(f"comm {ref} {name!r}: scope waits has {w['id']} {w['name']!r}")
        want = w["members"] if w["remote_size"] == 0 else []
        if members != want:
            fail(f"comm {ref} {name!r}: members {members}, scope waits {w}")
        if ref == 0 and (name != "MPI_COMM_WORLD" or parent is not None):
            fail(f"comm 0 is {name!r} with parent {parent}: not the world without a parent")
        if ref > 0 and parent != 0:
            fail(f"comm {ref} {name!r}: parent {parent}, not the world")
    if a.mode == "inter":
        inter = [w for w in waits if w["remote_size"] > 0]
        dups = [w for w in waits if w["creator"] == "MPI_Comm_dup"]
        if len(inter) != 1 or sorted(inter[0]["members"]) != [0, 1, 2, 3]:
            fail(f"the intercommunicator: {inter}")
        if len(dups) != 2 or [d["members"] for d in dups] != [[0, 1, 2, 3]] * 2:
            fail(f"two dups of the world, two communicators: {dups}")


def check_colls(a, comms, ends):
    members = {c[0]: c[2] for c in comms}
    for r in range(N[a.mode]):
        got = [(str(e.collective_op).split(".")[-1], members[e.communicator._ref],
                None if e.root in (None, UNDEF32) else members[e.communicator._ref][e.root])
               for e in ends.get(r, [])]
        if got != want_colls(a.mode, r):
            fail(f"rank {r}: collectives {got}, want {want_colls(a.mode, r)}")
        ids = [e.communicator._ref for e in ends.get(r, [])]
        if a.mode in WANT_COMM_IDS and ids != WANT_COMM_IDS[a.mode]:
            fail(f"rank {r}: collectives on comms {ids}, want {WANT_COMM_IDS[a.mode]}")


PRINT_RE = re.compile(r"^(\S+)\s+(\d+)\s+(\d+)\s*(.*)$")


def check_print(a, arch, comms):
    """otf2-print reads the archive without a warning; with nbc, each
    nonblocking collective's region and MPI_COLLECTIVE_END as a user sees
    them."""
    anchor = os.path.join(arch, "traces.otf2")
    p = subprocess.run(["otf2-print", "-G", anchor], capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or "warning" in p.stderr or "error" in p.stderr.lower():
        fail(f"otf2-print -G: {p.returncode} {p.stderr}")
    if a.mode != "nbc":
        return
    ev = subprocess.run(["otf2-print", anchor], capture_output=True, text=True, timeout=120)
    if ev.returncode != 0 or ev.stderr:
        fail(f"otf2-print: {ev.returncode} {ev.stderr}")
    roles = {}
    for line in p.stdout.splitlines():
        m = re.match(r'^REGION\s+\d+\s+Name: "([^"]+)".*Role: (\S+), Paradigm: "?([^",]+)', line)
        if m:
            roles[m.group(1)] = (m.group(2), m.group(3))
    want = {"MPI_Iallreduce": ("COLL_ALL2ALL", "MPI"), "MPI_Ibcast": ("COLL_ONE2ALL", "MPI"),
            "MPI_Ibarrier": ("BARRIER", "MPI")}
    for name, w in want.items():
        if roles.get(name) != w:
            fail(f"otf2-print: {name} is {roles.get(name)}, want {w}")
    names = {c[1]: c[2] for c in comms}
    seen = collections.Counter()
    current = {}
    for line in ev.stdout.splitlines():
        m = PRINT_RE.match(line)
        if not m:
            continue
        kind, loc, rest = m.group(1), int(m.group(2)), m.group(4)
        if kind == "ENTER":
            current[loc] = re.search(r'Region: "([^"]+)"', rest).group(1)
        elif kind == "MPI_COLLECTIVE_END":
            op = re.search(r"Operation: (\w+)", rest).group(1)
            comm = re.search(r'Communicator: "([^"]+)"', rest).group(1)
            root = re.search(r"Root: (\w+)", rest).group(1)
            region = current.get(loc)
            want = {"MPI_Iallreduce": ("ALLREDUCE", "NONE"), "MPI_Ibcast": ("BCAST", "2"),
                    "MPI_Ibarrier": ("BARRIER", "NONE")}.get(region)
            if not want or (op, root) != want:
                fail(f"otf2-print: {line}: in {region}, want {want}")
            if region == "MPI_Ibarrier" and names.get(comm) != half(loc):
                fail(f"otf2-print: {line}: on {comm} {names.get(comm)}, want {half(loc)}")
            if region != "MPI_Ibarrier" and comm != "MPI_COMM_WORLD":
                fail(f"otf2-print: {line}: not on the world")
            seen[region] += 1
    if seen != {k: 4 for k in ("MPI_Iallreduce", "MPI_Ibcast", "MPI_Ibarrier")}:
        fail(f"otf2-print: nonblocking collectives {dict(seen)}, want 4 of each")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=sorted(N))
    ap.add_argument("--scope", required=True)
    ap.add_argument("--preload", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--mpi", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    a.scope, a.preload, a.prog = (os.path.abspath(x) for x in (a.scope, a.preload, a.prog))
    out = os.path.abspath(a.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    path = run(a, out)
    arch = os.path.join(out, "arch")
    e = subprocess.run([a.scope, "export", "--to", "otf2", "-o", arch, path],
                       capture_output=True, text=True, timeout=120)
    if e.returncode != 0:
        fail(f"scope export: {e.returncode} {e.stderr}")
    try:
        comms, locs, regions = read_archive(arch)
    except Exception as x:  # noqa: BLE001 (python3-otf2 raises KeyError, TraceReaderError, ...)
        fail(f"python3-otf2 cannot read the archive: {type(x).__name__}: {x}")
    check_print(a, arch, comms)
    with scope_reader.read_h5(path) as prof:
        ends = check_events(prof, locs)
    check_colls(a, comms, ends)
    w = subprocess.run([a.scope, "waits", "--format", "json", path], capture_output=True,
                       text=True, timeout=120)
    if w.returncode != 0:
        fail(f"scope waits: {w.returncode} {w.stderr}")
    check_comms(a, comms, json.loads(w.stdout).get("communicators"))
    print(f"ok: {a.mode} ({a.mpi}): {len(comms)} comms, "
          f"{sum(len(v[2]) for v in locs.values())} events")


main()
