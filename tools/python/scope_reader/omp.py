"""omp.py - the threads inside each rank (scope_reader_omp.h): what the
OpenMP regions of a profile say of each construct, rank and thread, as
pandas DataFrames. Attached to ProfilingResults by scope_reader/__init__.py;
the definitions are docs/analysis.md's ("OpenMP").

    p = scope_reader.read_h5("run.h5")
    p.omp()            # one row per (construct, rank, thread): instances,
                       # time, work, wait, the waits by kind, iterations
    p.omp_regions()    # one row per (construct, rank): instances, team sizes,
                       # time, work, wait, imbalance, load balance, ...

A construct is named by its region and its code address, "omp parallel @
prog+0x11a9" (the object and the offset of its call into the runtime;
`scope omp` resolves it to function and file:line). Times are seconds, as
in `scope omp --format csv`.
"""
import ctypes
import os

import numpy as np

from .waits import _array

_i32, _i64, _f64 = ctypes.c_int32, ctypes.c_int64, ctypes.c_double

WAITS = ("none", "implicit_barrier", "barrier", "taskwait", "taskgroup", "reduction", "lock",
         "critical", "ordered", "atomic")


class _Construct(ctypes.Structure):
    _fields_ = [("region", _i32), ("site", _i32)]


class _Row(ctypes.Structure):
    _fields_ = [("construct", _i32), ("rank", _i32), ("thread", _i32), ("reserved", _i32),
                ("instances", _i64), ("iterations", _i64), ("time", _f64), ("work", _f64),
                ("wait", _f64), ("waits", _f64 * len(WAITS))]


class _Region(ctypes.Structure):
    _fields_ = [("construct", _i32), ("rank", _i32), ("instances", _i64),
                ("team_min", _i32), ("team_max", _i32), ("threads", _i32),
                ("slowest_thread", _i32), ("time", _f64), ("work", _f64), ("wait", _f64),
                ("imbalance", _f64), ("load_balance", _f64), ("scheduling", _f64),
                ("efficiency", _f64), ("iterations", _i64)]


# the mirrors of scope_reader_omp.h, checked by tests/python/test_mirrors.py
C_STRUCTS = {"scope_omp_construct": _Construct, "scope_omp_row": _Row,
             "scope_omp_region": _Region}


class _Frame(ctypes.Structure):
    _fields_ = [("offset", ctypes.c_uint64), ("build_id", ctypes.c_char_p),
                ("object", ctypes.c_char_p)]


def attach(results_cls, lib, sig, check, p):
    """Adds omp() and omp_regions() to ProfilingResults."""
    run = sig("scope_profile_omp", ctypes.c_int, p, ctypes.POINTER(p))
    free = sig("scope_omp_free", None, p)
    cons = sig("scope_omp_constructs", _i64, p, ctypes.POINTER(ctypes.POINTER(_Construct)))
    regs = sig("scope_omp_regions", _i64, p, ctypes.POINTER(ctypes.POINTER(_Region)))
    rows = sig("scope_omp_rows", _i64, p, ctypes.POINTER(ctypes.POINTER(_Row)))
    frames = sig("scope_profile_site_frames", ctypes.c_int, p, ctypes.c_int,
                 ctypes.POINTER(ctypes.POINTER(_Frame)), ctypes.POINTER(ctypes.c_int))

    def _take(h, fn, struct):
        ptr = ctypes.POINTER(struct)()
        n = fn(h, ctypes.byref(ptr))
        return _array(ptr, n, struct)

    def _analysis(self, fn, struct):
        h = p()
        check(run(self._h, ctypes.byref(h)))
        try:
            return _take(h, cons, _Construct), _take(h, fn, struct)
        finally:
            free(h)

    def _names(self, c):
        """Per construct: its name, kind, object and offset."""
        names, kinds, objs, offs = [], [], [], []
        for region, site in zip(c["region"].tolist(), c["site"].tolist()):
            event = self.region_names[region]
            obj, off = "", -1
            if site >= 0:
                fr, depth = ctypes.POINTER(_Frame)(), ctypes.c_int()
                check(frames(self._h, site, ctypes.byref(fr), ctypes.byref(depth)))
                if depth.value > 0:
                    obj = fr[0].object.decode("utf-8", "replace")
                    off = int(fr[0].offset)
            names.append(f"{event} @ {os.path.basename(obj)}+{off:#x}" if obj else event)
            kinds.append(event[4:] if event.startswith("omp ") else event)
            objs.append(obj)
            offs.append(off)
        return (np.array(names + [""], dtype=object), np.array(kinds + [""], dtype=object),
                np.array(objs + [""], dtype=object), np.array(offs + [-1], dtype=np.int64))

    def omp(self):
        """One row per (construct, rank, thread): region (the construct's
        name), kind, object, offset, rank, thread (its number in the team,
        -1 outside every parallel region), instances, iterations, time,
        work, wait (seconds) and one column per kind of wait. Sorted by
        construct, rank, thread."""
        import pandas as pd
        c, a = _analysis(self, rows, _Row)
        names, kinds, objs, offs = _names(self, c)
        idx = a["construct"]
        d = {"region": names[idx], "kind": kinds[idx], "object": objs[idx], "offset": offs[idx],
             "rank": a["rank"], "thread": a["thread"], "instances": a["instances"],
             "time": a["time"], "work": a["work"], "wait": a["wait"]}
        for k, w in enumerate(WAITS[1:], 1):
            d[w] = a["waits"][:, k] if len(a) else np.zeros(0)
        d["iterations"] = a["iterations"]
        return pd.DataFrame(d)

    def omp_regions(self):
        """One row per (construct, rank): region, kind, object, offset,
        rank, instances, team_min, team_max, threads, slowest_thread, time,
        work, wait, imbalance, load_balance, scheduling, efficiency,
        iterations (docs/analysis.md "OpenMP"). Sorted by construct, rank."""
        import pandas as pd
        c, a = _analysis(self, regs, _Region)
        names, kinds, objs, offs = _names(self, c)
        idx = a["construct"]
        return pd.DataFrame({
            "region": names[idx], "kind": kinds[idx], "object": objs[idx], "offset": offs[idx],
            "rank": a["rank"], "instances": a["instances"], "team_min": a["team_min"],
            "team_max": a["team_max"], "threads": a["threads"],
            "slowest_thread": a["slowest_thread"], "time": a["time"], "work": a["work"],
            "wait": a["wait"], "imbalance": a["imbalance"], "load_balance": a["load_balance"],
            "scheduling": a["scheduling"], "efficiency": a["efficiency"],
            "iterations": a["iterations"]})

    results_cls.omp = omp
    results_cls.omp_regions = omp_regions
