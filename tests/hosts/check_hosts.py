"""check_hosts.py - the simulated-hosts tests of clock alignment (issue 11,
docs/clocks.md). Each test runs a real program under a real launcher on 2
to 5 "hosts" played by this machine, with `fakehost` as the launch agent,
which starts each host's daemon (Open MPI's orted, MPICH's
hydra_pmi_proxy) in its own UTS and time namespaces (hostname = host,
CLOCK_MONOTONIC moved by hours):
  - Open MPI: `mpirun --hostfile H --mca plm_rsh_agent fakehost`, H
    listing names that do not resolve (so Open MPI takes them as remote
    nodes and uses TCP between them), TCP kept on loopback;
  - MPICH: `mpirun.mpich -launcher ssh -launcher-exec fakehost -iface lo
    -hosts hostA:2,hostB:2`: hydra hands fakehost `-x HOST proxy-command`;
    the proxies connect back to mpiexec on loopback (-iface lo), and MPICH
    takes each host of -hosts as a node (MPI_COMM_TYPE_SHARED splits per
    host: the tests check clock_hosts and clock_host_index). Its netmod
    stays on this machine: UCX_TLS=tcp,self,sm UCX_NET_DEVICES=lo
    (Debian's MPICH is ch4:ucx), FI_PROVIDER=tcp FI_TCP_IFACE=lo for a
    ch4:ofi build. UCX's shared memory is allowed because UCX 1.13's tcp
    transport alone sometimes hangs in MPI_Finalize, scope or not
    (openucx/ucx#8738; seen here in about 1 run of 10, and always with
    hosts_messages); UCX then carries the messages between the simulated
    hosts through shared memory (they are one machine), so MPICH's round
    trips here are ~1 us, not TCP's.
The profile is then read back with h5py and `scope`.

  check_hosts.py TEST --mpi openmpi|mpich --preload SO --scope TOOL --fakehost F --prog P
                 [--layer-prog Q]

TEST is one of:
  two-hosts    hostA +0 s, hostB +3600 s, 2 ranks each; also read through
               the Python module's Dask path (docs/python.md): one partition
               per host file, whose rows, dask_summary() and
               dask_comm_matrix() (the ring: ROUNDS messages of 4 bytes
               from r to r + 1) equal the single-machine ones (skipped,
               said, without python3-dask or PYTHONPATH/SCOPE_READER_LIB)
  three-hosts  hostA +0, hostB +7200 s, hostC minus up to an hour (as far
               as the machine's uptime allows), SCOPE_CLOCK=monotonic
  drift        two hosts, hostB's clock also runs 5000 ppm fast
  messages     ANY_SOURCE/ANY_TAG receives on MPI_COMM_WORLD during
               MPI_Init and MPI_Finalize see only the program's messages
  one-host     plain mpirun, 2 ranks: offset 0, still marked aligned
  crash        two hosts; rank 3 is SIGKILLed after the barriers, the
               others are ended by mpirun; `scope recover` writes what is
               missing: every rank is aligned at init only (offset applied,
               barriers ordered), and `scope summary` warns about it
  tree         five hosts of 1 rank, SCOPE_CLOCK_FANOUT=2: the leaders
               form a tree of depth 2 (host 0 measures hosts 1 and 2 at
               once, host 1 measures hosts 3 and 4); offsets and bounds
               composed along the path still hold against the truth

What is asserted (every rank, every barrier, every message):
  - each rank file says where it ran and what was applied: clock_aligned
    2 (at init and finalize), clock_hosts, clock_host_index, hostname;
  - the measured offsets equal the namespaces' true offsets (known here
    exactly) within the reported bound: the bound is at least the
    misalignment the test can observe; and the bound is at most 1 ms;
  - the hosts' raw clocks really were hours apart (clock_local_* differ by
    the namespace offset), so the alignment had something to remove;
  - barriers: no rank leaves barrier k before the last rank entered it,
    within the two ranks' bounds, for every k;
  - point to point: every receive ends after its matching send started,
    within the two ranks' bounds;
  - the stored time span is shorter than the mpirun's wall time;
  - `scope summary` starts with "N hosts, clocks aligned within X";
    the Chrome export names each process "rank R (host)";
  - drift: the stored drift equals the injected one within what the two
    bounds allow, the drift moved the offset by more than the bounds
    (it mattered), and the checks above still hold.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import h5py

# --bind-to none: Open MPI binds rank i of every (simulated) host to core i
# of that host, which here is core i of the one machine: every host's
# leader would share core 0 and take turns on it at each message (a bare
# ping-pong between two simulated hosts: 7.8 ms round trip bound, 20 us
# unbound). Real hosts each have their own cores.
MPIRUN = {"openmpi": ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"],
          "mpich": ["mpirun.mpich"]}
# MPICH's netmod on loopback TCP: UCX (Debian's ch4:ucx) or libfabric (ch4:ofi)
MPICH_ENV = {"UCX_TLS": "tcp,self,sm", "UCX_NET_DEVICES": "lo",
             "FI_PROVIDER": "tcp", "FI_TCP_IFACE": "lo"}
KBARRIERS, UNIT_US, ROUNDS = 6, 3000, 6
FAIL = []
# "The bound is at most 1 ms on this machine" is a claim about quality,
# not honesty (the other checks test that every bound covers the true
# misalignment): a run whose 2 cores are taken by another test's dozens of
# ranks for the whole exchange can miss it (seen once in 48 runs made four
# at a time: best round trip 2.7 ms after 200 ms of tries). Such a miss
# alone re-runs the test once; a second miss fails it.
TIGHT = []
RETRY_ENV = "CHECK_HOSTS_RETRY"


def check(cond, what):
    if not cond:
        FAIL.append(what)
        print("FAIL:", what, file=sys.stderr)


def check_tight(bound_ns, what):
    """The 1 ms quality claim on an error bound (see TIGHT)."""
    if not 0 <= bound_ns <= 1_000_000:
        TIGHT.append(what)
        print("FAIL:" if os.environ.get(RETRY_ENV) else "over 1 ms (will retry):", what,
              file=sys.stderr)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SCOPE", "FAKEHOST", "UCX_", "FI_")) and k != "LD_PRELOAD"}
    env.update(OMPI_MCA_rmaps_base_oversubscribe="1")
    env.update(extra)
    return env


def negative_offset():
    """As far back as the machine's uptime allows, at most one hour."""
    up = float(open("/proc/uptime").read().split()[0])
    return -min(3600, int(up) - 120) if up > 240 else 1800


