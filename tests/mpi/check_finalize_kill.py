#!/usr/bin/env python3
"""check_finalize_kill.py SCOPE PRELOAD MPI PROGRAM SERIAL_PROGRAM OUTDIR

A rank's MPI_Finalize no longer waits for its file (SCOPE_FINALIZE_WAIT=0,
the default): a scope-h5write that outlives the rank writes it. Nothing
may be lost for that, even when every rank is killed (SIGKILL, which
nothing catches) right after MPI_Finalize returns (finalize_kill_app.c,
4 ranks, N = 300 MPI_Allreduce and 300 MPI_Sendrecv each). Four runs
under MPI's own launcher, each against the same program run bare:

  kill, `scope run -- mpirun ...`   the profile is complete when scope
                                    run returns (it waits for the writers)
  kill, LD_PRELOAD mpirun ...       complete once the writers are done:
                                    Open MPI's mpirun returns as soon as a
                                    rank dies of a signal; the writers
                                    outlive it and finish (waited for here
                                    by their journals, at most 120 s)
  kill, SCOPE_FINALIZE_WAIT=1       complete when mpirun returns (the file
                                    was written inside MPI_Finalize)
  exit, LD_PRELOAD mpirun ...       complete when mpirun returns: the
                                    writers hold the ranks' standard
                                    output and error, which the launcher
                                    reads to the end (read here at once,
                                    with h5py and `scope summary`)
  quiet, LD_PRELOAD mpirun ...      the ranks sent their standard output
                                    and error to /dev/null: the launcher
                                    reads nothing the writers could hold,
                                    so the ranks wait for their files;
                                    complete when mpirun returns
  hold, the whole job SIGKILLed     every rank returned from MPI_Finalize
                                    and waits; mpirun and every process
                                    under it are SIGKILLed: the writers,
                                    in sessions of their own, finish
                                    (waited for by their journals)
  hold, the job and its writers     the same, and the writers SIGKILLed
    SIGKILLed                       too before they began: the journals
                                    stay, and `scope recover` writes the
                                    same calls (marked complete = 0: it
                                    cannot know the rank ended well)
  serial, LD_PRELOAD                a program without MPI or launcher
                                    (serial_app.c, `work` timed 7 times)
                                    exits right after its last call: its
                                    file is complete when it returns (it
                                    waits for its writer, 2 s late here
                                    in every mode)

The writers that outlive their ranks start 2 s late here (a wrapper
around scope-h5write as SCOPE_H5WRITER; SLOW_WRITER_DELAY seconds, and
as long in every mode with SLOW_WRITER_ALL=1), so that the launcher and
scope run are seen to wait for them, not to be done before them by luck.
The wrapper writes its process group into writers.pids, so the test can
kill a writer as a scheduler killing everything of the job would.

Complete means: the index links ranks 0..3, each rank file holds exactly
its calls (MPI_Allreduce N, MPI_Sendrecv N, MPI_Barrier 1, MPI_Init 1,
MPI_Comm_rank 1, MPI_Comm_size 1, the span 1), says
complete = 1, and no journal nor temporary file is left. The exit status
and the program's output are the bare run's.
"""
import glob
import os
import signal
import subprocess
import sys
import time

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, fail, region_kind, run_limited  # noqa: E402

RANKS, N = 4, 300
# MPI_Finalize itself is not among them: the file is made inside it
WANT = {"MPI_Allreduce": N, "MPI_Sendrecv": N, "MPI_Barrier": 1, "MPI_Init": 1,
        "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Init..MPI_Finalize": 1}


def left_over(ranks_dir):
    """Journals and temporaries still in the ranks folder."""
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(ranks_dir, "*"))
                  if os.path.basename(p).startswith("journal.") or ".tmp." in p)


def check_complete(out, what):
    ranks_dir = out[:-3] + ".ranks"
    left = left_over(ranks_dir)
    if left:
        fail(f"{what}: left in {ranks_dir}: {left}")
    if not os.path.exists(out):
        fail(f"{what}: no index {out}")
    check_calls(out, what, 1)


def check_calls(out, what, complete):
    """The index links ranks 0..RANKS-1, each with exactly WANT and the
    `complete` attribute given."""
    with h5py.File(out, "r") as f:
        have = sorted(k for k in f if k.startswith("rank"))
        if have != [f"rank{r}" for r in range(RANKS)]:
            fail(f"{what}: the index links {have}")
        for r in range(RANKS):
            g = f[f"rank{r}"]
            # the I/O calls every rank times by default (issue 46) are tests/io's
            got = {str(v.attrs.get("name", k)): len(v["start_times"])
                   for k, v in g["regions"].items() if region_kind(v) != "io"}
            if got != WANT:
                fail(f"{what}: rank {r}: calls {got}, want {WANT}")
            if int(g.attrs["complete"]) != complete:
                fail(f"{what}: rank {r}: complete = {g.attrs['complete']}, want {complete}")


