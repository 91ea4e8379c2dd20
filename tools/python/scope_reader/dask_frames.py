"""scope_reader.dask_frames - a profile's events as a Dask DataFrame, for
runs whose events do not fit one machine's memory: ProfilingResults.to_dask(),
and the summary statistics and communication matrix computed the same way
(dask_summary(), dask_comm_matrix()).

Partitions. A multi-host run writes one file per host plus an index
(docs/format.md "The files of a run"). With host files (partition_by=
"auto"), each partition is one host file, which is all it opens; ranks in
rank files (or in one merged file, or when partition_by="ranks") are cut
into blocks of ranks_per_partition, each opening only the files of its
ranks. Whoever computes a partition (a thread, a process, a worker of a
`distributed` cluster) opens those files through the same C reader as
to_events_dataframe() and returns a pandas frame, so only the graph (file
paths, rank lists, the query) travels, and every worker needs the files at
the same absolute path (a shared file system, as an MPI run's output
usually is). Relative times use the whole profile's origin, handed to each
partition in nanoseconds, so a partition's rows equal the single-machine
frame's whatever files it opened. The profile is opened once here, for the
files of the ranks, the region names and the empty frame that tells Dask
the columns and dtypes (`meta`).

Categories: every partition's `name` has every region's name of the
profile, sorted, so the partitions agree and Dask knows them; group with
observed=True to leave out regions a selection has no call of.

Summaries. dask_summary() has each partition compute, per (region, rank),
the count, int64 total, min, max, mean and the sum of squared deviations
by the C reader's own function (scope_moments_of: what it computes for a
region's calls on one rank); one last task then combines the ranks of
each region in ascending rank order by the reader's own combination
(scope_moments_combine: the update scope_profile_stats() makes). So the
numbers are scope_profile_stats()'s, bit for bit, with no copy of C's
arithmetic here.
dask_comm_matrix() has each partition list its senders' (receiver,
messages, bytes) (message_pairs()); a sender is in one partition only, so
the last task only concatenates.

On a cluster (distributed):

    from distributed import Client
    client = Client("tcp://scheduler-host:8786")   # the scheduler's address
    res = read_h5("/shared/run/scope_profile.h5")
    frame = res.to_dask()
    frame.groupby("name", observed=True)["duration"].sum().compute()
    res.dask_summary()                 # per region, as `scope summary`
    res.dask_comm_matrix()             # sender, receiver, messages, bytes
"""
import os

import numpy as np

PARTITION_BY = ("auto", "ranks")
_STATS = ("calls", "total_ns", "min_ns", "max_ns", "mean_ns", "std_ns")


def _plan(res, chosen, per, partition_by):
    """[(paths, ranks)] of the partitions, by lowest rank: a host file (a
    file of several of the profile's ranks, in a profile of several
    files) per partition with "auto"; the other ranks in blocks of `per`,
    each with the files of its ranks. Paths are absolute."""
    holder = {k: os.path.abspath(res.rank_file(k)) for k in res.ranks}
    files = {}
    for k in res.ranks:
        files.setdefault(holder[k], []).append(k)
    shared = set()
    if partition_by == "auto" and len(files) > 1:
        shared = {f for f, ks in files.items() if len(ks) > 1}
    selected = set(chosen)
    parts = []
    for f in shared:
        ks = tuple(k for k in files[f] if k in selected)
        if ks:
            parts.append(([f], ks))
    rest = [k for k in chosen if holder[k] not in shared]
    for i in range(0, len(rest), per):
        block = tuple(rest[i:i + per])
        parts.append((list(dict.fromkeys(holder[k] for k in block)), block))
    parts.sort(key=lambda part: part[1][0])
    if not parts:   # nothing selected: one empty partition
        first = holder[res.ranks[0]] if res.ranks else None
        parts = [([first] if first else _absolute(res.file_path), ())]
    return parts


def _absolute(path):
    if isinstance(path, list):
        return [os.path.abspath(os.fsdecode(p)) for p in path]
    return [os.path.abspath(os.fsdecode(path))]


