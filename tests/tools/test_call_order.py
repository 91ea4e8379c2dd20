#!/usr/bin/python3
"""test_call_order.py SCOPE - the call stack puts calls in start order
(ties: the longer call first) both when it merges the regions' arrays
(each in that order already) and when a region's array is not in that
order (equal starts, shorter call first in the file), which takes the
sorting path. Checked through `scope tree` and `scope events` on profiles
written here with h5py.
"""
import os
import subprocess
import sys
import tempfile
import unittest

import h5py
import numpy as np

SCOPE = os.path.abspath(sys.argv[1])
del sys.argv[1:]


def run(*args):
    p = subprocess.run([SCOPE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def write(path, regions):
    """regions: {name: [(start, end, thread), ...]} on rank 0, in file order."""
    with h5py.File(path, "w") as f:
        for name, calls in regions.items():
            g = f.create_group(f"rank0/regions/{name}")
            g["start_times"] = np.array([c[0] for c in calls], np.int64)
            g["end_times"] = np.array([c[1] for c in calls], np.int64)
            g["thread_ids"] = np.array([c[2] for c in calls], np.int32)


class CallOrder(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "p.h5")

    def tearDown(self):
        self.tmp.cleanup()

    def tree(self):
        rc, out, err = run("tree", "--format", "csv", self.path)
        self.assertEqual((rc, err), (0, ""))
        rows = []
        for line in out.splitlines()[1:]:     # times in ns, for reading
            path, depth, calls, total, self_ = line.split(",")
            rows.append(f"{path},{depth},{calls},{round(float(total) * 1e9)},"
                        f"{round(float(self_) * 1e9)}")
        return rows

    def test_merged_regions(self):
        # b [0,20] encloses a [0,10] (equal starts: the longer is the parent);
        # c [5,8] is inside a; thread 1 has its own a [0,30] > c [1,2].
        write(self.path, {"a": [(0, 10, 0), (0, 30, 1)],
                          "b": [(0, 20, 0)],
                          "c": [(1, 2, 1), (5, 8, 0)]})
        self.assertEqual(self.tree(), ["a,0,1,30,29", "a;c,1,1,1,1",
                                       "b,0,1,20,10", "b;a,1,1,10,7",
                                       "b;a;c,2,1,3,3"])
        rc, out, _ = run("events", "--format", "csv", self.path)
        rows = [l.split(",") for l in out.splitlines()[1:]]
        # name, call_index, call_id, parent_id: ids are the start order
        self.assertEqual([(r[0], r[2], r[6], r[7]) for r in rows],
                         [("a", "0", "2", "1"), ("a", "1", "0", "-1"),
                          ("b", "0", "1", "-1"), ("c", "0", "3", "0"),
                          ("c", "1", "4", "2")])

    def test_unsorted_region(self):
        # recursion entered at the same ns: the file has the inner (shorter)
        # call first, so this region's array is not in call-stack order.
        write(self.path, {"f": [(0, 10, 0), (0, 20, 0), (30, 40, 0)],
                          "g": [(2, 4, 0)]})
        self.assertEqual(self.tree(), ["f,0,2,30,20", "f;f,1,1,10,8",
                                       "f;f;g,2,1,2,2"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
