"""check_hybrid.py - MPI + OpenMP (prog_hybrid.c, clang through the MPI
wrapper, LLVM's libomp) under mpirun (Open MPI) or mpirun.mpich, 2 ranks x
2 threads, MPI_THREAD_FUNNELED or MPI_THREAD_MULTIPLE, MPI called from
inside the parallel regions: every MPI call and OpenMP event on the right
rank and thread (counts derived by hand from the program), and `scope
efficiency`'s metrics equal to the values recomputed here from the raw
calls (from the return of MPI_Init_thread to MPI_Finalize, each call's
self time by containment on its thread, each thread's useful, MPI and
OpenMP time, POP's formulas).

    check_hybrid.py MPI MODE SCOPE PRELOAD PROGRAM OUT_DIR
"""
import json
import os
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, expect, expect_eq, fail, run_limited  # noqa: E402

MPI, MODE = sys.argv[1:3]
SCOPE, PRELOAD, PROGRAM, OUT = (os.path.abspath(a) for a in sys.argv[3:7])
STEPS = 20
SPAN = "MPI_Init..MPI_Finalize"
# the OpenMP runtime's own time (format/omp_events.def: parallel outside
# its implicit task, synchronisation regions, waits, mutex waits)
OMP_RUNTIME = {"omp parallel", "omp implicit barrier", "omp barrier", "omp taskwait",
               "omp taskgroup", "omp reduction", "omp implicit barrier wait", "omp barrier wait",
               "omp taskwait wait", "omp taskgroup wait", "omp reduction wait", "omp lock wait",
               "omp critical wait", "omp ordered wait", "omp atomic wait"}


def mpirun():
    if MPI == "openmpi":
        return ["mpirun", "--oversubscribe", "--mca", "btl_tcp_if_include", "lo",
                "--mca", "oob_tcp_if_include", "lo", "-n", "2"]
    return ["mpirun.mpich", "-n", "2"]


