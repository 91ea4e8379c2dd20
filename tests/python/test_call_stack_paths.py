#!/usr/bin/python3
"""test_call_stack_paths.py - scope_profile_call_stack() on generated
profiles against a reference written here from docs/format.md ("Call order
and ties"), on every path the reader takes to the same result:

  - containment, each region's calls in the order scope writes them (the
    merge, nesting each call as it comes): with no two equal times, and
    with ties (equal starts, equal ends, zero-length calls, a child equal
    to its parent, a call starting when its sibling ends);
  - the same calls with a region's equal starts shorter first (not the
    merge's order: the copy-and-sort fallback), which must nest the same
    calls the same way;
  - the journal's order (begin_seq and depth on every region), and the
    same calls with one region's order removed (containment again);
  - several thread lanes, all at once and one at a time;
  - 5 regions (the merge scans the heads) and 12 (it keeps a heap);
  - a rank of more than 2**20 calls (a second thread zeroes the fresh
    pages then, SCOPE_READER_JOBS=2), equal to the one-thread result, and
    built twice (the second time in the buffers the first one freed).

Order, parent, depth, self time and children lists are compared call by
call. Why: the nesting and the children counts moved into the merge,
fresh pages are zeroed by a second thread, and freed buffers are reused;
a change there shows only on files with ties or on the path a file
takes, which the fixtures cover one call each.

usage: test_call_stack_paths.py  (SCOPE_READER_LIB and PYTHONPATH set)
"""
import ctypes
import os
import random
import sys
import tempfile
import unittest

import h5py
import numpy as np

import scope_reader as m

BASE = 1_000_000
# 5 regions merge by a scan of their heads, 12 through the heap
REGIONS = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]

_children = m._sig("scope_call_stack_children", ctypes.c_int, m._p, m._i64,
                   ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)),
                   ctypes.POINTER(m._i64))


def generate(rng, lanes, roots, ties, nregions=5, fanout=3, deep=4):
    """Properly nested calls: (region, lane, start, end, seq, depth,
    true parent's position in the list or -1), listed in begin order
    (preorder per lane, lanes interleaved by their begin times)."""
    calls = []

    def grow(lane, lo, hi, depth, parent):
        t = lo
        for _ in range(rng.randint(0, fanout) if depth < deep else 0):
            gap = rng.choice([0, 0, 1, 3]) if ties else rng.randint(1, 5)
            s = t + gap
            if s > hi:
                break
            room = hi - s
            if ties and rng.random() < 0.15:
                e = s                            # zero-length
            elif ties and rng.random() < 0.1 and s == lo:
                e = hi                           # equal to its parent
            else:
                e = s + rng.randint(0 if ties else 1, max(room, 1 if not ties else 0))
                e = min(e, hi) if ties else min(e, hi - 1)
                if not ties and e <= s:
                    break
            me = len(calls)
            calls.append([rng.choice(REGIONS[:nregions]), lane, s, e, 0, depth, parent])
            grow(lane, s, e, depth + 1, me)
            t = e
        return t

    for lane in range(lanes):
        t = 0
        for _ in range(roots):
            s = t + (rng.choice([0, 2]) if ties else rng.randint(1, 5))
            e = s + rng.randint(0 if ties else 40, 60)
            me = len(calls)
            calls.append([rng.choice(REGIONS[:nregions]), lane, s, e, 0, 0, -1])
            grow(lane, s, e, 1, me)
            t = e
    if not ties:   # no two equal times within a lane's calls
        for lane in range(lanes):
            times = [x for c in calls if c[1] == lane for x in (c[2], c[3])]
            assert len(times) == len(set(times)), "generator made a tie"
    # begin order: by start across lanes, preorder kept within a lane
    per_lane = {}
    for i, c in enumerate(calls):
        per_lane.setdefault(c[1], []).append(i)
    order = sorted(range(len(calls)), key=lambda i: (calls[i][2], calls[i][1],
                                                     per_lane[calls[i][1]].index(i)))
    for seq, i in enumerate(order):
        calls[i][4] = seq
    return calls


