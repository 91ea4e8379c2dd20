#!/usr/bin/python3
"""bench_waits.py [STEPS] [--profile PATH] - how fast the reader matches
messages and computes wait states, and in how much memory (issue 29;
target: >= 10 M events/s on the machine of the issue). Profiles
bench/waits_prog.c (4 ranks under Open MPI's mpirun, STEPS ring steps per
rank, default 250,000: about 4.1 M MPI calls with their requests; or takes
an existing PROFILE), then, in this one process through ctypes:

  read     scope_profile_waits on a freshly opened profile: the MPI
           regions' times, data columns and request tables read from HDF5,
           one rank at a time, then matched (what `scope waits` costs);
  spill    the same with a 64 MiB budget (scope_profile_waits_budget): the
           ends matched in buckets through temporary files;
  cached   scope_profile_waits on a profile whose columns the caller had
           already loaded (they stay cached, so the whole run's columns
           are in memory beside the ends);
  bare     scope_profile_times of every MPI region on every rank of a
           freshly opened profile: the reference any reader of those calls
           pays;

each 5 times, min / median / max, as events (MPI calls) per second and as
a ratio to `bare`, by wall time and by this process's CPU time; the two
phases of `read` as the library timed them (its totals' `cost`: gather =
reading and making the ends, match = matching and wait states, the
figure of the issue's target); then the peak RSS of `read` and `spill`, each in a
process of its own, against the RSS of opening the profile alone. Not a
test (the machine is noisy). Run after `meson compile -C build`:
/usr/bin/python3 bench/bench_waits.py (SCOPE_BUILD=DIR for another build
folder, e.g. a release one)"""
import ctypes
import os
import subprocess
import sys
import tempfile
import time

from benchlib import BUILD, HERE, mmm

# the library's scope_waits_totals as the Python module declares it
os.environ["SCOPE_READER_LIB"] = os.path.join(BUILD, "reader", "libscope_reader.so")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools", "python"))
from scope_reader.waits import _Totals as Totals  # noqa: E402
ROUNDS = 5


SPILL_BUDGET = 64 << 20


def load(build):
    lib = ctypes.CDLL(os.path.join(build, "reader", "libscope_reader.so"))
    p = ctypes.c_void_p
    lib.scope_profile_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(p)]
    lib.scope_profile_close.argtypes = [p]
    lib.scope_profile_waits.argtypes = [p, ctypes.c_int, ctypes.POINTER(p)]
    lib.scope_profile_waits_budget.argtypes = [p, ctypes.c_int, ctypes.c_int64,
                                               ctypes.POINTER(p)]
    lib.scope_waits_free.argtypes = [p]
    lib.scope_waits_totals_get.argtypes = [p, ctypes.c_void_p]
    lib.scope_profile_region_count.argtypes = [p]
    lib.scope_profile_calls.argtypes = [p, ctypes.c_int, ctypes.c_int]
    lib.scope_profile_calls.restype = ctypes.c_int64
    lib.scope_profile_region_name.argtypes = [p, ctypes.c_int]
    lib.scope_profile_region_name.restype = ctypes.c_char_p
    P64 = ctypes.POINTER(ctypes.c_int64)
    lib.scope_profile_times.argtypes = [p, ctypes.c_int, ctypes.c_int, ctypes.POINTER(P64),
                                        ctypes.POINTER(P64), ctypes.POINTER(ctypes.c_int64)]
    for f in ("scope_profile_moved",):
        getattr(lib, f).argtypes = [p, ctypes.c_int, ctypes.c_int, ctypes.c_char_p]
    for f in ("scope_profile_requests", "scope_profile_communicators"):
        getattr(lib, f).argtypes = [p, ctypes.c_int, ctypes.c_char_p]
    lib.scope_profile_rank_count.argtypes = [p]
    lib.scope_profile_rank.argtypes = [p, ctypes.c_int]
    return lib


