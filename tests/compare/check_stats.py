#!/usr/bin/python3
"""check_stats.py LIBSCOPE_READER - the statistics of scope_reader_compare.h
against SciPy's on the same samples (ctypes into the reader):

  1. Mann-Whitney U: U and the two-sided p-value equal
     scipy.stats.mannwhitneyu's (use_continuity=True) for method 'auto',
     'exact' and 'asymptotic', on samples with and without ties, small
     (exact) and large (normal approximation with the tie correction);
     U exactly, p to 1e-9 relative;
  2. the smallest p a test of nx vs ny can give (2 / C(nx+ny, nx)) and the
     fewest runs per set at 95 % and 99 %;
  3. the median equals numpy.median (odd, even, ties);
  4. the percentile bootstrap interval agrees with
     scipy.stats.bootstrap(method='percentile'). The two draw different
     random resamples, so the endpoints cannot be equal; what must hold is
     that our endpoint sits where SciPy's bootstrap distribution puts the
     same quantile, up to Monte Carlo error. With B resamples the
     empirical quantile level of a fixed value has a standard error of
     sqrt(q (1 - q) / B); so our lower endpoint must lie at a level of
     SciPy's distribution within 5 standard errors of (1 - level) / 2
     (and likewise the upper one), plus the discreteness of the
     distribution (the level is taken as an interval [P(<), P(<=)]).
     With B = 20,000 that is about +-0.55 % in level around 2.5 %.
     Checked for the median ratio, median difference and sum ratio, on
     continuous samples and on a tiny discrete one (5 vs 5 runs);
  5. the same seed gives the same interval, another seed a different one,
     and bad arguments are SCOPE_EINVAL.
"""
import ctypes
import math
import sys

import numpy as np
from scipy import stats

lib = ctypes.CDLL(sys.argv[1])
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


class MWU(ctypes.Structure):
    _fields_ = [("u", ctypes.c_double), ("p", ctypes.c_double),
                ("method", ctypes.c_int32), ("ties", ctypes.c_int32)]


D = ctypes.POINTER(ctypes.c_double)
I64 = ctypes.c_int64
lib.scope_stat_mann_whitney.argtypes = [D, I64, D, I64, ctypes.c_int, ctypes.POINTER(MWU)]
lib.scope_stat_mwu_min_p.argtypes = [I64, I64]
lib.scope_stat_mwu_min_p.restype = ctypes.c_double
lib.scope_stat_min_runs.argtypes = [ctypes.c_double]
lib.scope_stat_median.argtypes = [D, I64]
lib.scope_stat_median.restype = ctypes.c_double
lib.scope_stat_bootstrap_ci.argtypes = [D, I64, D, I64, ctypes.c_int, ctypes.c_double,
                                        ctypes.c_int, ctypes.c_uint64, D, D]


def arr(v):
    a = np.ascontiguousarray(v, dtype=np.float64)
    return a, a.ctypes.data_as(D)


def mwu(x, y, method):
    (ax, px), (ay, py) = arr(x), arr(y)
    out = MWU()
    rc = lib.scope_stat_mann_whitney(px, len(ax), py, len(ay), method, ctypes.byref(out))
    return rc, out


