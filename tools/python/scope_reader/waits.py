"""waits.py - who waited for whom (scope_reader_waits.h): every matched
point-to-point message and the wait states of the MPI calls, as pandas
DataFrames. Attached to ProfilingResults by scope_reader/__init__.py; the
patterns are defined in docs/analysis.md ("Wait states").

    p = scope_reader.read_h5("run.h5")
    p.waits()          # rank, region, pattern, waited_for, instances, time, within_bound,
                       # io_ns, io_file, io_files, io_file_ns
    p.messages()       # sender, receiver, tag, communicator, bytes, send_start, recv_end, wait, ...
    p.wait_calls()     # one row per waiting call
    p.wait_totals()    # the run's totals, a dict

Times are seconds (waits) and seconds from the run start (message times),
as in `scope waits --format csv`.
"""
import ctypes
import os

import numpy as np

# the patterns' names by their number, from the library
# (scope_wait_pattern_name), filled when the module is attached
PATTERNS = ()
NO_MESSAGES = 1
INT64_MAX = (1 << 63) - 1

_i32, _i64 = ctypes.c_int32, ctypes.c_int64


class _Row(ctypes.Structure):
    _fields_ = [("rank", _i32), ("region", _i32), ("pattern", _i32), ("waited_for", _i32),
                ("instances", _i64), ("time_ns", _i64), ("within_bound", _i64)]


class _WaitIo(ctypes.Structure):
    _fields_ = [("io_ns", _i64), ("file_ns", _i64), ("file", _i32), ("files", _i32)]


class _Call(ctypes.Structure):
    _fields_ = [("rank", _i32), ("region", _i32), ("call", _i64), ("pattern", _i32),
                ("waited_for", _i32), ("wait_ns", _i64), ("bound_ns", _i64)]


class _Message(ctypes.Structure):
    _fields_ = [("sender", _i32), ("receiver", _i32), ("tag", _i32), ("comm", _i32),
                ("bytes", _i64), ("send_region", _i32), ("recv_region", _i32),
                ("recv_done_region", _i32), ("send_call", _i64), ("recv_call", _i64),
                ("recv_done_call", _i64), ("send_start_ns", _i64), ("send_end_ns", _i64),
                ("recv_start_ns", _i64), ("recv_end_ns", _i64), ("wait_ns", _i64),
                ("pattern", _i32)]


class _Unmatched(ctypes.Structure):
    _fields_ = [("rank", _i32), ("peer", _i32), ("is_send", _i32), ("count", _i64)]


class _Totals(ctypes.Structure):
    _fields_ = [("messages", _i64), ("unmatched_sends", _i64), ("unmatched_receives", _i64),
                ("collective_instances", _i64), ("incomplete_collectives", _i64),
                ("unanalysed_calls", _i64), ("waiting_ns", _i64 * 6), ("instances", _i64 * 6),
                ("within_bound", _i64 * 6), ("waiting_total_ns", _i64), ("mpi_ns", _i64),
                ("max_bound_ns", _i64), ("comms", ctypes.c_int),
                ("buckets", ctypes.c_int), ("spilled", ctypes.c_int),
                ("gather_ns", _i64), ("gather_cpu_ns", _i64),
                ("match_ns", _i64), ("match_cpu_ns", _i64)]


# the mirrors of scope_reader_waits.h, checked by tests/python/test_mirrors.py
C_STRUCTS = {"scope_wait_row": _Row, "scope_wait_io": _WaitIo, "scope_wait_call": _Call, "scope_message": _Message,
             "scope_unmatched": _Unmatched, "scope_waits_totals": _Totals}


def _dtype(struct):
    """The numpy dtype of a ctypes struct, offsets and padding included
    (numpy's own conversion guesses when a struct ends in padding)."""
    names, formats, offsets = [], [], []
    for name, ct in struct._fields_:
        names.append(name)
        base = getattr(ct, "_type_", ct) if issubclass(ct, ctypes.Array) else ct
        fmt = np.dtype(base)
        formats.append((fmt, (ct._length_,)) if issubclass(ct, ctypes.Array) else fmt)
        offsets.append(getattr(struct, name).offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                     "itemsize": ctypes.sizeof(struct)})


