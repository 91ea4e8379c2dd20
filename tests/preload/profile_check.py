#!/usr/bin/python3
"""profile_check.py - the end-to-end checks of libscope_preload.so and
`scope run`: runs real programs under real mpirun (Open MPI, 4 ranks,
--oversubscribe, root allowed) with the preload, then opens what they wrote
with h5py and asserts exact results.

One subcommand per test (see tests/preload/meson.build):

  exports      the preload exports exactly the six interposed MPI names
  needed       its DT_NEEDED list holds no libmpi/libhdf5/libunwind/libstdc++
  mpi          N ranks of a program: exactly N rank files + the index; each
               rank file has the right rank, pid, size, start time and the
               MPI_Init span; h5py sees rank0..rank<N-1> through the index
  silence      launchers, shells and helpers under the preload write nothing
  serial       a program that never calls MPI_Init
  config-error a broken config: one "scope: file:line:col: problem" line per
               job, recording off, the program's output and status unchanged
  run-exit     `scope run` passes the command's exit status through
  run-mpi      `scope run -- mpirun -n N prog` profiles all N ranks

Every check prints what it compared; the first mismatch fails the test.
Runs with Debian's /usr/bin/python3 (h5py).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

import h5py

MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
TIMEOUT = 120  # seconds; a hang is a failure, never a timing check
SPAN = "MPI_Init..MPI_Finalize"
LINE = re.compile(r"^rank (\d+) size (\d+) pid (\d+) main_ns (\d+)")


class CheckFailed(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise CheckFailed(what)
    print("ok:", what)


def expect_eq(got, want, what):
    if got != want:
        raise CheckFailed(f"{what}: got {got!r}, want {want!r}")
    print(f"ok: {what} == {want!r}")


def clean_env(**extra):
    """The test's environment: no SCOPE_* or LD_PRELOAD inherited from the
    caller, Open MPI allowed to run as root, plus `extra`."""
    env = {k: v for k, v in os.environ.items()
           if (not k.startswith("SCOPE") or k == "SCOPE_TRAMPOLINE") and k != "LD_PRELOAD"}
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    env.update({k: v for k, v in extra.items() if v is not None})
    return env


def run(cmd, env, cwd, check_rc=None):
    print("run:", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                       timeout=TIMEOUT)
    if p.stderr:
        print("stderr:\n" + p.stderr.rstrip())
    if check_rc is not None and p.returncode != check_rc:
        print("stdout:\n" + p.stdout.rstrip())
        raise CheckFailed(f"{cmd[0]} exited with {p.returncode}, want {check_rc}")
    return p


def all_files(root):
    """Every file below root, as paths relative to it (sorted)."""
    out = []
    for d, _, files in os.walk(root):
        out += [os.path.relpath(os.path.join(d, f), root) for f in files]
    return sorted(out)


def rank_lines(stdout, nranks):
    """{rank: (size, pid, main_ns)} from the programs' "rank ..." lines."""
    got = {}
    for line in stdout.splitlines():
        m = LINE.match(line)
        if m:
            r, s, pid, main_ns = (int(x) for x in m.groups())
            got[r] = (s, pid, main_ns)
    expect_eq(sorted(got), list(range(nranks)), "ranks that printed their line")
    return got


def attr(obj, name):
    v = obj.attrs[name]
    if isinstance(v, bytes):
        return v.decode()
    if hasattr(v, "item"):
        return v.item()
    return v


def region_events(group, name):
    """(starts, ends) of region `name` in a /rank<N> group."""
    link = name.replace("%", "%25").replace("/", "%2F")
    reg = group["regions"][link]
    return list(reg["start_times"][()]), list(reg["end_times"][()])


