"""check_omp.py - OpenMP programs (clang, LLVM's libomp) under the preload,
read back three ways: the rank file with h5py (the raw calls and their
omp_* columns), `scope omp` (csv and json) and the Python module's omp();
every count derived by hand from the program, every time recomputed from
the raw calls.

    check_omp.py WHAT SCOPE PRELOAD PROGRAM SRC_DIR OUT_DIR

WHAT: loops (prog_loops.c), nested (prog_nested.c), tasks (prog_tasks.c),
sync (prog_sync.c), plain (prog_plain.c), threads2 and threads3
(prog_threads.c on 2 and 3 threads). Each program runs bare and
under the preload (2 threads, OMP_WAIT_POLICY=passive); its output must be
the same.
"""
import csv
import io
import json
import os
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, expect, expect_eq, fail, run_limited  # noqa: E402

WHAT = sys.argv[1]
SCOPE, PRELOAD, PROGRAM, SRC, OUT = (os.path.abspath(a) for a in sys.argv[2:7])
PYTHON_DIR = os.environ.get("SCOPE_PYTHON_DIR")


def line_of(src, marker):
    """The 1-based line of `src` holding the comment /* MARKER */."""
    with open(os.path.join(SRC, src)) as f:
        for i, text in enumerate(f, 1):
            if f"/* {marker} */" in text:
                return i
    fail(f"{src}: no /* {marker} */")


def run(args=(), extra=None):
    """The program bare, then under the preload; the profile's rank file
    (None when nothing was written) and the output."""
    env = clean_env(**{"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive", **(extra or {})})
    bare = run_limited([PROGRAM, *args], env, OUT, "bare run")
    expect_eq(bare.returncode, 0, "bare exit status")
    out = os.path.join(OUT, "prof.h5")
    penv = dict(env, LD_PRELOAD=PRELOAD, SCOPE_OUTPUT=out)
    prof = run_limited([PROGRAM, *args], penv, OUT, "profiled run")
    expect_eq(prof.returncode, 0, "profiled exit status")
    expect_eq(prof.stdout, bare.stdout, "the program's output under the preload")
    expect_eq(prof.stderr, "", "what the profiled run printed on stderr")
    rank0 = os.path.join(OUT, "prof.ranks", "rank0.h5")
    return (rank0 if os.path.exists(rank0) else None), prof.stdout


class Region:
    """One region of /rank0/regions: its calls' columns as numpy arrays."""

    def __init__(self, g):
        self.n = len(g["start_times"])
        for k in g:
            setattr(self, k, g[k][()])
        if not hasattr(self, "thread_ids"):
            self.thread_ids = np.zeros(self.n, dtype=np.int32)

    def dur(self, i):
        return int(self.end_times[i]) - int(self.start_times[i])


def regions(path):
    with h5py.File(path) as f:
        g = f["rank0/regions"]
        kinds = {k: g[k].attrs["kind"] for k in g}
        return {k: Region(g[k]) for k in g}, kinds


def inside(r, lane, s, e):
    """Indices of r's calls on `lane` within [s, e]."""
    return [i for i in range(r.n) if r.thread_ids[i] == lane and r.start_times[i] >= s
            and r.end_times[i] <= e]


def scope(*args):
    p = subprocess.run([SCOPE, *args], capture_output=True, text=True, env=clean_env())
    expect_eq(p.returncode, 0, f"scope {' '.join(args)} exit status ({p.stderr.strip()})")
    return p.stdout


def csv_rows(path):
    text = scope("omp", "--format", "csv", path)
    expect(text.startswith("region,rank,thread,instances,time,work,wait"),
           f"csv header begins with region,rank,thread,instances,time,work,wait: {text[:80]!r}")
    return list(csv.DictReader(io.StringIO(text)))


def ns(s):
    """A csv or json time (seconds, to the ns) as ns."""
    return int(round(float(s) * 1e9))


def rows_at(rows, line, src, kind):
    """The csv rows of the construct of `kind` at src:line, by thread."""
    got = {int(r["thread"]): r for r in rows if r["kind"] == kind and f"{src}:{line}" in r["region"]}
    expect(got, f"no csv row of kind {kind!r} at {src}:{line}: "
                f"{sorted({(r['kind'], r['region']) for r in rows})}")
    return got


