"""check_posix.py - prog_posix.c under an MPI, 4 ranks, with the I/O
capture on by default: every call the program made on each of its files,
with its bytes and offsets, derived by hand from prog_posix.c; the calls
glibc's stdio made for it (issuer stdio) by their bytes; the Darshan-level
record of the file with the most calls; the file all ranks share; the
threads' files.

usage: check_posix.py SCOPE PRELOAD MPI PROG OUTDIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_common import N, counts, expect, fail, io_bytes_by_region, profile, run  # noqa: E402

# What each rank's program calls on its own files, by hand from
# prog_posix.c: {file: {call: (calls, bytes)}}; the region of getc is
# fgetc's (one function in glibc 2.36), pwrite's and pwrite64's one, ...
PROGRAM = {
    "a": {"open": (2, 0), "write": (9, 4000 + 10 + 20 + 30 + 200), "pwrite": (1, 500),
          "writev": (1, 300), "pwritev": (1, 100), "lseek": (1, 0), "read": (2, 2000),
          "pread": (1, 500), "readv": (1, 300), "preadv": (1, 100), "fsync": (1, 0),
          "fdatasync": (1, 0), "fstat": (1, 0), "ftruncate": (1, 0), "dup": (1, 0),
          "dup2": (1, 0), "fcntl": (1, 0), "mmap": (1, 8192), "close": (5, 0), "stat": (1, 0),
          "lstat": (1, 0), "fstatat": (1, 0), "statx": (1, 0), "rename": (1, 0)},
    "b": {"unlink": (1, 0)},
    "c": {"creat": (1, 0), "close": (2, 0), "openat": (1, 0)},
    "tmp": {"mkstemp": (1, 0), "write": (1, 7), "close": (1, 0), "unlink": (1, 0)},
    "log": {"fopen": (1, 0), "fprintf": (10, 80), "fputs": (1, 6), "fputc": (1, 1),
            "putc": (1, 1), "fwrite": (1, 50), "vfprintf": (1, 3), "fflush": (1, 0),
            "ftell": (1, 0), "rewind": (1, 0), "fgets": (1, 8), "fgetc": (2, 2), "fread": (1, 20),
            "fseek": (1, 0), "__isoc99_fscanf": (1, 7), "fseeko": (1, 0), "fsetpos": (1, 0),
            "fclose": (1, 0)},
    "fd": {"open": (1, 0), "fdopen": (1, 0), "fprintf": (1, 5), "fclose": (1, 0)},
    "re": {"fopen": (1, 0), "freopen": (1, 0), "fprintf": (1, 5), "fclose": (1, 0)},
    "<STDOUT>": {"printf": (1, 7), "puts": (1, 5), "fflush": (1, 0)},
    "shared.dat": {"open": (1, 0), "pwrite": (1, 1000), "close": (1, 0)},
    "t0": {"open": (1, 0), "write": (50, 500), "close": (1, 0)},
    "t1": {"open": (1, 0), "write": (50, 500), "close": (1, 0)},
}

# The writes and reads of a.R in call order: (call, offset, bytes).
A_WRITES = [("write", 0, 1000), ("write", 1000, 1000), ("write", 2000, 1000), ("write", 3000, 1000),
            ("pwrite", 10000, 500), ("writev", 4000, 300), ("pwritev", 20000, 100),
            ("write", 2300, 10), ("write", 2310, 20), ("write", 2330, 30),     # dup, dup2, F_DUPFD
            ("write", 30000, 100), ("write", 30100, 100)]                    # O_APPEND at the end
A_READS = [("read", 0, 1000), ("read", 1000, 1000), ("pread", 10000, 500), ("readv", 2000, 300),
           ("preadv", 20000, 100)]


def short(name, outdir, r):
    """The program's name of a file ("a", "log", "shared.dat", "<STDOUT>")."""
    if name.startswith(outdir + "/"):
        base = name[len(outdir) + 1:]
        if base == "shared.dat":
            return base
        if base.startswith("tmp."):
            return "tmp"
        stem, _, rank = base.rpartition(".")
        if rank == str(r):
            return stem
    return name


