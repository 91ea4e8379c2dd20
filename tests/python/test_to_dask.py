#!/usr/bin/python3
"""test_to_dask.py PROFILE_DIR WORKLOAD - to_dask() on a local `distributed`
cluster of 2 worker processes: on the simulated multi-host profiles
(host files, rank files, both: make_profiles.py sections 10 to 12) and a
recorded workload, every aggregate a user would compute (calls, total,
min, max per region, per (region, rank), mean and population std) equals
the C reader's statistics (scope_profile_stats) and to_events_dataframe()'s;
the partitions are the host files (each opening only its file: the other
hosts' files are removed before it is computed) or the rank blocks;
dask_summary() equals scope_profile_stats() bit for bit, per region and
per (region, rank); dask_comm_matrix() equals comm_matrix() cell for cell;
a profile with MPI data gives the frame's per-call data columns;
filters and a window give the single-machine frame's rows (the window
picked from the recorded times, so it selects the same calls however fast
the workload ran: checked on a copy whose calls start 30 ms later).
Skipped when Debian's python3-dask / python3-distributed are missing.
"""
import math
import os
import shutil
import sys
import tempfile
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


def all_multi_host():
    return hosts() + [os.path.join(DIR, "many", "perhost", "run.h5"),
                      os.path.join(DIR, "comm", "perhost", "run.h5"),
                      os.path.join(DIR, "comm", "perrank", "run.h5")]


STATS = ("calls", "total_ns", "min_ns", "max_ns", "mean_ns", "std_ns")


def solve_window(res):
    """The selection of the recorded workload the filter tests use: rank
    0's solve calls 1 to 3, by a window picked from the recorded times
    (midway between solve 0's end and solve 1's start, to midway between
    solve 3's end and solve 4's start; calls in between are milliseconds
    apart), so it keeps those 3 calls whether the run started after 2 ms
    or after 30 (issue 44: a fixed window was empty on a loaded machine)."""
    s = res.to_events_dataframe(include="^solve$", ranks=[0], columns=("start", "end"))
    st, en = s["start"].tolist(), s["end"].tolist()
    assert len(st) == 6, st
    return dict(include="solve", ranks=[0],
                window=((en[0] + st[1]) / 2, (en[3] + st[4]) / 2))


def late_workloads(tmp):
    """The recorded workload, and a copy of it whose calls all start 30 ms
    later (as on a machine busy when it was recorded): the filter tests
    must give the same rows on both."""
    import h5py
    dst = os.path.join(tmp, "late")
    shutil.copytree(os.path.dirname(WORKLOAD), dst)
    late = os.path.join(dst, os.path.basename(WORKLOAD))
    with read_h5(late) as res:
        files = sorted({res.rank_file(k) for k in res.ranks})
    for path in files:
        with h5py.File(path, "r+") as f:
            for g in f.values():
                for reg in g.get("regions", {}).values():
                    for d in ("start_times", "end_times"):
                        reg[d][...] = reg[d][...] + 30_000_000
    return [WORKLOAD, late]

