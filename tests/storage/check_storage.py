"""check_storage.py - the application never dies of the profiler's storage
(issue 16): a 4-rank Open MPI program profiled into small tmpfs file
systems that fill up at a chosen phase, are read-only, or vanish.

For every case, compared with a bare run of the same program:
  - mpirun's exit status and the program's stdout are unchanged, and no
    process (application, scope-h5write, scope) dies of a signal;
  - stderr names the storage fault with its reason exactly once for the
    whole job (not once per rank);
  - no temporary file (*.tmp.*) remains, no partial file has a final name;
  - what could be kept is kept (journals, or complete rank files), and
    after the file system is enlarged (mount -o remount,size=...) `scope
    recover` writes every rank file and the index, with exact call counts.

Mounting needs root (CI runs as root). A machine where mounting is not
permitted fails this test with a message: it does not skip silently.

usage: check_storage.py CASE --scope SCOPE --preload SO --prog PROG
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

import h5py

ap = argparse.ArgumentParser()
ap.add_argument("case")
ap.add_argument("--scope", required=True)
ap.add_argument("--preload", required=True)
ap.add_argument("--prog", required=True)
a = ap.parse_args()
NP = 4
NOSPC = os.strerror(28)  # "No space left on device"
EROFS = os.strerror(30)  # "Read-only file system"

env0 = {k: v for k, v in os.environ.items() if not k.startswith("SCOPE") and k != "LD_PRELOAD"}
env0.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def fail(msg):
    sys.exit(f"FAIL ({a.case}): {msg}")


def sh(*cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)}: {r.stderr.strip()} (mounting a tmpfs needs root; this test "
             "cannot run here)")


def mpirun(n, extra=()):
    return ["mpirun", "--oversubscribe", "-n", str(NP), os.path.abspath(a.prog), str(n),
            *extra]


def start(cmd, out, cwd, **kw):
    env = dict(env0)
    if out:
        env.update(LD_PRELOAD=os.path.abspath(a.preload), SCOPE_OUTPUT=out)
    env.update(kw)
    return subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(p):
    out, err = p.communicate(timeout=300)
    return p.returncode, sorted(out.splitlines()), err


def wait_line(p, want):
    """Reads stdout until the line `want`; returns the lines read."""
    lines = []
    while True:
        line = p.stdout.readline()
        if not line:
            fail(f"the program ended before printing {want!r}: {p.stderr.read()}")
        lines.append(line.rstrip("\n"))
        if lines[-1] == want:
            return lines


def wait_files(paths, timeout=120):
    end = time.time() + timeout
    while not all(os.path.exists(p) for p in paths):
        if time.time() > end:
            fail(f"waited in vain for {paths}")
        time.sleep(0.05)


def fill(mnt, leave=0):
    """Fills the file system, leaving `leave` bytes free; returns the file."""
    st = os.statvfs(mnt)
    avail = st.f_bavail * st.f_frsize
    path = os.path.join(mnt, "filler")
    with open(path, "wb") as f:
        if avail > leave:
            os.posix_fallocate(f.fileno(), 0, avail - leave)
    return path


def check_run(res, bare, reason, where):
    """Status and stdout as the bare run's, no signal, the reason once."""
    rc, out, err = res
    if (rc, [l for l in out if l != "paused"]) != (bare[0], [l for l in bare[1] if l != "paused"]):
        fail(f"bare run ended {bare[0]} {bare[1]}, profiled run {rc} {out}\n{err}")
    if "signal" in err.lower():
        fail(f"something died of a signal:\n{err}")
    said = [l for l in err.splitlines() if l.startswith("scope:")]
    if len(said) != 1 or reason not in said[0] or where not in said[0]:
        fail(f"expected one scope message with {reason!r} and {where!r}, got:\n{err}\n"
             f"{[(d, fs) for d, _, fs in os.walk(where)]}")
    return said[0]


def no_temporaries(root):
    left = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if ".tmp." in f]
    if left:
        fail(f"temporary files left: {left}")


