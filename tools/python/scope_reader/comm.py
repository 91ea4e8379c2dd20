"""comm.py - what the MPI calls of a profile moved (scope_reader_comm.h):
per-call bytes, partners, tags and communicators as numpy arrays, byte
totals, the rank-to-rank matrix of point-to-point (or one-sided) messages,
the message-size histogram and each rank's communicators. Attached to ProfilingResults and MPIRegion by
scope_reader/__init__.py; see docs/format.md "What MPI calls moved".

    p = scope_reader.read_h5("run.h5")
    msgs, nbytes = p.comm_matrix()          # [sender, receiver] world ranks
    p.message_pairs(ranks=[0, 1])           # the same, as non-zero pairs
    p["MPI_Send"].moved(rank=0)["bytes_sent"]
    p["MPI_Alltoallv"].bytes_sent           # total over the ranks
    p.message_sizes()                       # {(lo, hi): messages}
    p.comm_matrix(kind="one-sided")         # MPI_Put, MPI_Get, ...: [from, to]
    p.comm_matrix(kind="collective")        # collectives' pairwise shares
    p.communicators(rank=0)                 # list of dicts: size, members, creator
    p.to_events_dataframe()                 # + bytes_sent ... comm per call (moved_columns)
"""
import ctypes

import numpy as np

# the values of scope_reader_comm.h's #defines, checked by
# tests/python/test_mirrors.py
ALL_REGIONS = -1
SIZE_BUCKETS = 64
NO_RANK = -1
NO_TAG = -2147483648
# kind name -> SCOPE_COMM_* value, from the library (scope_comm_kind_name)
KINDS = {}
# The data columns of a call, in the order of `scope events --format csv`
# (tools/event_output.c) and their pandas dtypes: nullable integers, <NA>
# for a call that records none (a region that is not an MPI call, or a
# tag of none), where the csv has an empty cell
MOVED_COLUMNS = {"bytes_sent": "Int64", "bytes_received": "Int64", "dest": "Int32",
                 "source": "Int32", "tag": "Int32", "comm": "Int32"}

_i64 = ctypes.c_int64
_p32 = ctypes.POINTER(ctypes.c_int32)
_p64 = ctypes.POINTER(_i64)


class _Moved(ctypes.Structure):
    _fields_ = [("n", _i64), ("bytes_sent", _p64), ("bytes_received", _p64),
                ("dest", _p32), ("source", _p32), ("tag", _p32), ("comm", _p32)]


class _Comms(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("size", _p32), ("remote_size", _p32),
                ("members_start", _p64), ("members", _p32),
                ("names", ctypes.POINTER(ctypes.c_char_p)),
                ("creators", ctypes.POINTER(ctypes.c_char_p))]


class _Pairs(ctypes.Structure):
    _fields_ = [("n", _i64), ("sender", _p32), ("receiver", _p32),
                ("messages", _p64), ("bytes", _p64)]


# the mirrors of scope_reader_comm.h, checked by tests/python/test_mirrors.py
C_STRUCTS = {"scope_moved": _Moved, "scope_communicators": _Comms,
             "scope_message_pairs": _Pairs}


def _kind(kind):
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {sorted(KINDS)}, not {kind!r}")
    return KINDS[kind]


