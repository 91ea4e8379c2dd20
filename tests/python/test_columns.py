#!/usr/bin/python3
"""test_columns.py SCOPE PROFILE_DIR WORKLOAD - a record of a call has one
set of names wherever it is printed: `scope events --format csv|json` and
`scope export --to csv|json` use the Python module's (and the seed
tutorial's) names and order, name, rank, call_index, start, end, duration
(seconds), call_id, parent_id, then thread, so pd.read_csv() of the csv
equals to_events_dataframe() and each json object equals the events()
dict. The aggregate outputs (summary, tree, diff, callsites) carry no unit
in their column names either: their times are seconds, as documented.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import pandas as pd

SCOPE = os.path.abspath(sys.argv[1])
DIR = os.path.abspath(sys.argv[2])
WORKLOAD = os.path.abspath(sys.argv[3])
del sys.argv[1:]

from scope_reader import read_h5  # noqa: E402

SEED = ["name", "rank", "call_index", "start", "end", "duration", "call_id",
        "parent_id"]


def scope(*args):
    p = subprocess.run([SCOPE, *args], capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or p.stderr:
        raise AssertionError(f"scope {args}: {p.returncode} {p.stderr}")
    return p.stdout


class EventColumns(unittest.TestCase):
    def setUp(self):
        self.res = read_h5(WORKLOAD)
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.res.close()
        self.tmp.cleanup()

    def outputs(self, fmt):
        """The events in `fmt` from `scope events` and `scope export`."""
        path = os.path.join(self.tmp.name, "ev." + fmt)
        scope("export", "--to", fmt, "-o", path, WORKLOAD)
        with open(path) as f:
            exported = f.read()
        return [scope("events", "--format", fmt, WORKLOAD), exported]

    def test_seed_names_in_the_module(self):
        frame = self.res.to_events_dataframe()
        self.assertEqual(list(frame.columns), SEED + ["thread"])
        self.assertEqual(list(self.res.events()[0]), SEED + ["thread"])

    def test_csv_is_the_dataframe(self):
        frame = self.res.to_events_dataframe()
        for text in self.outputs("csv"):
            self.assertEqual(text.splitlines()[0], ",".join(frame.columns))
            read = pd.read_csv(io.StringIO(text))
            self.assertEqual(list(read.columns), list(frame.columns))
            self.assertEqual(len(read), 21)
            for col in frame.columns:
                if col in ("start", "end", "duration"):
                    # csv holds exact decimal ns; the frame divides by 1e9
                    np.testing.assert_allclose(read[col], frame[col], rtol=0,
                                               atol=1e-12, err_msg=col)
                else:
                    self.assertEqual(read[col].tolist(), frame[col].tolist(), col)

    def test_json_is_events(self):
        want = self.res.events()
        for text in self.outputs("json"):
            got = json.loads(text)["events"]
            self.assertEqual(len(got), len(want))
            for g, w in zip(got, want):
                self.assertEqual(list(g), list(w))
                for k in w:
                    if k in ("start", "end", "duration"):
                        self.assertAlmostEqual(g[k], w[k], delta=1e-12, msg=k)
                    else:
                        self.assertEqual(g[k], w[k], k)

    def test_without_call_ids(self):
        head = scope("events", "--no-call-ids", "--format", "csv",
                     WORKLOAD).splitlines()[0]
        self.assertEqual(head, "name,rank,call_index,start,end,duration,thread")
        frame = self.res.to_events_dataframe()
        self.assertEqual(head.split(","),
                         [c for c in frame.columns if c not in ("call_id", "parent_id")])


class AggregateColumns(unittest.TestCase):
    """No unit suffix anywhere: the same words as the table's headings."""

    def header(self, *args):
        return next(csv.reader(io.StringIO(scope(*args))))

    def test_csv_headers(self):
        two = os.path.join(DIR, "two_ranks.h5")
        self.assertEqual(self.header("summary", "--format", "csv", two),
                         ["region", "calls", "total", "mean", "min", "max", "std", "share"])
        self.assertEqual(self.header("summary", "--per-rank", "--format", "csv", two),
                         ["region", "rank", "calls", "total", "mean", "min", "max", "std",
                          "share"])
        self.assertEqual(self.header("tree", "--format", "csv", two),
                         ["path", "depth", "calls", "total", "self"])
        self.assertEqual(self.header("diff", "--format", "csv", two, two),
                         ["region", "calls_a", "calls_b", "total_a", "total_b",
                          "total_change", "mean_a", "mean_b", "mean_change"])

    def test_json_fields(self):
        two = os.path.join(DIR, "two_ranks.h5")
        row = json.loads(scope("summary", "--format", "json", two))["regions"][0]
        self.assertEqual(list(row), ["region", "calls", "total", "mean", "min", "max",
                                     "std", "share"])
        self.assertEqual(row["total"], 1.69)
        node = json.loads(scope("tree", "--format", "json", two))["nodes"][0]
        self.assertEqual(list(node), ["path", "name", "depth", "calls", "total", "self"])
        d = json.loads(scope("diff", "--format", "json", two, two))["regions"][0]
        self.assertFalse([k for k in d if k.endswith("_s")], d)

    def test_help_says_seconds(self):
        for cmd in ("events", "summary", "tree", "diff", "callsites", "export"):
            with self.subTest(cmd=cmd):
                text = scope(cmd, "--help")
                self.assertIn("seconds", text)
                self.assertNotIn("_s,", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