def rank_files(ranks):
    return sorted(glob.glob(os.path.join(ranks, "rank*.h5")))


def journals(ranks):
    return sorted(glob.glob(os.path.join(ranks, "journal.*")))


def calls(path):
    """(MPI_Comm_rank calls, dropped_events) of a rank file."""
    with h5py.File(path, "r") as f:
        (g,) = [k for k in f if k.startswith("rank")]
        regions = f[g]["regions"]
        n = len(regions["MPI_Comm_rank"]["start_times"]) if "MPI_Comm_rank" in regions else 0
        return n, int(f[g].attrs["dropped_events"])


def recover(out, n, exact=True):
    """scope recover, then every rank file and the index are there, with
    exactly n calls each (exact) or a recorded prefix whose missing calls
    are all counted as dropped (not exact)."""
    r = subprocess.run([a.scope, "recover", out], capture_output=True, text=True, timeout=300)
    if r.returncode != 0 or "signal" in r.stderr.lower():
        fail(f"scope recover exited {r.returncode}: {r.stdout}{r.stderr}")
    ranks = out[:-3] + ".ranks"
    files = rank_files(ranks)
    if len(files) != NP or journals(ranks) or not os.path.exists(out):
        fail(f"after recover: {os.listdir(ranks)}, index {os.path.exists(out)}")
    if [f for f in os.listdir(ranks) if f.startswith(".")]:
        fail(f"markers left after recover: {os.listdir(ranks)}")
    no_temporaries(os.path.dirname(out))
    for path in files:
        got, dropped = calls(path)
        if exact and (got, dropped) != (n, 0):
            fail(f"{path}: {got} calls, {dropped} dropped; expected exactly {n}, 0")
        # every call after the stop drops its begin and its end; the
        # barrier, MPI_Comm_size and MPI_Finalize a few more
        if not exact and not (0 <= got < n and 2 * (n - got) <= dropped <= 2 * (n - got) + 12):
            fail(f"{path}: {got} calls recorded and {dropped} events dropped of {n}")
    s = subprocess.run([a.scope, "summary", out], capture_output=True, text=True, timeout=120)
    if s.returncode != 0:
        fail(f"scope summary after recover: {s.stderr}")
    return files


class Mount:
    def __init__(self, d, size):
        self.path = os.path.join(d, "fs")
        os.mkdir(self.path)
        sh("mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", self.path)

    def remount(self, opts):
        sh("mount", "-o", "remount," + opts, self.path)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        subprocess.run(["umount", "-l", self.path])


def case_record(d, size, n, budget, recorded):
    """The file system fills while the ranks record."""
    bare = finish(start(mpirun(n), None, d))
    with Mount(d, size) as m:
        out = os.path.join(m.path, "prof.h5")
        extra = {"SCOPE_MEMORY_BUDGET": budget} if budget else {}
        res = finish(start(mpirun(n), out, d, **extra))
        check_run(res, bare, NOSPC, m.path)
        no_temporaries(m.path)
        ranks = os.path.join(m.path, "prof.ranks")
        kept = {os.path.basename(f) for f in rank_files(ranks)}
        if len(kept) + len(journals(ranks)) != NP:
            fail(f"neither a rank file nor a journal for every rank: {os.listdir(ranks)}")
        m.remount("size=64m")
        files = recover(out, n, exact=False)
        if recorded and not all(calls(f)[0] > 0 for f in files):
            fail(f"a rank kept nothing of what it recorded: {[calls(f) for f in files]}")


def journal_bytes(d, n):
    """Bytes the 4 journals of an n-call run take on a tmpfs."""
    with Mount(d, "64m") as m:
        out = os.path.join(m.path, "prof.h5")
        res = finish(start(mpirun(n), out, d, SCOPE_H5WRITER="/bin/false"))
        st = os.statvfs(m.path)
        used = (st.f_blocks - st.f_bfree) * st.f_frsize
        if len(journals(os.path.join(m.path, "prof.ranks"))) != NP:
            fail(f"measuring: {res[2]}")
    os.rmdir(m.path)
    return used


