#!/usr/bin/python3
"""test_event_arrays.py PROFILE_DIR FIXTURES WORKLOAD - the columnar path
(scope_profile_event_columns through event_arrays() and
to_events_dataframe()) gives exactly what the per-call path gives
(scope_events_read, one scope_event record per call) on every profile the
reader tests write, the scope-profiler fixtures and a recorded workload:
same rows, same order, same integers, same floats to the bit, and the same
error where the per-call path fails. Also the filters applied in C
(include, exclude, ranks, a time window), empty results, the dtypes, and a
bad path whose error names the file.
"""
import glob
import os
import sys
import unittest

import numpy as np
import pandas as pd

DIR = os.path.abspath(sys.argv[1])
FIXTURES = os.path.abspath(sys.argv[2])
WORKLOAD = os.path.abspath(sys.argv[3])
del sys.argv[1:]

from scope_reader import ScopeError, read_h5  # noqa: E402

NS = 1_000_000_000
INTS = ("region", "rank", "thread", "call_index", "call_id", "parent_id")


def profiles():
    """Every path the reader tests can open or refuse: files and folders."""
    paths = sorted(glob.glob(os.path.join(DIR, "*.h5")))
    paths += sorted(glob.glob(os.path.join(FIXTURES, "*.h5")))
    paths += [os.path.join(DIR, d) for d in ("run_folder", "many.ranks", "run.ranks")]
    paths += sorted(glob.glob(os.path.join(DIR, "hosts", "*")))
    return [p for p in paths if os.path.exists(p)] + [WORKLOAD]


def per_call(res, call_ids=True, **kw):
    """The reference: scope_event records as {column: array}."""
    a = res._event_array(call_ids=call_ids, call_sites=True, **kw)
    out = {"region": a["region"], "rank": a["rank"], "thread": a["thread"],
           "start_ns": a["start_ns"], "end_ns": a["end_ns"],
           "duration_ns": a["end_ns"] - a["start_ns"], "call_index": a["call_index"],
           "call_id": a["call_id"], "parent_id": a["parent_id"], "site": a["site"]}
    # seconds as the per-call dicts always made them: Python int / NS
    for c in ("start", "end", "duration"):
        out[c] = np.array([int(x) / NS for x in out[c + "_ns"]], dtype=np.float64)
    return out


def outcome(fn):
    try:
        return fn(), None
    except ScopeError as e:
        return None, e.code


class SameAsPerCall(unittest.TestCase):
    def assert_columns(self, got, want, cols, where):
        for c in cols:
            self.assertEqual(len(got[c]), len(want[c]), (where, c))
            np.testing.assert_array_equal(got[c], want[c], err_msg="%s %s" % (where, c))

    def test_every_profile(self):
        checked = 0
        for path in profiles():
            try:
                res = read_h5(path)
            except ScopeError:
                continue
            with self.subTest(path=os.path.relpath(path, DIR)), res:
                for ids in (True, False):
                    want, werr = outcome(lambda: per_call(res, call_ids=ids))
                    cols = ["region", "rank", "thread", "start_ns", "end_ns",
                            "duration_ns", "call_index", "start", "end", "duration",
                            "site"] + (["call_id", "parent_id"] if ids else [])
                    got, gerr = outcome(lambda: res.event_arrays(columns=cols))
                    self.assertEqual(gerr, werr, "ids=%s" % ids)
                    if werr is None:
                        self.assert_columns(got, want, cols, "ids=%s" % ids)
                        checked += 1
        self.assertGreater(checked, 30)

    def test_depth_is_the_call_stacks(self):
        with read_h5(WORKLOAD) as res:
            a = res.event_arrays(columns=("rank", "call_id", "depth"))
            for rank in np.unique(a["rank"]):
                sel = a["rank"] == rank
                depth = res.call_stack_arrays(rank=int(rank))["depth"]
                np.testing.assert_array_equal(a["depth"][sel], depth[a["call_id"][sel]])
            self.assertEqual(sorted(set(a["depth"].tolist())), [0, 1])

    def test_times_modes(self):
        with read_h5(WORKLOAD) as res:
            for kw in ({"relative": False}, {"origin": res.minimum_start_time},
                       {"relative": True}):
                want = per_call(res, **kw)
                got = res.event_arrays(columns=("start_ns", "end", "duration"), **kw)
                self.assert_columns(got, want, ("start_ns", "end", "duration"), kw)

    def test_dataframe_is_the_columns(self):
        with read_h5(WORKLOAD) as res:
            frame = res.to_events_dataframe()
            want = per_call(res)
            names = res.region_names
            self.assertEqual(frame["name"].tolist(), [names[r] for r in want["region"]])
            for c in ("rank", "call_index", "start", "end", "duration", "call_id",
                      "parent_id", "thread"):
                np.testing.assert_array_equal(frame[c].to_numpy(), want[c], err_msg=c)
            self.assertEqual({c: str(t) for c, t in frame.dtypes.items()},
                             {"name": "category", "rank": "int32", "call_index": "int64",
                              "start": "float64", "end": "float64",
                              "duration": "float64", "call_id": "int64",
                              "parent_id": "int64", "thread": "int32"})
            # the categories are the names present, alphabetical, so a groupby
            # lists them as it lists plain strings
            self.assertEqual(list(frame["name"].cat.categories), sorted(set(names)))
            by = frame.groupby("name")["duration"].sum()
            plain = frame.assign(name=frame["name"].astype(object)) \
                .groupby("name")["duration"].sum()
            self.assertEqual(by.index.tolist(), plain.index.tolist())
            self.assertEqual(by.tolist(), plain.tolist())


