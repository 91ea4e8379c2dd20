"""scope_reader.dask_frames - a profile's events as a Dask DataFrame, for
runs whose events do not fit one machine's memory: ProfilingResults.to_dask().

Each partition is a block of ranks read by whoever computes it (a thread,
a process, a worker of a `distributed` cluster) through the same C reader
as to_events_dataframe(): the partition opens the profile's path(s) again,
selects its ranks, and returns a pandas frame, so only the graph (paths,
rank lists, the query) travels to the workers, and every worker needs the
files at the same path (a shared file system, as an MPI run's output
usually is). The profile is opened once here, for the rank list and the
empty frame that tells Dask the columns and dtypes (`meta`).

Categories: every partition's `name` has every region's name of the
profile, sorted, so the partitions agree and Dask knows them; group with
observed=True to leave out regions a selection has no call of.

On a cluster (distributed):

    from distributed import Client
    client = Client("tcp://scheduler-host:8786")   # the scheduler's address
    frame = read_h5("/shared/run/scope_profile.h5").to_dask()
    frame.groupby("name", observed=True)["duration"].sum().compute()
"""
import os


def _partition(paths, block, kw):
    """One partition: the events of the ranks in `block` (runs on a worker)."""
    from scope_reader import read_h5
    with read_h5(paths) as res:
        return res.to_events_dataframe(ranks=list(block), every_name=True, **kw)


def _absolute(path):
    if isinstance(path, list):
        return [os.path.abspath(os.fsdecode(p)) for p in path]
    return os.path.abspath(os.fsdecode(path))


def to_dask(res, include=None, exclude=None, ranks=None, relative=True, origin=None,
            window=None, columns=None, ranks_per_partition=64):
    """ProfilingResults.to_dask(): a dask.dataframe.DataFrame, one partition
    per block of ranks_per_partition of the selected ranks (ascending), read
    lazily. relative=True times are relative to the whole profile's origin
    in every partition (each opens the whole profile). Cost here: one empty
    read for the meta; nothing else until computed."""
    import dask.dataframe as dd
    if ranks_per_partition < 1:
        raise ValueError("ranks_per_partition must be >= 1")
    if ranks is None:
        chosen = res.ranks
    else:
        chosen = sorted(set([ranks] if isinstance(ranks, int) else ranks))
        unknown = sorted(set(chosen) - set(res.ranks))
        if unknown:
            raise ValueError("%s: no rank(s) %s" % (res.file_path, unknown))
    kw = dict(include=include, exclude=exclude, relative=relative, origin=origin,
              window=window, columns=columns)
    meta = res.to_events_dataframe(ranks=[], every_name=True, **kw)
    blocks = [tuple(chosen[i:i + ranks_per_partition])
              for i in range(0, len(chosen), ranks_per_partition)] or [()]
    paths = _absolute(res.file_path)
    return dd.from_map(_partition, [paths] * len(blocks), blocks, [kw] * len(blocks),
                       meta=meta, label="scope-events", enforce_metadata=False)
