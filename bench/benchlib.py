"""benchlib.py - what the Python benchmarks in bench/ share, so that each
prints the machine and its figures the same way: the build folder they
time, the CPU model and load average they print first (the machine may be
shared), the environment of a bare run, min / median / max of repeated
runs, and the "name value" lines the C bench programs print.

Imported by the bench_*.py scripts next to it (Python puts a script's
folder on sys.path). Not a test."""
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
# SCOPE_BUILD: another build folder (a release build for figures worth quoting)
BUILD = os.environ.get("SCOPE_BUILD", os.path.join(os.path.dirname(HERE), "build"))


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, or "unknown CPU"."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def load():
    """The load averages over 1, 5 and 15 minutes: "3.2 2.9 2.5"."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def bare_env(prefix="SCOPE_"):
    """This process's environment without the profiler: no LD_PRELOAD and
    no variable starting with `prefix`."""
    return {k: v for k, v in os.environ.items() if not k.startswith(prefix)
            and k != "LD_PRELOAD"}


def mmm(xs, fmt="%.1f", scale=1.0, unit=None):
    """min / median / max of xs, each times scale in fmt, then the unit."""
    v = sorted(xs)
    text = " / ".join(fmt % (x * scale) for x in (v[0], statistics.median(v), v[-1]))
    return f"{text} {unit}" if unit else text


def run_figures(exe, env, *args, timeout=600):
    """Runs a C bench program (bench_mpi, bench_capture) and returns the
    figures it prints, one "name value" line each, as {name: float}."""
    out = subprocess.run([exe, *map(str, args)], env=env, capture_output=True, check=True,
                         timeout=timeout).stdout.decode()
    return {k: float(v) for k, v in (ln.split() for ln in out.splitlines())}


PRELOAD = os.path.join(BUILD, "preload", "libscope_preload.so")


def mpi_builds(program):
    """(mpi, path) of build/bench/<program>_<mpi> for Open MPI, then MPICH;
    one that is not built is said and passed over."""
    for mpi in ("openmpi", "mpich"):
        exe = os.path.join(BUILD, "bench", f"{program}_{mpi}")
        if not os.path.exists(exe):
            print(f"{mpi}: {exe} not built")
            continue
        yield mpi, exe


def profiled_env(base, output, preload=PRELOAD):
    """base under the preload, writing the profile to `output`."""
    return dict(base, LD_PRELOAD=preload, SCOPE_OUTPUT=output, SCOPE_MEMORY_BUDGET="1G")


def c_call_stacks(m, res):
    """The C reader's call stacks of every rank of `res` (module `m`:
    scope_reader), each built and freed; returns how many calls they hold."""
    import ctypes
    n = 0
    for rank in res.ranks:
        cs = m._p()
        m._check(m._cs_build(res._h, rank, -1, ctypes.byref(cs)))
        n += m._cs_count(cs)
        m._cs_free(cs)
    return n


def journal_keeper(build, tmp):
    """A SCOPE_H5WRITER for a profiled run whose journals are wanted: a
    script in tmp that copies each journal it is handed into the folder
    named by SCOPE_BENCH_KEEP (set it in the run's environment), then runs
    build's scope-h5write as the recorder asked. Returns its path."""
    writer = os.path.join(os.path.abspath(build), "convert", "scope-h5write")
    wrapper = os.path.join(tmp, "keep-writer.sh")
    with open(wrapper, "w") as f:
        f.write(f"""#!/bin/sh
for a in "$@"; do case "$a" in */journal.*) cp "$a" "$SCOPE_BENCH_KEEP/" ;; esac; done
exec '{writer}' "$@"
""")
    os.chmod(wrapper, 0o755)
    return wrapper
