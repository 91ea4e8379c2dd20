#!/usr/bin/env python3
"""check_bad_numbers.py - every grammar of the settings table, malformed on
purpose: the value is named, once, and the program runs on unchanged.

One case per grammar of base/settings_table.c (a flag, a word, a byte count,
a whole number, a duration in seconds and in ns, a signed whole number, a
path), each with a value that does not parse. For a profiled program
(fault_serial under the preload) every case checks that:

  - its exit status and standard output are exactly those of the bare run;
  - standard error holds exactly one line naming the variable, its value
    and the problem (the table's one message grammar), besides what scope
    says in the same run with no variable set (the config's warnings);
  - the default is used: the profile holds every call the program made
    (work: N), or, for the config's own variables (SCOPE_VERBOSE,
    SCOPE_MEMORY_BUDGET, SCOPE_TRAMPOLINE: a config error), nothing is
    written at all.

Under mpirun (3 ranks of fault_mpi), the variables every rank reads alike
(SCOPE_MPI_DATA, SCOPE_CLOCK_FANOUT, SCOPE_HOST_FILES) are said once per
job, by rank 0, and the job's output, status and profile are unchanged.

For the `scope` tool: a malformed SCOPE_OPEN_TIMEOUT fails the command
with the one line and no output; a malformed SCOPE_READER_JOBS is said
once and the profile read serially, with the same output as a good value.

  check_bad_numbers.py SCOPE PRELOAD FAULT_SERIAL CONFIG FAULT_MPI
"""
import csv
import io
import os
import subprocess
import sys
import tempfile

scope, preload, prog, config, prog_mpi = map(os.path.abspath, sys.argv[1:6])
MPIRUN = ["mpirun", "--oversubscribe", "--mca", "btl_tcp_if_include", "lo",
          "--mca", "oob_tcp_if_include", "lo", "-n", "3"]
env = {k: v for k, v in os.environ.items()
       if (not k.startswith("SCOPE") or k == "SCOPE_TRAMPOLINE") and k != "LD_PRELOAD"}
