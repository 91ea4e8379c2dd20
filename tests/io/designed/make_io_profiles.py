#!/usr/bin/python3
"""make_io_profiles.py OUTDIR STAMP - a profile whose I/O calls are designed
by hand, written with h5py (not with scope's writer) in the layout of
docs/format.md "What I/O calls did", for test_io_report.c: the analysis at
Darshan's level checked to the byte and the nanosecond without a run, so
that it also runs under the sanitizers and valgrind.

designed.h5: 4 ranks, 0 and 1 on host nodeA, 2 and 3 on nodeB; the run
starts at B = 1,000,000 ns; times below are offsets from B. Files (each
rank's table lists them in its own order):

  S  /scratch/shared.dat  lustre on /scratch, block 1 MiB, every rank
  O  /scratch/out.<r>     lustre on /scratch, block 1 MiB, rank r only
  T  <STDOUT>             rank 0; E <STDERR> rank 3
  R  /home/u/res.h5       ext4 on /home, block 4096, ranks 0 and 1, with
  D  its dataset /grid/t

Every rank r (issuer 0 = the program unless said):
  S posix   open64 [1000,1100]; pwrite64 [2000,2100+100r] 1000 B at 1000r;
            pwrite64 [3000,3100] 1000 B at 4000+1000r; pread64 [4000,4050]
            500 B at 0; read [5000,5010] 500 B at 500; lseek64 [6000,6005];
            fstat [6100,6110]; close [7000,7100]
  O posix+stdio  fopen64 [8000,8200] > open64 [8050,8150] (issuer stdio);
            fwrite [9000,9300] 4096 B at 0 > write [9100,9200] 4096 B at 0
            (stdio); fwrite [9400,9450] 10 B at 4096; fclose [10000,10500]
            > write [10100,10200] 10 B at 4096 (stdio)
  S mpiio   MPI_File_write_at_all [18000,19000+1000r] 1 MiB at r (etypes)
            > pwrite64 [18100,18200] 1 MiB at r MiB (issuer mpiio)
rank 0:   T printf [11000,11100] 12 B > write [11020,11080] 12 B (stdio)
ranks 0, 1: R hdf5  H5Fcreate [12000,13000] > open64 [12100,12200]
            (issuer hdf5); H5Dcreate2 [13100,13200] D; H5Dwrite
            [14000,15000+500r] D 8000 B > pwrite64 [14100,14900] R 8000 B
            at 2048 (hdf5); H5Dclose [15600,15650] D; H5Fclose
            [16000,16500] > close [16100,16400] (hdf5)
rank 2:   open64 [17000,17010] failed, on no file
rank 3:   write [17000,17020] failed on E, 0 B

rank 3's file table also has a row past the recorder's bound (kind 3)
that no call names, and the attribute io_files_past_bound = 7.

The expected counters are derived by hand in test_io_report.c.
"""
import os
import sys

import h5py
import numpy as np

B = 1_000_000
MiB = 1 << 20
POSIX, STDIO, MPIIO, HDF5 = 2, 3, 4, 5


def rank_calls(r):
    """(region, start, end, file key, bytes, offset, issuer, failed)."""
    c = [
        ("open64", 1000, 1100, "S", 0, -1, 0, 0),
        ("pwrite64", 2000, 2100 + 100 * r, "S", 1000, 1000 * r, 0, 0),
        ("pwrite64", 3000, 3100, "S", 1000, 4000 + 1000 * r, 0, 0),
        ("pread64", 4000, 4050, "S", 500, 0, 0, 0),
        ("read", 5000, 5010, "S", 500, 500, 0, 0),
        ("lseek64", 6000, 6005, "S", 0, 0, 0, 0),
        ("fstat", 6100, 6110, "S", 0, -1, 0, 0),
        ("close", 7000, 7100, "S", 0, -1, 0, 0),
        ("fopen64", 8000, 8200, "O", 0, -1, 0, 0),
        ("open64", 8050, 8150, "O", 0, -1, STDIO, 0),
        ("fwrite", 9000, 9300, "O", 4096, 0, 0, 0),
        ("write", 9100, 9200, "O", 4096, 0, STDIO, 0),
        ("fwrite", 9400, 9450, "O", 10, 4096, 0, 0),
        ("fclose", 10000, 10500, "O", 0, -1, 0, 0),
        ("write", 10100, 10200, "O", 10, 4096, STDIO, 0),
        ("MPI_File_write_at_all", 18000, 19000 + 1000 * r, "S", MiB, r, 0, 0),
        ("pwrite64", 18100, 18200, "S", MiB, r * MiB, MPIIO, 0),
    ]
    if r == 0:
        c += [("printf", 11000, 11100, "T", 12, -1, 0, 0),
              ("write", 11020, 11080, "T", 12, -1, STDIO, 0)]
    if r in (0, 1):
        c += [("H5Fcreate", 12000, 13000, "R", 0, -1, 0, 0),
              ("open64", 12100, 12200, "R", 0, -1, HDF5, 0),
              ("H5Dcreate2", 13100, 13200, "D", 0, -1, 0, 0),
              ("H5Dwrite", 14000, 15000 + 500 * r, "D", 8000, -1, 0, 0),
              ("pwrite64", 14100, 14900, "R", 8000, 2048, HDF5, 0),
              ("H5Dclose", 15600, 15650, "D", 0, -1, 0, 0),
              ("H5Fclose", 16000, 16500, "R", 0, -1, 0, 0),
              ("close", 16100, 16400, "R", 0, -1, HDF5, 0)]
    if r == 2:
        c += [("open64", 17000, 17010, None, 0, -1, 0, 1)]
    if r == 3:
        c += [("write", 17000, 17020, "E", 0, -1, 0, 1)]
    return c