class Filters(unittest.TestCase):
    def setUp(self):
        self.res = read_h5(WORKLOAD)

    def tearDown(self):
        self.res.close()

    def test_include_exclude_ranks(self):
        for kw in ({"include": "solve"}, {"include": ["solve", "assemble"]},
                   {"exclude": "checkpoint"}, {"ranks": 0}, {"ranks": [0]},
                   {"include": "^timestep$", "ranks": [0, 0]}):
            with self.subTest(**{k: str(v) for k, v in kw.items()}):
                want = per_call(self.res, **kw)
                got = self.res.event_arrays(**kw)
                self.assertGreater(len(got["region"]), 0)
                for c in INTS + ("start_ns", "end_ns"):
                    np.testing.assert_array_equal(got[c], want[c], err_msg=c)
                frame = self.res.to_events_dataframe(**kw)
                np.testing.assert_array_equal(frame["call_id"].to_numpy(), want["call_id"])
                # the names come from the call counts, not a region column
                self.assertEqual(frame["name"].tolist(),
                                 [self.res.region_names[r] for r in want["region"]])
                self.assertEqual(list(frame["name"].cat.categories),
                                 sorted({self.res.region_names[r] for r in want["region"]}))

    def test_window(self):
        all_ = per_call(self.res)
        # the middle third of the recorded span: from the recorded times,
        # never a fixed window (a loaded machine starts the workload late)
        t0, t1 = float(all_["start"].min()), float(all_["end"].max())
        lo, hi = t0 + (t1 - t0) / 3, t0 + 2 * (t1 - t0) / 3
        keep = (all_["end"] >= lo) & (all_["start"] <= hi)
        self.assertTrue(0 < keep.sum() < len(keep))
        # with the call stack columns (compacted) and without (filtered per cell)
        for cols in (("region", "call_index", "call_id", "parent_id", "start", "end"),
                     ("region", "call_index", "start", "end")):
            got = self.res.event_arrays(window=(lo, hi), columns=cols)
            for c in cols:
                np.testing.assert_array_equal(got[c], all_[c][keep], err_msg=c)
        frame = self.res.to_events_dataframe(window=(lo, hi), include="solve")
        want = keep & (np.array(self.res.region_names, dtype=object)[all_["region"]]
                       == "solve")
        np.testing.assert_array_equal(frame["call_id"].to_numpy(), all_["call_id"][want])
        self.assertEqual(len(self.res.events(window=(lo, hi))), int(keep.sum()))
        # both ends included: a window of one instant keeps a call starting there
        t = float(all_["start"][3])
        got = self.res.event_arrays(window=(t, t), columns=("start", "end"))
        self.assertIn(t, got["start"].tolist())
        with self.assertRaises(ScopeError):
            self.res.event_arrays(window=(1.0, 0.0))

    def test_empty(self):
        for kw in ({"include": "no such region"}, {"window": (1e6, 2e6)},
                   {"window": (1e6, 2e6), "include": "solve"}):
            with self.subTest(**{k: str(v) for k, v in kw.items()}):
                a = self.res.event_arrays(**kw)
                self.assertEqual([len(v) for v in a.values()], [0] * len(a))
                self.assertEqual(a["start_ns"].dtype, np.int64)
                frame = self.res.to_events_dataframe(**kw)
                self.assertEqual(len(frame), 0)
                self.assertEqual(list(frame.columns),
                                 ["name", "rank", "call_index", "start", "end",
                                  "duration", "call_id", "parent_id", "thread"])
                self.assertEqual(self.res.events(**kw), [])

    def test_errors(self):
        with self.assertRaises(ValueError):
            self.res.event_arrays(columns=("start", "nonsense"))
        with self.assertRaises(ScopeError) as cm:
            self.res.event_arrays(ranks=[0, 99])
        self.assertIn(WORKLOAD, str(cm.exception))
        with self.assertRaises(ScopeError) as cm:
            self.res.to_events_dataframe(include="(")
        self.assertTrue(str(cm.exception).startswith('bad regular expression "("'))
        self.assertIn(WORKLOAD, str(cm.exception))
        with read_h5(os.path.join(DIR, "overlap.h5")) as bad:
            with self.assertRaises(ScopeError) as cm:
                bad.to_events_dataframe()
            self.assertEqual(cm.exception.code, -15)
            # no call stack columns: nothing to rebuild, so it reads
            self.assertEqual(len(bad.event_arrays(columns=("start",))["start"]),
                             len(bad._event_array(call_ids=False)))

    def test_bad_path_names_the_file(self):
        missing = os.path.join(DIR, "no_such_profile.h5")
        with self.assertRaises(ScopeError) as cm:
            read_h5(missing).to_events_dataframe()
        self.assertIn(missing, str(cm.exception))
        with self.assertRaises(ScopeError) as cm:
            read_h5(os.path.join(DIR, "notes.txt"))
        self.assertIn("notes.txt", str(cm.exception))

    def test_columns_outlive_the_profile(self):
        a = self.res.event_arrays(columns=("start_ns",))["start_ns"]
        want = a.copy()
        self.res.close()
        np.testing.assert_array_equal(a, want)
        self.assertFalse(a.flags.owndata)


if __name__ == "__main__":
    unittest.main(verbosity=2)
