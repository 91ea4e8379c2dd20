#!/usr/bin/python3
"""test_diff.py SCOPE PROFILE_DIR - `scope diff A B` of one run against
one: exact csv (regions matched by name, missing ones counted as 0, rows
by |change in total|), parsed json, the warning that no test is possible
(on stderr with the table, in json's "warnings"),
and usage / bad-input errors. Sets of runs: tests/compare.
"""
import json
import os
import subprocess
import sys
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
