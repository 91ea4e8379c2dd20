#!/usr/bin/python3
"""bench_io_callgrind.py [PRELOAD] - the instructions a recorded I/O call
adds (issue 46), counted by callgrind, which the machine's load does not
change (build/bench/bench_io times the same loops in ns).

Runs build/bench/bench_io --child-CALL under valgrind --tool=callgrind,
bare and under the preload recording the call (`include = bench_io*`,
`io_exclude = none`), at two loop lengths, and prints the difference
divided by the extra calls: the marginal instructions of one call,
start-up excluded. For each call: what the call itself costs bare, what
recording it adds in all, and of that what the I/O capture's hot path
executes (the inclusive count of its enter and exit, io_hook.c, the data
record's writing included). The calls: a 1-byte fwrite, fputc and
fprintf("%d") into a stream's 1 MiB buffer, and a 1-byte pwrite and
write to a file of a temporary folder. The recorded run at the shorter
length is read back with `scope summary`: it must hold every call, or the
count is of a call not recorded. PRELOAD: another libscope_preload.so (a
build of another commit, to compare); the bench program is this build's.
SCOPE_BUILD: the build folder (a release build, `meson setup build-rel
--buildtype=release -Ddebug=true`). Not a test."""
import os
import re
import subprocess
import sys
import tempfile

from benchlib import BUILD, PRELOAD, bare_env, cpu_model

SHORT, LONG = 2000, 6000          # calls per loop; the child runs 3 loops
CALLS = ("fwrite", "fputc", "fprintf", "pwrite", "write")
# the capture's entry points as the engine calls them (io_hook.c; `enter`
# in builds before the data path)
CAPTURE = ("enter", "io_enter", "io_exit")


def run(exe, env, call, calls, tmp):
    """Instructions of one child run under callgrind: (total, capture),
    the capture's inclusive."""
    out = os.path.join(tmp, "cg.out")
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        exe, "--child-" + call, str(calls), tmp], env=env,
                       capture_output=True, timeout=900)
    m = re.search(rb"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"{call} {calls} failed ({r.returncode}):\n{r.stderr.decode()[-2000:]}")
    # in tmp: callgrind_annotate shortens the paths under its working
    # folder, and then lists a function twice
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no",
                          out], capture_output=True, check=True, cwd=tmp).stdout.decode()
    # "N (p%)  file:function [object]": a function's code inlined from a
    # header is a line of its own (io_data.h:io_exit), counted in its
    # inclusive figure too, which is the largest of its lines
    most = {}
    for line in ann.splitlines():
        f = re.match(r"\s*([\d,]+) \([^)]*\)\s+([^=\s][^:]*):(\S+)", line)
        if f:
            fn = f.group(3)
            most[fn] = max(most.get(fn, 0), int(f.group(1).replace(",", "")))
    return int(m.group(1)), sum(most.get(fn, 0) for fn in CAPTURE)


def recorded_calls(profile, call):
    """The calls of region `call` in `profile` (scope summary)."""
    scope = os.path.join(BUILD, "tools", "scope")
    out = subprocess.run([scope, "summary", profile], capture_output=True, check=True,
                         timeout=300).stdout.decode()
    for line in out.splitlines():
        w = line.split()
        if len(w) > 1 and w[0] == call:
            return int(w[1])
    return 0


def main():
    if len(sys.argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    preload = sys.argv[1] if len(sys.argv) == 2 else PRELOAD
    exe = os.path.join(BUILD, "bench", "bench_io")
    base = bare_env()
    print(f"CPU: {cpu_model()}\npreload {preload}\ninstructions per call (callgrind, "
          f"marginal over {3 * (LONG - SHORT)} calls)")
    print(f"{'call':8s} {'bare':>7s} {'added':>7s} {'capture':>8s}")
    with tempfile.TemporaryDirectory() as tmp:
        conf = os.path.join(tmp, "c.conf")
        with open(conf, "w") as f:
            f.write("include = bench_io*\nio_exclude = none\n")
        for call in CALLS:
            profile = os.path.join(tmp, "p.h5")
            env = dict(base, LD_PRELOAD=preload, SCOPE_CONFIG=conf, SCOPE_OUTPUT=profile,
                       SCOPE_MEMORY_BUDGET="1G")
            b0, _ = run(exe, base, call, SHORT, tmp)
            b1, _ = run(exe, base, call, LONG, tmp)
            r0, c0 = run(exe, env, call, SHORT, tmp)
            got = recorded_calls(profile, call)
            if got != 3 * SHORT:
                sys.exit(f"{call}: the recorded run kept {got} calls, not {3 * SHORT}")
            r1, c1 = run(exe, env, call, LONG, tmp)
            k = 3 * (LONG - SHORT)
            bare = (b1 - b0) / k
            print(f"{call:8s} {bare:7.1f} {(r1 - r0) / k - bare:7.1f} {(c1 - c0) / k:8.1f}",
                  flush=True)


if __name__ == "__main__":
    sys.exit(main())
