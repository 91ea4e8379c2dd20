#!/usr/bin/python3
"""check_synthetic.py WRITE_RUNS SCOPE LIBSCOPE_READER OUTDIR - `scope diff`
on sets of runs whose noise is known (write_runs.c: journals converted by
scope_convert(), 5 runs per set, 2 ranks, 20 calls per rank and region):

  1. "slow", 5 % slower in B (run-to-run noise 1 %, call noise 5 %), comes
     out "slower" with a 95 % interval of the median's change that covers
     +5 %, at the top of the rows;
  2. of the 100 unchanged regions, at least 95 come out "no change" (each
     region's draws are independent, so these are 100 independent trials
     of the test at 5 %); every row has 5 runs, 5 samples and 200 calls
     per set;
  3. every figure of the json output equals what SciPy computes from the
     rank files' own start/end times (read with h5py): per run the median
     call and the total, their medians over the runs, the Mann-Whitney U
     and p-value of A's runs against B's;
  4. --per-rank gives the same for each rank alone (202 rows, 100 calls
     per set); --metric total decides and sorts by the total; csv holds
     the json's figures; the same seed gives the same output and another
     seed other intervals but the same tests;
  5. the Python module's compare() gives the same rows as a DataFrame.
"""
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
from scipy import stats

WRITE, SCOPE, LIB, OUT = sys.argv[1:5]
SEED = 20261202
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


shutil.rmtree(OUT, ignore_errors=True)
subprocess.run([WRITE, OUT, str(SEED), "5"], check=True)
A, B = os.path.join(OUT, "A"), os.path.join(OUT, "B")


def diff(*args):
    p = subprocess.run([SCOPE, "diff", *args], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr, file=sys.stderr)
    return p


p = diff("--format", "json", A, "--vs", B)
check(p.returncode == 0 and p.stderr == "", f"diff json: rc {p.returncode} {p.stderr!r}")
doc = json.loads(p.stdout)
rows = doc["regions"]
by = {r["region"]: r for r in rows}
check(len(rows) == 101, f"101 regions, got {len(rows)}")
check((doc["level"], doc["resamples"], doc["seed"], doc["samples"], doc["metric"])
      == (0.95, 10000, 1, "runs", "median"), f"settings {doc}")
check(len(doc["a"]) == 5 and doc["a"][0].endswith("A/run1"), f"set A {doc['a']}")

# 1. the slow region
s = by["slow"]
check(s["verdict"] == "slower", f"slow: verdict {s['verdict']}")
check(s["median_lo"] <= 0.05 <= s["median_hi"],
      f"slow: interval [{s['median_lo']}, {s['median_hi']}] must cover +5 %")
check(rows[0]["region"] == "slow", f"slow is the first row, not {rows[0]['region']}")

# 2. the unchanged regions
same = [r for r in rows if r["region"].startswith("same")]
nochange = sum(r["verdict"] == "no change" for r in same)
check(len(same) == 100 and nochange >= 95, f"unchanged: {nochange} of {len(same)} no change")
print(f"slow: {s['verdict']} {100 * s['median_change']:+.2f} % "
      f"[{100 * s['median_lo']:+.2f}, {100 * s['median_hi']:+.2f}], p {s['median_p']:.4f}; "
      f"unchanged: {nochange} of 100 no change")
for r in rows:
    check((r["runs_a"], r["runs_b"], r["samples_a"], r["samples_b"], r["calls_a"], r["calls_b"],
           r["rank"]) == (5, 5, 5, 5, 200, 200, "all"), f"{r['region']}: sizes {r}")
# significant rows first, then by |change|
sig = [r["verdict"] in ("slower", "faster") for r in rows]
check(sig == sorted(sig, reverse=True), "significant rows come first")
for part in (rows[:sum(sig)], rows[sum(sig):]):
    sizes = [abs(r["median_change"]) for r in part]
    check(sizes == sorted(sizes, reverse=True), "rows by |change| within each part")


# 3. the figures against scipy, from the files themselves
def per_run(setdir, region, rank=None):
    meds, tots = [], []
    for run in sorted(os.listdir(setdir)):
        d = []
        for rk in (0, 1):
            if rank is not None and rk != rank:
                continue
            with h5py.File(os.path.join(setdir, run, f"rank{rk}.h5")) as f:
                g = f[f"rank{rk}/regions/{region}"]
                d.append(g["end_times"][()] - g["start_times"][()])
        d = np.concatenate(d)
        meds.append(np.median(d))
        tots.append(d.sum())
    return np.array(meds, float), np.array(tots, float)


def close(a, b, rel=1e-9):
    return a == b or math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def close_s(a, b):
    """Seconds as printed: rounded to the nanosecond."""
    return abs(a - b) <= 0.51e-9


def check_figures(r, rank=None):
    ma, ta = per_run(A, r["region"], rank)
    mb, tb = per_run(B, r["region"], rank)
    name = f"{r['region']} rank {rank}"
    check(close_s(r["median_a"], np.median(ma) / 1e9), f"{name}: median_a")
    check(close_s(r["median_b"], np.median(mb) / 1e9), f"{name}: median_b")
    check(close_s(r["total_a"], np.median(ta) / 1e9), f"{name}: total_a")
    check(close(r["median_change"], np.median(mb) / np.median(ma) - 1, 1e-6),
          f"{name}: median_change")
    w = stats.mannwhitneyu(ma, mb, alternative="two-sided")
    check(r["median_u"] == w.statistic and close(r["median_p"], w.pvalue),
          f"{name}: U/p {r['median_u']}/{r['median_p']} vs scipy {w.statistic}/{w.pvalue}")
    w = stats.mannwhitneyu(ta, tb, alternative="two-sided")
    check(r["total_u"] == w.statistic and close(r["total_p"], w.pvalue), f"{name}: total U/p")
    check(r["median_lo"] <= r["median_change"] <= r["median_hi"] or
          r["verdict"] == "no change", f"{name}: a change outside its interval")


