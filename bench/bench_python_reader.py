#!/usr/bin/python3
"""bench_python_reader.py - the Python module's paths against the C reader
on the same profile, in events per second (issue 30). Not a test: nothing
is asserted, but each line says whether the issue's target is met.

  /usr/bin/python3 bench/bench_python_reader.py BUILD_DIR PROFILE [--rounds 3]
                                                [--only SUBSTRING]

PROFILE: a profile `bench_reader EVENTS RANKS --keep --dir DIR` left
(DIR/bench.ranks: 20,000,000 events of 4 ranks for the issue's numbers).
BUILD_DIR: a release build (`meson setup --buildtype=release`): its
libscope_reader is loaded, with this tree's tools/python.

Every round opens the profile anew (big regions are read on demand, so no
round finds the previous one's arrays) and times, interleaved (a burst of
load from other jobs spreads over all of them), the best round kept, both
wall time and this process's CPU time (user + sys: what other jobs'
turns on a shared machine do not add to):

  C reader (ctypes calls, no Python per event):
    C call stacks      scope_profile_call_stack of every rank
    C event iterator   scope_events_read of every event, call ids, into one
                       array of scope_event records
    C event columns    scope_profile_event_columns of every event, the
                       to_events_dataframe() columns
  Python paths:
    to_events_dataframe()     every event                  target >= 20 M/s
    call_stack_dataframe()    every rank, one after other  target >= 10 M/s
    call_stack_arrays()       the same, numpy only
    events(ranks=[0])         one rank's dicts, iterated: each dict made,
                              one key read, dropped      target >= 2 M/s
                              (made by the compiled helper _rows when the
                              build has it; "Python batches": without it)
    call_stack(rank=0)        one rank's dicts iterated (for reference),
                              both ways
    list(events(ranks=[0]))   every dict made and kept (fresh memory)

It prints the CPU model, the core count this process may use and the load
average, since the machine may be shared with other jobs.
"""
import argparse
import ctypes
import gc
import os
import sys
import time

import benchlib
from benchlib import cpu_model

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("profile")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default=None,
                    help="time only the operations whose name contains this")
    args = ap.parse_args()
    lib = os.path.join(os.path.abspath(args.build), "reader", "libscope_reader.so")
    os.environ["SCOPE_READER_LIB"] = lib
    sys.path.insert(0, os.path.join(HERE, "..", "tools", "python"))
    import numpy as np
    import scope_reader as m
    from scope_reader import read_h5

    def c_call_stacks(res):
        return benchlib.c_call_stacks(m, res)

    def c_iterator(res):
        return len(res._event_array())

    def c_columns(res):
        q = m._Query()
        out = m._Columns()
        bits = 0
        for c in m._FRAME_COLUMNS:
            bits |= m._COLUMNS[c][0]
        m._check(m._ev_columns(res._h, ctypes.byref(q), None, bits, ctypes.byref(out)))
        n = out.n
        m._ev_columns_free(ctypes.byref(out))
        return n

    def frame(res):
        return len(res.to_events_dataframe())

    def stack_frames(res):
        return sum(len(res.call_stack_dataframe(rank)) for rank in res.ranks)

    def stack_arrays(res):
        return sum(len(res.call_stack_arrays(rank)["parent"]) for rank in res.ranks)

    def touch_every(calls):
        """Iterates over every dict, reading one key of each (as a loop
        over calls does), keeping none: what events()' lazy sequence is
        for. Returns the count."""
        n = 0
        for call in calls:
            call["duration"]
            n += 1
        return n

    def events0(res):
        return touch_every(res.events(ranks=[0]))

    def stack0(res):
        return touch_every(res.call_stack(rank=0))

    def events0_list(res):
        return len(list(res.events(ranks=[0])))

    rows = m._rows

    def python_batches(fn):
        def run(res):
            m._rows = None
            try:
                return fn(res)
            finally:
                m._rows = rows
        return run

    cases = [("C call stacks, every rank", c_call_stacks, None),
             ("C event iterator (scope_events_read)", c_iterator, None),
             ("C event columns (scope_profile_event_columns)", c_columns, None),
             ("to_events_dataframe()", frame, 20e6),
             ("call_stack_dataframe(), every rank", stack_frames, 10e6),
             ("call_stack_arrays(), every rank", stack_arrays, 10e6),
             ("events(ranks=[0])" + (", _rows" if rows else ", Python"), events0, 2e6),
             ("call_stack(rank=0), dicts" + (", _rows" if rows else ", Python"), stack0,
              None)]
    cases += [("list(events(ranks=[0])), every dict kept", events0_list, None)]
    if rows is not None:
        cases += [("events(ranks=[0]), Python batches", python_batches(events0), None),
                  ("call_stack(rank=0), Python batches", python_batches(stack0), None)]
    if args.only:
        cases = [case for case in cases if args.only in case[0]]
    best = {name: float("inf") for name, _, _ in cases}
    best_cpu = dict(best)
    count = {}
    t0 = time.perf_counter()
    res = read_h5(args.profile)
    opened = time.perf_counter() - t0
    print("profile   %s: %d ranks, %d regions, opened in %.2f s"
          % (args.profile, res.num_ranks, len(res.region_names), opened))
    res.close()
    print("CPU       %s, %d cores usable, load average %s"
          % (cpu_model(), len(os.sched_getaffinity(0)),
             " ".join("%.2f" % x for x in os.getloadavg())))
    print("library   %s; numpy %s; _rows %s" % (lib, np.__version__,
                                               rows.__file__ if rows else "not built"))
    for r in range(args.rounds):
        for name, fn, _ in cases:
            res = read_h5(args.profile)
            gc.collect()
            t, c = time.perf_counter(), time.process_time()
            n = fn(res)
            dt, dc = time.perf_counter() - t, time.process_time() - c
            res.close()
            best[name] = min(best[name], dt)
            best_cpu[name] = min(best_cpu[name], dc)
            count[name] = n
        print("round %d done, load average %s" % (r + 1, " ".join(
            "%.2f" % x for x in os.getloadavg())), flush=True)
    print("\nbest of %d rounds:" % args.rounds)
    print("%-42s %9s %8s %8s %10s %10s  %s" % (
        "operation", "events", "wall s", "CPU s", "M ev/s", "M ev/s CPU", "target (wall)"))
    for name, _, target in cases:
        rate = count[name] / best[name] / 1e6
        verdict = "" if target is None else "%s %g M/s" % (
            "met  >=" if rate * 1e6 >= target else "MISSED", target / 1e6)
        print("%-42s %9d %8.3f %8.3f %10.2f %10.2f  %s" % (
            name, count[name], best[name], best_cpu[name], rate,
            count[name] / best_cpu[name] / 1e6, verdict))


if __name__ == "__main__":
    main()