def opened(lib, prof):
    h = ctypes.c_void_p()
    if lib.scope_profile_open(prof.encode(), ctypes.byref(h)) != 0:
        sys.exit("cannot open the profile")
    return h


def mpi_regions(lib, h):
    return [r for r in range(lib.scope_profile_region_count(h))
            if lib.scope_profile_region_name(h, r).startswith(b"MPI_")]


def ranks_of(lib, h):
    return [lib.scope_profile_rank(h, k) for k in range(lib.scope_profile_rank_count(h))]


def waits(lib, h, budget=0):
    """Runs the analysis; returns its totals (their `cost` fields: the
    gathering and the matching timed apart inside the library)."""
    w = ctypes.c_void_p()
    if lib.scope_profile_waits_budget(h, 1, budget, ctypes.byref(w)) != 0:
        sys.exit("scope_profile_waits failed")
    t = Totals()
    lib.scope_waits_totals_get(w, ctypes.byref(t))
    lib.scope_waits_free(w)
    return t


def rss_of(mode, prof):
    """Peak RSS (MiB) of a process that opens the profile and runs `mode`."""
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--rss", mode, prof],
                       capture_output=True, text=True, check=True)
    return float(r.stdout)


def rss_child(mode, prof):
    lib = load(BUILD)
    h = opened(lib, prof)
    if mode != "open":
        waits(lib, h, SPILL_BUDGET if mode == "spill" else 0)
    lib.scope_profile_close(h)
    # VmHWM, not ru_maxrss: the latter survives exec, so it would be the
    # parent's peak
    hwm = next(ln for ln in open("/proc/self/status") if ln.startswith("VmHWM:"))
    print(int(hwm.split()[1]) / 1024)
    return 0


