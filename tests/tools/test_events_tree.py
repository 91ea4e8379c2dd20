#!/usr/bin/python3
"""test_events_tree.py SCOPE PROFILE_DIR WORKLOAD - `scope events` and
`scope tree` on nested.h5 (make_profiles.py, section 7), the tutorial's
two-rank file and the recorded tutorial workload: exact csv/table text,
parsed json, every filter and time option, and the one-line errors and
exit codes of bad usage and bad input.
"""
import json
import os
import subprocess
import sys
import unittest

SCOPE = os.path.abspath(sys.argv[1])
DIR = os.path.abspath(sys.argv[2])
WORKLOAD = os.path.abspath(sys.argv[3])
del sys.argv[1:]


def run(*args):
    p = subprocess.run([SCOPE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def prof(name):
    return os.path.join(DIR, name)


NESTED_CSV = (
    "name,rank,call_index,start,end,duration,call_id,parent_id,thread\n"
    "main,0,0,0,0.0000001,0.0000001,0,-1,0\n"
    "main,0,1,0,0.00000009,0.00000009,1,-1,1\n"
    "main,1,0,0,0.00000005,0.00000005,0,-1,0\n"
    "work,0,0,0.000000005,0.00000005,0.000000045,2,1,1\n"
    "work,0,1,0.00000001,0.00000004,0.00000003,3,0,0\n"
    "work,0,2,0.00000006,0.00000007,0.00000001,7,0,0\n"
    "work,1,0,0.00000001,0.00000002,0.00000001,1,0,0\n"
    "leaf,0,0,0.00000001,0.00000002,0.00000001,4,2,1\n"
    "leaf,0,1,0.00000002,0.00000003,0.00000001,5,3,0\n"
    "leaf,0,2,0.00000004,0.000000045,0.000000005,6,0,0\n")


class Events(unittest.TestCase):
    def ok(self, *args):
        rc, out, err = run(*args)
        self.assertEqual((rc, err), (0, ""), args)
        return out

    def fails(self, code, msg, *args):
        rc, out, err = run(*args)
        self.assertEqual((rc, out, err), (code, "", msg + "\n"), args)

    def test_csv_all(self):
        self.assertEqual(self.ok("events", "--format", "csv", prof("nested.h5")),
                         NESTED_CSV)

    def test_table(self):
        out = self.ok("events", "--include", "^main$", prof("nested.h5"))
        self.assertEqual(out.splitlines(), [
            "name  rank  call_index        start          end     duration"
            "  call_id  parent_id  thread",
            "main     0           0            0    0.0000001    0.0000001"
            "        0         -1       0",
            "main     0           1            0   0.00000009   0.00000009"
            "        1         -1       1",
            "main     1           0            0   0.00000005   0.00000005"
            "        0         -1       0"])
        # the time columns are as wide as the run's longest time can print
        out = self.ok("events", "--origin", "-123000000000", "--include", "^main$",
                      prof("nested.h5"))
        self.assertEqual(out.splitlines()[:2], [
            "name  rank  call_index          start            end       duration"
            "  call_id  parent_id  thread",
            "main     0           0     123.000001    123.0000011      0.0000001"
            "        0         -1       0"])

    def test_filters(self):
        out = self.ok("events", "--format=csv", "--include", "^w", "--include",
                      "f$", "--exclude", "ea", "--ranks", "1", prof("nested.h5"))
        self.assertEqual(out.splitlines()[1:],
                         ["work,1,0,0.00000001,0.00000002,0.00000001,1,0,0"])
        out = self.ok("events", "--format=csv", "--ranks", "0-1", "--include",
                      "leaf", "--no-call-ids", prof("nested.h5"))
        self.assertEqual(out.splitlines(), [
            "name,rank,call_index,start,end,duration,thread",
            "leaf,0,0,0.00000001,0.00000002,0.00000001,1",
            "leaf,0,1,0.00000002,0.00000003,0.00000001,0",
            "leaf,0,2,0.00000004,0.000000045,0.000000005,0"])

    def test_time_modes(self):
        out = self.ok("events", "--format=csv", "--absolute", "--include", "leaf",
                      prof("nested.h5"))
        self.assertEqual(out.splitlines()[1].split(",")[3:5],
                         ["0.00000101", "0.00000102"])
        out = self.ok("events", "--format=csv", "--origin", "1020", "--include",
                      "leaf", prof("nested.h5"))
        self.assertEqual([l.split(",")[3] for l in out.splitlines()[1:]],
                         ["-0.00000001", "0", "0.00000002"])

    def test_json_tutorial(self):
        # The tutorial's two-rank events table.
        ev = json.loads(self.ok("events", "--format", "json",
                                prof("two_ranks.h5")))["events"]
        self.assertEqual([(e["name"], e["rank"], e["call_index"], e["start"],
                           e["end"], e["duration"]) for e in ev],
                         [("solve", 0, 0, 0, 0.2, 0.2),
                          ("solve", 0, 1, 0.5, 0.75, 0.25),
                          ("solve", 0, 2, 1, 1.2, 0.2),
                          ("solve", 1, 0, 0, 0.32, 0.32),
                          ("solve", 1, 1, 0.5, 0.9, 0.4),
                          ("solve", 1, 2, 1, 1.32, 0.32)])

    def test_workload(self):
        ev = json.loads(self.ok("events", "--format", "json", WORKLOAD))["events"]
        self.assertEqual(len(ev), 21)
        self.assertEqual([e["name"] for e in ev[:2]], ["setup", "timestep"])
        solve = [e for e in ev if e["name"] == "solve"]
        self.assertEqual([e["call_index"] for e in solve], list(range(6)))
        self.assertEqual((solve[5]["call_id"], solve[5]["parent_id"]), (19, 17))
        self.assertEqual([e["call_id"] for e in ev if e["name"] == "timestep"],
                         [1, 4, 7, 11, 14, 17])

    def test_errors(self):
        self.fails(2, "scope: events: no profile path given (try 'scope events --help')",
                   "events")
        self.fails(2, "scope: events: bad rank list '1-' (e.g. 0,2-3) "
                   "(try 'scope events --help')", "events", "--ranks", "1-", "x")
        self.fails(2, "scope: events: --absolute and --origin exclude each other "
                   "(try 'scope events --help')", "events", "--origin", "5",
                   "--absolute", "x")
        self.fails(2, "scope: events: unknown format 'xml' (table, csv or json) "
                   "(try 'scope events --help')", "events", "--format", "xml", "x")
        self.fails(1, "scope: no rank 7 in this profile", "events", "--ranks",
                   "7", prof("nested.h5"))
        self.fails(1, "scope: rank 0, thread 0: call 0 of \"b\" [5, 15] starts "
                   "inside call 0 of \"a\" [0, 10] and ends after it; nesting "
                   "cannot be rebuilt", "events", prof("overlap.h5"))
        rc, out, err = run("events", "--exclude", "(", prof("nested.h5"))
        self.assertEqual((rc, out), (1, ""))
        self.assertTrue(err.startswith('scope: bad regular expression "(": '))
        self.assertEqual(err.count("\n"), 1)
        for bad in ("truncated.h5", "notes.txt", "empty.h5", "not_profile.h5"):
            rc, out, err = run("events", prof(bad))
            self.assertEqual((rc, out, err.count("\n")), (1, "", 1), bad)
            self.assertTrue(err.startswith("scope: " + prof(bad)), err)
        self.assertEqual(self.ok("events", "--no-call-ids", "--format=csv",
                                 prof("overlap.h5")).count("\n"), 3)

    def test_help(self):
        out = self.ok("events", "--help")
        self.assertTrue(out.startswith("usage: scope events"))
        self.assertEqual(self.ok("help", "events"), out)


class Tree(unittest.TestCase):
    def ok(self, *args):
        rc, out, err = run(*args)
        self.assertEqual((rc, err), (0, ""), args)
        return out

    def test_nested_csv(self):
        self.assertEqual(self.ok("tree", "--format", "csv", prof("nested.h5")),
                         "path,depth,calls,total,self\n"
                         "main,0,3,0.00000024,0.00000014\n"
                         "main;work,1,4,0.000000095,0.000000075\n"
                         "main;work;leaf,2,2,0.00000002,0.00000002\n"
                         "main;leaf,1,1,0.000000005,0.000000005\n")

    def test_rank_thread(self):
        self.assertEqual(
            self.ok("tree", "--rank", "0", "--thread", "1", prof("nested.h5")),
            "total   self  calls  region\n"
            "90 ns  45 ns      1  main\n"
            "45 ns  35 ns      1    work\n"
            "10 ns  10 ns      1      leaf\n")
        nodes = json.loads(self.ok("tree", "--rank", "1", "--format", "json",
                                   prof("nested.h5")))["nodes"]
        self.assertEqual(nodes, [
            {"path": "main", "name": "main", "depth": 0, "calls": 1,
             "total": 5e-08, "self": 4e-08},
            {"path": "main;work", "name": "work", "depth": 1, "calls": 1,
             "total": 1e-08, "self": 1e-08}])

    def test_workload_structure(self):
        rows = [l.split(",") for l in
                self.ok("tree", "--format", "csv", WORKLOAD).splitlines()[1:]]
        self.assertEqual(sorted((r[0], r[2]) for r in rows),
                         [("checkpoint", "2"), ("setup", "1"), ("timestep", "6"),
                          ("timestep;assemble", "6"), ("timestep;solve", "6")])
        ts = next(r for r in rows if r[0] == "timestep")
        # a container: self time is a small part of its total
        self.assertLess(float(ts[4]), float(ts[3]) / 2)

    def test_errors(self):
        rc, out, err = run("tree", "--rank", "9", prof("nested.h5"))
        self.assertEqual((rc, out, err), (1, "", "scope: no rank 9 in this profile\n"))
        rc, out, err = run("tree", "--thread", "x", prof("nested.h5"))
        self.assertEqual((rc, err), (2, "scope: tree: --thread needs a number >= 0, "
                                        "not 'x' (try 'scope tree --help')\n"))
        rc, out, err = run("tree", prof("overlap.h5"))
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith("scope: rank 0, thread 0: call 0 of \"b\""))
        rc, out, err = run("tree", prof("truncated.h5"))
        self.assertEqual((rc, out, err.count("\n")), (1, "", 1))


if __name__ == "__main__":
    unittest.main(verbosity=2)