def check_rank_file(path, rank, size, pid, main_ns, init_region):
    """One rank file: complete on its own, right identity and start time,
    the init call inside the span region."""
    with h5py.File(path, "r") as f:
        expect_eq(int(attr(f, "scope_format")), 1, f"{path} scope_format")
        g = f[f"rank{rank}"]
        expect_eq(int(attr(g, "rank")), rank, f"rank{rank} attr rank")
        expect_eq(int(attr(g, "pid")), pid, f"rank{rank} attr pid")
        expect_eq(int(attr(f["metadata"], "mpi_size")), size, f"rank{rank} mpi_size")
        start = int(attr(g, "start_time_ns"))
        expect_eq(int(attr(f["metadata"], "start_time_ns")), start,
                  f"rank{rank} /metadata start_time_ns equals the rank's")
        if main_ns:
            expect(0 < start <= main_ns,
                   f"rank{rank} start_time_ns {start} taken before main ({main_ns})")
        init_s, init_e = region_events(g, init_region)
        expect_eq(len(init_s), 1, f"rank{rank} {init_region} calls")
        span_s, span_e = region_events(g, SPAN)
        expect_eq(len(span_s), 1, f"rank{rank} {SPAN} calls")
        reg = g["regions"][init_region]
        expect_eq(attr(reg, "kind"), "mpi", f"rank{rank} {init_region} kind")
        expect_eq(attr(g["regions"][SPAN], "kind"), "manual", f"rank{rank} span kind")
        expect(start <= span_s[0] <= init_s[0] <= init_e[0] <= span_e[0],
               f"rank{rank}: start <= span start <= init start <= init end <= span end")
        if main_ns:
            expect(main_ns <= init_s[0], f"rank{rank} MPI_Init starts after main")


def check_index(path, nranks):
    """The index file: h5py sees rank0..rank<n-1> through external links."""
    with h5py.File(path, "r") as f:
        ranks = sorted(k for k in f.keys() if k.startswith("rank"))
        want = sorted(f"rank{r}" for r in range(nranks))
        expect_eq(ranks, want, "rank groups seen through the index")
        expect_eq(int(attr(f["metadata"], "mpi_size")), nranks, "index mpi_size")
        for r in range(nranks):
            link = f.get(f"rank{r}", getlink=True)
            expect(isinstance(link, h5py.ExternalLink), f"index /rank{r} is an external link")
            expect_eq(int(attr(f[f"rank{r}"], "rank")), r, f"index rank{r} resolves")


def check_profile(tmp, out, nranks, lines, init_region, extra_files=()):
    """Exactly the index + nranks rank files (+ the program's own files)."""
    stem = os.path.splitext(os.path.basename(out))[0]
    want = sorted([os.path.basename(out)]
                  + [f"{stem}.ranks/rank{r}.h5" for r in range(nranks)]
                  + list(extra_files))
    expect_eq(all_files(tmp), want, "files left in the run folder")
    for r in range(nranks):
        size, pid, main_ns = lines[r]
        expect_eq(size, nranks, f"rank {r} printed size")
        check_rank_file(os.path.join(tmp, f"{stem}.ranks", f"rank{r}.h5"),
                        r, nranks, pid, main_ns, init_region)
    check_index(out, nranks)


INTERPOSED = sorted(["MPI_Finalize", "MPI_Init", "MPI_Init_thread", "MPI_Abort",
                     "PMPI_Finalize", "PMPI_Init", "PMPI_Init_thread", "PMPI_Abort",
                     # the interposition engine's hooks (preload/engine/unwind_hooks.c,
                     # preload/engine/dlopen_hook.c)
                     "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",
                     "__cxa_throw", "__cxa_rethrow", "__cxa_begin_catch", "pthread_exit",
                     "backtrace",
                     "_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE",
                     "dlopen", "dlmopen", "dlclose",
                     # the OpenMP tool interface's entry point (preload/omp/)
                     "ompt_start_tool",
                     # libscope.so's public API, interposed (preload/exports.map)
                     "scope_init", "scope_finalize", "scope_region", "scope_begin",
                     "scope_end", "scope_dropped_events", "scope_set_rank",
                     "scope_scoped_begin", "scope_scoped_end"])
# Libraries the preload may need: libc-level ones and leaf libraries.
ALLOWED_NEEDED = re.compile(r"^(libc|libdl|libpthread|libm|librt|ld-linux-x86-64|libelf|"
                            r"libZydis|libz|libzstd)\.so")
FORBIDDEN_NEEDED = re.compile(r"libmpi|libhdf5|libunwind|libstdc\+\+|libgfortran|libopen-")


