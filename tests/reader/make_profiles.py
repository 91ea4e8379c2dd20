#!/usr/bin/python3
"""make_profiles.py OUTDIR - writes the profiles the reader and tool tests
open, each with numbers small enough to check by hand (see the comments and
the expected values in test_layouts.c / test_tutorial.c).

Written with h5py, independently of the reader, so a reader bug cannot hide
in a matching writer bug.
"""
import os
import shutil
import sys

import h5py
import numpy as np

out = sys.argv[1]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
NS = 1_000_000_000


def path(*names):
    return os.path.join(out, *names)


# 1. The tutorial's hand-written two-rank file, exactly as printed there.
with h5py.File(path("two_ranks.h5"), "w") as h5file:
    for rank, factor in enumerate([1.0, 1.6]):  # rank 1 is the slow one
        regions = h5file.create_group(f"rank{rank}").create_group("regions")
        starts = np.array([0.0, 0.5, 1.0]) * NS
        durations = np.array([0.2, 0.25, 0.2]) * factor * NS
        group = regions.create_group("solve")
        group.create_dataset("start_times", data=starts.astype(np.int64))
        group.create_dataset("end_times", data=(starts + durations).astype(np.int64))

# 2. A run in our own layout (docs/format.md): an index file with external links
# to two rank files, names that need link encoding, and the same data
# merged into one file.
#   rank 0: main [2000,10000]; a/b [3000,4000] [5000,5500]; . [6000,6100];
#           100% [7000,7050] [7100,7200] [7200,7400]
#   rank 1: main [2500,11000]; a/b [3000,4500]
RUN = {
    0: [("main", "main", [2000], [10000]),
        ("a%2Fb", "a/b", [3000, 5000], [4000, 5500]),
        ("%2E", ".", [6000], [6100]),
        ("100%25", "100%", [7000, 7100, 7200], [7050, 7200, 7400])],
    1: [("main", "main", [2500], [11000]),
        ("a%2Fb", "a/b", [3000], [4500])],
}
RANK_START = {0: 1000, 1: 1010}


def root_attrs(f, start):
    f.attrs["scope_format"] = np.int64(1)
    f.attrs["scope_profiler_schema"] = np.int64(1)
    m = f.create_group("metadata")
    m.attrs["start_time_ns"] = np.int64(start)
    m.attrs["mpi_size"] = np.int64(2)
    m.attrs["hostname"] = "testhost"


def rank_group(f, rank):
    g = f.create_group(f"rank{rank}")
    for k, v in [("rank", rank), ("pid", 100 + rank),
                 ("start_time_ns", RANK_START[rank]),
                 ("finalize_time_ns", 20000), ("dropped_events", 0)]:
        g.attrs[k] = np.int64(v)
    g.attrs["hostname"] = "testhost"
    g.attrs["complete"] = np.int8(1)
    g.create_group("threads")           # unknown to the reader: ignored
    regions = g.create_group("regions")
    for link, name, starts, ends in RUN[rank]:
        r = regions.create_group(link)
        if name == "100%":                # a fixed-length string attribute
            r.attrs["name"] = np.bytes_(name)
        else:
            r.attrs["name"] = name
        r.attrs["kind"] = "manual"
        # Rank 1 chunked + gzip + shuffle: docs/format.md says readers must not
        # care how datasets are stored.
        packed = dict(chunks=True, compression="gzip", shuffle=True) if rank else {}
        r.create_dataset("start_times", data=np.array(starts, np.int64), **packed)
        r.create_dataset("end_times", data=np.array(ends, np.int64), **packed)
        r.create_dataset("thread_ids", data=np.zeros(len(starts), np.int32))


os.makedirs(path("run.ranks"))
for rank in RUN:
    with h5py.File(path("run.ranks", f"rank{rank}.h5"), "w") as f:
        root_attrs(f, RANK_START[rank])
        rank_group(f, rank)
with h5py.File(path("run.h5"), "w") as f:
    root_attrs(f, 1000)
    for rank in RUN:
        f[f"rank{rank}"] = h5py.ExternalLink(f"run.ranks/rank{rank}.h5", f"/rank{rank}")