N = 7
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def calls_of(h5):
    p = subprocess.run([scope, "summary", "--format", "csv", h5], env=env,
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        return f"scope summary exited {p.returncode}: {p.stderr.strip()}"
    return {r["region"]: int(r["calls"]) for r in csv.DictReader(io.StringIO(p.stdout))}


# (variable, value, mode of fault_serial, the one line said, profile written)
PROFILED = [
    # a flag (0 or 1): the recorder's fatal-signal handlers stay on
    ("SCOPE_SIGNALS", "yes", "segv",
     "scope: SCOPE_SIGNALS: must be 0 or 1, not 'yes'; using 1", True),
    # a flag of the config: a config error, nothing recorded
    ("SCOPE_VERBOSE", "yes", "exit3",
     "scope: SCOPE_VERBOSE: must be 0 or 1, not 'yes'", False),
    # words
    ("SCOPE_HOST_FILES", "yes", "exit3",
     "scope: SCOPE_HOST_FILES: must be 0, 1 or auto, not 'yes'; using auto", True),
    ("SCOPE_CLOCK", "fast", "exit3",
     "scope: SCOPE_CLOCK: must be counter, monotonic, tsc or cntvct, not 'fast'; the clock "
     "is chosen as when unset", True),
    ("SCOPE_TRAMPOLINE", "jump", "exit3",
     "scope: SCOPE_TRAMPOLINE: must be call or redirect, not 'jump'", False),
    # a byte count (the config's: a config error)
    ("SCOPE_MEMORY_BUDGET", "12X", "exit3",
     "scope: SCOPE_MEMORY_BUDGET: bad number '12X'", False),
    ("SCOPE_MEMORY_BUDGET", "0", "exit3",
     "scope: SCOPE_MEMORY_BUDGET: must be greater than 0, not '0'", False),
    # durations: seconds (the dying rank still waits the default for its
    # writer: its file holds every call) and ns
    ("SCOPE_DEATH_WAIT", "ten", "segv",
     "scope: SCOPE_DEATH_WAIT: bad number 'ten' (a whole number of seconds from 0 to "
     "3600); using 10", True),
    ("SCOPE_DEATH_WAIT", "4000", "segv",
     "scope: SCOPE_DEATH_WAIT: must be between 0 and 3600, not '4000'; using 10", True),
    ("SCOPE_CLOCK_ROUND_NS", "1us", "exit3",
     "scope: SCOPE_CLOCK_ROUND_NS: bad number '1us' (a whole number of ns from 1 to "
     "1000000000000); timestamps are not rounded", True),
    ("SCOPE_CLOCK_ROUND_NS", "0", "exit3",
     "scope: SCOPE_CLOCK_ROUND_NS: must be between 1 and 1000000000000, not '0'; "
     "timestamps are not rounded", True),
    # a signed whole number
    ("SCOPE_CLOCK_DRIFT_PPM", "1.5", "exit3",
     "scope: SCOPE_CLOCK_DRIFT_PPM: bad number '1.5' (a whole number from -100000 to "
     "100000); no drift applied", True),
    ("SCOPE_CLOCK_DRIFT_PPM", "-200000", "exit3",
     "scope: SCOPE_CLOCK_DRIFT_PPM: must be between -100000 and 100000, not '-200000'; "
     "no drift applied", True),
]

with tempfile.TemporaryDirectory(prefix="scope-badnum-") as d:
    bare = {}
    for mode in ("segv", "exit3"):
        bare[mode] = subprocess.run([prog, mode, str(N)], env=env, cwd=d, capture_output=True,
                                    text=True, timeout=60)
    if bare["segv"].returncode != -11 or bare["exit3"].returncode != 3:
        sys.exit(f"FAIL bare runs ended {bare['segv'].returncode}, {bare['exit3'].returncode}")

    def scope_lines(stderr):
        return sorted(l for l in stderr.splitlines() if l.startswith("scope:"))

    # what scope says when every variable is good (the config's own warnings)
    quiet = {}
    for mode in ("segv", "exit3"):
        sub = os.path.join(d, f"quiet-{mode}")
        os.mkdir(sub)
        p = subprocess.run([prog, mode, str(N)], cwd=sub, capture_output=True, text=True,
                           timeout=120, env=dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=config,
                                                 SCOPE_OUTPUT=os.path.join(sub, "prof.h5")))
        quiet[mode] = scope_lines(p.stderr)

    for i, (var, value, mode, line, written) in enumerate(PROFILED):
        tag = f"{var}={value!r}"
        sub = os.path.join(d, f"case{i}")
        os.mkdir(sub)
        out = os.path.join(sub, "prof.h5")
        p = subprocess.run([prog, mode, str(N)], cwd=sub, capture_output=True, text=True,
                           timeout=120, env=dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=config,
                                                 SCOPE_OUTPUT=out, **{var: value}))
        b = bare[mode]
        if (p.returncode, p.stdout) != (b.returncode, b.stdout):
            fail(f"{tag}: ended {p.returncode} {p.stdout!r}, bare {b.returncode} {b.stdout!r}")
        said = scope_lines(p.stderr)
        # a config error stops everything before the config's warnings
        want = sorted([line] + (quiet[mode] if written else []))
        if said != want:
            fail(f"{tag}: said {said!r}, expected {want!r}")
        if written:
            calls = calls_of(out)
            if not isinstance(calls, dict) or calls.get("work") != N:
                fail(f"{tag}: the profile holds {calls}, expected work: {N}")
        elif os.listdir(sub):
            fail(f"{tag}: a config error, yet {os.listdir(sub)} written")
        else:
            print(f"ok {tag}: said once, program unchanged, nothing recorded")
            continue
        print(f"ok {tag}: said once, program unchanged, work: {N} calls")

    # a path: a scope-h5write that is not one; the journal stays for recover
    sub = os.path.join(d, "writer")
    os.mkdir(sub)
    out = os.path.join(sub, "prof.h5")
    p = subprocess.run([prog, "exit3", str(N)], cwd=sub, capture_output=True, text=True,
                       timeout=120, env=dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=config,
                                             SCOPE_OUTPUT=out, SCOPE_H5WRITER="/nonexistent/w"))
    said = [l for l in scope_lines(p.stderr) if l not in quiet["exit3"]]
    if (p.returncode, p.stdout) != (3, bare["exit3"].stdout):
        fail(f"SCOPE_H5WRITER: ended {p.returncode} {p.stdout!r}")
    if len(said) != 1 or "SCOPE_H5WRITER=/nonexistent/w is not an executable" not in said[0]:
        fail(f"SCOPE_H5WRITER='/nonexistent/w': said {said!r}")
    journals = [f for f in os.listdir(os.path.join(sub, "prof.ranks"))
                if f.startswith("journal.")] if os.path.isdir(os.path.join(sub, "prof.ranks")) else []
    if len(journals) != 1:
        fail(f"SCOPE_H5WRITER='/nonexistent/w': journals kept {journals}")
    else:
        print("ok SCOPE_H5WRITER='/nonexistent/w': named once, program unchanged, journal kept")

    # an MPI job: said once per job, by rank 0
    mpi_env = dict(env, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    mpi_cmd = MPIRUN + [prog_mpi, "clean", str(N)]
    runs = {}
    for label, extra in (("bare", {}), ("quiet", {"SCOPE_CONFIG": config}),
                         ("bad", {"SCOPE_CONFIG": config, "SCOPE_MPI_DATA": "yes",
                                  "SCOPE_CLOCK_FANOUT": "0", "SCOPE_HOST_FILES": "yes"})):
        sub = os.path.join(d, f"mpi-{label}")
        os.mkdir(sub)
        if extra:
            extra = dict(extra, LD_PRELOAD=preload, SCOPE_OUTPUT=os.path.join(sub, "prof.h5"))
        p = subprocess.run(mpi_cmd, env=dict(mpi_env, **extra), cwd=sub, capture_output=True,
                           text=True, timeout=180)
        runs[label] = (p, sub)
    (bare_mpi, _), (quiet_mpi, _), (bad_mpi, bad_sub) = runs["bare"], runs["quiet"], runs["bad"]
    if (bad_mpi.returncode, sorted(bad_mpi.stdout.splitlines())) != \
            (bare_mpi.returncode, sorted(bare_mpi.stdout.splitlines())):
        fail(f"mpirun: ended {bad_mpi.returncode} {bad_mpi.stdout!r}, bare "
             f"{bare_mpi.returncode} {bare_mpi.stdout!r}")
    want = sorted(scope_lines(quiet_mpi.stderr) + [
        "scope: SCOPE_MPI_DATA: must be 0 or 1, not 'yes'; using 1",
        "scope: SCOPE_CLOCK_FANOUT: must be between 1 and 64, not '0'; using 16",
        "scope: SCOPE_HOST_FILES: must be 0, 1 or auto, not 'yes'; using auto"])
    if scope_lines(bad_mpi.stderr) != want:
        fail(f"mpirun: said {scope_lines(bad_mpi.stderr)!r}, expected {want!r}")
    calls = calls_of(os.path.join(bad_sub, "prof.h5"))
    if not isinstance(calls, dict) or calls.get("work") != 3 * N or calls.get("MPI_Barrier") != 3:
        fail(f"mpirun: the profile holds {calls}, expected work: {3 * N}, MPI_Barrier: 3")
    else:
        print("ok mpirun -n 3: three malformed values said once per job, job unchanged")

    # the tool: a profile to read
    good_h5 = os.path.join(d, "case0", "prof.h5")
    summary = [scope, "summary", "--format", "csv", good_h5]
    good = subprocess.run(summary, env=dict(env, SCOPE_OPEN_TIMEOUT="30"),
                          capture_output=True, text=True, timeout=60)
    if good.returncode != 0:
        fail(f"scope summary exited {good.returncode}: {good.stderr}")
    bad = subprocess.run(summary, env=dict(env, SCOPE_OPEN_TIMEOUT="5s"),
                         capture_output=True, text=True, timeout=60)
    want = ("scope: SCOPE_OPEN_TIMEOUT: bad number '5s' (a whole number of seconds from 0 "
            "to 86400)\n")
    if bad.returncode == 0 or bad.stderr != want or bad.stdout:
        fail(f"SCOPE_OPEN_TIMEOUT='5s': exit {bad.returncode}, stderr {bad.stderr!r}")
    else:
        print("ok SCOPE_OPEN_TIMEOUT='5s': the command fails with the one line")
    # a count: read serially, same output
    jobs = subprocess.run(summary, env=dict(env, SCOPE_READER_JOBS="0"),
                          capture_output=True, text=True, timeout=60)
    want = ("scope: SCOPE_READER_JOBS: must be between 1 and 1000000, not '0'; reading "
            "serially\n" + good.stderr)
    if (jobs.returncode, jobs.stdout, jobs.stderr) != (0, good.stdout, want):
        fail(f"SCOPE_READER_JOBS='0': exit {jobs.returncode}, stderr {jobs.stderr!r}, "
             f"output {'same' if jobs.stdout == good.stdout else 'differs'}")
    else:
        print("ok SCOPE_READER_JOBS='0': said once, the same summary")

if failures:
    sys.exit(1)
print(f"check_bad_numbers: {len(PROFILED) + 6} malformed values named once; programs unchanged")