def check_summary(scope, out, what):
    """scope summary reads the profile and counts N MPI_Allreduce per rank."""
    p = subprocess.run([scope, "summary", "--per-rank", "--format", "csv", out],
                       capture_output=True, text=True, timeout=300)
    rows = sorted((r[0], r[1], r[2]) for r in (ln.split(",") for ln in p.stdout.splitlines()[1:])
                  if r[0] == "MPI_Allreduce")
    if p.returncode != 0 or rows != [("MPI_Allreduce", str(r), str(N)) for r in range(RANKS)]:
        fail(f"{what}: scope summary: {p.returncode} {rows} {p.stderr[-1000:]}")


def descendants(pid):
    """pid and every process under it, parents first (from /proc)."""
    kids = {}
    for st in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(st) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        kids.setdefault(int(fields[1]), []).append(int(st.split("/")[2]))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def wait_journals_gone(out, what, limit=120):
    for _ in range(limit * 10):
        if not left_over(out[:-3] + ".ranks"):
            return
        time.sleep(0.1)
    fail(f"{what}: journals still there after {limit} s")


def hold_and_kill(cmd, env, outdir, what, writers_too):
    """Runs cmd (mode hold), waits until every rank has returned from
    MPI_Finalize, then SIGKILLs mpirun and every process under it (and,
    with writers_too, every writer's process group)."""
    for f in glob.glob(os.path.join(outdir, "fin.*")) + [os.path.join(outdir, "writers.pids")]:
        if os.path.exists(f):
            os.unlink(f)
    log = open(os.path.join(outdir, what.replace(" ", "_").replace(",", "") + ".log"), "w")
    p = subprocess.Popen(cmd, env=env, cwd=outdir, stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True)
    fins = [os.path.join(outdir, f"fin.{r}") for r in range(RANKS)]
    for _ in range(3000):
        if all(os.path.exists(f) for f in fins) or p.poll() is not None:
            break
        time.sleep(0.1)
    if not all(os.path.exists(f) for f in fins):
        p.kill()
        fail(f"{what}: the ranks did not all return from MPI_Finalize (status {p.poll()})")
    ranks = [int(open(f).read()) for f in fins]
    for pid in descendants(p.pid) + ranks:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    p.wait()
    if writers_too:
        with open(os.path.join(outdir, "writers.pids")) as f:
            groups = [int(x) for x in f.read().split()]
        if len(groups) != RANKS:
            fail(f"{what}: {len(groups)} writers started, want {RANKS}")
        for g in groups:
            try:
                os.killpg(g, signal.SIGKILL)
            except ProcessLookupError:
                fail(f"{what}: writer group {g} was gone before the kill (too slow a machine?)")
    log.close()


def serial_case(scope, preload, prog, env, outdir):
    """A program without MPI nor launcher, exiting right after its last call."""
    conf = os.path.join(outdir, "work.conf")
    with open(conf, "w") as f:
        f.write("work\n")
    out = os.path.join(outdir, "serial.h5")
    e = dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=conf, SCOPE_OUTPUT=out, SLOW_WRITER_ALL="1")
    p = run_limited([prog], e, outdir, "serial", limit=300)
    if p.returncode != 0 or p.stdout != "work 1.984375\n":
        fail(f"serial: {p.returncode} {p.stdout!r} {p.stderr[-2000:]}")
    left = left_over(out[:-3] + ".ranks")
    if left or not os.path.exists(out):
        fail(f"serial: left {left}, index there: {os.path.exists(out)}")
    with h5py.File(out, "r") as f:
        g = f["rank0"]
        got = {str(v.attrs.get("name", k)): len(v["start_times"]) for k, v in g["regions"].items()
               if region_kind(v) != "io"}
        if got != {"work": 7} or int(g.attrs["complete"]) != 1:
            fail(f"serial: calls {got}, complete = {g.attrs['complete']}")