with h5py.File(path("merged.h5"), "w") as f:
    root_attrs(f, 1000)
    for rank in RUN:
        rank_group(f, rank)

# 3. scope-profiler schema 3 with two ranks, so that the start deltas must
# restart at each slice: rank 0 solve [10,15] [20,33]; rank 1 solve
# [100,101] [110,113]; rank 1 io [105,109].
with h5py.File(path("schema3_two.h5"), "w") as f:
    f.attrs["scope_profiler_schema"] = np.int64(3)
    f.create_group("region_table").create_dataset(
        "names", data=["solve", "io"], dtype=h5py.string_dtype())
    idx = f.create_group("rank_region_index")
    idx.create_dataset("region_ids", data=np.array([0, 0, 1], np.uint32))
    idx.create_dataset("ranks", data=np.array([0, 1, 1], np.uint32))
    idx.create_dataset("event_offsets", data=np.array([0, 2, 4], np.uint64))
    idx.create_dataset("event_counts", data=np.array([2, 2, 1], np.uint64))
    ev = f.create_group("events")
    ev.create_dataset("start_deltas", data=np.array([10, 10, 100, 10, 105], np.int64))
    ev.create_dataset("durations", data=np.array([5, 13, 1, 3, 4], np.int64))

# 4. Names that csv must quote and json must escape: rank 0 only,
# f(int, int) [0,1000] [2000,2500]; say "hi" [100,400].
with h5py.File(path("names.h5"), "w") as f:
    regions = f.create_group("rank0/regions")
    for name, starts, ends in [("f(int, int)", [0, 2000], [1000, 2500]),
                               ('say "hi"', [100], [400])]:
        r = regions.create_group(name)
        r.attrs["name"] = name
        r.create_dataset("start_times", data=np.array(starts, np.int64))
        r.create_dataset("end_times", data=np.array(ends, np.int64))

# 5. More rank files (40) than the reader keeps open (16): rank k has one
# call of "step" [10k, 10k + k + 1] and one of "io" [10k + 5, 10k + 6].
os.makedirs(path("many.ranks"))
for k in range(40):
    with h5py.File(path("many.ranks", f"rank{k}.h5"), "w") as f:
        regions = f.create_group(f"rank{k}/regions")
        for name, s0, e0 in [("step", 10 * k, 10 * k + k + 1),
                             ("io", 10 * k + 5, 10 * k + 6)]:
            regions[f"{name}/start_times"] = np.array([s0], np.int64)
            regions[f"{name}/end_times"] = np.array([e0], np.int64)


# 7. Nesting on two thread lanes, for the call stack, events and tree
# (expected values in test_call_stack.c / test_events.c). Times are
# BASE + the numbers below; the run starts at BASE.
#   rank 0, thread 0: main [0,100] > work [10,40] > leaf [20,30];
#                     main > leaf [40,45] (starts as work ends: a sibling);
#                     main > work [60,70]
#   rank 0, thread 1: main [0,90] > work [5,50] > leaf [10,20]
#   rank 1 (one thread, no thread_ids): main [0,50] > work [10,20]
BASE = 1000
NESTED = {
    0: {"main": [(0, 100, 0), (0, 90, 1)],
        "work": [(5, 50, 1), (10, 40, 0), (60, 70, 0)],
        "leaf": [(10, 20, 1), (20, 30, 0), (40, 45, 0)]},
    1: {"main": [(0, 50, 0)], "work": [(10, 20, 0)]},
}
with h5py.File(path("nested.h5"), "w") as f:
    f.attrs["scope_format"] = np.int64(1)
    m = f.create_group("metadata")
    m.attrs["start_time_ns"] = np.int64(BASE)
    m.attrs["mpi_size"] = np.int64(2)
    m.attrs["hostname"] = "nodeA"
    for rank, regions in NESTED.items():
        g = f.create_group(f"rank{rank}")
        g.attrs["rank"] = np.int64(rank)
        g.attrs["dropped_events"] = np.int64(3 * rank)
        g.attrs["unterminated_calls"] = np.int64(rank)
        g.attrs["complete"] = np.int8(1 - rank)
        g.attrs["hostname"] = f"node{rank}"
        for name, calls in regions.items():
            r = g.create_group(f"regions/{name}")
            r.attrs["name"] = name
            r["start_times"] = np.array([BASE + c[0] for c in calls], np.int64)
            r["end_times"] = np.array([BASE + c[1] for c in calls], np.int64)
            if rank == 0:
                r["thread_ids"] = np.array([c[2] for c in calls], np.int32)
        if rank == 0:
            dt = np.dtype([("index", np.int32), ("tid", np.int64),
                           ("name", h5py.string_dtype()),
                           ("start_ns", np.int64), ("end_ns", np.int64)])
            g["threads"] = np.array([(0, 4242, "main", BASE, BASE + 100),
                                     (1, 4243, "worker", BASE, BASE + 90)], dt)

