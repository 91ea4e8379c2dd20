"""bench_exit.py - what profiling costs a real code's rate of MPI calls at
exit (issue 43, target 2), bare and profiled in one run.

  /usr/bin/python3 bench/bench_exit.py BUILD [--seconds 1.7] [--rate 100000]
                   [--rounds 5] [--work N] [--convert-rounds 9]

bench/exit_prog (built in BUILD/bench) makes a mix of point-to-point,
one-sided and collective MPI calls between stretches of computation, on
2 ranks under Open MPI's mpirun. The benchmark first picks the work per
step so that a bare run makes about --rate MPI calls per rank per second
(two short bare runs: the time of a step without and with work), and the
steps so that it lasts about --seconds. Then, in --rounds alternated
rounds, it runs the program bare and profiled (LD_PRELOAD, the default
config: every MPI call timed, its arguments captured) and prints, min /
median / max over the rounds:

  - the wall time of the whole mpirun, and profiled / bare of each round;
  - each rank's MPI_Finalize (the program's own clock around the call);
  - exit: from the last rank's return from MPI_Finalize to mpirun's
    return (what the writers that outlive the ranks add, with
    SCOPE_FINALIZE_WAIT=0, the default);
  - the same profiled with SCOPE_FINALIZE_WAIT=1 (the rank waits for its
    file inside MPI_Finalize, as before issue 43), when --wait-too is given.

Every profiled run's profile is checked: both ranks, every MPI call the
program made (its own count) in the file, so that a broken run is not a
fast one. Then the converter alone: one profiled run keeps its journals
(a SCOPE_H5WRITER wrapper copies them) and scope-h5write converts rank
0's journal --convert-rounds times, and a journal of a 2-step run as many
times; printed: the CPU (user + sys, wait4) of each, median, per
recorded call in all and per call above the small journal's.

Prints the CPU model and the load average before and after: the machine is
shared, and wall times move with other processes' load (CPU times much
less).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import h5py

from benchlib import bare_env, cpu_model, journal_keeper, load, mmm

CALLS_PER_STEP = 10 + 1 / 4 + 1 / 16  # exit_prog.c: 10 a step, a Bcast every 4, a Barrier every 16


def base_env():
    env = bare_env("SCOPE")
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1",
               # a rank waiting in MPI yields its core: 2 ranks share 2 busy
               # cores with other processes here
               OMPI_MCA_mpi_yield_when_idle="1")
    return env


def run(build, tmp, steps, work, profiled, extra=None):
    """One mpirun; returns (wall s, times per rank, calls)."""
    prog = os.path.join(build, "bench", "exit_prog")
    times = os.path.join(tmp, "times.txt")
    if os.path.exists(times):
        os.unlink(times)
    env = base_env()
    env["BENCH_TIMES_FILE"] = times
    out = os.path.join(tmp, "prof.h5")
    if profiled:
        shutil.rmtree(os.path.join(tmp, "prof.ranks"), ignore_errors=True)
        if os.path.exists(out):
            os.unlink(out)
        env.update(LD_PRELOAD=os.path.join(build, "preload", "libscope_preload.so"),
                   SCOPE_OUTPUT=out)
    env.update(extra or {})
    cmd = ["mpirun", "-n", "2", prog, str(steps), str(work)]
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True, timeout=1200)
    t1 = time.monotonic()
    end_ns = time.time_ns()
    if p.returncode != 0:
        sys.exit(f"mpirun failed ({'profiled' if profiled else 'bare'}): {p.stderr[-3000:]}")
    calls = int(p.stdout.split("calls ")[1].split()[0])
    with open(times) as f:
        rows = [[int(x) for x in ln.split()] for ln in f if ln.strip()]
    if len(rows) != 2:
        sys.exit(f"times of {len(rows)} ranks, not 2")
    # rank, t_init_done, t_finalize, t_finalized, user_us, sys_us
    r = {"wall": t1 - t0,
         "finalize": [(row[3] - row[2]) / 1e9 for row in rows],
         "exit": (end_ns - max(row[3] for row in rows)) / 1e9,
         "app": max(row[2] for row in rows) / 1e9 - min(row[1] for row in rows) / 1e9}
    if profiled:
        check_profile(out, calls)
    return r, calls


def check_profile(out, calls):
    """Both ranks there, and every MPI call of the program in each (the
    program's count includes MPI_Finalize, which the file does not hold:
    it is written inside it; the span region MPI_Init..MPI_Finalize is
    one call more; the I/O calls the program makes, its printf of the
    times among them, are not MPI calls)."""
    with h5py.File(out, "r") as f:
        for r in range(2):
            g = f[f"rank{r}"]["regions"]
            total = sum(len(g[k]["start_times"]) for k in g if g[k].attrs["kind"] != "io")
            if total != calls:
                sys.exit(f"rank {r}: {total} calls in the profile, the program made {calls}")


def calibrate(build, tmp, rate, seconds, work):
    steps = 2000
    if work is None:
        a, _ = run(build, tmp, steps, 0, False)
        b, _ = run(build, tmp, steps, 200000, False)
        per0 = a["app"] / steps
        per_unit = max((b["app"] - a["app"]) / steps / 200000, 1e-12)
        target = CALLS_PER_STEP / rate
        work = max(0, int((target - per0) / per_unit))
        print(f"calibration: a step without work {per0 * 1e6:.1f} us, "
              f"{per_unit * 1e9:.2f} ns per unit of work; work {work} for "
              f"{rate:.0f} calls/s per rank")
    c, _ = run(build, tmp, steps, work, False)
    per = c["app"] / steps
    return work, max(100, int(seconds / per))


def convert_bench(build, tmp, steps, work, rounds):
    """CPU of scope-h5write on rank 0's journal of a run of `steps` and of
    a 2-step run; returns (cpu big, cpu small, calls big, calls small)."""
    keep = os.path.join(tmp, "keep")
    writer = os.path.join(build, "convert", "scope-h5write")
    wrapper = journal_keeper(build, tmp)
    res = []
    for n in (steps, 2):
        shutil.rmtree(keep, ignore_errors=True)
        os.makedirs(keep)
        _, calls = run(build, tmp, n, work, True,
                       {"SCOPE_H5WRITER": wrapper, "SCOPE_FINALIZE_WAIT": "1",
                        "SCOPE_BENCH_KEEP": keep})
        journals = sorted(os.listdir(keep))
        if len(journals) != 2:
            sys.exit(f"kept {journals}")
        src = os.path.join(tmp, "j")
        shutil.copy(os.path.join(keep, journals[0]), src)
        cpus = []
        for _ in range(rounds):
            dst = os.path.join(tmp, "conv.h5")
            if os.path.exists(dst):
                os.unlink(dst)
            pid = os.fork()
            if pid == 0:
                os.execv(writer, [writer, "--complete", src, dst])
            _, st, ru = os.wait4(pid, 0)
            if st != 0:
                sys.exit("scope-h5write failed")
            cpus.append(ru.ru_utime + ru.ru_stime)
        res.append((statistics.median(cpus), calls, cpus))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--seconds", type=float, default=1.7)
    ap.add_argument("--rate", type=float, default=100000.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--work", type=int, default=None)
    ap.add_argument("--convert-rounds", type=int, default=9)
    ap.add_argument("--wait-too", action="store_true",
                    help="also profile with SCOPE_FINALIZE_WAIT=1 in each round")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    print(f"CPU: {cpu_model()}; load average {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        work, steps = calibrate(build, tmp, a.rate, a.seconds, a.work)
        variants = ["bare", "profiled"] + (["profiled, SCOPE_FINALIZE_WAIT=1"] if a.wait_too else [])
        res = {v: [] for v in variants}
        calls = None
        for _ in range(a.rounds):
            for v in variants:
                extra = {"SCOPE_FINALIZE_WAIT": "1"} if "WAIT=1" in v else {}
                r, calls = run(build, tmp, steps, work, v != "bare", extra)
                res[v].append(r)
        bare = res["bare"]
        rate = calls / statistics.median(r["app"] for r in bare)
        print(f"{steps} steps, work {work}: {calls} MPI calls per rank, "
              f"{rate:.0f} calls/s per rank (bare, median)")
        for v in variants:
            rs = res[v]
            fin = [x for r in rs for x in r["finalize"]]
            print(f"{v:34s} wall {mmm([r['wall'] for r in rs], '%.3f')} s; "
                  f"MPI_Finalize per rank {mmm(fin, scale=1e3)} ms; exit {mmm([r['exit'] for r in rs], scale=1e3)} ms")
            if v != "bare":
                ratio = [r["wall"] / b["wall"] for r, b in zip(rs, bare)]
                added = [(r["wall"] - b["wall"]) * 1e3 for r, b in zip(rs, bare)]
                fin_added = [statistics.median(r["finalize"]) - statistics.median(b["finalize"])
                             for r, b in zip(rs, bare)]
                print(f"{'':34s} profiled / bare {mmm(ratio, '%.3f')}x; added "
                      f"{mmm(added)} ms; MPI_Finalize added per rank {mmm(fin_added, scale=1e3)} ms")
        (big, n_big, cb), (small, n_small, cs) = convert_bench(build, tmp, steps, work,
                                                               a.convert_rounds)
        print(f"scope-h5write, rank 0's journal of {n_big} calls: CPU {mmm(cb, scale=1e3)} ms "
              f"= {big / n_big * 1e9:.0f} ns per call; of {n_small} calls: {mmm(cs, scale=1e3)} ms; "
              f"above it {(big - small) / (n_big - n_small) * 1e9:.0f} ns per call")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