def main():
    scope, preload, mpi, prog, serial = (os.path.abspath(x) for x in sys.argv[1:6])
    mpi = os.path.basename(mpi)
    outdir = os.path.abspath(sys.argv[6])
    launcher = ["mpirun", "--oversubscribe"] if mpi == "openmpi" else ["mpirun.mpich"]
    env = clean_env(mpi_root=True)
    real = env.get("SCOPE_H5WRITER")
    if not real:
        fail("SCOPE_H5WRITER is not set (meson sets it to the build's writer)")
    slow = os.path.join(outdir, "slow-writer.sh")
    with open(slow, "w") as f:
        f.write(f"""#!/bin/sh
# a writer that outlives its rank starts late (check_finalize_kill.py);
# its process group (a session of its own) goes into writers.pids
if [ "$1" = --detach ]; then
    echo $$ >> '{outdir}/writers.pids'
    ( sleep "${{SLOW_WRITER_DELAY:-2}}"; exec '{real}' "$@" ) &
    exit 0
fi
[ "$SLOW_WRITER_ALL" = 1 ] && sleep "${{SLOW_WRITER_DELAY:-2}}"
exec '{real}' "$@"
""")
    os.chmod(slow, 0o755)
    env["SCOPE_H5WRITER"] = slow

    def cmd(mode):
        return launcher + ["-n", str(RANKS), prog, str(N), mode]

    def lines(p):
        return sorted(l for l in p.stdout.splitlines() if "made" in l)

    bare = {m: run_limited(cmd(m), env, outdir, f"bare {m}") for m in ("kill", "exit", "quiet")}
    if bare["exit"].returncode != 0 or len(lines(bare["exit"])) != RANKS:
        fail(f"bare run: {bare['exit'].returncode} {bare['exit'].stdout}{bare['exit'].stderr}")

    cases = [
        ("kill, scope run", "kill", {}, True),
        ("kill, LD_PRELOAD", "kill", {}, False),
        ("kill, SCOPE_FINALIZE_WAIT=1", "kill", {"SCOPE_FINALIZE_WAIT": "1"}, False),
        ("exit, LD_PRELOAD", "exit", {}, False),
        ("quiet, LD_PRELOAD", "quiet", {}, False),
    ]
    for i, (what, mode, extra, with_run) in enumerate(cases):
        out = os.path.join(outdir, f"p{i}.h5")
        if with_run:
            c = [scope, "run", "-o", out, "--"] + cmd(mode)
            e = dict(env, **extra)
        else:
            c = cmd(mode)
            e = dict(env, LD_PRELOAD=preload, SCOPE_OUTPUT=out, **extra)
        p = run_limited(c, e, outdir, what, limit=300)
        if p.returncode != bare[mode].returncode or lines(p) != lines(bare[mode]):
            fail(f"{what}: exit {p.returncode} (bare {bare[mode].returncode}), output "
                 f"{lines(p)}; {p.stderr[-2000:]}")
        if what == "kill, LD_PRELOAD":
            # the writers outlive mpirun when it returns at the first
            # killed rank: their journals go once the files are in place
            for _ in range(1200):
                if not left_over(out[:-3] + ".ranks"):
                    break
                time.sleep(0.1)
        check_complete(out, what)
        if mode != "kill":
            check_summary(scope, out, what)

    # the whole job killed: the writers finish on their own
    what = "hold, the whole job SIGKILLed"
    out = os.path.join(outdir, "p_hold.h5")
    hold_and_kill(cmd("hold") + [outdir], dict(env, LD_PRELOAD=preload, SCOPE_OUTPUT=out),
                  outdir, what, False)
    wait_journals_gone(out, what)
    check_complete(out, what)

    # and the writers with it, before they began: scope recover
    what = "hold, the job and its writers SIGKILLed"
    out = os.path.join(outdir, "p_hold_all.h5")
    hold_and_kill(cmd("hold") + [outdir],
                  dict(env, LD_PRELOAD=preload, SCOPE_OUTPUT=out, SLOW_WRITER_DELAY="600"),
                  outdir, what, True)
    ranks_dir = out[:-3] + ".ranks"
    journals = [j for j in left_over(ranks_dir) if j.startswith("journal.")]
    if len(journals) != RANKS or glob.glob(os.path.join(ranks_dir, "rank*.h5")):
        fail(f"{what}: left {left_over(ranks_dir)}, rank files "
             f"{glob.glob(os.path.join(ranks_dir, 'rank*.h5'))}")
    r = run_limited([scope, "recover", "-q", out], env, outdir, what + ": recover", limit=300)
    if r.returncode != 0:
        fail(f"{what}: scope recover: {r.returncode} {r.stdout} {r.stderr}")
    if left_over(ranks_dir):
        fail(f"{what}: left after recover {left_over(ranks_dir)}")
    check_calls(out, what, 0)
    check_summary(scope, out, what)

    serial_case(scope, preload, serial, env, outdir)
    print(f"check_finalize_kill {mpi}: every rank killed right after MPI_Finalize, "
          f"{len(cases) + 2} runs and a serial one, every profile complete with its exact calls")


if __name__ == "__main__":
    main()