def cmd_exports(a):
    """The preload exports exactly the interposed MPI lifecycle names."""
    p = run(["nm", "-D", "--defined-only", a.preload], clean_env(), None, check_rc=0)
    names = sorted(line.split()[-1] for line in p.stdout.splitlines() if line.strip())
    expect_eq(names, INTERPOSED, "symbols exported by the preload")


def cmd_needed(a):
    """DT_NEEDED holds only libc-level and leaf libraries."""
    p = run(["readelf", "-d", a.preload], clean_env(), None, check_rc=0)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", p.stdout)
    print("NEEDED:", needed)
    expect("libc.so.6" in needed, "libc.so.6 is needed")
    expect_eq([n for n in needed if FORBIDDEN_NEEDED.search(n)], [],
              "no libmpi, libhdf5, libunwind, libstdc++ in DT_NEEDED")
    expect_eq([n for n in needed if not ALLOWED_NEEDED.match(n)], [],
              "only libc-level and leaf libraries in DT_NEEDED")


def cmd_mpi(a):
    """N ranks of a real MPI program under mpirun with the preload."""
    with tempfile.TemporaryDirectory(prefix="scope-preload-") as tmp:
        out = os.path.join(tmp, "prof.h5")
        env = clean_env(LD_PRELOAD=a.preload, SCOPE_OUTPUT=out)
        prog = list(a.prog)
        extra = []
        if a.own_hdf5:
            prog.append(os.path.join(tmp, "app"))
            extra = [f"app.rank{r}.h5" for r in range(a.np)]
        p = run(MPIRUN + ["-n", str(a.np)] + prog, env, tmp, check_rc=0)
        lines = rank_lines(p.stdout, a.np)
        if a.layer:
            for call in ("MPI_Init", "MPI_Finalize"):
                expect_eq(p.stdout.count(f"layer: {call}\n"), a.np,
                          f"calls that went through the PMPI layer's {call}")
        check_profile(tmp, out, a.np, lines, a.init_region, extra)
        for r in range(a.np) if a.own_hdf5 else []:
            with h5py.File(os.path.join(tmp, f"app.rank{r}.h5"), "r") as f:
                expect_eq(list(f.keys()), ["data"], f"app.rank{r}.h5 objects")
                expect_eq([int(x) for x in f["data"][()]],
                          [i * (r + 1) for i in range(100)], f"app.rank{r}.h5 /data values")


def cmd_silence(a):
    """Launchers, shells, helpers and non-MPI processes write nothing, and
    their output is the same as without the preload."""
    with tempfile.TemporaryDirectory(prefix="scope-silence-") as tmp:
        base = clean_env()
        pre = clean_env(LD_PRELOAD=a.preload)
        cases = [
            ["bash", "-c", "ls; echo done"],
            ["sh", "-c", "echo from sh"],
            ["env", "SCOPE_TEST_X=1", "printenv", "SCOPE_TEST_X"],
            ["hostname"],
            ["/usr/bin/python3", "-c", "print('py')"],
            MPIRUN + ["-n", "2", "hostname"],
            MPIRUN + ["-n", "2", "bash", "-c", "echo rank-shell"],
        ]
        for cmd in cases:
            want = run(cmd, base, tmp)
            got = run(cmd, pre, tmp)
            expect_eq(got.returncode, want.returncode, f"{cmd[0]} exit status")
            expect_eq(sorted(got.stdout.splitlines()), sorted(want.stdout.splitlines()),
                      f"{' '.join(cmd)} output")
            expect_eq(got.stderr, "", f"{' '.join(cmd)} prints nothing on stderr")
            expect_eq(all_files(tmp), [], f"no file left by {' '.join(cmd)}")


