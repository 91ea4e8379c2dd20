#!/usr/bin/env python3
"""check_waits_io.py --mpi openmpi|mpich --scope TOOL --preload SO --prog P --out DIR

Waits spent in I/O (issue 46; docs/analysis.md "Waits spent in I/O"):
runs prog_waits_io.c with 2 ranks under the MPI's real launcher with the
preload (config `MPI_*`; I/O is recorded by default) and checks what
`scope waits` says of the I/O share of two late-sender waits:

  - exchange A (rank 0's MPI_Recv waiting for rank 1, which wrote 64 MiB
    to a file in the run's folder, then slept 150 ms): the row (0,
    MPI_Recv, late_sender, 1) has io_ns equal, to the ns, to the overlap
    of the wait [recv start, min(send start, recv end)] with rank 1's
    outermost I/O calls (io_issuer 0), recomputed with h5py from the
    rank files' raw times; 0 < io_ns < the wait (the sleep is no I/O);
    io_file is the written file (as the kernel resolved it), io_files 1,
    io_file_ns = io_ns;
  - exchange B (rank 0's MPI_Wait waiting for rank 1, which only slept):
    the row (0, MPI_Wait, late_sender, 1) has io_ns 0, no file;
  - the csv header begins with the columns it had before this feature
    (rank,region,pattern,waited_for,instances,time), the new ones after;
  - the json's rows and totals carry the same numbers; the table has the
    "in I/O" column with the file's last name;
  - the Python module's waits() frame has the same numbers as the csv;
  - the same run with SCOPE_IO=0: no "in I/O" column or line in the
    table; the csv keeps its columns, 0 and empty.
No assertion on how long anything took beyond these relations.
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env  # noqa: E402
import check_waits  # noqa: E402  (its launcher and its scope())
from check_waits import scope  # noqa: E402

N = 2
FAIL = []
OLD_HEADER = ["rank", "region", "pattern", "waited_for", "instances", "time"]
NEW_COLUMNS = ["io_ns", "io_file", "io_files", "io_file_ns"]


def check(cond, what):
    if not cond:
        FAIL.append(what)
        print("FAIL:", what, file=sys.stderr)


def launcher(mpi):
    """check_waits.py's launcher line, with N ranks."""
    line = check_waits.launcher(mpi)
    return line[:-1] + [str(N)]


def names_of(blob):
    return [x.decode("utf-8", "surrogateescape") for x in bytes(blob).split(b"\0")[:-1]]


def oracle(prof):
    """From the rank files with h5py, independently of the reader: the
    late-sender waits of A and B as [start, end] on the aligned timeline
    (stored times are aligned: docs/format.md), and rank 1's outermost
    I/O calls as (start, end, file name)."""
    import h5py
    starts, ends, iocalls = {}, {}, []
    for r in range(N):
        with h5py.File(check_waits.rank_file(prof, r), "r") as f:
            g = f[f"rank{r}/regions"]
            files = []
            if "files" in f[f"rank{r}"]:
                t = f[f"rank{r}/files"]
                given, resolved = names_of(t["names"][:]), names_of(t["resolved"][:])
                files = [res or giv for giv, res in zip(given, resolved)]
            for link in g:
                reg = g[link]
                name = reg.attrs.get("name", link)
                name = name.decode() if isinstance(name, bytes) else str(name)
                s, e = list(reg["start_times"][:]), list(reg["end_times"][:])
                starts[(r, name)], ends[(r, name)] = s, e
                if r == 1 and "io_file" in reg:
                    fl, iss = list(reg["io_file"][:]), list(reg["io_issuer"][:])
                    for k in range(len(s)):
                        if iss[k] == 0:
                            iocalls.append((int(s[k]), int(e[k]),
                                            files[fl[k]] if 0 <= fl[k] < len(files) else None))
    a_start = int(starts[(0, "MPI_Recv")][0])
    a_end = int(min(starts[(1, "MPI_Send")][0], ends[(0, "MPI_Recv")][0]))
    b_start = int(starts[(0, "MPI_Wait")][0])
    b_end = int(min(starts[(1, "MPI_Send")][1], ends[(0, "MPI_Wait")][0]))
    return (a_start, a_end), (b_start, b_end), sorted(iocalls)