for r in rows:
    check_figures(r)

# 4. per rank, metric total, csv, seeds
p = diff("--format", "json", "--per-rank", "--resamples", "2000", A, "--vs", B)
pr = json.loads(p.stdout)["regions"]
check(len(pr) == 202 and {r["rank"] for r in pr} == {0, 1}, f"per rank: {len(pr)} rows")
for r in pr:
    check(r["calls_a"] == 100 and r["samples_a"] == 5, f"per rank {r['region']}: sizes")
for r in pr[:4] + [x for x in pr if x["region"] == "slow"]:
    check_figures(r, r["rank"])
check(all(x["median_change"] > 0.02 for x in pr if x["region"] == "slow"),
      "slow is slower on each rank")

p = diff("--format", "json", "--metric", "total", "--resamples", "2000", A, "--vs", B)
tot = json.loads(p.stdout)
check(tot["metric"] == "total", "metric total stated")
sig = [r["verdict"] in ("slower", "faster") for r in tot["regions"]]
sizes = [abs(r["total_change"]) for r in tot["regions"][:sum(sig)]]
check(sizes == sorted(sizes, reverse=True), "metric total: sorted by |total change|")
for r in tot["regions"]:
    want = r["total_p"] < 0.05 and ("slower" if r["total_b"] > r["total_a"] else "faster")
    check(r["verdict"] == (want or "no change"), f"metric total: {r['region']} verdict")

# the other forms, at 2,000 resamples to keep the test short
quick = json.loads(diff("--format", "json", "--resamples", "2000", A, "--vs", B).stdout)
qrows = quick["regions"]
p = diff("--format", "csv", "--resamples", "2000", A, "--vs", B)
check(p.returncode == 0, "csv")
table = list(csv.DictReader(io.StringIO(p.stdout)))
check(len(table) == 101, "csv rows")
for c, j in zip(table, qrows):
    check(c["region"] == j["region"] and c["verdict"] == j["verdict"], "csv order and verdicts")
    for k in ("median_change", "median_lo", "median_hi", "median_p", "total_p", "min_p"):
        check(close(float(c[k]), j[k], 1e-8), f"csv {k} of {c['region']}")
    check(close(float(c["median_a"]), j["median_a"]), f"csv median_a of {c['region']}")

again = json.loads(diff("--format", "json", "--resamples", "2000", A, "--vs", B).stdout)
check(again == quick, "the same seed: the same output")
# with 5 runs the bootstrap distribution has few atoms and both seeds'
# quantiles fall on the same ones; the pooled calls show the seed
calls = [json.loads(diff("--format", "json", "--calls", "--resamples", "2000", "--seed", sd,
                         os.path.join(A, "run1"), os.path.join(B, "run1")).stdout)["regions"]
         for sd in ("1", "7")]
c1, c7 = ({r["region"]: r for r in c} for c in calls)
check(any(c1[k]["median_lo"] != c7[k]["median_lo"] for k in c1), "another seed: other intervals")
check(all(c1[k]["median_p"] == c7[k]["median_p"] for k in c1), "another seed: the same tests")
check(all((r["samples_a"], r["calls_a"], r["runs_a"]) == (40, 40, 1) for r in calls[0]),
      "--calls: every call of the run is a sample")

# the table says it all in words
p = diff("--resamples", "2000", A, "--vs", B)
first = p.stdout.splitlines()[0]
check(first.startswith("A: 5 runs, B: 5 runs; samples: one per run; 95 % intervals"), first)
check(p.stdout.splitlines()[2].split()[:3] == ["slow", "all", "slower"], "table: slow first")

# 5. the Python module
sys.path.insert(0, os.environ.get("PYTHONPATH", ""))
import scope_reader  # noqa: E402

runs_a = [os.path.join(A, d) for d in sorted(os.listdir(A))]
runs_b = [os.path.join(B, d) for d in sorted(os.listdir(B))]
df = scope_reader.compare(runs_a, runs_b, resamples=2000)
check(list(df["region"]) == [r["region"] for r in qrows], "python: the same rows in order")
check(list(df["verdict"]) == [r["verdict"] for r in qrows], "python: the same verdicts")
check(all(close(x, r["median_p"]) for x, r in zip(df["median_p"], qrows)), "python: p-values")
check(all(close(x, r["median_lo"], 1e-8) for x, r in zip(df["median_lo"], qrows)),
      "python: intervals")
check(all(close_s(x, r["median_a"]) for x, r in zip(df["median_a"], qrows)),
      "python: medians in seconds")
check(df.attrs.get("level") == 0.95 and df.attrs.get("resamples") == 2000,
      "python: settings in attrs")
dfr = scope_reader.compare(runs_a, runs_b, per_rank=True, resamples=2000)
check(list(zip(dfr["region"], dfr["rank"])) == [(r["region"], r["rank"]) for r in pr],
      "python per rank: the rows of scope diff --per-rank, in its order")
try:
    scope_reader.compare([], runs_b)
    check(False, "python: an empty set is an error")
except ValueError as e:
    check("empty" in str(e), f"python: empty set: {e}")
try:
    scope_reader.compare(runs_a, [os.path.join(OUT, "nothing.h5")])
    check(False, "python: a missing run is an error")
except scope_reader.ScopeError as e:
    check("nothing.h5" in str(e), f"python: missing run: {e}")

if failures:
    print(f"{len(failures)} failures", file=sys.stderr)
    sys.exit(1)