# 8. Calls that overlap partially: a [0,10] and b [5,15] on rank 0.
with h5py.File(path("overlap.h5"), "w") as f:
    for name, s0, e0 in [("a", 0, 10), ("b", 5, 15)]:
        f[f"rank0/regions/{name}/start_times"] = np.array([s0], np.int64)
        f[f"rank0/regions/{name}/end_times"] = np.array([e0], np.int64)

# 9. Ties everywhere (a coarse clock), with the journal's order stored
# (docs/format.md "Call order and ties"; expected values in
# test_call_stack.c). Times are BASE + the numbers below. In begin_seq order:
#   seq 0  P t0 [0,10]  d0      seq 6  Q t0 [10,20] d0
#   seq 1  C t0 [0,10]  d1 (P)  seq 7  S t1 [10,10] d1 (R)
#   seq 2  R t1 [0,10]  d0      seq 8  Y t0 [20,20] d1 (Q: ends with it)
#   seq 3  S t1 [0,0]   d1 (R)  seq 9  X t0 [20,20] d0
#   seq 4  S t1 [0,0]   d1 (R)  seq 10 W t0 [20,20] d1 (X: 0 ns, nested)
#   seq 5  Z t0 [10,10] d0 (after P, not in it)
# C equals its parent; the S are siblings with equal times; Y, Z, X, W last
# 0 ns. Containment alone gets C, Y, S [10,10] and W wrong.
# ties_bad_depth.h5: the same with W at depth 2 (no open call at depth 1
# there); ties_one_order.h5: the same with begin_seq and depth removed from
# region "W" (then no order is used: containment).
TIES = [  # region, thread, start, end, seq, depth
    ("P", 0, 0, 10, 0, 0), ("C", 0, 0, 10, 1, 1), ("R", 1, 0, 10, 2, 0),
    ("S", 1, 0, 0, 3, 1), ("S", 1, 0, 0, 4, 1), ("Z", 0, 10, 10, 5, 0),
    ("Q", 0, 10, 20, 6, 0), ("S", 1, 10, 10, 7, 1), ("Y", 0, 20, 20, 8, 1),
    ("X", 0, 20, 20, 9, 0), ("W", 0, 20, 20, 10, 1),
]


def write_ties(name, calls, no_order=()):
    with h5py.File(path(name), "w") as f:
        f.attrs["scope_format"] = np.int64(1)
        f.create_group("metadata").attrs["start_time_ns"] = np.int64(BASE)
        g = f.create_group("rank0")
        g.attrs["rank"] = np.int64(0)
        g.attrs["clock_resolution_ns"] = np.int64(1000)
        for reg in dict.fromkeys(c[0] for c in calls):
            mine = [c for c in calls if c[0] == reg]
            r = g.create_group(f"regions/{reg}")
            r["start_times"] = np.array([BASE + c[2] for c in mine], np.int64)
            r["end_times"] = np.array([BASE + c[3] for c in mine], np.int64)
            r["thread_ids"] = np.array([c[1] for c in mine], np.int32)
            if reg not in no_order:
                r["begin_seq"] = np.array([c[4] for c in mine], np.int64)
                r["depth"] = np.array([c[5] for c in mine], np.int32)


write_ties("ties.h5", TIES)
write_ties("ties_bad_depth.h5", TIES[:-1] + [("W", 0, 20, 20, 10, 2)])
write_ties("ties_one_order.h5", TIES, no_order=("W",))

