"""check_big.py - prog_posix.c on one rank under Open MPI with a BIGDIR:
rank 0 writes 3 GiB in one write(2) call, then the rest of what Linux
did not take (it writes at most 2 GiB - 4 KiB, 0x7ffff000 bytes, per
call). The profile says both calls with their 64-bit bytes and offsets,
and the Darshan-level record their sum, 3 GiB exactly (no 32-bit wrap).

usage: check_big.py SCOPE PRELOAD PROG OUTDIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_common import expect, profile  # noqa: E402

GIB3 = 3 << 30
LINUX_MAX = 0x7ffff000


def main():
    scope, preload, prog, outdir = sys.argv[1:5]
    outdir = os.path.abspath(outdir)
    data = os.path.join(outdir, "data")
    os.makedirs(data, exist_ok=True)
    # no bare run: 3 GiB written once is enough
    res = profile(scope, preload, "openmpi", [os.path.abspath(prog), data, data], outdir, n=1,
                  bare=False)
    big = os.path.join(data, "big.0")
    calls = res.p.io_calls()
    w = calls[(calls["file"] == big) & (calls["name"] == "write")]
    expect(list(zip(w["offset"].astype(int), w["bytes"].astype(int))),
           [(0, LINUX_MAX), (LINUX_MAX, GIB3 - LINUX_MAX)], "big.0's writes (offset, bytes)")
    rec = res.p.io()
    rec = rec[(rec["file"] == big) & (rec["layer"] == "posix")].iloc[0]
    expect((int(rec["writes"]), int(rec["bytes_written"]), int(rec["max_byte_written"])),
           (2, GIB3, GIB3 - 1), "big.0's record (writes, bytes, last byte)")
    if os.path.exists(big):
        expect(os.path.getsize(big), 0, "big.0 removed")
    print("ok: 3 GiB in one write call: 2 calls, 3 GiB, 64-bit offsets")


main()