def overlap(span, calls):
    """ns of span inside the union of the calls, per file."""
    per, reach = {}, None
    for s, e, name in calls:
        if reach is not None and s < reach:
            s = reach
        if e <= s:
            continue
        reach = e
        ov = min(e, span[1]) - max(s, span[0])
        if ov > 0:
            per[name] = per.get(name, 0) + ov
    return per


def python_rows(a, prof):
    env = dict(os.environ)
    code = ("import sys, json, scope_reader\n"
            "p = scope_reader.read_h5(sys.argv[1])\n"
            "d = p.waits()\n"
            "print(json.dumps([{k: (v.item() if hasattr(v, 'item') else v) for k, v in r.items()}"
            " for r in d.to_dict('records')]))\n"
            "print(json.dumps(p.wait_totals()['io']))\n")
    r = subprocess.run([sys.executable, "-c", code, prof], capture_output=True, text=True,
                       env=env, timeout=120)
    if r.returncode != 0:
        sys.exit(f"python waits() failed: {r.stderr}")
    rows, totals = r.stdout.splitlines()
    return json.loads(rows), json.loads(totals)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpi", required=True)
    ap.add_argument("--scope", required=True)
    ap.add_argument("--preload", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    a.scope, a.preload, a.prog = map(os.path.abspath, (a.scope, a.preload, a.prog))
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out, exist_ok=True)
    cwd = os.path.abspath(a.out)
    env = clean_env(drop=("OMPI_", "PMI_", "PMIX_", "SLURM_"), mpi_root=True)
    prof = os.path.join(cwd, "prof.h5")
    conf = os.path.join(cwd, "scope.conf")
    data = os.path.join(cwd, "data", "written.dat")
    os.makedirs(os.path.dirname(data))
    with open(conf, "w") as f:
        f.write("MPI_*\n")
    penv = dict(env, SCOPE_CONFIG=conf, SCOPE_OUTPUT=prof, LD_PRELOAD=a.preload)
    r = subprocess.run(launcher(a.mpi) + [a.prog, data], env=penv, cwd=cwd, capture_output=True,
                       text=True, timeout=240)
    if r.returncode != 0:
        sys.exit(f"the program exited with {r.returncode}: {r.stdout}{r.stderr}")
    check(os.path.getsize(data) == 64 << 20, f"{data} holds {os.path.getsize(data)} bytes")
    span_a, span_b, calls = oracle(prof)
    real = os.path.realpath(data)
    per_a, per_b = overlap(span_a, calls), overlap(span_b, calls)
    io_a = sum(per_a.values())
    wait_a = span_a[1] - span_a[0]
    print(f"A: wait {wait_a} ns, rank 1 in I/O {io_a} ns of it {per_a}; B: {per_b}")
    check(io_a > 0 and io_a < wait_a, f"designed A: 0 < I/O {io_a} < wait {wait_a} ns")
    check(list(per_a) == [real], f"A's I/O files by the raw times: {list(per_a)}, not {real}")
    check(not per_b, f"B overlaps I/O by the raw times: {per_b}")

    # csv
    text = scope(a, "waits", "--format", "csv", prof)
    rd = list(csv.reader(io.StringIO(text)))
    head = rd[0]
    check(head[:len(OLD_HEADER)] == OLD_HEADER, f"csv header changed: {head}")
    check(head[len(OLD_HEADER):] == NEW_COLUMNS, f"csv new columns: {head[len(OLD_HEADER):]}")
    rows = {(int(x[0]), x[1], x[2], int(x[3])): dict(zip(head, x)) for x in rd[1:]}
    ra = rows.get((0, "MPI_Recv", "late_sender", 1))
    rb = rows.get((0, "MPI_Wait", "late_sender", 1))
    check(ra is not None and rb is not None, f"rows of A and B: {sorted(rows)}")
    if ra is None or rb is None:
        return finish()
    check(int(ra["instances"]) == 1 and round(float(ra["time"]) * 1e9) == wait_a,
          f"A's wait: {ra['instances']} instances, {ra['time']} s; the raw times say {wait_a} ns")
    check(int(ra["io_ns"]) == io_a, f"A's io_ns {ra['io_ns']}; the raw times say {io_a}")
    check(0 < int(ra["io_ns"]) < round(float(ra["time"]) * 1e9),
          f"A's io_ns {ra['io_ns']} not inside (0, wait)")
    check(ra["io_file"] == real, f"A's io_file {ra['io_file']!r}, not {real!r}")
    check(int(ra["io_files"]) == 1 and int(ra["io_file_ns"]) == io_a,
          f"A: io_files {ra['io_files']}, io_file_ns {ra['io_file_ns']} (want 1, {io_a})")
    check(int(rb["io_ns"]) == 0 and rb["io_file"] == "" and int(rb["io_files"]) == 0 and
          int(rb["io_file_ns"]) == 0, f"B has I/O: {rb}")
    # every other row: I/O within its time
    for k, x in rows.items():
        check(0 <= int(x["io_ns"]) <= round(float(x["time"]) * 1e9) + 1,
              f"row {k}: io_ns {x['io_ns']} beyond its time {x['time']}")

    # json: the same numbers, and the totals
    js = json.loads(scope(a, "waits", "--format", "json", prof))
    for w in js["waits"]:
        k = (w["rank"], w["region"], w["pattern"], w["waited_for"])
        c = rows.get(k)
        check(c is not None and w["io_ns"] == int(c["io_ns"]) and
              (w["io_file"] or "") == c["io_file"] and w["io_files"] == int(c["io_files"]) and
              w["io_file_ns"] == int(c["io_file_ns"]), f"json row {w} against csv {c}")
    tot = js["totals"]["io"]
    check(tot["io_ns"] == sum(int(x["io_ns"]) for x in rows.values()) and
          tot["io_file"] == real and tot["io_files"] == 1,
          f"json totals' io: {tot}")

    # table: the column, the file's last name
    tab = scope(a, "waits", "--wide", prof)
    check("in I/O" in tab and os.path.basename(data) in tab,
          f"the table lacks the in I/O column or the file:\n{tab}")

    # Python: the same numbers as the csv
    prows, ptot = python_rows(a, prof)
    check(len(prows) == len(rows), f"Python has {len(prows)} rows, csv {len(rows)}")
    for p in prows:
        k = (p["rank"], p["region"], p["pattern"], p["waited_for"])
        c = rows.get(k)
        check(c is not None and p["io_ns"] == int(c["io_ns"]) and p["io_file"] == c["io_file"] and
              p["io_files"] == int(c["io_files"]) and p["io_file_ns"] == int(c["io_file_ns"]),
              f"Python row {p} against csv {c}")
    check(ptot == {"io_ns": tot["io_ns"], "io_file": tot["io_file"], "io_files": tot["io_files"],
                   "io_file_ns": tot["io_file_ns"]}, f"Python totals' io {ptot}, json {tot}")

    # the same run without I/O recorded (SCOPE_IO=0): no column, no line;
    # csv and json keep their columns, 0 and empty
    off = os.path.join(cwd, "off.h5")
    r = subprocess.run(launcher(a.mpi) + [a.prog, data],
                       env=dict(penv, SCOPE_OUTPUT=off, SCOPE_IO="0"), cwd=cwd,
                       capture_output=True, text=True, timeout=240)
    check(r.returncode == 0, f"the run with SCOPE_IO=0 exited with {r.returncode}: {r.stderr}")
    if r.returncode == 0:
        tab = scope(a, "waits", "--wide", off)
        check("in I/O" not in tab, f"a profile without I/O has an I/O column or line:\n{tab}")
        rd = list(csv.reader(io.StringIO(scope(a, "waits", "--format", "csv", off))))
        check(rd[0] == OLD_HEADER + NEW_COLUMNS and len(rd) > 2 and
              all(x[6:] == ["0", "", "0", "0"] for x in rd[1:]),
              f"csv without I/O: {rd}")
    return finish()


def finish():
    if FAIL:
        print(f"{len(FAIL)} check(s) failed", file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
