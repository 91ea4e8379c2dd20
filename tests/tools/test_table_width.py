#!/usr/bin/python3
"""test_table_width.py SCOPE - tables fit the terminal. On profiles written
here with a 285-character LAMMPS-style C++ name, a UTF-8 one and a long
call-site object path: in a 100-column pseudo-terminal (TIOCGWINSZ; no
COLUMNS) and in a pipe with COLUMNS=100, every line of summary (also
--per-rank), tree, diff, events and callsites is at most 100 characters,
is valid UTF-8 (no character cut in two), and a shortened name keeps its
start ("LAMMPS_NS::"), the function's own name with its "(" ("ev_tally(")
and says "…" where it was cut; the tree keeps its indentation. --wide
prints the full names on the terminal too; without a terminal and without
COLUMNS (scripts) nothing is shortened; csv and json always hold the full
names.
"""
import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import tempfile
import termios
import unittest

import h5py
import numpy as np

SCOPE = os.path.abspath(sys.argv[1])
del sys.argv[1:]

LONG = "LAMMPS_NS::Pair::ev_tally(" + ", ".join(["int"] * 4 + ["double"] * 30) + ")"
UTF = "Løsning::glätten_überall_größer(" + ", ".join(["ÆØÅ_æøå_µ"] * 12) + ")"
# shown by its base name: "liblammps_...so+0x1234 (object missing) <- ..."
OBJECT = "/nonexistent/lib" + "lammps_mpi_with_a_very_long_name_" * 4 + ".so"
WIDTH = 100


def link(name):
    return name.replace("%", "%25").replace("/", "%2F")


def write(path):
    """rank 0: main [0, 5000] around LONG (two calls, with call sites),
    UTF and MPI_Allreduce; times in ns."""
    regions = {"main": [(0, 5000)], LONG: [(100, 1100), (1200, 2200)],
               UTF: [(2300, 4000)], "MPI_Allreduce": [(4100, 4200)]}
    with h5py.File(path, "w") as f:
        f.attrs["scope_format"] = 1
        for name, calls in regions.items():
            g = f.create_group("rank0/regions/" + link(name))
            g.attrs["name"] = name
            g["start_times"] = np.array([c[0] for c in calls], np.int64)
            g["end_times"] = np.array([c[1] for c in calls], np.int64)
            if name == LONG:
                g["callsite_ids"] = np.array([0, 0], np.int32)
        vstr = h5py.string_dtype()
        dt = np.dtype([("id", "<i4"), ("frame", "<i4"), ("depth", "<i4"),
                       ("offset", "<u8"), ("build_id", vstr), ("object", vstr)])
        rows = np.array([(0, 0, 2, 0x1234, "", OBJECT), (0, 1, 2, 0x5678, "", OBJECT)], dt)
        f.create_dataset("rank0/callsites", data=rows)


