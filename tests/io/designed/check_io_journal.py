"""check_io_journal.py - the rank file io_journal.c wrote: every I/O
column of every call and every row of /rank0/files exactly as designed
(docs/format.md, "What I/O calls did").

usage: check_io_journal.py IO_JOURNAL OUTDIR
"""
import os
import subprocess
import sys

import h5py
import numpy as np


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def eq(got, want, what):
    got = list(np.asarray(got).tolist()) if not isinstance(got, (int, str, bytes)) else got
    if got != want:
        fail(f"{what}: got {got!r}, want {want!r}")


def blob(ds):
    """A uint8 dataset of NUL-terminated strings, as bytes."""
    return bytes(ds[()]).split(b"\0")[:-1]


def main():
    prog, out = sys.argv[1], sys.argv[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOPE_") or k == "SCOPE_H5WRITER"}
    env.pop("LD_PRELOAD", None)
    r = subprocess.run([prog, out], env=env, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        fail(f"io_journal exited {r.returncode}: {r.stdout}{r.stderr}")
    if "scope:" in r.stderr:
        fail(f"io_journal said: {r.stderr}")
    path = os.path.join(out, "io.ranks", "rank0.h5")
    with h5py.File(path, "r") as f:
        g = f["rank0"]
        eq(int(g.attrs["io_data"]), 1, "io_data")
        eq("mpi_data" in g.attrs, False, "mpi_data")
        reg = g["regions"]
        for name in ("write", "fwrite", "pwrite64", "MPI_File_write_at_all"):
            eq(reg[name].attrs["kind"], "io", f"{name} kind")
            eq(reg[name].attrs["operation"], name, f"{name} operation")
        w = reg["write"]
        eq(w["start_times"], [1000, 2100, 3200, 6000, 7000], "write starts")
        eq(w["io_file"], [0, 0, 1, -1, -1], "write io_file")
        eq(w["io_bytes"], [100, 4096, 0, 0, 1], "write io_bytes")
        eq(w["io_offset"], [0, 100, -1, -1, 0], "write io_offset")
        eq(w["io_issuer"], [0, 3, 0, 0, 0], "write io_issuer")  # 3: stdio
        eq(w["io_failed"], [0, 0, 1, 0, 0], "write io_failed")
        for col, typ in (("io_file", "<i4"), ("io_bytes", "<i8"), ("io_offset", "<i8"),
                         ("io_issuer", "|i1"), ("io_failed", "|i1")):
            eq(w[col].dtype.str, typ, f"{col} type")
        fwr = reg["fwrite"]
        eq(fwr["io_file"], [0], "fwrite file")
        eq(fwr["io_bytes"], [4096], "fwrite bytes")
        eq(fwr["io_offset"], [-1], "fwrite offset")
        p = reg["pwrite64"]
        eq(p["io_bytes"], [5 << 30], "pwrite64 bytes (long form)")
        eq(p["io_offset"], [5 << 40], "pwrite64 offset (long form)")
        m = reg["MPI_File_write_at_all"]
        eq(m["io_file"], [2], "mpiio file")
        eq(m["io_bytes"], [1 << 20], "mpiio bytes")
        eq(m["io_offset"], [64], "mpiio offset")
        eq(m["io_issuer"], [5], "mpiio issuer (hdf5)")
        fs = g["files"]
        eq(fs["kind"], [0, 1, 0, 2], "files kind")
        eq(fs["parent"], [-1, -1, -1, 2], "files parent")
        eq(fs["layer"], [2, 3, 4, 5], "files layer")
        eq(fs["dev"], [42, 0, 43, 0], "files dev")
        eq(fs["ino"], [7, 0, 9, 0], "files ino")
        eq(fs["block_size"], [4096, 0, 1 << 20, 0], "files block_size")
        weird = b"a\n\x01\xff dir/\xc3(.h5"
        eq(blob(fs["names"]), [b"out.dat", b"<STDOUT>", weird, b"/grid/temperature"], "names")
        eq(blob(fs["resolved"]), [b"/scratch/run/out.dat", b"", b"/scratch/run/" + weird, b""],
           "resolved")
        eq(blob(fs["fs_types"]), [b"lustre", b"", b"lustre", b""], "fs_types")
        eq(blob(fs["mounts"]), [b"/scratch", b"", b"/scratch", b""], "mounts")
    print("ok: every I/O column and file row as designed")


main()