def _array(ptr, n, struct):
    """A numpy structured copy of n C structs."""
    dt = _dtype(struct)
    if n <= 0 or not ptr:
        return np.zeros(0, dtype=dt)
    raw = ctypes.string_at(ctypes.addressof(ptr.contents), n * ctypes.sizeof(struct))
    return np.frombuffer(raw, dtype=dt).copy()


def attach(results_cls, lib, sig, check, p):
    """Adds waits(), messages(), wait_calls(), wait_totals() to ProfilingResults."""
    global PATTERNS
    pattern_name = sig("scope_wait_pattern_name", ctypes.c_char_p, ctypes.c_int)
    names = []
    while pattern_name(len(names)) is not None:
        names.append(pattern_name(len(names)).decode())
    PATTERNS = tuple(names)
    run = sig("scope_profile_waits", ctypes.c_int, p, ctypes.c_int, ctypes.POINTER(p))
    free = sig("scope_waits_free", None, p)
    rows = sig("scope_waits_rows", _i64, p, ctypes.POINTER(ctypes.POINTER(_Row)))
    calls = sig("scope_waits_calls", _i64, p, ctypes.POINTER(ctypes.POINTER(_Call)))
    msgs = sig("scope_waits_messages", _i64, p, ctypes.POINTER(ctypes.POINTER(_Message)))
    unm = sig("scope_waits_unmatched", _i64, p, ctypes.POINTER(ctypes.POINTER(_Unmatched)))
    totals = sig("scope_waits_totals_get", None, p, ctypes.POINTER(_Totals))
    comm_name = sig("scope_waits_comm_name", ctypes.c_char_p, p, ctypes.c_int)
    rows_io = sig("scope_waits_rows_io", _i64, p, ctypes.POINTER(ctypes.POINTER(_WaitIo)))
    io_file = sig("scope_waits_io_file", ctypes.c_char_p, p, ctypes.c_int)
    io_totals = sig("scope_waits_io_totals", None, p, ctypes.POINTER(_WaitIo))

    def _with(self, flags, take):
        h = p()
        check(run(self._h, flags, ctypes.byref(h)))
        try:
            return take(h)
        finally:
            free(h)

    def _take(h, fn, struct):
        ptr = ctypes.POINTER(struct)()
        n = fn(h, ctypes.byref(ptr))
        return _array(ptr, n, struct)

    def _names(self, idx):
        names = np.array(list(self.region_names) + [""], dtype=object)
        return names[np.where(idx >= 0, idx, len(names) - 1)]

    def waits(self):
        """One row per (rank, region, pattern, waited-for rank): instances
        above the clock bound, their time in seconds, and the waits within
        the bound (counted, not timed); io_ns: of that time, the ns the
        waited-for rank spent inside its outermost I/O calls, io_file the
        file that took the most of it ('' none), io_files how many files,
        io_file_ns that file's ns (all 0 without I/O; docs/analysis.md,
        "Waits spent in I/O"). Sorted by time, largest first."""
        import pandas as pd

        def take(h):
            a, io = _take(h, rows, _Row), _take(h, rows_io, _WaitIo)
            files = [_file_name(h, int(f)) for f in io["file"]]
            return a, io, files
        a, io, files = _with(self, NO_MESSAGES, take)
        if len(io) != len(a):   # cannot happen: one per row
            io = np.zeros(len(a), dtype=_dtype(_WaitIo))
            files = [""] * len(a)
        return pd.DataFrame({
            "rank": a["rank"], "region": _names(self, a["region"]),
            "pattern": np.array(PATTERNS, dtype=object)[a["pattern"]] if len(a) else [],
            "waited_for": a["waited_for"], "instances": a["instances"],
            "time": a["time_ns"] / 1e9, "within_bound": a["within_bound"],
            "io_ns": io["io_ns"], "io_file": np.array(files, dtype=object),
            "io_files": io["files"], "io_file_ns": io["file_ns"]})

    def _file_name(h, f):
        n = io_file(h, f) if f >= 0 else None
        return os.fsdecode(n) if n is not None else ""

    def wait_calls(self):
        """One row per waiting call: rank, region, call (index in the
        region's calls on the rank), pattern, waited_for, wait and bound
        (seconds; NaN when the two ranks' clocks cannot be compared)."""
        import pandas as pd
        a = _with(self, NO_MESSAGES, lambda h: _take(h, calls, _Call))
        bound = np.where(a["bound_ns"] == INT64_MAX, np.nan, a["bound_ns"] / 1e9)
        return pd.DataFrame({
            "rank": a["rank"], "region": _names(self, a["region"]), "call": a["call"],
            "pattern": np.array(PATTERNS, dtype=object)[a["pattern"]] if len(a) else [],
            "waited_for": a["waited_for"], "wait": a["wait_ns"] / 1e9, "bound": bound})

    def messages(self):
        """One row per matched point-to-point message: sender, receiver,
        tag, communicator, bytes, the send and receive regions and call
        indices, send_start, send_end, recv_start, recv_end (seconds from
        the run start), wait (seconds: the receive's late-sender wait or
        the send's late-receiver wait) and pattern ('' when none)."""
        import pandas as pd

        def take(h):
            a = _take(h, msgs, _Message)
            comms = [comm_name(h, int(c)).decode("utf-8", "replace")
                     for c in range(int(a["comm"].max()) + 1)] if len(a) else []
            return a, comms
        a, comms = _with(self, 0, take)
        origin = self.time_origin_ns or 0
        pat = np.array(PATTERNS + ("",), dtype=object)
        return pd.DataFrame({
            "sender": a["sender"], "receiver": a["receiver"], "tag": a["tag"],
            "communicator": np.array(comms + [""], dtype=object)[a["comm"]] if len(a) else [],
            "bytes": a["bytes"], "send_region": _names(self, a["send_region"]),
            "send_call": a["send_call"], "recv_region": _names(self, a["recv_region"]),
            "recv_call": a["recv_call"],
            "send_start": (a["send_start_ns"] - origin) / 1e9,
            "send_end": (a["send_end_ns"] - origin) / 1e9,
            "recv_start": (a["recv_start_ns"] - origin) / 1e9,
            "recv_end": (a["recv_end_ns"] - origin) / 1e9,
            "wait": a["wait_ns"] / 1e9, "pattern": pat[a["pattern"]] if len(a) else []})

    def wait_totals(self):
        """The run's totals: messages, unmatched sends and receives,
        collective instances (and incomplete ones), calls not analysed,
        waiting time per pattern and in all, time in MPI calls, the largest
        clock bound (None when some clocks cannot be compared), the
        unmatched (rank, peer, side, messages) rows, the waiting spent in
        the waited-for ranks' I/O (`io`: io_ns, io_file, io_files,
        io_file_ns, as waits()), the memory buckets
        (`spilled`: through temporary files), and what the analysis cost
        (`cost`: gather and match, wall and CPU seconds)."""
        def take(h):
            t, io = _Totals(), _WaitIo()
            totals(h, ctypes.byref(t))
            io_totals(h, ctypes.byref(io))
            return t, _take(h, unm, _Unmatched), io, _file_name(h, io.file)
        t, u, io, io_name = _with(self, NO_MESSAGES, take)
        return {
            "messages": t.messages, "unmatched_sends": t.unmatched_sends,
            "unmatched_receives": t.unmatched_receives,
            "collective_instances": t.collective_instances,
            "incomplete_collectives": t.incomplete_collectives,
            "unanalysed_calls": t.unanalysed_calls, "communicators": t.comms,
            "waiting": {PATTERNS[k]: t.waiting_ns[k] / 1e9 for k in range(len(PATTERNS))},
            "instances": {PATTERNS[k]: t.instances[k] for k in range(len(PATTERNS))},
            "within_bound": {PATTERNS[k]: t.within_bound[k] for k in range(len(PATTERNS))},
            "waiting_total": t.waiting_total_ns / 1e9, "mpi_time": t.mpi_ns / 1e9,
            "clock_bound": None if t.max_bound_ns < 0 else t.max_bound_ns / 1e9,
            "buckets": t.buckets, "spilled": bool(t.spilled),
            "io": {"io_ns": io.io_ns, "io_file": io_name, "io_files": io.files,
                   "io_file_ns": io.file_ns},
            "cost": {"gather": t.gather_ns / 1e9, "gather_cpu": t.gather_cpu_ns / 1e9,
                     "match": t.match_ns / 1e9, "match_cpu": t.match_cpu_ns / 1e9},
            "unmatched": [{"rank": int(r["rank"]), "peer": int(r["peer"]),
                           "side": "send" if r["is_send"] else "receive",
                           "messages": int(r["count"])} for r in u]}

    results_cls.waits = waits
    results_cls.wait_calls = wait_calls
    results_cls.messages = messages
    results_cls.wait_totals = wait_totals
