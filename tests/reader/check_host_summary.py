#!/usr/bin/python3
"""check_host_summary.py - a host file's summary table (docs/format.md
"The host summary table") gives the reader the very profile its rank
groups give, and a damaged table is never trusted.

  check_host_summary.py LIBSCOPE_READER SCOPE_H5WRITE SCOPE PROFILE_DIR

From make_profiles.py's host-file runs (hosts/perhost: 6 ranks in 2 host
files; many/perhost: 296 ranks in 4 host files plus 4 rank files, with a
70,000-call region above the reader's read-at-open limit, a region
without a name attribute, float, int8 and string rank attributes), each
copied twice: "plain" as written (no table) and "table" after
`scope-h5write --host-summary` on its host files. Asserted:

  1. the table is there (version 2, one row per rank group, its checksum
     right);
  2. plain and table open to the same profile, compared through
     libscope_reader bit for bit: ranks, missing ranks, regions in
     order, per (region, rank) calls, statistics (the scope_stats bytes),
     start and end times, the rank attributes (int, float, string, absent),
     what each region is (its operation: from the attribute, by name, none),
     run start, max end, span, and the call stacks of a few ranks; and
     `scope summary` prints the same text;
     the same holds for a host file opened itself and for the run's folder;
  3. the table is what is read: a pid and a cell's max changed inside the
     table (consistently, checksum included) show through, so the rank groups were not read
     (through the index, a host file opened itself, the folder);
  4. every kind of damage, done to the table of (3) (a flipped bit the
     checksum catches, no checksum, and with a right checksum: wrong version, a rank missing, a wrong rank,
     a wrong group name, a cut string blob, absurd counts, offsets out of
     range, an unknown kind, a chunked or wrongly shaped dataset, a float
     table, a mean that is not total / n, a missing dataset) makes the
     reader ignore that file's table: the profile is again exactly the
     plain one;
  5. a run whose rank groups are damaged (many/broken) gets no table for
     the damaged hosts and fails to open with the same error as without.
"""
import ctypes
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import h5py
import numpy as np

LIB, H5WRITE, SCOPE, PROFILES = sys.argv[1:5]
lib = ctypes.CDLL(LIB)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


class Stats(ctypes.Structure):
    _fields_ = [("calls", ctypes.c_int64), ("total_ns", ctypes.c_int64),
                ("min_ns", ctypes.c_int64), ("max_ns", ctypes.c_int64),
                ("mean_ns", ctypes.c_double), ("std_ns", ctypes.c_double)]


class Call(ctypes.Structure):
    _fields_ = [("start_ns", ctypes.c_int64), ("end_ns", ctypes.c_int64),
                ("self_ns", ctypes.c_int64), ("call_index", ctypes.c_int64),
                ("parent", ctypes.c_int64), ("region", ctypes.c_int32),
                ("thread", ctypes.c_int32), ("depth", ctypes.c_int32),
                ("reserved", ctypes.c_int32)]


P = ctypes.c_void_p
lib.scope_reader_errmsg.restype = ctypes.c_char_p
lib.scope_profile_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(P)]
lib.scope_profile_close.argtypes = [P]
for fn in ("region_count", "rank_count", "missing_rank_count"):
    getattr(lib, "scope_profile_" + fn).argtypes = [P]
lib.scope_profile_rank.argtypes = [P, ctypes.c_int]
lib.scope_profile_missing_rank.argtypes = [P, ctypes.c_int]
lib.scope_profile_region_name.argtypes = [P, ctypes.c_int]
lib.scope_profile_region_name.restype = ctypes.c_char_p
lib.scope_profile_region_operation.argtypes = [P, ctypes.c_int]
lib.scope_profile_region_operation.restype = ctypes.c_char_p
lib.scope_profile_calls.argtypes = [P, ctypes.c_int, ctypes.c_int]
lib.scope_profile_calls.restype = ctypes.c_int64
lib.scope_profile_stats.argtypes = [P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Stats)]
I64P = ctypes.POINTER(ctypes.c_int64)
lib.scope_profile_times.argtypes = [P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(I64P),
                                    ctypes.POINTER(I64P), I64P]
