"""omp.py - the threads inside each rank (scope_reader_omp.h): what the
OpenMP regions of a profile say of each construct, rank and thread, as
pandas DataFrames. Attached to ProfilingResults by scope_reader/__init__.py;
the definitions are docs/analysis.md's ("OpenMP").

    p = scope_reader.read_h5("run.h5")
    p.omp()            # one row per (construct, rank, thread): instances,
                       # time, work, wait, the waits by kind, iterations
    p.omp_regions()    # one row per (construct, rank): instances, team sizes,
                       # time, work, wait, imbalance, load balance, ...
    p.omp_threads()    # one row per (rank, lane): the threads OpenMP reported,
                       # their type, begin, first and last event, end
    p.efficiency()     # POP's metrics of the run and of each top-level region
    p.efficiency_cpus()  # the numbers behind them, per (window, rank, thread)

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
    _fields_ = [("construct", _i32), ("rank", _i32), ("thread", _i32), ("lane", _i32),
                ("instances", _i64), ("iterations", _i64), ("time", _f64), ("work", _f64),
                ("wait", _f64), ("waits", _f64 * len(WAITS))]


class _Region(ctypes.Structure):
    _fields_ = [("construct", _i32), ("rank", _i32), ("instances", _i64),
                ("team_min", _i32), ("team_max", _i32), ("threads", _i32),
                ("slowest_thread", _i32), ("time", _f64), ("work", _f64), ("wait", _f64),
                ("imbalance", _f64), ("load_balance", _f64), ("scheduling", _f64),
                ("efficiency", _f64), ("iterations", _i64)]


class _Thread(ctypes.Structure):
    _fields_ = [("rank", _i32), ("lane", _i32), ("type", _i32), ("reserved", _i32),
                ("begin_ns", _i64), ("end_ns", _i64), ("first_ns", _i64), ("last_ns", _i64),
                ("events", _i64)]


THREAD_TYPES = ("", "initial", "worker", "other")


class _Efficiency(ctypes.Structure):
    _fields_ = [("region", _i32), ("ranks", _i32), ("cpus", _i32), ("reserved", _i32)] + [
        (k, _f64) for k in (
            "runtime", "outside_mpi_avg", "outside_mpi_max", "useful_avg", "useful_max",
            "mpi_avg", "mpi_waiting_avg", "omp_avg", "idle_avg", "serial_avg",
            "mpi_load_balance", "mpi_communication", "mpi_parallel", "omp_load_balance",
            "omp_communication", "omp_parallel", "hybrid_load_balance",
            "hybrid_communication", "parallel")]


class _Cpu(ctypes.Structure):
    _fields_ = [("region", _i32), ("rank", _i32), ("thread", _i32), ("main", _i32),
                ("window", _f64), ("useful", _f64), ("mpi", _f64), ("omp", _f64),
                ("idle", _f64), ("mpi_waiting", _f64)]


# the mirrors of scope_reader_omp.h, checked by tests/python/test_mirrors.py
C_STRUCTS = {"scope_omp_construct": _Construct, "scope_omp_row": _Row,
             "scope_omp_region": _Region, "scope_omp_thread": _Thread,
             "scope_efficiency": _Efficiency,
             "scope_efficiency_cpu": _Cpu}


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
    threads = sig("scope_omp_threads", _i64, p, ctypes.POINTER(ctypes.POINTER(_Thread)))
    frames = sig("scope_profile_site_frames", ctypes.c_int, p, ctypes.c_int,
                 ctypes.POINTER(ctypes.POINTER(_Frame)), ctypes.POINTER(ctypes.c_int))

    def _take(h, fn, struct):
        ptr = ctypes.POINTER(struct)()
        n = fn(h, ctypes.byref(ptr))
        return _array(ptr, n, struct)

    def _taken(self, run_fn, free_fn, *parts):
        """The arrays of parts ((fn, struct) each) of what run_fn computes
        on the profile, copied out before its handle is freed."""
        h = p()
        check(run_fn(self._h, ctypes.byref(h)))
        try:
            return tuple(_take(h, fn, struct) for fn, struct in parts)
        finally:
            free_fn(h)

    def _analysis(self, fn, struct):
        return _taken(self, run, free, (cons, _Construct), (fn, struct))

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
        -1 outside every parallel region), lane (the recorder's thread its
        parts ran on, -1 several), instances, iterations, time, work, wait
        (seconds) and one column per kind of wait. Sorted by construct,
        rank, thread."""
        import pandas as pd
        c, a = _analysis(self, rows, _Row)
        names, kinds, objs, offs = _names(self, c)
        idx = a["construct"]
        d = {"region": names[idx], "kind": kinds[idx], "object": objs[idx], "offset": offs[idx],
             "rank": a["rank"], "thread": a["thread"], "lane": a["lane"],
             "instances": a["instances"],
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

    def omp_threads(self):
        """One row per (rank, lane) that OpenMP reported or recorded an
        event on: rank, lane (the recorder's thread, as efficiency_cpus()'s
        thread), type ("initial", "worker", "other"; "" when its begin was
        not recorded), begin, first, last, end (ns of the profile's clock:
        its begin, its first and last OpenMP event, its end; -1 not
        recorded) and events (its OpenMP calls). Sorted by rank, lane."""
        import pandas as pd
        _, a = _analysis(self, threads, _Thread)
        types = np.array(THREAD_TYPES, dtype=object)
        return pd.DataFrame({"rank": a["rank"], "lane": a["lane"], "type": types[a["type"]],
                             "begin": a["begin_ns"], "first": a["first_ns"],
                             "last": a["last_ns"], "end": a["end_ns"],
                             "events": a["events"]})

    erun = sig("scope_profile_efficiency", ctypes.c_int, p, ctypes.POINTER(p))
    efree = sig("scope_efficiencies_free", None, p)
    erows = sig("scope_efficiencies_rows", _i64, p, ctypes.POINTER(ctypes.POINTER(_Efficiency)))
    ecpus = sig("scope_efficiencies_cpus", _i64, p, ctypes.POINTER(ctypes.POINTER(_Cpu)))

    def _efficiency(self):
        return _taken(self, erun, efree, (erows, _Efficiency), (ecpus, _Cpu))

    def _window(self, idx):
        names = np.array(list(self.region_names) + ["run"], dtype=object)
        return names[np.where(idx >= 0, idx, len(names) - 1)]

    def efficiency(self):
        """POP's metrics of the run (region "run") and of each top-level
        region, one row each: ranks, cpus, runtime, the parallel
        efficiency and its MPI and OpenMP factors with their load balance
        and communication efficiency, and the numbers behind them (seconds;
        docs/analysis.md "Efficiency"), as `scope efficiency --format csv`
        names them."""
        import pandas as pd
        a, _ = _efficiency(self)
        d = {"region": _window(self, a["region"]), "ranks": a["ranks"], "cpus": a["cpus"],
             "runtime": a["runtime"], "parallel_efficiency": a["parallel"],
             "mpi_parallel_efficiency": a["mpi_parallel"],
             "mpi_load_balance": a["mpi_load_balance"],
             "mpi_communication_efficiency": a["mpi_communication"],
             "omp_parallel_efficiency": a["omp_parallel"],
             "omp_load_balance": a["omp_load_balance"],
             "omp_communication_efficiency": a["omp_communication"],
             "hybrid_load_balance": a["hybrid_load_balance"],
             "hybrid_communication_efficiency": a["hybrid_communication"]}
        for k in ("outside_mpi_avg", "outside_mpi_max", "useful_avg", "useful_max", "mpi_avg",
                  "mpi_waiting_avg", "omp_avg", "idle_avg", "serial_avg"):
            d[k] = a[k]
        return pd.DataFrame(d)

    def efficiency_cpus(self):
        """The numbers behind efficiency(), one row per (window, rank,
        thread): region, rank, thread (its lane), main, window, useful, mpi,
        mpi_waiting, omp, idle (seconds)."""
        import pandas as pd
        _, a = _efficiency(self)
        return pd.DataFrame({"region": _window(self, a["region"]), "rank": a["rank"],
                             "thread": a["thread"], "main": a["main"].astype(bool),
                             "window": a["window"], "useful": a["useful"], "mpi": a["mpi"],
                             "mpi_waiting": a["mpi_waiting"], "omp": a["omp"],
                             "idle": a["idle"]})

    results_cls.omp = omp
    results_cls.omp_regions = omp_regions
    results_cls.omp_threads = omp_threads
    results_cls.efficiency = efficiency
    results_cls.efficiency_cpus = efficiency_cpus
