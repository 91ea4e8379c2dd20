#!/usr/bin/python3
"""test_call_stack_arrays.py PROFILE_DIR WORKLOAD - call_stack_arrays() and
call_stack_dataframe() (numpy views of the C call stack, no Python object
per call) give exactly the per-call dicts of call_stack() as the module
built them before: each scope_call record converted one at a time with
Python ints; on every reader profile whose stacks can be rebuilt, on every
rank, per thread and compensated; parent rows, depth and self time; the
same error where the stack cannot be rebuilt, naming the file.
"""
import ctypes
import glob
import os
import sys
import unittest

import numpy as np

DIR = os.path.abspath(sys.argv[1])
WORKLOAD = os.path.abspath(sys.argv[2])
del sys.argv[1:]

import scope_reader  # noqa: E402
from scope_reader import ScopeError, read_h5  # noqa: E402

NS = 1_000_000_000


def per_call(res, rank, thread=None, relative=True, compensate=False):
    """The dicts call_stack() made before the columns: one record at a time."""
    m = scope_reader
    cs = m._p()
    build = m._cs_build_comp if compensate else m._cs_build
    m._check(build(res._h, rank, -1 if thread is None else thread, ctypes.byref(cs)))
    try:
        n = m._cs_count(cs)
        buf = (ctypes.c_char * (n * m._CALL.itemsize)).from_address(m._cs_calls(cs)) \
            if n else b""
        a = np.frombuffer(bytes(buf), dtype=m._CALL)
    finally:
        m._cs_free(cs)
    shift = (res.time_origin_ns or 0) if relative else 0
    names = res.region_names
    return [{"name": names[c["region"]], "rank": rank, "thread": int(c["thread"]),
             "call_index": int(c["call_index"]),
             "start": (int(c["start_ns"]) - shift) / NS,
             "end": (int(c["end_ns"]) - shift) / NS,
             "duration": (int(c["end_ns"]) - int(c["start_ns"])) / NS,
             "self_time": int(c["self_ns"]) / NS, "depth": int(c["depth"]),
             "parent": int(c["parent"])} for c in a]


def outcome(fn):
    try:
        return fn(), None
    except ScopeError as e:
        return None, e.code


class SameAsPerCall(unittest.TestCase):
    def check(self, res, rank, **kw):
        want, werr = outcome(lambda: per_call(res, rank, **kw))
        got, gerr = outcome(lambda: res.call_stack(rank, **kw))
        self.assertEqual(gerr, werr)
        if werr is not None:
            return 0
        self.assertEqual(got, want)
        a = res.call_stack_arrays(rank, **kw)
        f = res.call_stack_dataframe(rank, **kw)
        self.assertEqual(f["name"].tolist(), [w["name"] for w in want])
        for key in ("thread", "call_index", "start", "end", "duration", "self_time",
                    "depth", "parent"):
            col = [w[key] for w in want]
            self.assertEqual(a[key].tolist(), col, key)
            self.assertEqual(f[key].tolist(), col, key)
        self.assertEqual(f["rank"].tolist(), [rank] * len(want))
        return len(want)

    def test_every_profile(self):
        calls = compensated = 0
        paths = sorted(glob.glob(os.path.join(DIR, "*.h5"))) + [WORKLOAD]
        for path in paths:
            try:
                res = read_h5(path)
            except ScopeError:
                continue
            with self.subTest(path=os.path.basename(path)), res:
                for rank in res.ranks:
                    calls += self.check(res, rank)
                    calls += self.check(res, rank, relative=False)
                    calls += self.check(res, rank, thread=0)
                    if outcome(lambda: res.overhead(rank))[1] is None:
                        compensated += self.check(res, rank, compensate=True)
        self.assertGreater(calls, 100)
        self.assertGreater(compensated, 0)

    def test_structure(self):
        with read_h5(WORKLOAD) as res:
            self.assertEqual(list(res.call_stack_arrays(0)),
                             ["region", "thread", "call_index", "start", "end",
                              "duration", "self_time", "depth", "parent"])
            with self.assertRaises(ValueError):
                res.call_stack_arrays(0, columns=("start", "nonsense"))
            a = res.call_stack_arrays(0, columns=scope_reader._STACK_COLUMNS +
                                      ("start_ns", "end_ns", "self_ns"))
            n = len(a["parent"])
            self.assertEqual(n, 21)
            self.assertEqual({k: str(v.dtype) for k, v in a.items()},
                             {"region": "int32", "thread": "int32",
                              "call_index": "int64", "start": "float64",
                              "end": "float64", "duration": "float64",
                              "self_time": "float64", "start_ns": "int64",
                              "end_ns": "int64", "self_ns": "int64",
                              "depth": "int32", "parent": "int64"})
            # parents come first, one level up; self time = duration - children
            p = a["parent"]
            kids = p >= 0
            self.assertTrue((p[kids] < np.flatnonzero(kids)).all())
            np.testing.assert_array_equal(a["depth"][kids], a["depth"][p[kids]] + 1)
            dur_ns = a["end_ns"] - a["start_ns"]
            child_ns = np.bincount(p[kids], weights=dur_ns[kids], minlength=n)
            np.testing.assert_array_equal(a["self_ns"], dur_ns - child_ns.astype(np.int64))
            # the events' call ids index these rows
            ev = res.event_arrays(ranks=0, columns=("region", "call_index", "call_id",
                                                    "parent_id", "depth"))
            rows = ev["call_id"]
            np.testing.assert_array_equal(a["region"][rows], ev["region"])
            np.testing.assert_array_equal(a["call_index"][rows], ev["call_index"])
            np.testing.assert_array_equal(a["parent"][rows], ev["parent_id"])
            np.testing.assert_array_equal(a["depth"][rows], ev["depth"])

    def test_arrays_outlive_the_profile(self):
        res = read_h5(WORKLOAD)
        a = res.call_stack_arrays(0)
        want = {k: v.copy() for k, v in a.items()}
        res.close()
        for k in a:
            np.testing.assert_array_equal(a[k], want[k])

    def test_errors_name_the_file(self):
        path = os.path.join(DIR, "overlap.h5")
        with read_h5(path) as bad:
            for fn in (bad.call_stack, bad.call_stack_arrays, bad.call_stack_dataframe):
                with self.assertRaises(ScopeError) as cm:
                    fn(0)
                self.assertEqual(cm.exception.code, -15)
                self.assertIn(path, str(cm.exception))
            with self.assertRaises(ScopeError) as cm:
                bad.call_stack_arrays(rank=42)
            self.assertIn(path, str(cm.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