def python_omp(path):
    """The Python module's omp() rows, or None when the module is not given."""
    if not PYTHON_DIR:
        return None
    sys.path.insert(0, PYTHON_DIR)
    import scope_reader
    return scope_reader.read_h5(path).omp()


def check_loops():
    rank0, out = run()
    expect_eq(out.split()[4], "100", "critical entries the program counted")
    R, kinds = regions(rank0)
    expect(all(kinds[k] == "omp" for k in R if k.startswith("omp ")), "kind omp")
    P, IT = R["omp parallel"], R["omp implicit task"]
    W, L, C = R["omp implicit barrier wait"], R["omp loop"], R["omp critical wait"]
    # 1,000 loop regions and the critical one, each started by thread 0
    expect_eq(P.n, 1001, "parallel regions")
    expect_eq(sorted(set(P.thread_ids.tolist())), [0], "lanes that started parallel regions")
    expect_eq(IT.n, 2002, "implicit tasks")
    expect_eq(np.bincount(IT.omp_thread).tolist(), [1001, 1001], "implicit tasks per thread")
    expect_eq(np.bincount(IT.omp_parallel, minlength=1001).tolist(), [2] * 1001,
              "implicit tasks per parallel region")
    expect_eq(W.n, 2002, "implicit barrier waits (one per thread and region)")
    expect_eq(L.n, 2000, "loop parts")
    expect_eq(L.omp_count.tolist(), [2] * 2000, "iterations of each loop")
    expect_eq(C.n, 100, "critical sections entered (50 per thread)")
    # the loop regions' site: the one with 1,000 calls
    loop_site = np.bincount(P.callsite_ids).argmax()
    expect_eq(int((P.callsite_ids == loop_site).sum()), 1000, "calls of the loop construct")
    # recompute each thread's time, wait and work from the raw calls
    lane_of = {}
    time, wait = [0, 0], [0, 0]
    per_inst = {}     # parallel call -> {thread: (work, wait_start - loop_start)}
    crit_thread = {0: 0, 1: 0}
    for i in range(IT.n):
        t, j = int(IT.omp_thread[i]), int(IT.omp_parallel[i])
        lane = int(IT.thread_ids[i])
        lane_of.setdefault(t, set()).add(lane)
        s, e = int(IT.start_times[i]), int(IT.end_times[i])
        expect(P.start_times[j] <= s and e <= P.end_times[j],
               f"implicit task {i} inside its parallel region {j}")
        ws = inside(W, lane, s, e)
        expect_eq(len(ws), 1, f"implicit barrier waits inside implicit task {i}")
        if P.callsite_ids[j] != loop_site:
            crit_thread[t] += len(inside(C, lane, s, e))
            continue
        ls = inside(L, lane, s, e)
        expect_eq(len(ls), 1, f"loop parts inside implicit task {i}")
        w = W.dur(ws[0])
        time[t] += e - s
        wait[t] += w
        per_inst.setdefault(j, {})[t] = (e - s - w, int(W.start_times[ws[0]]) - int(L.start_times[ls[0]]), w)
    expect_eq(crit_thread, {0: 50, 1: 50}, "critical entries per thread")
    expect_eq(sorted(len(v) for v in lane_of.values()), [1, 1], "each thread number on one lane")
    line = line_of("prog_loops.c", "LOOP_REGION")
    rows = csv_rows(rank0)
    loop = rows_at(rows, line, "prog_loops.c", "parallel")
    for t in (0, 1):
        r = loop[t]
        expect_eq(int(r["instances"]), 1000, f"thread {t}'s instances")
        expect_eq(ns(r["time"]), time[t], f"thread {t}'s time in the loop regions")
        expect_eq(ns(r["wait"]), wait[t], f"thread {t}'s wait")
        expect_eq(ns(r["implicit_barrier"]), wait[t], f"thread {t}'s implicit-barrier wait")
        expect_eq(ns(r["work"]), time[t] - wait[t], f"thread {t}'s work")
    # the injected sleep: thread 1 sleeps 1 ms after thread 0 started its
    # part, so thread 0 waits at least 1 ms less what it did from the start
    # of its part to its barrier, in each of the 10 regions
    sleepy = sorted(per_inst)[99::100]
    expect_eq(len(sleepy), 10, "regions with a sleep")
    bound = sum(1_000_000 - per_inst[j][0][1] for j in sleepy)
    got0 = sum(per_inst[j][0][2] for j in sleepy)
    got1 = sum(per_inst[j][1][2] for j in sleepy)
    expect(got0 >= bound, f"thread 0's wait in the sleepy regions {got0} ns >= {bound} ns "
                          "(10 x 1 ms, less what it did from the start of its part to its barrier)")
    # thread 1 arrives last in those regions: it waits only for the barrier
    # to let it go, thread 0 for its sleep
    expect(got1 < got0, f"thread 1's wait in the sleepy regions ({got1} ns) less than thread 0's "
                        f"({got0} ns)")
    # the region's numbers (json) from the same calls
    js = json.loads(scope("omp", "--format", "json", rank0))["omp"]
    reg = [r for r in js if r["kind"] == "parallel" and f"prog_loops.c:{line}" in r["region"]]
    expect_eq(len(reg), 1, "json regions of the loop construct")
    reg = reg[0]
    expect_eq((reg["instances"], reg["team_min"], reg["team_max"]), (1000, 2, 2),
              "instances and team sizes")
    elapsed = sum(int(P.end_times[j]) - int(P.start_times[j]) for j in per_inst)
    expect_eq(ns(reg["time"]), elapsed, "the region's time: its elapsed on thread 0")
    work = [time[t] - wait[t] for t in (0, 1)]
    imb = max(work) / (sum(work) / 2)
    expect(abs(reg["imbalance"] - imb) < 1e-5, f"imbalance {reg['imbalance']} = {imb}")
    expect_eq(reg["slowest_thread"], int(np.argmax(work)), "slowest thread")
    sum_w = sum(v[0] for inst in per_inst.values() for v in inst.values())
    sum_max = sum(2 * max(v[0] for v in inst.values()) for inst in per_inst.values())
    sum_e = 2 * elapsed
    lb, sched = sum_w / sum_max, sum_max / sum_e
    expect(abs(reg["load_balance"] - lb) < 1e-5, f"load balance {reg['load_balance']} = {lb}")
    expect(abs(reg["scheduling"] - sched) < 1e-5, f"scheduling {reg['scheduling']} = {sched}")
    expect(abs(reg["efficiency"] - lb * sched) < 1e-5, f"efficiency {reg['efficiency']}")
    # the critical section: 50 entries per thread
    crit = rows_at(rows, line_of("prog_loops.c", "CRITICAL"), "prog_loops.c", "critical wait")
    expect_eq({t: int(r["instances"]) for t, r in crit.items()}, {0: 50, 1: 50},
              "critical waits per thread")
    # the loops: 1,000 parts of 2 iterations per thread
    lp = {int(r["thread"]): r for r in rows if r["kind"] == "loop"}
    expect_eq({t: (int(r["instances"]), int(r["iterations"])) for t, r in lp.items()},
              {0: (1000, 2000), 1: (1000, 2000)}, "loop parts and iterations per thread")
    # the timeline: a lane per thread, the waits drawn red (svg.c)
    svg = os.path.join(OUT, "timeline.svg")
    scope("plot", "--kind", "timeline", "-o", svg, rank0)
    with open(svg) as f:
        text = f.read()
    expect("rank 0 · thread 0" in text and "rank 0 · thread 1" in text, "a lane per thread")
    expect('fill="#d9534f"><title>omp implicit barrier wait' in text,
           "implicit barrier waits drawn in the waits' colour")
    py = python_omp(rank0)
    if py is not None:
        # Python names constructs by object and offset: the loop construct
        # is the parallel one with 1,000 instances
        sel = py[(py["kind"] == "parallel") & (py["instances"] == 1000)]
        expect_eq(sorted(sel["instances"].tolist()), [1000, 1000], "Python omp() instances")
        expect_eq([int(round(x * 1e9)) for x in sel.sort_values("thread")["wait"]], wait,
                  "Python omp() waits")