METHODS = {"auto": 0, "exact": 1, "asymptotic": 2}
rng = np.random.default_rng(20261202)
cases = [
    ("5v5 separated", [1, 2, 3, 4, 5], [6, 7, 8, 9, 10]),
    ("5v5 mixed", [1.5, 2.2, 3.9, 4.1, 7.0], [2.0, 3.0, 4.0, 8.5, 9.1]),
    ("2v2", [1, 2], [3, 4]),
    ("3v4", [0.3, 0.1, 0.2], [0.5, 0.05, 0.7, 0.9]),
    ("8v3", list(rng.normal(0, 1, 8)), list(rng.normal(1, 1, 3))),
    ("ties small", [1, 2, 2, 3, 5], [2, 3, 3, 4, 6]),
    ("all equal", [4, 4, 4], [4, 4, 4]),
    ("1v1", [1.0], [2.0]),
    ("40v50 normal", list(rng.normal(0, 1, 40)), list(rng.normal(0.4, 1, 50))),
    ("30v30 ties", list(rng.integers(0, 6, 30).astype(float)),
     list(rng.integers(1, 7, 30).astype(float))),
    ("9v12", list(rng.exponential(1, 9)), list(rng.exponential(2, 12))),
    ("1000v800", list(rng.lognormal(0, 0.3, 1000)), list(rng.lognormal(0.02, 0.3, 800))),
]
for name, x, y in cases:
    for mname, m in METHODS.items():
        if mname == "exact" and len(x) * len(y) > 5000:
            continue
        want = stats.mannwhitneyu(x, y, alternative="two-sided", use_continuity=True,
                                  method=mname)
        rc, got = mwu(x, y, m)
        check(rc == 0, f"mwu {name} {mname}: rc {rc}")
        check(got.u == want.statistic, f"mwu {name} {mname}: U {got.u} != {want.statistic}")
        ok = math.isclose(got.p, want.pvalue, rel_tol=1e-9, abs_tol=1e-15)
        check(ok, f"mwu {name} {mname}: p {got.p!r} != scipy {want.pvalue!r}")
    # the method 'auto' picked is scipy's rule
    has_ties = len(set(x) | set(y)) < len(x) + len(y)
    want_m = 2 if (len(x) > 8 and len(y) > 8) or has_ties else 1
    check(mwu(x, y, 0)[1].method == want_m, f"mwu {name}: auto chose {mwu(x, y, 0)[1].method}")
    check(mwu(x, y, 0)[1].ties == has_ties, f"mwu {name}: ties flag")

# an exact request past 10^6 pairs is answered asymptotically, and says so
big_x, big_y = rng.normal(0, 1, 1200), rng.normal(0.1, 1, 1000)
rc, got = mwu(big_x, big_y, 1)
want = stats.mannwhitneyu(big_x, big_y, method="asymptotic")
check(rc == 0 and got.method == 2 and math.isclose(got.p, want.pvalue, rel_tol=1e-9),
      f"mwu 1200v1000 exact request: method {got.method}, p {got.p} vs {want.pvalue}")

rc, _ = mwu([], [1.0], 0)
check(rc < 0, "mwu: an empty sample is an error")
rc, _ = mwu([float("nan")], [1.0], 0)
check(rc < 0, "mwu: NaN is an error")
rc, _ = mwu([1.0], [2.0], 7)
check(rc < 0, "mwu: an unknown method is an error")
EINVAL = rc

# 2. smallest p and the fewest runs
for nx, ny in [(1, 1), (2, 2), (3, 3), (3, 4), (4, 4), (5, 5), (3, 5), (10, 2), (20, 30)]:
    want = min(1.0, 2 / math.comb(nx + ny, nx))
    got = lib.scope_stat_mwu_min_p(nx, ny)
    check(math.isclose(got, want, rel_tol=1e-12), f"min_p {nx}v{ny}: {got} != {want}")
    # and it is what the exact test gives for complete separation
    if nx * ny > 1:
        p = stats.mannwhitneyu(range(nx), range(100, 100 + ny), method="exact").pvalue
        check(math.isclose(got, p, rel_tol=1e-9), f"min_p {nx}v{ny} vs scipy exact {p}")
check(lib.scope_stat_min_runs(0.95) == 4, "4 runs each are needed at 95 %")
check(lib.scope_stat_min_runs(0.99) == 5, "5 runs each are needed at 99 %")

# 3. median
for v in ([3.0], [1.0, 9.0], [5, 1, 4, 2, 3], [2, 2, 1, 2], list(rng.normal(0, 1, 101)),
          list(rng.normal(0, 1, 100))):
    a, p = arr(v)
    check(lib.scope_stat_median(p, len(a)) == np.median(a), f"median of {len(a)} values")