def run():
    """The program bare, then under the preload with a config that times
    every MPI call and hybrid_step (a top-level region of the run)."""
    conf = os.path.join(OUT, "scope.conf")
    with open(conf, "w") as f:
        f.write("MPI_*\nhybrid_step\n")
    env = clean_env(mpi_root=True, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    cmd = mpirun() + [PROGRAM, MODE]
    bare = run_limited(cmd, env, OUT, "bare run", limit=180)
    expect_eq(bare.returncode, 0, f"bare exit status ({bare.stderr.strip()[-300:]})")
    out = os.path.join(OUT, "prof.h5")
    prof = run_limited(cmd, dict(env, LD_PRELOAD=PRELOAD, SCOPE_OUTPUT=out, SCOPE_CONFIG=conf),
                       OUT, "profiled run", limit=180)
    expect_eq(prof.returncode, 0, f"profiled exit status ({prof.stderr.strip()[-300:]})")
    expect_eq(sorted(prof.stdout.splitlines()), sorted(bare.stdout.splitlines()),
              "the program's output under the preload")
    expect(all(" provided 1 " in line for line in bare.stdout.splitlines()),
           f"the MPI gave the thread level asked: {bare.stdout!r}")
    return out


class Call:
    __slots__ = ("region", "index", "start", "end", "lane", "seq", "depth", "self", "parent")


def calls_of(path):
    """Every call of the rank file's rank, with its self time and parent
    by the journal's order when stored (begin_seq, depth), else by
    containment on its lane."""
    with h5py.File(path) as f:
        (name,) = [k for k in f if k.startswith("rank")]
        g = f[name]["regions"]
        calls, cols = [], {}
        for region in g:
            r = g[region]
            n = len(r["start_times"])
            cols[region] = {k: r[k][()] for k in r}
            lanes = r["thread_ids"][()] if "thread_ids" in r else np.zeros(n, dtype=np.int32)
            seq = r["begin_seq"][()] if "begin_seq" in r else None
            dep = r["depth"][()] if "depth" in r else None
            for i in range(n):
                c = Call()
                c.region, c.index = region, i
                c.start, c.end = int(r["start_times"][i]), int(r["end_times"][i])
                c.lane = int(lanes[i])
                c.seq = int(seq[i]) if seq is not None else None
                c.depth = int(dep[i]) if dep is not None else None
                c.self, c.parent = c.end - c.start, None
                calls.append(c)
    ordered = all(c.seq is not None for c in calls)
    for lane in {c.lane for c in calls}:
        mine = [c for c in calls if c.lane == lane]
        if ordered:
            mine.sort(key=lambda c: c.seq)
            open_at = {}
            for c in mine:
                c.parent = open_at.get(c.depth - 1) if c.depth else None
                open_at[c.depth] = c
        else:
            mine.sort(key=lambda c: (c.start, -c.end))
            stack = []
            for c in mine:
                while stack and not (stack[-1].start <= c.start < stack[-1].end and
                                     c.end <= stack[-1].end):
                    stack.pop()
                c.parent = stack[-1] if stack else None
                stack.append(c)
        for c in mine:
            if c.parent:
                c.parent.self -= c.end - c.start
    return calls, cols


def enclosing(c, region):
    a = c.parent
    while a and a.region != region:
        a = a.parent
    return a


def check_rank(rank, path):
    calls, cols = calls_of(path)
    by = {}
    for c in calls:
        by.setdefault(c.region, []).append(c)
    (span,) = by[SPAN]
    main = span.lane
    P, IT = by["omp parallel"], by["omp implicit task"]
    expect_eq(len(P), STEPS, f"rank {rank}: parallel regions")
    expect_eq({c.lane for c in P}, {main}, f"rank {rank}: parallel regions on the main thread")
    expect_eq(len(IT), 2 * STEPS, f"rank {rank}: implicit tasks")
    it_thread = cols["omp implicit task"]["omp_thread"]
    expect_eq(np.bincount(it_thread).tolist(), [STEPS, STEPS], f"rank {rank}: tasks per thread")
    expect_eq(np.bincount(cols["omp implicit task"]["omp_parallel"]).tolist(), [2] * STEPS,
              f"rank {rank}: implicit tasks per parallel region")
    expect_eq(len({c.lane for c in IT}), 2, f"rank {rank}: the team's two threads")
    # LLVM reports the ends of a worker's implicit task, implicit barrier and
    # its wait when the worker is released for the next region, after the
    # main thread's 1-3 ms of serial work: each is put at its region's end
    # (docs/openmp.md, "LLVM's late ends"), none holds the serial time
    region_of = {c.index: c for c in P}
    late = 0
    for c in IT:
        p = region_of[int(cols["omp implicit task"]["omp_parallel"][c.index])]
        expect(p.start <= c.start and c.end <= p.end,
               f"rank {rank}: implicit task {c.index} within its parallel region {p.index}")
    for name in ("omp implicit barrier", "omp implicit barrier wait"):
        for c in by[name]:
            t = enclosing(c, "omp implicit task")
            p = region_of[int(cols["omp implicit task"]["omp_parallel"][t.index])]
            expect(c.end <= p.end, f"rank {rank}: {name} {c.index} ends by its region's end")
            late += c.lane != main and c.end == p.end
    # the workers' ends are the late ones: their barrier and wait end with the region
    expect(late >= STEPS, f"rank {rank}: {late} worker barrier ends put at their region's end")
    for c in IT:
        expect_eq(c.lane == main, it_thread[c.index] == 0,
                  f"rank {rank}: thread 0 of each team is the main thread")
    bar = by["MPI_Barrier"]
    expect_eq(len(bar), STEPS, f"rank {rank}: MPI_Barrier calls")
    expect(all(c.lane == main and not enclosing(c, "omp implicit task") for c in bar),
           f"rank {rank}: each MPI_Barrier on the main thread, outside parallel regions")
    if MODE == "funneled":
        ar = by["MPI_Allreduce"]
        expect_eq(len(ar), STEPS, f"rank {rank}: MPI_Allreduce calls")
        for c in ar:
            t = enclosing(c, "omp implicit task")
            expect(c.lane == main and t is not None and it_thread[t.index] == 0,
                   f"rank {rank}: each MPI_Allreduce inside thread 0's implicit task")
    else:
        sr = by["MPI_Sendrecv"]
        expect_eq(len(sr), 2 * STEPS, f"rank {rank}: MPI_Sendrecv calls")
        col = cols["MPI_Sendrecv"]
        per = [0, 0]
        for c in sr:
            t = enclosing(c, "omp implicit task")
            expect(t is not None and t.lane == c.lane, f"rank {rank}: MPI_Sendrecv in a task")
            th = int(it_thread[t.index])
            per[th] += 1
            expect_eq((int(col["tag"][c.index]), int(col["dest"][c.index]),
                       int(col["source"][c.index])), (th, 1 - rank, 1 - rank),
                      f"rank {rank}: the tag and partner of thread {th}'s MPI_Sendrecv")
        expect_eq(per, [STEPS, STEPS], f"rank {rank}: MPI_Sendrecv per thread")
    steps = by["hybrid_step"]
    expect_eq(len(steps), STEPS, f"rank {rank}: hybrid_step calls")
    expect(all(c.lane == main and c.parent is span for c in steps),
           f"rank {rank}: each hybrid_step on the main thread, directly inside the span")
    # each thread's states in each window: the run (from the return of
    # MPI_Init_thread, the span's child, to the span's end) and the
    # top-level region hybrid_step (its calls); a call is in a window when
    # it starts inside it
    (init,) = [c for c in by["MPI_Init_thread"] if c.parent is span]
    windows = {"run": [(init.end, span.end)],
               "hybrid_step": [(c.start, c.end) for c in steps]}
    out = {}
    for name, wins in windows.items():
        lanes = {}
        for c in calls:
            if not any(lo <= c.start <= hi for lo, hi in wins):
                continue
            a = lanes.setdefault(c.lane, {"useful": 0, "mpi": 0, "omp": 0})
            if c.region != SPAN and c.region.startswith("MPI_"):
                a["mpi"] += c.self
            elif c.region in OMP_RUNTIME:
                a["omp"] += c.self
            else:
                a["useful"] += c.self
        out[name] = (sum(hi - lo for lo, hi in wins), main, lanes)
    return out


def close(got, want, what):
    """Times are printed to the ns, efficiencies to 6 decimals."""
    tol = 0.6e-9 if what.split(": ")[-1] in TIMES else 0.6e-6
    if abs(got - want) > tol:
        fail(f"{what}: {got!r}, recomputed {want!r}")


TIMES = {"runtime", "outside_mpi_avg", "outside_mpi_max", "useful_avg", "useful_max"}


def main():
    out = run()
    per_rank = [check_rank(r, os.path.join(OUT, "prof.ranks", f"rank{r}.h5")) for r in range(2)]
    p = subprocess.run([SCOPE, "efficiency", "--format", "json", out], capture_output=True,
                       text=True, env=clean_env())
    expect_eq(p.returncode, 0, f"scope efficiency exit status ({p.stderr.strip()})")
    js = json.loads(p.stdout)
    expect_eq(sorted(r["region"] for r in js["efficiency"]), ["hybrid_step", "run"],
              "the windows: the run and its top-level region")
    sys.path.insert(0, os.environ["SCOPE_PYTHON_DIR"])
    import scope_reader
    py = scope_reader.read_h5(out).efficiency()
    for window in ("run", "hybrid_step"):
        check_window(window, {r: per_rank[r][window] for r in range(2)}, js, py)
    check_exports(out)


def check_window(window, ranks, js, py):
    # POP's hybrid metrics from the states recomputed above
    T = max(w for w, _, _ in ranks.values()) / 1e9
    O = [(w - lanes[m]["mpi"]) / 1e9 for w, m, lanes in ranks.values()]
    U = [a["useful"] / 1e9 for _, _, lanes in ranks.values() for a in lanes.values()]
    want = {"runtime": T, "outside_mpi_avg": np.mean(O), "outside_mpi_max": max(O),
            "useful_avg": np.mean(U), "useful_max": max(U),
            "mpi_load_balance": np.mean(O) / max(O), "mpi_communication_efficiency": max(O) / T,
            "mpi_parallel_efficiency": np.mean(O) / T,
            "hybrid_load_balance": np.mean(U) / max(U),
            "hybrid_communication_efficiency": max(U) / T, "parallel_efficiency": np.mean(U) / T}
    want["omp_load_balance"] = want["hybrid_load_balance"] / want["mpi_load_balance"]
    want["omp_communication_efficiency"] = (want["hybrid_communication_efficiency"] /
                                            want["mpi_communication_efficiency"])
    want["omp_parallel_efficiency"] = want["parallel_efficiency"] / want["mpi_parallel_efficiency"]
    run_row = [r for r in js["efficiency"] if r["region"] == window]
    expect_eq(len(run_row), 1, f"the row of {window}")
    run_row = run_row[0]
    expect_eq((run_row["ranks"], run_row["cpus"]), (2, 4), f"{window}: ranks and threads")
    for k, v in want.items():
        close(run_row[k], v, f"{window}: {k}")
    # each printed to 6 decimals: the product of two to within 1.5e-6
    product = run_row["mpi_parallel_efficiency"] * run_row["omp_parallel_efficiency"]
    expect(abs(run_row["parallel_efficiency"] - product) <= 1.5e-6,
           f"{window}: parallel efficiency {run_row['parallel_efficiency']} = MPI x OpenMP "
           f"{product}")
    # the Python module's rows are the C ones
    row = py[py["region"] == window].iloc[0]
    for k in want:
        close(row[k], run_row[k], f"{window}: Python efficiency() {k}")
    # the hybrid load balance is MPI's times OpenMP's (to the printed
    # digits; no bound on either: they are quotients of measured times)
    product = run_row["mpi_load_balance"] * run_row["omp_load_balance"]
    expect(abs(run_row["hybrid_load_balance"] - product) <= 1.5e-6 * max(1.0, product),
           f"{window}: hybrid load balance {run_row['hybrid_load_balance']} = MPI x OpenMP "
           f"{product}")
    print("OK", MPI, MODE, window, {k: round(run_row[k], 3) for k in want})


def check_exports(out):
    """OTF2: the OpenMP paradigm's regions, a ThreadFork and ThreadJoin per
    parallel region on the thread that started it, a ThreadTeamBegin and
    ThreadTeamEnd per implicit task, teams as communicators of OpenMP
    locations, and no warning of otf2-print. Chrome trace: one track per
    thread, each implicit task on its thread's. In `multiple` the
    duplicates of MPI_COMM_WORLD move data before it does: the MPI
    communicators and the OpenMP teams are defined in one valid order."""
    import otf2
    from collections import Counter
    arch = os.path.join(OUT, "otf2")
    p = subprocess.run([SCOPE, "export", "--to", "otf2", "-o", arch, out], capture_output=True,
                       text=True, env=clean_env())
    expect_eq(p.returncode, 0, f"scope export --to otf2 ({p.stderr.strip()})")
    with otf2.reader.open(os.path.join(arch, "traces.otf2")) as t:
        roles = {r.name: (str(r.region_role), str(r.paradigm)) for r in t.definitions.regions}
        kinds = Counter()
        teams = set()
        for loc, ev in t.events:
            name = type(ev).__name__
            kinds[(loc.group.name, name)] += 1
            if name == "ThreadTeamBegin":
                teams.add(tuple(m.name for m in ev.thread_team.group.members))
            if name == "ThreadFork":
                expect_eq(ev.number_of_requested_threads, 2, "a fork's team size")
    expect_eq(roles["omp parallel"], ("RegionRole.PARALLEL", "Paradigm.OPENMP"),
              "the parallel region's role and paradigm")
    expect_eq(roles["omp implicit barrier wait"][1], "Paradigm.OPENMP", "a wait's paradigm")
    for r in range(2):
        g = f"rank {r}"
        expect_eq((kinds[(g, "ThreadFork")], kinds[(g, "ThreadJoin")]), (STEPS, STEPS),
                  f"rank {r}: forks and joins")
        expect_eq((kinds[(g, "ThreadTeamBegin")], kinds[(g, "ThreadTeamEnd")]),
                  (2 * STEPS, 2 * STEPS), f"rank {r}: thread team begins and ends")
    expect_eq(sorted(teams), [(f"rank {r} thread 0", f"rank {r} thread 1") for r in range(2)],
              "one team of two threads per rank")
    pr = subprocess.run(["otf2-print", "-G", os.path.join(arch, "traces.otf2")],
                        capture_output=True, text=True)
    expect_eq(pr.returncode, 0, "otf2-print -G")
    expect("warning" not in pr.stderr, f"otf2-print's warnings: {pr.stderr.strip()[:500]}")
    chrome = os.path.join(OUT, "trace.json")
    p = subprocess.run([SCOPE, "export", "--to", "chrome-trace", "-o", chrome, out],
                       capture_output=True, text=True, env=clean_env())
    expect_eq(p.returncode, 0, f"scope export --to chrome-trace ({p.stderr.strip()})")
    with open(chrome) as f:
        ev = json.load(f)
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    tracks = {(e["pid"], e["tid"]) for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
    expect_eq(len(tracks), 4, "chrome trace: one track per thread of each rank")
    tasks = Counter((e["pid"], e["tid"]) for e in ev if e.get("name") == "omp implicit task")
    expect_eq(sorted(tasks.values()), [STEPS] * 4, "chrome trace: implicit tasks per track")


main()
