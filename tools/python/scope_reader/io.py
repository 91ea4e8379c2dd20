"""io.py - what the I/O calls of a profile did (scope_reader_io.h), as
pandas DataFrames: the analysis at Darshan's level per (file, layer, rank)
and each call. Attached to ProfilingResults by scope_reader/__init__.py;
docs/io.md says what every column means.

    p = scope_reader.read_h5("run.h5")
    p.io()             # one row per file, layer and rank: opens, reads, writes,
                       # bytes_read, bytes_written, read_time, write_time,
                       # meta_time, ... (the csv of `scope io`)
    p.io_calls()       # one row per I/O call: rank, thread, name, layer,
                       # issuer, file, start, end, bytes, offset, ...
    p.io_report()      # everything else: spreads, datasets, ranks, hosts,
                       # file systems, the heat map
    p.dask_io()        # io() as a Dask DataFrame, a partition per host file

Times are seconds (the *_time columns) and seconds from the run's time
origin (first_start, last_end, first_open, last_close, start, end), as in
`scope io --format csv`. Layers are "posix", "stdio", "mpiio", "hdf5";
an issuer is a layer or "program" (the call was the program's own).
"""
import ctypes

import numpy as np

LAYERS = {"posix": 2, "stdio": 3, "mpiio": 4, "hdf5": 5}
LAYER_NAMES = {v: k for k, v in LAYERS.items()}
ISSUERS = {0: "program", **LAYER_NAMES}
SIZE_BINS = ("0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M",
             "10M-100M", "100M-1G", "1G+")
COMMON = 4
NLAYERS = 6
FILE_KINDS = ("file", "stream", "dataset", "other")

_i8, _i32, _i64, _dbl = ctypes.c_int8, ctypes.c_int32, ctypes.c_int64, ctypes.c_double
_p8, _p32, _p64 = ctypes.POINTER(_i8), ctypes.POINTER(_i32), ctypes.POINTER(_i64)

_COUNTS = ("opens", "closes", "reads", "writes", "seeks", "stats", "syncs", "mmaps", "dups",
           "metas", "errors", "bytes_read", "bytes_written")
_PATTERN = ("max_byte_read", "max_byte_written", "consec_reads", "consec_writes", "seq_reads",
            "seq_writes", "rw_switches", "unaligned")
_MPIIO = ("coll_reads", "coll_writes", "nb_reads", "nb_writes", "split_reads", "split_writes")


class _Options(ctypes.Structure):
    _fields_ = [("layers", ctypes.c_uint), ("ranks", ctypes.POINTER(ctypes.c_int)),
                ("nranks", ctypes.c_int), ("heat_bins", ctypes.c_int)]


class _File(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("given", ctypes.c_char_p),
                ("fs_type", ctypes.c_char_p), ("mount", ctypes.c_char_p),
                ("block_size", _i64), ("kind", _i32), ("parent", _i32), ("nranks", _i32),
                ("reserved", _i32), ("bytes_read", _i64), ("bytes_written", _i64)]


class _Record(ctypes.Structure):
    _fields_ = ([("file", _i32), ("layer", _i32), ("rank", _i32), ("reserved", _i32)]
                + [(n, _i64) for n in _COUNTS[:11]]
                + [("bytes_read", _i64), ("bytes_written", _i64),
                   ("read_time", _dbl), ("write_time", _dbl), ("meta_time", _dbl)]
                + [(n, _i64) for n in _PATTERN]
                + [("size_read", _i64 * 10), ("size_written", _i64 * 10),
                   ("access_size", _i64 * COMMON), ("access_count", _i64 * COMMON),
                   ("stride", _i64 * COMMON), ("stride_count", _i64 * COMMON),
                   ("issued_read", _i64 * NLAYERS), ("issued_written", _i64 * NLAYERS),
                   ("first_ns", _i64), ("last_ns", _i64), ("open_ns", _i64),
                   ("close_ns", _i64)]
                + [(n, _i64) for n in _MPIIO])


class _Spread(ctypes.Structure):
    _fields_ = [("file", _i32), ("layer", _i32), ("nranks", _i32), ("fastest_rank", _i32),
                ("slowest_rank", _i32), ("reserved", _i32), ("fastest_time", _dbl),
                ("slowest_time", _dbl), ("fastest_bytes", _i64), ("slowest_bytes", _i64),
                ("time_variance", _dbl), ("bytes_variance", _dbl), ("bytes", _i64),
                ("time", _dbl)]


