#!/usr/bin/python3
"""test_export.py SCOPE PROFILE_DIR WORKLOAD - `scope export`: the chrome
trace parses and has one complete ("X") event per call, named processes
and threads; speedscope profiles are balanced open/close sequences per
(rank, thread); folded stacks are exact; csv/json equal `scope events`;
errors leave no output file behind.
"""
import json
import os
import subprocess
import sys
import tempfile
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


class Export(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def export(self, fmt, path):
        out = os.path.join(self.tmp.name, "out." + fmt)
        rc, so, err = run("export", "--to", fmt, "-o", out, path)
        self.assertEqual((rc, so, err), (0, "", ""))
        with open(out) as f:
            return f.read()

    def test_chrome_nested(self):
        d = json.loads(self.export("chrome-trace", prof("nested.h5")))
        x = [e for e in d["traceEvents"] if e["ph"] == "X"]
        self.assertEqual(len(x), 10)
        self.assertEqual(x[0], {"ph": "X", "cat": "scope", "name": "main",
                                "pid": 0, "tid": 0, "ts": 0, "dur": 0.1,
                                "args": {"call_index": 0}})
        self.assertEqual(sorted({(e["pid"], e["tid"]) for e in x}),
                         [(0, 0), (0, 1), (1, 0)])
        names = {(e["pid"], e.get("tid"), e["name"]): e["args"]
                 for e in d["traceEvents"] if e["ph"] == "M"}
        self.assertEqual(names[(0, None, "process_name")], {"name": "rank 0 (node0)"})
        self.assertEqual(names[(1, None, "process_name")], {"name": "rank 1 (node1)"})
        self.assertEqual(names[(0, 1, "thread_name")], {"name": "thread 1"})
        self.assertEqual(len(names), 7)   # 2 process names, 2 sort, 3 threads

    def test_chrome_workload(self):
        d = json.loads(self.export("chrome-trace", WORKLOAD))
        x = [e for e in d["traceEvents"] if e["ph"] == "X"]
        self.assertEqual(len(x), 21)
        self.assertEqual(sorted({e["name"] for e in x}),
                         ["assemble", "checkpoint", "setup", "solve", "timestep"])

    def test_speedscope(self):
        d = json.loads(self.export("speedscope", prof("nested.h5")))
        self.assertEqual([f["name"] for f in d["shared"]["frames"]],
                         ["main", "work", "leaf"])
        self.assertEqual([p["name"] for p in d["profiles"]],
                         ["rank 0 thread 0", "rank 0 thread 1", "rank 1 thread 0"])
        t1 = d["profiles"][1]
        self.assertEqual((t1["startValue"], t1["endValue"]), (0, 90))
        self.assertEqual([(e["type"], e["frame"], e["at"]) for e in t1["events"]],
                         [("O", 0, 0), ("O", 1, 5), ("O", 2, 10), ("C", 2, 20),
                          ("C", 1, 50), ("C", 0, 90)])
        for p in d["profiles"]:   # balanced, in time order
            stack, last = [], -1
            for e in p["events"]:
                self.assertGreaterEqual(e["at"], last)
                last = e["at"]
                if e["type"] == "O":
                    stack.append(e["frame"])
                else:
                    self.assertEqual(stack.pop(), e["frame"])
            self.assertEqual(stack, [])

    def test_speedscope_ties(self):
        # ties.h5 (make_profiles.py section 9): open/close follow the stored
        # journal order, not times; a 0 ns call as its parent ends (Y in Q)
        # and a child equal to its parent (C in P) stay inside
        d = json.loads(self.export("speedscope", prof("ties.h5")))
        names = [f["name"] for f in d["shared"]["frames"]]
        ev = {p["name"]: [(e["type"], names[e["frame"]], e["at"]) for e in p["events"]]
              for p in d["profiles"]}
        self.assertEqual(ev["rank 0 thread 0"], [
            ("O", "P", 0), ("O", "C", 0), ("C", "C", 10), ("C", "P", 10),
            ("O", "Z", 10), ("C", "Z", 10), ("O", "Q", 10), ("O", "Y", 20),
            ("C", "Y", 20), ("C", "Q", 20), ("O", "X", 20), ("O", "W", 20),
            ("C", "W", 20), ("C", "X", 20)])
        self.assertEqual(ev["rank 0 thread 1"], [
            ("O", "R", 0), ("O", "S", 0), ("C", "S", 0), ("O", "S", 0), ("C", "S", 0),
            ("O", "S", 10), ("C", "S", 10), ("C", "R", 10)])
        self.assertEqual(self.export("folded", prof("ties.h5")), "P;C 10\nR 10\nQ 10\n")

    def test_folded(self):
        self.assertEqual(self.export("folded", prof("nested.h5")),
                         "main 140\nmain;work 75\nmain;work;leaf 20\nmain;leaf 5\n")
        lines = self.export("folded", WORKLOAD).splitlines()
        self.assertEqual(sorted(l.rsplit(" ", 1)[0] for l in lines),
                         ["checkpoint", "setup", "timestep", "timestep;assemble",
                          "timestep;solve"])

    def test_csv_json_equal_events(self):
        rc, ev_csv, _ = run("events", "--format", "csv", prof("nested.h5"))
        self.assertEqual(self.export("csv", prof("nested.h5")), ev_csv)
        rc, ev_json, _ = run("events", "--format", "json", prof("nested.h5"))
        self.assertEqual(self.export("json", prof("nested.h5")), ev_json)

    def test_errors(self):
        out = os.path.join(self.tmp.name, "x.json")
        rc, so, err = run("export", "--to", "svg", "-o", out, prof("nested.h5"))
        self.assertEqual((rc, err), (2, "scope: export: unknown format 'svg' "
                                        "(chrome-trace, speedscope, folded, hatchet, csv, "
                                        "json or otf2) (try 'scope export --help')\n"))
        rc, so, err = run("export", "--to", "folded", prof("nested.h5"))
        self.assertEqual((rc, err), (2, "scope: export: no output file given (-o) "
                                        "(try 'scope export --help')\n"))
        rc, so, err = run("export", "--to", "folded", "-o", out, prof("overlap.h5"))
        self.assertEqual(rc, 1)
        self.assertFalse(os.path.exists(out))
        rc, so, err = run("export", "--to", "chrome-trace", "-o", out,
                          prof("truncated.h5"))
        self.assertEqual((rc, err.count("\n")), (1, 1))
        self.assertFalse(os.path.exists(out))
        rc, so, err = run("export", "--to", "csv", "-o", "/nonexistent/dir/x",
                          prof("nested.h5"))
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith("scope: /nonexistent/dir/x: cannot create"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
