"""prog_numpy.py - numpy.save and numpy.load of 1,000,000 int64 (8 MB) (issue 46,
"numpy.save"): a 128-byte header Python writes itself, then the data
through tofile (a dup'd descriptor under a stdio stream), and back.
check_numpy.py holds what each layer must record.

usage: prog_numpy.py OUTDIR
"""
import sys

import numpy as np

a = np.arange(1000000, dtype=np.int64)
np.save(sys.argv[1] + "/a.npy", a)
b = np.load(sys.argv[1] + "/a.npy")
if not (a == b).all():
    sys.exit(3)
