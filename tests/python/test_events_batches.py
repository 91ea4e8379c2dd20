#!/usr/bin/python3
"""test_events_batches.py PROFILE_DIR WORKLOAD - events(), now built in
batches from the C columns, returns exactly the dicts the module built
before, one scope_event record at a time with Python ints (same keys in
the same order, same values, same types), whatever the batch size (one
row, a size that cuts the rows unevenly, larger than the run), with every
filter and time mode; MPIRegion.events() too. Twice: made in Python
(class Batches) and by the compiled helper _rows (class Compiled, which
must be loaded when the build made it), and call_stack() by both equal;
_rows refuses bad columns with an exception.
"""
import glob
import json
import os
import pickle
import sys
import tracemalloc
import unittest
from collections.abc import Sequence

import numpy as np
import pandas as pd

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


ROWS = scope_reader._rows


class Batches(unittest.TestCase):
    """The pure-Python batches (no _rows)."""
    rows = None

    def setUp(self):
        scope_reader._rows = self.rows

    def tearDown(self):
        scope_reader._BATCH = 1 << 16
        scope_reader._rows = ROWS

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

    def test_sequence(self):
        """What a list of the dicts gave, the lazy sequence gives."""
        scope_reader._BATCH = 4
        with read_h5(WORKLOAD) as res:
            want = per_call(res)
            got = res.events()
            self.assertIsInstance(got, Sequence)
            self.assertEqual(len(got), 21)
            self.assertEqual(got, want)
            self.assertEqual(want, got)
            self.assertFalse(got != want)
            self.assertNotEqual(got, want[:-1])
            self.assertNotEqual(got, tuple(want))
            self.assertEqual(list(got), want)
            self.assertEqual(got[0], want[0])
            self.assertEqual(got[-1], want[-1])
            self.assertEqual(got[-21], want[0])
            self.assertEqual(got[np.int64(5)], want[5])
            for bad in (21, -22):
                with self.assertRaises(IndexError):
                    got[bad]
            for s in (slice(None, 4), slice(3, 17, 5), slice(None, None, -1),
                      slice(-2, 2, -3), slice(30, 40), slice(5, 5), slice(None, None, -7)):
                with self.subTest(slice=s):
                    self.assertEqual(got[s], want[s])
                    self.assertEqual(list(got[s]), want[s])
                    self.assertEqual(got[s][1:], want[s][1:])
                    self.assertEqual(list(reversed(got[s])), want[s][::-1])
            self.assertEqual(list(reversed(got)), want[::-1])
            self.assertEqual(got.index(want[7]), 7)
            self.assertIn(want[3], got)
            self.assertEqual(got.count(want[3]), 1)
            self.assertEqual(got + want[:2], want + want[:2])
            self.assertEqual(want[:2] + got, want[:2] + want)
            self.assertEqual(repr(got), repr(want))
            self.assertEqual(str(got[:4]), str(want[:4]))
            self.assertEqual(json.dumps(list(got)), json.dumps(want))
            self.assertEqual(pickle.loads(pickle.dumps(got)), want)
            self.assertEqual(pd.DataFrame(got).to_dict("records"), want)
            with self.assertRaises(TypeError):
                got[0] = {}
            with self.assertRaises(TypeError):
                hash(got)
            d = got[2]
            d["name"] = "changed"     # a new dict each time: the rows stay
            self.assertEqual(got[2], want[2])
            self.assertEqual(res.events(include="no such region"), [])
            self.assertEqual(repr(res.events(include="no such region")), "[]")

    def test_reused_dicts_unseen(self):
        """_rows refills a dict the loop dropped; what the loop keeps or
        changes is never refilled."""
        with read_h5(WORKLOAD) as res:
            want = per_call(res)
            got = res.events()
            kept = []
            for i, d in enumerate(got):
                self.assertEqual(d, want[i])
                if i % 3 == 0:
                    kept.append(d)
                elif i % 3 == 1:
                    d["extra"] = 1         # then dropped: keys no longer the rows'
                elif i % 5 == 2:
                    del d["name"]
                    d["name"] = "x"        # same keys, other order
            self.assertEqual(kept, want[::3])
            it = iter(got)
            a, b, c = next(it), next(it), next(it)
            self.assertEqual([a, b, c], want[:3])
            self.assertEqual(list(it), want[3:])
            self.assertEqual([a, b, c], want[:3])

    def test_repr_of_many(self):
        keys = ("a", "b")
        n = scope_reader.dicts.REPR_ROWS + 1
        col = np.arange(n, dtype=np.int64)
        got = scope_reader.dicts.CallDicts(
            scope_reader.dicts.table(keys, [col, 2.5], self.rows, 3))
        self.assertEqual(repr(got), "[{'a': 0, 'b': 2.5}, {'a': 1, 'b': 2.5}, "
                         "{'a': 2, 'b': 2.5}, ..., {'a': %d, 'b': 2.5}, "
                         "{'a': %d, 'b': 2.5}, {'a': %d, 'b': 2.5}] (%d dicts; list() "
                         "makes them all)" % (n - 3, n - 2, n - 1, n))
        self.assertEqual(repr(got[:n - 1]), repr([{"a": i, "b": 2.5} for i in range(n - 1)]))

    def test_iteration_keeps_one_dict(self):
        """A loop that drops each dict holds about one at a time (the list
        of 200,000 would be ~50 MB)."""
        n = 200_000
        cols = [(["x", "y"], np.zeros(n, np.int32)), np.arange(n, dtype=np.int64),
                np.arange(n) / 7.0]
        got = scope_reader.dicts.CallDicts(
            scope_reader.dicts.table(("name", "i", "t"), cols, self.rows, 1000))
        tracemalloc.start()
        total = 0
        for d in got:
            total += d["i"]
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        self.assertEqual(total, n * (n - 1) // 2)
        self.assertLess(peak, 2_000_000)

    def test_call_stack_tree(self):
        """call_stack_roots/children on the sequence (their column path)
        equal the dict-by-dict answer on the list, and on a slice."""
        with read_h5(WORKLOAD) as res:
            calls = res.call_stack(0)
            plain = list(calls)
            self.assertEqual(scope_reader.call_stack_roots(calls),
                             scope_reader.call_stack_roots(plain))
            self.assertEqual(scope_reader.call_stack_children(calls),
                             scope_reader.call_stack_children(plain))
            self.assertEqual(len(scope_reader.call_stack_roots(calls)), 9)
            self.assertEqual(scope_reader.call_stack_roots(calls[:6]),
                             scope_reader.call_stack_roots(plain[:6]))


@unittest.skipIf(ROWS is None, "the _rows extension was not built (no python3-dev)")
class Compiled(Batches):
    """The same through _rows.dicts, and the two paths against each other."""
    rows = ROWS

    def test_loaded_from_this_build(self):
        lib = os.path.dirname(os.path.dirname(os.environ["SCOPE_READER_LIB"]))
        self.assertTrue(ROWS.__file__.startswith(os.path.join(lib, "tools", "python")),
                        ROWS.__file__)

    def test_same_as_python(self):
        paths = sorted(glob.glob(os.path.join(DIR, "*.h5"))) + [WORKLOAD]
        paths += [os.path.join(DIR, "comm", "perhost", "run.h5")]
        checked = 0
        for path in paths:
            try:
                res = read_h5(path)
            except ScopeError:
                continue
            with self.subTest(path=os.path.basename(path)), res:
                try:
                    scope_reader._rows = None
                    want = res.events(), [res.call_stack(k) for k in res.ranks]
                except ScopeError:
                    continue
                finally:
                    scope_reader._rows = ROWS
                got = res.events(), [res.call_stack(k) for k in res.ranks]
                self.assertEqual(got, want)
                for g, w in zip(got[0] + sum(got[1], []), want[0] + sum(want[1], [])):
                    self.assertEqual(list(g.items()), list(w.items()))
                    self.assertEqual([type(v) for v in g.values()],
                                     [type(v) for v in w.values()])
                checked += 1
        self.assertGreater(checked, 8)

    def test_bad_columns(self):
        d = ROWS.dicts
        i4 = np.arange(3, dtype=np.int32)
        self.assertEqual(d(("a", "b", "c"), [i4, (["x", "y", "z"], i4[::-1].copy()), 7]),
                         [{"a": 0, "b": "z", "c": 7}, {"a": 1, "b": "y", "c": 7},
                          {"a": 2, "b": "x", "c": 7}])
        self.assertEqual(d(("a",), [np.zeros(0)]), [])
        with self.assertRaisesRegex(ValueError, "2 keys but 1 columns"):
            d(("a", "b"), [i4])
        with self.assertRaisesRegex(ValueError, "columns of 3 and 2 rows"):
            d(("a", "b"), [i4, i4[:2].copy()])
        with self.assertRaisesRegex(ValueError, "int32, int64 or float64 only"):
            d(("a",), [np.zeros(3, np.float32)])
        with self.assertRaisesRegex(ValueError, "one-dimensional"):
            d(("a",), [np.zeros((2, 2))])
        with self.assertRaisesRegex(IndexError, "name index 3 of 3 names"):
            d(("a",), [(["x", "y", "z"], np.array([0, 3], np.int32))])
        with self.assertRaisesRegex(ValueError, "name indices must be int32"):
            d(("a",), [(["x"], np.zeros(2, np.int64))])
        with self.assertRaisesRegex(ValueError, "contiguous"):
            d(("a",), [i4[::2]])
        with self.assertRaisesRegex(TypeError, "keys must be str"):
            d((1,), [i4])


if __name__ == "__main__":
    unittest.main(verbosity=2)
