"""check_otf2.py - prog_mpiio.c under an MPI, 4 ranks, exported with
`scope export --to otf2`: its I/O calls as OTF2 I/O records, read back
with python3-otf2 and otf2-print. Per location (rank, thread): one
IoOperationBegin and one IoOperationComplete per read, write and sync
that scope recorded on a file (the reader's io_calls()), with its bytes;
an IoCreateHandle per open and an IoDestroyHandle per close. Per rank, the
MPI-IO records are the program's design: 578 bytes (678 with MPICH's
MPI_File_write_at_all_c), 132 of them read, one flush, one handle
created and destroyed, the collective calls flagged collective and the
nonblocking ones nonblocking. The four I/O paradigms, the shared file
and its handles are defined.

usage: check_otf2.py SCOPE PRELOAD MPI PROG OUTDIR
"""
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_common import N, expect, fail, profile, run  # noqa: E402

import otf2  # noqa: E402

MODES = {"io_read": "READ", "io_write": "WRITE", "io_sync": "FLUSH"}


def mode_of(ev):
    """"READ", "WRITE" or "FLUSH" (python3-otf2's enums print as
    IoOperationMode.WRITE)."""
    return str(ev.mode).rsplit(".", 1)[-1]


def main():
    scope_exe, preload, mpi, prog, outdir = sys.argv[1:6]
    outdir = os.path.abspath(outdir)
    data = os.path.join(outdir, "data")
    os.makedirs(data, exist_ok=True)
    res = profile(scope_exe, preload, mpi, [os.path.abspath(prog), data], outdir, bare=False)
    shared = os.path.join(data, "mpiio.dat")
    arch = os.path.join(outdir, "otf2")
    env = {k: v for k, v in res.env.items() if k != "LD_PRELOAD"}
    out = run([res.scope, "export", "--to", "otf2", "-o", arch, res.out], env, outdir)
    if out.returncode != 0 or out.stderr:
        fail(f"scope export --to otf2: {out.returncode} {out.stderr}")

    # what scope recorded: per (rank, thread) and mode, calls and bytes
    calls = res.p.io_calls()
    ok = calls[~calls["failed"] & (calls["file"] != "")]
    want = collections.Counter()
    want_bytes = collections.Counter()
    for (r, t, cls), g in ok.groupby(["rank", "thread", "cls"]):
        if cls in MODES:
            want[(r, t, MODES[cls])] += len(g)
            want_bytes[(r, t, MODES[cls])] += int(g["bytes"].sum())
        elif cls in ("io_open", "io_close"):
            want[(r, t, cls)] += len(g)
    if not any(k[2] == "READ" for k in want) or not any(k[2] == "WRITE" for k in want):
        fail(f"the run recorded no reads or writes on a file: {dict(want)}")

    got = collections.Counter()
    got_bytes = collections.Counter()
    done = collections.Counter()
    done_bytes = collections.Counter()
    mpiio = collections.Counter()
    flags = {}
    with otf2.reader.open(os.path.join(arch, "traces.otf2")) as tr:
        paradigms = sorted(p.identification for p in tr.definitions.io_paradigms)
        expect(paradigms, ["HDF5", "ISOC", "MPI-IO", "POSIX"], "I/O paradigms")
        files = {f.name for f in tr.definitions.io_files}
        if shared not in files:
            fail(f"the shared file is no IoRegularFile: {sorted(files)}")
        hpar = {(h.file.name, h.io_paradigm.identification) for h in tr.definitions.io_handles}
        for par in ("MPI-IO", "POSIX"):
            if (shared, par) not in hpar:
                fail(f"no {par} handle of the shared file: {sorted(hpar)}")
        begun = {}
        for loc, ev in tr.events:
            m = re.fullmatch(r"rank (\d+) thread (\d+)", loc.name)
            r, t = int(m.group(1)), int(m.group(2))
            if isinstance(ev, otf2.events.IoOperationBegin):
                k = (r, t, mode_of(ev))
                got[k] += 1
                got_bytes[k] += ev.bytes_request
                begun[(r, t, ev.matching_id)] = ev
                if ev.handle.io_paradigm.identification == "MPI-IO":
                    mpiio[(r, mode_of(ev))] += ev.bytes_request
                    mpiio[(r, mode_of(ev), "n")] += 1
                    flags.setdefault(r, []).append(ev.operation_flags)
            elif isinstance(ev, otf2.events.IoOperationComplete):
                b = begun.pop((r, t, ev.matching_id), None)
                if b is None or b.handle != ev.handle:
                    fail(f"rank {r} thread {t}: a Complete without its Begin")
                done[(r, t, mode_of(b))] += 1
                done_bytes[(r, t, mode_of(b))] += ev.bytes_result
            elif isinstance(ev, otf2.events.IoCreateHandle):
                got[(r, t, "io_open")] += 1
                if ev.handle.io_paradigm.identification == "MPI-IO":
                    mpiio[(r, "create")] += 1
            elif isinstance(ev, otf2.events.IoDestroyHandle):
                got[(r, t, "io_close")] += 1
                if ev.handle.io_paradigm.identification == "MPI-IO":
                    mpiio[(r, "destroy")] += 1
        if begun:
            fail(f"Begins without a Complete: {list(begun)[:3]}")
    expect(dict(got), dict(want), "I/O records per (rank, thread, mode)")
    expect(dict(got_bytes), dict(want_bytes), "bytes requested per (rank, thread, mode)")
    data_only = {k: v for k, v in want.items() if k[2] in ("READ", "WRITE", "FLUSH")}
    expect(dict(done), data_only, "Completes per (rank, thread, mode)")
    expect(dict(done_bytes), dict(want_bytes), "bytes moved per (rank, thread, mode)")
    # the MPI-IO records as the program made them (check_mpiio.py)
    wr = 446 + (100 if mpi == "mpich" else 0)
    for r in range(N):
        expect((mpiio[(r, "WRITE")], mpiio[(r, "READ")]), (wr, 132),
               f"rank {r}: MPI-IO bytes written and read")
        expect((mpiio[(r, "READ", "n")], mpiio[(r, "FLUSH", "n")]), (2, 1),
               f"rank {r}: MPI-IO reads and flushes")
        expect((mpiio[(r, "create")], mpiio[(r, "destroy")]), (1, 1),
               f"rank {r}: MPI-IO handles created and destroyed")
        # (value, not str: python3-otf2 cannot print an or of two flags)
        vals = [f.value for f in flags[r]]
        coll, nb = otf2.IoOperationFlag.COLLECTIVE.value, otf2.IoOperationFlag.NON_BLOCKING.value
        # collective: write_at_all, iwrite_all, iread_at_all, the split's
        # begin and end, write_all, read_all, sync (MPICH: write_at_all_c too)
        expect(sum(1 for v in vals if v & coll), 8 + (mpi == "mpich"),
               f"rank {r}: MPI-IO operations flagged collective")
        expect(sum(1 for v in vals if v & nb), 2, f"rank {r}: MPI-IO operations flagged "
               "nonblocking (iwrite_all, iread_at_all)")

    # otf2-print lists the same records
    p = subprocess.run(["otf2-print", os.path.join(arch, "traces.otf2")], capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        fail(f"otf2-print: {p.stderr}")
    printed = collections.Counter(line.split()[0] for line in p.stdout.splitlines()
                                  if line.startswith("IO_"))
    nops = sum(v for k, v in want.items() if k[2] in ("READ", "WRITE", "FLUSH"))
    expect((printed["IO_OPERATION_BEGIN"], printed["IO_OPERATION_COMPLETE"]), (nops, nops),
           "otf2-print: IoOperationBegin and Complete")
    expect((printed["IO_CREATE_HANDLE"], printed["IO_DESTROY_HANDLE"]),
           (sum(v for k, v in want.items() if k[2] == "io_open"),
            sum(v for k, v in want.items() if k[2] == "io_close")),
           "otf2-print: IoCreateHandle and IoDestroyHandle")
    print(f"ok: {mpi}: {nops} I/O operations ({sum(want_bytes.values())} bytes) on "
          f"{len({(k[0], k[1]) for k in want})} locations, MPI-IO {wr + 132} bytes per rank")


main()
