#!/usr/bin/python3
"""test_mirrors.py STRUCT_LAYOUT - the Python module's ctypes and numpy
mirrors of the C structs (scope_reader._C_STRUCTS) have the C field names,
in the C order, at the C offsets and sizes, and the C struct size; its
constants are the headers' numbers, and its names of patterns and kinds
of traffic the library's, one for each number.
STRUCT_LAYOUT is the program gen_struct_layout.py writes from
scope_reader.h, compiled by the same compiler as the library: it prints
what the compiler laid out. Also: every struct the module hands to or
reads from the library is mirrored (a renamed field such as `reserved`
for `call_sites` fails here, not as wrong numbers at run time).
"""
import ctypes
import subprocess
import sys
import unittest

import numpy as np

LAYOUT = sys.argv[1]
del sys.argv[1:]

import scope_reader  # noqa: E402


def c_layout():
    """{struct: (size, [(field, offset, size), ...])} from the C program."""
    out = subprocess.run([LAYOUT], capture_output=True, text=True, check=True).stdout
    structs = {}
    for line in out.splitlines():
        parts = line.split()
        if parts[0] == "#define":
            continue
        if "." in parts[0]:
            name, field = parts[0].split(".")
            structs[name][1].append((field, int(parts[1]), int(parts[2])))
        else:
            structs[parts[0]] = (int(parts[1]), [])
    return structs


def py_layout(mirror):
    if isinstance(mirror, np.dtype):
        return mirror.itemsize, [(n, mirror.fields[n][1], mirror.fields[n][0].itemsize)
                                 for n in mirror.names]
    return ctypes.sizeof(mirror), [(n, getattr(mirror, n).offset, getattr(mirror, n).size)
                                   for n, *_ in mirror._fields_]


def c_defines():
    """{SCOPE_NAME: value} of the headers' numbers, from the C program."""
    out = subprocess.run([LAYOUT], capture_output=True, text=True, check=True).stdout
    return {p[1]: int(p[2]) for p in (line.split() for line in out.splitlines())
            if p[0] == "#define"}


class Mirrors(unittest.TestCase):
    def test_constants(self):
        from scope_reader import comm, waits
        c = c_defines()
        mirrors = {"SCOPE_ALL_RANKS": scope_reader.ALL_RANKS,
                   "SCOPE_ALL_THREADS": scope_reader.ALL_THREADS,
                   "SCOPE_COMM_ALL_REGIONS": comm.ALL_REGIONS,
                   "SCOPE_SIZE_BUCKETS": comm.SIZE_BUCKETS, "SCOPE_NO_RANK": comm.NO_RANK,
                   "SCOPE_NO_TAG_VALUE": comm.NO_TAG,
                   "SCOPE_COMM_KINDS": len(comm.KINDS),
                   "SCOPE_COMM_P2P": comm.KINDS["p2p"],
                   "SCOPE_COMM_ONE_SIDED": comm.KINDS["one-sided"],
                   "SCOPE_COMM_COLLECTIVE": comm.KINDS["collective"],
                   "SCOPE_WAIT_PATTERNS": len(waits.PATTERNS),
                   "SCOPE_WAITS_NO_MESSAGES": waits.NO_MESSAGES}
        for name, value in mirrors.items():
            with self.subTest(constant=name):
                self.assertIn(name, c, "no such number in the reader's headers")
                self.assertEqual(value, c[name])
        self.assertEqual(waits.PATTERNS[:2], ("late_sender", "late_receiver"))
        self.assertEqual(sorted(comm.KINDS.values()), list(range(c["SCOPE_COMM_KINDS"])))

    def test_every_passed_struct_is_mirrored(self):
        self.assertEqual(sorted(scope_reader._C_STRUCTS),
                         ["scope_balance", "scope_call", "scope_communicators",
                          "scope_efficiency", "scope_efficiency_cpu", "scope_event",
                          "scope_event_columns", "scope_event_query", "scope_io_calls",
                          "scope_io_columns", "scope_io_file", "scope_io_files",
                          "scope_io_options", "scope_io_record", "scope_io_report",
                          "scope_io_spread", "scope_io_total", "scope_message",
                          "scope_message_pairs", "scope_moments", "scope_moved",
                          "scope_omp_construct", "scope_omp_region", "scope_omp_row",
                          "scope_omp_thread",
                          "scope_stats", "scope_time_window", "scope_unmatched",
                          "scope_wait_call", "scope_wait_io", "scope_wait_row",
                          "scope_waits_totals"])

    def test_layouts_match(self):
        c = c_layout()
        self.assertIn("scope_event", c)
        for name, mirror in scope_reader._C_STRUCTS.items():
            with self.subTest(struct=name):
                self.assertIn(name, c, "no such struct in the reader's headers")
                c_size, c_fields = c[name]
                p_size, p_fields = py_layout(mirror)
                self.assertEqual([f[0] for f in p_fields], [f[0] for f in c_fields],
                                 "field names and order")
                self.assertEqual(p_fields, c_fields, "offsets and sizes")
                self.assertEqual(p_size, c_size, "struct size")

    def test_numpy_records_are_little_endian_ints(self):
        # the reader fills them with native int64/int32 (x86-64 only)
        for name in ("scope_event", "scope_call"):
            dt = scope_reader._C_STRUCTS[name]
            self.assertTrue(all(dt.fields[n][0].kind == "i" for n in dt.names), name)


if __name__ == "__main__":
    unittest.main(verbosity=2)