class _Total(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("mount", ctypes.c_char_p), ("rank", _i32),
                ("nfiles", _i32), ("calls", _i64), ("bytes_read", _i64),
                ("bytes_written", _i64), ("time", _dbl)]


class _Report(ctypes.Structure):
    _fields_ = [("nfiles", _i32), ("files", ctypes.POINTER(_File)),
                ("nrecords", _i64), ("records", ctypes.POINTER(_Record)),
                ("ndatasets", _i64), ("datasets", ctypes.POINTER(_Record)),
                ("nspreads", _i32), ("spreads", ctypes.POINTER(_Spread)),
                ("nranks", _i32), ("nhosts", _i32), ("nfs", _i32),
                ("ranks", ctypes.POINTER(_Total)), ("hosts", ctypes.POINTER(_Total)),
                ("fs", ctypes.POINTER(_Total)), ("heat_bins", _i32),
                ("heat_start_ns", _i64), ("heat_span_ns", _i64),
                ("heat_read", ctypes.POINTER(_dbl)), ("heat_written", ctypes.POINTER(_dbl)),
                ("files_past_bound", _i64)]


class _Calls(ctypes.Structure):
    _fields_ = [("n", _i64), ("nfiles", _i32), ("file_names", ctypes.POINTER(ctypes.c_char_p)),
                ("rank", _p32), ("thread", _p32), ("region", _p32),
                ("layer", _p32), ("issuer", _p32), ("file", _p32), ("cls", _p32),
                ("failed", _p8), ("start_ns", _p64), ("end_ns", _p64), ("bytes", _p64),
                ("offset", _p64)]


class _Columns(ctypes.Structure):
    _fields_ = [("n", _i64), ("file", _p32), ("bytes", _p64), ("offset", _p64),
                ("issuer", _p8), ("failed", _p8)]


class _Files(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("kind", _p8), ("parent", _p32), ("layer", _p8),
                ("dev", _p64), ("ino", _p64), ("block_size", _p64),
                ("name", ctypes.POINTER(ctypes.c_char_p)),
                ("resolved", ctypes.POINTER(ctypes.c_char_p)),
                ("fs_type", ctypes.POINTER(ctypes.c_char_p)),
                ("mount", ctypes.POINTER(ctypes.c_char_p))]


# the mirrors of scope_reader_io.h, checked by tests/python/test_mirrors.py
C_STRUCTS = {"scope_io_options": _Options, "scope_io_file": _File, "scope_io_record": _Record,
             "scope_io_spread": _Spread, "scope_io_total": _Total, "scope_io_report": _Report,
             "scope_io_calls": _Calls, "scope_io_columns": _Columns, "scope_io_files": _Files}

# the io() columns after the csv's first eleven, in the csv's order
# (tools/cmd_io.c); times in seconds
CSV_COLUMNS = (("file", "layer", "rank", "opens", "reads", "writes", "bytes_read",
                "bytes_written", "read_time", "write_time", "meta_time", "closes", "seeks",
                "stats", "syncs", "mmaps", "dups", "metas", "errors") + _PATTERN + _MPIIO
               + tuple(f"size_read_{b}" for b in SIZE_BINS)
               + tuple(f"size_written_{b}" for b in SIZE_BINS)
               + tuple(c for k in range(1, COMMON + 1)
                       for c in (f"access{k}_size", f"access{k}_count"))
               + tuple(c for k in range(1, COMMON + 1) for c in (f"stride{k}", f"stride{k}_count"))
               + tuple(c for k in (0, 3, 4, 5)
                       for c in (f"read_via_{ISSUERS[k]}", f"written_via_{ISSUERS[k]}"))
               + ("first_start", "last_end", "first_open", "last_close"))


def _text(b):
    """A C string as text: bytes that are not UTF-8 kept as surrogates
    (a file name may hold any byte but NUL); None as ""."""
    return b.decode("utf-8", "surrogateescape") if b else ""