def write(path, calls, journal, shorter_first=(), no_order=()):
    """One rank, each region's calls sorted as scope writes them (start,
    then lane; equal starts longer first, or shorter first for regions in
    shorter_first); begin_seq and depth when journal (in begin_seq order),
    except for regions in no_order. Returns, per region, the position in
    `calls` of each stored call (its call index is its place here)."""
    stored = {}
    with h5py.File(path, "w") as f:
        f.attrs["scope_format"] = np.int64(1)
        f.create_group("metadata").attrs["start_time_ns"] = np.int64(BASE)
        g = f.create_group("rank0")
        g.attrs["rank"] = np.int64(0)
        for reg in REGIONS:
            mine = [i for i, c in enumerate(calls) if c[0] == reg]
            if not mine:
                continue
            if journal:
                mine.sort(key=lambda i: calls[i][4])
            else:
                sign = 1 if reg in shorter_first else -1
                mine.sort(key=lambda i: (calls[i][2], calls[i][1], sign * calls[i][3],
                                         calls[i][4]))
            stored[reg] = mine
            r = g.create_group(f"regions/{reg}")
            r["start_times"] = np.array([BASE + calls[i][2] for i in mine], np.int64)
            r["end_times"] = np.array([BASE + calls[i][3] for i in mine], np.int64)
            r["thread_ids"] = np.array([calls[i][1] for i in mine], np.int32)
            if journal and reg not in no_order:
                r["begin_seq"] = np.array([calls[i][4] for i in mine], np.int64)
                r["depth"] = np.array([calls[i][5] for i in mine], np.int32)
    return stored


def reference(calls, stored, journal, index, lane=None):
    """The stack docs/format.md describes: rows of (region index, call
    index, lane, start, end, parent row, depth, self) and children lists;
    ties in start and end go by lane, then by the region's index in the
    profile (index: name -> that index), then call index."""
    rows = []
    for reg, mine in stored.items():
        for ci, i in enumerate(mine):
            c = calls[i]
            if lane is None or c[1] == lane:
                rows.append((reg, ci, c[1], c[2], c[3], i))
    if journal:
        rows.sort(key=lambda r: calls[r[5]][4])
        at = {r[5]: k for k, r in enumerate(rows)}
        parent = [at[calls[r[5]][6]] if calls[r[5]][6] >= 0 else -1 for r in rows]
    else:
        rows.sort(key=lambda r: (r[3], -r[4], r[2], index[r[0]], r[1]))
        parent, top = [], {}
        for k, r in enumerate(rows):
            j = top.get(r[2], -1)
            while j >= 0 and rows[j][4] <= r[3]:
                j = parent[j]
            assert j < 0 or r[4] <= rows[j][4], "reference: overlap"
            parent.append(j)
            top[r[2]] = k
    depth, self_ns = [], [r[4] - r[3] for r in rows]
    kids = [[] for _ in range(len(rows) + 1)]
    for k, r in enumerate(rows):
        j = parent[k]
        depth.append(depth[j] + 1 if j >= 0 else 0)
        if j >= 0:
            self_ns[j] -= r[4] - r[3]
        kids[j + 1].append(k)
    return [(r[0], r[1], r[2], BASE + r[3], BASE + r[4], parent[k], depth[k], self_ns[k])
            for k, r in enumerate(rows)], kids


def stack(res, thread=-1):
    """The C call stack of rank 0 as the reference's rows and kids."""
    names = res.region_names
    cs = m._p()
    m._check(m._cs_build(res._h, 0, thread, ctypes.byref(cs)))
    try:
        n = m._cs_count(cs)
        buf = (ctypes.c_char * (n * m._CALL.itemsize)).from_address(m._cs_calls(cs)) \
            if n else b""
        a = np.frombuffer(bytes(buf), dtype=m._CALL)
        rows = [(names[c["region"]], int(c["call_index"]), int(c["thread"]),
                 int(c["start_ns"]), int(c["end_ns"]), int(c["parent"]), int(c["depth"]),
                 int(c["self_ns"])) for c in a]
        kids = []
        for call in range(-1, n):
            p, k = ctypes.POINTER(ctypes.c_int64)(), m._i64()
            m._check(_children(cs, call, ctypes.byref(p), ctypes.byref(k)))
            kids.append([p[x] for x in range(k.value)])
    finally:
        m._cs_free(cs)
    return rows, kids


