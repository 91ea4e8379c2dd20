"""check_journal_dir.py - journals in a separate folder, SCOPE_JOURNAL_DIR
(issue 12; docs/format.md "Journal files"). Real Open MPI mpirun on
simulated hosts (check_host_files.py's hostfile and `fakehost` agent, its
program and its read-back helpers: h5py through the index and the reader).

  check_journal_dir.py TEST --preload SO --scope TOOL --fakehost F --prog P --writer W

TEST is one of:
  clean   6 ranks on 2 hosts with the config file's `journal_dir`: exact
          counts of every rank; the ranks folder holds the 2 host files
          only (no journal, no pointer); the journal folder was used (its
          mtime moved) and is empty; then SCOPE_JOURNAL_DIR with rank files
          (mpirun -n 2, one host): rank0.h5 and rank1.h5 exact, no pointer
          left, the journal folder empty
  kill    12 ranks on 4 hosts, rank 7 (hostC) SIGKILLed: hostC's 3
          journals are in the journal folder, not in the ranks folder,
          which has the pointer journals.hostC naming it; the folder then
          moves (as a node-local folder seen elsewhere under another
          name): `scope recover` says where to run it and exits 1;
          `scope recover --journals NEWDIR` brings the 3 ranks in with
          exact counts, removes the pointer, and every rank is complete
          through h5py and the reader
  bad     SCOPE_JOURNAL_DIR relative, missing, a file, a read-only folder
          (a tmpfs mounted ro: root writes anywhere else), and a relative
          `journal_dir` in the config file (mpirun -n 2, one host): the program's exit status and output are those of the
          bare run, the problem is said once naming the value, and the
          run's profile is complete (the journals went to the ranks
          folder)
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_host_files as chf  # noqa: E402

check = chf.check


def run(a, tmp, hosts, per_host, jd, args=(), popen=False, config=None):
    env = chf.clean_env(LD_PRELOAD=a.preload, SCOPE_OUTPUT=os.path.join(tmp, "prof.h5"))
    if config:
        env["SCOPE_CONFIG"] = config
    else:
        env["SCOPE_JOURNAL_DIR"] = jd
    cmd = chf.mpirun_cmd(a, tmp, hosts, per_host) + [a.prog, *args]
    if popen:
        return subprocess.Popen(cmd, env=env, cwd=tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    return subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True, timeout=300)


def test_clean(a, tmp):
    jd = os.path.join(tmp, "local")
    os.mkdir(jd)
    os.utime(jd, ns=(0, 0))
    conf = os.path.join(tmp, "scope.conf")
    with open(conf, "w") as f:
        f.write(f"journal_dir = {jd}\nMPI_*\n")
    p = run(a, tmp, ["hostA", "hostB"], 3, jd, config=conf)
    check(p.returncode == 0 and not chf.scope_stderr(p.stderr),
          f"mpirun: {p.returncode} {p.stderr}")
    check(os.stat(jd).st_mtime_ns > 0, "the journal folder was not used")
    check(chf.files_of(tmp) == ["host-hostA.h5", "host-hostB.h5"],
          f"ranks folder: {chf.files_of(tmp)}")
    check(os.listdir(jd) == [], f"journal folder after a clean run: {os.listdir(jd)}")
    where = chf.check_all(a, tmp, range(6), complete=lambda r: 1)
    for r in range(6):
        check(where[r] == f"host-host{'AB'[r // 3]}.h5", f"rank {r} linked to {where[r]}")
    sub = os.path.join(tmp, "ranks")
    os.mkdir(sub)
    os.utime(jd, ns=(0, 0))
    env = chf.clean_env(LD_PRELOAD=a.preload, SCOPE_OUTPUT=os.path.join(sub, "prof.h5"),
                        SCOPE_JOURNAL_DIR=jd)
    p = subprocess.run(chf.MPIRUN + ["-n", "2", a.prog], env=env, cwd=sub, capture_output=True,
                       text=True, timeout=300)
    check(p.returncode == 0 and not chf.scope_stderr(p.stderr),
          f"mpirun -n 2: {p.returncode} {p.stderr}")
    check(chf.files_of(sub) == ["rank0.h5", "rank1.h5"], f"rank files: {chf.files_of(sub)}")
    check(os.stat(jd).st_mtime_ns > 0 and os.listdir(jd) == [],
          f"journal folder (rank files): {os.listdir(jd)}")
    chf.check_all(a, sub, range(2), complete=lambda r: 1)


def test_kill(a, tmp):
    jd = os.path.join(tmp, "local")
    os.mkdir(jd)
    pidfile = os.path.join(tmp, "victim.pid")
    p = run(a, tmp, ["hostA", "hostB", "hostC", "hostD"], 3, jd, ["7", pidfile], popen=True)
    want = [f"host-{h}.h5" for h in ("hostA", "hostB", "hostD")]
    chf.kill_victim(tmp, pidfile, p, want)
    files = chf.files_of(tmp)
    check(files == sorted(want + ["journals.hostC"]), f"ranks folder before recover: {files}")
    journals = sorted(os.listdir(jd))
    check(len(journals) == 3 and all(j.startswith("journal.hostC.") for j in journals),
          f"hostC's 3 journals in the journal folder: {journals}")
    with open(os.path.join(tmp, "prof.ranks", "journals.hostC")) as f:
        check(f.read() == jd + "\n", "the pointer names the journal folder")
    # the node-local folder as seen from elsewhere: another path
    moved = os.path.join(tmp, "mounted")
    os.rename(jd, moved)
    q = subprocess.run([a.scope, "recover", os.path.join(tmp, "prof.h5")],
                       capture_output=True, text=True, timeout=300)
    check(q.returncode == 1 and "host hostC kept its journals in " + jd in q.stderr and
          "not visible here" in q.stderr and "--journals" in q.stderr,
          f"recover without the folder: {q.returncode} {q.stderr!r}")
    check(chf.files_of(tmp) == sorted(want + ["journals.hostC"]),
          f"nothing changed: {chf.files_of(tmp)}")
    q = subprocess.run([a.scope, "recover", "--journals", moved, os.path.join(tmp, "prof.h5")],
                       capture_output=True, text=True, timeout=300)
    check(q.returncode == 0 and "3 links repaired" in q.stdout,
          f"recover --journals: {q.returncode} {q.stdout!r} {q.stderr!r}")
    check(os.listdir(moved) == [], f"journal folder after recover: {os.listdir(moved)}")
    check(chf.files_of(tmp) == sorted(want + ["rank6.h5", "rank7.h5", "rank8.h5"]),
          f"after recover: {chf.files_of(tmp)}")
    where = chf.check_all(a, tmp, range(12), complete=lambda r: 0 if r in (6, 7, 8) else 1)
    for r in (6, 7, 8):
        check(where[r] == f"rank{r}.h5", f"rank {r} linked to {where[r]}")


def test_bad(a, tmp):
    bare_env = chf.clean_env()
    bare = subprocess.run(chf.MPIRUN + ["-n", "2", a.prog], env=bare_env, cwd=tmp,
                          capture_output=True, text=True, timeout=300)
    check(bare.returncode == 0, f"bare run: {bare.returncode} {bare.stderr}")
    afile = os.path.join(tmp, "a_file")
    open(afile, "w").close()
    conf = os.path.join(tmp, "scope.conf")
    with open(conf, "w") as f:
        f.write("MPI_*\njournal_dir = rel\n")
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", ro],
                       capture_output=True, text=True)
    check(m.returncode == 0, f"mount a read-only tmpfs: {m.stderr}")
    cases = [("local/journals", "not an absolute path", "SCOPE_JOURNAL_DIR"),
             (os.path.join(tmp, "missing"), "no such folder", "SCOPE_JOURNAL_DIR"),
             (afile, "not a folder", "SCOPE_JOURNAL_DIR"),
             (ro, f"not writable ({os.strerror(30)})", "SCOPE_JOURNAL_DIR"),
             ("rel", "not an absolute path", f"journal_dir ({conf}:2)")]
    try:
        run_bad_cases(a, tmp, bare, cases, conf)
    finally:
        if m.returncode == 0:
            subprocess.run(["umount", ro])


def run_bad_cases(a, tmp, bare, cases, conf):
    for i, (value, why, origin) in enumerate(cases):
        sub = os.path.join(tmp, f"case{i}")
        os.mkdir(sub)
        out = os.path.join(sub, "prof.h5")
        env = chf.clean_env(LD_PRELOAD=a.preload, SCOPE_OUTPUT=out)
        if origin == "SCOPE_JOURNAL_DIR":
            env["SCOPE_JOURNAL_DIR"] = value
        else:
            env["SCOPE_CONFIG"] = conf
        p = subprocess.run(chf.MPIRUN + ["-n", "2", a.prog], env=env, cwd=sub,
                           capture_output=True, text=True, timeout=300)
        check(p.returncode == bare.returncode and p.stdout == bare.stdout,
              f"{value}: exit {p.returncode}, stdout {p.stdout!r}")
        said = [l for l in p.stderr.splitlines() if l.startswith("scope:")]
        check(len(said) == 1 and f"{origin}='{value}': {why}" in said[0] and
              "the journals go to the ranks folder" in said[0], f"{value}: said {said!r}")
        check(chf.files_of(sub) == ["rank0.h5", "rank1.h5"], f"{value}: {chf.files_of(sub)}")
        check(not os.path.exists(os.path.join(sub, "missing")), f"{value}: folder created")
        chf.check_counts_h5py(out, range(2), complete=lambda r: 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test", choices=["clean", "kill", "bad"])
    for k in ("preload", "scope", "fakehost", "prog", "writer"):
        ap.add_argument("--" + k, required=True)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("skipped: simulated hosts need root (unshare)")
        sys.exit(77)
    for k in ("preload", "scope", "fakehost", "prog", "writer"):
        setattr(a, k, os.path.abspath(getattr(a, k)))
    with tempfile.TemporaryDirectory() as tmp:
        {"clean": test_clean, "kill": test_kill, "bad": test_bad}[a.test](a, tmp)
    if chf.FAIL:
        sys.exit(f"{len(chf.FAIL)} check(s) failed")
    print("ok")


if __name__ == "__main__":
    main()
