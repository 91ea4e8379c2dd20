"""scope_reader - Python access to scope profiles through libscope_reader.

The same answers as the C library and the `scope` command, with the names
of scope-profiler's analysis tutorial:

    from scope_reader import read_h5, call_stack_roots, call_stack_children
    results = read_h5("scope_profile.h5")
    results.events(include="solve")           # one dict per call, seconds
    results["solve"].total_durations()        # {rank: seconds}
    calls = results.call_stack(rank=0)

A thin ctypes layer over the C library (no compiled extension). It finds
the library through $SCOPE_READER_LIB, then the installed libdir, then next
to this module (an install that copied it), then the dynamic linker's own
search ($LD_LIBRARY_PATH, the system's library path). In a build tree,
`meson devenv -C <build dir>` sets PYTHONPATH and SCOPE_READER_LIB for that
build, whatever the folder is called.
Times are seconds as floats; the *_ns properties give the stored int64.
The ctypes and numpy mirrors of the C structs (_C_STRUCTS) use the C
field names; tests/python/test_mirrors.py compares them with the compiler's
offsets and sizes.
"""
import ctypes
import ctypes.util
import os

import numpy as np

__all__ = ["read_h5", "call_stack_roots", "call_stack_children",
           "ProfilingResults", "MPIRegion", "Region", "ScopeError"]

NS = 1_000_000_000
ALL_RANKS = -1
ALL_THREADS = -1


class ScopeError(RuntimeError):
    """A reader failure: `code` is the negative SCOPE_E* value."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _library_candidates():
    """Paths (or sonames) to try, in order; the first that loads wins."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    if os.environ.get("SCOPE_READER_LIB"):
        candidates.append(os.environ["SCOPE_READER_LIB"])
    try:  # written by `meson install` (tools/python/meson.build)
        from ._install_paths import LIBDIR
        dirs = [LIBDIR]
    except ImportError:
        dirs = []
    for d in dirs + [here]:
        for name in ("libscope_reader.so", "libscope_reader.so.0"):
            if os.path.exists(os.path.join(d, name)):
                candidates.append(os.path.join(d, name))
    # the dynamic linker's search: LD_LIBRARY_PATH (meson devenv sets it),
    # then ld.so.cache and the default folders
    candidates.append("libscope_reader.so.0")
    found = ctypes.util.find_library("scope_reader")
    if found:
        candidates.append(found)
    return candidates


def _load_library():
    errors = []
    for c in _library_candidates():
        try:
            return ctypes.CDLL(c)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("scope_reader: cannot load libscope_reader (set SCOPE_READER_LIB, "
                      "run inside `meson devenv -C <build dir>`, or install scope): "
                      + "; ".join(errors))


_lib = _load_library()
_i64, _i32, _p = ctypes.c_int64, ctypes.c_int32, ctypes.c_void_p


class _Stats(ctypes.Structure):
    _fields_ = [("calls", _i64), ("total_ns", _i64), ("min_ns", _i64),
                ("max_ns", _i64), ("mean_ns", ctypes.c_double),
                ("std_ns", ctypes.c_double)]


class _Balance(ctypes.Structure):
    _fields_ = [("ranks", _i32), ("max_rank", _i32), ("min_rank", _i32),
                ("reserved", _i32), ("max_ns", _i64), ("min_ns", _i64),
                ("mean_ns", ctypes.c_double), ("imbalance", ctypes.c_double),
                ("max_min_ratio", ctypes.c_double)]


class _Query(ctypes.Structure):
    _fields_ = [("include", ctypes.POINTER(ctypes.c_char_p)), ("ninclude", _i32),
                ("nexclude", _i32), ("exclude", ctypes.POINTER(ctypes.c_char_p)),
                ("ranks", ctypes.POINTER(_i32)), ("nranks", _i32),
                ("time_mode", _i32), ("origin_ns", _i64), ("call_ids", _i32),
                ("call_sites", _i32)]


# The C structs scope_event and scope_call as numpy records (56 bytes each).
_EVENT = np.dtype([("start_ns", "<i8"), ("end_ns", "<i8"), ("call_index", "<i8"),
                   ("call_id", "<i8"), ("parent_id", "<i8"), ("region", "<i4"),
                   ("rank", "<i4"), ("thread", "<i4"), ("site", "<i4")])
_CALL = np.dtype([("start_ns", "<i8"), ("end_ns", "<i8"), ("self_ns", "<i8"),
                  ("call_index", "<i8"), ("parent", "<i8"), ("region", "<i4"),
                  ("thread", "<i4"), ("depth", "<i4"), ("reserved", "<i4")])