lib.scope_profile_rank_attr_int.argtypes = [P, ctypes.c_int, ctypes.c_char_p, I64P]
lib.scope_profile_rank_attr_double.argtypes = [P, ctypes.c_int, ctypes.c_char_p,
                                               ctypes.POINTER(ctypes.c_double)]
lib.scope_profile_rank_attr_string.argtypes = [P, ctypes.c_int, ctypes.c_char_p,
                                               ctypes.c_char_p, ctypes.c_int64]
for fn in ("run_start_ns", "max_end_ns", "time_span_ns"):
    getattr(lib, "scope_profile_" + fn).argtypes = [P, I64P]
lib.scope_profile_call_stack.argtypes = [P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(P)]
lib.scope_call_stack_count.argtypes = [P]
lib.scope_call_stack_count.restype = ctypes.c_int64
lib.scope_call_stack_calls.argtypes = [P]
lib.scope_call_stack_calls.restype = ctypes.POINTER(Call)
lib.scope_call_stack_free.argtypes = [P]

ATTRS_INT = ["rank", "pid", "complete", "start_time_ns", "no_such_attr", "hostname"]
ATTRS_DOUBLE = ["overhead_inside_ns", "pid", "hostname"]
ATTRS_STRING = ["hostname", "pid", "no_such_attr"]


def describe(path, stack_ranks):
    """Everything the reader says about the profile at path, as a list of
    comparable values (bytes for doubles and structs), or the open error."""
    p = P()
    rc = lib.scope_profile_open(path.encode(), ctypes.byref(p))
    if rc < 0:
        return [("error", rc, lib.scope_reader_errmsg().decode())]
    out = []
    nranks = lib.scope_profile_rank_count(p)
    ranks = [lib.scope_profile_rank(p, i) for i in range(nranks)]
    out.append(("ranks", ranks))
    out.append(("missing", [lib.scope_profile_missing_rank(p, i)
                            for i in range(lib.scope_profile_missing_rank_count(p))]))
    nreg = lib.scope_profile_region_count(p)
    out.append(("regions", [lib.scope_profile_region_name(p, i) for i in range(nreg)]))
    out.append(("operations", [lib.scope_profile_region_operation(p, i) for i in range(nreg)]))
    v = ctypes.c_int64()
    d = ctypes.c_double()
    buf = ctypes.create_string_buffer(256)
    for r in ranks:
        for a in ATTRS_INT:
            rc = lib.scope_profile_rank_attr_int(p, r, a.encode(), ctypes.byref(v))
            out.append(("attr_int", r, a, rc, v.value if rc >= 0 else None))
        for a in ATTRS_DOUBLE:
            rc = lib.scope_profile_rank_attr_double(p, r, a.encode(), ctypes.byref(d))
            out.append(("attr_double", r, a, rc, struct.pack("d", d.value) if rc >= 0 else None))
        for a in ATTRS_STRING:
            rc = lib.scope_profile_rank_attr_string(p, r, a.encode(), buf, len(buf))
            out.append(("attr_string", r, a, rc, buf.value if rc >= 0 else None))
        for reg in range(nreg):
            out.append(("calls", reg, r, lib.scope_profile_calls(p, reg, r)))
            st = Stats()
            rc = lib.scope_profile_stats(p, reg, r, ctypes.byref(st))
            out.append(("stats", reg, r, rc, bytes(st)))
            s, e, n = I64P(), I64P(), ctypes.c_int64()
            rc = lib.scope_profile_times(p, reg, r, ctypes.byref(s), ctypes.byref(e),
                                         ctypes.byref(n))
            times = (bytes(ctypes.string_at(s, 8 * n.value)),
                     bytes(ctypes.string_at(e, 8 * n.value))) if rc >= 0 and n.value else None
            out.append(("times", reg, r, rc, n.value, times))
    for reg in range(nreg):
        st = Stats()
        rc = lib.scope_profile_stats(p, reg, -1, ctypes.byref(st))   # SCOPE_ALL_RANKS
        out.append(("stats_all", reg, rc, bytes(st)))
    for fn in ("run_start_ns", "max_end_ns", "time_span_ns"):
        rc = getattr(lib, "scope_profile_" + fn)(p, ctypes.byref(v))
        out.append((fn, rc, v.value))
    for r in stack_ranks:
        cs = P()
        rc = lib.scope_profile_call_stack(p, r, -1, ctypes.byref(cs))  # all threads
        if rc >= 0:
            n = lib.scope_call_stack_count(cs)
            calls = lib.scope_call_stack_calls(cs)
            out.append(("stack", r, n, bytes(ctypes.string_at(calls, n * ctypes.sizeof(Call)))))
            lib.scope_call_stack_free(cs)
        else:
            out.append(("stack", r, rc))
    lib.scope_profile_close(p)
    return out


