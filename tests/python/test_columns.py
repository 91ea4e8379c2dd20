#!/usr/bin/python3
"""test_columns.py SCOPE PROFILE_DIR WORKLOAD - a record of a call has one
set of names wherever it is printed: `scope events --format csv|json` and
`scope export --to csv|json` use the Python module's (and the seed
tutorial's) names and order, name, rank, call_index, start, end, duration
(seconds), call_id, parent_id, then thread, so pd.read_csv() of the csv
equals to_events_dataframe() and each json object equals the events()
dict. A profile that records what its MPI calls moved (reader profile
comm/perhost: 8 ranks, sends, receives, broadcasts) adds bytes_sent,
bytes_received, dest, source, tag, comm to the csv, the json objects of
MPI calls and the DataFrame alike (issue 44: the DataFrame had none). The
aggregate outputs (summary, tree, diff, callsites) carry no unit
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


MOVED = ["bytes_sent", "bytes_received", "dest", "source", "tag", "comm"]


class MovedColumns(unittest.TestCase):
    """A profile with MPI data: the six data columns, the same in the
    csv, the json and the DataFrame."""

    def setUp(self):
        self.path = os.path.join(DIR, "comm", "perhost", "run.h5")
        self.res = read_h5(self.path)
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.res.close()
        self.tmp.cleanup()

    def outputs(self, fmt):
        path = os.path.join(self.tmp.name, "ev." + fmt)
        scope("export", "--to", fmt, "-o", path, self.path)
        with open(path) as f:
            exported = f.read()
        return [scope("events", "--format", fmt, self.path), exported]

    def test_frame_has_them(self):
        frame = self.res.to_events_dataframe()
        self.assertEqual(list(frame.columns), SEED + ["thread"] + MOVED)
        self.assertEqual([str(frame[c].dtype) for c in MOVED],
                         ["Int64", "Int64", "Int32", "Int32", "Int32", "Int32"])
        # make_profiles.py comm_calls(): per rank 24 MPI_Send, 24 MPI_Recv,
        # 5 MPI_Isend, 3 MPI_Bcast carry data; the compute calls none
        mpi = frame["name"].astype(str).str.startswith("MPI_")
        self.assertEqual(int(mpi.sum()), 8 * (24 + 24 + 5 + 3))
        for c in MOVED:
            want = mpi & ~((frame["name"] == "MPI_Bcast") & (c == "tag"))
            self.assertEqual(frame[c].notna().tolist(), want.tolist(), c)
        bcast = frame[frame["name"] == "MPI_Bcast"]
        self.assertEqual(bcast["bytes_sent"].tolist(), [4096] * 24)
        self.assertEqual(bcast["dest"].tolist(), [0] * 24)
        isend = frame[(frame["name"] == "MPI_Isend") & (frame["rank"] == 3)]
        self.assertEqual(isend["bytes_sent"].tolist(), [0, 64 * 4, 64 * 5, 64 * 6, 64 * 7])
        self.assertEqual(isend["dest"].tolist(), [7] * 5)
        self.assertEqual(isend["tag"].tolist(), [7] * 5)
        # the same rows through the window's path (the region column) and
        # asked for by name
        for kw in ({"window": (-1e9, 1e9)}, {"columns": ["rank", "call_index"] + MOVED}):
            other = self.res.to_events_dataframe(**kw)
            for c in MOVED:
                self.assertTrue(other[c].equals(frame[c]), (kw, c))
        only = self.res.to_events_dataframe(include="MPI_Isend", columns=["bytes_sent"])
        self.assertEqual(list(only.columns), ["name", "bytes_sent"])
        self.assertEqual(int(only["bytes_sent"].sum()),
                         sum(64 * (i + k) for i in range(1, 5) for k in range(8)))

    def test_csv_is_the_dataframe(self):
        frame = self.res.to_events_dataframe()
        for text in self.outputs("csv"):
            self.assertEqual(text.splitlines()[0], ",".join(frame.columns))
            read = pd.read_csv(io.StringIO(text))
            self.assertEqual(list(read.columns), list(frame.columns))
            self.assertEqual(len(read), len(frame))
            for col in frame.columns:
                if col in ("start", "end", "duration"):
                    np.testing.assert_allclose(read[col], frame[col], rtol=0,
                                               atol=1e-9, err_msg=col)
                elif col in MOVED:
                    # an empty cell reads as NaN where the frame has <NA>
                    np.testing.assert_array_equal(read[col].to_numpy(float),
                                                  frame[col].astype(float).to_numpy(),
                                                  err_msg=col)
                else:
                    self.assertEqual(read[col].tolist(), frame[col].tolist(), col)

    def test_json_is_the_dataframe(self):
        frame = self.res.to_events_dataframe()
        want = self.res.events()
        for text in self.outputs("json"):
            got = json.loads(text)["events"]
            self.assertEqual(len(got), len(frame))
            for i, (g, w) in enumerate(zip(got, want)):
                has = not pd.isna(frame["bytes_sent"].iat[i])
                self.assertEqual(list(g), list(w) + (MOVED if has else []))
                for c in MOVED if has else []:
                    v = frame[c].iat[i]
                    self.assertEqual(g[c], None if pd.isna(v) else int(v), (i, c))


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
