#!/usr/bin/python3
"""test_report.py SCOPE PROFILE_DIR WORKLOAD [--browser] - `scope report`.

Without --browser: the page is self-contained (no URL but the SVG
namespace, no src/href leaving the page), its embedded summary JSON has
exact numbers, names are escaped, a picture that cannot be drawn says why,
and usage errors are one line.

The navigation links every section the page has and nothing else (a
run with MPI data: Communication, One-sided, Wait states too), and a run
with MPI data has `scope summary`'s bytes sent and received per region
in the table's data (issue 44: the links were a fixed four and the bytes
were missing).

With --browser: Debian's chromium opens the page headless; the page's own
script writes what it drew into <pre id="scope-check"> (lanes, boxes,
bars, table rows and columns, script errors), which must match exactly, with no
"Uncaught" console message. A page with a deliberately broken script must
be caught. Exits 77 (meson: skipped) when chromium is not installed.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

SCOPE = os.path.abspath(sys.argv[1])
DIR = os.path.abspath(sys.argv[2])
WORKLOAD = os.path.abspath(sys.argv[3])
BROWSER = "--browser" in sys.argv[4:]
del sys.argv[1:]
CHROMIUM = shutil.which("chromium")


def run(*args):
    p = subprocess.run([SCOPE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def prof(name):
    return os.path.join(DIR, name)


def report(tmp, path, *opts):
    out = os.path.join(tmp, "report.html")
    rc, so, err = run("report", "-o", out, *opts, path)
    assert (rc, so, err) == (0, "", ""), (rc, so, err)
    with open(out, encoding="utf-8") as f:
        return out, f.read()


def summary_json(html):
    m = re.search(r'<script type="application/json" id="scope-data">(.*?)</script>',
                  html, re.S)
    return json.loads(m.group(1))["regions"]


NOTAG = -2147483648


def with_one_sided(tmp):
    """A copy of the reader profile comm/perhost (8 ranks on 3 host
    files, point-to-point calls and broadcasts) where every rank also made
    two MPI_Put calls of 256 bytes to the next rank, after its other calls."""
    import h5py
    import numpy as np
    dst = os.path.join(tmp, "rma")
    shutil.copytree(os.path.join(DIR, "comm", "perhost"), dst)
    ranks = os.path.join(dst, "run.ranks")
    for f in sorted(os.listdir(ranks)):
        with h5py.File(os.path.join(ranks, f), "r+") as h:
            for name, g in h.items():
                if not name.startswith("rank"):
                    continue
                r = int(g.attrs["rank"])
                t = max(int(reg["end_times"][-1]) for reg in g["regions"].values()) + 1000
                reg = g.create_group("regions/MPI_Put")
                reg.attrs["name"] = "MPI_Put"
                reg["start_times"] = np.array([t, t + 2000], np.int64)
                reg["end_times"] = np.array([t + 1000, t + 3000], np.int64)
                reg["bytes_sent"] = np.array([256, 256], np.int64)
                reg["bytes_received"] = np.zeros(2, np.int64)
                reg["dest"] = np.full(2, (r + 1) % 8, np.int32)
                reg["source"] = np.full(2, -1, np.int32)
                reg["tag"] = np.full(2, NOTAG, np.int32)
                reg["comm"] = np.zeros(2, np.int32)
    return os.path.join(dst, "run.h5")


def nav_and_sections(html):
    """([(href, text)] of the navigation, [section ids] in page order)."""
    nav = re.search(r"<nav>(.*?)</nav>", html, re.S).group(1)
    links = re.findall(r'<a href="#([^"]*)">([^<]*)</a>', nav)
    self_check = re.sub(r"<a [^>]*>[^<]*</a>", "", nav)
    assert self_check == "", nav
    return links, re.findall(r'<section id="([^"]*)">', html)


class Static(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_self_contained(self):
        for name in ("nested.h5", "many.ranks", "names.h5"):
            _, html = report(self.tmp.name, prof(name))
            self.assertEqual(set(re.findall(r"[a-z]+://[^\"' )]*", html)),
                             {"http://www.w3.org/2000/svg"})
            self.assertEqual(re.findall(r"\b(?:src|href)=\"(?!#)[^\"]*\"", html), [])
            self.assertNotIn("@import", html)
            self.assertNotIn("url(", html)

    def test_summary_data(self):
        _, html = report(self.tmp.name, prof("nested.h5"))
        rows = summary_json(html)
        self.assertEqual([(r["name"], r["calls"], r["total_ns"], r["min_ns"],
                           r["max_ns"], r["ranks"]) for r in rows],
                         [("main", 3, 240, 50, 100, 2), ("work", 4, 95, 10, 45, 2),
                          ("leaf", 3, 25, 5, 10, 1)])
        # share = total / (span 100 ns x 2 ranks); imbalance = max / mean
        self.assertEqual([r["share"] for r in rows], [1.2, 0.475, 0.125])
        self.assertEqual([round(r["imbalance"], 6) for r in rows],
                         [round(190 / 120, 6), round(85 / 47.5, 6), 1.0])
        self.assertEqual(len({r["colour"] for r in rows}), 3)
        self.assertIn("<div><dt>ranks</dt><dd>2</dd></div>", html)
        self.assertIn("<div><dt>host</dt><dd>nodeA</dd></div>", html)
        self.assertIn("One lane per rank and thread; boxes are calls at their "
                      "nesting depth. 3 lanes, 10 of 10 calls drawn.", html)
        # nested.h5 says rank 1 dropped 3 events and is incomplete
        self.assertIn('<div class="warn">3 events were not recorded', html)
        self.assertIn('<div class="warn">1 rank was recovered after a crash: '
                      'its profile ends early.</div>', html)

    def test_navigation(self):
        """The navigation links each section of the page, in its order."""
        _, html = report(self.tmp.name, prof("nested.h5"))
        links, sections = nav_and_sections(html)
        self.assertEqual(links, [("summary", "Summary"), ("timeline", "Timeline"),
                                 ("flame", "Flame graph"), ("imbalance", "Imbalance")])
        self.assertEqual([k for k, _ in links], sections)
        for path, extra in ((os.path.join(DIR, "comm", "perhost", "run.h5"),
                             [("comm", "Communication"), ("waits", "Wait states")]),
                            (with_one_sided(self.tmp.name),
                             [("comm", "Communication"), ("comm-rma", "One-sided"),
                              ("waits", "Wait states")])):
            with self.subTest(path=path):
                _, html = report(self.tmp.name, path)
                links, sections = nav_and_sections(html)
                self.assertEqual(links[4:], extra)
                self.assertEqual([k for k, _ in links], sections)

    def test_summary_bytes(self):
        """A run with MPI data: each region's bytes sent and received, as
        `scope summary --format json` gives them; none without."""
        path = with_one_sided(self.tmp.name)
        _, html = report(self.tmp.name, path)
        rows = summary_json(html)
        rc, so, err = run("summary", "--format", "json", path)
        self.assertEqual((rc, err), (0, ""))
        want = {r["region"]: (r["bytes_sent"], r["bytes_received"])
                for r in json.loads(so)["regions"]}
        self.assertEqual({r["name"]: (r["bytes_sent"], r["bytes_received"]) for r in rows},
                         want)
        self.assertEqual(want["MPI_Put"], (8 * 2 * 256, 0))
        self.assertEqual(want["MPI_Bcast"], (24 * 4096, 24 * 4096))
        self.assertIn('{"moved": true, "regions": [', html)
        _, html = report(self.tmp.name, prof("nested.h5"))
        self.assertIn('{"moved": false, "regions": [', html)
        self.assertFalse([r for r in summary_json(html) if "bytes_sent" in r])

    def test_names_escaped(self):
        _, html = report(self.tmp.name, prof("names.h5"))
        self.assertEqual([r["name"] for r in summary_json(html)],
                         ["f(int, int)", 'say "hi"'])
        self.assertIn("say &quot;hi&quot;", html)

    def test_overlap_says_why(self):
        _, html = report(self.tmp.name, prof("overlap.h5"))
        self.assertIn('<section id="flame"><h2>Flame graph</h2>\n<div class="warn">'
                      'Not drawn: rank 0, thread 0: call 0 of &quot;b&quot; [5, 15] '
                      'starts inside call 0 of &quot;a&quot; [0, 10] and ends after '
                      'it; nesting cannot be rebuilt</div></section>', html)
        self.assertIn("Calls overlap partially, so nesting is not shown.", html)

    def test_usage(self):
        self.assertEqual(run("report", prof("nested.h5")),
                         (2, "", "scope: report: no output file given (-o) "
                                 "(try 'scope report --help')\n"))
        self.assertEqual(run("report", "-o", "x.html"),
                         (2, "", "scope: report: no profile path given "
                                 "(try 'scope report --help')\n"))
        self.assertEqual(run("report", "--max-calls", "x", "-o", "x.html",
                             prof("nested.h5")),
                         (2, "", "scope: report: --max-calls needs a number >= 1, "
                                 "not 'x' (try 'scope report --help')\n"))
        out = os.path.join(self.tmp.name, "r.html")
        self.assertEqual(run("report", "-o", out, prof("truncated.h5"))[0], 1)
        rc, so, err = run("report", "-o", "/nonexistent/dir/r.html", prof("nested.h5"))
        self.assertEqual((rc, so, err), (1, "", "scope: /nonexistent/dir/r.html: "
                                         "cannot create: No such file or directory\n"))
        self.assertEqual(os.listdir(self.tmp.name), [])
        rc, so, err = run("report", "--help")
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(so.startswith("usage: scope report -o FILE.html"))


def chromium(tmp, html_path, *extra):
    """(dumped DOM, stderr) of the page in headless chromium."""
    profile = os.path.join(tmp, "chromium-profile")
    p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        "--disable-background-networking",
                        "--disable-component-update", "--disable-sync",
                        "--no-first-run", "--user-data-dir=" + profile,
                        "--enable-logging=stderr", "--v=0", *extra,
                        "file://" + html_path],
                       capture_output=True, text=True, timeout=120)
    return p.stdout, p.stderr


def page_check(dom):
    m = re.search(r'<pre id="scope-check">(.*?)</pre>', dom, re.S)
    assert m, "no scope-check element in the dumped DOM"
    lines = m.group(1).split("\n")
    counts = dict(l.split(" ", 1) for l in lines if re.match(r"^[a-z_]+ \d+$", l))
    return {k: int(v) for k, v in counts.items()}, lines


class Browser(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def load(self, path, *opts):
        html_path, _ = report(self.tmp.name, path, *opts)
        dom, err = chromium(self.tmp.name, html_path, "--dump-dom")
        self.assertNotIn("Uncaught", err)
        self.assertEqual(re.findall(r"CONSOLE.*", err), [])
        return page_check(dom)[0], dom

    def test_nested(self):
        counts, dom = self.load(prof("nested.h5"))
        # tooltips: 10 calls + 4 flame boxes + 5 bars + 3 mean lines
        self.assertEqual(counts, {"lanes": 3, "calls": 10, "legend": 3,
                                  "flame_nodes": 4, "panels": 3, "bars": 5,
                                  "table_rows": 3, "table_columns": 10, "tooltips": 22,
                                  "errors": 0})
        # the table is sorted by total, largest first
        body = re.search(r'<table id="summary-table">.*?<tbody>(.*?)</tbody>', dom, re.S)
        names = re.findall(r'<tr><td><span class="sw"[^>]*></span>([^<]*)</td>',
                           body.group(1))
        self.assertEqual(names, ["main", "work", "leaf"])

    def test_workload_and_many(self):
        counts, _ = self.load(WORKLOAD)
        self.assertEqual(counts, {"lanes": 1, "calls": 21, "legend": 5,
                                  "flame_nodes": 5, "panels": 5, "bars": 5,
                                  "table_rows": 5, "table_columns": 10, "tooltips": 36,
                                  "errors": 0})
        counts, _ = self.load(prof("many.ranks"), "--max-calls", "1")
        self.assertEqual(counts, {"lanes": 40, "calls": 40, "legend": 1,
                                  "flame_nodes": 3, "panels": 2, "bars": 80,
                                  "table_rows": 2, "table_columns": 10, "tooltips": 125,
                                  "errors": 0})

    def test_bytes_columns(self):
        """A run with MPI data: the table has scope summary's sent and
        received columns, in its units."""
        counts, dom = self.load(with_one_sided(self.tmp.name))
        self.assertEqual((counts["table_rows"], counts["table_columns"], counts["errors"]),
                         (6, 12, 0))
        head = re.search(r'<table id="summary-table"><thead>(.*?)</thead>', dom, re.S)
        self.assertEqual([re.sub(r" [\u25bc\u25b2]$", "", h) for h in
                          re.findall(r"<th[^>]*>([^<]*)</th>", head.group(1))],
                         ["region", "calls", "total", "mean", "min", "max", "std", "share",
                          "sent", "received", "max/mean", "ranks"])
        row = re.search(r"<tr><td><span[^>]*></span>MPI_Bcast</td>(.*?)</tr>", dom, re.S)
        cells = re.findall(r"<td[^>]*>([^<]*)", row.group(1))
        self.assertEqual(cells[7:9], ["96.0 KiB", "96.0 KiB"])

    def test_broken_script_is_caught(self):
        html_path, html = report(self.tmp.name, prof("nested.h5"))
        with open(html_path, "w", encoding="utf-8") as f:
            f.write(html.replace("render();\n", "render();\nnull.boom();\n", 1))
        dom, err = chromium(self.tmp.name, html_path, "--dump-dom")
        self.assertIn("Uncaught TypeError", err)
        # the page's error handler counts it and names it; the script stopped
        # before the tooltips were set up
        counts, lines = page_check(dom)
        self.assertEqual((counts["errors"], counts["tooltips"], lines[-1]),
                         (1, 0, "Uncaught TypeError: Cannot read properties of "
                                "null (reading 'boom')"))

    def test_screenshot(self):
        html_path, _ = report(self.tmp.name, WORKLOAD)
        png = os.path.join(self.tmp.name, "shot.png")
        chromium(self.tmp.name, html_path, "--screenshot=" + png,
                 "--window-size=1400,1800", "--hide-scrollbars")
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    if BROWSER:
        if not CHROMIUM:
            print("SKIP: chromium is not installed (apt-get install chromium); "
                  "the report was NOT checked in a browser")
            sys.exit(77)
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(Browser)
    else:
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(Static)
    ok = unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful()
    sys.exit(0 if ok else 1)