# partitions to_dask() makes by default: (files, ranks) per partition
AUTO = {
    "hosts/perhost": [(["host-nodeA.h5"], (0, 2, 4)), (["host-nodeB.h5"], (1, 3, 5))],
    "hosts/mixed": [(["host-nodeA.h5"], (0, 2, 4)),
                    (["rank1.h5", "rank3.h5", "rank5.h5"], (1, 3, 5))],
    "hosts/perrank": [(["rank%d.h5" % k for k in range(6)], tuple(range(6)))],
    "comm/perhost": [(["host-nodeA.h5"], (0, 3, 6)), (["host-nodeB.h5"], (1, 4, 7)),
                     (["host-nodeC.h5"], (2, 5))],
}


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
                                ranks_per_partition=per, partition_by="ranks")
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

    def test_partitions(self):
        from scope_reader.dask_frames import _plan
        for name, want in AUTO.items():
            path = os.path.join(DIR, name, "run.h5")
            folder = os.path.join(os.path.dirname(os.path.abspath(path)), "run.ranks")
            with read_h5(path) as res, self.subTest(name=name):
                got = _plan(res, res.ranks, 64, "auto")
                self.assertEqual(got, [([os.path.join(folder, f) for f in files], ks)
                                       for files, ks in want])
                self.assertEqual(res.to_dask().npartitions, len(want))
                self.assertEqual(os.path.basename(res.rank_file(1)), want[1][0][0]
                                 if len(want) > 1 else "rank1.h5")
                with self.assertRaises(KeyError):
                    res.rank_file(99)
        # 300 ranks: 4 host files of 75 ranks (296 of them), and ranks
        # 296..299 in rank files, in blocks
        with read_h5(os.path.join(DIR, "many", "perhost", "run.h5")) as res:
            got = _plan(res, res.ranks, 3, "auto")
            self.assertEqual([ks for _, ks in got],
                             [tuple(range(75 * h, 75 * h + 75)) for h in range(3)]
                             + [tuple(range(225, 296)), (296, 297, 298), (299,)])
            self.assertEqual([len(p) for p, _ in got], [1, 1, 1, 1, 3, 1])
            self.assertEqual(res.to_dask(ranks_per_partition=3).npartitions, 6)
            # a selection keeps a host's partition to the selected ranks
            self.assertEqual([ks for _, ks in _plan(res, [1, 80, 299], 64, "auto")],
                             [(1,), (80,), (299,)])
            self.assertEqual(len(_plan(res, res.ranks, 64, "ranks")), 5)
            with self.assertRaises(ValueError):
                res.to_dask(partition_by="hosts")

    def test_a_partition_opens_only_its_host_file(self):
        src = os.path.join(DIR, "comm", "perhost")
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(src, os.path.join(tmp, "run"))
            path = os.path.join(tmp, "run", "run.h5")
            with read_h5(path) as res:
                whole = res.to_events_dataframe(every_name=True)
                frame = res.to_dask()
                summary = res.dask_summary(by="rank", compute=False)
                want = res.dask_summary(by="rank")
                # nodeB and nodeC gone: nodeA's partition still computes,
                # with the whole profile's times and categories
                for h in ("nodeB", "nodeC"):
                    os.unlink(os.path.join(tmp, "run", "run.ranks", "host-%s.h5" % h))
                part = frame.get_partition(0).compute()
                # (host-nodeA.h5 alone starts at 250 ns, the run at 0)
                with read_h5(os.path.join(tmp, "run", "run.ranks", "host-nodeA.h5")) as a:
                    self.assertEqual((a.time_origin_ns, res.time_origin_ns), (250, 0))
                ref = whole[whole["rank"].isin([0, 3, 6])].sort_values(
                    ["rank", "name", "start"], kind="stable").reset_index(drop=True)
                got = part.sort_values(["rank", "name", "start"],
                                       kind="stable").reset_index(drop=True)
                self.assertEqual(len(got), 3 * 400 + 37 * 9 + 3 * (24 + 24 + 5 + 3))
                for c in whole.columns:
                    self.assertEqual(got[c].tolist(), ref[c].tolist(), c)
                self.assertEqual(list(part["name"].cat.categories), sorted(res.region_names))
                # and the others fail naming their file
                with self.assertRaisesRegex(Exception, "host-nodeB.h5"):
                    frame.get_partition(1).compute()
                with self.assertRaisesRegex(Exception, "host-node[BC].h5"):
                    summary.compute()
                self.assertEqual(len(want), 8 * 5)

    def summary_matches(self, path, **kw):
        with read_h5(path) as res:
            names = [n for n in res.region_names if res[n].num_calls]
            per_region = res.dask_summary(**kw)
            self.assertEqual(list(per_region.index), sorted(names))
            for row in per_region.itertuples():
                st = res[row.Index]._stats()
                # bit for bit: == on the floats
                self.assertEqual(tuple(row)[1:], (st.calls, st.total_ns, st.min_ns, st.max_ns,
                                                  st.mean_ns, st.std_ns), row.Index)
            self.assertEqual(list(per_region.columns), list(STATS))
            self.assertEqual(str(per_region["calls"].dtype), "int64")
            per_rank = res.dask_summary(by="rank", **kw)
            cells = [(n, k) for n in sorted(names) for k in res.ranks
                     if res[n]._stats(k).calls]
            self.assertEqual(list(per_rank.index), cells)
            for row in per_rank.itertuples():
                st = res[row.Index[0]]._stats(row.Index[1])
                self.assertEqual(tuple(row)[1:], (st.calls, st.total_ns, st.min_ns, st.max_ns,
                                                  st.mean_ns, st.std_ns), row.Index)
            return per_region

    def test_summary(self):
        for path in all_multi_host() + [WORKLOAD]:
            for kw in ({}, {"partition_by": "ranks", "ranks_per_partition": 2}):
                with self.subTest(path=os.path.relpath(path, DIR), **kw):
                    self.summary_matches(path, **kw)
        # the many calls of comm/: sums that round differently when added
        # pairwise (as pandas and numpy do) than one after the other
        s = self.summary_matches(os.path.join(DIR, "comm", "perhost", "run.h5"))
        self.assertEqual(s.loc["compute", "calls"], sum(400 + 37 * r for r in range(8)))
        self.assertEqual(s.loc["MPI_Bcast", "calls"], 24)

    def test_summary_of_a_selection(self):
        with tempfile.TemporaryDirectory() as tmp:
            for path in late_workloads(tmp):
                with self.subTest(path=path):
                    self.summary_of_a_selection(path)

    def summary_of_a_selection(self, path):
        with read_h5(path) as res:
            kw = solve_window(res)
            local = res.to_events_dataframe(columns=("rank", "call_index", "duration_ns"),
                                            **kw)
            self.assertEqual(local["call_index"].tolist(), [1, 2, 3])
            g = local.groupby("name", observed=True)["duration_ns"]
            got = res.dask_summary(**kw)
            want = g.agg(["count", "sum", "min", "max"])
            self.assertEqual(list(got.index), list(want.index))
            for row in got.itertuples():
                self.assertEqual((row.calls, row.total_ns, row.min_ns, row.max_ns),
                                 tuple(want.loc[row.Index]))
                ns = local[local["name"] == row.Index]["duration_ns"].to_numpy()
                self.assertEqual(row.mean_ns, float(int(ns.sum())) / float(len(ns)))
                d = ns.astype(float)
                self.assertAlmostEqual(row.std_ns, d.std(), delta=1e-9 * d.mean())
            with self.assertRaises(ValueError):
                res.dask_summary(by="thread")

    def test_comm_matrix(self):
        for name in ("comm/perhost", "comm/perrank"):
            with read_h5(os.path.join(DIR, name, "run.h5")) as res, self.subTest(name=name):
                msgs, nbytes = res.comm_matrix()
                for kw in ({}, {"partition_by": "ranks", "ranks_per_partition": 3}):
                    got = res.dask_comm_matrix(**kw)
                    self.assertEqual([str(got[c].dtype) for c in got.columns],
                                     ["int32", "int32", "int64", "int64"])
                    m = np.zeros_like(msgs)
                    b = np.zeros_like(nbytes)
                    m[got["sender"], got["receiver"]] = got["messages"]
                    b[got["sender"], got["receiver"]] = got["bytes"]
                    self.assertTrue((m == msgs).all() and (b == nbytes).all())
                    self.assertTrue((got["messages"] > 0).all())
                    self.assertEqual(len(got), np.count_nonzero(msgs))
                # 8 ranks x (21 MPI_Send + 5 MPI_Isend); MPI_PROC_NULL and
                # MPI_Bcast are not messages
                self.assertEqual(int(msgs.sum()), 8 * 26)
                isend = res.dask_comm_matrix(region="MPI_Isend")
                self.assertEqual(isend["receiver"].tolist(), [(k + 4) % 8 for k in range(8)])
                self.assertEqual(isend["messages"].tolist(), [5] * 8)
                self.assertEqual(isend["bytes"].tolist(),
                                 [sum(64 * (i + k) for i in range(1, 5)) for k in range(8)])
                part = res.dask_comm_matrix(ranks=[2, 5])
                self.assertEqual(sorted(set(part["sender"])), [2, 5])
                self.assertEqual(part.to_dict("list"),
                                 {c: v.tolist() for c, v in
                                  res.message_pairs(ranks=[2, 5]).items()})
                with self.assertRaises(KeyError):
                    res.dask_comm_matrix(region="MPI_Nothing")

    def test_mpi_columns(self):
        """A profile that records what its MPI calls moved: the partitions
        carry to_events_dataframe()'s six data columns, <NA> alike."""
        path = os.path.join(DIR, "comm", "perhost", "run.h5")
        with read_h5(path) as res:
            want = res.to_events_dataframe(every_name=True)
            for kw in ({}, {"partition_by": "ranks", "ranks_per_partition": 3}):
                frame = res.to_dask(**kw)
                self.assertEqual(list(frame.columns), list(want.columns))
                got = frame.compute().sort_values(["name", "rank", "call_index"],
                                                  kind="stable").reset_index(drop=True)
                w = want.sort_values(["name", "rank", "call_index"],
                                     kind="stable").reset_index(drop=True)
                for c in ("bytes_sent", "bytes_received", "dest", "source", "tag", "comm"):
                    self.assertEqual(str(got[c].dtype), str(w[c].dtype), c)
                    self.assertTrue(got[c].equals(w[c]), c)

    def test_filters(self):
        with tempfile.TemporaryDirectory() as tmp:
            for path in late_workloads(tmp):
                with self.subTest(path=path):
                    self.filters(path)

    def filters(self, path):
        with read_h5(path) as res:
            kw = solve_window(res)
            got = res.to_dask(**kw).compute().reset_index(drop=True)
            want = res.to_events_dataframe(every_name=True, **kw)
            self.assertEqual(want["call_index"].tolist(), [1, 2, 3])
            for c in want.columns:
                self.assertEqual(got[c].tolist(), want[c].tolist(), c)
            self.assertEqual(res.to_dask(include="nothing").compute().shape[0], 0)
            with self.assertRaises(ValueError):
                res.to_dask(ranks=[7])
            with self.assertRaises(ValueError):
                res.to_dask(ranks_per_partition=0)


