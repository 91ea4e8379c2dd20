#!/usr/bin/python3
"""bench_omp.py [ROUNDS] - what recording OpenMP costs (issue 45): EPCC
syncbench's overheads (PARALLEL, FOR, BARRIER, REDUCTION: the construct's
time per rep less the delay it runs, bench_omp.c) on 2 threads, bare and
under the profiler, in one run, alternating the variants ROUNDS times
(default 5) and printing min / median / max over the rounds:

  clang (LLVM's libomp):  bare, under an OMPT tool whose callbacks do
                          nothing (omp_null_tool.c: the runtime's own cost
                          of a tool, the floor under any), and under the
                          preload (its OMPT tool);
  gcc (libgomp):          bare, on LLVM's libomp without the profiler
                          (LD_PRELOAD=libomp.so.5), and under
                          `scope run --openmp` (the preload and libomp).

For each construct: the overhead in microseconds and its ratio to bare
(target <= 1.25) on 2 threads; and the time added per OpenMP event
recorded (target <= 30 ns), from the same constructs on 1 thread, where
no thread waits for another and the difference is the tool's own cost:
the events per rep are counted in a profile of the construct alone.
Prints the CPU model and the load average (the machine may be shared:
2-thread figures are noisy, the waits being at the mercy of the other
loads). Not a
test; run after `meson compile -C build`:
/usr/bin/python3 bench/bench_omp.py"""
import glob
import os
import statistics
import subprocess
import sys
import tempfile

import h5py

from benchlib import BUILD, PRELOAD, bare_env, cpu_model, profiled_env

TESTS = ("parallel", "for", "barrier", "reduction")


def libomp():
    for p in ["/usr/lib/x86_64-linux-gnu/libomp.so.5"] + sorted(
            glob.glob("/usr/lib/llvm-*/lib/libomp.so.5"), reverse=True):
        if os.path.exists(p):
            return p
    return None


def run(exe, env, args=()):
    out = subprocess.run([exe, *args], env=env, capture_output=True, check=True,
                         timeout=900).stdout.decode()
    rows = {}
    for ln in out.splitlines():
        f = ln.split()
        if f and f[0] == "threads":
            rows["counter_ns"] = float(f[5])
        if len(f) == 6 and f[0] in ("reference",) + TESTS:
            rows[f[0]] = (float(f[1]), int(f[5]))
    return rows


def overheads(rows):
    return {t: rows[t][0] - rows["reference"][0] for t in TESTS}


CLOCK = []  # ns per counter read, one per run


def events_per_rep(exe, env, tmp, test):
    """OpenMP events recorded on thread 0 per rep of `test`: its run under
    the preload alone, the calls of kind omp on lane 0 (2 events each)
    less those of the start-up region, over the reps the benchmark ran
    (all it ran: the doubling, the warm-up and the measurements)."""
    out = os.path.join(tmp, f"ev_{test}.h5")
    rows = run(exe, dict(env, SCOPE_OUTPUT=out), ("reference", test))
    total = rows[test][1]
    calls = 0
    with h5py.File(os.path.join(tmp, f"ev_{test}.ranks", "rank0.h5")) as f:
        for name, g in f["rank0/regions"].items():
            if g.attrs["kind"] != "omp":
                continue
            lanes = g["thread_ids"][()] if "thread_ids" in g else None
            calls += int((lanes == 0).sum()) if lanes is not None else len(g["start_times"])
    # the start-up region: parallel, implicit task, implicit barrier, its wait
    return 2 * (calls - 4) / total


def stats(v):
    return min(v), statistics.median(v), max(v)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 5
    preload = PRELOAD
    omp = libomp()
    print(f"CPU: {cpu_model()}; load average {os.getloadavg()[0]:.1f}; 2 threads "
          f"(OMP_WAIT_POLICY unset); {rounds} rounds of alternated runs: min / median / max")
    base = bare_env()
    base["OMP_NUM_THREADS"] = "2"
    with tempfile.TemporaryDirectory() as tmp:
        clang = os.path.join(BUILD, "bench", "bench_omp_clang")
        gcc = os.path.join(BUILD, "bench", "bench_omp_gcc")
        scoped = profiled_env(base, os.path.join(tmp, "p.h5"))
        null_tool = os.path.join(BUILD, "bench", "libomp_null_tool.so")
        variants = [("clang bare", clang, base), ("clang null tool", clang,
                                                  dict(base, LD_PRELOAD=null_tool)),
                    ("clang scope", clang, scoped)]
        if omp:
            variants += [("gcc bare (libgomp)", gcc, base),
                         ("gcc on libomp", gcc, dict(base, LD_PRELOAD=omp)),
                         ("gcc scope --openmp", gcc, dict(scoped, LD_PRELOAD=preload + ":" + omp))]
        got = {v[0]: {t: [] for t in TESTS} for v in variants}
        one = {v[0]: {t: [] for t in TESTS} for v in variants}
        for _ in range(rounds):
            for name, exe, env in variants:
                rows = run(exe, env)
                CLOCK.append(rows["counter_ns"])
                for t, o in overheads(rows).items():
                    got[name][t].append(o)
                for t, o in overheads(run(exe, dict(env, OMP_NUM_THREADS="1"))).items():
                    one[name][t].append(o)
        one_thread = dict(scoped, OMP_NUM_THREADS="1")
        ev = {t: events_per_rep(clang, one_thread, tmp, t) for t in TESTS}
        evg = ({t: events_per_rep(gcc, dict(one_thread, LD_PRELOAD=preload + ":" + omp), tmp, t)
                for t in TESTS} if omp else {})
    print("\noverhead per rep, microseconds (min / median / max)")
    for name, _, _ in variants:
        print(f"  {name:20s}" + "".join(
            f"  {t} {stats(got[name][t])[0]:.3f} / {stats(got[name][t])[1]:.3f} / "
            f"{stats(got[name][t])[2]:.3f}" for t in TESTS))
    print("\n1 thread: overhead per rep, microseconds (min / median / max)")
    for name, _, _ in variants:
        print(f"  {name:20s}" + "".join(
            f"  {t} {stats(one[name][t])[0]:.3f} / {stats(one[name][t])[1]:.3f} / "
            f"{stats(one[name][t])[2]:.3f}" for t in TESTS))
    clock = statistics.median(CLOCK)
    print(f"\none read of the CPU's counter (lfence+rdtsc), the recorder's floor per event: "
          f"{stats(CLOCK)[0]:.1f} / {clock:.1f} / {stats(CLOCK)[2]:.1f} ns")
    print("\nratio to bare (2 threads, median overheads; target <= 1.25) and ns added per "
          "event (1 thread, median; target <= 30), in counter reads")
    pairs = [("clang scope", "clang bare", ev), ("clang null tool", "clang bare", ev),
             ("clang scope", "clang null tool", ev)]
    if omp:
        pairs += [("gcc scope --openmp", "gcc on libomp", evg),
                  ("gcc scope --openmp", "gcc bare (libgomp)", evg)]
    for a, b, e in pairs:
        cells = []
        for t in TESTS:
            ma, mb = statistics.median(got[a][t]), statistics.median(got[b][t])
            ratio = ma / mb if mb > 0 else float("nan")
            oa, ob = statistics.median(one[a][t]), statistics.median(one[b][t])
            per = (oa - ob) * 1000 / e[t] if e.get(t) else float("nan")
            cells.append(f"  {t} {ratio:.2f}x ({e.get(t, 0):.0f} events, {per:+.1f} ns/event "
                         f"= {per / clock:.1f} reads)")
        print(f"  {a} vs {b}:" + "".join(cells))
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