def check_nested():
    rank0, out = run(extra={"OMP_MAX_ACTIVE_LEVELS": "2"})
    expect_eq(out.count("level 2"), 4, "the program ran 4 inner threads at level 2")
    R, _ = regions(rank0)
    P, IT, B = R["omp parallel"], R["omp implicit task"], R["omp barrier wait"]
    expect_eq(P.n, 3, "parallel regions: one outer, one inner per outer thread")
    expect_eq(IT.n, 6, "implicit tasks: 2 outer, 2 x 2 inner")
    expect_eq(B.n, 4, "explicit barrier waits: one per inner thread")
    outer = int(np.bincount(P.callsite_ids).argmin())
    inner_calls = [j for j in range(P.n) if P.callsite_ids[j] != outer]
    expect_eq(len(inner_calls), 2, "inner parallel regions")
    expect_eq(len({int(P.thread_ids[j]) for j in inner_calls}), 2,
              "the inner regions started on two lanes (each outer thread)")
    teams = np.bincount(IT.omp_parallel, minlength=3).tolist()
    expect_eq(teams, [2, 2, 2], "team size of each region")
    # each explicit barrier wait belongs to an inner implicit task
    inner_wait = {0: 0, 1: 0}
    for i in range(IT.n):
        if int(IT.omp_parallel[i]) not in inner_calls:
            continue
        ws = inside(B, int(IT.thread_ids[i]), int(IT.start_times[i]), int(IT.end_times[i]))
        expect_eq(len(ws), 1, f"barrier waits in inner implicit task {i}")
        inner_wait[int(IT.omp_thread[i])] += B.dur(ws[0])
    rows = csv_rows(rank0)
    inn = rows_at(rows, line_of("prog_nested.c", "INNER"), "prog_nested.c", "parallel")
    out_ = rows_at(rows, line_of("prog_nested.c", "OUTER"), "prog_nested.c", "parallel")
    expect_eq({t: int(r["instances"]) for t, r in inn.items()}, {0: 2, 1: 2},
              "inner region: parts per thread number")
    expect_eq({t: int(r["instances"]) for t, r in out_.items()}, {0: 1, 1: 1},
              "outer region: parts per thread number")
    expect_eq({t: ns(r["barrier"]) for t, r in inn.items()}, inner_wait,
              "the inner threads' explicit barrier waits")
    expect_eq({t: ns(r["barrier"]) for t, r in out_.items()}, {0: 0, 1: 0},
              "the outer threads' explicit barrier waits (all inside the inner region)")
    js = json.loads(scope("omp", "--format", "json", rank0))["omp"]
    team = {r["region"]: (r["instances"], r["team_min"], r["team_max"])
            for r in js if r["kind"] == "parallel"}
    expect_eq(sorted(team.values()), [(1, 2, 2), (2, 2, 2)], "instances and team sizes")