# Every mirror, by the name of the C struct it copies (scope_reader.h).
_C_STRUCTS = {"scope_stats": _Stats, "scope_balance": _Balance,
              "scope_event_query": _Query, "scope_event": _EVENT, "scope_call": _CALL}


def _sig(name, res, *args):
    f = getattr(_lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


_P64 = ctypes.POINTER(_i64)
_PP64 = ctypes.POINTER(ctypes.POINTER(_i64))
_errmsg = _sig("scope_reader_errmsg", ctypes.c_char_p)
_open_paths = _sig("scope_profile_open_paths", ctypes.c_int,
                   ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
                   ctypes.POINTER(_p))
_close = _sig("scope_profile_close", None, _p)
_region_count = _sig("scope_profile_region_count", ctypes.c_int, _p)
_region_name = _sig("scope_profile_region_name", ctypes.c_char_p, _p, ctypes.c_int)
_rank_count = _sig("scope_profile_rank_count", ctypes.c_int, _p)
_rank = _sig("scope_profile_rank", ctypes.c_int, _p, ctypes.c_int)
_calls = _sig("scope_profile_calls", _i64, _p, ctypes.c_int, ctypes.c_int)
_times = _sig("scope_profile_times", ctypes.c_int, _p, ctypes.c_int, ctypes.c_int,
              _PP64, _PP64, _P64)
_stats = _sig("scope_profile_stats", ctypes.c_int, _p, ctypes.c_int, ctypes.c_int,
              ctypes.POINTER(_Stats))
_percentiles = _sig("scope_profile_percentiles", ctypes.c_int, _p, ctypes.c_int,
                    ctypes.c_int, ctypes.POINTER(ctypes.c_double), ctypes.c_int,
                    ctypes.POINTER(ctypes.c_double))
_balance = _sig("scope_profile_balance", ctypes.c_int, _p, ctypes.c_int,
                ctypes.POINTER(_Balance))
_run_start = _sig("scope_profile_run_start_ns", ctypes.c_int, _p, _P64)
_min_start = _sig("scope_profile_min_start_ns", ctypes.c_int, _p, _P64)
_max_end = _sig("scope_profile_max_end_ns", ctypes.c_int, _p, _P64)
_origin = _sig("scope_profile_time_origin_ns", ctypes.c_int, _p, _P64)
_span = _sig("scope_profile_time_span_ns", ctypes.c_int, _p, _P64)
_select = _sig("scope_profile_select_regions", ctypes.c_int, _p,
               ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
               ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
               ctypes.POINTER(ctypes.c_int))
_meta_int = _sig("scope_profile_metadata_int", ctypes.c_int, _p, ctypes.c_char_p, _P64)
_meta_str = _sig("scope_profile_metadata_string", ctypes.c_int, _p,
                 ctypes.c_char_p, ctypes.c_char_p, _i64)
_rank_int = _sig("scope_profile_rank_attr_int", ctypes.c_int, _p, ctypes.c_int,
                 ctypes.c_char_p, _P64)
_ev_open = _sig("scope_profile_events_open", ctypes.c_int, _p,
                ctypes.POINTER(_Query), ctypes.POINTER(_p))
_ev_count = _sig("scope_events_count", _i64, _p)
_ev_read = _sig("scope_events_read", _i64, _p, _p, _i64)
_ev_close = _sig("scope_events_close", None, _p)
_cs_build = _sig("scope_profile_call_stack", ctypes.c_int, _p, ctypes.c_int,
                 ctypes.c_int, ctypes.POINTER(_p))
_cs_build_comp = _sig("scope_profile_call_stack_compensated", ctypes.c_int, _p,
                      ctypes.c_int, ctypes.c_int, ctypes.POINTER(_p))
_overhead = _sig("scope_profile_overhead", ctypes.c_int, _p, ctypes.c_int,
                 ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double))
_cs_count = _sig("scope_call_stack_count", _i64, _p)
_cs_calls = _sig("scope_call_stack_calls", _p, _p)
_cs_free = _sig("scope_call_stack_free", None, _p)


def _check(rc):
    if rc < 0:
        raise ScopeError(rc, _errmsg().decode("utf-8", "replace"))
    return rc


def _patterns(p):
    if p is None:
        return None, 0
    if isinstance(p, (str, bytes)):
        p = [p]
    arr = (ctypes.c_char_p * max(len(p), 1))(
        *[x.encode() if isinstance(x, str) else x for x in p])
    return arr, len(p)


