#!/usr/bin/python3
"""bench_otf2.py - how fast `scope export --to otf2` writes a large run and
how much memory it takes (issue 31: 100,000,000 events, memory bounded,
>= 5 M events/s). Not a test: nothing is asserted.

  /usr/bin/python3 bench/bench_otf2.py BUILD_DIR [--ranks 64]
      [--calls 781250] [--rounds 2] [--keep DIR]

It writes, with h5py, a run as docs/format.md lays it out (index run.h5
+ run.ranks/rank<N>.h5): RANKS ranks of CALLS calls each, on two thread
lanes, nested three deep (per lane: one `main` call holding steps, each
step holding 3 `kernel` calls), so each call is two OTF2 events (enter,
leave) and the default is 64 x 781,250 calls = 100,000,000 events. Then,
ROUNDS times, it runs `scope export run.h5 --to otf2 -o DIR` and prints
the CPU model, the load average, the wall time, events/s (events counted
from the archive's location definitions, read with python3-otf2), the
peak RSS of the scope process (ru_maxrss from wait4), and the archive's
size. Memory is meant to follow the largest rank, not the run: try
--ranks 16 --calls 3125000 (the same events, 4x larger ranks) to see it.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

from benchlib import cpu_model

KERNELS = 3


def lane_calls(steps, lane):
    """{region: (starts, ends)} of one lane: main [0, 100 steps + 20],
    step i at 10 + 100 i for 90 ns, its kernels at +10, +35, +60 for 20
    ns. Lane 1 is 1 ns later (no ties between lanes)."""
    base = 1_000_000 + lane
    i = np.arange(steps, dtype=np.int64)
    s_start = base + 10 + 100 * i
    k_start = (s_start[:, None] + np.array([10, 35, 60], dtype=np.int64)[None, :]).ravel()
    return {
        "main": (np.array([base], dtype=np.int64), np.array([base + 100 * steps + 20],
                                                            dtype=np.int64)),
        "step": (s_start, s_start + 90),
        "kernel": (k_start, k_start + 20),
    }


def rank_file(path, rank, nranks, calls):
    """rank<N>.h5 with CALLS calls on 2 lanes (calls per lane = 1 + 4 steps)."""
    steps = max(1, (calls // 2 - 1) // (1 + KERNELS))
    lanes = [lane_calls(steps, ln) for ln in (0, 1)]
    with h5py.File(path, "w") as f:
        f.attrs["scope_format"] = np.int64(1)
        f.attrs["scope_profiler_schema"] = np.int64(1)
        g = f.create_group(f"rank{rank}")
        for k, v in [("rank", rank), ("pid", 1000 + rank), ("start_time_ns", 1_000_000),
                     ("finalize_time_ns", 1_000_000 + 100 * steps + 100),
                     ("dropped_events", 0), ("unterminated_calls", 0),
                     ("clock_resolution_ns", 1)]:
            g.attrs[k] = np.int64(v)
        g.attrs["complete"] = np.int8(1)
        g.attrs["hostname"] = f"node{rank // 16}"
        regions = g.create_group("regions")
        n = 0
        for name in ("main", "step", "kernel"):
            st = np.concatenate([lanes[0][name][0], lanes[1][name][0]])
            en = np.concatenate([lanes[0][name][1], lanes[1][name][1]])
            th = np.concatenate([np.zeros(len(lanes[0][name][0]), np.int32),
                                 np.ones(len(lanes[1][name][0]), np.int32)])
            o = np.argsort(st, kind="stable")
            r = regions.create_group(name)
            r.attrs["name"] = name
            r.attrs["kind"] = "manual"
            r.create_dataset("start_times", data=st[o])
            r.create_dataset("end_times", data=en[o])
            r.create_dataset("thread_ids", data=th[o])
            n += len(st)
    return n


def generate(folder, nranks, calls):
    os.makedirs(os.path.join(folder, "run.ranks"))
    total = 0
    for r in range(nranks):
        total += rank_file(os.path.join(folder, "run.ranks", f"rank{r}.h5"), r, nranks, calls)
    with h5py.File(os.path.join(folder, "run.h5"), "w") as f:
        f.attrs["scope_format"] = np.int64(1)
        f.attrs["scope_profiler_schema"] = np.int64(1)
        m = f.create_group("metadata")
        m.attrs["start_time_ns"] = np.int64(1_000_000)
        m.attrs["mpi_size"] = np.int64(nranks)
        for r in range(nranks):
            f[f"rank{r}"] = h5py.ExternalLink(f"run.ranks/rank{r}.h5", f"/rank{r}")
    return os.path.join(folder, "run.h5"), total


def archive_events(arch):
    import otf2
    with otf2.reader.open(os.path.join(arch, "traces.otf2")) as t:
        return sum(loc.number_of_events for loc in t.definitions.locations), \
            len(t.definitions.locations)


def du(path):
    n = 0
    for d, _, files in os.walk(path):
        n += sum(os.path.getsize(os.path.join(d, f)) for f in files)
    return n


def export(scope, run, arch):
    """(wall s, user+sys s, peak RSS bytes) of one export."""
    shutil.rmtree(arch, ignore_errors=True)
    t0 = time.monotonic()
    p = subprocess.Popen([scope, "export", run, "--to", "otf2", "-o", arch],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"scope export failed ({p.returncode}): {err}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", help="the meson build folder (holds tools/scope)")
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--calls", type=int, default=781_250, help="calls per rank")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--keep", metavar="DIR", help="write the run and archive here, and keep them")
    a = ap.parse_args()
    scope = os.path.join(os.path.abspath(a.build), "tools", "scope")
    tmp = a.keep or tempfile.mkdtemp(prefix="bench_otf2.")
    try:
        print(f"CPU: {cpu_model()}, {os.cpu_count()} CPUs; load average at start: "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        t0 = time.monotonic()
        run, calls = generate(os.path.join(tmp, "run"), a.ranks, a.calls)
        print(f"run: {a.ranks} ranks x 2 lanes, {calls:,} calls ({calls // a.ranks:,} per rank), "
              f"{du(os.path.join(tmp, 'run')) / 1e9:.2f} GB of HDF5, written in "
              f"{time.monotonic() - t0:.0f} s")
        arch = os.path.join(tmp, "archive")
        for k in range(a.rounds):
            wall, cpu, rss = export(scope, run, arch)
            events, nloc = archive_events(arch)
            if events != 2 * calls:
                sys.exit(f"the archive holds {events} events, want {2 * calls}")
            print(f"round {k + 1}: {events:,} events in {nloc} locations: wall {wall:.1f} s, "
                  f"CPU {cpu:.1f} s, {events / wall / 1e6:.2f} M events/s "
                  f"({events / cpu / 1e6:.2f} M/s of CPU), peak RSS {rss / 2**20:.0f} MiB, "
                  f"archive {du(arch) / 1e9:.2f} GB")
        print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