def check_tasks():
    rank0, out = run(args=["8"])
    expect_eq(out.strip(), "tasks done 8 of 8", "the program's tasks")
    R, _ = regions(rank0)
    expect_eq(R["omp task"].n, 8, "explicit tasks run")
    expect_eq(R["omp single"].n, 1, "single executed once")
    expect_eq(R["omp taskwait"].n, 1, "taskwait regions")
    expect_eq(R["omp taskwait wait"].n, 1, "taskwait waits")
    expect_eq(len(set(R["omp task"].callsite_ids.tolist())), 1, "one task construct")
    rows = csv_rows(rank0)
    task = rows_at(rows, line_of("prog_tasks.c", "TASK"), "prog_tasks.c", "task")
    expect_eq(sum(int(r["instances"]) for r in task.values()), 8, "task runs in the csv")
    T = R["omp task"]
    expect_eq(sum(ns(r["time"]) for r in task.values()), sum(T.dur(i) for i in range(T.n)),
              "the tasks' time")
    team = rows_at(rows, line_of("prog_tasks.c", "TEAM"), "prog_tasks.c", "parallel")
    expect_eq(sorted(team), [0, 1], "the team's threads")
    W = R["omp taskwait wait"]
    expect_eq(sum(ns(r["taskwait"]) for r in team.values()),
              W.dur(0) - sum(T.dur(i) for i in inside(T, int(W.thread_ids[0]), int(W.start_times[0]),
                                                         int(W.end_times[0]))),
              "the taskwait's wait less the tasks run inside it")


