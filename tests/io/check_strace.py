"""check_strace.py - the syscall oracle (issue 46): prog_posix.c under
Open MPI, 4 ranks, run under the preload and under `strace -f -y` at
once; for every file of the program, the read and write system calls
strace saw (read, pread64, readv, preadv, preadv2; write, pwrite64,
writev, pwritev, pwritev2), their number and the bytes they returned,
must be scope's POSIX counts and bytes for that file: whoever issued
them (the program, or stdio for it).

usage: check_strace.py SCOPE PRELOAD PROG OUTDIR
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_common import clean_env, expect, fail, launcher, run, LAUNCHER_VARS  # noqa: E402

READS = {"read", "pread64", "readv", "preadv", "preadv2"}
WRITES = {"write", "pwrite64", "writev", "pwritev", "pwritev2"}
LINE = re.compile(r"^(\w+)\(\d+<([^>]*)>.*\)\s+=\s+(-?\d+)")


def main():
    scope, preload, prog, outdir = sys.argv[1:5]
    outdir = os.path.abspath(outdir)
    data = os.path.join(outdir, "data")
    os.makedirs(data, exist_ok=True)
    out = os.path.join(outdir, "p.h5")
    env = clean_env(drop=LAUNCHER_VARS, mpi_root=True, SCOPE_OUTPUT=out,
                    LD_PRELOAD=os.path.abspath(preload))
    trace = os.path.join(outdir, "trace")
    cmd = (["strace", "-f", "-ff", "-y", "-qq", "-e", "trace=" + ",".join(sorted(READS | WRITES)),
            "-o", trace] + launcher("openmpi") + [os.path.abspath(prog), data, "-"])
    r = run(cmd, env, outdir)
    if r.returncode != 0:
        fail(f"strace run: exit {r.returncode}: {r.stderr}")
    seen = {}   # path -> [reads, read bytes, writes, written bytes]
    for name in glob.glob(trace + ".*"):
        with open(name, errors="replace") as f:
            for line in f:
                m = LINE.match(line)
                if not m or not m.group(2).startswith(data + "/"):
                    continue
                call, path, ret = m.group(1), m.group(2), int(m.group(3))
                s = seen.setdefault(path, [0, 0, 0, 0])
                if call in READS:
                    s[0] += 1
                    s[1] += max(ret, 0)
                elif call in WRITES:
                    s[2] += 1
                    s[3] += max(ret, 0)
    if not seen:
        fail("strace saw no system call on the program's files")
    import scope_reader
    p = scope_reader.read_h5(out)
    io = p.io(layer="posix")
    got = {}
    for path, g in io.groupby("file"):
        if path.startswith(data + "/"):
            got[path] = [int(g["reads"].sum()), int(g["bytes_read"].sum()),
                         int(g["writes"].sum()), int(g["bytes_written"].sum())]
    # files strace saw no read or write of (opened, stat'ed) have zeros here
    got = {k: v for k, v in got.items() if any(v)}
    # a file the program renamed or removed: strace names it as it was then
    for path in sorted(set(seen) | set(got)):
        expect(got.get(path), seen.get(path),
               f"{os.path.basename(path)}: scope's POSIX [reads, bytes read, writes, bytes "
               f"written] against strace's system calls")
    print(f"ok: {len(seen)} files, scope's POSIX reads and writes are strace's system calls")


main()
