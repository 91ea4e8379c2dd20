"""compare.py - sets of runs compared with statistics
(scope_reader_compare.h, reader/compare.c), as a pandas DataFrame: per
region the median per-call time and the total of each set, their relative
change with a bootstrap confidence interval, the Mann-Whitney U test and a
verdict. The same figures as `scope diff A... --vs B... --format csv`;
docs/analysis.md "Comparing runs" says what they mean.

    import scope_reader
    df = scope_reader.compare(["a1.h5", "a2.h5", "a3.h5", "a4.h5"],
                              ["b1.h5", "b2.h5", "b3.h5", "b4.h5"])
    df[df.verdict == "slower"][["region", "median_change", "median_lo",
                                "median_hi", "median_p"]]
"""
import ctypes
import os

from . import ALL_RANKS, ProfilingResults, _check, _p, _sig

_i32, _i64, _d = ctypes.c_int32, ctypes.c_int64, ctypes.c_double


class _Options(ctypes.Structure):
    _fields_ = [("level", _d), ("resamples", _i32), ("rank", _i32),
                ("seed", ctypes.c_uint64), ("calls", _i32), ("metric", _i32)]


_FIGURES = ["median_a", "median_b", "median_change", "median_lo", "median_hi",
            "median_u", "median_p", "total_a", "total_b", "total_change", "total_lo",
            "total_hi", "total_u", "total_p", "min_p"]


class _Change(ctypes.Structure):
    _fields_ = ([("region", ctypes.c_char_p), ("rank", _i32), ("verdict", _i32)] +
                [(k, _i64) for k in ("samples_a", "samples_b", "runs_a", "runs_b",
                                     "calls_a", "calls_b")] +
                [(k, _d) for k in _FIGURES] + [("exact", _i32), ("reserved", _i32)])


_options_init = _sig("scope_compare_options_init", None, ctypes.POINTER(_Options))
_compare_sets = _sig("scope_compare_sets", ctypes.c_int, ctypes.POINTER(_p), ctypes.c_int,
                     ctypes.POINTER(_p), ctypes.c_int, ctypes.POINTER(_Options),
                     ctypes.POINTER(_p))
_count = _sig("scope_compare_count", _i64, _p)
_row = _sig("scope_compare_row", ctypes.POINTER(_Change), _p, _i64)
_free = _sig("scope_compare_free", None, _p)
_verdict_name = _sig("scope_compare_verdict_name", ctypes.c_char_p, ctypes.c_int)

_SECONDS = ("median_a", "median_b", "total_a", "total_b")


def _open(runs):
    if isinstance(runs, (str, bytes, os.PathLike, ProfilingResults)):
        runs = [runs]
    out = [r if isinstance(r, ProfilingResults) else ProfilingResults(r) for r in runs]
    if not out:
        raise ValueError("a set of runs is empty: give at least one run on each side")
    return out


def compare(a, b, level=0.95, resamples=10000, seed=1, per_rank=False, rank=None,
            calls=False, metric="median"):
    """Compares the runs `a` (the baseline) with the runs `b`: each a list
    of profile paths or ProfilingResults (one run each), or one of them.

    Returns a pandas DataFrame, one row per region (per region and rank
    with per_rank=True, or for `rank` alone), in `scope diff`'s order
    (significant changes first, largest first), with the columns of
    `scope diff --format csv`: region, rank (-1 for all ranks), verdict
    ("slower", "faster", "no change", "untested", "only in A", "only in
    B"), runs_a/b, samples_a/b, calls_a/b, median_a/b and total_a/b in
    seconds, median_change and total_change as fractions (0.05 = 5 %
    slower) with their interval (_lo, _hi) at `level`, the Mann-Whitney
    U (_u) and two-sided p-value (_p), min_p (the smallest p the sizes
    allow) and exact. df.attrs holds the settings.

    calls=True takes every call as a sample (the runs of a set pooled),
    for runs that were not repeated; metric="total" lets the total
    decide the verdict and the order."""
    import pandas as pd

    pa, pb = _open(a), _open(b)
    o = _Options()
    _options_init(ctypes.byref(o))
    o.level, o.resamples, o.seed = level, resamples, seed
    o.calls = 1 if calls else 0
    if metric not in ("median", "total"):
        raise ValueError("metric must be 'median' or 'total', not %r" % (metric,))
    o.metric = 1 if metric == "total" else 0
    if per_rank:
        ranks = list(pa[0].ranks)
    else:
        ranks = [ALL_RANKS if rank is None else rank]
    ha = (_p * len(pa))(*[x._h for x in pa])
    hb = (_p * len(pb))(*[x._h for x in pb])
    rows = []
    for rk in ranks:
        o.rank = rk
        res = _p()
        _check(_compare_sets(ha, len(pa), hb, len(pb), ctypes.byref(o), ctypes.byref(res)))
        try:
            for i in range(_count(res)):
                c = _row(res, i).contents
                row = {"region": c.region.decode("utf-8", "replace"), "rank": c.rank,
                       "verdict": _verdict_name(c.verdict).decode()}
                for k in ("runs_a", "runs_b", "samples_a", "samples_b", "calls_a", "calls_b"):
                    row[k] = getattr(c, k)
                for k in _FIGURES:
                    v = getattr(c, k)
                    row[k] = v / 1e9 if k in _SECONDS else v
                row["exact"] = bool(c.exact)
                rows.append(row)
        finally:
            _free(res)
    if len(ranks) > 1:      # one order over all the ranks' rows, as `scope diff`
        key = "total_change" if metric == "total" else "median_change"

        def order(r):
            size = abs(r[key]) if r[key] == r[key] else float("inf")
            return (r["verdict"] not in ("slower", "faster"), -size, r["region"], r["rank"])
        rows.sort(key=order)
    cols = (["region", "rank", "verdict", "runs_a", "runs_b", "samples_a", "samples_b",
             "calls_a", "calls_b"] + _FIGURES + ["exact"])
    df = pd.DataFrame(rows, columns=cols)
    df.attrs.update({"level": level, "resamples": resamples, "seed": seed,
                     "samples": "calls" if calls else "runs", "metric": metric,
                     "test": "Mann-Whitney U, two-sided",
                     "interval": "percentile bootstrap"})
    return df