def self_wait(W, i, T):
    """Wait call i of W less the explicit tasks (T) the thread ran inside it."""
    lane, s, e = int(W.thread_ids[i]), int(W.start_times[i]), int(W.end_times[i])
    return W.dur(i) - sum(T.dur(k) for k in inside(T, lane, s, e))


def check_sync():
    # libomp reduces a team of 2 with atomic instructions, which it reports
    # as nothing; its critical method (forced) reports a reduction region
    # on each thread
    rank0, out = run(extra={"KMP_FORCE_REDUCTION": "critical"})
    expect_eq(out.strip(), "sections 45 90 sum 4950 locked 40 ordered 247 grouped 4 atomic 90",
              "the program's output")
    R, _ = regions(rank0)
    IT = R["omp implicit task"]
    expect_eq((R["omp parallel"].n, IT.n), (1, 2), "one parallel region, two implicit tasks")
    thread = {int(IT.thread_ids[i]): int(IT.omp_thread[i]) for i in range(IT.n)}
    expect_eq(sorted(thread.values()), [0, 1], "the team's thread numbers, one lane each")

    def per_thread(name):
        r = R[name]
        return {t: sum(1 for lane in r.thread_ids if thread[int(lane)] == t) for t in (0, 1)}

    # each thread: 10 sections constructs; the reduction loop and the
    # ordered one; 20 lock acquisitions; 4 ordered iterations (schedule
    # static, 1 of 8); one reduction; 15 implicit barriers (after each of
    # the 10 sections, the reduction's own and its loop's, the ordered
    # loop's, the single's and the region's end)
    for name, want in (("omp sections", 10), ("omp loop", 2), ("omp lock wait", 20),
                       ("omp ordered wait", 4), ("omp reduction", 1),
                       ("omp implicit barrier", 15), ("omp implicit barrier wait", 15)):
        expect_eq(per_thread(name), {0: want, 1: want}, f"{name} per thread")
    expect_eq(R["omp sections"].omp_count.tolist(), [2] * 20, "sections per sections construct")
    for t in (0, 1):
        got = sorted(int(R["omp loop"].omp_count[i]) for i in range(R["omp loop"].n)
                     if thread[int(R["omp loop"].thread_ids[i])] == t)
        expect_eq(got, [8, 100], f"thread {t}'s loops' trip counts")
    S, G, GW, T = R["omp single"], R["omp taskgroup"], R["omp taskgroup wait"], R["omp task"]
    expect_eq((S.n, G.n, GW.n, T.n), (1, 1, 1, 4), "single, taskgroup, its wait, tasks")
    expect_eq(int(GW.thread_ids[0]), int(S.thread_ids[0]), "the taskgroup on the single's thread")
    expect_eq(S.omp_count.tolist(), [1], "single executed once")
    absent = [k for k in ("omp atomic wait", "omp critical wait", "omp barrier",
                          "omp reduction wait") if k in R]
    expect_eq(absent, [], "regions of constructs the program does not wait in")
    # each thread's waits by kind from the raw calls; a barrier's or the
    # taskgroup's wait less the tasks run inside it
    want = {t: {"implicit_barrier": 0, "lock": 0, "ordered": 0, "taskgroup": 0} for t in (0, 1)}
    for name, kind in (("omp implicit barrier wait", "implicit_barrier"),
                       ("omp lock wait", "lock"), ("omp ordered wait", "ordered"),
                       ("omp taskgroup wait", "taskgroup")):
        W = R[name]
        for i in range(W.n):
            want[thread[int(W.thread_ids[i])]][kind] += self_wait(W, i, T)
    rows = csv_rows(rank0)
    par = rows_at(rows, line_of("prog_sync.c", "SYNC_REGION"), "prog_sync.c", "parallel")
    kinds = ("implicit_barrier", "barrier", "taskwait", "taskgroup", "reduction", "lock",
             "critical", "ordered", "atomic")
    for t in (0, 1):
        r = par[t]
        expect_eq({k: ns(r[k]) for k in want[t]}, want[t], f"thread {t}'s waits by kind")
        expect_eq(ns(r["wait"]), sum(ns(r[k]) for k in kinds), f"thread {t}'s wait: its kinds' sum")
        lane = [lane for lane, n in thread.items() if n == t][0]
        it = [i for i in range(IT.n) if int(IT.thread_ids[i]) == lane][0]
        expect_eq(ns(r["time"]), IT.dur(it), f"thread {t}'s time: its implicit task")
        expect_eq(ns(r["work"]), IT.dur(it) - ns(r["wait"]), f"thread {t}'s work")
    for marker, kind, want_rows in (("LOCK", "lock wait", {0: (20, 0), 1: (20, 0)}),
                                    ("ORDERED", "ordered wait", {0: (4, 0), 1: (4, 0)}),
                                    ("SECTIONS", "sections", {0: (10, 20), 1: (10, 20)}),
                                    ("REDUCTION", "loop", {0: (1, 100), 1: (1, 100)}),
                                    ("ORDERED_LOOP", "loop", {0: (1, 8), 1: (1, 8)})):
        got = rows_at(rows, line_of("prog_sync.c", marker), "prog_sync.c", kind)
        expect_eq({t: (int(r["instances"]), int(r["iterations"])) for t, r in got.items()},
                  want_rows, f"{kind} at {marker}: instances and iterations per thread")
    task = rows_at(rows, line_of("prog_sync.c", "TASK"), "prog_sync.c", "task")
    expect_eq(sum(int(r["instances"]) for r in task.values()), 4, "task runs in the csv")