def main():
    scope, preload, mpi, prog, outdir = sys.argv[1:6]
    outdir = os.path.abspath(outdir)
    data = os.path.join(outdir, "data")
    os.makedirs(data, exist_ok=True)
    res = profile(scope, preload, mpi, [os.path.abspath(prog), data, "-"], outdir)
    calls = res.p.io_calls()
    for r in range(N):
        mine = calls[calls["rank"] == r].copy()
        mine["f"] = [short(x, data, r) for x in mine["file"]]
        prog_calls = mine[mine["issuer"] == "program"]
        got = {f: counts(prog_calls, f=f) for f in sorted(set(prog_calls["f"]))}
        for f, want in PROGRAM.items():
            expect(got.get(f), want, f"rank {r}: the program's calls on {f}")
        extra = sorted(set(got) - set(PROGRAM))
        if extra:
            fail(f"rank {r}: calls on files the program never named: {extra}")
        a = prog_calls[(prog_calls["f"] == "a") & prog_calls["cls"].isin(["io_write", "io_read"])]
        for cls, want in (("io_write", A_WRITES), ("io_read", A_READS)):
            rows = a[a["cls"] == cls]
            expect(list(zip(rows["name"], rows["offset"].astype(int), rows["bytes"])), want,
                   f"rank {r}: a's {cls} offsets")
        # the write(2) calls stdio made for the program: the streams' bytes
        # (log's at fflush, fd's and re's at fclose, stdout's per line)
        nested = mine[(mine["issuer"] == "stdio") & (mine["layer"] == "posix")]
        wr = {f: int(g["bytes"].sum()) for f, g in nested[nested["name"] == "write"].groupby("f")}
        expect(wr, {"log": 141, "fd": 5, "re": 5, "<STDOUT>": 12}, f"rank {r}: stdio's writes")
        if set(nested["f"]) - {"log", "fd", "re", "<STDOUT>"}:
            fail(f"rank {r}: stdio issued calls on {set(nested['f'])}")
        # the shared file at the rank's own place; the threads' files on threads of their own
        sh = prog_calls[(prog_calls["f"] == "shared.dat") & (prog_calls["name"] == "pwrite")]
        expect(sh["offset"].astype(int).tolist(), [r * 1000], f"rank {r}: shared.dat's offset")
        lanes = {f: set(prog_calls[prog_calls["f"] == f]["thread"]) for f in ("a", "t0", "t1")}
        if lanes["a"] != {0} or len(lanes["t0"]) != 1 or len(lanes["t1"]) != 1 or \
                lanes["t0"] == lanes["t1"] or 0 in lanes["t0"] | lanes["t1"]:
            fail(f"rank {r}: thread lanes {lanes}")
    # Darshan's counters of a.R and log.R (POSIX and stdio), by hand
    io = res.p.io()
    for r in range(N):
        a = io[(io["file"] == f"{data}/a.{r}") & (io["layer"] == "posix") & (io["rank"] == r)]
        if len(a) != 1:
            fail(f"rank {r}: no posix record of a.{r}")
        a = a.iloc[0]
        want = {"opens": 2, "closes": 5, "reads": 5, "writes": 12, "seeks": 1, "stats": 5,
                "syncs": 2, "mmaps": 1, "dups": 3, "metas": 2, "bytes_read": 2900,
                "bytes_written": 5160, "consec_writes": 6, "seq_writes": 9, "consec_reads": 1,
                "seq_reads": 3, "rw_switches": 2, "unaligned": 15, "max_byte_written": 30199,
                "max_byte_read": 20099, "written_via_program": 5160}
        for k, v in want.items():
            expect(int(a[k]), v, f"rank {r}: a.{r} posix {k}")
        lg = io[(io["file"] == f"{data}/log.{r}") & (io["layer"] == "stdio")].iloc[0]
        want = {"opens": 1, "closes": 1, "writes": 15, "reads": 5, "bytes_written": 141,
                "bytes_read": 37, "seeks": 4, "syncs": 1, "metas": 1, "consec_writes": 14,
                "consec_reads": 3, "rw_switches": 1, "unaligned": 17}
        for k, v in want.items():
            expect(int(lg[k]), v, f"rank {r}: log.{r} stdio {k}")
    sh = io[(io["file"] == f"{data}/shared.dat") & (io["layer"] == "posix")]
    expect(sorted(sh["rank"]), list(range(N)), "shared.dat's ranks")
    expect(set(sh["shared"]), {True}, "shared.dat is shared")
    spreads = res.p.io_report()["spreads"]
    expect(len(spreads[spreads["file"] == f"{data}/shared.dat"]), 1, "shared.dat's spread")
    # scope summary and scope callsites: the bytes of each I/O region
    by = io_bytes_by_region(res)
    expect(by["fprintf"], (0, N * (80 + 5 + 5)), "fprintf's bytes written, all ranks")
    # scope report: its I/O section lists the files with their ranks
    html = os.path.join(outdir, "r.html")
    env = {k: v for k, v in res.env.items() if k != "LD_PRELOAD"}
    rep = run([res.scope, "report", "-o", html, res.out], env, outdir)
    if rep.returncode != 0:
        fail(f"scope report: {rep.stderr}")
    with open(html) as f:
        page = f.read()
    if '<a href="#io">I/O</a>' not in page or '<section id="io">' not in page:
        fail("scope report: no I/O section")
    row = f"<tr><td>{data}/shared.dat</td><td>{N}</td><td>0</td>"
    if row not in page:
        fail(f"scope report: no row {row!r} in the I/O section")
    print(f"ok: {mpi}: every POSIX and stdio call of 4 ranks as designed")


main()