def cmd_serial(a):
    """A program that never calls MPI_Init. With --records (a program that
    records regions itself) it is rank 0 of 1: one rank file + the index.
    Without, it recorded nothing and writes nothing."""
    with tempfile.TemporaryDirectory(prefix="scope-serial-") as tmp:
        out = os.path.join(tmp, "prof.h5")
        env = clean_env(LD_PRELOAD=a.preload, SCOPE_OUTPUT=out)
        p = run(list(a.prog), env, tmp, check_rc=0)
        m = re.search(r"serial pid (\d+)", p.stdout)
        expect(m is not None, "serial program printed its pid")
        if not a.records:
            expect_eq(all_files(tmp), [], "files of a serial run that recorded nothing")
            return
        expect_eq(all_files(tmp), ["prof.h5", "prof.ranks/rank0.h5"], "files of a serial run")
        with h5py.File(os.path.join(tmp, "prof.ranks", "rank0.h5"), "r") as f:
            g = f["rank0"]
            expect_eq(int(attr(g, "rank")), 0, "serial rank")
            expect_eq(int(attr(g, "pid")), int(m.group(1)), "serial pid")
            expect_eq(int(attr(f["metadata"], "mpi_size")), 1, "serial mpi_size")
            s, _ = region_events(g, a.records)
            expect_eq(len(s), a.count, f"calls of {a.records}")
        check_index(out, 1)


def cmd_config_error(a):
    """A broken config: the programs' output and exit status are unchanged,
    nothing is written, and the message is printed once per job: by a
    serial program, by the first process of a shell pipeline, and by one
    process of an mpirun job."""
    want_line = "scope: " + a.message.replace("{config}", a.config or "") + "\n"
    with tempfile.TemporaryDirectory(prefix="scope-cfgerr-") as tmp:
        base = clean_env()
        pre = clean_env(LD_PRELOAD=a.preload, SCOPE_CONFIG=a.config,
                        SCOPE_OUTPUT=os.path.join(tmp, "prof.h5"),
                        **dict(kv.split("=", 1) for kv in a.env))
        ranks_env = dict(pre)
        del ranks_env["LD_PRELOAD"]
        mpi = MPIRUN + ["-n", str(a.np)] + list(a.prog)
        # (label, command, command with the preload, environment)
        cases = [("serial", [a.serial, "3"], None, pre),
                 ("under bash", ["bash", "-c", f"{a.serial} 3; {a.serial} 4"], None, pre),
                 ("under mpirun", mpi, None, pre),
                 # preload in the ranks only: rank 0 alone must print
                 ("ranks only", mpi, MPIRUN + ["-x", f"LD_PRELOAD={a.preload}", "-n",
                                               str(a.np)] + list(a.prog), ranks_env)]
        # pids and times differ between runs: compare with digits masked
        mask = lambda s: sorted(re.sub(r"\d+", "N", s).splitlines())  # noqa: E731
        for label, cmd, cmd_pre, env in cases:
            want = run(cmd, base, tmp)
            got = run(cmd_pre or cmd, env, tmp)
            expect_eq(got.returncode, want.returncode, f"{label}: exit status")
            expect_eq(mask(got.stdout), mask(want.stdout), f"{label}: output")
            expect_eq(want.stderr, "", f"{label}: silent without the preload")
            expect_eq(got.stderr, want_line, f"{label}: stderr is the one error line")
            expect_eq(all_files(tmp), [], f"{label}: nothing written")


def scope_run(a, tmp, args, out):
    env = clean_env(SCOPE_OUTPUT=None)
    return run([a.scope, "run", "-o", out, "--"] + args, env, tmp)


