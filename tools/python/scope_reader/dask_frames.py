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
exactly as the C reader does for a region's calls on one rank (format/
scope_h5_read.h, scope_call_stats_of: mean = total / calls in double, then
a sequential sum of (duration - mean)^2 in call order); one last task then
combines the ranks of each region in ascending rank order with the C
reader's pairwise update (reader/profile_data.c, combine), vectorised
over every (region, rank) row (_combine). The same double operations in
the same order give the same bits as scope_profile_stats().
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


def _sequential_sums(x, lo, hi):
    """Per segment [lo[i], hi[i]) of x (float64, every segment non-empty),
    x[lo] + x[lo+1] + ... added one after the other, as C's loops add:
    np.add.reduce (and reduceat) add pairwise and round differently, so
    each sum is an add.accumulate of its segment, or, when the segments
    outnumber the longest one's length, the segments advance together one
    element a step. Python steps: min(segments, longest segment)."""
    count = hi - lo
    if len(lo) == 0:
        return np.zeros(0, np.float64)
    longest = int(count.max())
    if len(lo) <= longest:
        return np.array([np.add.accumulate(x[i:j])[-1]
                         for i, j in zip(lo.tolist(), hi.tolist())], dtype=np.float64)
    out = x[lo].astype(np.float64)
    for step in range(1, longest):
        more = np.flatnonzero(count > step)
        out[more] += x[lo[more] + step]
    return out


def _moments(paths, block, kw, names):
    """Per (region, rank) of one partition: name (code into names), rank,
    calls, total_ns, min_ns, max_ns, mean_ns and m2 (the sum of squared
    deviations), each as scope_call_stats_of computes it (runs on a
    worker). Cost: two passes over the durations; Python steps: see
    _sequential_sums."""
    import pandas as pd
    from scope_reader import read_h5
    with read_h5(paths) as res:
        a = res.event_arrays(ranks=list(block), columns=("region", "rank", "duration_ns"),
                             **kw)
        code = _codes(res, a["region"], names)
    rank, d = a["rank"], a["duration_ns"]
    n = len(d)
    cut = np.flatnonzero((code[1:] != code[:-1]) | (rank[1:] != rank[:-1])) + 1
    lo = np.concatenate(([0], cut)) if n else np.zeros(0, np.int64)
    hi = np.concatenate((cut, [n])) if n else np.zeros(0, np.int64)
    calls = (hi - lo).astype(np.int64)
    total = np.add.reduceat(d, lo) if n else np.zeros(0, np.int64)
    mean = total.astype(np.float64) / calls.astype(np.float64)
    sq = d.astype(np.float64) - np.repeat(mean, calls)
    sq *= sq
    m2 = _sequential_sums(sq, lo, hi)
    return pd.DataFrame({
        "name": code[lo].astype(np.int32), "rank": rank[lo].astype(np.int32), "calls": calls,
        "total_ns": total.astype(np.int64),
        "min_ns": np.minimum.reduceat(d, lo) if n else np.zeros(0, np.int64),
        "max_ns": np.maximum.reduceat(d, lo) if n else np.zeros(0, np.int64),
        "mean_ns": mean, "m2": m2})


def _combine(m):
    """Per name of the moments `m` (sorted by name then rank), the C
    reader's combine of its ranks in ascending rank order (reader/
    profile_data.c: after the first rank, m2 += m2_k + delta * delta * na
    * nb / n with na the calls so far, nb rank k's, n = na + nb, delta =
    mean_k - the mean so far, that mean = total / calls in double),
    vectorised: the totals and counts so far are exact integer cumulative
    sums, so every term is one numpy operation over all (name, rank) rows,
    the same double operations as C's in the same order; only the
    running sum of m2 is sequential (_sequential_sums). Returns (codes,
    calls, total, min, max, mean, std) arrays, one row per name."""
    code = m["name"].to_numpy()
    calls = m["calls"].to_numpy().astype(np.int64)
    total = m["total_ns"].to_numpy().astype(np.int64)
    n = len(code)
    lo = np.flatnonzero(np.concatenate(([True], code[1:] != code[:-1]))) if n \
        else np.zeros(0, np.int64)
    hi = np.concatenate((lo[1:], [n])).astype(np.int64)
    first = np.zeros(n, bool)
    first[lo] = True
    # calls and total of the same name's rows before each row
    start = np.repeat(lo, hi - lo)
    calls_before = np.cumsum(calls) - calls
    total_before = np.cumsum(total) - total
    calls_before -= calls_before[start]
    total_before -= total_before[start]
    na = calls_before.astype(np.float64)
    nb = calls.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):   # first rows: unused
        delta = m["mean_ns"].to_numpy() - total_before.astype(np.float64) / na
        term = m["m2"].to_numpy() + delta * delta * na * nb / (na + nb)
    term[first] = m["m2"].to_numpy()[first]
    m2 = _sequential_sums(term, lo, hi)
    calls_all = np.add.reduceat(calls, lo) if n else calls[:0]
    total_all = np.add.reduceat(total, lo) if n else total[:0]
    mean = total_all.astype(np.float64) / calls_all.astype(np.float64)
    std = np.sqrt(m2 / calls_all.astype(np.float64))
    mins = np.minimum.reduceat(m["min_ns"].to_numpy(), lo) if n else calls[:0]
    maxs = np.maximum.reduceat(m["max_ns"].to_numpy(), lo) if n else calls[:0]
    return code[lo], calls_all, total_all, mins, maxs, mean, std


def _summarize(parts, names, by):
    """The last task of dask_summary(): the partitions' moments, per
    (name, rank), or combined per name (_combine: numpy over every row,
    no Python step per (name, rank), so 100,000 ranks are one vector
    each)."""
    import pandas as pd
    m = pd.concat(parts, ignore_index=True).sort_values(["name", "rank"], kind="stable")
    label = np.array(names, dtype=object)
    if by == "rank":
        out = pd.DataFrame({
            "name": label[m["name"].to_numpy()], "rank": m["rank"].to_numpy()})
        for c in _STATS[:5]:
            out[c] = m[c].to_numpy()
        out["std_ns"] = np.sqrt(m["m2"].to_numpy() / m["calls"].to_numpy().astype(np.float64))
        return out.set_index(["name", "rank"])
    code, calls, total, mins, maxs, mean, std = _combine(m)
    return pd.DataFrame({
        "calls": calls.astype(np.int64), "total_ns": total.astype(np.int64),
        "min_ns": mins.astype(np.int64), "max_ns": maxs.astype(np.int64),
        "mean_ns": mean.astype(np.float64), "std_ns": std.astype(np.float64)},
        index=pd.Index(label[code].tolist(), name="name", dtype=object))


def dask_summary(res, by="region", compute=True, include=None, exclude=None, ranks=None,
                 relative=True, origin=None, window=None, ranks_per_partition=64,
                 partition_by="auto"):
    """ProfilingResults.dask_summary(): a task per partition, then one to
    combine; only the regions with a selected call appear (name order).
    Cost on the driver: the rank-to-file map; on the last task, numpy
    over the (region, rank) rows (_combine)."""
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
