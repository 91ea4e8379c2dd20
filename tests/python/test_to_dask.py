#!/usr/bin/python3
"""test_to_dask.py PROFILE_DIR WORKLOAD - to_dask() on a local `distributed`
cluster of 2 worker processes: on the simulated multi-host profiles
(host files, rank files, both) and a recorded workload, every aggregate a
user would compute (calls, total, min, max per region, per (region,
rank), mean and population std) equals the C reader's statistics
(scope_profile_stats) and to_events_dataframe()'s; the partitions are the
rank blocks; filters and a window give the single-machine frame's rows.
Skipped when Debian's python3-dask / python3-distributed are missing.
"""
import os
import sys
import unittest

import numpy as np

# the workers are spawned processes that import this file as __mp_main__:
# the arguments are read only when it runs as the test
DIR = WORKLOAD = None

from scope_reader import read_h5  # noqa: E402

try:
    import dask.dataframe  # noqa: F401
    from distributed import Client, LocalCluster
except ImportError:  # pragma: no cover - the package is optional
    Client = None



def hosts():
    return [os.path.join(DIR, "hosts", k, "run.h5") for k in ("perhost", "perrank", "mixed")]


@unittest.skipIf(Client is None, "python3-dask / python3-distributed not installed")
class OnACluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
        cls.client = Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()

    def aggregates_match(self, path, per):
        with read_h5(path) as res:
            frame = res.to_dask(columns=("rank", "duration_ns", "duration"),
                                ranks_per_partition=per)
            self.assertEqual(frame.npartitions, -(-res.num_ranks // per))
            g = frame.groupby("name", observed=True)["duration_ns"]
            got = g.agg(["count", "sum", "min", "max"]).compute()
            # the workers ran it: the profile was read in their processes
            self.assertGreater(len(got), 0)
            for name, row in got.iterrows():
                st = res[name]._stats()
                self.assertEqual((row["count"], row["sum"], row["min"], row["max"]),
                                 (st.calls, st.total_ns, st.min_ns, st.max_ns), name)
            self.assertEqual(sorted(got.index), sorted(
                n for n in res.region_names if res[n].num_calls))
            per_rank = frame.groupby(["name", "rank"], observed=True)["duration_ns"] \
                .sum().compute()
            for (name, rank), total in per_rank.items():
                self.assertEqual(total, res[name]._stats(int(rank)).total_ns)
            # mean and population std agree with the C reader's to 1e-12
            d = frame.assign(d2=frame["duration_ns"].astype("float64") ** 2)
            m = d.groupby("name", observed=True)[["duration_ns", "d2"]].mean().compute()
            for name, row in m.iterrows():
                st = res[name]._stats()
                self.assertAlmostEqual(row["duration_ns"] / st.mean_ns, 1.0, delta=1e-12)
                std = np.sqrt(max(row["d2"] - row["duration_ns"] ** 2, 0.0))
                self.assertAlmostEqual(std, st.std_ns, delta=1e-6 * max(st.mean_ns, 1))
            # the whole frame, row for row, equals the single-machine one
            whole = frame.compute().reset_index(drop=True)
            local = res.to_events_dataframe(columns=("rank", "duration_ns", "duration"),
                                            every_name=True)
            key = ["rank", "name", "duration_ns"]
            a = whole.sort_values(key, kind="stable").reset_index(drop=True)
            b = local.sort_values(key, kind="stable").reset_index(drop=True)
            for c in local.columns:
                self.assertEqual(a[c].tolist(), b[c].tolist(), c)

    def test_the_cluster_computes(self):
        import dask
        self.assertEqual(dask.base.get_scheduler(), self.client.get)
        with read_h5(WORKLOAD) as res:
            frame = res.to_dask(ranks_per_partition=1)
            pids = self.client.run(os.getpid)
            self.assertEqual(len(pids), 2)
            self.assertNotIn(os.getpid(), pids.values())
            self.assertEqual(len(self.client.compute(frame).result()), 21)

    def test_multi_host_profiles(self):
        for path in hosts():
            for per in (1, 2, 64):
                with self.subTest(path=os.path.relpath(path, DIR), per=per):
                    self.aggregates_match(path, per)

    def test_workload(self):
        self.aggregates_match(WORKLOAD, 1)

    def test_filters(self):
        with read_h5(WORKLOAD) as res:
            kw = dict(include="solve", window=(0.02, 0.04), ranks=[0])
            got = res.to_dask(**kw).compute().reset_index(drop=True)
            want = res.to_events_dataframe(every_name=True, **kw)
            self.assertGreater(len(want), 0)
            for c in want.columns:
                self.assertEqual(got[c].tolist(), want[c].tolist(), c)
            self.assertEqual(res.to_dask(include="nothing").compute().shape[0], 0)
            with self.assertRaises(ValueError):
                res.to_dask(ranks=[7])
            with self.assertRaises(ValueError):
                res.to_dask(ranks_per_partition=0)


if __name__ == "__main__":
    DIR = os.path.abspath(sys.argv[1])
    WORKLOAD = os.path.abspath(sys.argv[2])
    del sys.argv[1:]
    unittest.main(verbosity=2)
