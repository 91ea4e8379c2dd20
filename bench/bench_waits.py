#!/usr/bin/python3
"""bench_waits.py [STEPS] - how fast the reader matches messages and
computes wait states (issue 29; target: >= 10 M events/s on the machine
of the issue). Profiles bench/waits_prog.c (4 ranks under Open MPI's
mpirun, STEPS ring steps per rank, default 250,000: about 4.3 M MPI calls
with their requests), then, in this one process through ctypes:

  read     scope_profile_waits on a freshly opened profile: the MPI
           regions' times, data columns and request tables read from HDF5,
           then matched (what `scope waits` costs);
  match    scope_profile_waits again on the same open profile: the columns
           are cached, so this is the matching and the wait states alone;
  bare     scope_profile_times of every MPI region on every rank of a
           freshly opened profile: the reference any reader of those calls
           pays;

each 5 times, min / median / max, as events (MPI calls) per second and as
a ratio to `bare`, and the peak RSS. Not a test (the machine is noisy).
Run after `meson compile -C build`: /usr/bin/python3 bench/bench_waits.py"""
import ctypes
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(os.path.dirname(HERE), "build")
ROUNDS = 5


def mmm(v, fmt="%.2f"):
    v = sorted(v)
    return " / ".join(fmt % x for x in (v[0], statistics.median(v), v[-1]))


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and not sys.argv[1].isdigit()):
        print("usage: bench_waits.py [STEPS]   (ring steps per rank, default 250000)",
              file=sys.stderr)
        return 2
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 250000
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), "?")
    print(f"CPU: {cpu}; {steps} ring steps x 4 ranks; {ROUNDS} rounds: min / median / max")
    lib = ctypes.CDLL(os.path.join(BUILD, "reader", "libscope_reader.so"))
    p = ctypes.c_void_p
    lib.scope_profile_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(p)]
    lib.scope_profile_close.argtypes = [p]
    lib.scope_profile_waits.argtypes = [p, ctypes.c_int, ctypes.POINTER(p)]
    lib.scope_waits_free.argtypes = [p]
    lib.scope_profile_region_count.argtypes = [p]
    lib.scope_profile_calls.argtypes = [p, ctypes.c_int, ctypes.c_int]
    lib.scope_profile_calls.restype = ctypes.c_int64
    lib.scope_profile_region_name.argtypes = [p, ctypes.c_int]
    lib.scope_profile_region_name.restype = ctypes.c_char_p
    P64 = ctypes.POINTER(ctypes.c_int64)
    lib.scope_profile_times.argtypes = [p, ctypes.c_int, ctypes.c_int, ctypes.POINTER(P64),
                                        ctypes.POINTER(P64), ctypes.POINTER(ctypes.c_int64)]
    lib.scope_profile_rank_count.argtypes = [p]
    lib.scope_profile_rank.argtypes = [p, ctypes.c_int]
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "waits_prog")
        subprocess.run(["mpicc", "-O2", "-o", exe, os.path.join(HERE, "waits_prog.c")],
                       check=True)
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

        def opened():
            h = p()
            if lib.scope_profile_open(prof.encode(), ctypes.byref(h)) != 0:
                sys.exit("cannot open the profile")
            return h

        h = opened()
        mpi_calls = sum(lib.scope_profile_calls(h, r, -1)
                        for r in range(lib.scope_profile_region_count(h))
                        if lib.scope_profile_region_name(h, r).startswith(b"MPI_")
                        and lib.scope_profile_region_name(h, r) != b"MPI_Init..MPI_Finalize")
        lib.scope_profile_close(h)
        res = {"read": [], "match": [], "bare": []}
        for _ in range(ROUNDS):
            h = opened()
            ranks = [lib.scope_profile_rank(h, k) for k in range(lib.scope_profile_rank_count(h))]
            mpi = [r for r in range(lib.scope_profile_region_count(h))
                   if lib.scope_profile_region_name(h, r).startswith(b"MPI_")]
            s, e, n = P64(), P64(), ctypes.c_int64()
            t = time.perf_counter()
            for r in mpi:
                for k in ranks:
                    lib.scope_profile_times(h, r, k, ctypes.byref(s), ctypes.byref(e),
                                            ctypes.byref(n))
            res["bare"].append(time.perf_counter() - t)
            lib.scope_profile_close(h)
            h = opened()
            w = p()
            t = time.perf_counter()
            if lib.scope_profile_waits(h, 1, ctypes.byref(w)) != 0:
                sys.exit("scope_profile_waits failed")
            res["read"].append(time.perf_counter() - t)
            lib.scope_waits_free(w)
            t = time.perf_counter()
            lib.scope_profile_waits(h, 1, ctypes.byref(w))
            res["match"].append(time.perf_counter() - t)
            lib.scope_waits_free(w)
            lib.scope_profile_close(h)
        print(f"{mpi_calls:,} MPI calls (events) analysed")
        for k in ("bare", "read", "match"):
            rates = [mpi_calls / s / 1e6 for s in res[k]]
            ratio = [a / b for a, b in zip(res[k], res["bare"])]
            print(f"  {k:6s} {mmm(res[k], '%.3f')} s   {mmm(rates, '%.1f')} M events/s   "
                  f"x bare {mmm(ratio)}")
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS of this process: {rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
