"""checker.py - what the Python test checkers share: the environment they
run programs in, a failure, a run with a time limit, the calls per region
of a rank group.

Every checker runs a program twice, bare and under the preload, and both
runs must start from the same environment without whatever scope settings
the shell running the tests had (SCOPE_CONFIG, SCOPE_OUTPUT, LD_PRELOAD,
...): only the variables meson sets for the suite pass through
(SCOPE_TRAMPOLINE for `--setup redirect`, SCOPE_H5WRITER for the build's
writer). A checker imports it with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "common"))
    from checker import clean_env

expect() and expect_eq() fail with a message naming what differs.
"""
import os
import re
import subprocess
import sys

KEEP = ("SCOPE_TRAMPOLINE", "SCOPE_H5WRITER")


def clean_env(keep=KEEP, drop=(), mpi_root=False, **extra):
    """os.environ without the SCOPE_* variables other than `keep`, without
    LD_PRELOAD and without any variable starting with a prefix in `drop`
    (a launcher's rank variables, say); with `mpi_root`, the two variables
    that let Open MPI's mpirun run as root; then `extra`. A new dict."""
    env = {k: v for k, v in os.environ.items()
           if (not k.startswith("SCOPE_") or k in keep) and k != "LD_PRELOAD"
           and not (drop and k.startswith(tuple(drop)))}
    if mpi_root:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.update(extra)
    return env


def fail(msg):
    """Prints the failure and ends the checker with status 1."""
    print("FAIL:", msg)
    sys.exit(1)


def expect(cond, msg):
    """Fails with msg unless cond."""
    if not cond:
        fail(msg)


def expect_eq(got, want, what):
    """Fails naming `what`, the value got and the one expected, unless equal."""
    if got != want:
        fail(f"{what}: {got!r}, expected {want!r}")


def run_limited(cmd, env, cwd, what, limit=120):
    """Runs cmd, output captured as text; a run still going after `limit`
    seconds is a hang, and fails the checker naming `what`."""
    try:
        return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        fail(f"{what}: still running after {limit} s (hung)")


def region_kind(g):
    k = g.attrs.get("kind", b"")
    return k.decode() if isinstance(k, bytes) else str(k)


def io_call_names():
    """The names of the I/O calls every recording process times by default
    (issue 46), from the one vocabulary (format/calls_io.def): what a
    reader's table (which has no kind column) leaves out for a test whose
    subject is not I/O."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "format",
                        "calls_io.def")
    with open(path, encoding="utf-8") as f:
        return set(re.findall(r"^SCOPE_IO_CALL\(\w+, (\w+),", f.read(), re.M))


def region_counts(group, io=False):
    """{region group name: calls} of a /rank<N> group opened with h5py.
    The I/O calls every recording process times by default (kind "io",
    issue 46: the program's printf, a fstat in stdio) are left out unless
    io=True."""
    return {k: len(v["start_times"]) for k, v in group["regions"].items()
            if io or region_kind(v) != "io"}