def fold(m):
    """The combine written out in Python, one step per (region, rank) in
    rank order with the update of reader/profile_data.c: the test's own
    reference for the reader's scope_moments_combine."""
    rows = {}
    for code, n, total, mn, mx, mean, m2 in zip(*[m[c].tolist() for c in (
            "name", "calls", "total_ns", "min_ns", "max_ns", "mean_ns", "m2")]):
        acc = rows.get(code)
        if acc is None:
            rows[code] = [n, total, mn, mx, mean, m2]
            continue
        na, nb = float(acc[0]), float(n)
        nn = na + nb
        delta = mean - acc[4]
        acc[5] += m2 + delta * delta * na * nb / nn
        acc[0] += n
        acc[1] += total
        acc[4] = float(acc[1]) / float(acc[0])
        acc[2] = min(acc[2], mn)
        acc[3] = max(acc[3], mx)
    return {k: (v[0], v[1], v[2], v[3], v[4], math.sqrt(v[5] / float(v[0])))
            for k, v in rows.items()}


class Combine(unittest.TestCase):
    """The last task's combine (the reader's scope_moments_combine, one C
    call) equals the per-pair fold bit for bit on 100,000 ranks (regions
    fewer than ranks) and on many regions of few ranks."""

    def moments(self, regions, ranks, seed):
        import pandas as pd
        rng = np.random.default_rng(seed)
        code = np.repeat(np.arange(regions, dtype=np.int32), ranks)
        rank = np.tile(np.arange(ranks, dtype=np.int32), regions)
        keep = rng.random(len(code)) < 0.9          # not every region on every rank
        code, rank = code[keep], rank[keep]
        calls = rng.integers(1, 1000, len(code)).astype(np.int64)
        mins = rng.integers(1, 10**6, len(code)).astype(np.int64)
        maxs = mins + rng.integers(0, 10**9, len(code))
        total = calls * mins + rng.integers(0, 10**9, len(code)) * (calls - 1)
        mean = total.astype(np.float64) / calls.astype(np.float64)
        m2 = rng.random(len(code)) * 1e15 * (calls > 1)
        return pd.DataFrame({"name": code, "rank": rank, "calls": calls,
                             "total_ns": total, "min_ns": mins, "max_ns": maxs,
                             "mean_ns": mean, "m2": m2})

    def check(self, regions, ranks):
        from scope_reader.dask_frames import _combine
        m = self.moments(regions, ranks, regions * 7 + ranks)
        want = fold(m)
        rows, st = _combine(m)
        code = m["name"].to_numpy()[rows]
        self.assertEqual(code.tolist(), sorted(want))
        got = {k: (a, b, c, d, e, f) for k, a, b, c, d, e, f in zip(
            code.tolist(), st["calls"].tolist(), st["total_ns"].tolist(),
            st["min_ns"].tolist(), st["max_ns"].tolist(), st["mean_ns"].tolist(),
            st["std_ns"].tolist())}
        for k in want:   # floats compared exactly: the same bits
            self.assertEqual(got[k], want[k], k)

    def test_many_ranks(self):
        self.check(3, 100_000)

    def test_many_regions(self):
        self.check(2_000, 5)


if __name__ == "__main__":
    DIR = os.path.abspath(sys.argv[1])
    WORKLOAD = os.path.abspath(sys.argv[2])
    del sys.argv[1:]
    unittest.main(verbosity=2)
