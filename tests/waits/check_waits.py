#!/usr/bin/env python3
"""check_waits.py MODE --mpi openmpi|mpich --scope TOOL --preload SO --prog P --out DIR
                  [--fakehost F]

Who waits for whom (issue 29): runs prog_waits.c with 4 ranks under the
MPI's real launcher with the preload and the config `MPI_*`, and checks
what `scope waits` says against the waits the program builds in. The
program prints how long each of its sleeps really took ("slept X i ns"):
that is the lateness each wait must come back as, within 10 % plus the
clock bound between the two ranks (docs/analysis.md, "Wait states") plus
15 ms of scheduling on this 2-core machine; and each must equal, to the
ns, the wait recomputed from the rank files' raw times.

MODE:
  one-host  the four ranks on this machine (bound 0)
  hosts     two simulated hosts whose clocks are an hour apart (fakehost:
            tests/hosts), 2 ranks each: the same waits within the bound,
            and no message received before it was sent (beyond the bound)
  kill      rank 3 dies of SIGSEGV after receiving 2 of rank 0's 5
            messages: 3 unmatched sends from rank 0 to rank 3, counted and
            named, the rest still analysed (`scope recover` first when
            the launcher left journals)

Checked in one-host and hosts (every value, not a sample):
  - the exit status and output (without the sleep lines) are the bare run's;
  - `scope waits --calls --format csv`: ten late-sender waits in rank 0's
    MPI_Recv for rank 1; waits at each of 5 barriers on ranks 0, 1, 3 for
    rank 2; five late-receiver waits in rank 3's MPI_Ssend for rank 2;
    late broadcast on ranks 0-2 for root 3; early reduce on root 0 for
    rank 1, each its sleep within 10 % + bound; no other late-sender,
    late-receiver, barrier, broadcast or reduce wait above 40 % of the
    smallest sleep (4 ranks share 2 cores here: a rank can wait a few ms
    to be scheduled, a real wait); no wait negative; each designed wait
    equal, to the ns, to the one recomputed from the rank files' raw
    start and end times with h5py. The exact checks always fail a run;
    the sleep-shaped ones (a wait off its sleep, an unexpected wait the
    raw times confirm) are the machine's load when few: they fail it
    only when over a quarter of the designed waits miss, twice;
  - nonblocking collectives: waits at N x N on ranks 0, 1, 3 in the
    MPI_Wait that completed each MPI_Iallreduce, for rank 2; a ring of
    persistent requests started by MPI_Startall: late sender in rank 2's
    MPI_Waitall, for rank 1;
  - `scope waits --messages --format csv`: exactly the program's 57
    messages (sender, receiver, tag), ANY_SOURCE receives, Irecv+Waitall,
    Sendrecv and Startall rings included, each received after it was sent;
  - `scope waits --format csv`: the header of the issue, and the late
    sender row's time the sum of rank 1's sleeps;
  - `scope waits --format json`: 57 messages, none unmatched, 41 collective
    instances on MPI_COMM_WORLD, none incomplete;
  - the Python module's waits(), messages() and wait_totals() say the same,
    and `scope summary --waits` adds the rows up per (region, rank);
  - `scope callsites --waits`: the sites' waiting adds up to each region's
    (one-host runs record call sites);
  - `scope plot --kind timeline` draws 57 message arrows and the Chrome
    trace holds 57 flow start/finish pairs;
  - the table names rank 2 among the most waited-for ranks, and `scope
    report`'s wait-state table has rank 0's late-sender row.
"""
import argparse
import collections
import csv
import io
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env  # noqa: E402

N = 4
FAIL = []
# Misses of "the wait is the sleep's" alone: the machine's load, not the
# analysis (which the exact checks against the raw times test). A wrong
# analysis (another rank blamed, a wrong sign or unit) misses every one;
# a loaded machine misses a few. So a run fails on them only when more
# than a quarter of the designed waits miss, twice (a re-run once, as
# tests/hosts does with its 1 ms quality claim); fewer are notes.
TIMING = []
TIMED = []
RETRY_ENV = "CHECK_WAITS_RETRY"


def check(cond, what):
    if not cond:
        FAIL.append(what)
        print("FAIL:", what, file=sys.stderr)