def _rank_list(ranks):
    if ranks is None:
        return None
    if isinstance(ranks, int):
        ranks = [ranks]
    return list(ranks)


def call_stack_roots(calls):
    """Indices of the calls that no other call contains."""
    return [i for i, c in enumerate(calls) if c["parent"] < 0]


def call_stack_children(calls):
    """children[i] = indices of the calls directly inside call i."""
    children = [[] for _ in calls]
    for i, c in enumerate(calls):
        if c["parent"] >= 0:
            children[c["parent"]].append(i)
    return children


class ProfilingResults:
    """An opened profile (one path or several, merged by rank)."""

    def __init__(self, path):
        self._h = None
        paths = [path] if isinstance(path, (str, bytes, os.PathLike)) else list(path)
        self.file_path = paths[0] if len(paths) == 1 else paths
        arr = (ctypes.c_char_p * len(paths))(*[os.fsencode(p) for p in paths])
        h = _p()
        _check(_open_paths(arr, len(paths), ctypes.byref(h)))
        self._h = h

    def close(self):
        if getattr(self, "_h", None):
            _close(self._h)
            self._h = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        name = os.path.basename(os.fspath(self.file_path)) \
            if not isinstance(self.file_path, list) else "%d files" % len(self.file_path)
        return "<ProfilingResults %r: %d region(s), %d rank(s)>" % (
            name, len(self.region_names), self.num_ranks)

    # -- run level ---------------------------------------------------
    def _ns(self, fn):
        v = _i64()
        rc = fn(self._h, ctypes.byref(v))
        return None if rc < 0 else v.value

    @property
    def region_names(self):
        return [_region_name(self._h, r).decode() for r in range(_region_count(self._h))]

    @property
    def ranks(self):
        return [_rank(self._h, i) for i in range(_rank_count(self._h))]

    @property
    def num_ranks(self):
        return _rank_count(self._h)

    @property
    def run_start_time(self):
        """Run start in seconds on the recording clock, or None."""
        v = self._ns(_run_start)
        return None if v is None else v / NS

    @property
    def minimum_start_time(self):
        v = self._ns(_min_start)
        return None if v is None else v / NS

    @property
    def maximum_end_time(self):
        v = self._ns(_max_end)
        return None if v is None else v / NS

    @property
    def time_origin(self):
        """The zero of relative times: the run start, else the first entry."""
        v = self._ns(_origin)
        return None if v is None else v / NS

    @property
    def time_origin_ns(self):
        return self._ns(_origin)

    @property
    def time_span(self):
        return (self._ns(_span) or 0) / NS

    @property
    def startup_time(self):
        """Seconds between the run start and the first region entry (0 when
        the file records no run start)."""
        s, f = self._ns(_run_start), self._ns(_min_start)
        return 0.0 if s is None or f is None else (f - s) / NS

    def metadata(self, name):
        """A /metadata attribute (int or str), or None when absent."""
        v = _i64()
        if _meta_int(self._h, name.encode(), ctypes.byref(v)) == 0:
            return v.value
        n = _meta_str(self._h, name.encode(), None, 0)
        if n < 0:
            return None
        buf = ctypes.create_string_buffer(n + 1)
        _check(_meta_str(self._h, name.encode(), buf, n + 1))
        return buf.value.decode("utf-8", "replace")

    def rank_attribute(self, rank, name):
        """An integer attribute of /rank<N> (dropped_events, complete, ...)."""
        v = _i64()
        return v.value if _rank_int(self._h, rank, name.encode(), ctypes.byref(v)) == 0 else None

    # -- regions -----------------------------------------------------
    def _select(self, include=None, exclude=None):
        inc, ninc = _patterns(include)
        exc, nexc = _patterns(exclude)
        out = (ctypes.c_int * max(_region_count(self._h), 1))()
        n = _check(_select(self._h, inc, ninc, exc, nexc, out))
        return list(out[:n])

    def get_regions(self, include=None, exclude=None):
        """The regions, in order of first entry, filtered by regexes."""
        return [MPIRegion(self, r) for r in self._select(include, exclude)]

    def __getitem__(self, name):
        for r, n in enumerate(self.region_names):
            if n == name:
                return MPIRegion(self, r)
        raise KeyError(name)

    def __contains__(self, name):
        return name in self.region_names

    # -- events ------------------------------------------------------
    def _event_array(self, include=None, exclude=None, ranks=None,
                     relative=True, origin=None, call_ids=True):
        q = _Query()
        q.include, q.ninclude = _patterns(include)
        q.exclude, q.nexclude = _patterns(exclude)
        rl = _rank_list(ranks)
        if rl is not None:
            q.ranks = (_i32 * max(len(rl), 1))(*rl)
            q.nranks = len(rl)
        if origin is not None:
            q.time_mode, q.origin_ns = 2, int(round(origin * NS))
        elif not relative:
            q.time_mode = 1
        q.call_ids = 1 if call_ids else 0
        it = _p()
        _check(_ev_open(self._h, ctypes.byref(q), ctypes.byref(it)))
        try:
            arr = np.empty(_ev_count(it), dtype=_EVENT)
            done = 0
            while done < len(arr):
                got = _check(_ev_read(it, arr[done:].ctypes.data, len(arr) - done))
                if got == 0:
                    break
                done += got
        finally:
            _ev_close(it)
        return arr[:done]

    def events(self, include=None, exclude=None, ranks=None, relative=True,
               origin=None):
        """One dict per call, in region order, then rank, then call order:
        name, rank, call_index, start, end, duration (seconds), call_id,
        parent_id, thread."""
        a = self._event_array(include, exclude, ranks, relative, origin)
        names = self.region_names
        return [{"name": names[e["region"]], "rank": int(e["rank"]),
                 "call_index": int(e["call_index"]),
                 "start": int(e["start_ns"]) / NS, "end": int(e["end_ns"]) / NS,
                 "duration": (int(e["end_ns"]) - int(e["start_ns"])) / NS,
                 "call_id": int(e["call_id"]), "parent_id": int(e["parent_id"]),
                 "thread": int(e["thread"])} for e in a]

    def to_events_dataframe(self, include=None, exclude=None, ranks=None,
                            relative=True, origin=None):
        """events() as a pandas DataFrame (needs pandas): the same columns
        in the same order as `scope events --format csv`, so
        pd.read_csv() of that file gives this frame."""
        import pandas as pd
        a = self._event_array(include, exclude, ranks, relative, origin)
        names = np.array(self.region_names, dtype=object)
        return pd.DataFrame({
            "name": names[a["region"]] if len(a) else np.array([], dtype=object),
            "rank": a["rank"].astype(np.int64),
            "call_index": a["call_index"],
            "start": a["start_ns"] / NS, "end": a["end_ns"] / NS,
            "duration": (a["end_ns"] - a["start_ns"]) / NS,
            "call_id": a["call_id"], "parent_id": a["parent_id"],
            "thread": a["thread"].astype(np.int64)})

    # -- call stack --------------------------------------------------
    def overhead(self, rank=0):
        """What recording one call cost this rank, as it measured at start
        (seconds): (inside, caller). inside inflates every recorded duration;
        caller is added to the parent's self time per child call. ScopeError
        when the rank stores no measurement (an older file)."""
        inside, caller = ctypes.c_double(), ctypes.c_double()
        _check(_overhead(self._h, rank, ctypes.byref(inside), ctypes.byref(caller)))
        return inside.value / NS, caller.value / NS

    def call_stack(self, rank=0, thread=None, relative=True, compensate=False):
        """The calls of one rank sorted by start, nesting as recorded (the
        stored journal order where times tie, else containment; docs/
        format.md "Call order and ties"): dicts with name, rank, thread,
        call_index, start, end,
        duration, self_time (seconds), depth and parent (list index or
        -1). compensate=True subtracts the rank's measured recording cost
        (overhead(); scope_call_stack_compensate in scope_reader.h): each
        duration loses inside plus the whole cost of its nested calls,
        each self_time inside plus caller per child; end moves with it."""
        cs = _p()
        build = _cs_build_comp if compensate else _cs_build
        _check(build(self._h, rank, ALL_THREADS if thread is None else thread,
                     ctypes.byref(cs)))
        try:
            n = _cs_count(cs)
            buf = (ctypes.c_char * (n * _CALL.itemsize)).from_address(_cs_calls(cs)) \
                if n else b""
            a = np.frombuffer(bytes(buf), dtype=_CALL)
        finally:
            _cs_free(cs)
        shift = (self.time_origin_ns or 0) if relative else 0
        names = self.region_names
        return [{"name": names[c["region"]], "rank": rank, "thread": int(c["thread"]),
                 "call_index": int(c["call_index"]),
                 "start": (int(c["start_ns"]) - shift) / NS,
                 "end": (int(c["end_ns"]) - shift) / NS,
                 "duration": (int(c["end_ns"]) - int(c["start_ns"])) / NS,
                 "self_time": int(c["self_ns"]) / NS, "depth": int(c["depth"]),
                 "parent": int(c["parent"])} for c in a]


