"""check_numpy.py - prog_numpy.py under Debian's python3, a process the
config names: what numpy.save and numpy.load did to a.npy at each layer.
numpy 1.24 writes the header with Python's own write(2) and the array
with ndarray.tofile, which fdopen()s a dup of the descriptor and fwrite()s
it: so the stdio layer says 8,000,000 bytes written and read at offset
128, the POSIX layer 8,000,128 bytes written, 128 by the program at
offset 0 and 8,000,000 by stdio, ending where the file ends (Darshan,
which sees no stdio call a library makes inside tofile, counts 4,224).

usage: check_numpy.py SCOPE PRELOAD PYTHON PROG OUTDIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_common import expect, profile  # noqa: E402

MB8 = 8 * 1000 * 1000


def main():
    scope, preload, python, prog, outdir = sys.argv[1:6]
    outdir = os.path.abspath(outdir)
    data = os.path.join(outdir, "data")
    os.makedirs(data, exist_ok=True)
    res = profile(scope, preload, "serial", [python, os.path.abspath(prog), data], outdir,
                  config="include = python3*\n")
    npy = os.path.join(data, "a.npy")
    calls = res.p.io_calls()
    c = calls[calls["file"] == npy]
    st = c[c["layer"] == "stdio"]
    expect([(n, int(o), int(b)) for n, o, b in zip(st["name"], st["offset"].fillna(-1), st["bytes"])
            if n in ("fwrite", "fread")],
           [("fwrite", 128, MB8), ("fread", 128, MB8)], "a.npy's stdio transfers (offset, bytes)")
    expect(int((st["name"] == "fdopen").sum()), 2, "a.npy's fdopen calls")
    expect(int((st["name"] == "fclose").sum()), 2, "a.npy's fclose calls")
    px = c[c["layer"] == "posix"]
    w = px[px["cls"] == "io_write"]
    by = {i: int(g["bytes"].sum()) for i, g in w.groupby("issuer")}
    expect(by, {"program": 128, "stdio": MB8}, "a.npy's POSIX bytes written by issuer")
    expect(w[w["issuer"] == "program"][["offset", "bytes"]].astype(int).values.tolist(), [[0, 128]],
           "Python's header write")
    expect(int((w["offset"].astype(int) + w["bytes"]).max()), os.path.getsize(npy), "a.npy's end")
    expect(int((px["name"] == "open").sum()), 2, "a.npy's opens (save, load)")
    nameless = calls[(calls["file"] == "") & (calls["layer"] == "posix")]
    expect(len(nameless[nameless["name"] == "fstat"]), 0, "fstat calls without their file")
    io = res.p.io()
    rec = {lay: io[(io["file"] == npy) & (io["layer"] == lay)].iloc[0] for lay in ("posix", "stdio")}
    expect((int(rec["posix"]["bytes_written"]), int(rec["stdio"]["bytes_written"]),
            int(rec["stdio"]["bytes_read"])), (MB8 + 128, MB8, MB8), "a.npy's records")
    print("ok: numpy.save and numpy.load: each layer's calls and bytes")


main()
