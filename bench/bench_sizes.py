#!/usr/bin/python3
"""bench_sizes.py - the analysis rates at every size, so that a slow size
cannot hide behind a fast one (issue 43, target 3).

  /usr/bin/python3 bench/bench_sizes.py BUILD [--sizes 1e5,1e6,1e7,1e8]
        [--ranks 1,4,16] [--dir DIR] [--keep] [--ops call_stacks,dataframe,call_stack]

For every number of events (--sizes) and of ranks (--ranks), it records a
profile with BUILD/bench/bench_reader --record-only (every step 10 nested
calls: step > 6 x compute, exchange > 2 x pack; one process per rank),
then times each operation in a fresh Python process (the reader and the
module loaded, the profile opened, then the operation timed twice: cold,
the process's first touch of that much memory, as a `scope` command or a
script meets it; and warm, a second time in the same process):

  call_stacks   the C call stacks: scope_profile_call_stack of every rank
                (ctypes, no Python per event)      target >= 20 M events/s
  dataframe     to_events_dataframe() of every event  target >= 20 M/s
  call_stack    call_stack(rank) of every rank (the lazy sequence of dicts
                over the stack's columns)          target >= 10 M/s

(pandas is imported before the timing, as a script does once) and prints,
per size, ranks and operation: the events, the time and the
rate by wall time and by the process's CPU time (user + sys, every thread),
cold and warm. BUILD is a release build (`meson setup
--buildtype=release`). Prints the CPU model and the load average before
and after: the machine may be shared, and wall times move with other
processes' load (CPU times much less).

Needs about 16 bytes a recorded event in DIR (default /tmp/scope_bench_sizes)
and, for `dataframe` of 10^8 events, about 6 GB of memory.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

from benchlib import cpu_model, load

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r'''
import json, os, resource, sys, time
sys.path[:0] = [sys.argv[1], sys.argv[4]]
import scope_reader as m
from benchlib import c_call_stacks
op, path = sys.argv[2], sys.argv[3]

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

def call_stacks(res):
    return c_call_stacks(m, res)

def dataframe(res):
    return len(res.to_events_dataframe())

def call_stack(res):
    return sum(len(res.call_stack(rank)) for rank in res.ranks)

fn = {"call_stacks": call_stacks, "dataframe": dataframe, "call_stack": call_stack}[op]
import pandas  # a script imports it once; its 0.3 s are not the analysis
t0, c0 = time.perf_counter(), cpu()
res = m.ProfilingResults(path)
t1, c1 = time.perf_counter(), cpu()
out = {"open": [t1 - t0, c1 - c0]}
for k in ("cold", "warm"):
    t0, c0 = time.perf_counter(), cpu()
    n = fn(res)
    t1, c1 = time.perf_counter(), cpu()
    out[k] = [t1 - t0, c1 - c0]
    out["events"] = n
print(json.dumps(out))
'''

TARGET = {"call_stacks": 20.0, "dataframe": 20.0, "call_stack": 10.0}


def numbers(text, kind):
    try:
        vals = [kind(float(x)) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list")
    if not vals or any(v < 1 for v in vals):
        raise argparse.ArgumentTypeError(f"'{text}': every value must be 1 or more")
    return vals


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--sizes", type=lambda t: numbers(t, int),
                    default=[10**5, 10**6, 10**7, 10**8])
    ap.add_argument("--ranks", type=lambda t: numbers(t, int), default=[1, 4, 16])
    ap.add_argument("--ops", default="call_stacks,dataframe,call_stack")
    ap.add_argument("--dir", default="/tmp/scope_bench_sizes")
    ap.add_argument("--keep", action="store_true", help="keep the profiles (and reuse kept ones)")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    ops = a.ops.split(",")
    if any(o not in TARGET for o in ops):
        sys.exit(f"bench_sizes: --ops: known operations are {', '.join(TARGET)}")
    env = dict(os.environ, SCOPE_READER_LIB=os.path.join(build, "reader", "libscope_reader.so"))
    env = {k: v for k, v in env.items() if k not in ("SCOPE_OUTPUT", "SCOPE_CONFIG", "LD_PRELOAD")}
    pydir = os.path.join(HERE, "..", "tools", "python")
    print(f"CPU: {cpu_model()}; {os.cpu_count()} CPUs; load average {load()}")
    print(f"{'events':>11} {'ranks':>5} {'operation':>12} {'cold wall':>10} {'M/s':>6} "
          f"{'cold CPU':>9} {'M/s':>6} {'warm wall':>10} {'M/s':>6} {'warm CPU':>9} {'M/s':>6}  target")
    for events in a.sizes:
        for ranks in a.ranks:
            if events < 10 * ranks:
                continue
            d = os.path.join(a.dir, f"e{events}_r{ranks}")
            ranks_dir = os.path.join(d, "bench.ranks")
            if not (a.keep and os.path.isdir(ranks_dir)):
                shutil.rmtree(d, ignore_errors=True)
                p = subprocess.run([os.path.join(build, "bench", "bench_reader"), str(events),
                                    str(ranks), "--record-only", "--dir", d],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    sys.exit(f"bench_reader {events} {ranks}: {p.stdout}{p.stderr}")
            for op in ops:
                p = subprocess.run([sys.executable, "-c", CHILD, pydir, op, ranks_dir, HERE],
                                   capture_output=True, text=True, env=env)
                if p.returncode != 0:
                    print(f"{events:>11} {ranks:>5} {op:>12} failed: {p.stderr.strip()[-300:]}")
                    continue
                r = json.loads(p.stdout)
                n = r["events"]
                cw, cc = r["cold"]
                ww, wc = r["warm"]
                met = "met" if n / cw / 1e6 >= TARGET[op] else "MISSED"
                print(f"{n:>11} {ranks:>5} {op:>12} {cw:>9.3f}s {n / cw / 1e6:>6.1f} "
                      f"{cc:>8.3f}s {n / max(cc, 1e-9) / 1e6:>6.1f} {ww:>9.3f}s "
                      f"{n / ww / 1e6:>6.1f} {wc:>8.3f}s {n / max(wc, 1e-9) / 1e6:>6.1f}  "
                      f">= {TARGET[op]:.0f}, cold wall {met}", flush=True)
            if not a.keep:
                shutil.rmtree(d, ignore_errors=True)
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
