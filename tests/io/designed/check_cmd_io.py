"""check_cmd_io.py - `scope io` on the profile make_io_profiles.py designs:
the csv header the issue fixes and every value of a record, the layer,
rank and file filters, the json's findings and totals, the table's lines,
and bad usage (exit 2) and a bad rank (exit 1).

usage: check_cmd_io.py SCOPE PROFILE_DIR
"""
import csv
import io
import json
import os
import subprocess
import sys

HEADER = "file,layer,rank,opens,reads,writes,bytes_read,bytes_written,read_time,write_time,meta_time"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(scope, *args, status=0):
    r = subprocess.run([scope, "io", *args], capture_output=True, text=True, timeout=60)
    if r.returncode != status:
        fail(f"scope io {' '.join(args)}: exit {r.returncode} (want {status}): {r.stdout}{r.stderr}")
    return r.stdout, r.stderr


def rows(text):
    if not text.startswith(HEADER + ","):
        fail(f"csv header: {text.splitlines()[0][:200]!r}")
    return list(csv.DictReader(io.StringIO(text)))


def main():
    scope, prof = sys.argv[1], os.path.join(sys.argv[2], "designed.h5")
    out, _ = run(scope, "--format", "csv", prof)
    rs = rows(out)
    if len(rs) != 23:
        fail(f"{len(rs)} csv rows, want 23")
    x = [r for r in rs if r["file"] == "/scratch/shared.dat" and r["layer"] == "posix" and r["rank"] == "2"]
    if len(x) != 1:
        fail("no row for shared.dat posix rank 2")
    x = x[0]
    want = {"opens": "1", "reads": "2", "writes": "3", "bytes_read": "1000", "bytes_written": "1050576",
            "read_time": "0.00000006", "write_time": "0.0000005", "meta_time": "0.000000215",
            "closes": "1", "seeks": "1", "stats": "1", "consec_reads": "1", "seq_writes": "2",
            "rw_switches": "2", "unaligned": "3", "max_byte_written": str(3 * 1048576 - 1),
            "access1_size": "500", "access1_count": "2", "written_via_mpiio": "1048576",
            "written_via_program": "2000", "size_written_1M-4M": "1", "first_start": "0.000001",
            "last_close": "0.0000071"}
    for k, v in want.items():
        if x.get(k) != v:
            fail(f"shared.dat posix rank 2 {k}: {x.get(k)!r}, want {v!r}")
    layers = sorted({r["layer"] for r in rs})
    if layers != ["hdf5", "mpiio", "posix", "stdio"]:
        fail(f"layers {layers}")
    out, _ = run(scope, "--format", "csv", "--layer", "stdio", prof)
    if sorted(r["file"] for r in rows(out)) != ["/scratch/out.0", "/scratch/out.1", "/scratch/out.2",
                                               "/scratch/out.3", "<STDOUT>"]:
        fail("--layer stdio")
    out, _ = run(scope, "--format", "csv", "--ranks", "0", "--file", "STD", prof)
    got = sorted((r["file"], r["layer"], r["rank"]) for r in rows(out))
    if got != [("<STDOUT>", "posix", "0"), ("<STDOUT>", "stdio", "0")]:
        fail(f"--ranks 0 --file STD: {got}")
    out, _ = run(scope, "--format", "json", prof)
    j = json.loads(out)
    kinds = [f["kind"] for f in j["findings"]]
    if kinds != ["small_writes", "unaligned", "independent_shared", "past_bound"]:
        fail(f"findings {kinds}")
    if [r["rank"] for r in j["ranks"]] != [0, 1, 2, 3] or j["ranks"][1]["calls"] != 18:
        fail(f"json ranks {j['ranks']}")
    if [h["name"] for h in j["hosts"]] != ["nodeA", "nodeB"] or j["hosts"][0]["files"] != 5:
        fail(f"json hosts {j['hosts']}")
    if len(j["datasets"]) != 2 or j["files"][j["datasets"][0]["file"]]["name"] != "/home/u/res.h5:/grid/t":
        fail("json datasets")
    sp = [s for s in j["spreads"] if s["layer"] == "mpiio"]
    if len(sp) != 1 or sp[0]["slowest_rank"] != 3 or sp[0]["slowest_time"] != 0.000004:
        fail(f"json spreads {sp}")
    if j["files_past_bound"] != 7:
        fail("files_past_bound")
    out, _ = run(scope, prof)
    for line in ("I/O of 4 ranks: 8 files, 65 calls",
                 "- 4 ranks write /scratch/shared.dat with POSIX calls of their own: 7.8 KiB",
                 "- most writes are small: 19 of 23 POSIX writes (83%)",
                 "- accesses unaligned to the block size: 17 of 30 POSIX reads and writes (57%)"):
        if line not in out:
            fail(f"table lacks {line!r}:\n{out}")
    first = [l for l in out.splitlines() if l.startswith("/scratch/shared.dat")]
    if not first or "mpiio>posix" not in first[0] or "3: 875 ns, 1.0 MiB" not in first[0]:
        fail(f"shared file line: {first}")
    run(scope, "--layer", "nfs", prof, status=2)
    run(scope, "--file", "(", prof, status=2)
    run(scope, "--format", "xml", prof, status=2)
    run(scope, status=2)
    _, err = run(scope, "--ranks", "9", prof, status=1)
    if "no rank 9" not in err:
        fail(f"--ranks 9: {err!r}")
    print("ok: scope io csv, json, table, filters and errors")


main()