def case_convert(d, n):
    """The journals fit, the HDF5 files do not."""
    bare = finish(start(mpirun(n), None, d))
    size = journal_bytes(d, n) + (64 << 10)
    with Mount(d, str(size)) as m:
        out = os.path.join(m.path, "prof.h5")
        res = finish(start(mpirun(n), out, d))
        said = check_run(res, bare, NOSPC, m.path)
        if "could not write the profile" not in said:
            fail(f"not the conversion's message: {said}")
        no_temporaries(m.path)
        ranks = os.path.join(m.path, "prof.ranks")
        if rank_files(ranks) or len(journals(ranks)) != NP or os.path.exists(out):
            fail(f"expected the 4 journals only: {os.listdir(m.path)} {os.listdir(ranks)}")
        # recover on the still full disk: refused with the reason, all kept
        r = subprocess.run([a.scope, "recover", out], capture_output=True, text=True,
                           timeout=300)
        if r.returncode != 1 or NOSPC not in r.stderr or "signal" in r.stderr.lower():
            fail(f"scope recover on a full disk: {r.returncode} {r.stdout}{r.stderr}")
        no_temporaries(m.path)
        if rank_files(ranks) or len(journals(ranks)) != NP or os.path.exists(out):
            fail(f"recover on a full disk lost something: {os.listdir(ranks)}")
        m.remount("ro,size=64m")  # and on a read-only one
        r = subprocess.run([a.scope, "recover", out], capture_output=True, text=True,
                           timeout=300)
        if r.returncode != 1 or EROFS not in r.stderr or "signal" in r.stderr.lower():
            fail(f"scope recover on a read-only disk: {r.returncode} {r.stdout}{r.stderr}")
        if rank_files(ranks) or len(journals(ranks)) != NP or os.path.exists(out):
            fail(f"recover on a read-only disk lost something: {os.listdir(ranks)}")
        m.remount("rw")
        recover(out, n)


def ordered_run(d, m, n, first, then, leave, **env):
    """Ranks `first` finalize (convert) on free space; then the disk is
    filled leaving `leave` bytes, and ranks `then` finalize. `env`: more
    variables for the run. Each rank converts inside its MPI_Finalize
    (SCOPE_FINALIZE_WAIT=1), the order these cases are about: a writer
    that outlives its rank may write after the others have ended, once
    the pages of their journals (removed, but mapped until they exit)
    are free again."""
    env = dict(env, SCOPE_FINALIZE_WAIT="1")
    go = os.path.join(d, "go")
    os.makedirs(go, exist_ok=True)
    out = os.path.join(m.path, "prof.h5")
    ranks = os.path.join(m.path, "prof.ranks")
    p = start(mpirun(n, ["order", go]), out, d, **env)
    for r in first:
        open(os.path.join(go, f"go.{r}"), "w").close()
    wait_files([os.path.join(ranks, f"rank{r}.h5") for r in first] +
               ([out] if 0 in first else []))
    # and their journals gone: the writer removes each once its file is in
    # place, a moment later, and the space it frees must not be counted
    # on by the ranks that finalize on the full disk
    end = time.time() + 120
    while len(journals(ranks)) > NP - len(first):
        if time.time() > end:
            fail(f"journals left after the files of ranks {first}: {journals(ranks)}")
        time.sleep(0.05)
    filler = fill(m.path, leave)
    for r in then:
        open(os.path.join(go, f"go.{r}"), "w").close()
    return finish(p), filler