check(math.isnan(lib.scope_stat_median(arr([1.0])[1], 0)), "median of nothing is NaN")

# 4. bootstrap
B = 20000
STATS = {
    0: lambda x, y, axis=-1: np.median(y, axis=axis) / np.median(x, axis=axis) - 1,
    1: lambda x, y, axis=-1: np.median(y, axis=axis) - np.median(x, axis=axis),
    2: lambda x, y, axis=-1: np.sum(y, axis=axis) / np.sum(x, axis=axis) - 1,
}


def ours(x, y, stat, level, resamples, seed):
    (ax, px), (ay, py) = arr(x), arr(y)
    lo, hi = ctypes.c_double(), ctypes.c_double()
    rc = lib.scope_stat_bootstrap_ci(px, len(ax), py, len(ay), stat, level, resamples, seed,
                                     ctypes.byref(lo), ctypes.byref(hi))
    return rc, lo.value, hi.value


boot_cases = [
    ("60v70 lognormal", rng.lognormal(0, 0.2, 60), rng.lognormal(0.05, 0.2, 70)),
    ("5v5 runs", np.array([100.0, 103, 98, 101, 99]), np.array([105.0, 104, 108, 103, 106])),
    ("200v150 normal", rng.normal(50, 5, 200), rng.normal(52, 5, 150)),
]
for name, x, y in boot_cases:
    for stat, fn in STATS.items():
        for level in (0.95, 0.9):
            res = stats.bootstrap((x, y), fn, vectorized=True, n_resamples=B,
                                  confidence_level=level, method="percentile",
                                  random_state=np.random.default_rng(7))
            dist = np.sort(res.bootstrap_distribution)
            rc, lo, hi = ours(x, y, stat, level, B, 12345)
            check(rc == 0, f"bootstrap {name} {stat}: rc {rc}")
            for end, q in ((lo, (1 - level) / 2), (hi, (1 + level) / 2)):
                below = np.searchsorted(dist, end, side="left") / len(dist)
                upto = np.searchsorted(dist, end, side="right") / len(dist)
                tol = 5 * math.sqrt(q * (1 - q) / B)
                ok = below - tol <= q <= upto + tol
                check(ok, f"bootstrap {name} stat {stat} level {level}: endpoint {end} is at "
                          f"level [{below:.4f}, {upto:.4f}] of scipy's distribution, want "
                          f"{q} +- {tol:.4f} (scipy's interval {res.confidence_interval})")

x, y = boot_cases[0][1], boot_cases[0][2]
check(ours(x, y, 0, 0.95, 2000, 5) == ours(x, y, 0, 0.95, 2000, 5), "same seed, same interval")
check(ours(x, y, 0, 0.95, 2000, 5) != ours(x, y, 0, 0.95, 2000, 6), "another seed, another")
check(ours(x, y, 0, 1.0, 2000, 5)[0] == EINVAL, "level 1 is SCOPE_EINVAL")
check(ours(x, y, 0, 0.95, 1, 5)[0] == EINVAL, "1 resample is SCOPE_EINVAL")
check(ours([], y, 0, 0.95, 100, 5)[0] == EINVAL, "an empty sample is SCOPE_EINVAL")
check(ours(x, y, 9, 0.95, 100, 5)[0] == EINVAL, "an unknown statistic is SCOPE_EINVAL")
# a ratio from all-zero baseline: no interval
r = ours([0.0, 0.0], [1.0, 2.0], 0, 0.95, 100, 5)
check(r[0] == 0 and math.isnan(r[1]) and math.isnan(r[2]), "ratio from 0 has no interval")

if failures:
    print(f"{len(failures)} failures", file=sys.stderr)
    sys.exit(1)
print("statistics agree with scipy:", len(cases), "U tests x 3 methods,",
      len(boot_cases) * 6, "bootstrap intervals")
