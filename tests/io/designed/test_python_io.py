#!/usr/bin/python3
"""test_python_io.py SCOPE PROFILE_DIR - the Python module's I/O analysis
(scope_reader.io: io(), io_calls(), io_report(), io_files(), io_columns(),
dask_io()) on the profile make_io_profiles.py designs: io() is `scope io
--format csv` value for value, and the numbers test_io_report.c derives by
hand come out the same through Python.
"""
import io as _sio
import math
import os
import subprocess
import sys
import unittest

import numpy as np
import pandas as pd

SCOPE, PROFILE = sys.argv[1], os.path.join(sys.argv[2], "designed.h5")
del sys.argv[1:]

import scope_reader  # noqa: E402

MiB = 1 << 20


class IO(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.p = scope_reader.read_h5(PROFILE)

    @classmethod
    def tearDownClass(cls):
        cls.p.close()

    def test_io_is_the_csv(self):
        csv = subprocess.run([SCOPE, "io", "--format", "csv", PROFILE], capture_output=True,
                             text=True, check=True).stdout
        want = pd.read_csv(_sio.StringIO(csv), keep_default_na=False, na_values=[""])
        got = self.p.io()
        self.assertEqual(list(got.columns[:len(want.columns)]), list(want.columns))
        self.assertEqual(len(got), 23)
        for c in want.columns:
            a, b = got[c].tolist(), want[c].tolist()
            if got[c].dtype.kind == "f":
                for x, y in zip(a, b):
                    if isinstance(y, float) and math.isnan(y):
                        self.assertTrue(math.isnan(x), c)
                    else:
                        self.assertAlmostEqual(x, y, delta=1e-15 + 1e-9 * abs(y), msg=c)
            else:
                self.assertEqual(a, b, c)

    def test_a_record(self):
        x = self.p.io().set_index(["file", "layer", "rank"]).loc[("/scratch/shared.dat", "posix", 3)]
        self.assertEqual(x["writes"], 3)
        self.assertEqual(x["bytes_written"], 2000 + MiB)
        self.assertEqual(x["unaligned"], 3)
        self.assertAlmostEqual(x["write_time"], 600e-9, delta=1e-15)
        self.assertEqual(x["written_via_mpiio"], MiB)
        self.assertEqual(x["stride3"], 3 * MiB - 5000 - 3000)
        self.assertEqual(x["fs_type"], "lustre")
        self.assertTrue(x["shared"])
        self.assertAlmostEqual(x["first_open"], 1000e-9, delta=1e-15)

    def test_filters(self):
        self.assertEqual(set(self.p.io(layer="stdio")["layer"]), {"stdio"})
        self.assertEqual(len(self.p.io(layer=["mpiio", "hdf5"])), 6)
        self.assertEqual(sorted(set(self.p.io(ranks=[3])["file"])),
                         ["/scratch/out.3", "/scratch/shared.dat", "<STDERR>"])
        self.assertEqual(set(self.p.io(file=r"res\.h5")["file"]), {"/home/u/res.h5"})
        with self.assertRaises(ValueError):
            self.p.io(layer="nfs")
        with self.assertRaises(scope_reader.ScopeError):
            self.p.io(ranks=[9])

    def test_calls(self):
        c = self.p.io_calls()
        self.assertEqual(len(c), 4 * 17 + 2 + 8 + 8 + 1 + 1)
        r0 = c[c["rank"] == 0]
        self.assertEqual(len(r0), 27)
        self.assertEqual(r0["name"].iloc[0], "open64")
        self.assertEqual(r0["file"].iloc[0], "/scratch/shared.dat")
        self.assertEqual(r0["cls"].iloc[0], "io_open")
        self.assertTrue((np.diff(r0["start"].to_numpy()) >= 0).all())
        hw = c[(c["rank"] == 0) & (c["name"] == "pwrite64") & (c["issuer"] == "hdf5")]
        self.assertEqual(len(hw), 1)
        self.assertEqual(hw["file"].iloc[0], "/home/u/res.h5")
        self.assertEqual(hw["offset"].iloc[0], 2048)
        self.assertAlmostEqual(hw["duration"].iloc[0], 800e-9, delta=1e-15)
        d = c[(c["rank"] == 1) & (c["name"] == "H5Dwrite")]
        self.assertEqual(d["file"].iloc[0], "/home/u/res.h5:/grid/t")
        self.assertEqual(d["layer"].iloc[0], "hdf5")
        self.assertTrue(pd.isna(d["offset"].iloc[0]))
        self.assertEqual(sorted(c[c["failed"]]["rank"].tolist()), [2, 3])
        self.assertEqual(c[c["failed"] & (c["rank"] == 2)]["file"].iloc[0], "")
        self.assertEqual(set(c[c["issuer"] == "stdio"]["name"]), {"open64", "write"})
        self.assertEqual(len(self.p.io_calls(layer="mpiio", ranks=[1, 2])), 2)

    def test_report(self):
        r = self.p.io_report(heat_bins=22)
        self.assertEqual(len(r["files"]), 9)
        self.assertEqual(r["files"]["kind"].tolist().count("dataset"), 1)
        s = r["spreads"]
        self.assertEqual(len(s), 4)
        m = s[s["layer"] == "mpiio"].iloc[0]
        self.assertEqual((m["fastest_rank"], m["slowest_rank"]), (0, 3))
        self.assertAlmostEqual(m["time_variance"], 1.25e-12, delta=1e-24)
        self.assertEqual(r["ranks"]["calls"].tolist(), [19, 18, 14, 14])
        self.assertEqual(r["hosts"]["name"].tolist(), ["nodeA", "nodeB"])
        self.assertEqual(r["file_systems"]["name"].tolist(), ["lustre", "", "ext4"])
        self.assertEqual(r["file_systems"]["files"].tolist(), [5, 2, 1])
        self.assertEqual(r["heat_written"].shape, (4, 22))
        self.assertAlmostEqual(r["heat_written"][1, 14], 8000 * 1000 / 1500, places=6)
        self.assertAlmostEqual(r["heat_width"], 1e-6, delta=1e-15)
        self.assertEqual(r["files_past_bound"], 7)
        ds = r["datasets"]
        self.assertEqual(ds["file"].tolist(), ["/home/u/res.h5:/grid/t"] * 2)
        self.assertEqual(ds["bytes_written"].tolist(), [8000, 8000])

    def test_per_rank(self):
        t = self.p.io_files(1)
        self.assertEqual(t["name"].tolist(), ["out.1", "shared.dat", "res.h5", "/grid/t"])
        self.assertEqual(t["parent"].tolist(), [-1, -1, -1, 2])
        col = self.p.io_columns("pwrite64", 1)
        self.assertEqual(col["offset"].tolist(), [1000, 5000, 2048, MiB])
        self.assertTrue(self.p.has_io())

    def test_dask(self):
        d = self.p.dask_io().compute(scheduler="synchronous")
        want = self.p.io()
        key = ["file", "layer", "rank"]
        d = d.sort_values(key).reset_index(drop=True)
        want = want.sort_values(key).reset_index(drop=True)
        pd.testing.assert_frame_equal(d.drop(columns=["shared"]), want.drop(columns=["shared"]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
