#!/usr/bin/python3
"""test_plot.py SCOPE PROFILE_DIR WORKLOAD - `scope plot --kind
timeline|flame|imbalance`: the SVG parses as XML, and its lanes, call
boxes, flame boxes, bars and legend are counted and placed exactly (the
nested.h5 numbers are in make_profiles.py); the per-lane cap keeps the
longest calls and says so; partial overlaps draw the timeline flat but fail
the flame graph with one line and no file; names are escaped; rsvg-convert
(when installed) renders every picture.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

SCOPE = os.path.abspath(sys.argv[1])
DIR = os.path.abspath(sys.argv[2])
WORKLOAD = os.path.abspath(sys.argv[3])
del sys.argv[1:]
SVG = "{http://www.w3.org/2000/svg}"


def run(*args):
    p = subprocess.run([SCOPE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def prof(name):
    return os.path.join(DIR, name)


def plot(kind, path, *opts):
    rc, out, err = run("plot", "--kind", kind, "-o", "-", *opts, path)
    assert (rc, err) == (0, ""), (rc, err)
    root = ET.fromstring(out.encode())
    assert root.tag == SVG + "svg" and root.get("class") == "scope-" + kind
    return root


def find(root, tag, cls):
    return [e for e in root.iter(SVG + tag) if e.get("class") == cls]


def title(e):
    return e.find(SVG + "title").text


class Timeline(unittest.TestCase):
    def test_nested(self):
        root = plot("timeline", prof("nested.h5"))
        lanes = find(root, "g", "lane")
        self.assertEqual([(l.get("data-rank"), l.get("data-thread"),
                           l.get("data-calls"), l.get("data-drawn"))
                          for l in lanes],
                         [("0", "0", "5", "5"), ("0", "1", "3", "3"),
                          ("1", "0", "2", "2")])
        calls = find(root, "rect", "call")
        self.assertEqual(len(calls), 10)
        # width 1200 - 150 (labels) - 24 = 1026 px for [0, 100] ns: 10.26 px/ns
        leaf = [c for c in find(lanes[0], "rect", "call")
                if title(c).startswith("leaf\n")]
        self.assertEqual([(c.get("x"), c.get("y"), c.get("width")) for c in leaf],
                         [("355.20", "66.0", "102.60"), ("560.40", "50.0", "51.30")])
        self.assertEqual(title(leaf[0]), "leaf\nrank 0, thread 0, depth 2\n"
                                         "start 20 ns, duration 10 ns")
        # lane labels name the thread only on ranks with several threads
        labels = [t.text for t in root.iter(SVG + "text")
                  if t.get("font-weight") == "bold"]
        self.assertEqual(labels, ["rank 0 · thread 0", "rank 0 · thread 1", "rank 1"])
        legend = find(root, "g", "legend-item")
        self.assertEqual([g.find(SVG + "text").text for g in legend],
                         ["main", "work", "leaf"])
        # one colour per region, the same in the boxes and the legend
        fills = {}
        for c in calls:
            fills.setdefault(title(c).split("\n")[0], set()).add(c.get("fill"))
        self.assertEqual({k: len(v) for k, v in fills.items()},
                         {"main": 1, "work": 1, "leaf": 1})
        self.assertEqual(len({next(iter(v)) for v in fills.values()}), 3)
        self.assertEqual([g.find(SVG + "rect").get("fill") for g in legend],
                         [next(iter(fills[n])) for n in ("main", "work", "leaf")])

    def test_cap_keeps_longest(self):
        root = plot("timeline", prof("nested.h5"), "--max-calls", "2")
        lanes = find(root, "g", "lane")
        self.assertEqual([(l.get("data-calls"), l.get("data-drawn")) for l in lanes],
                         [("5", "2"), ("3", "2"), ("2", "2")])
        self.assertEqual([[title(c).split("\n")[0] for c in find(l, "rect", "call")]
                          for l in lanes],
                         [["main", "work"], ["main", "work"], ["main", "work"]])
        # the kept "work" of lane 0 is the longer one, [10, 40]
        w = find(lanes[0], "rect", "call")[1]
        self.assertTrue(title(w).endswith("start 10 ns, duration 30 ns"))
        notes = [t.text for t in root.iter(SVG + "text") if t.get("class") == "muted"]
        self.assertEqual(notes, ["2 of 5 calls (longest)", "2 of 3 calls (longest)"])

    def test_workload_and_many_ranks(self):
        root = plot("timeline", WORKLOAD)
        self.assertEqual(len(find(root, "g", "lane")), 1)
        self.assertEqual(len(find(root, "rect", "call")), 21)
        self.assertEqual(len(find(root, "g", "legend-item")), 5)
        root = plot("timeline", prof("many.ranks"))
        self.assertEqual([l.get("data-rank") for l in find(root, "g", "lane")],
                         [str(k) for k in range(40)])
        self.assertEqual(len(find(root, "rect", "call")), 80)

    def test_overlap_drawn_flat(self):
        root = plot("timeline", prof("overlap.h5"))
        calls = find(root, "rect", "call")
        self.assertEqual([(title(c).split("\n")[1], c.get("y")) for c in calls],
                         [("rank 0, thread 0, depth 0", "34.0")] * 2)


class Flame(unittest.TestCase):
    def test_nested(self):
        root = plot("flame", prof("nested.h5"))
        nodes = find(root, "rect", "node")
        # all ranks and threads: main 240 ns > work 95 > leaf 10; main > leaf 15
        got = [(title(n).split("\n")[0], n.get("data-depth"), n.get("x"),
                n.get("width")) for n in nodes]
        px = 1176 / 240
        self.assertEqual(got, [
            ("main", "0", "12.00", "1176.00"),
            ("main;work", "1", "12.00", f"{95 * px:.2f}"),
            ("main;work;leaf", "2", "12.00", f"{20 * px:.2f}"),
            ("main;leaf", "1", f"{12 + 95 * px:.2f}", f"{5 * px:.2f}")])
        self.assertEqual(title(nodes[1]), "main;work\n4 calls, total 95 ns "
                                          "(39.6%), self 75 ns")
        # callers below callees: depth 0 at the bottom
        ys = [float(n.get("y")) for n in nodes]
        self.assertTrue(ys[0] > ys[1] > ys[2])

    def test_workload(self):
        nodes = find(plot("flame", WORKLOAD), "rect", "node")
        self.assertEqual(sorted(title(n).split("\n")[0] for n in nodes),
                         ["checkpoint", "setup", "timestep", "timestep;assemble",
                          "timestep;solve"])

    def test_overlap_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "f.svg")
            rc, so, err = run("plot", "--kind", "flame", "-o", out, prof("overlap.h5"))
            self.assertEqual((rc, so), (1, ""))
            self.assertEqual(err, 'scope: rank 0, thread 0: call 0 of "b" [5, 15] '
                             'starts inside call 0 of "a" [0, 10] and ends after '
                             'it; nesting cannot be rebuilt\n')
            self.assertEqual(os.listdir(tmp), [])


class Imbalance(unittest.TestCase):
    def test_nested(self):
        root = plot("imbalance", prof("nested.h5"))
        panels = find(root, "g", "panel")
        self.assertEqual([p.get("data-region") for p in panels], ["0", "1", "2"])
        texts = [[t.text for t in p.iter(SVG + "text")] for p in panels]
        self.assertEqual(texts[0][:3], ["main", "max/mean 1.58× · slowest rank 0",
                                        "mean 120 ns · max 190 ns"])
        bars = [[(b.get("data-rank"), b.get("height")) for b in find(p, "rect", "bar")]
                for p in panels]
        # heights: total / the region's largest total x 46 px
        self.assertEqual(bars, [[("0", "46.00"), ("1", f"{50 / 190 * 46:.2f}")],
                                [("0", "46.00"), ("1", f"{10 / 85 * 46:.2f}")],
                                [("0", "46.00")]])
        self.assertEqual(title(find(panels[0], "rect", "bar")[1]),
                         "main\nrank 1: 50 ns (0.42× the mean)")

    def test_max_regions(self):
        root = plot("imbalance", prof("many.ranks"), "--max-regions", "1")
        panels = find(root, "g", "panel")
        self.assertEqual(len(panels), 1)
        self.assertEqual(len(find(root, "rect", "bar")), 40)
        self.assertEqual(next(panels[0].iter(SVG + "text")).text, "step")
        head = next(root.iter(SVG + "text")).text
        self.assertTrue(head.endswith("The 1 regions with the largest total of 2."))


class Files(unittest.TestCase):
    def test_escaped_names_and_rendering(self):
        rsvg = shutil.which("rsvg-convert")
        with tempfile.TemporaryDirectory() as tmp:
            for kind in ("timeline", "flame", "imbalance"):
                for name in ("names.h5", "nested.h5", "many.ranks"):
                    svg = os.path.join(tmp, kind + ".svg")
                    self.assertEqual(run("plot", "--kind", kind, "-o", svg,
                                         prof(name)), (0, "", ""))
                    root = ET.parse(svg).getroot()
                    if name == "names.h5":
                        titles = [title(e) for e in root.iter()
                                  if e.find(SVG + "title") is not None]
                        self.assertTrue(any('say "hi"\n' in t for t in titles), titles)
                    if rsvg:
                        p = subprocess.run([rsvg, svg, "-o", svg + ".png"],
                                           capture_output=True, text=True)
                        self.assertEqual((p.returncode, p.stderr), (0, ""))
                        with open(svg + ".png", "rb") as f:
                            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_usage(self):
        self.assertEqual(run("plot", "-o", "x.svg", prof("nested.h5")),
                         (2, "", "scope: plot: no kind given (--kind) "
                                 "(try 'scope plot --help')\n"))
        self.assertEqual(run("plot", "--kind", "pie", "-o", "x.svg", prof("nested.h5")),
                         (2, "", "scope: plot: unknown kind 'pie' (timeline, "
                                 "flame, imbalance or comm) (try 'scope plot --help')\n"))
        self.assertEqual(run("plot", "--kind", "flame", prof("nested.h5")),
                         (2, "", "scope: plot: no output file given (-o) "
                                 "(try 'scope plot --help')\n"))
        self.assertEqual(run("plot", "--kind", "flame", "--width", "10", "-o", "-",
                             prof("nested.h5")),
                         (2, "", "scope: plot: --width needs a number from 400 "
                                 "to 20000, not '10' (try 'scope plot --help')\n"))
        self.assertEqual(run("plot", "--kind", "flame", "--max-calls", "0", "-o", "-",
                             prof("nested.h5")),
                         (2, "", "scope: plot: --max-calls needs a number >= 1, "
                                 "not '0' (try 'scope plot --help')\n"))
        self.assertEqual(run("plot", "--kind", "flame", "-o", "-", prof("notes.txt")),
                         (1, "", f"scope: {prof('notes.txt')}: not an HDF5 file\n"))
        rc, out, err = run("plot", "--help")
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(out.startswith("usage: scope plot --kind KIND -o FILE.svg"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