def _options(layer, ranks, heat_bins=0):
    """(struct, keep-alive) for `layer` (a name or a list of names) and
    `ranks` (a list, None for all)."""
    o = _Options()
    if layer is not None:
        names = [layer] if isinstance(layer, str) else list(layer)
        for n in names:
            if n not in LAYERS:
                raise ValueError(f"layer must be one of {sorted(LAYERS)}, not {n!r}")
            o.layers |= 1 << LAYERS[n]
    keep = None
    if ranks is not None:
        sel = [int(k) for k in np.atleast_1d(ranks)]
        keep = (ctypes.c_int * max(len(sel), 1))(*sel)
        o.ranks, o.nranks = keep, len(sel)
    o.heat_bins = int(heat_bins)
    return o, keep


def _records_frame(rep, recs, n, origin_ns, want_file):
    """The rows of n records as a DataFrame with the csv's columns (and
    fs_type, mount, shared)."""
    import pandas as pd
    files = [rep.files[i] for i in range(rep.nfiles)]
    names = [_text(f.name) for f in files]
    cols = {c: [] for c in CSV_COLUMNS + ("fs_type", "mount", "shared")}
    for i in range(n):
        x = recs[i]
        if want_file is not None and not want_file(names[x.file]):
            continue
        f = files[x.file]
        cols["file"].append(names[x.file])
        cols["layer"].append(LAYER_NAMES.get(x.layer, ""))
        cols["rank"].append(x.rank)
        for c in _COUNTS + _PATTERN + _MPIIO:
            cols[c].append(getattr(x, c))
        for c in ("read_time", "write_time", "meta_time"):
            cols[c].append(getattr(x, c))
        for b, label in enumerate(SIZE_BINS):
            cols[f"size_read_{label}"].append(x.size_read[b])
            cols[f"size_written_{label}"].append(x.size_written[b])
        for k in range(COMMON):
            cols[f"access{k + 1}_size"].append(x.access_size[k])
            cols[f"access{k + 1}_count"].append(x.access_count[k])
            cols[f"stride{k + 1}"].append(x.stride[k])
            cols[f"stride{k + 1}_count"].append(x.stride_count[k])
        for k in (0, 3, 4, 5):
            cols[f"read_via_{ISSUERS[k]}"].append(x.issued_read[k])
            cols[f"written_via_{ISSUERS[k]}"].append(x.issued_written[k])
        for c, v in (("first_start", x.first_ns), ("last_end", x.last_ns),
                     ("first_open", x.open_ns), ("last_close", x.close_ns)):
            cols[c].append((v - origin_ns) * 1e-9 if v >= 0 else np.nan)
        cols["fs_type"].append(_text(f.fs_type))
        cols["mount"].append(_text(f.mount))
        cols["shared"].append(f.nranks > 1)
    frame = pd.DataFrame(cols)
    ints = [c for c in frame.columns if c not in ("file", "layer", "fs_type", "mount", "shared")
            and not c.endswith("_time") and c not in ("first_start", "last_end", "first_open",
                                                        "last_close")]
    return frame.astype({c: np.int64 for c in ints} | {"rank": np.int32})


