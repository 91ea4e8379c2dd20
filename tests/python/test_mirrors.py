#!/usr/bin/python3
"""test_mirrors.py STRUCT_LAYOUT - the Python module's ctypes and numpy
mirrors of the C structs (scope_reader._C_STRUCTS) have the C field names,
in the C order, at the C offsets and sizes, and the C struct size.
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


class Mirrors(unittest.TestCase):
    def test_every_passed_struct_is_mirrored(self):
        self.assertEqual(sorted(scope_reader._C_STRUCTS),
                         ["scope_balance", "scope_call", "scope_event",
                          "scope_event_columns", "scope_event_query", "scope_message",
                          "scope_stats", "scope_time_window", "scope_unmatched",
                          "scope_wait_call", "scope_wait_row", "scope_waits_totals"])

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
