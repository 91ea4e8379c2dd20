"""scope_reader - Python access to scope profiles through libscope_reader.

The same answers as the C library and the `scope` command, with the names
of scope-profiler's analysis tutorial:

    from scope_reader import read_h5, call_stack_roots, call_stack_children
    results = read_h5("scope_profile.h5")
    results.events(include="solve")           # one dict per call, seconds
    results["solve"].total_durations()        # {rank: seconds}
    calls = results.call_stack(rank=0)

and, without a Python object per call, columns the C library fills with
the filters applied there and hands over without a copy (numpy arrays
whose memory is freed when the last array viewing it goes):

    results.to_events_dataframe(include="solve", window=(0.0, 1.5))
    results.event_arrays(ranks=[0])            # {column: numpy array}
    results.call_stack_dataframe(rank=0)       # or call_stack_arrays()

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


def _load_rows():
    """The compiled helper _rows (_rows.c), or None: installed beside this
    module, else in the build tree of the library that loaded
    (<build>/tools/python/, next to <build>/reader/). $SCOPE_READER_ROWS=0
    leaves it unused (the pure-Python batches)."""
    if os.environ.get("SCOPE_READER_ROWS") == "0":
        return None
    try:
        from . import _rows
        return _rows
    except ImportError:
        pass
    import importlib.machinery
    import importlib.util
    if not os.path.isfile(_lib._name or ""):    # found by soname: no build tree
        return None
    build = os.path.dirname(os.path.dirname(os.path.abspath(_lib._name)))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(build, "tools", "python", "_rows" + suffix)
        if os.path.exists(path):
            try:
                spec = importlib.util.spec_from_file_location(__name__ + "._rows", path)
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)
                return mod
            except ImportError:
                return None
    return None


_rows = _load_rows()
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



class _Window(ctypes.Structure):
    _fields_ = [("from_ns", _i64), ("to_ns", _i64)]


_P32 = ctypes.POINTER(_i32)
_P64 = ctypes.POINTER(_i64)
_PD = ctypes.POINTER(ctypes.c_double)


class _Columns(ctypes.Structure):
    _fields_ = [("n", _i64), ("region", _P32), ("rank", _P32), ("thread", _P32),
                ("depth", _P32), ("site", _P32), ("reserved", _i32),
                ("start_ns", _P64), ("end_ns", _P64), ("duration_ns", _P64),
                ("call_index", _P64), ("call_id", _P64), ("parent_id", _P64),
                ("start_s", _PD), ("end_s", _PD), ("duration_s", _PD),
                ("self_ns", _P64), ("self_s", _PD)]


class _Moments(ctypes.Structure):
    _fields_ = [("n", _i64), ("calls", _P64), ("total_ns", _P64), ("min_ns", _P64),
                ("max_ns", _P64), ("mean_ns", _PD), ("m2", _PD)]


# Every mirror, by the name of the C struct it copies (scope_reader.h).
_C_STRUCTS = {"scope_stats": _Stats, "scope_balance": _Balance,
              "scope_event_query": _Query, "scope_event": _EVENT, "scope_call": _CALL,
              "scope_time_window": _Window, "scope_event_columns": _Columns,
              "scope_moments": _Moments}
_MOMENT_COLUMNS = (("calls", "<i8"), ("total_ns", "<i8"), ("min_ns", "<i8"),
                   ("max_ns", "<i8"), ("mean_ns", "<f8"), ("m2", "<f8"))

# The columns of event_arrays(): name -> (enum scope_event_column bit, the
# scope_event_columns field, numpy dtype). start, end and duration are
# float64 seconds; the *_ns ones int64 nanoseconds.
_COLUMNS = {
    "region": (1 << 0, "region", "<i4"), "rank": (1 << 1, "rank", "<i4"),
    "thread": (1 << 2, "thread", "<i4"), "start_ns": (1 << 3, "start_ns", "<i8"),
    "end_ns": (1 << 4, "end_ns", "<i8"), "duration_ns": (1 << 5, "duration_ns", "<i8"),
    "start": (1 << 6, "start_s", "<f8"), "end": (1 << 7, "end_s", "<f8"),
    "duration": (1 << 8, "duration_s", "<f8"),
    "call_index": (1 << 9, "call_index", "<i8"), "call_id": (1 << 10, "call_id", "<i8"),
    "parent_id": (1 << 11, "parent_id", "<i8"), "depth": (1 << 12, "depth", "<i4"),
    "site": (1 << 13, "site", "<i4")}
# What event_arrays() gives when not told: every column but the call site
# (which loads the call-site tables) and the float seconds.
_DEFAULT_COLUMNS = ("region", "rank", "thread", "start_ns", "end_ns", "duration_ns",
                    "call_index", "call_id", "parent_id", "depth")
# events() and to_events_dataframe(), in the seed's order (+ thread)
_FRAME_COLUMNS = ("region", "rank", "call_index", "start", "end", "duration",
                  "call_id", "parent_id", "thread")
# call_stack_arrays(): by default what the DataFrame and the dicts use
_STACK_COLUMNS = ("region", "thread", "call_index", "start", "end", "duration",
                  "self_time", "depth", "parent")
_STACK_NS_COLUMNS = ("start_ns", "end_ns", "self_ns")
# its columns: name -> (bit, scope_event_columns field, dtype), as _COLUMNS
_STACK_FIELDS = dict(
    (c, _COLUMNS[c]) for c in ("region", "thread", "call_index", "start", "end",
                               "duration", "depth", "start_ns", "end_ns"))
_STACK_FIELDS.update({"self_time": (1 << 15, "self_s", "<f8"),
                      "self_ns": (1 << 14, "self_ns", "<i8"),
                      "parent": (1 << 11, "parent_id", "<i8")})
# rows per batch when events() and call_stack() make their dicts without
# _rows (dicts.PyTable): bounds the temporary Python lists (9 per batch)
_BATCH = 1 << 16
# events()' dict keys, in the seed's order (+ thread)
_EVENT_KEYS = ("name",) + _FRAME_COLUMNS[1:]


def _split_moved(cols):
    """(event_arrays() columns to ask for, MPI data columns among cols,
    columns asked for only to find those): the data columns need each
    row's region, rank and call_index."""
    moved = tuple(c for c in cols if c in _comm.MOVED_COLUMNS)
    arrays = tuple(c for c in cols if c not in _comm.MOVED_COLUMNS)
    extra = tuple(c for c in ("rank", "call_index") if moved and c not in arrays)
    return arrays + extra, moved, extra


