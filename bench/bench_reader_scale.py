#!/usr/bin/python3
"""bench_reader_scale.py - how long opening and summarizing a large run
takes (issue 12, "the reader at scale"). Not a test: nothing is asserted.

  /usr/bin/python3 bench/bench_reader_scale.py BUILD_DIR [--ranks 1024,4096]
      [--hosts 64] [--rounds 5] [--keep DIR]

For each rank count it writes, with h5py, the same run twice, exactly as
docs/format.md "The files of a run" describes it: 5 regions x 50 calls per
rank, each rank group with the attributes the converter writes,

  per-rank  run.h5 (index: /metadata, /rank<N> -> run.ranks/rank<N>.h5)
            + one run.ranks/rank<N>.h5 per rank
  per-host  run.h5 (index: /rank<N> -> run.ranks/host-<h>.h5:/rank<N>)
            + HOSTS run.ranks/host-node<h>.h5, ranks dealt out in blocks,
            as files written before the summary table existed (none)
  host+tab  the same per-host files with their summary table, written by
            `scope-h5write --host-summary` (docs/format.md "The host
            summary table"), as the converter writes host files now

then times, in interleaved rounds (every layout once per round, so a
burst of load from other processes spreads over all of them):

  summary   `scope summary run.h5 > /dev/null`, wall time of the process
            (the reader splits the rank groups among one worker process
            per CPU: reader/README.md)
  summary1  the same with SCOPE_READER_JOBS=1: one process, serial
  open      scope_profile_open(run.h5) + close through libscope_reader
            (ctypes, in this process), no statistics

CPU is user + sys of the process and of the reader's workers (waited-for
children count in RUSAGE_CHILDREN).

and prints min / median / max per (layout, ranks) with the CPU model and
the load average (the machine may be shared: wall times include other
processes' turns). Targets: summary of 4,096 ranks in 64 host files
<= 1 s; in 4,096 rank files <= 2.5 s.
"""
import argparse
import ctypes
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

from benchlib import cpu_model

REGIONS = ["main", "setup", "solve", "exchange", "checkpoint"]
CALLS = 50


def positive_list(text):
    try:
        vals = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}")
    if not vals or any(v < 1 for v in vals):
        raise argparse.ArgumentTypeError(f"need positive integers: {text!r}")
    return vals


def positive(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}")
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return v


def root_attrs(f, nranks, host):
    f.attrs["scope_format"] = np.int64(1)
    f.attrs["scope_profiler_schema"] = np.int64(1)
    m = f.create_group("metadata")
    m.attrs["start_time_ns"] = np.int64(1_000_000)
    m.attrs["finalize_time_ns"] = np.int64(9_000_000)
    m.attrs["mpi_size"] = np.int64(nranks)
    m.attrs["hostname"] = host
    m.attrs["clock"] = "CLOCK_MONOTONIC"
    m.attrs["scope_version"] = "bench"


def rank_group(f, rank, host):
    """/rank<N> with the converter's attributes and 5 regions x 50 calls:
    region j's call i starts at 1e6 + rank + 10000 * (5 i + j), lasts
    100 + 10 j + (i + rank) % 7 ns."""
    g = f.create_group(f"rank{rank}")
    for k, v in [("rank", rank), ("pid", 1000 + rank), ("start_time_ns", 1_000_000),
                 ("finalize_time_ns", 9_000_000), ("dropped_events", 0),
                 ("unterminated_calls", 0), ("clock_resolution_ns", 1)]:
        g.attrs[k] = np.int64(v)
    g.attrs["complete"] = np.int8(1)
    g.attrs["clock_aligned"] = np.int8(0)
    g.attrs["hostname"] = host
    for k in ["overhead_caller_ns", "overhead_empty_pair_ns", "overhead_inside_ns"]:
        g.attrs[k] = np.float64(20.0)
    regions = g.create_group("regions")
    i = np.arange(CALLS, dtype=np.int64)
    for j, name in enumerate(REGIONS):
        r = regions.create_group(name)
        r.attrs["name"] = name
        r.attrs["kind"] = "manual"
        starts = 1_000_000 + rank + 10_000 * (5 * i + j)
        r.create_dataset("start_times", data=starts)
        r.create_dataset("end_times", data=starts + 100 + 10 * j + (i + rank) % 7)


def host_of(rank, nranks, hosts):
    return rank * hosts // nranks


def generate(folder, nranks, hosts, h5write):
    """Writes folder/{rank,host}/run.h5 and their .ranks folders."""
    paths = {}
    for layout in ("per-rank", "per-host"):
        d = os.path.join(folder, f"{layout}-{nranks}")
        os.makedirs(os.path.join(d, "run.ranks"))
        if layout == "per-rank":
            for r in range(nranks):
                host = f"node{host_of(r, nranks, hosts)}"
                with h5py.File(os.path.join(d, "run.ranks", f"rank{r}.h5"), "w") as f:
                    root_attrs(f, nranks, host)
                    rank_group(f, r, host)
            target = {r: (f"run.ranks/rank{r}.h5", f"/rank{r}") for r in range(nranks)}
        else:
            target = {}
            for h in range(hosts):
                host = f"node{h}"
                name = f"run.ranks/host-{host}.h5"
                with h5py.File(os.path.join(d, name), "w") as f:
                    root_attrs(f, nranks, host)
                    for r in range(nranks):
                        if host_of(r, nranks, hosts) == h:
                            rank_group(f, r, host)
                            target[r] = (name, f"/rank{r}")
        with h5py.File(os.path.join(d, "run.h5"), "w") as f:
            root_attrs(f, nranks, "node0")
            for r in range(nranks):
                f[f"rank{r}"] = h5py.ExternalLink(*target[r])
        paths[(layout, nranks)] = os.path.join(d, "run.h5")
    # the per-host files again, with their summary tables
    src = os.path.join(folder, f"per-host-{nranks}")
    d = os.path.join(folder, f"host+tab-{nranks}")
    shutil.copytree(src, d)
    hosts = sorted(os.path.join(d, "run.ranks", f) for f in os.listdir(os.path.join(d, "run.ranks")))
    subprocess.run([h5write, "--host-summary"] + hosts, check=True)
    paths[("host+tab", nranks)] = os.path.join(d, "run.h5")
    return paths


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def time_summary(scope, path, jobs=None):
    """Wall and CPU (user + sys) seconds of one `scope summary`; jobs sets
    SCOPE_READER_JOBS (None: the reader's default)."""
    env = dict(os.environ)
    env.pop("SCOPE_READER_JOBS", None)
    if jobs:
        env["SCOPE_READER_JOBS"] = str(jobs)
    c = child_cpu()
    t = time.perf_counter()
    p = subprocess.run([scope, "summary", path], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=600, env=env)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"scope summary {path} failed: {p.stderr.decode()[-2000:]}")
    return dt, child_cpu() - c


