#!/usr/bin/python3
"""test_diff.py SCOPE PROFILE_DIR - `scope diff A B` of one run against
one: exact csv (regions matched by name, missing ones counted as 0, rows
by |change in total|), parsed json, the warning that no test is possible
(on stderr with the table, in json's "warnings"),
and usage / bad-input errors. Runs of different jobs (two programs, or
one on 2 and on 4 ranks) are compared as asked, with a note that says so
(stderr with the table and csv, json's "warnings"; issue 44: a plain
change without a word). Sets of runs: tests/compare.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCOPE = os.path.abspath(sys.argv[1])
DIR = os.path.abspath(sys.argv[2])
del sys.argv[1:]


def run(*args):
    p = subprocess.run([SCOPE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


ONE_EACH = ("scope: diff: one run each: no test is possible, this is the plain change "
            "(give several runs of each: A... --vs B..., or test the calls with --calls)\n")


def prof(name):
    return os.path.join(DIR, name)


def job(tmp, name, exe, ranks):
    """A copy of two_ranks.h5 as a run of `exe` (its /metadata executable)
    on `ranks` ranks (ranks 2 and up copies of rank 0)."""
    import h5py
    path = os.path.join(tmp, name + ".h5")
    shutil.copy(prof("two_ranks.h5"), path)
    with h5py.File(path, "r+") as f:
        m = f.require_group("metadata")
        m.attrs["executable"] = exe
        m.attrs["mpi_size"] = ranks
        for r in range(2, ranks):
            f.copy(f["rank0"], f"rank{r}")
    return path


class DifferentJobs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.a = job(t, "a", "/home/u/bin/app_a", 2)
        self.a2 = job(t, "a2", "/home/u/bin/app_a", 2)
        self.b = job(t, "b", "/home/u/bin/app_b", 4)
        self.b2 = job(t, "b2", "/home/u/bin/app_b", 4)
        self.a4 = job(t, "a4", "/elsewhere/app_a", 4)

    def tearDown(self):
        self.tmp.cleanup()

    PROGRAMS = ("A and B are different jobs: A ran app_a on 2 ranks, B ran app_b on 4 "
                "ranks; the rows compare two programs, not two runs of one")
    SIZES = ("A and B are different jobs: the same program, app_a on 2 and 4 ranks; a "
             "total adds over the ranks, so it changes with the job's size as well as "
             "with the code")

    def test_two_programs(self):
        rc, out, err = run("diff", self.a, self.b)
        self.assertEqual((rc, err), (0, ONE_EACH + f"scope: diff: {self.PROGRAMS}\n"))
        self.assertTrue(out.startswith("region"))
        rc, out, err = run("diff", "--format", "csv", self.a, self.b)
        self.assertEqual((rc, err), (0, f"scope: diff: {self.PROGRAMS}\n"))
        # B: two_ranks.h5's ranks (0.65 s + 1.04 s) and rank 0 twice more
        self.assertEqual(out.splitlines()[1], "solve,6,12,1.69,2.99,1.3,0.281666667,"
                                              "0.249166667,-0.0325")
        rc, out, err = run("diff", "--format", "json", self.a, self.b)
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(json.loads(out)["warnings"],
                         [ONE_EACH[len("scope: diff: "):-1], self.PROGRAMS])

    def test_one_program_two_sizes(self):
        rc, out, err = run("diff", "--format", "csv", self.a, self.a4)
        self.assertEqual((rc, err), (0, f"scope: diff: {self.SIZES}\n"))

    def test_sets(self):
        rc, out, err = run("diff", "--format", "json", self.a, self.a2, "--vs", self.b,
                           self.b2)
        self.assertEqual(rc, 0, err)
        self.assertIn(self.PROGRAMS, json.loads(out)["warnings"])
        self.assertIn(f"scope: diff: {self.PROGRAMS}\n", err)

    def test_one_job_says_nothing(self):
        rc, out, err = run("diff", self.a, self.a2)
        self.assertEqual((rc, err), (0, ONE_EACH))
        rc, out, err = run("diff", "--format", "json", self.a, self.a2, "--vs", self.a4,
                           job(self.tmp.name, "a4b", "/elsewhere/app_a", 4))
        self.assertEqual(rc, 0, err)
        self.assertIn(self.SIZES, json.loads(out)["warnings"])
        self.assertNotIn(self.PROGRAMS, json.loads(out)["warnings"])


class Diff(unittest.TestCase):
    def test_csv(self):
        rc, out, err = run("diff", "--format", "csv", prof("two_ranks.h5"),
                           prof("schema3_two.h5"))
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out,
                         "region,calls_a,calls_b,total_a,total_b,total_change,"
                         "mean_a,mean_b,mean_change\n"
                         "solve,6,4,1.69,0.000000022,-1.689999978,0.281666667,"
                         "0.000000005,-0.281666661\n"
                         "io,0,1,0,0.000000004,0.000000004,0,0.000000004,0.000000004\n")

    def test_json_same_run(self):
        rc, out, err = run("diff", "--format", "json", prof("run.h5"), prof("merged.h5"))
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(json.loads(out)["warnings"], [ONE_EACH[len("scope: diff: "):-1]])
        rows = json.loads(out)["regions"]
        self.assertEqual(sorted(r["region"] for r in rows), [".", "100%", "a/b", "main"])
        self.assertEqual({r["total_change"] for r in rows}, {0})

    def test_table_says_no_test(self):
        rc, out, err = run("diff", prof("run.h5"), prof("merged.h5"))
        self.assertEqual((rc, err), (0, ONE_EACH))
        self.assertTrue(out.startswith("region"))

    def test_errors(self):
        self.assertEqual(run("diff", prof("run.h5")),
                         (2, "", "scope: diff: 1 run without --vs: give A B (two runs, "
                                 "or two folders of runs), or sets of runs A... --vs B... "
                                 "(try 'scope diff --help')\n"))
        rc, out, err = run("diff", prof("run.h5"), prof("truncated.h5"))
        self.assertEqual((rc, out, err.count("\n")), (1, "", 1))
        self.assertTrue(err.startswith("scope: " + prof("truncated.h5")))
        rc, out, err = run("diff", "--help")
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(out.startswith("usage: scope diff"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