def summary_text(path):
    r = subprocess.run([SCOPE, "summary", path], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def copy_run(src, dst, with_table):
    shutil.copytree(src, dst)
    hosts = sorted(os.path.join(dst, "run.ranks", f) for f in os.listdir(os.path.join(dst, "run.ranks"))
                   if f.startswith("host-"))
    if with_table:
        r = subprocess.run([H5WRITE, "--host-summary"] + hosts, capture_output=True, text=True)
        check(r.returncode == 0, f"scope-h5write --host-summary {dst}: {r.stderr}")
    return os.path.join(dst, "run.h5"), hosts


def first_diff(a, b):
    for x, y in zip(a, b):
        if x != y:
            return f"{x!r:.300} != {y!r:.300}"
    return f"lengths {len(a)} != {len(b)}"


def same(a, b, what):
    check(a == b, f"{what}: {first_diff(a, b) if a != b else ''}")


def rewrite(g, name, data, **kw):
    del g[name]
    g.create_dataset(name, data=data, **kw)


def checksum(g):
    """scope_hs_hash (format/scope_format.h): FNV-1a 64 over the
    little-endian bytes of ranks, attrs, cells, then strings."""
    h = 14695981039346656037
    data = b"".join(g[k][()].astype("<i8").tobytes() for k in ("ranks", "attrs", "cells"))
    data += g["strings"][()].tobytes() if "strings" in g else b""
    for byte in data:
        h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return np.int64(h - (1 << 64) if h >= 1 << 63 else h)


def resign(g):
    """A damage that keeps the checksum right (a wrong writer, not bit rot):
    the reader's other checks must catch it."""
    if g.get("cells") is not None and g["cells"].shape[0] > 1 << 20:
        return      # huge_rows: caught by its shape before any checksum
    g.attrs["checksum"] = checksum(g)


# Each damage: a function of the table group of one host file; all but
# bit_rot are re-signed with a right checksum.
def set_version(g):
    g.attrs["version"] = np.int64(3)


def drop_rank(g):
    rewrite(g, "ranks", g["ranks"][:-1])


def wrong_rank(g):
    r = g["ranks"][()]
    r[0, 0] = 99999
    rewrite(g, "ranks", r)


def wrong_group(g):
    r = g["ranks"][()]
    r[0, 1], r[1, 1] = r[1, 1], r[0, 1]   # rank 0's row names rank 1's group
    rewrite(g, "ranks", r)


def cut_strings(g):
    rewrite(g, "strings", g["strings"][:-3])


def absurd_count(g):
    r = g["ranks"][()]
    r[0, 2] = 1 << 40
    rewrite(g, "ranks", r)


def negative_count(g):
    r = g["ranks"][()]
    r[0, 3] = -1
    r[1, 3] += 1
    rewrite(g, "ranks", r)


def offset_out(g):
    a = g["attrs"][()]
    a[0, 0] = 10 ** 9
    rewrite(g, "attrs", a)


def bad_kind(g):
    a = g["attrs"][()]
    a[0, 1] = 7
    rewrite(g, "attrs", a)


def chunked(g):
    rewrite(g, "cells", g["cells"][()], chunks=True)


def wrong_shape(g):
    rewrite(g, "cells", g["cells"][:, :12])    # version 2 has 13 columns


def float_table(g):
    rewrite(g, "ranks", g["ranks"][()].astype(np.float64))


def bad_mean(g):
    c = g["cells"][()]
    k = int(np.nonzero(c[:, 5] == 1)[0][0])
    c[k, 10] = np.float64(12345.5).view(np.int64)
    rewrite(g, "cells", c)


def no_strings(g):
    del g["strings"]


def huge_rows(g):
    # a dataspace that claims far more rows than the file stores
    del g["cells"]
    g.create_dataset("cells", shape=(1 << 30, 13), dtype=np.int64, chunks=(1, 13))


def bit_rot(g):
    c = g["cells"][()]
    c[0, 7] ^= 1 << 3  # a min, still <= max: only the checksum tells
    rewrite(g, "cells", c)


def no_checksum(g):
    del g.attrs["checksum"]


def operation_out(g):
    c = g["cells"][()]
    k = int(np.nonzero(c[:, 12] >= 0)[0][0]) if (c[:, 12] >= 0).any() else 0
    c[k, 12] = 10 ** 9
    rewrite(g, "cells", c)


def version_1(g):
    """Not a damage: the table as a writer before the `operation`
    attribute wrote it (12 columns), which the reader still uses."""
    rewrite(g, "cells", g["cells"][:, :12])
    g.attrs["version"] = np.int64(1)
    g.attrs["checksum"] = checksum(g)


DAMAGES = [bit_rot, no_checksum, set_version, drop_rank, wrong_rank, wrong_group, cut_strings, absurd_count,
           negative_count, offset_out, bad_kind, chunked, wrong_shape, float_table, bad_mean,
           no_strings, huge_rows, operation_out]


def main():
    tmp = tempfile.mkdtemp(prefix="host_summary.")
    try:
        for run, stack_ranks, victim in (("hosts/perhost", [0, 3, 5], "host-nodeB.h5"),
                                         ("many/perhost", [0, 150, 299], "host-host-1.h5")):
            src = os.path.join(PROFILES, run)
            base = os.path.join(tmp, run.replace("/", "_"))
            plain, _ = copy_run(src, base + ".plain", False)
            table, hosts = copy_run(src, base + ".table", True)
            # 1. the table is there, one row per rank group
            for h in hosts:
                with h5py.File(h, "r") as f:
                    g = f.get("scope_host_summary")
                    check(g is not None and g.attrs.get("version") == 2, f"{h}: no table")
                    if g is not None:
                        groups = sorted(int(k[4:]) for k in f if k.startswith("rank"))
                        check(list(g["ranks"][:, 0]) == groups, f"{h}: table ranks {groups}")
                        check(g.attrs["checksum"] == checksum(g), f"{h}: checksum")
            # 2. the same profile, bit for bit
            want = describe(plain, stack_ranks)
            check(want[0][0] != "error", f"{plain}: {want[0]}")
            same(describe(table, stack_ranks), want, f"{run}: table vs plain")
            same(summary_text(table), summary_text(plain), f"{run}: scope summary")
            # 2b. the same for a host file opened itself and for the folder
            for rel in (os.path.join("run.ranks", victim), "run.ranks"):
                same(describe(os.path.join(base + ".table", rel), stack_ranks[:1]),
                     describe(os.path.join(base + ".plain", rel), stack_ranks[:1]),
                     f"{run}: {rel} opened itself, table vs plain")
            # 3. the table is what is read
            probe, _ = copy_run(base + ".table", base + ".probe", False)
            vh = os.path.join(base + ".probe", "run.ranks", victim)
            with h5py.File(vh, "r+") as f:
                g = f["scope_host_summary"]
                s = g["strings"][()].tobytes()
                a = g["attrs"][()]
                rank0 = int(g["ranks"][0, 0])
                k = next(i for i in range(len(a))
                         if s[a[i, 0]:s.index(b"\0", a[i, 0])] == b"pid")
                a[k, 2] = 777777
                a[k, 3] = np.float64(777777).view(np.int64)
                rewrite(g, "attrs", a)
                c = g["cells"][()]
                c[0, 8] += 1000     # rank0's first cell: max
                rewrite(g, "cells", c)
                check(g.attrs["checksum"] != checksum(g), "the probe's edit changes the checksum")
                g.attrs["checksum"] = checksum(g)
            p = P()
            check(lib.scope_profile_open(probe.encode(), ctypes.byref(p)) == 0, f"{probe}: open")
            v = ctypes.c_int64()
            lib.scope_profile_rank_attr_int(p, rank0, b"pid", ctypes.byref(v))
            check(v.value == 777777, f"{run}: pid from the table: {v.value}")
            st = Stats()
            ref = {x[1:4]: x[4] for x in want if x[0] == "stats"}
            region = next(i for i in range(lib.scope_profile_region_count(p))
                          if lib.scope_profile_calls(p, i, rank0) > 0 and
                          lib.scope_profile_region_name(p, i) ==
                          s[c[0, 0]:s.index(b"\0", c[0, 0])])
            lib.scope_profile_stats(p, region, rank0, ctypes.byref(st))
            old = Stats.from_buffer_copy(ref[(region, rank0, 0)])
            check(st.max_ns == old.max_ns + 1000, f"{run}: max from the table: {st.max_ns}")
            lib.scope_profile_close(p)
            for rel in (os.path.join("run.ranks", victim), "run.ranks"):
                q = os.path.join(base + ".probe", rel)
                check(lib.scope_profile_open(q.encode(), ctypes.byref(p)) == 0, f"{q}: open")
                lib.scope_profile_rank_attr_int(p, rank0, b"pid", ctypes.byref(v))
                check(v.value == 777777, f"{q}: pid from the table: {v.value}")
                lib.scope_profile_close(p)
            # 3b. a version 1 table (no operation column) is still read, on
            # a run whose groups have no operation (as every run a writer of
            # version 1 wrote): the same profile, and the table is read
            if run == "hosts/perhost":
                v1, _ = copy_run(base + ".table", base + ".v1", False)
                old, _ = copy_run(base + ".probe", base + ".probe_v1", False)
                for d in (base + ".v1", base + ".probe_v1"):
                    with h5py.File(os.path.join(d, "run.ranks", victim), "r+") as f:
                        version_1(f["scope_host_summary"])
                same(describe(v1, stack_ranks), want, f"{run}: a version 1 table")
                check(lib.scope_profile_open(old.encode(), ctypes.byref(p)) == 0, f"{old}: open")
                lib.scope_profile_rank_attr_int(p, rank0, b"pid", ctypes.byref(v))
                check(v.value == 777777, f"{old}: pid from the version 1 table: {v.value}")
                lib.scope_profile_close(p)
            # 4. damaged tables are ignored: the plain profile again. Each
            # damage is done to the probe's table, whose pid and max differ
            # from the groups': a table wrongly trusted shows.
            for damage in DAMAGES:
                d = base + "." + damage.__name__
                path, _ = copy_run(base + ".probe", d, False)
                with h5py.File(os.path.join(d, "run.ranks", victim), "r+") as f:
                    damage(f["scope_host_summary"])
                    if damage not in (bit_rot, no_checksum):
                        resign(f["scope_host_summary"])
                same(describe(path, stack_ranks), want, f"{run}: damage {damage.__name__}")
                host = os.path.join(d, "run.ranks", victim)
                same(describe(host, []), describe(os.path.join(base + ".plain", "run.ranks", victim), []),
                     f"{run}: damage {damage.__name__}, the host file opened itself")
        # 5. damaged rank groups: no table where they are, the same error
        src = os.path.join(PROFILES, "many/broken")
        plain, _ = copy_run(src, os.path.join(tmp, "broken.plain"), False)
        table, hosts = copy_run(src, os.path.join(tmp, "broken.table"), True)
        for h in hosts:
            with h5py.File(h, "r") as f:
                damaged = h.endswith(("host-host-1.h5", "host-host-3.h5"))
                check(("scope_host_summary" in f) != damaged, f"{h}: table or not")
        want = describe(plain, [])
        check(want[0][0] == "error" and "/rank80/" in want[0][2], f"broken: {want[0]}")
        got = [tuple(x.replace("broken.table", "broken.plain") if isinstance(x, str) else x
                     for x in e) for e in describe(table, [])]
        same(got, want, "broken: table vs plain")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("ok: host summary tables read as the rank groups; damaged ones ignored")
    return 0


sys.exit(main())
