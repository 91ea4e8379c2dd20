"""check_hdf5.py - prog_hdf5.c under the preload: serial (h5cc, the sec2
driver; a process the config names) or 4 ranks under Open MPI (h5pcc,
MPI-IO, collective transfers). The HDF5 calls each rank made on each
dataset, with the selection's bytes, by hand from prog_hdf5.c; the
MPI-IO and POSIX calls HDF5 made for them, all issued by hdf5 and all on
the file (none without one); the datasets' rows in the file table; the
bytes the lower layers wrote cover the file exactly.

usage: check_hdf5.py SCOPE PRELOAD serial|openmpi PROG OUTDIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_common import N, counts, expect, fail, profile  # noqa: E402

# prog_hdf5.c's calls per rank: {dataset or "": {call: (calls, bytes)}}
HDF5 = {
    "": {"H5Fcreate": (1, 0), "H5Fflush": (1, 0), "H5Fclose": (2, 0), "H5Fopen": (1, 0)},
    "/data": {"H5Dcreate2": (1, 0), "H5Dwrite": (1, 8000), "H5Dclose": (2, 0),
              "H5Dopen2": (1, 0), "H5Dread": (1, 8000)},
    "/ints": {"H5Dcreate2": (1, 0), "H5Dwrite": (2, 2000), "H5Dclose": (1, 0)},
}


def main():
    scope, preload, mpi, prog, outdir = sys.argv[1:6]
    outdir = os.path.abspath(outdir)
    data = os.path.join(outdir, "data")
    os.makedirs(data, exist_ok=True)
    parallel = mpi != "serial"
    h5 = os.path.join(data, "shared.h5" if parallel else "serial.h5")
    res = profile(scope, preload, mpi, [os.path.abspath(prog), data], outdir,
                  config=None if parallel else "include = prog_hdf5*\n")
    n = N if parallel else 1
    calls = res.p.io_calls()
    expect(sorted(set(calls["rank"])), list(range(n)), "ranks")
    for r in range(n):
        mine = calls[calls["rank"] == r]
        hd = mine[mine["layer"] == "hdf5"]
        for ds, want in HDF5.items():
            expect(counts(hd, file=h5 + (":" + ds if ds else "")), want, f"rank {r}: HDF5 calls on {h5}{ds}")
        expect(set(hd["issuer"]), {"program"}, f"rank {r}: the HDF5 calls' issuer")
        lower = mine[mine["layer"].isin(["mpiio", "posix"])]
        # HDF5's own calls: on the file or its lock test file, never without one
        on = lower[lower["file"].str.startswith(h5)]
        nameless = lower[lower["file"] == ""]
        if len(nameless[nameless["issuer"] == "hdf5"]):
            fail(f"rank {r}: calls HDF5 made without their file:\n{nameless.to_string()}")
        expect(set(on["issuer"]), {"hdf5"}, f"rank {r}: who issued the calls on {h5}")
        if parallel:
            mp = on[on["layer"] == "mpiio"]
            expect(counts(mp[mp["name"].isin(["MPI_File_open", "MPI_File_close"])]),
                   {"MPI_File_open": (2, 0), "MPI_File_close": (2, 0)}, f"rank {r}: MPI-IO opens")
            coll = mp[mp["name"].str.endswith("_all")]
            expect(counts(coll), {"MPI_File_write_at_all": (3, 10000), "MPI_File_read_at_all": (1, 8000)},
                   f"rank {r}: the collective transfers H5Dwrite and H5Dread made")
            # each inside its own H5Dwrite or H5Dread, with its bytes
            outer = hd[hd["name"].isin(["H5Dwrite", "H5Dread"])]
            inner = [(int(((outer["start"] <= s) & (e <= outer["end"])).to_numpy().argmax()), b)
                     for s, e, b in zip(coll["start"], coll["end"], coll["bytes"])
                     if ((outer["start"] <= s) & (e <= outer["end"])).any()]
            expect(inner, list(zip(range(len(outer)), outer["bytes"])),
                   f"rank {r}: the collective transfer inside each H5Dwrite and H5Dread")
    # the files: the datasets are rows of their file's
    files = res.p.io_files(0)
    row = files.index[files["name"] == h5].tolist()
    expect(len(row), 1, f"rank 0: rows of {h5}")
    ds = files[files["kind"] == 2]
    expect(sorted(zip(ds["name"], ds["parent"])), [("/data", row[0]), ("/ints", row[0])],
           "the datasets' rows and their file")
    expect(int(files.loc[row[0], "layer"]), 5, f"{h5} first met by HDF5")
    # the POSIX writes of every rank end where the file ends, and the raw
    # data read back is read where it was written
    px = calls[(calls["layer"] == "posix") & (calls["file"] == h5)]
    w = px[px["cls"] == "io_write"]
    expect(int((w["offset"].astype(int) + w["bytes"]).max()), os.path.getsize(h5),
           f"the end of the POSIX writes to {h5}")
    rd = px[px["cls"] == "io_read"]
    raw = 8000 * n      # /data: every rank's 1000 doubles, one piece (the aggregator's, serial's)
    big_w = w[w["bytes"] >= raw]
    big_r = rd[rd["bytes"] >= raw]
    expect((len(big_w), len(big_r)), (1, 1), f"pieces of /data's {raw} bytes written and read")
    expect(int(big_r["offset"].iloc[0]), int(big_w["offset"].iloc[0]), "/data read where written")
    io = res.p.io()
    rec = io[(io["file"] == h5) & (io["layer"] == ("mpiio" if parallel else "posix"))]
    expect(len(rec), n, f"{h5}'s records")
    expect(set(rec["shared"]), {parallel}, f"{h5} shared")
    print(f"ok: {mpi}: HDF5's calls per dataset, and what HDF5 made of them below")


main()