def _setup(res, include, exclude, ranks, relative, origin, window, ranks_per_partition,
           partition_by):
    """(partitions, event_arrays keywords, every region name sorted)."""
    if ranks_per_partition < 1:
        raise ValueError("ranks_per_partition must be >= 1")
    if partition_by not in PARTITION_BY:
        raise ValueError("partition_by must be one of %s, not %r" % (PARTITION_BY, partition_by))
    if ranks is None:
        chosen = res.ranks
    else:
        chosen = sorted(set([ranks] if isinstance(ranks, int) else ranks))
        unknown = sorted(set(chosen) - set(res.ranks))
        if unknown:
            raise ValueError("%s: no rank(s) %s" % (res.file_path, unknown))
    kw = dict(include=include, exclude=exclude, relative=relative, origin=origin,
              window=window)
    if relative and origin is None and res.time_origin_ns is not None:
        kw["origin_ns"] = res.time_origin_ns    # the whole profile's zero
    return _plan(res, chosen, ranks_per_partition, partition_by), kw, sorted(res.region_names)


def _codes(res, region, names):
    """Codes into `names` (every region's name of the whole profile,
    sorted) of this opened part's region indices."""
    where = {n: i for i, n in enumerate(names)}
    local = np.array([where[n] for n in res.region_names] or [0], dtype=np.int32)
    return local[region]


def _partition(paths, block, kw, names, cols):
    """One partition of to_dask(): the frame of the ranks in `block` (runs
    on a worker)."""
    import pandas as pd
    from scope_reader import read_h5, _split_moved
    arrays, moved, _ = _split_moved(cols)
    with read_h5(paths) as res:
        a = res.event_arrays(ranks=list(block), columns=("region",) + arrays, **kw)
        if moved:
            a.update(res._moved_columns(a["region"], a["rank"], a["call_index"], moved))
        code = _codes(res, a.pop("region"), names)
    small = np.int8 if len(names) < 127 else np.int16 if len(names) < 32767 else np.int32
    out = {"name": pd.Categorical.from_codes(code.astype(small), names)}
    out.update((c, a[c]) for c in cols)
    return pd.DataFrame(out, copy=False)


def to_dask(res, include=None, exclude=None, ranks=None, relative=True, origin=None,
            window=None, columns=None, ranks_per_partition=64, partition_by="auto"):
    """ProfilingResults.to_dask(): a dask.dataframe.DataFrame, partitioned
    as the module says, read lazily. Cost here: one empty read for the
    meta and the rank-to-file map; nothing else until computed."""
    import dask.dataframe as dd
    parts, kw, names = _setup(res, include, exclude, ranks, relative, origin, window,
                              ranks_per_partition, partition_by)
    cols = res._frame_columns(columns)
    meta = res.to_events_dataframe(ranks=[], every_name=True, include=include,
                                   exclude=exclude, relative=relative, origin=origin,
                                   window=window, columns=cols)
    n = len(parts)
    return dd.from_map(_partition, [p for p, _ in parts], [b for _, b in parts], [kw] * n,
                       [names] * n, [cols] * n, meta=meta, label="scope-events",
                       enforce_metadata=False)


def _moments(paths, block, kw, names):
    """Per (region, rank) of one partition: name (code into names), rank,
    calls, total_ns, min_ns, max_ns, mean_ns and m2 (the sum of squared
    deviations), by the C reader (scope_moments_of; runs on a worker).
    Cost: two passes over the durations, in C."""
    import pandas as pd
    from scope_reader import _segment_moments, read_h5
    with read_h5(paths) as res:
        a = res.event_arrays(ranks=list(block), columns=("region", "rank", "duration_ns"),
                             **kw)
        code = _codes(res, a["region"], names)
    rank, d = a["rank"], a["duration_ns"]
    n = len(d)
    cut = np.flatnonzero((code[1:] != code[:-1]) | (rank[1:] != rank[:-1])) + 1
    lo = np.concatenate(([0], cut)) if n else np.zeros(0, np.int64)
    hi = np.concatenate((cut, [n])) if n else np.zeros(0, np.int64)
    m = _segment_moments(d, lo, hi)
    return pd.DataFrame(dict({"name": code[lo].astype(np.int32),
                              "rank": rank[lo].astype(np.int32)}, **m))


def _combine(m, per_rank=False):
    """Per name of the moments `m` (sorted by name then rank), the C
    reader's combination of its ranks in ascending rank order
    (scope_moments_combine); per_rank: each row alone (a region on one
    rank). Returns (rows: the first row of each group, stats: a record
    array of scope_stats, one per group)."""
    from scope_reader import _combined_stats
    code = m["name"].to_numpy()
    n = len(code)
    if per_rank:
        lo = np.arange(n, dtype=np.int64)
    else:
        lo = np.flatnonzero(np.concatenate(([True], code[1:] != code[:-1]))) if n \
            else np.zeros(0, np.int64)
    hi = np.concatenate((lo[1:], [n])).astype(np.int64)
    return lo, _combined_stats({c: m[c].to_numpy() for c in
                                ("calls", "total_ns", "min_ns", "max_ns", "mean_ns", "m2")},
                               lo, hi)


