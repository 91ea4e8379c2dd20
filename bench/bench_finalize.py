"""bench_finalize.py - the wall time profiling adds to an MPI run on
simulated hosts, per rank (issue 12: <= 15 ms per rank for 64 ranks on 4
hosts), with host files (the default on several hosts) and with one file
per rank (SCOPE_HOST_FILES=0). Not a test.

  /usr/bin/python3 bench/bench_finalize.py BUILD_DIR [--ranks 16,64,128]
                   [--hosts 4] [--rounds 3]

Needs root (tests/hosts/fakehost: one Open MPI daemon per host in its own
UTS namespace, TCP over loopback). For each rank count, each round runs
bench/finalize_prog (the calls of tests/hosts/hostfiles_prog) bare,
profiled with host files and profiled with rank files, one after the
other (interleaved, so that a loaded moment hits all three alike), and
times each whole mpirun. Printed: the CPU
model; per variant min / median / max of the wall time and of the CPU
time; and the time added per rank, (profiled - bare of the same round) /
ranks, wall and CPU, min / median / max over the rounds. The profiled
runs' files are checked (every rank present) so that a broken run is not
a fast one.

The wall time is also split into phases, from the times each rank
reports (finalize_prog.c; the simulated hosts share one clock): launch
to main (until every rank is in main: the launcher and the preload's
constructor), MPI_Init and the calls (until every rank calls
MPI_Finalize; with 64 ranks on 2 cores this is the noisy part, Open
MPI's wire-up), MPI_Finalize (until the last rank returns from it: the
journals handed to the host writers, the files written) and exit (until
mpirun returns). Each phase's added time per rank is printed, and the
CPU time before main added per rank.

The bare run's own MPI_Finalize of 64 oversubscribed ranks varies by
seconds, so even that phase is noisy. What scope adds to it is the work
it does before forwarding the call: the profiled runs set SCOPE_VERBOSE=1,
each rank prints "finalize: scope's part N ms ..., from <wall clock> s",
and the benchmark prints that part's span over the job (from the first
rank entering MPI_Finalize to the last leaving scope's part) per rank;
the same for scope's part of MPI_Init (after the real MPI_Init: the
clocks, the host names, the wait for every rank). The same lines give
the CPU each rank spent in its part and its writer's CPU: the work, as
against the waiting, which on 2 cores shared by 64 ranks is most of the
wall time and is what a machine with a core per rank would not have.

Every variant, bare too, starts mpirun with a timer slack of 1 ms
(--timer-slack-us, through tests/hosts/timer_slack; the daemons and the
ranks inherit it). Open MPI's MPI_Init waits for its fence in a loop of
usleep(100): 64 ranks on 2 cores asked for ~400,000 wake-ups a second,
and the bare 64-rank run took 23 to 86 s (its MPI_Init alone 25 to 35
s), which no difference of milliseconds per rank survives. With the
slack the same bare run takes 6 to 9 s. It applies to scope's own
sleeps too (clock_align.c sets 1 us for its exchanges and restores the
slack), so it can only lengthen scope's waits. 0 keeps the slack
inherited.

Every variant, bare too, runs with OMPI_MCA_mpi_yield_when_idle=1: a
rank waiting in MPI yields its core instead of busy-polling. Open MPI
sets this itself when it knows the node is oversubscribed; here each
simulated host claims enough slots for its ranks, so it does not know that
16 to 128 ranks share 2 cores. Busy-polling, a bare 2-rank ping-pong
across two simulated hosts takes 7.8 ms a round trip (69 us yielding):
the wall time then measures the scheduler's time slices, not scope.

CPU time (less noisy than the wall time on a shared machine) is the sum
over the ranks of each rank's user + system time, its scope-h5write
writer included (the rank waits for it), which each rank reports itself
after MPI_Finalize (getrusage, in finalize_prog: a wrapper process around
each rank would be one more process the preload lands in, in the
profiled runs only). The launcher's processes (mpirun, the agents and
daemons, which the preload is loaded into too) are shown apart:
getrusage(RUSAGE_CHILDREN) around mpirun, which counts what mpirun waits
for; Open MPI's daemons do not hand their ranks' time up.
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

import h5py

from benchlib import mmm

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def positive_list(text):
    try:
        vals = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of counts")
    if not vals or any(v < 1 or v > 4096 for v in vals):
        raise argparse.ArgumentTypeError(f"'{text}': each count must be from 1 to 4096")
    return vals


def count(lo, hi):
    def parse(text):
        if not text.isdigit() or not lo <= int(text) <= hi:
            raise argparse.ArgumentTypeError(f"'{text}' is not a count from {lo} to {hi}")
        return int(text)
    return parse


def one_run(build, hosts, ranks, tmp, variant, slack_us):
    hf = os.path.join(tmp, "hostfile")
    per = (ranks + hosts - 1) // hosts
    with open(hf, "w") as f:
        for i in range(hosts):
            f.write(f"bench{i} slots={per}\n")
    out = os.path.join(tmp, "bench.h5")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOPE") and k != "LD_PRELOAD"}
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    env["OMPI_MCA_mpi_yield_when_idle"] = "1"  # one core per rank: see the docstring
    if variant != "bare":
        env.update(LD_PRELOAD=os.path.join(build, "preload/libscope_preload.so"), SCOPE_OUTPUT=out,
                   SCOPE_HOST_FILES="1" if variant == "host files" else "0",
                   SCOPE_VERBOSE="1")  # each rank's "finalize: scope's part" line
    # loopback_net: nothing leaves loopback, the names' lookups included
    cmd = [os.path.join(SRC, "tests/hosts/loopback_net"),
           "mpirun", "--allow-run-as-root", "--oversubscribe", "--hostfile", hf,
           "--mca", "plm_rsh_agent", os.path.join(SRC, "tests/hosts/fakehost"),
           "--mca", "plm_rsh_no_tree_spawn", "1",
           "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo",
           "-n", str(ranks), os.path.join(build, "bench/finalize_prog")]
    env["BENCH_CPU_FILE"] = os.path.join(tmp, "cpu.txt")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    start_ns = time.time_ns()
    if slack_us:
        cmd = [os.path.join(SRC, "tests/hosts/timer_slack"), str(slack_us)] + cmd
    p = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True, timeout=1200)
    end_ns = time.time_ns()
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    launcher = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if p.returncode != 0:
        sys.exit(f"mpirun ({variant}, {ranks} ranks) failed: {p.stderr}")
    with open(os.path.join(tmp, "cpu.txt")) as f:
        lines = [[int(x) for x in ln.split()] for ln in f if ln.strip()]
    if len(lines) != ranks or any(len(ln) != 6 for ln in lines):
        sys.exit(f"{variant}, {ranks} ranks: CPU times of {len(lines)} ranks, not {ranks}")
    cpu = sum(ln[0] + ln[1] for ln in lines) / 1e6
    # phases of the whole run on the one clock of the simulated hosts: until
    # every rank is in main, until every rank calls MPI_Finalize, until the
    # last returns from it, until mpirun returns (docstring)
    marks = [start_ns, max(ln[3] for ln in lines), max(ln[4] for ln in lines),
             max(ln[5] for ln in lines), end_ns]
    phases = [max(0, b - a) / 1e9 for a, b in zip(marks, marks[1:])]
    premain = sum(ln[2] for ln in lines) / 1e6
    part = {}
    for step, pat in SCOPE_PART.items() if variant != "bare" else ():
        spans = [(int(sec) * 10**9 + int(ns), float(ms) * 1e6)
                 for ms, sec, ns in pat.findall(p.stderr)]
        if len(spans) != ranks:
            sys.exit(f"{variant}, {ranks} ranks: {len(spans)} '{step}: scope's part' lines, "
                     f"not {ranks}")
        # from the first rank beginning scope's part of the step to the
        # last ending it (the real MPI_Finalize follows; at init, the
        # real MPI_Init came before)
        part[step] = (max(e + d for e, d in spans) - min(e for e, _ in spans)) / 1e9
        # the work in it, as against the waiting: each rank's CPU in its
        # part and its writer's (a host's leader, or every rank with rank
        # files), summed over the ranks
        cpus = [(float(c), float(w)) for c, w in SCOPE_CPU[step].findall(p.stderr)]
        if len(cpus) != ranks:
            sys.exit(f"{variant}, {ranks} ranks: {len(cpus)} CPU figures of '{step}'")
        part[step + " cpu"] = sum(c for c, _ in cpus) / 1e3
        part[step + " writer"] = sum(w for _, w in cpus) / 1e3
    if variant != "bare":
        with h5py.File(out, "r") as f:
            missing = [r for r in range(ranks) if f"rank{r}" not in f]
        if missing:
            sys.exit(f"{variant}, {ranks} ranks: ranks {missing[:5]} missing from the profile")
        files = os.listdir(os.path.join(tmp, "bench.ranks"))
        want = hosts if variant == "host files" else ranks
        if len(files) != want:
            sys.exit(f"{variant}, {ranks} ranks: {len(files)} files, not {want}: {files[:8]}")
    return wall, cpu, launcher, phases, premain, part


SCOPE_PART = {step: re.compile(step + r": scope's part ([\d.]+) ms .*?, from (\d+)\.(\d+) s")
              for step in ("init", "finalize")}
SCOPE_CPU = {step: re.compile(step + r": scope's part [^;]*; CPU ([\d.]+) ms, its writer's "
                                      r"([\d.]+) ms\)") for step in ("init", "finalize")}
PHASES = ["launch to main", "MPI_Init and the calls", "MPI_Finalize", "exit"]


def main():
    ap = argparse.ArgumentParser(description="wall time profiling adds per rank, "
                                             "host files and rank files")
    ap.add_argument("build", help="the meson build folder")
    ap.add_argument("--ranks", type=positive_list, default=[16, 64, 128],
                    help="rank counts, comma-separated (default 16,64,128)")
    ap.add_argument("--hosts", type=count(1, 64), default=4, help="simulated hosts (default 4)")
    ap.add_argument("--rounds", type=count(1, 50), default=3,
                    help="interleaved rounds per rank count (default 3)")
    ap.add_argument("--timer-slack-us", type=count(0, 100000), default=1000,
                    help="timer slack of mpirun and all it starts, us (default 1000; "
                         "0: inherited; see the docstring)")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    for need in ("preload/libscope_preload.so", "bench/finalize_prog"):
        if not os.path.exists(os.path.join(build, need)):
            ap.error(f"{build}: no {need}; build first (meson compile -C {a.build})")
    if os.geteuid() != 0:
        ap.error("simulated hosts need root (unshare)")
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), "?")
    print(f"CPU: {cpu}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start; "
          f"{a.hosts} simulated hosts; timer slack {a.timer_slack_us} us (0: inherited); "
          f"{a.rounds} interleaved rounds: min / median / max")
    variants = ["bare", "host files", "rank files"]
    for ranks in a.ranks:
        walls = {v: [] for v in variants}
        cpus = {v: [] for v in variants}
        launchers = {v: [] for v in variants}
        phases = {v: [] for v in variants}
        premains = {v: [] for v in variants}
        scope_parts = {v: [] for v in variants}
        for _ in range(a.rounds):
            for v in variants:
                with tempfile.TemporaryDirectory() as tmp:
                    wall, cpu, launcher, ph, pre, part = one_run(build, a.hosts, ranks, tmp, v,
                                                                 a.timer_slack_us)
                walls[v].append(wall)
                cpus[v].append(cpu)
                launchers[v].append(launcher)
                phases[v].append(ph)
                premains[v].append(pre)
                scope_parts[v].append(part)
        print(f"{ranks} ranks (load average {os.getloadavg()[0]:.1f}): wall " +
              "; ".join(f"{v} {mmm(walls[v], scale=1, unit='s')}" for v in variants))
        print(f"{ranks} ranks: CPU of the ranks " +
              "; ".join(f"{v} {mmm(cpus[v], scale=1, unit='s')}" for v in variants))
        print(f"{ranks} ranks: CPU of mpirun and what it waits for " +
              "; ".join(f"{v} {mmm(launchers[v], scale=1, unit='s')}" for v in variants))
        for v in variants[1:]:
            added = [(p - b) / ranks for p, b in zip(walls[v], walls["bare"])]
            added_cpu = [(p - b) / ranks for p, b in zip(cpus[v], cpus["bare"])]
            print(f"{ranks} ranks, {v}: added per rank: wall {mmm(added, scale=1e3, unit='ms')}; "
                  f"ranks' CPU {mmm(added_cpu, scale=1e3, unit='ms')}", flush=True)
            parts = []
            for i, name in enumerate(PHASES):
                d = [(p[i] - b[i]) / ranks for p, b in zip(phases[v], phases["bare"])]
                parts.append(f"{name} {mmm(d, scale=1e3, unit='ms')}")
            pre = [(p - b) / ranks for p, b in zip(premains[v], premains["bare"])]
            print(f"{ranks} ranks, {v}: added per rank by phase (wall): " + "; ".join(parts) +
                  f"; CPU before main {mmm(pre, scale=1e3, unit='ms')}", flush=True)
            spans = []
            for step in SCOPE_PART:
                sp = [x[step] / ranks for x in scope_parts[v]]
                spans.append(f"MPI_{step.capitalize()} {mmm(sp, scale=1e3, unit='ms')}")
            print(f"{ranks} ranks, {v}: scope's part of each step, first rank in to last out, "
                  f"per rank: " + "; ".join(spans), flush=True)
            work = []
            for step in SCOPE_PART:
                c = [x[step + " cpu"] / ranks for x in scope_parts[v]]
                w = [x[step + " writer"] / ranks for x in scope_parts[v]]
                work.append(f"MPI_{step.capitalize()} {mmm(c, scale=1e3, unit='ms')}" +
                            (f" + its writers {mmm(w, scale=1e3, unit='ms')}" if max(w) > 0 else ""))
            print(f"{ranks} ranks, {v}: CPU of scope's part of each step per rank (the work, "
                  f"not the waiting): " + "; ".join(work), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