def launch(cmd, env, tmp):
    """Runs a launcher in its own session; on a hang (hydra waits for ever
    when a proxy cannot start) kills the whole session after 300 s, so no
    proxy in its namespaces outlives the test. Returns (rc, out, err)."""
    p = subprocess.Popen(cmd, env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        sys.exit(f"{cmd[0]} hung for 300 s: {out} {err}")
    return p.returncode, out, err


def check_dask(out, hosts, ppn):
    """The profile of hosts clocks apart, through the Dask path: each
    partition opens one host file, yet its rows are the whole profile's
    (aligned times, one origin); the summary and the ring's matrix are the
    C reader's."""
    try:
        import dask  # noqa: F401
    except ImportError as e:
        print(f"Dask checks skipped: {e}")
        return
    # meson gives the module and the library (PYTHONPATH, SCOPE_READER_LIB):
    # failing to import them is a failure, not a skip
    from scope_reader import read_h5
    from scope_reader.dask_frames import _plan
    n = ppn * len(hosts)
    with read_h5(out) as res:
        plan = [([os.path.basename(f) for f in fs], ks)
                for fs, ks in _plan(res, res.ranks, 64, "auto")]
        check(plan == [([f"host-{h}.h5"], tuple(range(i * ppn, (i + 1) * ppn)))
                       for i, h in enumerate(hosts)], f"Dask partitions {plan}")
        key = ["rank", "call_index", "name"]
        got = res.to_dask().compute().sort_values(key).reset_index(drop=True)
        want = res.to_events_dataframe(every_name=True).sort_values(key).reset_index(drop=True)
        check(len(got) == len(want) and all(got[c].tolist() == want[c].tolist()
                                            for c in want.columns),
              "to_dask() rows differ from to_events_dataframe()'s")
        stats = ("calls", "total_ns", "min_ns", "max_ns", "mean_ns", "std_ns")
        for row in res.dask_summary(by="rank").itertuples():
            st = res[row.Index[0]]._stats(row.Index[1])
            check(tuple(row)[1:] == tuple(getattr(st, s) for s in stats),
                  f"dask_summary {row.Index}: {tuple(row)[1:]}")
        for row in res.dask_summary().itertuples():
            st = res[row.Index]._stats()
            check(tuple(row)[1:] == tuple(getattr(st, s) for s in stats),
                  f"dask_summary {row.Index}: {tuple(row)[1:]}")
        pairs = res.dask_comm_matrix()
        check(pairs.values.tolist() == [[r, (r + 1) % n, ROUNDS, 4 * ROUNDS] for r in range(n)],
              f"dask_comm_matrix: {pairs.values.tolist()}")
        msgs, nbytes = res.comm_matrix()
        check(int(msgs.sum()) == n * ROUNDS and int(nbytes.sum()) == 4 * n * ROUNDS,
              f"comm_matrix: {int(msgs.sum())} messages, {int(nbytes.sum())} bytes")


def run_hosts(a, hosts, prog_args, tmp, extra_env=None, expect_fail=False, ppn=2):
    """Runs prog on `hosts` ({name: offset s}), ppn ranks each. Returns
    (profile path, stdout, wall ns)."""
    out = os.path.join(tmp, "prof.h5")
    env = clean_env(LD_PRELOAD=a.preload, SCOPE_OUTPUT=out, **(extra_env or {}))
    for h, off in hosts.items():
        env[f"FAKEHOST_OFFSET_{h}"] = str(off)
    if a.mpi == "mpich":
        env.update(MPICH_ENV)
        cmd = MPIRUN["mpich"] + ["-launcher", "ssh", "-launcher-exec", a.fakehost,
                                 "-iface", "lo",
                                 "-hosts", ",".join(f"{h}:{ppn}" for h in hosts),
                                 "-n", str(ppn * len(hosts))] + prog_args
    else:
        hf = os.path.join(tmp, "hostfile")
        with open(hf, "w") as f:
            for h in hosts:
                f.write(f"{h} slots={ppn}\n")
        cmd = MPIRUN["openmpi"] + ["--hostfile", hf, "--mca", "plm_rsh_agent", a.fakehost,
                                   "--mca", "plm_rsh_no_tree_spawn", "1",
                                   "--mca", "btl_tcp_if_include", "lo",
                                   "--mca", "oob_tcp_if_include", "lo",
                                   "-n", str(ppn * len(hosts))] + prog_args
    # loopback_net: nothing leaves loopback, the names' lookups included
    cmd = [os.path.join(os.path.dirname(os.path.abspath(a.fakehost)), "loopback_net")] + cmd
    t0 = time.monotonic_ns()
    rc, so, se = launch(cmd, env, tmp)
    wall = time.monotonic_ns() - t0
    if (rc != 0) != expect_fail:
        print(so, se, file=sys.stderr)
        sys.exit(f"{cmd[0]} exited with {rc}")
    return out, so, wall


def region(g, name):
    if name not in g["regions"]:
        return [], []
    r = g["regions"][name]
    return list(r["start_times"][:]), list(r["end_times"][:])


def check_order(f, n, err):
    """Barriers and messages, by the file, within the ranks' bounds."""
    bar = [region(f[f"rank{r}"], "MPI_Barrier") for r in range(n)]
    for r in range(n):
        check(len(bar[r][0]) == KBARRIERS, f"rank {r}: {len(bar[r][0])} barriers, not {KBARRIERS}")
    for k in range(KBARRIERS):
        for i in range(n):
            for j in range(n):
                late = bar[j][0][k] - bar[i][1][k] - (err[i] + err[j])
                check(late <= 0, f"barrier {k}: rank {i} left {late} ns (beyond the bounds) "
                                 f"before rank {j} entered")
    send = [region(f[f"rank{r}"], "MPI_Send") for r in range(n)]
    recv = [region(f[f"rank{r}"], "MPI_Recv") for r in range(n)]
    for r in range(n):
        check(len(send[r][0]) == ROUNDS and len(recv[r][0]) == ROUNDS,
              f"rank {r}: {len(send[r][0])} sends and {len(recv[r][0])} receives, not {ROUNDS}: "
              "scope's own messages must not be recorded as the program's")
    for r in range(n):
        d = (r + 1) % n
        for i in range(min(len(send[r][0]), len(recv[d][0]))):
            early = send[r][0][i] - recv[d][1][i] - (err[r] + err[d])
            check(early <= 0, f"message {i} {r}->{d}: received {early} ns (beyond the bounds) "
                              "before it was sent")


def check_run(a, out, stdout, wall, hosts, drift_ppm=0, ppn=2):
    names = list(hosts)
    n = ppn * len(hosts)
    f = h5py.File(out, "r")
    err, info = [], []
    for r in range(n):
        g = f[f"rank{r}"]
        at = dict(g.attrs)
        host = names[r // ppn]
        info.append(at)
        err.append(int(at["clock_error_ns"]))
        check(at["hostname"] == host, f"rank {r}: hostname {at['hostname']}, not {host}")
        check(at["clock_aligned"] == 2, f"rank {r}: clock_aligned {at['clock_aligned']}")
        check(at["clock_hosts"] == len(hosts), f"rank {r}: clock_hosts {at['clock_hosts']}")
        check(at["clock_host_index"] == r // ppn,
              f"rank {r}: clock_host_index {at['clock_host_index']}")
        check_tight(int(at["clock_error_ns"]),
                    f"rank {r}: error bound {at['clock_error_ns']} ns, more than 1 ms")
        for when in ("init", "finalize"):
            local = int(at[f"clock_local_{when}_ns"])
            off = int(at[f"clock_offset_{when}_ns"])
            e = int(at[f"clock_error_{when}_ns"])
            d = hosts[host] - hosts[names[0]]
            if host == names[0] or drift_ppm == 0:
                expect = -d * 1_000_000_000
            else:
                # local = (reference + d s) * (1 + ppm/1e6): reference = local / (1 + ppm/1e6) - d
                expect = round(local / (1 + drift_ppm * 1e-6)) - d * 1_000_000_000 - local
            check(abs(off - expect) <= e + 1,
                  f"rank {r} at {when}: offset {off} ns, truly {expect} ns: misaligned by "
                  f"{abs(off - expect)} ns, more than the bound {e} ns")
        if r // ppn == 0:
            check(at["clock_offset_init_ns"] == 0 and at["clock_error_ns"] == 0,
                  f"rank {r} on the reference host: offset {at['clock_offset_init_ns']}")
    # the raw clocks really were hours apart
    for r in range(ppn, n, ppn):
        raw = int(info[r]["clock_local_init_ns"]) - int(info[0]["clock_local_init_ns"])
        d = (hosts[names[r // ppn]] - hosts[names[0]]) * 1e9
        if drift_ppm == 0:
            check(abs(raw - d) < 60e9, f"rank {r}: raw clock {raw} ns from rank 0's, not about {d}")
    meta = dict(f["metadata"].attrs)
    check(meta.get("clock_hosts") == len(hosts), f"/metadata clock_hosts {meta.get('clock_hosts')}")
    check(meta.get("clock_error_ns", -1) >= max(err),
          f"/metadata clock_error_ns {meta.get('clock_error_ns')} vs ranks' {max(err)}")
    check_tight(int(meta.get("clock_error_ns", 2e6)),
                f"/metadata clock_error_ns {meta.get('clock_error_ns')}, more than 1 ms")
    check_order(f, n, err)
    lo = min(min(region(f[f"rank{r}"], x)[0] or [2**62]) for r in range(n)
             for x in f[f"rank{r}"]["regions"])
    hi = max(max(region(f[f"rank{r}"], x)[1] or [0]) for r in range(n)
             for x in f[f"rank{r}"]["regions"])
    check(0 < hi - lo <= wall, f"time span {hi - lo} ns, the run took {wall} ns")
    starts = [int(f[f"rank{r}"].attrs["start_time_ns"]) for r in range(n)]
    ends = [int(f[f"rank{r}"].attrs["finalize_time_ns"]) for r in range(n)]
    check(0 < max(ends) - min(starts) <= wall,
          f"ranks' start..finalize span {max(ends) - min(starts)} ns, the run took {wall} ns")
    f.close()
    s = subprocess.run([a.scope, "summary", out], capture_output=True, text=True)
    first = s.stdout.splitlines()[0] if s.stdout else ""
    m = re.match(r"^(\d+) hosts, clocks aligned within ([\d.]+) (ns|µs|ms)$", first)
    check(m is not None and int(m.group(1)) == len(hosts), f"summary's first line: {first!r}")
    if m:
        val = float(m.group(2)) * {"ns": 1, "µs": 1e3, "ms": 1e6}[m.group(3)]
        check(abs(val - max(err)) <= max(0.06 * max(err), 1), f"summary bound {first!r}, worst {max(err)}")
    tr = os.path.join(os.path.dirname(out), "trace.json")
    s = subprocess.run([a.scope, "export", out, "--to", "chrome-trace", "-o", tr],
                       capture_output=True, text=True)
    import json
    names_seen = {e["pid"]: e["args"]["name"] for e in json.load(open(tr))["traceEvents"]
                  if e.get("ph") == "M" and e["name"] == "process_name"}
    for r in range(n):
        check(names_seen.get(r) == f"rank {r} ({names[r // ppn]})",
              f"chrome process name of rank {r}: {names_seen.get(r)!r}")
    return info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test")
    ap.add_argument("--mpi", choices=["openmpi", "mpich"], default="openmpi")
    ap.add_argument("--preload", required=True)
    ap.add_argument("--scope", required=True)
    ap.add_argument("--fakehost", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--layer-prog")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("skipped: simulated hosts need root (unshare --time)")
        sys.exit(77)
    for k in ("preload", "scope", "fakehost", "prog", "layer_prog"):
        if getattr(a, k):
            setattr(a, k, os.path.abspath(getattr(a, k)))
    prog = [a.prog, str(KBARRIERS), str(UNIT_US), str(ROUNDS)]
    with tempfile.TemporaryDirectory() as tmp:
        if a.test == "two-hosts":
            hosts = {"hostA": 0, "hostB": 3600}
            out, so, wall = run_hosts(a, hosts, prog, tmp)
            check_run(a, out, so, wall, hosts)
            check_dask(out, hosts, 2)
        elif a.test == "three-hosts":
            hosts = {"hostA": 0, "hostB": 7200, "hostC": negative_offset()}
            check_run(a, *run_hosts(a, hosts, prog, tmp, {"SCOPE_CLOCK": "monotonic"}), hosts)
        elif a.test == "drift":
            hosts = {"hostA": 0, "hostB": 3600}
            # long enough that 5000 ppm moves the offset far beyond the bounds
            prog = [a.prog, str(KBARRIERS), "150000", str(ROUNDS)]
            out, so, wall = run_hosts(a, hosts, prog, tmp, {"FAKEHOST_DRIFT_hostB": "5000"})
            info = check_run(a, out, so, wall, hosts, drift_ppm=5000)
            want = -5000 / (1 + 5000e-6)
            for r in (2, 3):
                at = info[r]
                span = int(at["clock_local_finalize_ns"]) - int(at["clock_local_init_ns"])
                slack = (int(at["clock_error_init_ns"]) + int(at["clock_error_finalize_ns"])) * 1e6 / span
                check(abs(at["clock_drift_ppm"] - want) <= slack + 0.01,
                      f"rank {r}: drift {at['clock_drift_ppm']} ppm, injected {want} (+-{slack})")
                moved = abs(int(at["clock_offset_finalize_ns"]) - int(at["clock_offset_init_ns"]))
                check(moved > 5 * (int(at["clock_error_init_ns"]) + int(at["clock_error_finalize_ns"])),
                      f"rank {r}: the drift moved the offset by only {moved} ns: the test proves nothing")
        elif a.test == "tree":
            hosts = {"hostA": 0, "hostB": 3600, "hostC": negative_offset(), "hostD": 7200,
                     "hostE": 1800}
            out, so, wall = run_hosts(a, hosts, prog, tmp, {"SCOPE_CLOCK_FANOUT": "2"}, ppn=1)
            info = check_run(a, out, so, wall, hosts, ppn=1)
            # depth 2: hosts 3 and 4 measure against host 1, whose bound is
            # part of theirs (bounds add along the path)
            for r in (3, 4):
                for when in ("init", "finalize"):
                    check(int(info[r][f"clock_error_{when}_ns"]) >
                          int(info[1][f"clock_error_{when}_ns"]),
                          f"rank {r} at {when}: bound {info[r][f'clock_error_{when}_ns']} not "
                          f"above its parent's {info[1][f'clock_error_{when}_ns']}")
        elif a.test == "messages":
            hosts = {"hostA": 0, "hostB": 3600}
            out, so, wall = run_hosts(a, hosts, [a.layer_prog], tmp)
            for r in range(4):
                check(f"rank {r} init: clean" in so, f"rank {r} init: {so!r}")
                check(f"rank {r} finalize: clean" in so, f"rank {r} finalize: {so!r}")
            f = h5py.File(out, "r")
            for r in range(4):
                check(f[f"rank{r}"].attrs["clock_aligned"] == 2, f"rank {r} not aligned")
        elif a.test == "crash":
            hosts = {"hostA": 0, "hostB": 3600}
            out, so, wall = run_hosts(a, hosts, prog + ["3"], tmp, expect_fail=True)
            r = subprocess.run([a.scope, "recover", out], capture_output=True, text=True, timeout=300)
            check(r.returncode == 0, f"scope recover: {r.returncode} {r.stderr}")
            f = h5py.File(out, "r")
            err = []
            for r in range(4):
                at = f[f"rank{r}"].attrs
                check(at["clock_aligned"] == 1, f"rank {r}: clock_aligned {at['clock_aligned']}")
                check("clock_offset_finalize_ns" not in at, f"rank {r}: a finalize measurement?")
                check(at["clock_drift_ppm"] == 0, f"rank {r}: drift {at['clock_drift_ppm']}")
                d = (hosts["hostB"] if r >= 2 else 0) * 1_000_000_000
                check(abs(int(at["clock_offset_init_ns"]) + d) <= int(at["clock_error_init_ns"]),
                      f"rank {r}: offset {at['clock_offset_init_ns']}, truly {-d}")
                err.append(int(at["clock_error_ns"]))
            bar = [region(f[f"rank{r}"], "MPI_Barrier") for r in range(4)]
            for k in range(KBARRIERS):
                last_in = max(bar[j][0][k] - err[j] for j in range(4))
                for i in range(4):
                    check(bar[i][1][k] + err[i] >= last_in, f"barrier {k}: rank {i} left early")
            f.close()
            s = subprocess.run([a.scope, "summary", out], capture_output=True, text=True)
            lines = s.stdout.splitlines()
            check(len(lines) > 1 and lines[0].startswith("2 hosts, clocks aligned within")
                  and "4 ranks (first: rank 0) aligned at MPI_Init only" in lines[1],
                  f"summary's first lines: {lines[:2]}")
        elif a.test == "one-host":
            out = os.path.join(tmp, "prof.h5")
            env = clean_env(LD_PRELOAD=a.preload, SCOPE_OUTPUT=out)
            rc, so, se = launch(MPIRUN[a.mpi] + ["-n", "2"] + prog, env, tmp)
            check(rc == 0, f"mpirun: {rc} {se}")
            f = h5py.File(out, "r")
            for r in range(2):
                at = f[f"rank{r}"].attrs
                check(at["clock_aligned"] == 2, f"rank {r}: {at['clock_aligned']}")
                check(at["clock_hosts"] == 1 and at["clock_host_index"] == 0, f"rank {r}: hosts")
                for k in ("clock_offset_init_ns", "clock_offset_finalize_ns", "clock_error_ns",
                          "clock_drift_ppm"):
                    check(at[k] == 0, f"rank {r}: {k} = {at[k]} on one host")
            check(f["metadata"].attrs["clock_hosts"] == 1, "/metadata clock_hosts")
            check_order(f, 2, [0, 0])
            s = subprocess.run([a.scope, "summary", out], capture_output=True, text=True)
            check("hosts" not in s.stdout.splitlines()[0], f"one host: {s.stdout.splitlines()[0]!r}")
        else:
            sys.exit(f"unknown test {a.test}")
    if TIGHT and not FAIL and not os.environ.get(RETRY_ENV):
        print("bounds over 1 ms alone: running the test once more", file=sys.stderr)
        sys.stderr.flush()
        os.execve(sys.executable, [sys.executable] + sys.argv, {**os.environ, RETRY_ENV: "1"})
    if FAIL or TIGHT:
        sys.exit(f"{len(FAIL) + len(TIGHT)} check(s) failed")
    print("ok")


if __name__ == "__main__":
    main()