def _summarize(parts, names, by):
    """The last task of dask_summary(): the partitions' moments, per
    (name, rank), or combined per name (_combine: one C call over every
    row, no Python step per (name, rank))."""
    import pandas as pd
    m = pd.concat(parts, ignore_index=True).sort_values(["name", "rank"], kind="stable")
    label = np.array(names, dtype=object)
    rows, st = _combine(m, per_rank=by == "rank")
    code = m["name"].to_numpy()[rows]
    if by == "rank":
        out = pd.DataFrame({"name": label[code], "rank": m["rank"].to_numpy()[rows]})
        for c in _STATS:
            out[c] = st[c]
        return out.set_index(["name", "rank"])
    return pd.DataFrame({c: st[c] for c in _STATS},
                        index=pd.Index(label[code].tolist(), name="name", dtype=object))


def dask_summary(res, by="region", compute=True, include=None, exclude=None, ranks=None,
                 relative=True, origin=None, window=None, ranks_per_partition=64,
                 partition_by="auto"):
    """ProfilingResults.dask_summary(): a task per partition, then one to
    combine; only the regions with a selected call appear (name order).
    Cost on the driver: the rank-to-file map; on the last task, one C
    pass over the (region, rank) rows (_combine)."""
    import dask
    if by not in ("region", "rank"):
        raise ValueError("by must be 'region' or 'rank', not %r" % (by,))
    parts, kw, names = _setup(res, include, exclude, ranks, relative, origin, window,
                              ranks_per_partition, partition_by)
    moments = [dask.delayed(_moments, pure=True)(p, b, kw, names) for p, b in parts]
    out = dask.delayed(_summarize, pure=True)(moments, names, by)
    return out.compute() if compute else out


def _pairs(paths, block, region):
    """One partition of dask_comm_matrix(): message_pairs() of its senders."""
    import pandas as pd
    from scope_reader import read_h5
    with read_h5(paths) as res:
        if region is not None and region not in res:
            return pd.DataFrame({"sender": np.zeros(0, np.int32),
                                 "receiver": np.zeros(0, np.int32),
                                 "messages": np.zeros(0, np.int64),
                                 "bytes": np.zeros(0, np.int64)})
        return pd.DataFrame(res.message_pairs(region=region, ranks=list(block)))


def _concat_pairs(parts):
    import pandas as pd
    out = pd.concat(parts, ignore_index=True)
    return out.sort_values(["sender", "receiver"], kind="stable").reset_index(drop=True)


def dask_comm_matrix(res, region=None, compute=True, ranks=None, ranks_per_partition=64,
                     partition_by="auto"):
    """ProfilingResults.dask_comm_matrix(): a task per partition, then one
    to concatenate. Cost on the driver: the rank-to-file map."""
    import dask
    if region is not None:
        res[region]     # KeyError here, not on a worker
    parts, _, _ = _setup(res, None, None, ranks, True, None, None, ranks_per_partition,
                         partition_by)
    pairs = [dask.delayed(_pairs, pure=True)(p, b, region) for p, b in parts]
    out = dask.delayed(_concat_pairs, pure=True)(pairs)
    return out.compute() if compute else out


def _io_partition(paths, block, layer, origin_ns):
    """One partition of dask_io(): io() of the ranks in `block` (runs on a
    worker)."""
    from scope_reader import read_h5
    with read_h5(paths) as res:
        return res.io(layer=layer, ranks=list(block), origin_ns=origin_ns)


def dask_io(res, layer=None, ranks=None, per=64, partition_by="auto"):
    """ProfilingResults.dask_io(): io()'s rows as a dask.dataframe.DataFrame,
    partitioned as to_dask() partitions events, read lazily; the times
    from the whole profile's origin. Cost here: the meta (io() of no
    rank... of the first partition's first rank, emptied)."""
    import dask.dataframe as dd
    parts, _, _ = _setup(res, None, None, ranks, True, None, None, per, partition_by)
    origin = res.time_origin_ns or 0
    meta = res.io(layer=layer, ranks=res.ranks[:1], origin_ns=origin).iloc[:0]
    n = len(parts)
    return dd.from_map(_io_partition, [p for p, _ in parts], [b for _, b in parts],
                       [layer] * n, [origin] * n, meta=meta, label="scope-io",
                       enforce_metadata=False)

