"""check_host_lock.py - one file per host without MPI (issue 12;
docs/format.md "Host files without MPI"): serial processes (serial_work.c,
a config naming `work`) started together with one SCOPE_OUTPUT and
SCOPE_HOST_FILES=1 add their groups to one host file under the host's
lock, and each links itself in the index.

  check_host_lock.py TEST --preload SO --scope TOOL --prog P

TEST is one of:
  four   4 processes calling work() 3, 4, 5 and 6 times, overlapping (each
         waits until all 4 recorded): stdout and exit status are the bare
         run's; the ranks folder holds one host file (plus its lock file)
         with 4 groups rank0, rank0.collision1..3 (serial processes are
         rank 0 of 1, as in rank files), each with its exact count and a
         distinct pid; the index links /rank0 and /rank0.collision1..3 to
         them (h5py through the links), rank_collisions = 3; the reader
         sees rank 0; no journal or temporary is left
  kill   3 processes as above, a 4th (7 calls) killed with SIGKILL after
         recording: the host file has the 3 others' groups, exact; the
         4th's journal is kept; `scope recover` adds it to the host file
         (and, while the host file is unreadable, fails and keeps it)
         under the lock as rank0.collision3 (complete = 0, work 7), the 3
         other groups unchanged, the index links all 4
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

import h5py

FAIL = []


def check(cond, what):
    if not cond:
        FAIL.append(what)
        print("FAIL:", what, file=sys.stderr)


def env_for(a, tmp, profiled):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SCOPE") and k != "LD_PRELOAD" and
           not k.startswith(("OMPI_", "PMIX_", "PMI_", "SLURM_", "HYDRA_"))}
    if profiled:
        conf = os.path.join(tmp, "work.conf")
        # written once: rewritten for each process, it was truncated while
        # an earlier one read it, which then recorded nothing
        if not os.path.exists(conf):
            with open(conf + ".tmp", "w") as f:
                f.write("work\n")
            os.replace(conf + ".tmp", conf)
        env.update(LD_PRELOAD=a.preload, SCOPE_CONFIG=conf, SCOPE_HOST_FILES="1",
                   SCOPE_OUTPUT=os.path.join(tmp, "prof.h5"))
    return env


def start_all(a, tmp, counts, profiled, hang=None):
    """Starts one process per count; each waits until all recorded."""
    go = os.path.join(tmp, "go")
    procs = []
    for i, n in enumerate(counts):
        args = [a.prog, str(n), "ready", os.path.join(tmp, f"ready{i}")]
        args += ["hang"] if hang == i else ["wait", go]
        procs.append(subprocess.Popen(args, env=env_for(a, tmp, profiled), cwd=tmp,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(
            os.path.exists(os.path.join(tmp, f"ready{i}")) for i in range(len(counts))):
        time.sleep(0.01)
    open(go, "w").close()
    return procs


def finish(procs, skip=None):
    out = []
    for i, p in enumerate(procs):
        if i == skip:
            continue
        o, e = p.communicate(timeout=120)
        out.append((p.returncode, o, e))
    return out


def groups(path):
    with h5py.File(path, "r") as f:
        return {k: (len(f[k]["regions"]["work"]["start_times"]), int(f[k].attrs["pid"]),
                    int(f[k].attrs["complete"]))
                for k in f if k.startswith("rank")}


def check_table(path):
    """The host file's summary table (docs/format.md "The host summary
    table"), rewritten at every append, lists exactly its rank groups
    (rank<N>; the collision groups are not ranks) with their pids."""
    with h5py.File(path, "r") as f:
        g = f.get("scope_host_summary")
        check(g is not None and int(g.attrs.get("version", 0)) == 2, f"{path}: no summary table")  # 2: with the operation column
        if g is None:
            return
        ranks = sorted(int(k[4:]) for k in f if k.startswith("rank") and k[4:].isdigit())
        check(list(g["ranks"][:, 0]) == ranks, f"{path}: table ranks {g['ranks'][:, 0]}")
        s = g["strings"][()].tobytes()
        text = lambda o: s[o:s.index(b"\0", o)].decode()
        pids = [int(a[2]) for a in g["attrs"][()] if text(a[0]) == "pid"]
        check(pids == [int(f[f"rank{r}"].attrs["pid"]) for r in ranks], f"{path}: pids {pids}")


def run_bare(a, tmp, counts):
    bare = os.path.join(tmp, "bare")
    os.mkdir(bare)
    return finish(start_all(a, bare, counts, False))


def test_four(a, tmp):
    counts = [3, 4, 5, 6]
    bare = run_bare(a, tmp, counts)
    prof = finish(start_all(a, tmp, counts, True))
    check([(r, o) for r, o, _ in prof] == [(r, o) for r, o, _ in bare],
          f"outputs and statuses: {prof} vs {bare}")
    check(all(not e.strip() for _, _, e in prof), f"stderr: {[e for _, _, e in prof]}")
    ranks = os.path.join(tmp, "prof.ranks")
    files = sorted(os.listdir(ranks))
    host = [f for f in files if f.startswith("host-") and f.endswith(".h5")]
    check(len(host) == 1 and files == sorted(host + [f".{host[0]}.lock"]),
          f"ranks folder: {files}")
    if not host:
        return
    got = groups(os.path.join(ranks, host[0]))
    names = ["rank0"] + [f"rank0.collision{k}" for k in (1, 2, 3)]
    check(sorted(got) == names, f"groups: {sorted(got)}")
    check(sorted(n for n, _, _ in got.values()) == counts, f"counts: {got}")
    check(len({pid for _, pid, _ in got.values()}) == 4, f"pids: {got}")
    check(all(c == 1 for _, _, c in got.values()), f"complete: {got}")
    check_table(os.path.join(ranks, host[0]))
    with h5py.File(os.path.join(tmp, "prof.h5"), "r") as f:
        links = sorted(k for k in f if k.startswith("rank"))
        check(links == names, f"index links: {links}")
        via = sorted((len(f[k]["regions"]["work"]["start_times"]), int(f[k].attrs["pid"]))
                     for k in links)
        check(via == sorted((n, pid) for n, pid, _ in got.values()),
              f"through the index: {via}")
        for k in links:
            link = f.get(k, getlink=True)
            check(isinstance(link, h5py.ExternalLink) and
                  link.filename == f"prof.ranks/{host[0]}", f"{k}: {link}")
        check(int(f["metadata"].attrs["rank_collisions"]) == 3, "rank_collisions")
    p = subprocess.run([a.scope, "summary", "--per-rank", "--format", "csv",
                        os.path.join(tmp, "prof.h5")], capture_output=True, text=True, timeout=60)
    rows = [l.split(",")[:3] for l in p.stdout.splitlines() if l.startswith("work,")]
    check(p.returncode == 0 and rows == [["work", "0", str(got["rank0"][0])]],
          f"reader sees rank 0 (the collisions are the index's extra links): {p.stdout} "
          f"{p.stderr}")


def test_kill(a, tmp):
    counts = [3, 4, 5, 7]
    procs = start_all(a, tmp, counts, True, hang=3)
    done = finish(procs, skip=3)
    check(all(r == 0 for r, _, _ in done), f"statuses: {done}")
    procs[3].send_signal(signal.SIGKILL)
    procs[3].communicate(timeout=60)
    ranks = os.path.join(tmp, "prof.ranks")
    files = sorted(os.listdir(ranks))
    host = [f for f in files if f.startswith("host-") and f.endswith(".h5")]
    journals = [f for f in files if f.startswith("journal.")]
    check(len(host) == 1 and len(journals) == 1, f"before recover: {files}")
    if not host:
        return
    before = groups(os.path.join(ranks, host[0]))
    check(sorted(n for n, _, _ in before.values()) == [3, 4, 5], f"host file: {before}")
    # an append that fails (the host file is not HDF5 for a moment) keeps
    # the journal: what it recorded is in no file yet
    hp = os.path.join(ranks, host[0])
    os.rename(hp, hp + ".aside")
    with open(hp, "wb") as f:
        f.write(b"not an HDF5 file\n" * 64)
    p = subprocess.run([a.scope, "recover", os.path.join(tmp, "prof.h5")],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode != 0 and journals[0] in os.listdir(ranks),
          f"a failed append: recover {p.returncode}, files {sorted(os.listdir(ranks))}")
    os.replace(hp + ".aside", hp)
    p = subprocess.run([a.scope, "recover", os.path.join(tmp, "prof.h5")],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"recover: {p.returncode} {p.stdout} {p.stderr}")
    files = sorted(os.listdir(ranks))
    check(files == sorted(host + [f".{host[0]}.lock"]), f"after recover: {files}")
    after = groups(os.path.join(ranks, host[0]))
    check({k: v for k, v in after.items() if k in before} == before,
          "the 3 groups unchanged")
    check(sorted(after) == ["rank0"] + [f"rank0.collision{k}" for k in (1, 2, 3)] and
          after["rank0.collision3"][0::2] == (7, 0), f"recovered group: {after}")
    check_table(os.path.join(ranks, host[0]))
    with h5py.File(os.path.join(tmp, "prof.h5"), "r") as f:
        via = sorted((len(f[k]["regions"]["work"]["start_times"]), int(f[k].attrs["complete"]))
                     for k in f if k.startswith("rank"))
        check(via == [(3, 1), (4, 1), (5, 1), (7, 0)], f"through the index after recover: {via}")
        check(int(f["metadata"].attrs["rank_collisions"]) == 3, "rank_collisions")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test", choices=["four", "kill"])
    for k in ("preload", "scope", "prog"):
        ap.add_argument("--" + k, required=True)
    a = ap.parse_args()
    for k in ("preload", "scope", "prog"):
        setattr(a, k, os.path.abspath(getattr(a, k)))
    with tempfile.TemporaryDirectory() as tmp:
        {"four": test_four, "kill": test_kill}[a.test](a, tmp)
    if FAIL:
        sys.exit(f"{len(FAIL)} check(s) failed")
    print("ok")


if __name__ == "__main__":
    main()
