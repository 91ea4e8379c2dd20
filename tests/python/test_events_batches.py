#!/usr/bin/python3
"""test_events_batches.py PROFILE_DIR WORKLOAD - events(), now built in
batches from the C columns, returns exactly the dicts the module built
before, one scope_event record at a time with Python ints (same keys in
the same order, same values, same types), whatever the batch size (one
row, a size that cuts the rows unevenly, larger than the run), with every
filter and time mode; MPIRegion.events() too.
"""
import glob
import os
import sys
import unittest

DIR = os.path.abspath(sys.argv[1])
WORKLOAD = os.path.abspath(sys.argv[2])
del sys.argv[1:]

import scope_reader  # noqa: E402
from scope_reader import ScopeError, read_h5  # noqa: E402

NS = 1_000_000_000


def per_call(res, **kw):
    """events() as the module made it before the columns."""
    a = res._event_array(**kw)
    names = res.region_names
    return [{"name": names[e["region"]], "rank": int(e["rank"]),
             "call_index": int(e["call_index"]),
             "start": int(e["start_ns"]) / NS, "end": int(e["end_ns"]) / NS,
             "duration": (int(e["end_ns"]) - int(e["start_ns"])) / NS,
             "call_id": int(e["call_id"]), "parent_id": int(e["parent_id"]),
             "thread": int(e["thread"])} for e in a]


def same_types(got, want):
    return all(type(g[k]) is type(w[k]) for g, w in zip(got, want) for k in w)


class Batches(unittest.TestCase):
    def tearDown(self):
        scope_reader._BATCH = 1 << 16

    def test_every_batch_size(self):
        with read_h5(WORKLOAD) as res:
            want = per_call(res)
            self.assertEqual(len(want), 21)
            for batch in (1, 4, 21, 1 << 16):
                with self.subTest(batch=batch):
                    scope_reader._BATCH = batch
                    got = res.events()
                    self.assertEqual(got, want)
                    self.assertEqual([list(g) for g in got], [list(w) for w in want])
                    self.assertTrue(same_types(got, want))

    def test_filters_and_modes(self):
        scope_reader._BATCH = 5
        with read_h5(WORKLOAD) as res:
            for kw in ({"include": "solve"}, {"exclude": "checkpoint"}, {"ranks": 0},
                       {"relative": False}, {"origin": res.minimum_start_time},
                       {"include": "no such region"}):
                with self.subTest(**{k: str(v) for k, v in kw.items()}):
                    self.assertEqual(res.events(**kw), per_call(res, **kw))
            region = res["solve"]
            self.assertEqual(region.events(ranks=0),
                             per_call(res, include="^solve$", ranks=0))

    def test_every_profile(self):
        scope_reader._BATCH = 3
        checked = 0
        for path in sorted(glob.glob(os.path.join(DIR, "*.h5"))):
            try:
                res = read_h5(path)
            except ScopeError:
                continue
            with self.subTest(path=os.path.basename(path)), res:
                try:
                    want = per_call(res)
                except ScopeError as e:
                    with self.assertRaises(ScopeError) as cm:
                        res.events()
                    self.assertEqual(cm.exception.code, e.code)
                    continue
                self.assertEqual(res.events(), want)
                checked += 1
        self.assertGreater(checked, 8)


if __name__ == "__main__":
    unittest.main(verbosity=2)
