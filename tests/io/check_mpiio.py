"""check_mpiio.py - prog_mpiio.c or prog_mpiio.f90 under an MPI, 4 ranks:
each rank's MPI-IO calls with their bytes and explicit offsets (by hand
from the program), every POSIX call on the shared file issued by MPI-IO
and made inside one of the rank's MPI-IO calls, and none of the MPI
library's own MPI calls timed.

usage: check_mpiio.py SCOPE PRELOAD MPI LANG PROG OUTDIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_common import N, counts, expect, fail, profile  # noqa: E402


def expected(lang, mpi):
    """({call: (calls, bytes)}, {call: [offsets]} as functions of the rank)."""
    if lang == "f":
        calls = {"MPI_File_open": (1, 0), "MPI_File_write_at_all": (1, 100),
                 "MPI_File_sync": (2, 0), "MPI_File_read_at": (1, 60),
                 "MPI_File_iwrite_at": (1, 10), "MPI_File_close": (1, 0)}
        offs = {"MPI_File_write_at_all": lambda r: [r * 100], "MPI_File_read_at": lambda r: [r * 100],
                "MPI_File_iwrite_at": lambda r: [1000 + r * 10]}
        return calls, offs
    calls = {"MPI_File_open": (1, 0), "MPI_File_write_at": (1, 100),
             "MPI_File_write_at_all": (1, 200), "MPI_File_write_shared": (1, 10),
             "MPI_File_seek": (2, 0), "MPI_File_iwrite_all": (1, 40),
             "MPI_File_iread_at_all": (1, 100), "MPI_File_write_at_all_begin": (1, 64),
             "MPI_File_write_at_all_end": (1, 0), "MPI_File_set_view": (1, 0),
             "MPI_File_write_all": (1, 32), "MPI_File_read_all": (1, 32), "MPI_File_sync": (1, 0),
             "MPI_File_close": (1, 0)}
    offs = {"MPI_File_write_at": lambda r: [r * 100], "MPI_File_write_at_all": lambda r: [400 + r * 200],
            "MPI_File_iread_at_all": lambda r: [r * 100],
            "MPI_File_write_at_all_begin": lambda r: [3000 + r * 64]}
    if mpi == "mpich":     # MPI 4's large-count form (Open MPI 4.1 has none)
        calls["MPI_File_write_at_all_c"] = (1, 100)
        offs["MPI_File_write_at_all_c"] = lambda r: [3500 + r * 100]
    return calls, offs


def main():
    scope, preload, mpi, lang, prog, outdir = sys.argv[1:7]
    outdir = os.path.abspath(outdir)
    data = os.path.join(outdir, "data")
    os.makedirs(data, exist_ok=True)
    res = profile(scope, preload, mpi, [os.path.abspath(prog), data], outdir)
    shared = os.path.join(data, "mpiio.dat" if lang == "c" else "mpiio_f.dat")
    calls = res.p.io_calls()
    want, offs = expected(lang, mpi)
    for r in range(N):
        mine = calls[calls["rank"] == r]
        mpiio = mine[mine["layer"] == "mpiio"]
        expect(set(mpiio["issuer"]), {"program"}, f"rank {r}: MPI-IO calls' issuer")
        expect(set(mpiio["file"]), {shared}, f"rank {r}: MPI-IO calls' file")
        expect(counts(mpiio), want, f"rank {r}: MPI-IO calls")
        for name, f in offs.items():
            got = mpiio[mpiio["name"] == name]["offset"].astype(int).tolist()
            expect(got, f(r), f"rank {r}: {name}'s offset (etypes)")
        # what MPI-IO did to the file, inside the MPI-IO call that did it
        posix = mine[(mine["layer"] == "posix") & (mine["file"] == shared)]
        if posix.empty and r == 0:
            fail("rank 0: no POSIX call on the shared file")
        expect(set(posix["issuer"]) - {"mpiio"}, set(), f"rank {r}: POSIX calls' issuer")
        # inside an MPI-IO call (on any thread: Open MPI's own thread
        # writes for the split collective's end), or, outside all of them,
        # after a nonblocking one was posted: completed inside MPI_Wait
        # (MPICH) or on Open MPI's thread
        spans = sorted(zip(mpiio["start"], mpiio["end"], mpiio["name"]))
        for s, e in zip(posix["start"], posix["end"]):
            if any(a <= s and e <= b for a, b, _ in spans):
                continue
            before = [n for a, _, n in spans if a <= s]
            if not before or not before[-1].startswith("MPI_File_i"):
                fail(f"rank {r}: a POSIX call on the shared file at {s} s outside every MPI-IO "
                     f"call, after {before[-1] if before else 'none'}")
    # written by MPI-IO, written to the file: the POSIX bytes at least
    # those (aggregators write for others; data sieving may write holes too)
    mw = int(calls[(calls["layer"] == "mpiio") & (calls["cls"] == "io_write")]["bytes"].sum())
    pw = int(calls[(calls["layer"] == "posix") & (calls["file"] == shared) &
                   (calls["cls"] == "io_write")]["bytes"].sum())
    if pw < mw:
        fail(f"POSIX wrote {pw} bytes to the shared file, MPI-IO {mw}")
    # the MPI library's own MPI calls (ROMIO's, OMPIO's) are not timed
    names = {n for n in res.p.region_names if n.startswith("MPI_") and not n.startswith("MPI_File")}
    allowed = {"MPI_Init", "MPI_Init..MPI_Finalize", "MPI_Comm_rank", "MPI_Wait", "MPI_Barrier",
               "MPI_Type_vector", "MPI_Type_commit", "MPI_Type_free", "MPI_Finalize"}
    if names - allowed:
        fail(f"MPI calls timed the program never made: {sorted(names - allowed)}")
    io = res.p.io(layer="mpiio")
    expect(sorted(io["rank"]), list(range(N)), "the shared file's MPI-IO records")
    expect(set(io["shared"]), {True}, "shared")
    print(f"ok: {mpi} {lang}: MPI-IO calls, their bytes and offsets, POSIX underneath")


if __name__ == "__main__":
    main()