def cmd_run_exit(a):
    """`scope run` gives back the command's status: its exit code, or death
    by the same signal (scope re-raises it on itself)."""
    with tempfile.TemporaryDirectory(prefix="scope-runexit-") as tmp:
        out = os.path.join(tmp, "prof.h5")
        for code in (0, 3):
            p = scope_run(a, tmp, [a.serial, str(code)], out)
            expect_eq(p.returncode, code, f"scope run exit code for exit({code})")
            expect(re.match(r"serial pid \d+\n$", p.stdout) is not None,
                   "the command's stdout passes through unchanged")
        p = scope_run(a, tmp, ["sh", "-c", "kill -TERM $$"], out)
        expect_eq(p.returncode, -signal.SIGTERM, "scope run dies by the command's signal")
        p = run([a.scope, "run", "-o", out, "--", os.path.join(tmp, "no-such-program")],
                clean_env(), tmp)
        expect_eq(p.returncode, 127, "scope run: command not found is 127")
        expect(f"{os.path.join(tmp, 'no-such-program')}" in p.stderr,
               "the not-found message names the command")
        p = run([a.scope, "run"], clean_env(), tmp)
        expect_eq(p.returncode, 2, "scope run without a command is a usage error (2)")
        expect(p.stderr.startswith("usage: scope run"), "usage message")
        # a static program: LD_PRELOAD is ignored, silently; scope run says why
        # nothing was written, naming the program, and its status passes
        p = scope_run(a, tmp, [a.static, "4"], out)
        expect_eq(p.returncode, 4, "scope run exit code of a static program")
        expect(f"scope: {a.static}: it is statically linked" in p.stderr,
               "the static program is named as why no profile was written")
        p = scope_run(a, tmp, [a.serial, "0"], out)
        expect("statically linked" not in p.stderr, "no such line for a dynamic program")
        # without a config, a program that never calls MPI_Init records
        # nothing: scope run says so, with the remedy (a config)
        expect("a program that never calls MPI_Init records nothing" in p.stderr
               and "scope run -c FILE" in p.stderr,
               "the default config's reason is said when nothing was written")
        conf = os.path.join(tmp, "none.conf")
        with open(conf, "w") as f:
            f.write("no_such_function\n")
        p = run([a.scope, "run", "-c", conf, "-o", out, "--", a.serial, "0"], clean_env(), tmp)
        expect("no profile was written" in p.stderr
               and "never calls MPI_Init records nothing" not in p.stderr,
               "with a config, the default config's reason is not given")


def cmd_run_mpi(a):
    """`scope run -o OUT -- mpirun -n N prog`: the environment reaches every
    rank on one node without -x, all N ranks write, and the pointer line
    names the output."""
    with tempfile.TemporaryDirectory(prefix="scope-runmpi-") as tmp:
        out = os.path.join(tmp, "prof.h5")
        p = run([a.scope, "run", "-o", out, "--"] + MPIRUN + ["-n", str(a.np)] + list(a.prog),
                clean_env(), tmp, check_rc=0)
        lines = rank_lines(p.stdout, a.np)
        check_profile(tmp, out, a.np, lines, "MPI_Init")
        expect(f"scope summary {out}" in p.stderr, "pointer line shows how to summarise")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("exports", "needed", "mpi", "silence", "serial", "config-error",
                 "run-exit", "run-mpi"):
        s = sub.add_parser(name)
        s.add_argument("--preload")
        s.add_argument("--scope")
        s.add_argument("--serial")
        s.add_argument("--static", help="a statically linked program (run-exit)")
        s.add_argument("--np", type=int, default=4)
        s.add_argument("--init-region", default="MPI_Init")
        s.add_argument("--own-hdf5", action="store_true")
        s.add_argument("--layer", action="store_true", help="program links pmpi_layer")
        s.add_argument("--records", help="region the serial program records")
        s.add_argument("--count", type=int, default=0)
        s.add_argument("--config")
        s.add_argument("--message", help="expected error; {config} = the config path")
        s.add_argument("--env", action="append", default=[], help="K=V for the program")
        s.add_argument("prog", nargs="*")
    a = ap.parse_args()
    # meson passes paths relative to the build folder; the programs run
    # in a temporary folder
    for field in ("preload", "scope", "serial", "static"):
        if getattr(a, field):
            setattr(a, field, os.path.abspath(getattr(a, field)))
    a.prog = [os.path.abspath(x) if os.path.exists(x) else x for x in a.prog]
    fn = {"exports": cmd_exports, "needed": cmd_needed, "mpi": cmd_mpi, "silence": cmd_silence, "serial": cmd_serial,
          "config-error": cmd_config_error, "run-exit": cmd_run_exit,
          "run-mpi": cmd_run_mpi}[a.cmd]
    try:
        fn(a)
    except (CheckFailed, subprocess.TimeoutExpired, KeyError, OSError) as e:
        print(f"FAIL: {type(e).__name__}: {e}")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
