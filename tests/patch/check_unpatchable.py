#!/usr/bin/env python3
"""check_unpatchable.py PRELOAD PROG_C PROG_CXX OUTDIR

Functions no patch may time (preload/engine/unpatchable.c): instrumented, those
that return twice crashed the program (setjmp, sigsetjmp, getcontext,
vfork: SIGSEGV), _start (the entry point, jumped to with argc where a
return address would be) gave main a wrong argc, swapcontext resumed on
the wrong stack, the unwinder's entry points turned every C++ throw into
std::terminate, and the calls of scope's own wrappers were never timed
while the file said they were. A
broad glob (`*`, `_U*`) reaches all of them in libc and libgcc_s.

  named   every such function named in the config, with work(): exit
          status and output as bare; work 5 calls and no region for the
          others; each has an interposition row "refused" with its reason,
          and a warning on stderr naming its entry and line
  star    `*` on the C and the C++ program: exit status and output as bare
          (the C++ program prints the depth backtrace() finds from main,
          which is timed: the preload's wrapper restores the real return
          addresses for the walk), work 5 calls, main 1
Each run has a time limit: a hang fails the test.
"""
import os
import re
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, fail, run_limited, region_counts  # noqa: E402

C_NAMED = {  # config entry -> a word of its reason
    "_setjmp": "returns twice", "__sigsetjmp": "returns twice", "getcontext": "returns twice",
    "vfork": "returns twice", "swapcontext": "another context",
    "dlsym": "return address", "longjmp": "wraps it", "_start": "jumped to",
}
CXX_NAMED = {
    "_Unwind_RaiseException": "std::terminate", "_Unwind_Resume": "std::terminate",
    "_Unwind_Resume_or_Rethrow": "std::terminate", "_Unwind_Backtrace": "walks the stack",
    "backtrace": "wraps it",
    "__cxa_throw": "wraps it", "__cxa_begin_catch": "wraps it",
}


def run(cmd, env, cwd, what):
    p = run_limited(cmd, env, cwd, what)
    return p.returncode, p.stdout, p.stderr


def case(name, prog, conf_lines, preload, outdir):
    """Runs prog bare and profiled; returns (open profile, profiled stderr)."""
    d = os.path.join(outdir, name)
    os.makedirs(d)
    env = clean_env()
    cmd = [prog, "one", "two"]   # the entry point passes argc and argv on
    rc, out, _ = run(cmd, env, d, f"{name}, bare")
    conf = os.path.join(d, "scope.conf")
    with open(conf, "w") as f:
        f.write("\n".join(conf_lines) + "\n")
    prc, pout, perr = run(cmd, dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=conf,
                                       SCOPE_OUTPUT=os.path.join(d, "p.h5")), d,
                          f"{name}, profiled")
    if (prc, pout) != (rc, out):
        fail(f"{name}: profiled exit {prc} output {pout!r} stderr {perr[-600:]!r}; "
             f"bare exit {rc} output {out!r}")
    return h5py.File(os.path.join(d, "p.h5"), "r"), perr



def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def check_named(name, prog, named, preload, outdir):
    lines = list(named) + ["work"]
    f, err = case(name, prog, lines, preload, outdir)
    with f:
        g = f["rank0"]
        got = region_counts(g)
        if got != {"work": 5}:
            fail(f"{name}: regions {got}, want only work: 5")
        rows = g["interposition"][()]
        cols = g["interposition"].dtype.names
        by_pattern = {}
        for row in rows:
            r = dict(zip(cols, (text(v) for v in row)))
            by_pattern.setdefault(r["pattern"], []).append(r)
    for line_no, (entry, word) in enumerate(named.items(), start=1):
        rs = by_pattern.get(entry)
        if not rs or any(r["status"] != "refused" or word not in r["reason"] for r in rs):
            fail(f"{name}: interposition rows of '{entry}': {rs}, want refused, '{word}'")
        want = f"'{entry}' (line {line_no}) matched"
        if not any(want in ln and "none of which can be timed" in ln and word in ln
                   for ln in err.splitlines()):
            fail(f"{name}: no warning {want!r} ... {word!r} on stderr: {err[-1500:]!r}")
    if [r["status"] for r in by_pattern.get("work", [])] != ["patched"]:
        fail(f"{name}: work not patched: {by_pattern.get('work')}")
    if re.search(r"'work' \(line", err):
        fail(f"{name}: a warning about work: {err!r}")


def check_star(name, prog, preload, outdir):
    f, _ = case(name, prog, ["*"], preload, outdir)
    with f:
        got = region_counts(f["rank0"])
    if got.get("work") != 5 or got.get("main") != 1:
        fail(f"{name}: work {got.get('work')}, main {got.get('main')}; want 5 and 1")


def main():
    preload, prog_c, prog_cxx = (os.path.abspath(a) for a in sys.argv[1:4])
    outdir = os.path.abspath(sys.argv[4])
    check_named("named_c", prog_c, C_NAMED, preload, outdir)
    check_named("named_cxx", prog_cxx, CXX_NAMED, preload, outdir)
    check_star("star_c", prog_c, preload, outdir)
    check_star("star_cxx", prog_cxx, preload, outdir)
    print(f"check_unpatchable: {len(C_NAMED) + len(CXX_NAMED)} functions refused with their "
          "reasons; `*` on C and C++ programs runs as bare")


if __name__ == "__main__":
    main()
