"""test_corrupt.py - hostile profiles: bit-flipped, zero-filled and
truncated copies of real profiles (seeded, so every run tries the same
files) given to `scope summary`, `scope events` and `scope tree`, and a
journal likewise to `scope recover`. Each must end with a result or a
one-line error: never a crash, never a hang.

usage: test_corrupt.py SCOPE_EXE PROFILE... [--journals DIR] [--count N]
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("scope")
ap.add_argument("profiles", nargs="+")
ap.add_argument("--count", type=int, default=120)
ap.add_argument("--journals", help="folder of seed journals (make_journal_seeds.py)")
a = ap.parse_args()


def mutate(data, rng, i):
    d = bytearray(data)
    kind = i % 3
    if kind == 0:                       # a few bit flips
        for _ in range(rng.randrange(1, 6)):
            p = rng.randrange(len(d))
            d[p] ^= 1 << rng.randrange(8)
    elif kind == 1:                     # a zero-filled stretch
        p = rng.randrange(len(d))
        n = rng.randrange(1, 1024)
        d[p:p + n] = bytes(len(d[p:p + n]))
    else:                               # cut short
        d = d[:rng.randrange(len(d))]
    return bytes(d)


def keep(path):
    """Copies a failing input where it survives the temporary folder."""
    dst = os.path.join(tempfile.gettempdir(), "scope-corrupt-" + os.path.basename(path))
    if os.path.isdir(path):
        shutil.copytree(path, dst, dirs_exist_ok=True)
    else:
        shutil.copy(path, dst)
    return dst


def run(cmd, what):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        sys.exit(f"HANG: {' '.join(cmd)} ({what}); input kept as {keep(cmd[-1])}")
    if p.returncode < 0 or p.returncode > 2:
        sys.exit(f"CRASH ({p.returncode}): {' '.join(cmd)} ({what}); input kept as "
                 f"{keep(cmd[-1])}\n{p.stderr}")
    if p.returncode != 0:
        # (libhdf5 loops forever on some damaged global heaps; the tool
        # turns that into a one-line error after SCOPE_OPEN_TIMEOUT)
        lines = p.stderr.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("scope: "):
            sys.exit(f"not a one-line error: {' '.join(cmd)} ({what}): {p.stderr!r}")
    return p.returncode


rng = random.Random(20261130)
tried = failed = 0
with tempfile.TemporaryDirectory() as d:
    for prof in a.profiles:
        base = open(prof, "rb").read()
        for i in range(a.count):
            path = os.path.join(d, "x.h5")
            with open(path, "wb") as f:
                f.write(mutate(base, rng, i))
            for cmd in (["summary"], ["events", "--format", "csv"], ["tree"]):
                failed += run([a.scope, *cmd, path], f"{os.path.basename(prof)} mutation {i}") != 0
                tried += 1
    if a.journals:
        for name in sorted(os.listdir(a.journals)):
            base = open(os.path.join(a.journals, name), "rb").read()
            for i in range(a.count // 4):
                run_dir = os.path.join(d, f"j{i}.ranks")
                os.makedirs(run_dir)
                with open(os.path.join(run_dir, "journal.host.1"), "wb") as f:
                    f.write(mutate(base, rng, i))
                failed += run([a.scope, "recover", "-q", os.path.join(d, f"j{i}.h5")],
                              f"journal {name} mutation {i}") != 0
                tried += 1
                shutil.rmtree(run_dir)
print(f"test_corrupt: {tried} runs on damaged files, {failed} clean errors, no crash, no hang")
