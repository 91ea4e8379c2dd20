#!/usr/bin/python3
"""bench_waits_scale.py [--ranks N] [--steps S] [--memory SIZE] [--dir DIR]
- the wait-state analysis of a run too big to hold: by default 1,024 ranks
and about 100,000,000 MPI calls (issue 29's scale), in a profile written
with h5py in the layout of docs/format.md (not recorded: no machine here
runs 1,024 ranks), whose waits are known by construction. Runs `scope
waits --format json --memory SIZE` on it as a child process and prints its
wall time, CPU time and peak RSS (the child's own, from wait4), and checks
every total against the construction. Not a test: it writes ~5 GB and
takes minutes.

The run, per rank r and step k (T = 10,000 ns x k):
  MPI_Send  to r+1, tag 1, [T + d_r, T + d_r + 40]       (eager: it ends
            before its receive is posted, so no late receiver)
  MPI_Recv  from r-1, tag 1, [T + d_r + 50, end]          end = 50 ns past
            the later of its start and the send's start
  every 32nd step, MPI_Allreduce on MPI_COMM_WORLD, entered at T + 5,000
            (rank 3 at T + 5,500), ended by all at T + 5,600
with d_7 = 1,000 and d_r = 0 otherwise: rank 8 waits 950 ns for rank 7 at
every step (late sender), and every rank but 3 waits 500 ns for rank 3 at
every Allreduce (wait at N x N).

Run after `meson compile -C build` (SCOPE_BUILD=DIR for another build):
/usr/bin/python3 bench/bench_waits_scale.py"""
import argparse
import json
import os
import subprocess
import sys
import time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("SCOPE_BUILD", os.path.join(os.path.dirname(HERE), "build"))
NOTAG = -2147483648
STEP = 10000
EVERY = 32
LATE_SENDER_RANK, LATE_SEND_NS = 7, 1000
LATE_COLL_RANK, LATE_COLL_NS = 3, 500


def rank_regions(r, n, steps):
    """The columns of rank r's three regions."""
    t = np.arange(steps, dtype=np.int64) * STEP
    d = LATE_SEND_NS if r == LATE_SENDER_RANK else 0
    dp = LATE_SEND_NS if (r - 1) % n == LATE_SENDER_RANK else 0   # its sender's delay
    send_s = t + d
    recv_s = t + d + 50
    recv_e = np.maximum(recv_s, t + dp) + 50
    ones = np.ones(steps, dtype=np.int32)
    out = {
        "MPI_Send": dict(start_times=send_s, end_times=send_s + 40, dest=ones * ((r + 1) % n),
                         source=-ones, tag=ones, bytes_sent=np.full(steps, 8, np.int64),
                         bytes_received=np.zeros(steps, np.int64), comm=ones * 0),
        "MPI_Recv": dict(start_times=recv_s, end_times=recv_e, dest=-ones,
                         source=ones * ((r - 1) % n), tag=ones,
                         bytes_sent=np.zeros(steps, np.int64),
                         bytes_received=np.full(steps, 8, np.int64), comm=ones * 0),
    }
    tc = t[::EVERY] + 5000
    nc = len(tc)
    ones = np.ones(nc, dtype=np.int32)
    cs = tc + (LATE_COLL_NS if r == LATE_COLL_RANK else 0)
    out["MPI_Allreduce"] = dict(start_times=cs, end_times=tc + 600, dest=-ones, source=-ones,
                                tag=ones * NOTAG, bytes_sent=np.full(nc, 8, np.int64),
                                bytes_received=np.full(nc, 8, np.int64), comm=ones * 0)
    return out


def write(path, n, steps):
    with h5py.File(path, "w") as f:
        f.attrs["scope_format"] = np.int64(1)
        f.attrs["scope_profiler_schema"] = np.int64(1)
        m = f.create_group("metadata")
        m.attrs["start_time_ns"] = np.int64(0)
        m.attrs["mpi_size"] = np.int64(n)
        m.attrs["hostname"] = "h0"
        members = np.arange(n, dtype=np.int32)
        for r in range(n):
            g = f.create_group(f"rank{r}")
            for k, v in [("rank", r), ("pid", 1000 + r), ("start_time_ns", 0),
                         ("finalize_time_ns", steps * STEP + STEP), ("dropped_events", 0),
                         ("mpi_data", 1), ("clock_aligned", 1), ("clock_host_index", 0),
                         ("clock_error_ns", 0)]:
                g.attrs[k] = np.int64(v)
            g.attrs["hostname"] = "h0"
            g.attrs["complete"] = np.int8(1)
            rg = g.create_group("regions")
            for name, cols in rank_regions(r, n, steps).items():
                x = rg.create_group(name)
                x.attrs["name"] = name
                x.attrs["kind"] = "mpi"
                for col, v in cols.items():
                    x.create_dataset(col, data=v)
            cg = g.create_group("communicators")
            cg.create_dataset("size", data=np.array([n], np.int32))
            cg.create_dataset("remote_size", data=np.array([0], np.int32))
            cg.create_dataset("members_start", data=np.array([0, n], np.int64))
            cg.create_dataset("members", data=members)
            cg.create_dataset("names", data=np.frombuffer(b"MPI_COMM_WORLD\0", np.uint8))