def on_terminal(args, cols=WIDTH):
    """Runs scope with stdout on a pty of `cols` columns, no COLUMNS."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR          # keep "\n" as written
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    p = subprocess.Popen([SCOPE, *args], stdout=slave, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:                 # EIO: the other side closed
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    err = p.stderr.read()
    p.wait(timeout=60)
    return p.returncode, out, err.decode()


def in_pipe(args, columns=None):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    p = subprocess.run([SCOPE, *args], capture_output=True, env=env, timeout=60)
    return p.returncode, p.stdout, p.stderr.decode()


class TableWidth(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.tmp.name, "long.h5")
        write(cls.path)
        p = cls.path
        cls.tables = {"summary": ["summary", p], "per-rank": ["summary", "--per-rank", p],
                      "tree": ["tree", p], "diff": ["diff", p, p],
                      "events": ["events", "--no-call-sites", p],
                      "callsites": ["callsites", p]}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def lines(self, rc, out, err, what):
        if what == "diff":      # one run against itself: says no test is possible
            err = err.replace("scope: diff: one run each: no test is possible, this is the "
                              "plain change (give several runs of each: A... --vs B..., "
                              "or test the calls with --calls)\n", "")
        self.assertEqual((rc, err), (0, ""), what)
        text = out.decode("utf-8")      # strict: a character cut in two fails here
        self.assertTrue(text.endswith("\n"), what)
        return text.splitlines()

    def check_fitted(self, lines, what):
        for line in lines:
            self.assertLessEqual(len(line), WIDTH, f"{what}: {line!r}")
        text = "\n".join(lines)
        self.assertNotIn(LONG, text, what)
        long_rows = [l for l in lines if "ev_tally(" in l]
        self.assertTrue(long_rows, f"{what}: the own name is gone:\n{text}")
        for row in long_rows:
            self.assertIn("…", row, what)
            name = row.split("  ")[-1].strip() if what.startswith("tree") else row
            self.assertIn("L", name)
        if not what.startswith("callsites"):    # only regions with call sites there
            self.assertTrue([l for l in lines if "glätten" in l or "Løsning" in l], what)

    def test_terminal_100(self):
        for what, args in self.tables.items():
            with self.subTest(table=what):
                lines = self.lines(*on_terminal(args), what)
                self.check_fitted(lines, what + " (pty)")

    def test_columns_100_in_a_pipe(self):
        for what, args in self.tables.items():
            with self.subTest(table=what):
                lines = self.lines(*in_pipe(args, columns=WIDTH), what)
                self.check_fitted(lines, what + " (COLUMNS)")

    def test_shapes(self):
        # summary: the qualification's start and the method stay
        lines = self.lines(*on_terminal(self.tables["summary"]), "summary")
        row = next(l for l in lines if "ev_tally" in l)
        self.assertTrue(row.startswith("LAMMPS_NS::Pair::ev_tally(int"), row)
        # the tree keeps the nesting's indentation before a shortened name
        lines = self.lines(*on_terminal(self.tables["tree"]), "tree")
        head = lines[0]
        col = head.index("region")
        row = next(l for l in lines if "ev_tally" in l)
        self.assertEqual(row[col:col + 2], "  ", row)
        self.assertTrue(row[col + 2:].startswith("LAMMPS_NS::"), row)
        # columns stay aligned: every row as long as its header or shorter
        for what in ("summary", "diff"):
            lines = self.lines(*on_terminal(self.tables[what]), what)
            self.assertEqual(len({len(l) for l in lines}), 1, "\n".join(lines))

    def test_wide_and_scripts_get_full_names(self):
        for what, args in self.tables.items():
            if what == "callsites":
                continue        # its region column holds LONG too, checked below
            with self.subTest(table=what):
                wide = [args[0], "--wide", *args[1:]]
                for rc, out, err in (on_terminal(wide), in_pipe(wide, columns=WIDTH),
                                     in_pipe(args)):
                    text = "\n".join(self.lines(rc, out, err, what))
                    self.assertIn(LONG, text, what)
                    self.assertIn(UTF, text, what)
        for rc, out, err in (on_terminal(["callsites", "--wide", self.path]),
                             in_pipe(["callsites", self.path])):
            text = "\n".join(self.lines(rc, out, err, "callsites"))
            self.assertIn(LONG, text)
            self.assertIn(f"{os.path.basename(OBJECT)}+0x1234 (object missing) <- "
                          f"{os.path.basename(OBJECT)}+0x5678 (object missing)", text)

    def test_machine_formats_are_never_cut(self):
        p = self.path
        for args in (["summary", "--format", "csv", p], ["events", "--format", "csv", p],
                     ["tree", "--format", "csv", p], ["diff", "--format", "csv", p, p],
                     ["callsites", "--format", "csv", p]):
            with self.subTest(args=args[:3]):
                for rc, out, err in (on_terminal(args), in_pipe(args, columns=WIDTH)):
                    text = "\n".join(self.lines(rc, out, err, args[0]))
                    self.assertIn(LONG, text)
                    self.assertNotIn("…", text)
        for args in (["summary", "--format", "json", p], ["events", "--format", "json", p]):
            rc, out, err = on_terminal(args)
            self.assertEqual((rc, err), (0, ""))
            doc = json.loads(out.decode())
            names = {r.get("region", r.get("name")) for r in next(iter(doc.values()))}
            self.assertIn(LONG, names)
            self.assertIn(UTF, names)

    def test_narrow_terminal_cuts_only_names(self):
        # 60 columns: the numbers stay whole, names go down to their floor
        rc, out, err = on_terminal(["summary", self.path], cols=60)
        lines = self.lines(rc, out, err, "summary 60")
        row = next(l for l in lines if "ev_tally" in l)
        self.assertTrue(row.rstrip().endswith("40.0%"), row)
        self.assertIn("2.00 µs", row)


if __name__ == "__main__":
    unittest.main(verbosity=2)