def _sig(name, res, *args):
    f = getattr(_lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


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
_rank_file = _sig("scope_profile_rank_file", ctypes.c_char_p, _p, ctypes.c_int)
_calls = _sig("scope_profile_calls", _i64, _p, ctypes.c_int, ctypes.c_int)
_times = _sig("scope_profile_times", ctypes.c_int, _p, ctypes.c_int, ctypes.c_int,
              _PP64, _PP64, _P64)
_stats = _sig("scope_profile_stats", ctypes.c_int, _p, ctypes.c_int, ctypes.c_int,
              ctypes.POINTER(_Stats))
_moments_of = _sig("scope_moments_of", ctypes.c_int, _P64, _P64, _P64,
                   ctypes.POINTER(_Moments))
_moments_combine = _sig("scope_moments_combine", ctypes.c_int, ctypes.POINTER(_Moments),
                        _P64, _P64, _i64, ctypes.POINTER(_Stats))
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
_ev_columns = _sig("scope_profile_event_columns", ctypes.c_int, _p,
                   ctypes.POINTER(_Query), ctypes.POINTER(_Window), ctypes.c_uint32,
                   ctypes.POINTER(_Columns))
_ev_columns_free = _sig("scope_event_columns_free", None, ctypes.POINTER(_Columns))
_reader_free = _sig("scope_reader_free", None, _p)
_cs_columns = _sig("scope_call_stack_columns", ctypes.c_int, _p, _i64, ctypes.c_uint32,
                   ctypes.POINTER(_Columns))


class _Owned:
    """The memory of one array the C library handed over (a column, or a
    call stack's calls): numpy's base for the arrays viewing it, so the
    memory is freed, by `release`, when the last of them goes. No copy."""

    __slots__ = ("__array_interface__", "_release", "_what")

    def __init__(self, addr, shape, typestr, release, what, descr=None):
        self.__array_interface__ = {"shape": shape, "typestr": typestr,
                                    "data": (addr, False), "version": 3}
        if descr is not None:
            self.__array_interface__["descr"] = descr
        self._release, self._what = release, what

    def __del__(self):
        if self._release is not None:   # None at interpreter exit
            self._release(self._what)


def _take_columns(out, cols, fields):
    """{column: numpy array} of the arrays in the filled _Columns `out`,
    taken over without a copy (each freed when its last array goes); what
    is left in `out` is freed."""
    n = out.n
    arrays = {}
    try:
        for c in cols:
            field = fields[c][1]
            addr = ctypes.cast(getattr(out, field), _p).value
            owner = _Owned(addr, (n,), fields[c][2], _reader_free, addr)
            setattr(out, field, None)   # taken: the owner frees it
            arrays[c] = np.asarray(owner)
    finally:
        _ev_columns_free(ctypes.byref(out))
    return arrays


def _check(rc, path=None):
    """rc, or ScopeError with the library's message, which names the file
    it failed on; when it does not, `path` (the profile's) is added at the
    end (the library's wording stays first, for code that matches it)."""
    if rc < 0:
        msg = _errmsg().decode("utf-8", "replace")
        if path is not None:
            shown = path if isinstance(path, list) else [path]
            shown = [os.fsdecode(x) for x in shown]
            if not any(x in msg for x in shown):
                msg = "%s (profile: %s)" % (msg, ", ".join(shown))
        raise ScopeError(rc, msg)
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


def _parents(calls):
    """call_stack()'s parent column as numpy when `calls` is its whole
    result (not a slice, whose parent rows would be off), else None."""
    if isinstance(calls, _dicts.CallDicts) and calls.whole():
        return calls.column("parent")
    return None


def _ptr(a, t):
    return a.ctypes.data_as(ctypes.POINTER(t))


def _moment_struct(cols, n):
    """A scope_moments over the columns of `cols` (numpy arrays, n rows)."""
    return _Moments(n, *(_ptr(cols[c], _i64 if t == "<i8" else ctypes.c_double)
                         for c, t in _MOMENT_COLUMNS))


def _segment_moments(durations, lo, hi):
    """The moments (calls, total_ns, min_ns, max_ns, mean_ns, m2: dict of
    numpy columns) of each segment [lo[g], hi[g]) of `durations` (int64 ns,
    call order), as the C reader computes one (region, rank): the reader's
    own function (scope_moments_of), so dask_summary() gets its numbers."""
    d = np.ascontiguousarray(durations, dtype=np.int64)
    lo = np.ascontiguousarray(lo, dtype=np.int64)
    hi = np.ascontiguousarray(hi, dtype=np.int64)
    cols = {c: np.zeros(len(lo), t) for c, t in _MOMENT_COLUMNS}
    m = _moment_struct(cols, len(lo))
    _check(_moments_of(_ptr(d, _i64), _ptr(lo, _i64), _ptr(hi, _i64), ctypes.byref(m)))
    return cols


def _combined_stats(cols, lo, hi):
    """The statistics (a numpy record array of scope_stats: calls,
    total_ns, min_ns, max_ns, mean_ns, std_ns) of each group [lo[g], hi[g])
    of moments rows (_segment_moments()'s columns), combined in order as the C
    reader combines a region's ranks (scope_moments_combine)."""
    cols = {c: np.ascontiguousarray(cols[c], dtype=t) for c, t in _MOMENT_COLUMNS}
    n = len(cols["calls"])
    lo = np.ascontiguousarray(lo, dtype=np.int64)
    hi = np.ascontiguousarray(hi, dtype=np.int64)
    out = (_Stats * max(len(lo), 1))()
    m = _moment_struct(cols, n)
    _check(_moments_combine(ctypes.byref(m), _ptr(lo, _i64), _ptr(hi, _i64), len(lo), out))
    return np.ctypeslib.as_array(out)[:len(lo)].copy()


def call_stack_roots(calls):
    """Indices of the calls that no other call contains."""
    parent = _parents(calls)
    if parent is not None:
        return np.flatnonzero(parent < 0).tolist()
    return [i for i, c in enumerate(calls) if c["parent"] < 0]


def call_stack_children(calls):
    """children[i] = indices of the calls directly inside call i."""
    parent = _parents(calls)
    if parent is not None:   # the same lists, without a dict per call
        inner = np.flatnonzero(parent >= 0)
        up = parent[inner]
        inner = inner[np.argsort(up, kind="stable")].tolist()
        ends = np.cumsum(np.bincount(up, minlength=len(parent))).tolist()
        return [inner[lo:hi] for lo, hi in zip([0] + ends, ends)]
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
        _check(_open_paths(arr, len(paths), ctypes.byref(h)), self.file_path)
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

    def _s(self, fn):
        """_ns in seconds, or None."""
        v = self._ns(fn)
        return None if v is None else v / NS

    @property
    def region_names(self):
        return [_region_name(self._h, r).decode() for r in range(_region_count(self._h))]

    @property
    def ranks(self):
        return [_rank(self._h, i) for i in range(_rank_count(self._h))]

    @property
    def num_ranks(self):
        return _rank_count(self._h)

    def rank_file(self, rank):
        """The path of the file holding `rank` (its host file, rank file,
        merged file, ...; for an index, the file its link names, beside
        the index), as the reader opened it; KeyError for an unknown rank."""
        v = _rank_file(self._h, rank)
        if v is None:
            raise KeyError(rank)
        return os.fsdecode(v)

    @property
    def run_start_time(self):
        """Run start in seconds on the recording clock, or None."""
        return self._s(_run_start)

    @property
    def minimum_start_time(self):
        return self._s(_min_start)

    @property
    def maximum_end_time(self):
        return self._s(_max_end)

    @property
    def time_origin(self):
        """The zero of relative times: the run start, else the first entry."""
        return self._s(_origin)

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
    def _query(self, include, exclude, ranks, relative, origin, origin_ns=None):
        """A scope_event_query, and the ctypes arrays it points into (kept
        alive by the caller while the query is used). origin_ns (int
        nanoseconds, exact) wins over origin and relative."""
        q = _Query()
        keep = []
        q.include, q.ninclude = _patterns(include)
        q.exclude, q.nexclude = _patterns(exclude)
        keep += [q.include, q.exclude]
        rl = _rank_list(ranks)
        if rl is not None:
            ra = (_i32 * max(len(rl), 1))(*rl)
            keep.append(ra)
            q.ranks, q.nranks = ra, len(rl)
        if origin_ns is not None:
            q.time_mode, q.origin_ns = 2, int(origin_ns)
        elif origin is not None:
            q.time_mode, q.origin_ns = 2, int(round(origin * NS))
        elif not relative:
            q.time_mode = 1
        return q, keep

    def _event_array(self, include=None, exclude=None, ranks=None,
                     relative=True, origin=None, call_ids=True, call_sites=False):
        """The per-call path: scope_events_read() into scope_event records
        (the columns' reference in tests/python)."""
        q, keep = self._query(include, exclude, ranks, relative, origin)
        q.call_ids = 1 if call_ids else 0
        q.call_sites = 1 if call_sites else 0
        it = _p()
        _check(_ev_open(self._h, ctypes.byref(q), ctypes.byref(it)), self.file_path)
        try:
            arr = np.empty(_ev_count(it), dtype=_EVENT)
            done = 0
            while done < len(arr):
                got = _check(_ev_read(it, arr[done:].ctypes.data, len(arr) - done),
                             self.file_path)
                if got == 0:
                    break
                done += got
        finally:
            _ev_close(it)
        del keep
        return arr[:done]

    def event_arrays(self, include=None, exclude=None, ranks=None, relative=True,
                     origin=None, window=None, columns=None, origin_ns=None):
        """The calls events() selects, as one numpy array per column, made in
        C (scope_profile_event_columns) and handed over without a copy:
        {column: array}, rows in events()' order (region, rank, call index).

        columns (default: region, rank, thread, start_ns, end_ns,
        duration_ns, call_index, call_id, parent_id, depth) from:
          region      int32   region index, into region_names
          rank        int32   MPI rank
          thread      int32   thread lane (0 with one thread)
          start_ns, end_ns, duration_ns   int64 nanoseconds
          start, end, duration            float64 seconds (the ns / 1e9)
          call_index  int64   index among the region's calls on the rank
          call_id     int64   index in the rank's call_stack()
          parent_id   int64   call_id of the enclosing call, -1 for a root
          depth       int32   0 for a root
          site        int32   merged call site, -1 for none
        Times are relative to time_origin (relative=True), to `origin`
        (seconds), or the recorded clock (relative=False). window=(from,
        to), seconds in the same time base, keeps the calls that overlap
        [from, to] (end >= from and start <= to). origin_ns: the origin as
        int nanoseconds on the recording clock, exact (an origin in float
        seconds rounds past 2^53 ns, 104 days). Every filter is applied in
        C: only the selected rows are ever made. call_id, parent_id and
        depth build each selected rank's call stack (ScopeError when its
        calls overlap)."""
        cols = _DEFAULT_COLUMNS if columns is None else tuple(columns)
        bad = [c for c in cols if c not in _COLUMNS]
        if bad:
            raise ValueError("unknown column(s) %s; known: %s" % (bad, list(_COLUMNS)))
        q, keep = self._query(include, exclude, ranks, relative, origin, origin_ns)
        w = None
        if window is not None:
            lo, hi = window
            w = _Window(int(round(lo * NS)), int(round(hi * NS)))
        bits = 0
        for c in cols:
            bits |= _COLUMNS[c][0]
        out = _Columns()
        _check(_ev_columns(self._h, ctypes.byref(q), None if w is None else ctypes.byref(w),
                           bits, ctypes.byref(out)), self.file_path)
        del keep
        return _take_columns(out, cols, _COLUMNS)

    def events(self, include=None, exclude=None, ranks=None, relative=True,
               origin=None, window=None):
        """One dict per call, in region order, then rank, then call order:
        name, rank, call_index, start, end, duration (seconds), call_id,
        parent_id, thread. A read-only sequence (dicts.CallDicts: len,
        indexing, slices, iteration, == against a list) whose dicts are
        made from event_arrays() when asked for, so a loop over it keeps
        only the dict in hand; list() of it is the seed's list (json.dumps
        needs that). The filters and their errors apply here, at the call.
        window: see event_arrays(); to_events_dataframe() is the fast way
        to the same."""
        a = self.event_arrays(include, exclude, ranks, relative, origin, window,
                              _FRAME_COLUMNS)
        cols = [(self.region_names, a["region"])] + [a[c] for c in _FRAME_COLUMNS[1:]]
        return _dicts.CallDicts(_dicts.table(_EVENT_KEYS, cols, _rows, _BATCH))

    def _region_rows(self, include, exclude, ranks):
        """How many rows of each region event_arrays() gives without a
        window: an int64 array over every region (0: not selected), from
        the reader's call counts (no event data read), or None when the
        selection is bad (event_arrays() then raises its error) or names
        so many (region, rank) pairs that taking the region column is
        cheaper than counting them here."""
        try:
            sel = self._select(include, exclude)
        except ScopeError:
            return None
        rl = _rank_list(ranks)
        per = [ALL_RANKS] if rl is None else sorted(set(rl))
        if len(sel) * len(per) > 4096:
            return None
        counts = np.zeros(len(self.region_names), np.int64)
        for r in sel:
            for k in per:
                c = _calls(self._h, r, k)
                if c < 0:
                    return None
                counts[r] += c
        return counts

    def _categories(self, region, every_name=False, ascending=False, counts=None):
        """name as a pandas Categorical from region indices: the categories
        are the names that occur (every region's name with every_name), in
        alphabetical order (so groupby("name") lists them as it would plain
        strings, and no unused one appears). ascending: `region` never
        decreases (event_arrays()' rows are in region order), so each
        region's rows are one slice, found by binary search and filled
        with its code, instead of counting and indexing every row (a
        sixth of to_events_dataframe()'s time). counts (_region_rows()):
        the rows of each region, in region order, instead of `region`
        (then never made: 4 bytes a row less of fresh memory)."""
        import pandas as pd
        names = self.region_names
        sliced = counts is not None or ascending
        if counts is not None:
            bounds = np.concatenate(([0], np.cumsum(counts)))
        elif ascending:
            bounds = np.searchsorted(region, np.arange(len(names) + 1))
            counts = np.diff(bounds)
        elif not every_name:
            # which regions occur, not how often: a scatter of True is half
            # of bincount's time (which first converts int32 to intp)
            counts = np.zeros(len(names), bool)
            counts[region] = True
        used = np.arange(len(names)) if every_name else np.flatnonzero(counts)
        order = sorted(used.tolist(), key=lambda r: names[r])
        code = np.full(max(len(names), 1), -1, dtype=np.int32)
        code[order] = np.arange(len(order), dtype=np.int32)
        small = np.int8 if len(order) < 127 else np.int16 if len(order) < 32767 \
            else np.int32
        code = code.astype(small)
        if sliced:
            codes = np.empty(int(bounds[-1]), small)
            for r in np.flatnonzero(counts).tolist():
                codes[bounds[r]:bounds[r + 1]] = code[r]
        else:
            codes = code[region]
        return pd.Categorical.from_codes(codes, [names[r] for r in order])

    def to_events_dataframe(self, include=None, exclude=None, ranks=None,
                            relative=True, origin=None, window=None, columns=None,
                            every_name=False):
        """events() as a pandas DataFrame (needs pandas): the same columns
        in the same order as `scope events --format csv`, so pd.read_csv()
        of that file gives the same values. Built from event_arrays(), no
        copy: name (categorical; categories the names present, sorted),
        rank (int32), call_index (int64), start, end, duration (float64
        seconds), call_id, parent_id (int64), thread (int32): 57 bytes per
        call with fewer than 127 names. A profile that records what its MPI
        calls moved adds what the csv adds: bytes_sent, bytes_received
        (Int64), dest, source, tag, comm (Int32; pandas' nullable integers,
        <NA> where the csv's cell is empty: a call of a region that is not
        an MPI call, a tag of none), 38 bytes per call more
        (docs/format.md "What MPI calls moved"). window as in event_arrays();
        columns: other event_arrays() columns and any of those six, after
        name (e.g. "duration_ns", "depth", "bytes_sent"); every_name: every
        region's name is a category, as to_dask() needs for partitions
        that agree."""
        import pandas as pd
        cols = self._frame_columns(columns)
        counts = self._region_rows(include, exclude, ranks) if window is None else None
        arrays, moved, extra = _split_moved(cols)
        a = self.event_arrays(include, exclude, ranks, relative, origin, window,
                              arrays if counts is not None else ("region",) + arrays)
        if counts is not None:
            name = self._categories(None, every_name, counts=counts)
            if any(len(x) != len(name) for x in a.values()):
                raise RuntimeError("scope_reader: %d rows by the call counts, %s by "
                                   "the columns" % (len(name), [len(x) for x in a.values()]))
            region = None
        else:
            region = a.pop("region")
            name = self._categories(region, every_name, ascending=True)
        if moved:
            if region is None:
                region = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
            a.update(self._moved_columns(region, a["rank"], a["call_index"], moved))
            for c in extra:
                del a[c]
        out = {"name": name}
        out.update((c, a[c]) for c in cols)
        return pd.DataFrame(out, copy=False)

    def _frame_columns(self, columns):
        """The columns after name of to_events_dataframe() and to_dask():
        `columns` without "region", or by default events()' and, for a
        profile that records what its MPI calls moved, its six columns
        (comm.MOVED_COLUMNS)."""
        if columns is not None:
            return tuple(c for c in columns if c != "region")
        return _FRAME_COLUMNS[1:] + (tuple(_comm.MOVED_COLUMNS) if self._has_moved() else ())

    def to_dask(self, include=None, exclude=None, ranks=None, relative=True,
                origin=None, window=None, columns=None, ranks_per_partition=64,
                partition_by="auto"):
        """to_events_dataframe() as a Dask DataFrame (Debian's python3-dask),
        read lazily where it is computed: one partition per host file when
        the profile has host files (partition_by="auto"; each opens only
        its host's file), else per block of ranks_per_partition ranks
        (partition_by="ranks": always blocks), each opening only the files
        of its ranks, through the C reader; the workers must see the same
        files (a shared file system). name is categorical with every
        region's name (groupby("name", observed=True) drops the ones a
        selection leaves empty). Nothing is read here. See
        scope_reader.dask_frames, and dask_summary(), dask_comm_matrix()."""
        from .dask_frames import to_dask
        return to_dask(self, include=include, exclude=exclude, ranks=ranks,
                       relative=relative, origin=origin, window=window,
                       columns=columns, ranks_per_partition=ranks_per_partition,
                       partition_by=partition_by)

    def dask_summary(self, by="region", compute=True, **selection):
        """The statistics of the selected calls' durations computed on the
        Dask scheduler in use (a distributed Client's cluster), partitioned
        as to_dask(): a pandas DataFrame indexed by name (by="region") or
        by (name, rank) (by="rank") with calls, total_ns, min_ns, max_ns
        (int64), mean_ns, std_ns (float64, population std), the same
        numbers, bit for bit, as the C reader's scope_profile_stats() for
        an unfiltered profile. selection: to_dask()'s arguments (include,
        window, ranks, partition_by, ...). compute=False: a dask Delayed
        of that frame. See scope_reader.dask_frames."""
        from .dask_frames import dask_summary
        return dask_summary(self, by=by, compute=compute, **selection)

    def dask_comm_matrix(self, region=None, compute=True, ranks=None,
                         ranks_per_partition=64, partition_by="auto"):
        """comm_matrix() computed on the Dask scheduler in use, partitioned
        as to_dask(), as a long table: a pandas DataFrame of the (sender,
        receiver) pairs with a message, columns sender, receiver (int32),
        messages, bytes (int64), sorted by sender then receiver; the same
        numbers as comm_matrix() (region: one region's name; ranks: these
        senders). compute=False: a dask Delayed. See
        scope_reader.dask_frames."""
        from .dask_frames import dask_comm_matrix
        return dask_comm_matrix(self, region=region, compute=compute, ranks=ranks,
                                ranks_per_partition=ranks_per_partition,
                                partition_by=partition_by)

    # -- call stack --------------------------------------------------
    def overhead(self, rank=0):
        """What recording one call cost this rank, as it measured at start
        (seconds): (inside, caller). inside inflates every recorded duration;
        caller is added to the parent's self time per child call. ScopeError
        when the rank stores no measurement (an older file)."""
        inside, caller = ctypes.c_double(), ctypes.c_double()
        _check(_overhead(self._h, rank, ctypes.byref(inside), ctypes.byref(caller)))
        return inside.value / NS, caller.value / NS

    def _call_stack_handle(self, rank, thread, compensate):
        cs = _p()
        build = _cs_build_comp if compensate else _cs_build
        _check(build(self._h, rank, ALL_THREADS if thread is None else thread,
                     ctypes.byref(cs)), self.file_path)
        return cs

    def call_stack_arrays(self, rank=0, thread=None, relative=True, compensate=False,
                          columns=None):
        """call_stack() as one numpy array per column (the fast path):
          region      int32   region index, into region_names
          thread      int32   thread lane
          call_index  int64   index among the region's calls on the rank
          start, end, duration, self_time   float64 seconds
          depth       int32   0 for a root
          parent      int64   row of the enclosing call, -1 for a root
        and, when named in `columns`, start_ns, end_ns, self_ns (int64
        nanoseconds). Rows are the calls sorted by start (call_stack()'s
        order; events()' call_id is the row). relative and compensate as
        in call_stack(). Made in C (scope_call_stack_columns) in one pass
        over the stack, which is freed then; no copy after."""
        cols = _STACK_COLUMNS if columns is None else tuple(columns)
        bad = [c for c in cols if c not in _STACK_FIELDS]
        if bad:
            raise ValueError("unknown column(s) %s; known: %s" % (bad, list(_STACK_FIELDS)))
        shift = (self.time_origin_ns or 0) if relative else 0
        bits = 0
        for c in cols:
            bits |= _STACK_FIELDS[c][0]
        cs = self._call_stack_handle(rank, thread, compensate)
        out = _Columns()
        try:
            _check(_cs_columns(cs, shift, bits, ctypes.byref(out)), self.file_path)
        finally:
            _cs_free(cs)
        return _take_columns(out, cols, _STACK_FIELDS)

    def call_stack_dataframe(self, rank=0, thread=None, relative=True, compensate=False):
        """call_stack() as a pandas DataFrame, from call_stack_arrays(), no
        copy: name (categorical, as in to_events_dataframe), rank (int32),
        thread (int32), call_index (int64), start, end, duration,
        self_time (float64 seconds), depth (int32), parent (int64 row of
        the enclosing call, -1 for a root): 62 bytes per call."""
        import pandas as pd
        a = self.call_stack_arrays(rank, thread, relative, compensate)
        n = len(a["region"])
        cols = {"name": self._categories(a["region"]),
                "rank": np.full(n, rank, dtype=np.int32)}
        for c in ("thread", "call_index", "start", "end", "duration", "self_time",
                  "depth", "parent"):
            cols[c] = a[c]
        return pd.DataFrame(cols, copy=False)

    def call_stack(self, rank=0, thread=None, relative=True, compensate=False):
        """The calls of one rank sorted by start, nesting as recorded (the
        stored journal order where times tie, else containment; docs/
        format.md "Call order and ties"): dicts with name, rank, thread,
        call_index, start, end,
        duration, self_time (seconds), depth and parent (list index or
        -1). compensate=True subtracts the rank's measured recording cost
        (overhead(); scope_call_stack_compensate in scope_reader.h): each
        duration loses inside plus the whole cost of its nested calls,
        each self_time inside plus caller per child; end moves with it.
        call_stack_arrays() and call_stack_dataframe() give the same
        without a Python object per call."""
        a = self.call_stack_arrays(rank, thread, relative, compensate)
        keys = ("thread", "call_index", "start", "end", "duration", "self_time",
                "depth", "parent")
        cols = [(self.region_names, a["region"]), rank] + [a[c] for c in keys]
        return _dicts.CallDicts(_dicts.table(("name", "rank") + keys, cols, _rows, _BATCH),
                                arrays={"parent": a["parent"]})


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


# What events() and call_stack() return (dicts.py)
from . import dicts as _dicts  # noqa: E402

# What the MPI calls moved (comm.py): MPIRegion.moved(), .bytes_sent,
# .bytes_received, .bytes(); ProfilingResults.comm_matrix(), .message_sizes()
from . import comm as _comm  # noqa: E402
_comm.attach(ProfilingResults, MPIRegion, _lib, _sig, _check, _p, ALL_RANKS)

# Who waited for whom (waits.py): ProfilingResults.waits(), .messages(),
# .wait_calls(), .wait_totals()
from . import waits as _waits  # noqa: E402
_waits.attach(ProfilingResults, _lib, _sig, _check, _p)
_C_STRUCTS.update(_waits.C_STRUCTS)
_C_STRUCTS.update(_comm.C_STRUCTS)

# What the I/O calls did (io.py): ProfilingResults.io(), .io_calls(),
# .io_report(), .io_columns(), .io_files(), .dask_io()
from . import io as _io  # noqa: E402
_io.attach(ProfilingResults, _lib, _sig, _check, _p)
_C_STRUCTS.update(_io.C_STRUCTS)
from .compare import compare  # noqa: E402,F401  (compare.py: sets of runs, statistics)

# The threads inside each rank (omp.py): ProfilingResults.omp(), .omp_regions()
from . import omp as _omp  # noqa: E402
_omp.attach(ProfilingResults, _lib, _sig, _check, _p)
_C_STRUCTS.update(_omp.C_STRUCTS)