def main():
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "--rss":
        return rss_child(args[1], args[2])
    prof = None
    if "--profile" in args:
        i = args.index("--profile")
        if i + 1 >= len(args):
            sys.exit("--profile takes a path")
        prof = args[i + 1]
        del args[i:i + 2]
    if len(args) > 1 or (args and not args[0].isdigit()):
        print("usage: bench_waits.py [STEPS] [--profile PATH]   (ring steps per rank, "
              "default 250000)", file=sys.stderr)
        return 2
    steps = int(args[0]) if args else 250000
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), "?")
    lib = load(BUILD)
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        if prof is None:
            print(f"CPU: {cpu}; {steps} ring steps x 4 ranks; {ROUNDS} rounds: "
                  "min / median / max")
            prof = profile(tmp, steps)
        else:
            print(f"CPU: {cpu}; {prof}; {ROUNDS} rounds: min / median / max")
        h = opened(lib, prof)
        mpi_calls = sum(lib.scope_profile_calls(h, r, -1) for r in mpi_regions(lib, h)
                        if lib.scope_profile_region_name(h, r) != b"MPI_Init..MPI_Finalize")
        lib.scope_profile_close(h)
        res = {"bare": [], "read": [], "spill": [], "cached": []}
        cpu_s = {k: [] for k in res}   # this process's CPU time: what load cannot inflate
        phase = {"gather": [], "gather_cpu": [], "match": [], "match_cpu": []}
        P64 = ctypes.POINTER(ctypes.c_int64)
        buf = ctypes.create_string_buffer(256)
        for _ in range(ROUNDS):
            h = opened(lib, prof)
            s, e, n = P64(), P64(), ctypes.c_int64()
            t, c = time.perf_counter(), time.process_time()
            for r in mpi_regions(lib, h):
                for k in ranks_of(lib, h):
                    lib.scope_profile_times(h, r, k, ctypes.byref(s), ctypes.byref(e),
                                            ctypes.byref(n))
            res["bare"].append(time.perf_counter() - t)
            cpu_s["bare"].append(time.process_time() - c)
            lib.scope_profile_close(h)
            for mode, budget in (("read", 0), ("spill", SPILL_BUDGET)):
                h = opened(lib, prof)
                t, c = time.perf_counter(), time.process_time()
                tot = waits(lib, h, budget)
                res[mode].append(time.perf_counter() - t)
                cpu_s[mode].append(time.process_time() - c)
                if mode == "read":
                    for k in phase:
                        phase[k].append(getattr(tot, k + "_ns") / 1e9)
                lib.scope_profile_close(h)
            h = opened(lib, prof)
            for k in ranks_of(lib, h):   # the caller's cache: kept by the analysis
                lib.scope_profile_requests(h, k, buf)
                lib.scope_profile_communicators(h, k, buf)
                for r in mpi_regions(lib, h):
                    lib.scope_profile_times(h, r, k, ctypes.byref(s), ctypes.byref(e),
                                            ctypes.byref(n))
                    lib.scope_profile_moved(h, r, k, buf)
            t, c = time.perf_counter(), time.process_time()
            waits(lib, h)
            res["cached"].append(time.perf_counter() - t)
            cpu_s["cached"].append(time.process_time() - c)
            lib.scope_profile_close(h)
        print(f"{mpi_calls:,} MPI calls (events) analysed; load average {os.getloadavg()[0]:.1f} "
              f"(at the start {load0:.1f}); wall time, then CPU time of this process")
        for k in ("bare", "read", "spill", "cached"):
            rates = [mpi_calls / s / 1e6 for s in res[k]]
            ratio = [a / b for a, b in zip(res[k], res["bare"])]
            crates = [mpi_calls / max(s, 1e-9) / 1e6 for s in cpu_s[k]]
            print(f"  {k:6s} {mmm(res[k], '%.3f')} s   {mmm(rates, '%.1f')} M events/s   "
                  f"x bare {mmm(ratio, '%.2f')}   CPU {mmm(crates, '%.1f')} M events/s")
        for k in ("gather", "match"):
            print(f"  read's {k:6s} phase: {mmm(phase[k], '%.3f')} s = "
                  f"{mmm([mpi_calls / x / 1e6 for x in phase[k]], '%.1f')} M events/s; CPU "
                  f"{mmm([mpi_calls / max(x, 1e-9) / 1e6 for x in phase[k + '_cpu']], '%.1f')}"
                  " M events/s")
        base = rss_of("open", prof)
        for mode in ("read", "spill"):
            peak = rss_of(mode, prof)
            print(f"  peak RSS {mode:5s}: {peak:.0f} MiB ({peak - base:.0f} MiB above opening "
                  f"the profile, {base:.0f} MiB; {(peak - base) * 2**20 / mpi_calls:.0f} "
                  f"bytes per MPI call)")
    return 0


def profile(tmp, steps):
    exe = os.path.join(tmp, "waits_prog")
    subprocess.run(["mpicc", "-O2", "-o", exe, os.path.join(HERE, "waits_prog.c")], check=True)
    conf = os.path.join(tmp, "scope.conf")
    with open(conf, "w") as f:
        f.write("MPI_*\n")
    prof = os.path.join(tmp, "run.h5")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOPE_")}
    env.update(LD_PRELOAD=os.path.join(BUILD, "preload", "libscope_preload.so"),
               SCOPE_CONFIG=conf, SCOPE_OUTPUT=prof, SCOPE_MEMORY_BUDGET="2G",
               SCOPE_H5WRITER=os.path.join(BUILD, "convert", "scope-h5write"),
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    t0 = time.monotonic()
    subprocess.run(["mpirun", "--oversubscribe", "--mca", "btl_tcp_if_include", "lo",
                    "--mca", "oob_tcp_if_include", "lo", "-n", "4", exe, str(steps)],
                   env=env, check=True, capture_output=True, timeout=3600)
    print(f"profiled in {time.monotonic() - t0:.1f} s")
    return prof


if __name__ == "__main__":
    sys.exit(main())