def time_open(lib, path):
    prof = ctypes.c_void_p()
    c = time.process_time() + child_cpu()
    t = time.perf_counter()
    rc = lib.scope_profile_open(path.encode(), ctypes.byref(prof))
    dt = time.perf_counter() - t
    dc = time.process_time() + child_cpu() - c
    if rc < 0:
        sys.exit(f"scope_profile_open({path}) failed: {lib.scope_reader_errmsg().decode()}")
    n = lib.scope_profile_rank_count(prof)
    lib.scope_profile_close(prof)
    return dt, dc, n


def reuse(folder, ranks):
    """The profiles a previous --keep run wrote into folder, if complete."""
    paths = {}
    for n in ranks:
        for layout in ("per-rank", "per-host", "host+tab"):
            p = os.path.join(folder, f"{layout}-{n}", "run.h5")
            if not os.path.exists(p):
                return None
            paths[(layout, n)] = p
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", help="the meson build folder (holds tools/scope)")
    ap.add_argument("--ranks", type=positive_list, default=[1024, 4096],
                    help="rank counts, comma-separated (default 1024,4096)")
    ap.add_argument("--hosts", type=positive, default=64,
                    help="host files of the per-host layout (default 64)")
    ap.add_argument("--rounds", type=positive, default=5,
                    help="interleaved rounds (default 5)")
    ap.add_argument("--keep", metavar="DIR",
                    help="write the profiles into DIR and keep them; profiles a previous "
                         "--keep run left there (same --ranks and --hosts) are reused")
    a = ap.parse_args()
    scope = os.path.join(a.build, "tools", "scope")
    libpath = os.path.join(a.build, "reader", "libscope_reader.so")
    h5write = os.path.join(a.build, "convert", "scope-h5write")
    for p in (scope, libpath, h5write):
        if not os.path.exists(p):
            sys.exit(f"{p} does not exist: build first (meson compile -C {a.build})")
    lib = ctypes.CDLL(libpath)
    lib.scope_profile_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.scope_profile_rank_count.argtypes = [ctypes.c_void_p]
    lib.scope_profile_close.argtypes = [ctypes.c_void_p]
    lib.scope_reader_errmsg.restype = ctypes.c_char_p

    folder = a.keep or tempfile.mkdtemp(prefix="bench_reader_scale.")
    os.makedirs(folder, exist_ok=True)
    try:
        print(f"cpu: {cpu_model()}, {len(os.sched_getaffinity(0))} cpus usable; "
              f"load average at start: {os.getloadavg()[0]:.2f}")
        print(f"profiles: {REGIONS.__len__()} regions x {CALLS} calls per rank, "
              f"{a.hosts} host files in the per-host layout; writing them ...")
        t = time.perf_counter()
        paths = reuse(folder, a.ranks) if a.keep else None
        if paths:
            print(f"reusing the profiles under {folder}")
        else:
            paths = {}
            for n in a.ranks:
                paths.update(generate(folder, n, a.hosts, h5write))
            print(f"written in {time.perf_counter() - t:.1f} s under {folder}")
        times = {(k, what): [] for k in paths for what in ("summary", "summary1", "open")}
        for _ in range(a.rounds):
            for k, path in paths.items():
                times[(k, "summary")].append(time_summary(scope, path))
                times[(k, "summary1")].append(time_summary(scope, path, jobs=1))
                dt, dc, n = time_open(lib, path)
                if n != k[1]:
                    sys.exit(f"{path}: the reader found {n} ranks, not {k[1]}")
                times[(k, "open")].append((dt, dc))
        print(f"{a.rounds} rounds; load average at end: {os.getloadavg()[0]:.2f}")
        print("wall = elapsed seconds (min / median / max over the rounds); cpu = user + "
              "sys seconds (median), which other processes' load does not inflate")
        print(f"{'layout':<9} {'ranks':>6} {'files':>6} {'what':<8} "
              f"{'wall min':>9} {'median':>8} {'max':>8} {'cpu med':>8} {'cpu ms/rank':>12}")
        for (k, what), v in times.items():
            layout, n = k
            files = n if layout == "per-rank" else min(a.hosts, n)
            wall = [x[0] for x in v]
            cpu = statistics.median(x[1] for x in v)
            print(f"{layout:<9} {n:>6} {files + 1:>6} {what:<8} {min(wall):>9.3f} "
                  f"{statistics.median(wall):>8.3f} {max(wall):>8.3f} {cpu:>8.3f} "
                  f"{1000 * cpu / n:>12.3f}")
    finally:
        if not a.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
