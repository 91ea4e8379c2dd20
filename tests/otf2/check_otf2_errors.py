#!/usr/bin/env python3
"""check_otf2_errors.py SCOPE PROFILE OUTDIR - `scope export --to otf2`
refuses what it cannot do, with exit status 1 and one line naming the
folder and the problem, and leaves nothing behind:
  - -o an existing folder that is not empty (its files untouched);
  - -o an existing file;
  - -o a folder it may not write into (when the test runs as root, whom
    permission bits do not stop: as root without its capabilities, so the
    bits stop it while it still reaches the build tree wherever the clone
    is), and one whose parent is missing;
  - -o - (an archive is a folder, never stdout): bad usage, status 2;
and succeeds into an existing empty folder (the archive's three entries).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import fail  # noqa: E402


def without_capabilities(cmd):
    """cmd as root without any capability (setpriv: empty bounding,
    inheritable and ambient sets, so its exec gives none back), for which
    the permission bits count as for any owner. Not as another user:
    `nobody` cannot load build-test/reader/libscope_reader.so.0 of a clone
    under /root (mode 700, where root's clone lands on a fresh VM; exit
    127, issue 44), while root without capabilities still owns and reaches
    the build tree wherever it is."""
    return ["setpriv", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all",
            "--"] + cmd


def export(scope, prof, out, bare_root=False):
    cmd = [scope, "export", prof, "--to", "otf2", "-o", out]
    if bare_root:
        cmd = without_capabilities(cmd)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def expect(p, code, *words):
    lines = p.stderr.strip().splitlines()
    if p.returncode != code or len(lines) != 1 or not all(w in lines[0] for w in words) \
            or p.stdout:
        fail(f"exit {p.returncode} (want {code}), stderr {p.stderr!r} (want one line with "
             f"{words}), stdout {p.stdout!r}")


def main():
    scope, prof, out = map(os.path.abspath, sys.argv[1:4])
    os.makedirs(out, exist_ok=True)

    full = os.path.join(out, "full")
    os.makedirs(full)
    with open(os.path.join(full, "keep.txt"), "w") as f:
        f.write("mine\n")
    expect(export(scope, prof, full), 1, full, "not empty")
    if os.listdir(full) != ["keep.txt"] or open(os.path.join(full, "keep.txt")).read() != "mine\n":
        fail(f"the non-empty folder was changed: {os.listdir(full)}")

    afile = os.path.join(out, "afile")
    open(afile, "w").close()
    expect(export(scope, prof, afile), 1, afile, "not a folder")

    missing = os.path.join(out, "no", "such", "dir")
    expect(export(scope, prof, missing), 1, missing, "cannot create", "No such file")
    if os.path.exists(os.path.join(out, "no")):
        fail("a missing parent was created")

    locked = os.path.join(out, "locked")
    os.makedirs(locked)
    os.chmod(locked, 0o555)
    bare = os.geteuid() == 0    # root writes anywhere: drop what lets it
    if bare:
        p = subprocess.run(without_capabilities(["sh", "-c", "grep ^CapEff: /proc/self/status"]),
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 0 or p.stdout.split() != ["CapEff:", "0000000000000000"]:
            fail(f"cannot drop root's capabilities with setpriv: {p.returncode} {p.stdout!r} "
                 f"{p.stderr!r}")
    inside = os.path.join(locked, "new")
    p = export(scope, prof, inside, bare)
    expect(p, 1, inside, "cannot create", "Permission denied")
    empty_locked = os.path.join(out, "locked_empty")
    os.makedirs(empty_locked)
    os.chmod(empty_locked, 0o555)
    expect(export(scope, prof, empty_locked, bare), 1, empty_locked, "cannot write",
           "Permission denied")
    if os.listdir(locked) or os.listdir(empty_locked):
        fail("something was written into a read-only folder")
    os.chmod(locked, 0o755)
    os.chmod(empty_locked, 0o755)

    p = export(scope, prof, "-")
    expect(p, 2, "writes a folder", "-o DIR")

    empty = os.path.join(out, "empty")
    os.makedirs(empty)
    p = export(scope, prof, empty)
    if p.returncode != 0 or p.stderr:
        fail(f"export into an empty folder: {p.returncode} {p.stderr}")
    if sorted(os.listdir(empty)) != ["traces", "traces.def", "traces.otf2"]:
        fail(f"archive: {sorted(os.listdir(empty))}")
    print("ok")


if __name__ == "__main__":
    main()