def run_child(cmd):
    """Runs cmd; returns (stdout, wall s, CPU s, peak RSS MiB, system s, minor page
    faults) of the child."""
    t = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(cmd)} failed: {err.decode()}")
    return out, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, ru.ru_stime, ru.ru_minflt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=48000)
    ap.add_argument("--memory", default="256M")
    ap.add_argument("--dir", default="/tmp/scope_waits_scale")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of scope waits; each is printed, the totals checked on the last "
                         "(the system time varies run to run with the fresh pages the kernel "
                         "must zero and the host must back)")
    a = ap.parse_args()
    n, steps = a.ranks, a.steps
    if n <= max(LATE_SENDER_RANK, LATE_COLL_RANK) + 1:
        sys.exit("--ranks must be above 8")
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), "?")
    os.makedirs(a.dir, exist_ok=True)
    prof = os.path.join(a.dir, f"waits_{n}x{steps}.h5")
    colls = len(range(0, steps, EVERY))
    calls = n * (2 * steps + colls)
    if not os.path.exists(prof):
        t = time.monotonic()
        write(prof + ".part", n, steps)
        os.rename(prof + ".part", prof)
        print(f"wrote {prof} in {time.monotonic() - t:.0f} s")
    print(f"CPU: {cpu}; load average {os.getloadavg()[0]:.1f}; {n} ranks, {calls:,} MPI calls, "
          f"{os.path.getsize(prof) / 2**30:.1f} GiB; scope waits --memory {a.memory}")
    scope = os.path.join(BUILD, "tools", "scope")
    for _ in range(a.repeat):
        out, wall, cpu_s, rss, sys_s, minflt = run_child(
            [scope, "waits", "--format", "json", "--memory", a.memory, prof])
        t = json.loads(out)["totals"]
        print(f"  wall {wall:.1f} s, CPU {cpu_s:.2f} s (system {sys_s:.2f}) = "
              f"{calls / cpu_s / 1e6:.1f} M calls/s of CPU; peak RSS {rss:.0f} MiB "
              f"({rss * 2**20 / calls:.1f} bytes per MPI call), {minflt:,} minor faults; "
              f"{t['buckets']} buckets, spilled {t['spilled']}; load {os.getloadavg()[0]:.1f}")
    c = t["cost"]
    print(f"  phases: gather {c['gather']:.1f} s (CPU {c['gather_cpu']:.1f}), match "
          f"{c['match']:.1f} s (CPU {c['match_cpu']:.1f}) = "
          f"{calls / max(c['match_cpu'], 1e-9) / 1e6:.1f} M calls/s of CPU")
    p = t["patterns"]
    want = {
        "messages": n * steps, "unmatched_sends": 0, "unmatched_receives": 0,
        "collective_instances": colls,
        "late_sender": (steps, steps * (LATE_SEND_NS - 50)),
        "wait_at_nxn": ((n - 1) * colls, (n - 1) * colls * LATE_COLL_NS),
    }
    got = {
        "messages": t["messages"], "unmatched_sends": t["unmatched_sends"],
        "unmatched_receives": t["unmatched_receives"],
        "collective_instances": t["collective_instances"],
        "late_sender": (p["late_sender"]["instances"], round(p["late_sender"]["time"] * 1e9)),
        "wait_at_nxn": (p["wait_at_nxn"]["instances"], round(p["wait_at_nxn"]["time"] * 1e9)),
    }
    others = {k: v["instances"] for k, v in p.items() if k not in ("late_sender", "wait_at_nxn")}
    ok = got == want and not any(others.values())
    print("  totals " + ("as constructed" if ok else f"WRONG: got {got} {others}, want {want}"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
