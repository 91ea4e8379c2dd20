#!/usr/bin/env python3
"""check_mpi_sites.py PRELOAD PROG SOURCE_DIR OUTDIR

Runs mpi_sites under `mpirun -n 4` with `MPI_Allreduce callsites=1` and
asserts, with h5py and addr2line, that every rank's /rank<N>/callsites
holds exactly two paths, at the MPI_SITE_1 and MPI_SITE_2 lines of
mpi_sites.c, and that the callsite_ids of MPI_Allreduce count exactly
2 + r and 3 + (3 - r) calls on rank r, in that order.

With SCOPE_TOOL and SCOPE_SITE_READER_TEST set (meson sets both), also
that test_site_reader's MPI checks pass, and that
`scope callsites --rank R --format csv` prints exactly two rows for rank
R, "sum_one (mpi_sites.c:<MPI_SITE_1>)" with 2 + R calls and
"sum_two (mpi_sites.c:<MPI_SITE_2>)" with 6 - R, and without --rank the
same two sites with 14 and 18 calls; and that `scope events --ranks R
--format csv` gives the MPI_Allreduce calls of rank R those callsites,
2 + R then 6 - R, in call order.
"""
import csv
import io
import os
import re
import subprocess
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env  # noqa: E402

MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "4"]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    preload, prog, src_dir, outdir = (os.path.abspath(a) for a in sys.argv[1:5])
    want = {}
    with open(os.path.join(src_dir, "mpi_sites.c")) as f:
        for i, text in enumerate(f, 1):
            m = re.search(r"/\* (MPI_SITE_\d) \*/", text)
            if m:
                want[("mpi_sites.c", i)] = m.group(1)
    conf = os.path.join(outdir, "mpi.conf")
    with open(conf, "w") as f:
        f.write("MPI_Allreduce callsites=1\n")
    env = clean_env(keep=("SCOPE_TRAMPOLINE",))
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               LD_PRELOAD=preload, SCOPE_CONFIG=conf, SCOPE_OUTPUT=os.path.join(outdir, "p.h5"))
    if os.environ.get("SCOPE_H5WRITER"):
        env["SCOPE_H5WRITER"] = os.environ["SCOPE_H5WRITER"]
    p = subprocess.run(MPIRUN + [prog], env=env, cwd=outdir, capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0 or p.stdout != "total 32\n":
        fail(f"rc {p.returncode} stdout {p.stdout!r} stderr {p.stderr!r}")
    with h5py.File(os.path.join(outdir, "p.h5"), "r") as f:
        for r in range(4):
            g = f[f"rank{r}"]
            names = {}
            for row in g["callsites"][:]:
                if int(row["frame"]) != 0:
                    fail(f"rank {r}: depth 1 asked, frame {row['frame']} stored")
                out = subprocess.run(["addr2line", "-e", row["object"].decode(),
                                      hex(int(row["offset"]) - 1)], capture_output=True,
                                     text=True, check=True).stdout.strip()
                m = re.match(r"(.*):(\d+)", out)
                loc = (os.path.basename(m.group(1)), int(m.group(2))) if m else None
                if loc not in want:
                    fail(f"rank {r}: call site at {out}, not a marked line {want}")
                names[int(row["id"])] = want[loc]
            if sorted(names.values()) != ["MPI_SITE_1", "MPI_SITE_2"]:
                fail(f"rank {r}: sites {names}")
            ids = g["regions/MPI_Allreduce/callsite_ids"][:]
            seq = [names[int(i)] for i in ids]
            exp = ["MPI_SITE_1"] * (2 + r) + ["MPI_SITE_2"] * (3 + 3 - r)
            if seq != exp:
                fail(f"rank {r}: {seq}, expected {exp}")
    if os.environ.get("SCOPE_TOOL"):
        check_tools(os.path.join(outdir, "p.h5"), {v: k[1] for k, v in want.items()})
    print("check_mpi_sites: ok")


def check_tools(h5, line):
    t = subprocess.run([os.environ["SCOPE_SITE_READER_TEST"], "mpi", h5], capture_output=True,
                       text=True, timeout=120)
    if t.returncode != 0:
        fail(f"test_site_reader: {t.stderr}")
    one = f"sum_one (mpi_sites.c:{line['MPI_SITE_1']})"
    two = f"sum_two (mpi_sites.c:{line['MPI_SITE_2']})"
    for rank, want in [(r, {one: 2 + r, two: 6 - r}) for r in range(4)] + [("all", {one: 14, two: 18})]:
        args = [os.environ["SCOPE_TOOL"], "callsites", "--format", "csv", h5]
        if rank != "all":
            args[2:2] = ["--rank", str(rank)]
        p = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail(f"{args}: rc {p.returncode} {p.stderr!r}")
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        got = {r["location"]: int(r["calls"]) for r in rows}
        if got != want or any(r["region"] != "MPI_Allreduce" or r["rank"] != str(rank)
                              for r in rows):
            fail(f"rank {rank}: scope callsites gave {rows}, expected {want}")
        if rank == "all":
            continue
        p = subprocess.run([os.environ["SCOPE_TOOL"], "events", "--include", "^MPI_Allreduce$",
                            "--ranks", str(rank), "--format", "csv", h5],
                           capture_output=True, text=True, timeout=120)
        seq = [r["callsite"] for r in csv.DictReader(io.StringIO(p.stdout))]
        if p.returncode != 0 or seq != [one] * (2 + rank) + [two] * (6 - rank):
            fail(f"rank {rank}: events callsites {seq} rc {p.returncode} {p.stderr!r}")


main()