class MPIRegion:
    """One region across every rank."""

    def __init__(self, results, index):
        self._r = results
        self.index = index
        self.name = _region_name(results._h, index).decode()

    def __repr__(self):
        return "<MPIRegion %r: %d call(s), %d rank(s)>" % (
            self.name, self.num_calls, len(self.ranks))

    def _stats(self, rank=ALL_RANKS):
        s = _Stats()
        _check(_stats(self._r._h, self.index, rank, ctypes.byref(s)))
        return s

    @property
    def ranks(self):
        return [k for k in self._r.ranks if _calls(self._r._h, self.index, k) > 0]

    @property
    def num_calls(self):
        return self._stats().calls

    @property
    def total_duration(self):
        return self._stats().total_ns / NS

    @property
    def mean_duration(self):
        return self._stats().mean_ns / NS

    @property
    def min_duration(self):
        return self._stats().min_ns / NS

    @property
    def max_duration(self):
        return self._stats().max_ns / NS

    @property
    def std_duration(self):
        """Population standard deviation (ddof = 0), seconds."""
        return self._stats().std_ns / NS

    def percentile(self, q, rank=ALL_RANKS):
        qs = [q] if np.isscalar(q) else list(q)
        out = (ctypes.c_double * len(qs))()
        _check(_percentiles(self._r._h, self.index, rank,
                            (ctypes.c_double * len(qs))(*qs), len(qs), out))
        v = [x / NS for x in out]
        return v[0] if np.isscalar(q) else v

    def total_durations(self):
        """{rank: total seconds} over the ranks that entered the region."""
        return {k: self._stats(k).total_ns / NS for k in self.ranks}

    def _balance(self):
        b = _Balance()
        _check(_balance(self._r._h, self.index, ctypes.byref(b)))
        return b

    @property
    def imbalance(self):
        """Load imbalance: max / mean of the per-rank totals (1.0 = even)."""
        return self._balance().imbalance

    @property
    def max_min_ratio(self):
        """Slowest rank's total / fastest rank's total."""
        return self._balance().max_min_ratio

    def events(self, ranks=None, relative=True, origin=None):
        return self._r.events(include="^" + _re_escape(self.name) + "$",
                              ranks=ranks, relative=relative, origin=origin)

    def __getitem__(self, rank):
        if rank not in self._r.ranks:
            raise KeyError(rank)
        return Region(self._r, self.index, rank)


