#!/usr/bin/env python3
"""check_bad_numbers.py - a SCOPE_* number that does not parse is named.

SCOPE_DEATH_WAIT (seconds a dying rank waits for its writer) and
SCOPE_OPEN_TIMEOUT (seconds `scope` lets libhdf5 take to open a file) were
read with atoi/strtoul, so "ten" or "5s" meant 0 without a word. Now:

  - the profiled program still ends exactly as it does bare (SIGSEGV,
    its own output), says once on stderr that SCOPE_DEATH_WAIT='ten' is
    not a number, keeps the default wait, and its rank file holds every
    call it made before the fault (nothing recorded is lost);
  - `scope summary` with SCOPE_OPEN_TIMEOUT=5s fails with one line naming
    the variable and its value, and with a good value reads the same file.

  check_bad_numbers.py SCOPE PRELOAD FAULT_SERIAL CONFIG
"""
import csv
import io
import os
import subprocess
import sys
import tempfile

scope, preload, prog, config = map(os.path.abspath, sys.argv[1:5])
env = {k: v for k, v in os.environ.items()
       if (not k.startswith("SCOPE") or k == "SCOPE_TRAMPOLINE") and k != "LD_PRELOAD"}
N = 7


def fail(msg):
    sys.exit(f"FAIL: {msg}")


with tempfile.TemporaryDirectory() as d:
    cmd = [prog, "segv", str(N)]
    bare = subprocess.run(cmd, env=env, cwd=d, capture_output=True, text=True, timeout=60)
    out = os.path.join(d, "prof.h5")
    prof = subprocess.run(cmd, env=dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=config,
                                        SCOPE_OUTPUT=out, SCOPE_DEATH_WAIT="ten"),
                          cwd=d, capture_output=True, text=True, timeout=120)
    if (bare.returncode, bare.stdout) != (prof.returncode, prof.stdout) or bare.returncode != -11:
        fail(f"bare run ended {bare.returncode} {bare.stdout!r}, profiled {prof.returncode} "
             f"{prof.stdout!r}")
    said = [l for l in prof.stderr.splitlines() if "SCOPE_DEATH_WAIT" in l]
    if said != ["scope: SCOPE_DEATH_WAIT='ten' is not a whole number of seconds from 0 to "
                "3600; using 10"]:
        fail(f"SCOPE_DEATH_WAIT='ten' said as {said!r} (stderr {prof.stderr!r})")

    summary = [scope, "summary", "--format", "csv", out]
    bad = subprocess.run(summary, env=dict(env, SCOPE_OPEN_TIMEOUT="5s"),
                         capture_output=True, text=True, timeout=60)
    want = ("scope: SCOPE_OPEN_TIMEOUT='5s' is not a whole number of seconds from 0 to 86400 "
            "(0 waits for ever)")
    if bad.returncode == 0 or bad.stderr.strip() != want or bad.stdout:
        fail(f"SCOPE_OPEN_TIMEOUT='5s': exit {bad.returncode}, stderr {bad.stderr!r}")
    good = subprocess.run(summary, env=dict(env, SCOPE_OPEN_TIMEOUT="30"),
                          capture_output=True, text=True, timeout=60)
    if good.returncode != 0:
        fail(f"scope summary exited {good.returncode}: {good.stderr}")
    calls = {r["region"]: int(r["calls"]) for r in csv.DictReader(io.StringIO(good.stdout))}
    if calls.get("work") != N:
        fail(f"the dying rank's file holds {calls} calls, expected work: {N}")
print(f"check_bad_numbers: both variables named; status -11 kept; work {N} calls kept")