def attach(results_cls, lib, sig, check, p):
    """Adds io(), io_calls(), io_report(), io_columns(), io_files() and
    dask_io() to ProfilingResults."""
    report = sig("scope_profile_io_report", ctypes.c_int, p, ctypes.POINTER(_Options),
                 ctypes.POINTER(ctypes.POINTER(_Report)))
    report_free = sig("scope_io_report_free", None, ctypes.POINTER(_Report))
    calls = sig("scope_profile_io_calls", ctypes.c_int, p, ctypes.POINTER(_Options),
                ctypes.POINTER(_Calls))
    calls_free = sig("scope_io_calls_free", None, ctypes.POINTER(_Calls))
    columns = sig("scope_profile_io_columns", ctypes.c_int, p, ctypes.c_int, ctypes.c_int,
                  ctypes.POINTER(_Columns))
    files = sig("scope_profile_io_files", ctypes.c_int, p, ctypes.c_int, ctypes.POINTER(_Files))
    has = sig("scope_profile_has_io", ctypes.c_int, p)
    class_name = sig("scope_io_class_name", ctypes.c_char_p, ctypes.c_int)

    def _report(self, layer, ranks, heat_bins, take):
        o, keep = _options(layer, ranks, heat_bins)
        rp = ctypes.POINTER(_Report)()
        check(report(self._h, ctypes.byref(o), ctypes.byref(rp)))
        try:
            return take(rp.contents)
        finally:
            report_free(rp)
            del keep

    def _file_filter(file):
        if file is None:
            return None
        import re
        rx = re.compile(file)
        return lambda name: rx.search(name) is not None

    def io(self, layer=None, ranks=None, file=None, origin_ns=None):
        """One row per (file, layer, rank): Darshan's counters (docs/io.md),
        the columns of `scope io --format csv` in its order, then fs_type,
        mount and shared (more than one of the chosen ranks named the
        file). `layer`: a layer name or a list of them; `ranks`: a list;
        `file`: a regular expression the file's name must contain a match
        of (re.search); origin_ns: the zero of the times (default: the
        profile's time origin)."""
        origin = origin_ns if origin_ns is not None else (self.time_origin_ns or 0)
        return self._report(layer, ranks, 0, lambda r: _records_frame(
            r, r.records, r.nrecords, origin, _file_filter(file)))

    def io_report(self, layer=None, ranks=None, heat_bins=100):
        """Everything the analysis gives besides io(): a dict with
        "files" (DataFrame: name, given, fs_type, mount, block_size, kind,
        parent, ranks, bytes_read, bytes_written), "datasets" (io()'s
        columns, per HDF5 dataset and rank), "spreads" (a shared file's
        fastest and slowest rank per layer, and the variances), "ranks",
        "hosts", "file_systems" (totals: calls, bytes, time, files),
        "heat_read" and "heat_written" (numpy [rank, bin] bytes, rows in
        the order of "ranks"), "heat_start" and "heat_width" (seconds from
        the time origin), and "files_past_bound"."""
        import pandas as pd
        origin = self.time_origin_ns or 0

        def take(r):
            fl = [r.files[i] for i in range(r.nfiles)]
            out = {"files": pd.DataFrame({
                "name": [_text(f.name) for f in fl], "given": [_text(f.given) for f in fl],
                "fs_type": [_text(f.fs_type) for f in fl], "mount": [_text(f.mount) for f in fl],
                "block_size": np.array([f.block_size for f in fl], np.int64),
                "kind": [FILE_KINDS[f.kind] if 0 <= f.kind < 4 else "" for f in fl],
                "parent": np.array([f.parent for f in fl], np.int32),
                "ranks": np.array([f.nranks for f in fl], np.int32),
                "bytes_read": np.array([f.bytes_read for f in fl], np.int64),
                "bytes_written": np.array([f.bytes_written for f in fl], np.int64)})}
            out["datasets"] = _records_frame(r, r.datasets, r.ndatasets, origin, None)
            sp = [r.spreads[i] for i in range(r.nspreads)]
            names = out["files"]["name"].tolist()
            out["spreads"] = pd.DataFrame({
                "file": [names[s.file] for s in sp],
                "layer": [LAYER_NAMES.get(s.layer, "") for s in sp],
                **{c: [getattr(s, c) for s in sp] for c in
                   ("nranks", "fastest_rank", "slowest_rank", "fastest_time", "slowest_time",
                    "fastest_bytes", "slowest_bytes", "time_variance", "bytes_variance",
                    "bytes", "time")}})
            for key, arr, n in (("ranks", r.ranks, r.nranks), ("hosts", r.hosts, r.nhosts),
                                ("file_systems", r.fs, r.nfs)):
                t = [arr[i] for i in range(n)]
                d = {"rank": [x.rank for x in t]} if key == "ranks" else {
                    "name": [_text(x.name) for x in t]}
                if key == "file_systems":
                    d["mount"] = [_text(x.mount) for x in t]
                for c in ("nfiles", "calls", "bytes_read", "bytes_written", "time"):
                    d["files" if c == "nfiles" else c] = [getattr(x, c) for x in t]
                out[key] = pd.DataFrame(d)
            nb = r.heat_bins
            for key, ptr in (("heat_read", r.heat_read), ("heat_written", r.heat_written)):
                out[key] = (np.ctypeslib.as_array(ptr, shape=(r.nranks * nb,)).reshape(
                    r.nranks, nb).copy() if r.nranks and nb else np.zeros((r.nranks, nb)))
            out["heat_start"] = (r.heat_start_ns - origin) * 1e-9
            out["heat_width"] = r.heat_span_ns * 1e-9 / nb if nb else 0.0
            out["files_past_bound"] = r.files_past_bound
            return out

        return self._report(layer, ranks, heat_bins, take)

    def io_calls(self, layer=None, ranks=None):
        """One row per I/O call, each rank's in time order: rank, thread,
        name (the call), layer, issuer (a layer, or "program"), file (the
        name io() uses; "" none), cls (io_read, io_write, io_open, ...),
        start, end, duration (seconds; start and end from the time
        origin), bytes, offset (<NA> when none), failed."""
        import pandas as pd
        o, keep = _options(layer, ranks)
        c = _Calls()
        check(calls(self._h, ctypes.byref(o), ctypes.byref(c)))
        try:
            n = c.n

            def arr(ptr, dt):
                return (np.ctypeslib.as_array(ptr, shape=(n,)).astype(dt, copy=True)
                        if n else np.zeros(0, dt))
            names = [_text(c.file_names[i]) for i in range(c.nfiles)]
            regions = np.array(list(self.region_names) + [""], dtype=object)
            fidx = arr(c.file, np.int32)
            fnames = np.array(names + [""], dtype=object)
            origin = self.time_origin_ns or 0
            start, end = arr(c.start_ns, np.int64), arr(c.end_ns, np.int64)
            off = arr(c.offset, np.int64)
            return pd.DataFrame({
                "rank": arr(c.rank, np.int32), "thread": arr(c.thread, np.int32),
                "name": regions[arr(c.region, np.int32)],
                "layer": [LAYER_NAMES.get(v, "") for v in arr(c.layer, np.int32).tolist()],
                "issuer": [ISSUERS.get(v, "") for v in arr(c.issuer, np.int32).tolist()],
                "file": fnames[np.where(fidx >= 0, fidx, len(names))],
                "cls": [_text(class_name(v)) for v in arr(c.cls, np.int32).tolist()],
                "start": (start - origin) * 1e-9, "end": (end - origin) * 1e-9,
                "duration": (end - start) * 1e-9, "bytes": arr(c.bytes, np.int64),
                "offset": pd.arrays.IntegerArray(np.where(off >= 0, off, 0), off < 0),
                "failed": arr(c.failed, np.int8).astype(bool)})
        finally:
            calls_free(ctypes.byref(c))
            del keep

    def io_columns(self, region, rank):
        """The I/O columns of `region`'s calls on `rank` in the order of its
        start times (file, bytes, offset, issuer, failed: numpy arrays), or
        None when the region has none."""
        idx = self[region].index if isinstance(region, str) else int(region)
        c = _Columns()
        check(columns(self._h, idx, rank, ctypes.byref(c)))
        if not c.file:
            return None
        n = c.n
        return {k: np.ctypeslib.as_array(getattr(c, k), shape=(n,)).copy()
                for k in ("file", "bytes", "offset", "issuer", "failed")}

    def io_files(self, rank):
        """`rank`'s file table as a DataFrame (row i is what its io_file
        column calls i): kind, parent, layer, dev, ino, block_size, name,
        resolved, fs_type, mount."""
        import pandas as pd
        t = _Files()
        check(files(self._h, rank, ctypes.byref(t)))
        n = t.n
        d = {}
        for k, dt in (("kind", np.int8), ("parent", np.int32), ("layer", np.int8),
                      ("dev", np.int64), ("ino", np.int64), ("block_size", np.int64)):
            d[k] = (np.ctypeslib.as_array(getattr(t, k), shape=(n,)).astype(dt)
                    if n else np.zeros(0, dt))
        for k in ("name", "resolved", "fs_type", "mount"):
            d[k] = [_text(getattr(t, k)[i]) for i in range(n)]
        return pd.DataFrame(d)

    def has_io(self):
        """True when some rank records what its I/O calls did."""
        return has(self._h) > 0

    def dask_io(self, layer=None, ranks=None, ranks_per_partition=64, partition_by="auto"):
        """io() as a Dask DataFrame: one partition per host file (or block
        of ranks), each computed by opening only its own files, as
        to_dask() partitions events (dask_frames.py). The rows are io()'s
        for the partition's ranks; a file's rank spread needs every rank,
        so it is io_report()'s alone."""
        from .dask_frames import dask_io
        return dask_io(self, layer=layer, ranks=ranks, per=ranks_per_partition,
                       partition_by=partition_by)

    results_cls._report = _report
    results_cls.io = io
    results_cls.io_report = io_report
    results_cls.io_calls = io_calls
    results_cls.io_columns = io_columns
    results_cls.io_files = io_files
    results_cls.has_io = has_io
    results_cls.dask_io = dask_io