def case_between(d, n):
    """The disk fills between rank 0's conversion and the others'."""
    bare = finish(start(mpirun(n), None, d))
    with Mount(d, "64m") as m:
        res, filler = ordered_run(d, m, n, [0], [1, 2, 3], 0)
        check_run(res, bare, NOSPC, m.path)
        out = os.path.join(m.path, "prof.h5")
        ranks = os.path.join(m.path, "prof.ranks")
        no_temporaries(m.path)
        names = sorted(os.listdir(ranks))
        if [os.path.basename(f) for f in rank_files(ranks)] != ["rank0.h5"] or \
                len(journals(ranks)) != 3 or not os.path.exists(out):
            fail(f"expected rank0.h5, the index and 3 journals: {names}")
        s = subprocess.run([a.scope, "summary", out], capture_output=True, text=True,
                           timeout=120)
        # the index links to all 4 ranks: rank 0's file is there, the others'
        # journals are kept beside; summary shows rank 0 and names the rest
        warn = "warning: 3 ranks of the run have no rank file"
        if s.returncode != 0 or warn not in s.stdout or not s.stdout.split(warn)[1].split(
                "\n")[0].endswith(": 1 2 3") or "MPI_Comm_rank" not in s.stdout:
            fail(f"scope summary on the partial run: {s.returncode} {s.stdout}{s.stderr}")
        os.unlink(filler)
        recover(out, n)


def case_index(d, n):
    """Every rank file fits, the index does not."""
    bare = finish(start(mpirun(n), None, d))
    # Rank 0's file must be as large in both runs: when a thread's times
    # tie, the file gains begin_seq and depth columns (docs/format.md),
    # and whether 20,000 fast calls tie at 1 ns varies from run to run; at
    # 1 us they always do.
    coarse = {"SCOPE_CLOCK_ROUND_NS": "1000"}
    # sizes of rank 0's file and of the index, from a run with room
    with Mount(d, "64m") as m:
        res, filler = ordered_run(d, m, n, [1, 2, 3, 0], [], 0, **coarse)
        out = os.path.join(m.path, "prof.h5")
        r0 = os.path.getsize(os.path.join(m.path, "prof.ranks", "rank0.h5"))
        idx = os.path.getsize(out)
    os.rmdir(m.path)
    for f in glob.glob(os.path.join(d, "go", "go.*")):
        os.unlink(f)
    page = 4096
    # one page of slack for rank 0's file (its size varies by a few bytes
    # between runs: calibration, host and timing attributes), as long as
    # the index needs more than that page
    leave = (r0 + page - 1) // page * page + (page if idx > page else 0)
    with Mount(d, "64m") as m:
        res, filler = ordered_run(d, m, n, [1, 2, 3], [0], leave, **coarse)
        said = check_run(res, bare, NOSPC, m.path)
        out = os.path.join(m.path, "prof.h5")
        ranks = os.path.join(m.path, "prof.ranks")
        no_temporaries(m.path)
        if os.path.exists(out) or len(rank_files(ranks)) != NP or len(journals(ranks)) != 1:
            fail(f"expected the 4 rank files, rank 0's journal and no index: "
                 f"{os.listdir(m.path)} {os.listdir(ranks)}")
        if "prof.h5" not in said:
            fail(f"the message does not name the index: {said}")
        os.unlink(filler)
        recover(out, n)


def case_readonly(d, n):
    """The output folder is on a read-only file system."""
    bare = finish(start(mpirun(n), None, d))
    with Mount(d, "4m") as m:
        os.mkdir(os.path.join(m.path, "prof.ranks"))
        m.remount("ro")
        res = finish(start(mpirun(n), os.path.join(m.path, "prof.h5"), d))
        check_run(res, bare, EROFS, m.path)
        if os.listdir(os.path.join(m.path, "prof.ranks")):
            fail("files appeared on a read-only file system?")


def case_removed(d, n):
    """The output folder is removed while the program runs."""
    bare = finish(start(mpirun(n), None, d))
    with Mount(d, "64m") as m:
        outdir = os.path.join(m.path, "out")
        go = os.path.join(d, "go.pause")
        p = start(mpirun(n, ["pause", go]), os.path.join(outdir, "prof.h5"), d)
        wait_line(p, "paused")
        wait_files([os.path.join(outdir, "prof.ranks")])
        subprocess.run(["rm", "-rf", outdir], check=True)
        open(go, "w").close()
        rc, out, err = finish(p)
        check_run((rc, out + ["paused"], err), bare, os.strerror(2), outdir)
        if os.path.exists(outdir):
            fail(f"the removed folder came back: {list(os.walk(outdir))}")