def check_threads(n):
    """Thread begin and end (prog_threads.c on n threads): two roots (the
    initial thread and the program's own thread, each OMPT's "initial"
    type) and n - 1 workers for each, every one begun before its first
    OpenMP event; only the second root ends while recording (the others at
    the process's exit), after its last event."""
    rank0, out = run([str(n)], {"OMP_NUM_THREADS": str(n)})
    expect_eq(out, f"threads {n} sum {10 * n * (n + 1) // 2} {n * (n + 1) // 2}\n",
              "the program's output")
    R, kinds = regions(rank0)
    P, IT = R["omp parallel"], R["omp implicit task"]
    expect_eq(P.n, 11, "parallel regions")
    expect_eq(IT.n, 11 * n, "implicit tasks")
    expect_eq(np.bincount(IT.omp_thread).tolist(), [11] * n, "implicit tasks per thread")
    BI, BW, E = (R.get(k) for k in ("omp initial thread begin", "omp worker thread begin",
                                    "omp thread end"))
    expect(BI is not None and BW is not None and E is not None, f"thread regions: {sorted(R)}")
    expect_eq([kinds[k] for k in ("omp initial thread begin", "omp worker thread begin",
                                  "omp thread end")], ["omp"] * 3, "kind of the thread marks")
    expect_eq(BI.n, 2, "initial threads begun (two roots)")
    expect_eq(BW.n, 2 * (n - 1), f"worker threads begun ({n} threads per root)")
    expect("omp other thread begin" not in R, "no thread of type other")
    roots = sorted(set(P.thread_ids.tolist()))
    expect_eq(len(roots), 2, "lanes that forked")
    main_lane = int(P.thread_ids[0])
    root2 = [x for x in roots if x != main_lane][0]
    expect_eq(int((P.thread_ids == main_lane).sum()), 10, "parallel regions of the initial thread")
    expect_eq(sorted(BI.thread_ids.tolist()), roots, "the initial-type threads: the lanes that fork")
    workers = sorted(BW.thread_ids.tolist())
    expect_eq(len(set(workers) | set(roots)), 2 * n, "one thread begin per lane")
    lanes = sorted(roots + workers)
    expect_eq(sorted(set(IT.thread_ids.tolist())), lanes, "the lanes of the implicit tasks")
    expect_eq(E.thread_ids.tolist(), [root2], "thread ends recorded: the second root's only")
    ends = {root2: int(E.start_times[0])}
    begin = {int(r.thread_ids[i]): int(r.start_times[i]) for r in (BI, BW) for i in range(r.n)}
    # every lane's OpenMP events (the marks excluded) within its begin and end
    first, last, events = {}, {}, {}
    marks = ("omp initial thread begin", "omp worker thread begin", "omp thread end")
    for name, r in R.items():
        if not name.startswith("omp ") or name in marks:
            continue
        for i in range(r.n):
            lane = int(r.thread_ids[i])
            first[lane] = min(first.get(lane, 1 << 62), int(r.start_times[i]))
            last[lane] = max(last.get(lane, 0), int(r.end_times[i]))
            events[lane] = events.get(lane, 0) + 1
    expect_eq(sorted(first), lanes, "lanes with OpenMP events")
    for lane in lanes:
        expect(begin[lane] <= first[lane] <= last[lane],
               f"lane {lane}: begin {begin[lane]} <= first {first[lane]} <= last {last[lane]}")
    expect(last[root2] <= ends[root2], f"second root: last {last[root2]} <= end {ends[root2]}")
    typ = {x: "initial" if x in roots else "worker" for x in lanes}
    # the reader's threads table: scope omp --format json, and Python
    js = json.loads(scope("omp", "--format", "json", rank0))
    th = {t["lane"]: t for t in js["threads"]}
    expect_eq(sorted(th), lanes, "json threads")
    for lane in lanes:
        t = th[lane]
        expect_eq((t["rank"], t["type"], t["events"]), (0, typ[lane], events[lane]),
                  f"lane {lane}'s rank, type, events")
        expect_eq((ns(t["begin"]), ns(t["first"]), ns(t["last"])),
                  (begin[lane], first[lane], last[lane]), f"lane {lane}'s begin, first, last")
        expect_eq(-1 if t["end"] is None else ns(t["end"]), ends.get(lane, -1),
                  f"lane {lane}'s end")
    rows = csv_rows(rank0)
    lane_of = {}    # (root, thread number) -> lane
    for i in range(IT.n):
        j = int(IT.omp_parallel[i])
        lane_of[(int(P.thread_ids[j]), int(IT.omp_thread[i]))] = int(IT.thread_ids[i])
    expect_eq(len(lane_of), 2 * n, "each (root, thread number) on one lane")
    for marker, root in (("THREADS_REGION", main_lane), ("ROOT2_REGION", root2)):
        par = rows_at(rows, line_of("prog_threads.c", marker), "prog_threads.c", "parallel")
        expect_eq(sorted(par), list(range(n)), f"csv threads of {marker}")
        for t, r in par.items():
            lane = lane_of[(root, t)]
            expect_eq((int(r["instances"]), int(r["lane"]), r["thread_type"]),
                      (10 if root == main_lane else 1, lane, typ[lane]),
                      f"{marker} thread {t}: instances, lane, type")
            expect_eq(ns(r["thread_begin"]), begin[lane], f"{marker} thread {t}'s begin (csv)")
            expect_eq(ns(r["thread_end"]) if r["thread_end"] else -1, ends.get(lane, -1),
                      f"{marker} thread {t}'s end (csv)")
    if PYTHON_DIR:
        sys.path.insert(0, PYTHON_DIR)
        import scope_reader
        prof = scope_reader.read_h5(rank0)
        pt = prof.omp_threads()
        expect_eq(pt["lane"].tolist(), lanes, "Python omp_threads() lanes")
        expect_eq(pt["type"].tolist(), [typ[x] for x in lanes], "Python types")
        expect_eq(pt["begin"].tolist(), [begin[x] for x in lanes], "Python begins")
        expect_eq(pt["first"].tolist(), [first[x] for x in lanes], "Python first events")
        expect_eq(pt["last"].tolist(), [last[x] for x in lanes], "Python last events")
        expect_eq(pt["end"].tolist(), [ends.get(x, -1) for x in lanes], "Python ends")
        po = prof.omp()
        po = po[po["kind"] == "parallel"]
        expect_eq(sorted(po["lane"].tolist()), lanes, "Python omp() lanes")


def check_plain():
    rank0, out = run()
    expect_eq(out.strip(), "sum 499500", "the program's output")
    if rank0:
        R, _ = regions(rank0)
        expect_eq([k for k in R if k.startswith("omp ")], [], "OpenMP regions of a plain program")


{"loops": check_loops, "nested": check_nested, "tasks": check_tasks,
 "sync": check_sync, "plain": check_plain, "threads2": lambda: check_threads(2),
 "threads3": lambda: check_threads(3)}[WHAT]()
print("OK", WHAT)
