#!/usr/bin/python3
"""test_summary.py SCOPE PROFILE_DIR - runs the built `scope summary` on the
profiles of tests/reader/make_profiles.py and compares exact output: csv and
table text byte for byte, json parsed, every sort key, names that need
quoting, the tutorial's per-rank totals (0.65 s and 1.04 s, 3 calls each),
and the one-line errors and exit codes of bad input and bad usage.
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


def prof(name):
    return os.path.join(DIR, name)


class Summary(unittest.TestCase):
    def ok(self, *args):
        rc, out, err = run(*args)
        self.assertEqual((rc, err), (0, ""), args)
        return out

    def test_tutorial_per_rank_csv(self):
        self.assertEqual(
            self.ok("summary", "--per-rank", "--format", "csv", prof("two_ranks.h5")),
            "region,rank,calls,total,mean,min,max,std,share\n"
            "solve,0,3,0.65,0.216666667,0.2,0.25,0.023570226,0.492424\n"
            "solve,1,3,1.04,0.346666667,0.32,0.4,0.037712362,0.787879\n")

    def test_tutorial_csv(self):
        # std over all six calls, population (ddof=0); share = 1.69 / (1.32 x 2 ranks)
        self.assertEqual(
            self.ok("summary", "--format=csv", prof("two_ranks.h5")),
            "region,calls,total,mean,min,max,std,share\n"
            "solve,6,1.69,0.281666667,0.2,0.4,0.072207263,0.640152\n")

    def test_tutorial_table(self):
        self.assertEqual(
            self.ok("summary", prof("two_ranks.h5")),
            "region  calls   total       mean        min        max       std  share\n"
            "solve       6  1.69 s  281.67 ms  200.00 ms  400.00 ms  72.21 ms  64.0%\n")
        self.assertEqual(
            self.ok("summary", "--per-rank", prof("two_ranks.h5")),
            "region  rank  calls      total       mean        min        max       std  share\n"
            "solve    all      6     1.69 s  281.67 ms  200.00 ms  400.00 ms  72.21 ms  64.0%\n"
            "solve      0      3  650.00 ms  216.67 ms  200.00 ms  250.00 ms  23.57 ms  49.2%\n"
            "solve      1      3     1.04 s  346.67 ms  320.00 ms  400.00 ms  37.71 ms  78.8%\n")

    def test_dropped_and_recovered_are_said_first(self):
        out = self.ok("summary", prof("lossy.h5")).splitlines()
        self.assertEqual(out[:2], [
            "warning: 2000 events were not recorded on 2 ranks (memory budget or disk "
            "full); raise memory_budget in the config or SCOPE_MEMORY_BUDGET",
            "warning: 1 rank was recovered after a crash (complete = 0): its profile ends early"])
        self.assertTrue(out[2].startswith("region"))
        # machine-readable formats keep stdout clean: the warning goes to stderr
        rc, out, err = run("summary", "--format", "csv", prof("lossy.h5"))
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith("region,calls,"))
        self.assertIn("2000 events were not recorded", err)

    def test_coarse_clock_is_said_first(self):
        # ties.h5 states a 1 us clock step (make_profiles.py section 9)
        out = self.ok("summary", prof("ties.h5")).splitlines()
        self.assertEqual(out[0], "clock resolution: 1000 ns (coarsest rank); "
                         "shorter durations are not resolved")
        self.assertTrue(out[1].startswith("region"))
        rc, out, err = run("summary", "--format", "csv", prof("ties.h5"))
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith("region,calls,"))
        self.assertIn("clock resolution: 1000 ns", err)
        # files that do not state it (or a fine clock) print no such line
        self.assertNotIn("clock resolution", self.ok("summary", prof("nested.h5")))

    def test_table_units_align(self):
        # µs is two bytes but one column: the columns still line up.
        out = self.ok("summary", prof("run.h5")).splitlines()
        self.assertEqual(out, [
            "region  calls     total     mean      min      max     std  share",
            "main        2  16.50 µs  8.25 µs  8.00 µs  8.50 µs  250 ns  91.7%",
            "a/b         3   3.00 µs  1.00 µs   500 ns  1.50 µs  408 ns  16.7%",
            "100%        3    350 ns   117 ns    50 ns   200 ns   62 ns   1.9%",
            ".           1    100 ns   100 ns   100 ns   100 ns    0 ns   0.6%",
        ])

    def test_json(self):
        doc = json.loads(self.ok("summary", "--format", "json", prof("run.h5")))
        self.assertEqual(list(doc), ["regions"])
        rows = doc["regions"]
        self.assertEqual([r["region"] for r in rows], ["main", "a/b", "100%", "."])
        self.assertEqual(list(rows[0]), ["region", "calls", "total", "mean",
                                         "min", "max", "std", "share"])
        self.assertEqual(rows[0], {"region": "main", "calls": 2, "total": 16.5e-6,
                                   "mean": 8.25e-6, "min": 8e-6, "max": 8.5e-6,
                                   "std": 0.25e-6, "share": 0.916667})
        doc = json.loads(self.ok("summary", "--per-rank", "--format", "json",
                                 prof("run.h5")))
        got = [(r["region"], r["rank"], r["calls"], r["total"]) for r in doc["regions"]]
        # rank 1 never entered "." or "100%": no rows for it there.
        self.assertEqual(got, [("main", 0, 1, 8e-6), ("main", 1, 1, 8.5e-6),
                               ("a/b", 0, 2, 1.5e-6), ("a/b", 1, 1, 1.5e-6),
                               ("100%", 0, 3, 3.5e-7), (".", 0, 1, 1e-7)])

    def test_same_numbers_every_layout(self):
        want = self.ok("summary", "--format", "csv", prof("merged.h5"))
        for paths in (["run.h5"], ["run.ranks"],
                      ["run.ranks/rank0.h5", "run.ranks/rank1.h5"]):
            self.assertEqual(self.ok("summary", "--format", "csv",
                                     *[prof(p) for p in paths]), want, paths)

    def test_sort_keys(self):
        def order(key):
            out = self.ok("summary", "--format", "csv", "--sort", key, prof("run.h5"))
            return [line.split(",")[0] for line in out.splitlines()[1:]]
        self.assertEqual(order("total"), ["main", "a/b", "100%", "."])
        self.assertEqual(order("calls"), ["a/b", "100%", "main", "."])  # tie: first entry
        self.assertEqual(order("mean"), ["main", "a/b", "100%", "."])
        self.assertEqual(order("max"), ["main", "a/b", "100%", "."])
        self.assertEqual(order("name"), [".", "100%", "a/b", "main"])

    def test_quoting(self):
        self.assertEqual(
            self.ok("summary", "--format", "csv", prof("names.h5")),
            "region,calls,total,mean,min,max,std,share\n"
            '"f(int, int)",2,0.0000015,0.00000075,0.0000005,0.000001,0.00000025,0.6\n'
            '"say ""hi""",1,0.0000003,0.0000003,0.0000003,0.0000003,0,0.12\n')
        doc = json.loads(self.ok("summary", "--format", "json", prof("names.h5")))
        self.assertEqual([r["region"] for r in doc["regions"]],
                         ["f(int, int)", 'say "hi"'])

    def test_fixture_schema3(self):
        fixture = os.path.join(os.path.dirname(__file__), "..", "reader",
                               "fixtures", "schema3.h5")
        self.assertEqual(
            self.ok("summary", "--format", "csv", fixture),
            "region,calls,total,mean,min,max,std,share\n"
            "solve,3,0.000000033,0.000000011,0.000000005,0.000000015,0.000000004,0.733333\n")

    def fails(self, args, code, err):
        rc, out, got = run(*args)
        self.assertEqual((rc, out, got), (code, "", err), args)

    def test_bad_inputs(self):
        self.fails(["summary", prof("missing.h5")], 1,
                   f"scope: {prof('missing.h5')}: no such file or directory\n")
        self.fails(["summary", prof("notes.txt")], 1,
                   f"scope: {prof('notes.txt')}: not an HDF5 file\n")
        self.fails(["summary", prof("not_profile.h5")], 1,
                   f"scope: {prof('not_profile.h5')}: an HDF5 file but not a "
                   "scope profile (no /rank<N> groups)\n")
        self.fails(["summary", prof("run.h5"), prof("run.ranks")], 1,
                   f"scope: rank 0 appears twice: in {prof('run.ranks/rank0.h5')} "
                   f"(linked from {prof('run.h5')}) and in "
                   f"{prof('run.ranks/rank0.h5')}\n")
        rc, out, err = run("summary", prof("truncated.h5"))
        self.assertEqual((rc, out), (1, ""))
        self.assertTrue(err.startswith(f"scope: {prof('truncated.h5')}: file is "
                                       "truncated or damaged (HDF5: truncated file"), err)
        self.assertEqual(err.count("\n"), 1)

    def test_bad_usage(self):
        hint = " (try 'scope summary --help')\n"
        self.fails(["summary"], 2, "scope: summary: no profile path given" + hint)
        self.fails(["summary", "--format", "xml", prof("run.h5")], 2,
                   "scope: summary: unknown format 'xml' (table, csv or json)" + hint)
        self.fails(["summary", "--sort", "size", prof("run.h5")], 2,
                   "scope: summary: unknown sort key 'size' (total, calls, mean, "
                   "max or name)" + hint)
        self.fails(["summary", "--bogus", prof("run.h5")], 2,
                   "scope: summary: unknown option '--bogus'" + hint)
        self.fails(["summary", prof("run.h5"), "--format"], 2,
                   "scope: summary: option '--format' needs a value" + hint)
        self.fails([], 2, "scope: no command given (try 'scope --help')\n")
        self.fails(["bogus"], 2, "scope: unknown command 'bogus' (try 'scope --help')\n")
        self.fails(["--bogus"], 2, "scope: unknown option '--bogus' (try 'scope --help')\n")

    def test_help_and_version(self):
        self.assertEqual(self.ok("--version"), "scope 0.1.0\n")
        top = self.ok("--help")
        self.assertTrue(top.startswith("usage: scope <command>"), top)
        self.assertIn("\n  summary        time per region", top)
        sub = self.ok("summary", "--help")
        self.assertTrue(sub.startswith("usage: scope summary [--per-rank]"), sub)
        self.assertIn("region,calls,total,mean,min,max,std,share", sub)
        self.assertEqual(self.ok("help", "summary"), sub)


if __name__ == "__main__":
    unittest.main(verbosity=2)