# 6. Bad inputs: each must give its own error, never a crash.
with open(path("notes.txt"), "w") as f:
    f.write("this is a text file, not a profile\n" * 20)
open(path("empty.h5"), "w").close()
with h5py.File(path("not_profile.h5"), "w") as f:
    f.create_group("results").create_dataset("x", data=np.arange(10))
    f.attrs["title"] = "some other HDF5 file"
data = open(path("merged.h5"), "rb").read()
with open(path("truncated.h5"), "wb") as f:
    f.write(data[: len(data) // 2])
with h5py.File(path("future.h5"), "w") as f:
    f.attrs["scope_format"] = np.int64(7)
    f.create_group("rank0")
with h5py.File(path("dangling.h5"), "w") as f:
    f["rank0"] = h5py.ExternalLink("gone.ranks/rank0.h5", "/rank0")
with h5py.File(path("mismatch.h5"), "w") as f:
    r = f.create_group("rank0/regions/solve")
    r.create_dataset("start_times", data=np.array([1, 2, 3], np.int64))
    r.create_dataset("end_times", data=np.array([2, 3], np.int64))
with h5py.File(path("no_ends.h5"), "w") as f:
    r = f.create_group("rank0/regions/solve")
    r.create_dataset("start_times", data=np.array([1, 2, 3], np.int64))
with h5py.File(path("bad_index.h5"), "w") as f:
    f.attrs["scope_profiler_schema"] = np.int64(2)
    f.create_group("region_table").create_dataset(
        "names", data=["solve"], dtype=h5py.string_dtype())
    idx = f.create_group("rank_region_index")
    idx.create_dataset("region_ids", data=np.array([0], np.uint32))
    idx.create_dataset("ranks", data=np.array([0], np.uint32))
    idx.create_dataset("event_offsets", data=np.array([2], np.uint64))
    idx.create_dataset("event_counts", data=np.array([5], np.uint64))
    ev = f.create_group("events")
    ev.create_dataset("start_times", data=np.array([1, 2, 3], np.int64))
    ev.create_dataset("end_times", data=np.array([2, 3, 4], np.int64))
# A run that lost events and had a rank recovered after a crash: rank 0
# dropped 1500 events (budget), rank 1 dropped 500 and is complete = 0.
with h5py.File(path("lossy.h5"), "w") as f:
    for rank, dropped, complete in [(0, 1500, 1), (1, 500, 0)]:
        g = f.create_group(f"rank{rank}")
        g.attrs["dropped_events"] = np.int64(dropped)
        g.attrs["complete"] = np.int8(complete)
        r = g.create_group("regions/work")
        r.create_dataset("start_times", data=np.array([0, 10], np.int64))
        r.create_dataset("end_times", data=np.array([5, 20], np.int64))
os.makedirs(path("empty_folder"))
# the folder a run was written into, named instead of its index: the
# message points at the index (<name>.h5 beside <name>.ranks/)
os.makedirs(path("run_folder/p.ranks"))
shutil.copy(path("not_profile.h5"), path("run_folder/p.h5"))

# 10. One run of 6 ranks on 2 hosts (docs/format.md "The files of a run"),
# written in every layout a recorder may leave (test_hostfiles.c):
#   rank r, region "solve": r + 1 calls, call i = [1000 r + 100 i,
#           1000 r + 100 i + 10 (i + 1) + r]
#   rank r, region "io" (odd ranks only): 1 call [1000 r + 90, 1000 r + 95]
#   rank r attributes: pid = 100 + r, hostname, overhead_inside_ns = r / 2
#   hosts: nodeA holds ranks 0, 2, 4; nodeB ranks 1, 3, 5
# hosts/perrank   run.h5 + run.ranks/rank<N>.h5 (the reference)
# hosts/perhost   run.h5 + run.ranks/host-node{A,B}.h5
# hosts/mixed     run.h5 + run.ranks/host-nodeA.h5 + rank{1,3,5}.h5
# hosts/missing   run.h5 linking to host-nodeA.h5 and a host-nodeB.h5
#                 that is not there
HOSTS = {"nodeA": [0, 2, 4], "nodeB": [1, 3, 5]}


def host_rank_group(f, r, host):
    g = f.create_group(f"rank{r}")
    g.attrs["rank"] = np.int64(r)
    g.attrs["pid"] = np.int64(100 + r)
    g.attrs["hostname"] = host
    g.attrs["complete"] = np.int8(1)
    g.attrs["overhead_inside_ns"] = np.float64(r / 2)
    i = np.arange(r + 1, dtype=np.int64)
    solve = g.create_group("regions/solve")
    solve.attrs["name"] = "solve"
    solve.create_dataset("start_times", data=1000 * r + 100 * i)
    solve.create_dataset("end_times", data=1000 * r + 100 * i + 10 * (i + 1) + r)
    if r % 2:
        io = g.create_group("regions/io")
        io.create_dataset("start_times", data=np.array([1000 * r + 90], np.int64))
        io.create_dataset("end_times", data=np.array([1000 * r + 95], np.int64))


def host_root(f, host):
    f.attrs["scope_format"] = np.int64(1)
    f.attrs["scope_profiler_schema"] = np.int64(1)
    m = f.create_group("metadata")
    m.attrs["start_time_ns"] = np.int64(0)
    m.attrs["mpi_size"] = np.int64(6)
    m.attrs["hostname"] = host


def host_layout(name, per_host, skip=()):
    """per_host: hosts whose ranks share a host file; the others get rank
    files. skip: host files linked to but not written."""
    d = path("hosts", name)
    os.makedirs(os.path.join(d, "run.ranks"))
    target = {}
    for host, ranks in HOSTS.items():
        if host in per_host:
            rel = f"run.ranks/host-{host}.h5"
            if host not in skip:
                with h5py.File(os.path.join(d, rel), "w") as f:
                    host_root(f, host)
                    for r in reversed(ranks):   # any order in the file
                        host_rank_group(f, r, host)
            target.update({r: rel for r in ranks})
        else:
            for r in ranks:
                rel = f"run.ranks/rank{r}.h5"
                with h5py.File(os.path.join(d, rel), "w") as f:
                    host_root(f, host)
                    host_rank_group(f, r, host)
                target[r] = rel
    with h5py.File(os.path.join(d, "run.h5"), "w") as f:
        host_root(f, "nodeA")
        for r in range(6):
            f[f"rank{r}"] = h5py.ExternalLink(target[r], f"/rank{r}")


host_layout("perrank", [])
host_layout("perhost", ["nodeA", "nodeB"])
host_layout("mixed", ["nodeA"])
host_layout("missing", ["nodeA", "nodeB"], skip=["nodeB"])

# 11. A run of 300 ranks, enough for the reader to split opening among
# worker processes (test_parallel_open.c):
#   rank r, region "solve": r % 7 + 1 calls, call i = [10000 r + 100 i,
#           10000 r + 100 i + 3 i + r % 11 + 1]
#   rank r, region "io" (r % 3 == 0): 2 calls [10000 r + 50, + 7], [.. + 60, + 9]
#   rank r, region "big" (r == 150 only): 70,000 calls (above the reader's
#           read-at-open limit), call i = [i * 10, i * 10 + i % 5]
#   what the regions are (docs/format.md "Operations"): "io" has kind mpi
#           and operation "MPI_Send_c" (a renamed MPI call), "big" the
#           operation "MPI_No_such_call" (none this reader knows), and
#           rank 3 a region "MPI_Bcast" without the attribute (read by its
#           name): 1 call [10000 r + 70, + 75]; "solve" is none
#   rank r attributes: pid = 5000 + r, hostname = host-<r // 75>,
#           overhead_inside_ns = r / 4, complete = 1 (int8)
# many/perrank   run.h5 + run.ranks/rank<N>.h5
# many/perhost   run.h5 + 4 host files of 75 ranks (ranks 296..299 in rank
#                files instead: a mixed run)
# many/broken    as perhost, but ranks 80 (host 1) and 230 (host 3) have
#                2 start times and 1 end time in "solve": the open fails,
#                naming rank 80 (the first in file order)
MANY = 300


def many_rank_group(f, r, broken=False):
    g = f.create_group(f"rank{r}")
    g.attrs["rank"] = np.int64(r)
    g.attrs["pid"] = np.int64(5000 + r)
    g.attrs["hostname"] = f"host-{r // 75}"
    g.attrs["complete"] = np.int8(1)
    g.attrs["overhead_inside_ns"] = np.float64(r / 4)
    i = np.arange(r % 7 + 1, dtype=np.int64)
    solve = g.create_group("regions/solve")
    solve.attrs["name"] = "solve"
    starts = 10000 * r + 100 * i
    solve.create_dataset("start_times", data=starts if not broken else starts[:2])
    solve.create_dataset("end_times", data=(starts + 3 * i + r % 11 + 1) if not broken
                         else starts[:1] + 1)
    if r % 3 == 0:
        io = g.create_group("regions/io")
        io.attrs["kind"] = "mpi"
        io.attrs["operation"] = "MPI_Send_c"
        io.create_dataset("start_times", data=np.array([10000 * r + 50, 10000 * r + 60], np.int64))
        io.create_dataset("end_times", data=np.array([10000 * r + 57, 10000 * r + 69], np.int64))
    if r == 3:
        bc = g.create_group("regions/MPI_Bcast")
        bc.create_dataset("start_times", data=np.array([10000 * r + 70], np.int64))
        bc.create_dataset("end_times", data=np.array([10000 * r + 75], np.int64))
    if r == 150:
        k = np.arange(70000, dtype=np.int64)
        big = g.create_group("regions/big")
        big.attrs["operation"] = "MPI_No_such_call"
        big.create_dataset("start_times", data=k * 10)
        big.create_dataset("end_times", data=k * 10 + k % 5)


def many_layout(name, per_host, broken=()):
    d = path("many", name)
    os.makedirs(os.path.join(d, "run.ranks"))
    target = {}
    files = {}
    for r in range(MANY):
        host = f"host-{r // 75}"
        if per_host and r < 296:
            rel = f"run.ranks/host-{host}.h5"
            if rel not in files:
                files[rel] = h5py.File(os.path.join(d, rel), "w")
                host_root(files[rel], host)
            many_rank_group(files[rel], r, r in broken)
        else:
            rel = f"run.ranks/rank{r}.h5"
            with h5py.File(os.path.join(d, rel), "w") as f:
                host_root(f, host)
                many_rank_group(f, r, r in broken)
        target[r] = rel
    for f in files.values():
        f.close()
    with h5py.File(os.path.join(d, "run.h5"), "w") as f:
        host_root(f, "host-0")
        for r in range(MANY):
            f[f"rank{r}"] = h5py.ExternalLink(target[r], f"/rank{r}")


many_layout("perrank", False)
many_layout("perhost", True)
many_layout("broken", True, broken=(80, 230))

# 12. A run of 8 ranks on 3 hosts whose MPI calls moved data (docs/format.md
# "What MPI calls moved"), for the Dask summaries and communication matrix
# (tests/python/test_to_dask.py), from a seeded generator, checked against
# the reader (no hand numbers): hosts nodeA = 0, 3, 6; nodeB = 1, 4, 7;
# nodeC = 2, 5. Per rank r, one call after the other (no nesting):
#   "compute": 400 + 37 r calls of 1 .. 2,000,000 ns (a few of 10^9)
#   "MPI_Send": 24 calls to (r + 1 + i % 3) % 8, 0 .. 2^20 bytes; every 8th
#               to MPI_PROC_NULL (dest -1, 0 bytes)
#   "MPI_Isend": 5 calls to (r + 4) % 8, the first of 0 bytes
#   "MPI_Recv": 24 calls from (r - 1) % 8, bytes_received only
#   "MPI_Bcast": 3 calls, root 0 (dest = source = 0): not point-to-point
# comm/perhost   run.h5 + run.ranks/host-node{A,B,C}.h5
# comm/perrank   run.h5 + run.ranks/rank<N>.h5 (the same run)
# The index's run start is 0; each host's files say 250, 500, 750 ns (a
# host leader's own start): a file opened alone has another time origin.
COMM_HOSTS = {"nodeA": [0, 3, 6], "nodeB": [1, 4, 7], "nodeC": [2, 5]}


def comm_calls(r):
    """[(region, duration, bytes_sent, bytes_received, dest, source)] of rank r."""
    rng = np.random.default_rng(1200 + r)
    calls = []
    for d in rng.integers(1, 2_000_000, 400 + 37 * r):
        calls.append(("compute", int(d), 0, 0, -1, -1))
    for k in range(3):
        calls[k * 97] = ("compute", 10 ** 9 + k * 13 + r, 0, 0, -1, -1)
    for i in range(24):
        to = -1 if i % 8 == 7 else (r + 1 + i % 3) % 8
        calls.insert(17 * i + 5, ("MPI_Send", int(rng.integers(100, 90_000)),
                                  0 if to < 0 else int(rng.integers(0, 1 << 20)), 0, to, -1))
        calls.insert(17 * i + 11, ("MPI_Recv", int(rng.integers(100, 90_000)), 0,
                                   int(rng.integers(0, 1 << 20)), -1, (r - 1) % 8))
    for i in range(5):
        calls.insert(60 * i + 3, ("MPI_Isend", int(rng.integers(50, 900)),
                                  0 if i == 0 else 64 * (i + r), 0, (r + 4) % 8, -1))
    for i in range(3):
        calls.insert(100 * i + 50, ("MPI_Bcast", int(rng.integers(1000, 50_000)), 4096, 4096,
                                    0, 0))
    return calls


def comm_rank_group(f, r, host):
    g = f.create_group(f"rank{r}")
    g.attrs["rank"] = np.int64(r)
    g.attrs["hostname"] = host
    g.attrs["complete"] = np.int8(1)
    g.attrs["mpi_data"] = np.int64(1)
    t = 1_000_000 * r
    cols = {}
    for name, dur, sent, recv, dest, src in comm_calls(r):
        t += 1000
        cols.setdefault(name, []).append((t, t + dur, sent, recv, dest, src))
        t += dur
    for name, rows in cols.items():
        a = np.array(rows, dtype=np.int64)
        reg = g.create_group(f"regions/{name}")
        reg.attrs["name"] = name
        reg.create_dataset("start_times", data=a[:, 0])
        reg.create_dataset("end_times", data=a[:, 1])
        if name.startswith("MPI_"):
            n = len(a)
            reg.create_dataset("bytes_sent", data=a[:, 2])
            reg.create_dataset("bytes_received", data=a[:, 3])
            reg.create_dataset("dest", data=a[:, 4].astype(np.int32))
            reg.create_dataset("source", data=a[:, 5].astype(np.int32))
            reg.create_dataset("tag", data=np.full(n, 7 if name != "MPI_Bcast" else -2147483648,
                                                   np.int32))
            reg.create_dataset("comm", data=np.zeros(n, np.int32))


def comm_layout(name, per_host):
    d = path("comm", name)
    os.makedirs(os.path.join(d, "run.ranks"))
    target = {}
    for h, (host, ranks) in enumerate(COMM_HOSTS.items()):
        if per_host:
            rel = f"run.ranks/host-{host}.h5"
            with h5py.File(os.path.join(d, rel), "w") as f:
                host_root(f, host)
                f["metadata"].attrs["mpi_size"] = np.int64(8)
                f["metadata"].attrs["start_time_ns"] = np.int64(250 * (h + 1))
                for r in ranks:
                    comm_rank_group(f, r, host)
            target.update({r: rel for r in ranks})
        else:
            for r in ranks:
                rel = f"run.ranks/rank{r}.h5"
                with h5py.File(os.path.join(d, rel), "w") as f:
                    host_root(f, host)
                    f["metadata"].attrs["mpi_size"] = np.int64(8)
                    f["metadata"].attrs["start_time_ns"] = np.int64(250 * (h + 1))
                    comm_rank_group(f, r, host)
                target[r] = rel
    with h5py.File(os.path.join(d, "run.h5"), "w") as f:
        host_root(f, "nodeA")
        f["metadata"].attrs["mpi_size"] = np.int64(8)
        for r in range(8):
            f[f"rank{r}"] = h5py.ExternalLink(target[r], f"/rank{r}")


comm_layout("perhost", True)
comm_layout("perrank", False)
open(sys.argv[2] if len(sys.argv) > 2 else path("stamp"), "w").close()
