#!/usr/bin/python3
"""test_merge.py SCOPE PROFILE_DIR WORKLOAD - `scope merge PATH... -o FILE`:
the merged file has the docs/format.md root attributes, no external links, and
the same groups, attributes and arrays as its sources (read with h5py,
independently of the reader); it opens in the reader with the same
summary and tree; columnar scope-profiler files become region groups;
duplicate ranks, non-profile targets and bad usage fail with one line and
leave nothing behind.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import h5py
import numpy as np

SCOPE = os.path.abspath(sys.argv[1])
DIR = os.path.abspath(sys.argv[2])
WORKLOAD = os.path.abspath(sys.argv[3])
del sys.argv[1:]


def run(*args):
    p = subprocess.run([SCOPE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def prof(name):
    return os.path.join(DIR, name)


def external_links(path):
    """Every external link anywhere in the file."""
    found = []
    with h5py.File(path, "r") as f:
        def walk(g, prefix):
            for name in g:
                link = g.get(name, getlink=True)
                if isinstance(link, h5py.ExternalLink):
                    found.append(prefix + name)
                elif isinstance(g[name], h5py.Group):
                    walk(g[name], prefix + name + "/")
        walk(f, "/")
    return found


def tree(obj):
    """A group as nested dicts: attrs, arrays and subgroups, comparable
    with ==. External links are followed (h5py does that)."""
    def val(v):
        if isinstance(v, bytes):
            return v.decode()
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, np.generic):
            return v.item()
        return v
    out = {"@" + k: val(v) for k, v in obj.attrs.items()}
    if isinstance(obj, h5py.Dataset):
        out["data"] = val(obj[()])
        return out
    for name in obj:
        out[name] = tree(obj[name])
    return out


class Merge(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "one.h5")

    def tearDown(self):
        self.tmp.cleanup()

    def merge(self, *paths):
        self.assertEqual(run("merge", "-o", self.out, *paths), (0, "", ""))
        self.assertEqual(os.listdir(self.tmp.name), ["one.h5"])  # no temp left
        self.assertEqual(external_links(self.out), [])
        with h5py.File(self.out, "r") as f:
            self.assertEqual((f.attrs["scope_format"],
                              f.attrs["scope_profiler_schema"]), (1, 1))
            self.assertIn("metadata", f)

    def same_answers(self, *paths):
        """summary (csv, per rank) and tree print the same for both."""
        for cmd in (["summary", "--per-rank", "--format", "csv"],
                    ["tree", "--format", "csv"]):
            a = run(*cmd, *paths)
            b = run(*cmd, self.out)
            self.assertEqual(a[0], 0)
            self.assertEqual(a, b)

    def test_index(self):
        self.merge(prof("run.h5"))
        self.assertEqual(external_links(prof("run.h5")), ["/rank0", "/rank1"])
        with h5py.File(prof("run.h5"), "r") as s, h5py.File(self.out, "r") as m:
            self.assertEqual(sorted(m), ["metadata", "rank0", "rank1"])
            self.assertEqual(tree(m), tree(s))
            self.assertEqual(m["rank0/regions/a%2Fb/start_times"][()].tolist(),
                             [3000, 5000])
            self.assertEqual(m["rank0/regions/100%25"].attrs["name"], b"100%")
            self.assertEqual(m["metadata"].attrs["hostname"], "testhost")
            # compression survives the copy
            self.assertEqual(m["rank1/regions/main/start_times"].compression, "gzip")
        self.same_answers(prof("run.h5"))

    def test_folder_and_files(self):
        self.merge(prof("run.ranks"))
        with h5py.File(prof("merged.h5"), "r") as s, h5py.File(self.out, "r") as m:
            self.assertEqual(tree(m["rank0"]), tree(s["rank0"]))
            self.assertEqual(tree(m["rank1"]), tree(s["rank1"]))
            self.assertEqual(m["metadata"].attrs["start_time_ns"], 1000)
        self.same_answers(prof("run.ranks"))
        os.remove(self.out)
        self.merge(prof("run.ranks/rank1.h5"), prof("run.ranks/rank0.h5"))
        with h5py.File(self.out, "r") as m:
            self.assertEqual(sorted(m), ["metadata", "rank0", "rank1"])
            # the first path's /metadata (rank 1's file starts at 1010)
            self.assertEqual(m["metadata"].attrs["start_time_ns"], 1010)

    def test_threads_survive(self):
        self.merge(prof("nested.h5"))
        with h5py.File(prof("nested.h5"), "r") as s, h5py.File(self.out, "r") as m:
            # the source lacks scope_profiler_schema; the merged file has it
            self.assertEqual(tree(m), {**tree(s), "@scope_profiler_schema": 1})
            self.assertEqual(m["rank0/threads"]["tid"].tolist(), [4242, 4243])
            self.assertEqual(m["rank0/regions/work/thread_ids"][()].tolist(), [1, 0, 0])
        self.same_answers(prof("nested.h5"))
        rc, out, err = run("events", "--format", "csv", self.out)
        self.assertEqual(out, run("events", "--format", "csv", prof("nested.h5"))[1])

    def test_columnar_schema3(self):
        self.merge(prof("schema3_two.h5"))
        with h5py.File(self.out, "r") as m:
            self.assertEqual(sorted(m), ["metadata", "rank0", "rank1"])
            self.assertEqual(sorted(m["rank1/regions"]), ["io", "solve"])
            got = {(r, name): (g["start_times"][()].tolist(),
                               g["end_times"][()].tolist(), g.attrs["name"])
                   for r in (0, 1)
                   for name, g in m[f"rank{r}/regions"].items()}
        self.assertEqual(got, {
            (0, "solve"): ([10, 20], [15, 33], "solve"),
            (1, "solve"): ([100, 110], [101, 113], "solve"),
            (1, "io"): ([105], [109], "io")})
        self.same_answers(prof("schema3_two.h5"))

    def test_recorded_workload(self):
        self.merge(WORKLOAD)
        with h5py.File(WORKLOAD, "r") as s, h5py.File(self.out, "r") as m:
            self.assertEqual(tree(m), tree(s))
        self.same_answers(WORKLOAD)

    def test_replaces_a_profile(self):
        shutil.copy(prof("two_ranks.h5"), self.out)
        self.merge(prof("run.h5"))
        with h5py.File(self.out, "r") as m:
            self.assertNotIn("solve", m["rank0/regions"])

    def test_duplicate_ranks(self):
        rc, out, err = run("merge", "-o", self.out, prof("run.h5"), prof("merged.h5"))
        self.assertEqual((rc, out), (1, ""))
        self.assertEqual(err, "scope: rank 0 appears twice: in "
                         f"{prof('run.ranks/rank0.h5')} (linked from "
                         f"{prof('run.h5')}) and in {prof('merged.h5')}\n")
        self.assertEqual(os.listdir(self.tmp.name), [])

    def test_refuses_non_profiles(self):
        for name in ("notes.txt", "not_profile.h5"):
            target = os.path.join(self.tmp.name, name)
            shutil.copy(prof(name), target)
            with open(target, "rb") as f:
                before = f.read()
            rc, out, err = run("merge", "-o", target, prof("run.h5"))
            self.assertEqual((rc, out, err), (1, "", f"scope: {target} exists "
                             "and is not a scope profile; not replacing it\n"))
            with open(target, "rb") as f:
                self.assertEqual(f.read(), before)
        rc, out, err = run("merge", "-o", self.tmp.name, prof("run.h5"))
        self.assertEqual((rc, err), (1, f"scope: {self.tmp.name} exists and "
                         "is not a file; not replacing it\n"))
        self.assertEqual(sorted(os.listdir(self.tmp.name)),
                         ["not_profile.h5", "notes.txt"])

    def test_unwritable_folder(self):
        target = os.path.join(self.tmp.name, "no", "such", "dir.h5")
        rc, out, err = run("merge", "-o", target, prof("run.h5"))
        self.assertEqual((rc, out, err.count("\n")), (1, "", 1))
        # the final name and the system's reason, no temporary file left
        self.assertEqual(err, f"scope: {target}: cannot create the merged file: "
                         f"{os.strerror(2)}\n")

    def test_usage(self):
        self.assertEqual(run("merge", prof("run.h5")),
                         (2, "", "scope: merge: no output file given (-o) "
                                 "(try 'scope merge --help')\n"))
        self.assertEqual(run("merge", "-o", self.out),
                         (2, "", "scope: merge: no profile path given "
                                 "(try 'scope merge --help')\n"))
        self.assertEqual(run("merge", "--bogus"),
                         (2, "", "scope: merge: unknown option '--bogus' "
                                 "(try 'scope merge --help')\n"))
        rc, out, err = run("merge", "-o", self.out, prof("missing.h5"))
        self.assertEqual((rc, out, err), (1, "", "scope: " + prof("missing.h5")
                                          + ": no such file or directory\n"))
        rc, out, err = run("merge", "--help")
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(out.startswith("usage: scope merge -o FILE PATH...\n"))
        self.assertEqual(os.listdir(self.tmp.name), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