def _bind(lib, sig, check, p, all_ranks):
    kind_name = sig("scope_comm_kind_name", ctypes.c_char_p, ctypes.c_int)
    k = 0
    while kind_name(k) is not None:
        KINDS[kind_name(k).decode()] = k
        k += 1
    moved = sig("scope_profile_moved", ctypes.c_int, p, ctypes.c_int, ctypes.c_int,
                ctypes.POINTER(_Moved))
    nbytes = sig("scope_profile_bytes", ctypes.c_int, p, ctypes.c_int, ctypes.c_int,
                 _p64, _p64)
    world = sig("scope_profile_world_size", ctypes.c_int, p)
    matrix = sig("scope_profile_comm_matrix_kind", ctypes.c_int, p, ctypes.c_int, ctypes.c_int,
                 ctypes.c_int, _p64, _p64)
    hist = sig("scope_profile_size_histogram_kind", ctypes.c_int, p, ctypes.c_int, ctypes.c_int,
               ctypes.c_int, _p64)

    pairs = sig("scope_profile_message_pairs", ctypes.c_int, p, ctypes.c_int,
                ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.POINTER(_Pairs))
    pairs_free = sig("scope_message_pairs_free", None, ctypes.POINTER(_Pairs))
    comms = sig("scope_profile_communicators", ctypes.c_int, p, ctypes.c_int,
                ctypes.POINTER(_Comms))

    def _copy(ptr, n, dtype):
        if not ptr:
            return None
        return np.ctypeslib.as_array(ptr, shape=(n,)).astype(dtype, copy=True)

    def region_moved(self, rank):
        """The data columns of this region's calls on `rank`, in the order
        of its start times: a dict of numpy arrays bytes_sent,
        bytes_received (int64), dest, source, tag, comm (int32), or None
        when the region records none (not an MPI call, or an older file)."""
        m = _Moved()
        check(moved(self._r._h, self.index, rank, ctypes.byref(m)))
        if not m.bytes_sent:
            return None
        n = m.n
        return {"bytes_sent": _copy(m.bytes_sent, n, np.int64),
                "bytes_received": _copy(m.bytes_received, n, np.int64),
                "dest": _copy(m.dest, n, np.int32), "source": _copy(m.source, n, np.int32),
                "tag": _copy(m.tag, n, np.int32), "comm": _copy(m.comm, n, np.int32)}

    has = sig("scope_profile_has_moved", ctypes.c_int, p)

    def has_moved(self):
        """True when some rank records what its MPI calls moved."""
        return has(self._h) > 0

    def moved_columns(self, region, rank, call_index, which):
        """The data columns `which` (names of MOVED_COLUMNS) of the rows
        (region, rank, call_index) of event_arrays(), rows of one (region,
        rank) next to each other (as event_arrays() gives them): {name:
        pandas nullable integer array}, <NA> where the call records none.
        Cost: one scope_profile_moved() per run of rows of one (region,
        rank), and a numpy gather of each; memory: 9 (int64) or 5 (int32)
        bytes per row and column."""
        import pandas as pd
        n = len(rank)
        vals = {c: np.zeros(n, np.int64 if MOVED_COLUMNS[c] == "Int64" else np.int32)
                for c in which}
        none = np.ones(n, bool)
        if n:
            cut = np.flatnonzero((region[1:] != region[:-1]) | (rank[1:] != rank[:-1])) + 1
            los = np.concatenate(([0], cut)).tolist()
            his = np.concatenate((cut, [n])).tolist()
            m = _Moved()
            for lo, hi in zip(los, his):
                check(moved(self._h, int(region[lo]), int(rank[lo]), ctypes.byref(m)))
                if not m.bytes_sent or m.n <= 0:
                    continue
                idx = call_index[lo:hi]
                ok = (idx >= 0) & (idx < m.n)
                idx = np.where(ok, idx, 0)
                for c in which:
                    col = np.ctypeslib.as_array(getattr(m, c), shape=(m.n,))
                    vals[c][lo:hi] = col[idx]
                none[lo:hi] = ~ok
        out = {}
        for c in which:
            mask = none | (vals[c] == NO_TAG) if c == "tag" else none
            out[c] = pd.arrays.IntegerArray(vals[c], mask.copy())
        return out

    def region_bytes(self, rank=all_ranks):
        s, r = _i64(), _i64()
        check(nbytes(self._r._h, self.index, rank, ctypes.byref(s), ctypes.byref(r)))
        return s.value, r.value

    def comm_matrix(self, region=None, kind="p2p"):
        """(messages, bytes): two n x n int64 numpy arrays indexed [sender,
        receiver] by world rank, of the point-to-point messages of every
        send region (or of `region`, a name), counted at the sender.
        kind="one-sided": the one-sided calls (MPI_Put, MPI_Get, ...),
        [rank the data left, rank it reached]: a put goes from its origin
        to its target, a get from its target to its origin.
        kind="collective": the collective calls' pairwise shares by the
        byte model of docs/format.md (a root to each member, each member to
        a root, each member's block to every other; a started persistent
        collective, by MPI_Start or MPI_Startall, as its blocking call)."""
        idx = ALL_REGIONS if region is None else self[region].index
        k = _kind(kind)
        n = world(self._h)
        msgs = np.zeros((n, n), dtype=np.int64)
        byts = np.zeros((n, n), dtype=np.int64)
        if n:
            check(matrix(self._h, k, idx, n, msgs.ctypes.data_as(_p64),
                         byts.ctypes.data_as(_p64)))
        return msgs, byts

    def message_pairs(self, region=None, ranks=None):
        """comm_matrix() as a long table of the pairs that exchanged a
        message, sent by `ranks` (default: every rank): a dict of numpy
        arrays sender, receiver (int32), messages, bytes (int64), sorted by
        sender then receiver. Memory: the selected senders' pairs, not n x
        n cells, so it suits a part of a large run (dask_comm_matrix()
        adds the parts). Cost: one pass over the senders' send calls, in
        the C reader (scope_profile_message_pairs, the matrix's own walk)."""
        idx = ALL_REGIONS if region is None else self[region].index
        sel = None if ranks is None else [int(k) for k in np.atleast_1d(ranks)]
        arr = None if sel is None else (ctypes.c_int * max(len(sel), 1))(*sel)
        out = _Pairs()
        check(pairs(self._h, idx, arr, 0 if sel is None else len(sel), ctypes.byref(out)))
        try:
            n = out.n
            return {"sender": _copy(out.sender, n, np.int32) if n else np.zeros(0, np.int32),
                    "receiver": _copy(out.receiver, n, np.int32) if n else np.zeros(0, np.int32),
                    "messages": _copy(out.messages, n, np.int64) if n else np.zeros(0, np.int64),
                    "bytes": _copy(out.bytes, n, np.int64) if n else np.zeros(0, np.int64)}
        finally:
            pairs_free(ctypes.byref(out))

    def communicators(self, rank=0):
        """The communicators `rank` used, one dict per row of the `comm`
        column: size, remote_size, members (world ranks, the local group
        then an intercommunicator's remote one), name, creator (the MPI
        call that made it, "MPI_Init" for MPI_COMM_WORLD, "" unknown)."""
        c = _Comms()
        check(comms(self._h, rank, ctypes.byref(c)))
        out = []
        for i in range(c.n):
            lo, hi = c.members_start[i], c.members_start[i + 1]
            out.append({"size": c.size[i], "remote_size": c.remote_size[i],
                        "members": [c.members[j] for j in range(lo, hi)],
                        "name": (c.names[i] or b"").decode(),
                        "creator": (c.creators[i] or b"").decode()})
        return out

    def message_sizes(self, region=None, rank=all_ranks, kind="p2p"):
        """{(min_bytes, max_bytes): messages} of the point-to-point sends
        (kind="one-sided": of the one-sided calls, each direction a call
        moved data in), power-of-two buckets ((0, 0) holds empty messages)."""
        idx = ALL_REGIONS if region is None else self[region].index
        h = np.zeros(SIZE_BUCKETS, dtype=np.int64)
        check(hist(self._h, _kind(kind), idx, rank, h.ctypes.data_as(_p64)))
        out = {}
        for k in np.nonzero(h)[0]:
            lo = 0 if k == 0 else 1 << (int(k) - 1)
            hi = 0 if k == 0 else (1 << int(k)) - 1
            out[(lo, hi)] = int(h[k])
        return out

    return region_moved, region_bytes, comm_matrix, message_sizes, communicators, \
        message_pairs, has_moved, moved_columns


def attach(results_cls, region_cls, lib, sig, check, p, all_ranks):
    """Adds the methods above to ProfilingResults and MPIRegion."""
    region_moved, region_bytes, comm_matrix, message_sizes, communicators, message_pairs, \
        has_moved, moved_columns = _bind(lib, sig, check, p, all_ranks)
    region_cls.moved = lambda self, rank=0: region_moved(self, rank)
    region_cls.bytes_sent = property(lambda self: region_bytes(self)[0],
                                     doc="bytes the region's calls sent, over the ranks")
    region_cls.bytes_received = property(lambda self: region_bytes(self)[1],
                                         doc="bytes the region's calls received, over the ranks")
    region_cls.bytes = lambda self, rank=all_ranks: region_bytes(self, rank)
    results_cls.comm_matrix = comm_matrix
    results_cls.message_sizes = message_sizes
    results_cls.message_pairs = message_pairs
    results_cls.communicators = communicators
    results_cls._has_moved = has_moved
    results_cls._moved_columns = moved_columns