def _re_escape(s):
    # POSIX ERE special characters
    return "".join("\\" + c if c in ".^$|?*+()[]{}\\" else c for c in s)


class Region:
    """One region on one rank: the stored arrays and their statistics."""

    def __init__(self, results, index, rank):
        self._r = results
        self.index = index
        self.rank = rank
        self.name = _region_name(results._h, index).decode()
        s, e, n = _P64(), _P64(), _i64()
        _check(_times(results._h, index, rank, ctypes.byref(s), ctypes.byref(e),
                      ctypes.byref(n)))
        if n.value:
            self.start_times_ns = np.ctypeslib.as_array(s, (n.value,)).copy()
            self.end_times_ns = np.ctypeslib.as_array(e, (n.value,)).copy()
        else:
            self.start_times_ns = np.zeros(0, np.int64)
            self.end_times_ns = np.zeros(0, np.int64)

    def __repr__(self):
        return "<Region %r rank %d: %d call(s)>" % (self.name, self.rank, self.num_calls)

    @property
    def durations_ns(self):
        return self.end_times_ns - self.start_times_ns

    @property
    def durations(self):
        return self.durations_ns / NS

    @property
    def start_times(self):
        return self.start_times_ns / NS

    @property
    def end_times(self):
        return self.end_times_ns / NS

    @property
    def num_calls(self):
        return len(self.start_times_ns)

    @property
    def total_duration(self):
        return int(self.durations_ns.sum()) / NS


def read_h5(path):
    """Opens a profile: an index file, a merged file, a rank file, a folder
    of rank files, a scope-profiler file, or a list of these."""
    return ProfilingResults(path)


# What the MPI calls moved (comm.py): MPIRegion.moved(), .bytes_sent,
# .bytes_received, .bytes(); ProfilingResults.comm_matrix(), .message_sizes()
from . import comm as _comm  # noqa: E402
_comm.attach(ProfilingResults, MPIRegion, _lib, _sig, _check, _p, ALL_RANKS)
