#!/usr/bin/python3
"""bench_mpi.py [CALLS] - per-call cost of an intercepted MPI call under
each MPI (issue 10): runs build/bench/bench_mpi_<mpi> bare and with
libscope_preload.so (built-in default: every MPI_* timed), as singletons,
alternating bare and preloaded 3 times in this one run (the best of each
counts: the shared machine's noise only adds), and prints the added ns per MPI_Comm_rank call and its ratio
to two clock reads. Not a test (the machine's timing is noisy); run after
`meson compile -C build`: /usr/bin/python3 bench/bench_mpi.py"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(os.path.dirname(HERE), "build")


def run(exe, env, calls):
    out = subprocess.run([exe, str(calls)], env=env, capture_output=True, check=True,
                         timeout=600).stdout.decode()
    return {k: float(v) for k, v in (ln.split() for ln in out.splitlines())}


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000000
    preload = os.path.join(BUILD, "preload", "libscope_preload.so")
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), "?")
    print(f"CPU: {cpu}; {calls} calls, best of 5 rounds in each of 3 alternated runs")
    base = {k: v for k, v in os.environ.items() if not k.startswith("SCOPE_")
            and k != "LD_PRELOAD"}
    with tempfile.TemporaryDirectory() as tmp:
        for mpi in ("openmpi", "mpich"):
            exe = os.path.join(BUILD, "bench", "bench_mpi_" + mpi)
            if not os.path.exists(exe):
                print(f"{mpi}: {exe} not built")
                continue
            penv = dict(base, LD_PRELOAD=preload, SCOPE_OUTPUT=os.path.join(tmp, mpi + ".h5"),
                        SCOPE_MEMORY_BUDGET="1G")
            bare, prof = {}, {}
            for _ in range(3):
                for best, env in ((bare, base), (prof, penv)):
                    for k, v in run(exe, env, calls).items():
                        best[k] = min(v, best.get(k, v))
            two = min(bare["two_reads_ns"], prof["two_reads_ns"])
            added = prof["comm_rank_ns"] - bare["comm_rank_ns"]
            print(f"{mpi:8s} MPI_Comm_rank bare {bare['comm_rank_ns']:.2f} ns, preloaded "
                  f"{prof['comm_rank_ns']:.2f} ns: +{added:.2f} ns = {added / two:.2f}x two "
                  f"clock reads ({two:.2f} ns)")


if __name__ == "__main__":
    main()