def rank_files(r):
    """The rank's table: keys in its own row order, and the rows."""
    keys = ["O", "S"] if r % 2 else ["S", "O"]
    if r == 0:
        keys += ["T"]
    if r in (0, 1):
        keys += ["R", "D"]
    if r == 3:
        keys += ["E", "X"]
    rows = []
    for k in keys:
        if k == "S":
            rows.append((0, -1, POSIX, 42, 7, MiB, b"shared.dat", b"/scratch/shared.dat", b"lustre", b"/scratch"))
        elif k == "O":
            rows.append((0, -1, STDIO, 42, 100 + r, MiB, b"out.%d" % r, b"/scratch/out.%d" % r, b"lustre", b"/scratch"))
        elif k == "T":
            rows.append((1, -1, STDIO, 0, 0, 0, b"<STDOUT>", b"", b"", b""))
        elif k == "E":
            rows.append((1, -1, POSIX, 0, 0, 0, b"<STDERR>", b"", b"", b""))
        elif k == "R":
            rows.append((0, -1, HDF5, 2049, 55, 4096, b"res.h5", b"/home/u/res.h5", b"ext4", b"/home"))
        elif k == "D":
            rows.append((2, keys.index("R"), HDF5, 0, 0, 0, b"/grid/t", b"", b"", b""))
        elif k == "X":
            rows.append((3, -1, POSIX, 0, 0, 0, b"<other files>", b"", b"", b""))
    return keys, rows


def blob(strings):
    return np.frombuffer(b"".join(s + b"\0" for s in strings), dtype=np.uint8)


def write_rank(f, r):
    g = f.create_group(f"rank{r}")
    g.attrs["rank"] = np.int64(r)
    g.attrs["hostname"] = "nodeA" if r < 2 else "nodeB"
    g.attrs["start_time_ns"] = np.int64(B)
    g.attrs["io_data"] = np.int64(1)
    if r == 3:
        g.attrs["io_files_past_bound"] = np.int64(7)
    keys, rows = rank_files(r)
    fs = g.create_group("files")
    cols = list(zip(*rows))
    for name, i, dt in (("kind", 0, np.int8), ("parent", 1, np.int32), ("layer", 2, np.int8),
                        ("dev", 3, np.int64), ("ino", 4, np.int64), ("block_size", 5, np.int64)):
        fs.create_dataset(name, data=np.array(cols[i], dtype=dt))
    for name, i in (("names", 6), ("resolved", 7), ("fs_types", 8), ("mounts", 9)):
        fs.create_dataset(name, data=blob(cols[i]))
    regions = {}
    for c in rank_calls(r):
        regions.setdefault(c[0], []).append(c)
    rg = g.create_group("regions")
    for name, calls in regions.items():
        calls.sort(key=lambda c: c[1])
        x = rg.create_group(name)
        x.attrs["name"] = name
        x.attrs["kind"] = "io"
        x.create_dataset("start_times", data=np.array([B + c[1] for c in calls], dtype=np.int64))
        x.create_dataset("end_times", data=np.array([B + c[2] for c in calls], dtype=np.int64))
        x.create_dataset("io_file", data=np.array([keys.index(c[3]) if c[3] else -1 for c in calls], dtype=np.int32))
        x.create_dataset("io_bytes", data=np.array([c[4] for c in calls], dtype=np.int64))
        x.create_dataset("io_offset", data=np.array([c[5] for c in calls], dtype=np.int64))
        x.create_dataset("io_issuer", data=np.array([c[6] for c in calls], dtype=np.int8))
        x.create_dataset("io_failed", data=np.array([c[7] for c in calls], dtype=np.int8))


def main():
    out, stamp = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with h5py.File(os.path.join(out, "designed.h5"), "w") as f:
        f.attrs["scope_format"] = np.int64(1)
        f.attrs["scope_profiler_schema"] = np.int64(1)
        m = f.create_group("metadata")
        m.attrs["start_time_ns"] = np.int64(B)
        m.attrs["mpi_size"] = np.int64(4)
        for r in range(4):
            write_rank(f, r)
    open(stamp, "w").close()


main()
