"""bench_align.py - what aligning the hosts' clocks costs (issue 11,
docs/clocks.md), at MPI_Init and at MPI_Finalize, for 2, 4 and 8 simulated
hosts (tests/hosts/fakehost: one Open MPI daemon per host in its own UTS
and time namespaces, one rank per host, TCP over loopback). Not a test.

  /usr/bin/python3 bench/bench_align.py BUILD_DIR [--repeat N] [--hosts 2,4,8]
                                        [--fanout K]

Needs root (unshare --time). For each host count it runs
tests/hosts/hosts_prog N times under the preload and reads, from the
profile, the clock_align_cost_{init,finalize}_ns attributes: on rank 0,
the whole measurement step from the moment the last host leader entered
it (a late host is the application's imbalance, not alignment) to the
end, divided by the hosts measured = the cost per host; on the other
ranks, the cost of their own host's edge (from when both it and its
parent had entered the step), whose worst is printed too; and
clock_round_trip_* / clock_error_ns = how good the measurements were.
The median of the runs is printed, with min..max. --fanout sets
SCOPE_CLOCK_FANOUT (default: scope's, 16: every host measured by rank 0,
all at once, up to 16 hosts).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def one_run(build, hosts, tmp, fanout):
    hf = os.path.join(tmp, "hostfile")
    with open(hf, "w") as f:
        for i in range(hosts):
            f.write(f"bench{i} slots=1\n")
    out = os.path.join(tmp, "bench.h5")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOPE") and k != "LD_PRELOAD"}
    env.update(LD_PRELOAD=os.path.join(build, "preload/libscope_preload.so"), SCOPE_OUTPUT=out)
    for i in range(hosts):
        env[f"FAKEHOST_OFFSET_bench{i}"] = str(600 * i)
    if fanout:
        env["SCOPE_CLOCK_FANOUT"] = str(fanout)
    # --bind-to none: bound, every simulated host's leader would sit on core 0
    # (tests/hosts/check_hosts.py says why) and each message would wait for
    # its turn there, which real hosts never do
    # loopback_net: nothing leaves loopback, the names' lookups included
    cmd = [os.path.join(SRC, "tests/hosts/loopback_net"),
           "mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "--hostfile", hf,
           "--mca", "plm_rsh_agent", os.path.join(SRC, "tests/hosts/fakehost"),
           "--mca", "plm_rsh_no_tree_spawn", "1",
           "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo",
           "-n", str(hosts), os.path.join(build, "tests/hosts/hosts_prog"), "2", "1000", "2"]
    p = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"mpirun failed: {p.stderr}")
    with h5py.File(out, "r") as f:
        r0 = f["rank0"].attrs
        others = [f[f"rank{r}"].attrs for r in range(1, hosts)]
        res = {
            "init": r0["clock_align_cost_init_ns"] / (hosts - 1),
            "finalize": r0["clock_align_cost_finalize_ns"] / (hosts - 1),
            "edge": max(max(a["clock_align_cost_init_ns"], a["clock_align_cost_finalize_ns"])
                        for a in others),
            "rtt_init": max(a["clock_round_trip_init_ns"] for a in others),
            "rtt_fin": max(a["clock_round_trip_finalize_ns"] for a in others),
            "error": f["metadata"].attrs["clock_error_ns"],
        }
    return res


def fmt(xs, scale=1e3, unit="µs"):
    return (f"{statistics.median(xs) / scale:8.0f} {unit} "
            f"({min(xs) / scale:.0f}..{max(xs) / scale:.0f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--hosts", default="2,4,8")
    ap.add_argument("--fanout", type=int, default=0)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    print(f"{'hosts':>5}  {'init, per host':>24}  {'finalize, per host':>24}  "
          f"{'worst edge':>24}  {'worst round trip':>24}  {'worst bound':>24}")
    for hosts in [int(h) for h in a.hosts.split(",")]:
        runs = []
        for _ in range(a.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                runs.append(one_run(build, hosts, tmp, a.fanout))
        print(f"{hosts:>5}  {fmt([r['init'] for r in runs]):>24}  "
              f"{fmt([r['finalize'] for r in runs]):>24}  "
              f"{fmt([r['edge'] for r in runs]):>24}  "
              f"{fmt([max(r['rtt_init'], r['rtt_fin']) for r in runs]):>24}  "
              f"{fmt([r['error'] for r in runs]):>24}", flush=True)


if __name__ == "__main__":
    main()