def launcher(mpi):
    if mpi == "openmpi":
        return ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "btl_tcp_if_include",
                "lo", "--mca", "oob_tcp_if_include", "lo", "-n", str(N)]
    return ["mpirun.mpich", "-n", str(N)]


def run(cmd, env, cwd):
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=240)


def scope(a, *args):
    r = subprocess.run([a.scope, *args], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        print(r.stdout, r.stderr, file=sys.stderr)
        sys.exit(f"scope {' '.join(args)} exited with {r.returncode}")
    return r.stdout


def slept(stdout):
    """{phase: [ns per step]} from the program's sleep lines."""
    s = collections.defaultdict(dict)
    for line in stdout.splitlines():
        if line.startswith("slept "):
            _, ph, i, ns = line.split()
            s[ph][int(i)] = int(ns)
    return {ph: [v[i] for i in sorted(v)] for ph, v in s.items()}


def plain(stdout):
    return sorted(l for l in stdout.splitlines() if not l.startswith("slept "))


# A late rank is late by its sleep give or take the time it or the others
# lost waiting to be scheduled (4 ranks on 2 cores; MPICH's ranks poll
# without yielding: up to ~12 ms seen). The exact check is against the raw
# times (oracle below); this one says the wait is the sleep's.
SCHED_S = 0.015


def close(got_s, want_ns, bound_s, what):
    want = want_ns / 1e9
    TIMED.append(what)
    if not want * 0.9 - bound_s - SCHED_S <= got_s <= want * 1.1 + bound_s + SCHED_S:
        TIMING.append(what)
        print("off the sleep:",
              f"{what}: waited {got_s * 1e3:.3f} ms, slept {want * 1e3:.3f} ms "
              f"(bound {bound_s * 1e3:.3f} ms)", file=sys.stderr)


def rank_file(prof, r):
    """The file that holds /rank<r> of the profile at `prof`: its rank file
    in the ranks folder, or the index itself (a merged profile)."""
    path = os.path.join(os.path.splitext(prof)[0] + ".ranks", f"rank{r}.h5")
    return path if os.path.exists(path) else prof


def oracle(prof):
    """The designed waits recomputed from the rank files' raw times with
    h5py, independently of the reader: {(rank, region, call): wait s}.
    Calls of one region are in start order in the file (docs/format.md)."""
    import h5py
    starts, ends = {}, {}
    for r in range(N):
        with h5py.File(rank_file(prof, r), "r") as f:
            g = f[f"rank{r}/regions"]
            for link in g:
                name = g[link].attrs.get("name", link)
                name = name.decode() if isinstance(name, bytes) else str(name)
                starts[(r, name)] = list(g[link]["start_times"][:])
                ends[(r, name)] = list(g[link]["end_times"][:])
    out = {}

    def wait(rank, region, k, until):
        s, e = starts[(rank, region)][k], ends[(rank, region)][k]
        return max(0, min(until, e) - s) / 1e9

    # A: rank 0's Recv k, rank 1's Send k (the first 10 of each)
    for k in range(10):
        out[(0, "MPI_Recv", k)] = wait(0, "MPI_Recv", k, starts[(1, "MPI_Send")][k])
    for k in range(5):  # B: everyone's Barrier k; C: Ssend k against Recv 10 + k
        last = max(starts[(r, "MPI_Barrier")][k] for r in range(N))
        for r in (0, 1, 3):
            out[(r, "MPI_Barrier", k)] = wait(r, "MPI_Barrier", k, last)
        out[(3, "MPI_Ssend", k)] = wait(3, "MPI_Ssend", k, starts[(2, "MPI_Recv")][k])
    for k in range(3):  # D, E
        for r in (0, 1, 2):
            out[(r, "MPI_Bcast", k)] = wait(r, "MPI_Bcast", k, starts[(3, "MPI_Bcast")][k])
        late = max(starts[(r, "MPI_Reduce")][k] for r in (1, 2, 3))
        out[(0, "MPI_Reduce", k)] = wait(0, "MPI_Reduce", k, late)
    # the Sendrecv ring (no designed wait): rank r's call k receives what
    # rank r - 1's call k sent, so it waited for that call's start
    for k in range(3):  # G: the MPI_Wait completing Iallreduce k; H: Waitall 3 + k
        last = max(starts[(r, "MPI_Iallreduce")][k] for r in range(N))
        for r in (0, 1, 3):
            out[(r, "MPI_Wait", k)] = wait(r, "MPI_Wait", k, last)
        out[(2, "MPI_Waitall", 3 + k)] = wait(2, "MPI_Waitall", 3 + k,
                                               starts[(1, "MPI_Startall")][k])
    for r in range(N):
        for k in range(len(starts.get((r, "MPI_Sendrecv"), []))):
            out[(r, "MPI_Sendrecv", k)] = wait(r, "MPI_Sendrecv", k,
                                               starts[((r - 1) % N, "MPI_Sendrecv")][k])
    return out


def expected_messages():
    m = collections.Counter()
    m[(1, 0, 1)] += 10
    m[(3, 2, 3)] += 5
    for r in range(1, N):
        m[(r, 0, 10 + r)] += 2
    for r in range(N):
        m[(r, (r + 1) % N, 20)] += 3
        m[(r, (r + 1) % N, 30)] += 3
        m[(r, (r + 1) % N, 50)] += 3
    return m


def check_waits(a, prof, sleeps):
    calls = list(csv.DictReader(io.StringIO(scope(a, "waits", "--calls", "--format", "csv", prof))))
    by = collections.defaultdict(list)
    for c in calls:
        wait = float(c["wait"])
        bound = float(c["bound"]) if c["bound"] else float("inf")
        check(wait >= 0, f"negative wait {c}")
        by[(int(c["rank"]), c["region"])].append(
            (int(c["call"]), c["pattern"], int(c["waited_for"]), wait, bound))
    # 4 ranks on 2 cores: a rank can lose ms waiting to be scheduled (a
    # real wait, which the analysis rightly reports); designed waits are
    # many times that, unexpected ones must stay under 40 % of the least
    small = 0.4 * min(min(v) for v in sleeps.values()) / 1e9
    exact = oracle(prof)

    def designed(rank, region, pattern, waited_for, phase, first_call=0):
        got = {k: (p, wf, w, b) for k, p, wf, w, b in by[(rank, region)]}
        for i, ns in enumerate(sleeps[phase]):
            k = first_call + i
            if k not in got:
                check(False, f"rank {rank} {region} call {k}: no wait (phase {phase}, slept {ns} ns)")
                continue
            p, wf, w, b = got[k]
            check((p, wf) == (pattern, waited_for),
                  f"rank {rank} {region} call {k}: {p} for rank {wf}, "
                  f"expected {pattern} for rank {waited_for}")
            close(w, ns, b if b != float("inf") else 0, f"rank {rank} {region} call {k} ({pattern})")
            check(abs(w - exact[(rank, region, k)]) < 2e-9,
                  f"rank {rank} {region} call {k}: {w} s, the raw times say {exact[(rank, region, k)]} s")
        return {first_call + i for i in range(len(sleeps[phase]))}

    expected = {}
    expected[(0, "MPI_Recv")] = designed(0, "MPI_Recv", "late_sender", 1, "A")
    for r in (0, 1, 3):
        expected[(r, "MPI_Barrier")] = designed(r, "MPI_Barrier", "wait_at_barrier", 2, "B")
    expected[(3, "MPI_Ssend")] = designed(3, "MPI_Ssend", "late_receiver", 2, "C")
    for r in (0, 1, 2):
        expected[(r, "MPI_Bcast")] = designed(r, "MPI_Bcast", "late_broadcast", 3, "D")
    expected[(0, "MPI_Reduce")] = designed(0, "MPI_Reduce", "early_reduce", 1, "E")
    for r in (0, 1, 3):
        expected[(r, "MPI_Wait")] = designed(r, "MPI_Wait", "wait_at_nxn", 2, "G")
    expected[(2, "MPI_Waitall")] = designed(2, "MPI_Waitall", "late_sender", 1, "H", first_call=3)
    # nothing else of these patterns above 40 % of the smallest sleep, but
    # for a ring's late sender that the raw times confirm to the ns: a rank
    # descheduled for tens of ms on a loaded 2-core machine is a real late
    # sender (seen at load 10-15); a few of the 12, never most (a wrong
    # matching would make them all wait)
    scheduled = 0
    for (rank, region), v in by.items():
        for k, p, wf, w, b in v:
            if p == "wait_at_nxn" or k in expected.get((rank, region), ()):
                continue
            # H: rank 0's persistent send to the late rank 1 may complete
            # only when rank 1 starts its receive (both MPIs do so at
            # times): a real late receiver, never more than the sleep
            if (rank, region, p, wf) == (0, "MPI_Waitall", "late_receiver", 1) and \
                    3 <= k < 6 and w <= sleeps["H"][k - 3] / 1e9 * 1.1 + SCHED_S:
                print(f"note: rank 0 MPI_Waitall call {k}: a late_receiver of {w * 1e3:.3f} ms "
                      "for rank 1 (its persistent send completed when rank 1 started)")
                continue
            if w > small and p == "late_sender" and (rank, region, k) in exact and \
                    wf == (rank - 1) % N and abs(w - exact[(rank, region, k)]) < 2e-9:
                scheduled += 1
                print(f"note: rank {rank} {region} call {k}: a late_sender of "
                      f"{w * 1e3:.3f} ms for rank {wf}, as the raw times say (scheduling)")
                continue
            what = f"rank {rank} {region} call {k}: an unexpected {p} of {w * 1e3:.3f} ms for rank {wf}"
            if w <= small + (b if b != float("inf") else 0):
                continue
            # one the raw times confirm is the machine's (a rank not
            # scheduled), counted with the designed waits' misses; one
            # they do not is the analysis's
            if (rank, region, k) in exact and abs(w - exact[(rank, region, k)]) < 2e-9:
                TIMED.append(what)
                TIMING.append(what)
                print("off the design:", what, file=sys.stderr)
            else:
                check(False, what)
    if scheduled > 2:
        TIMED.append("ring")
        TIMING.append(f"{scheduled} ring calls waited more than {small * 1e3:.0f} ms")

    rows = list(csv.reader(io.StringIO(scope(a, "waits", "--format", "csv", prof))))
    # the header of the issue first; the waits' I/O share after (issue 46)
    check(rows and rows[0][:6] == ["rank", "region", "pattern", "waited_for", "instances", "time"],
          f"csv header {rows[:1]}")
    ls = [r for r in rows[1:] if r[:4] == ["0", "MPI_Recv", "late_sender", "1"]]
    check(len(ls) == 1 and int(ls[0][4]) >= 10, f"late sender row: {ls}")
    if ls:
        close(float(ls[0][5]), sum(sleeps["A"]), 0.005 + 9 * SCHED_S, "rank 0's late-sender total")

    msgs = list(csv.DictReader(io.StringIO(scope(a, "waits", "--messages", "--format", "csv", prof))))
    got = collections.Counter((int(m["sender"]), int(m["receiver"]), int(m["tag"])) for m in msgs)
    check(got == expected_messages(), f"messages differ: extra {got - expected_messages()}, "
          f"missing {expected_messages() - got}")
    for m in msgs:
        check(m["comm"] == "MPI_COMM_WORLD", f"message on {m['comm']}")
        check(int(m["bytes"]) == 4, f"message of {m['bytes']} bytes")

    js = json.loads(scope(a, "waits", "--format", "json", prof))
    t = js["totals"]
    bound = t["clock_bound"]
    check(bound is not None, "the clock bound is unknown")
    for m in msgs:
        check(float(m["recv_end"]) >= float(m["send_start"]) - (bound or 0),
              f"received before it was sent: {m}")
    check(t["messages"] == 57, f"{t['messages']} messages matched, 57 sent")
    check(t["unmatched_sends"] == 0 and t["unmatched_receives"] == 0, f"unmatched: {t}")
    check(t["collective_instances"] == 41 and t["incomplete_collectives"] == 0,
          f"collective instances: {t['collective_instances']} (41), incomplete {t['incomplete_collectives']}")
    check(t["unanalysed_calls"] == 0, f"{t['unanalysed_calls']} calls not analysed")
    check_python(prof, rows, msgs, t)
    check_budget(a, prof, calls, t)
    # scope summary --waits: per (region, rank), the csv rows added up
    summ = list(csv.DictReader(io.StringIO(
        scope(a, "summary", "--waits", "--per-rank", "--format", "csv", prof))))
    for srow in summ:
        want = sum(float(r[5]) for r in rows[1:]
                   if r[1] == srow["region"] and r[0] == srow["rank"])
        check(abs(float(srow["waiting"]) - want) < 1e-6,
              f"summary --waits: {srow['region']} rank {srow['rank']}: {srow['waiting']} s, "
              f"scope waits says {want} s")
    # scope callsites --waits (one-host runs record call sites): per region,
    # the sites' waiting adds up to the region's
    if "callsites" in open(os.path.join(os.path.dirname(prof), "scope.conf")).read():
        sites = list(csv.DictReader(io.StringIO(
            scope(a, "callsites", "--waits", "--format", "csv", prof))))
        per = collections.defaultdict(float)
        for srow in sites:
            per[srow["region"]] += float(srow["waiting"])
        for region in {r[1] for r in rows[1:]}:
            want = sum(float(r[5]) for r in rows[1:] if r[1] == region)
            check(abs(per[region] - want) < 1e-6,
                  f"callsites --waits: {region} {per[region]} s, scope waits {want} s")
    # scope waits --pairs: the rows added up per (rank, waited-for rank)
    pairs = list(csv.DictReader(io.StringIO(scope(a, "waits", "--pairs", "--format", "csv", prof))))
    want = collections.defaultdict(lambda: [0, 0.0])
    for r in rows[1:]:
        want[(r[0], r[3])][0] += int(r[4])
        want[(r[0], r[3])][1] += float(r[5])
    check({(q["rank"], q["waited_for"]) for q in pairs} == set(want), "--pairs: not the rows' pairs")
    for q in pairs:
        n, tm = want[(q["rank"], q["waited_for"])]
        check(int(q["instances"]) == n and abs(float(q["time"]) - tm) < 1e-6,
              f"--pairs {q}: rows say {n} waits, {tm} s")
    check([float(q["time"]) for q in pairs] == sorted((float(q["time"]) for q in pairs),
                                                       reverse=True), "--pairs: not longest first")
    # scope tree --waits: the paths' waiting adds up to each region's, and
    # one rank's tree to that rank's rows
    for rank_args, which in (((), None), (("--rank", "0"), "0")):
        tree = list(csv.DictReader(io.StringIO(
            scope(a, "tree", "--waits", "--format", "csv", *rank_args, prof))))
        per = collections.defaultdict(float)
        for t in tree:
            per[t["path"].split(";")[-1]] += float(t["waiting"])
        for region in {r[1] for r in rows[1:]} | set(per):
            want = sum(float(r[5]) for r in rows[1:]
                       if r[1] == region and (which is None or r[0] == which))
            check(abs(per[region] - want) < 1e-6,
                  f"tree --waits {' '.join(rank_args)}: {region} {per[region]} s, "
                  f"scope waits {want} s")
    # the timeline's arrows and the Chrome trace's flows: one per message
    svg = os.path.join(os.path.dirname(prof), "timeline.svg")
    scope(a, "plot", prof, "--kind", "timeline", "-o", svg)
    check(open(svg).read().count('class="message"') == 57, "timeline arrows: not 57")
    trace = os.path.join(os.path.dirname(prof), "trace.json")
    scope(a, "export", prof, "--to", "chrome-trace", "-o", trace)
    ev = json.load(open(trace))["traceEvents"]
    flows = collections.Counter(e["ph"] for e in ev if e.get("cat") == "message")
    check(flows == {"s": 57, "f": 57}, f"chrome-trace flows: {flows}")
    # the report's wait-state table: rank 0's late-sender row for rank 1
    page = os.path.join(os.path.dirname(prof), "report.html")
    scope(a, "report", prof, "-o", page)
    html = open(page).read()
    check('<section id="waits">' in html and
          "<tr><td>0</td><td>MPI_Recv</td><td>late_sender</td><td>1</td>" in html,
          "the report has no wait-state table with rank 0's late sender")
    table = scope(a, "waits", prof)
    most = table.split("most waited for")[1] if "most waited for" in table else ""
    check("rank 2" in most and "rank 1" in most, f"most waited-for ranks:\n{table}")
    return js


def check_budget(a, prof, calls, totals):
    """A memory budget far below the run's ends: the matching goes through
    buckets in temporary files and must give the same results (only the
    order of the messages may differ)."""
    tiny = ("--memory", "4K")
    check(scope(a, "waits", "--format", "csv", *tiny, prof) ==
          scope(a, "waits", "--format", "csv", prof), "rows differ under --memory 4K")
    got = list(csv.DictReader(io.StringIO(
        scope(a, "waits", "--calls", "--format", "csv", *tiny, prof))))
    check(got == calls, "waiting calls differ under --memory 4K")
    msgs = [scope(a, "waits", "--messages", "--format", "csv", *x, prof).splitlines()
            for x in ((), tiny)]
    check(msgs[0][0] == msgs[1][0] and sorted(msgs[0][1:]) == sorted(msgs[1][1:]),
          "messages differ under --memory 4K")
    t = json.loads(scope(a, "waits", "--format", "json", *tiny, prof))["totals"]
    check(t["spilled"] and t["buckets"] > 1 and not totals["spilled"] and totals["buckets"] == 1,
          f"--memory 4K: {t['buckets']} buckets, spilled {t['spilled']}; default: "
          f"{totals['buckets']}, {totals['spilled']}")
    for k in ("buckets", "spilled", "cost"):
        t.pop(k)
        totals = {x: v for x, v in totals.items() if x != k}
    check(t == totals, f"totals differ under --memory 4K:\n{t}\n{totals}")
    empty = os.path.join(os.path.dirname(prof), "no-such-tmp")
    r = subprocess.run([a.scope, "waits", *tiny, prof], capture_output=True, text=True,
                       env=dict(os.environ, TMPDIR=empty))
    check(r.returncode != 0 and "temporary file in " + empty in r.stderr,
          f"an unusable TMPDIR: {r.returncode} {r.stderr!r}")


def check_python(prof, rows, msgs, totals):
    """The Python module's DataFrames say what the tool says."""
    import scope_reader
    p = scope_reader.read_h5(prof)
    w = p.waits()
    got = sorted((int(r.rank), r.region, r.pattern, int(r.waited_for), int(r.instances),
                  round(r.time, 9)) for r in w.itertuples() if r.instances)
    want = sorted((int(r[0]), r[1], r[2], int(r[3]), int(r[4]), round(float(r[5]), 9))
                  for r in rows[1:] if int(r[4]))
    check(got == want, f"Python waits() differ from the csv: {got[:3]} vs {want[:3]}")
    m = p.messages()
    check(collections.Counter(zip(m.sender, m.receiver, m.tag)) == expected_messages(),
          "Python messages() differ from the program's messages")
    check(set(m.communicator) == {"MPI_COMM_WORLD"}, f"communicators {set(m.communicator)}")
    check((m.wait >= 0).all() and (m.bytes == 4).all(), "Python messages(): wait or bytes")
    check(abs(m.send_start.sum() - sum(float(x["send_start"]) for x in msgs)) < 1e-6,
          "Python message times differ from the tool's")
    t = p.wait_totals()
    check(t["messages"] == totals["messages"] and t["unmatched"] == [],
          f"Python wait_totals(): {t}")
    check(t["buckets"] == totals["buckets"] and t["spilled"] == totals["spilled"],
          f"Python wait_totals() buckets/spilled: {t}")
    for c in (t["cost"], totals["cost"]):   # the analysis's own cost: present, not negative
        check(set(c) == {"gather", "gather_cpu", "match", "match_cpu"} and
              all(v >= 0 for v in c.values()), f"cost of the analysis: {c}")


def one_run(a, env, cwd, args):
    out = os.path.join(cwd, "prof.h5")
    conf = os.path.join(cwd, "scope.conf")
    with open(conf, "w") as f:
        f.write("callsites = 1\nMPI_*\n")     # for `scope callsites --waits`
    bare = run(launcher(a.mpi) + [a.prog] + args, env, cwd)
    penv = dict(env, SCOPE_CONFIG=conf, SCOPE_OUTPUT=out, LD_PRELOAD=a.preload)
    prof = run(launcher(a.mpi) + [a.prog] + args, penv, cwd)
    return bare, prof, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["one-host", "hosts", "kill"])
    ap.add_argument("--mpi", required=True)
    ap.add_argument("--scope", required=True)
    ap.add_argument("--preload", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fakehost")
    a = ap.parse_args()
    a.scope, a.preload, a.prog = map(os.path.abspath, (a.scope, a.preload, a.prog))
    shutil.rmtree(a.out, ignore_errors=True)    # no earlier run's files or journals
    os.makedirs(a.out, exist_ok=True)
    cwd = os.path.abspath(a.out)
    env = clean_env(drop=("OMPI_", "PMI_", "PMIX_", "SLURM_"), mpi_root=True)
    if a.mode == "one-host":
        bare, prof, out = one_run(a, env, cwd, [])
        check(prof.returncode == bare.returncode == 0,
              f"exit {prof.returncode} under scope, {bare.returncode} bare: {prof.stderr}")
        check(plain(prof.stdout) == plain(bare.stdout), f"output differs:\n{prof.stdout}")
        check_waits(a, out, slept(prof.stdout))
    elif a.mode == "hosts":
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hosts"))
        import check_hosts  # noqa: E402
        conf = os.path.join(cwd, "scope.conf")
        with open(conf, "w") as f:
            f.write("MPI_*\n")
        extra = {"SCOPE_CONFIG": conf}
        if os.environ.get("SCOPE_H5WRITER"):
            extra["SCOPE_H5WRITER"] = os.environ["SCOPE_H5WRITER"]
        out, so, _ = check_hosts.run_hosts(a, {"hostA": 0, "hostB": 3600}, [a.prog], cwd, extra)
        js = check_waits(a, out, slept(so))
        check(js["totals"]["clock_bound"] > 0, "two hosts but a clock bound of 0")
    else:
        bare, prof, out = one_run(a, env, cwd, ["kill"])
        check(prof.returncode != 0 and bare.returncode != 0,
              f"the killed run exited with {prof.returncode} under scope, {bare.returncode} bare")
        # after a crash a user runs scope recover: the launcher may have
        # SIGKILLed a rank before (or while) it wrote its file, leaving its
        # journal (harmless when nothing is left)
        scope(a, "recover", out)
        js = json.loads(scope(a, "waits", "--format", "json", out))
        t = js["totals"]
        check(t["messages"] == 3, f"{t['messages']} messages matched; 3 were received")
        check(t["unmatched_sends"] == 3 and t["unmatched_receives"] == 0, f"unmatched: {t}")
        check(js["unmatched"] == [{"rank": 0, "peer": 3, "side": "send", "messages": 3}],
              f"unmatched rows: {js['unmatched']}")
        # the barrier the others were in when the launcher ended them never
        # returned, so MPI said nothing of it: no data, not an instance
        check(t["collective_instances"] == 1 and t["incomplete_collectives"] == 0,
              f"collectives: {t['collective_instances']} complete (1), "
              f"{t['incomplete_collectives']} incomplete (0)")
        table = scope(a, "waits", out)
        check("rank 0 sent 3 messages to rank 3 that no receive matched" in table,
              f"the table does not name the unmatched messages:\n{table}")
    if FAIL:
        print(f"{len(FAIL)} checks failed", file=sys.stderr)
        sys.exit(1)
    many = 4 * len(TIMING) > len(TIMED)
    if TIMING and not many:
        print(f"note: {len(TIMING)} of {len(TIMED)} designed waits off their sleeps "
              "(the machine's load; the raw times agree to the ns)", file=sys.stderr)
    elif TIMING and not os.environ.get(RETRY_ENV):
        print(f"{len(TIMING)} waits off their sleeps: running again once", file=sys.stderr)
        os.environ[RETRY_ENV] = "1"
        os.execv(sys.executable, [sys.executable] + sys.argv)
    elif TIMING:
        print(f"{len(TIMING)} of {len(TIMED)} waits off their sleeps twice", file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