class Paths(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def same(self, calls, journal, lanes, **kw):
        path = os.path.join(self.dir.name, "p.h5")
        stored = write(path, calls, journal, **kw)
        use_journal = journal and not kw.get("no_order")
        res = m.read_h5(path)
        index = {name: i for i, name in enumerate(res.region_names)}
        # one profile for every stack: each after the first reuses the
        # buffers the previous one freed (smaller or bigger than it needs)
        try:
            for lane in [None] + (list(range(lanes)) if lanes > 1 else []) + [None]:
                want = reference(calls, stored, use_journal, index, lane)
                got = stack(res, -1 if lane is None else lane)
                self.assertEqual(len(got[0]), len(want[0]))
                for k, (g, w) in enumerate(zip(got[0], want[0])):
                    self.assertEqual(g, w, f"call {k}")
                self.assertEqual(got[1], want[1])
        finally:
            res.close()
        return path

    def test_containment(self):
        for seed in range(12):
            rng = random.Random(seed)
            for ties in (False, True):
                lanes = 1 + seed % 3
                calls = generate(rng, lanes, 6, ties, 12 if seed % 2 else 5)
                with self.subTest(seed=seed, ties=ties):
                    self.same(calls, False, lanes)
                    # equal starts shorter first in two regions: the fallback
                    self.same(calls, False, lanes, shorter_first=("a", "c"))

    def test_journal(self):
        for seed in range(12):
            rng = random.Random(100 + seed)
            lanes = 1 + seed % 3
            calls = generate(rng, lanes, 6, True, 12 if seed % 2 else 5)
            with self.subTest(seed=seed):
                self.same(calls, True, lanes)
                self.same(calls, True, lanes, no_order=("b",))

    def test_big_rank_both_threads(self):
        """More rows than SCOPE__PREFAULT_ROWS, with and without the
        second thread: the same stack (ties in it, two lanes)."""
        rng = np.random.default_rng(7)
        n = (1 << 20) + 4096
        # roots of 3 calls each starting together: 8 long (a), zero-length
        # (b), 1-7 long (c), on 2 lanes
        k = n // 3
        s = np.repeat(np.arange(k, dtype=np.int64) * 10, 3)
        e = s.copy()
        e[0::3] += 8
        e[1::3] += 0
        e[2::3] += rng.integers(1, 8, k)
        lane = np.repeat(rng.integers(0, 2, k).astype(np.int32), 3)
        region = np.array([0, 1, 2] * k)
        path = os.path.join(self.dir.name, "big.h5")
        with h5py.File(path, "w") as f:
            f.attrs["scope_format"] = np.int64(1)
            f.create_group("metadata").attrs["start_time_ns"] = np.int64(BASE)
            g = f.create_group("rank0")
            g.attrs["rank"] = np.int64(0)
            for r in range(3):
                sel = region == r
                grp = g.create_group(f"regions/{REGIONS[r]}")
                grp["start_times"] = BASE + s[sel]
                grp["end_times"] = BASE + e[sel]
                grp["thread_ids"] = lane[sel]
        old = os.environ.get("SCOPE_READER_JOBS")
        try:
            got = {}
            for jobs in ("1", "2"):
                os.environ["SCOPE_READER_JOBS"] = jobs
                res = m.read_h5(path)
                cols = ("region", "call_index", "start_ns", "end_ns", "self_ns", "depth",
                        "parent")
                a = res.call_stack_arrays(0, columns=cols)
                # again: now in the buffers (records, times read) the
                # first stack left for the next
                again = res.call_stack_arrays(0, columns=cols)
                for c in cols:
                    self.assertTrue(np.array_equal(a[c], again[c]), c)
                got[jobs] = a
                names = res.region_names
                res.close()
        finally:
            if old is None:
                os.environ.pop("SCOPE_READER_JOBS", None)
            else:
                os.environ["SCOPE_READER_JOBS"] = old
        for c in got["1"]:
            self.assertTrue(np.array_equal(got["1"][c], got["2"][c]), c)
        a = got["2"]
        self.assertEqual(len(a["parent"]), 3 * k)
        # every triple: the longest a root, then the other call of its
        # start (region c, 1-7 long: the longer first) under it, then the
        # zero-length one under that (it starts while both are open)
        rows = np.arange(k) * 3
        name = np.array(names)[a["region"]]
        self.assertTrue((name[0::3] == "a").all())
        self.assertTrue((name[1::3] == "c").all())
        self.assertTrue(np.array_equal(a["parent"][0::3], np.full(k, -1)))
        self.assertTrue(np.array_equal(a["parent"][1::3], rows))
        self.assertTrue(np.array_equal(a["parent"][2::3], rows + 1))
        self.assertTrue(np.array_equal(a["depth"][2::3], np.full(k, 2)))
        self.assertTrue(np.array_equal(a["self_ns"][0::3], 8 - (e[2::3] - s[2::3])))

if __name__ == "__main__":
    sys.exit(unittest.main())