def case_truncated(d, n):
    """The journals are truncated under the running ranks: their mapped
    pages are lost (SIGBUS), and the ranks must not die of it."""
    bare = finish(start(mpirun(n), None, d))
    with Mount(d, "64m") as m:
        out = os.path.join(m.path, "prof.h5")
        ranks = os.path.join(m.path, "prof.ranks")
        go = os.path.join(d, "go.pause")
        p = start(mpirun(n, ["pause", go]), out, d)
        wait_line(p, "paused")
        wait_files([ranks])
        while len(journals(ranks)) < NP:
            time.sleep(0.05)
        for j in journals(ranks):
            os.truncate(j, 0)
        open(go, "w").close()
        rc, lines, err = finish(p)
        check_run((rc, lines + ["paused"], err), bare, "truncated", ranks)
        no_temporaries(m.path)


def case_commands(d, n):
    """Every writing scope command on a full and on a read-only target:
    one message with the reason and the path, exit status 1, no file under
    the final name (an earlier one stays as it was), no temporary file."""
    prof = os.path.join(d, "prof.h5")
    res = finish(start(mpirun(n), prof, d))
    if res[0] != 0:
        fail(f"making the profile: {res}")
    cmds = {
        "export.json": ["export", "--to", "chrome-trace", "-o"],
        "report.html": ["report", "-o"],
        "plot.svg": ["plot", "--kind", "timeline", "-o"],
        "merged.h5": ["merge", "-o"],
    }
    with Mount(d, "64m") as m:
        with open(os.path.join(m.path, "export.json"), "w") as f:
            f.write("earlier\n")
        for state, reason in (("full", NOSPC), ("ro", EROFS)):
            if state == "full":
                filler = fill(m.path, 8192)
            else:
                m.remount("ro")
            for name, cmd in cmds.items():
                target = os.path.join(m.path, name)
                r = subprocess.run([a.scope, *cmd, target, prof], capture_output=True,
                                   text=True, timeout=300)
                said = [l for l in r.stderr.splitlines() if l.startswith("scope:")]
                if r.returncode != 1 or len(said) != 1 or reason not in said[0] or \
                        target not in said[0]:
                    fail(f"{state}: scope {' '.join(cmd)}: {r.returncode} {r.stderr}")
                no_temporaries(m.path)
                want = ["export.json", "filler"]
                if sorted(os.listdir(m.path)) != sorted(want):
                    fail(f"{state}: scope {cmd[0]} left {os.listdir(m.path)}")
            with open(os.path.join(m.path, "export.json")) as f:
                if f.read() != "earlier\n":
                    fail(f"{state}: the earlier export was changed")
        m.remount("rw")
        os.unlink(filler)
        for name, cmd in cmds.items():  # and with room, they work
            target = os.path.join(m.path, name)
            r = subprocess.run([a.scope, *cmd, target, prof], capture_output=True, text=True,
                               timeout=300)
            if r.returncode != 0 or not os.path.getsize(target):
                fail(f"scope {' '.join(cmd)} with room: {r.returncode} {r.stderr}")
        no_temporaries(m.path)


CASES = {
    # the reproduction: 200 KiB, 200,000 calls per rank (SIGBUS)
    "record_200k": lambda d: case_record(d, "200k", 200000, None, False),
    # small chunks, so each rank keeps what it recorded before the disk filled
    "record": lambda d: case_record(d, "1m", 200000, "256k", True),
    "convert": lambda d: case_convert(d, 50000),
    "between": lambda d: case_between(d, 20000),
    "index": lambda d: case_index(d, 20000),
    "readonly": lambda d: case_readonly(d, 20000),
    "removed": lambda d: case_removed(d, 20000),
    "truncated": lambda d: case_truncated(d, 200000),
    "commands": lambda d: case_commands(d, 20000),
}

with tempfile.TemporaryDirectory() as d:
    CASES[a.case](d)
print(f"check_storage {a.case}: application unchanged, fault said once, nothing partial left")
