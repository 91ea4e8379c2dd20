#!/usr/bin/python3
"""test_damaged_heap.py DAMAGED_DIR - a Python caller of the reader gets an
error, not libhdf5 copying past its buffers in the interpreter, from a
profile whose global heap collection is damaged (tests/reader/damaged/
vlen-global-heap.h5, found by fuzz_reader: before reader/heap_guard.c the
interpreter died of SIGSEGV inside libhdf5's H5HG_read); h5py, which
reads the file through its own libhdf5 calls, is not what this is about.
"""
import os
import sys
import unittest

DAMAGED = os.path.abspath(sys.argv[1])
del sys.argv[1:]

from scope_reader import ScopeError, read_h5  # noqa: E402

FOUND = os.path.join(DAMAGED, "vlen-global-heap.h5")


class DamagedHeap(unittest.TestCase):
    def test_refused(self):
        for _ in range(2):      # and again: the refusal leaves nothing behind
            with self.assertRaises(ScopeError) as e:
                read_h5(FOUND)
            self.assertEqual(str(e.exception),
                             f"{FOUND}: damaged HDF5 global heap collection at byte 2152 "
                             "(an object larger than its collection): its variable-length "
                             "strings are not read")

    def test_repaired_reads(self):
        import tempfile
        with open(FOUND, "rb") as f:
            data = bytearray(f.read())
        data[2216 + 8:2216 + 16] = (4).to_bytes(8, "little")   # object 3: 4 bytes
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "repaired.h5")
            with open(path, "wb") as f:
                f.write(data)
            with read_h5(path) as res:
                self.assertEqual(res.region_names, ["main", "work", "leaf"])
                self.assertEqual(res["main"].num_calls, 3)


if __name__ == "__main__":
    unittest.main(verbosity=2)
