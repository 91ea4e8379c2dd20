"""scope_reader.dicts - what events() and call_stack() return: a read-only
sequence of the seed's per-call dicts, made from the numpy columns only
when they are asked for (issue 30).

A list of 5 M dicts is about 2.5 GB that this VM zeroes at ~2.7 s/GB
before the first dict is made; iterating a CallDicts makes one dict at a
time (the compiled helper _rows.Table, else Python batches), so a loop that
does not keep them reuses the memory of the ones before. What a list gave
that a sequence gives too: len(), indexing (negative too), slices (a
CallDicts over the same columns, no copy), iteration, reversed(), `in`,
index(), count(), == against a list, + with a list, repr (the list's, for
up to REPR_ROWS rows), pickling (as the list). What it does not: item
assignment, append, sort, or json.dumps: list(calls) makes the list. Each
indexing makes a new dict: changing it does not change the sequence.
"""
from collections.abc import Sequence

import numpy as np

# up to this many rows, repr() is the list's; past it, the first and last
# few rows and the count
REPR_ROWS = 100


class PyTable:
    """_rows.Table's interface made in Python: keys, and per key a column
    (a numpy array, a (names list, int32 indices) tuple, or one value for
    every row). batch: rows per batch, which bounds the temporary lists
    (one per column per batch)."""

    def __init__(self, keys, columns, batch):
        self.batch = batch
        self.keys = tuple(keys)
        self.columns = list(columns)
        lengths = [len(c[1]) if isinstance(c, tuple) else len(c)
                   for c in self.columns if isinstance(c, (tuple, np.ndarray))]
        self.n = lengths[0] if lengths else 0

    def __len__(self):
        return self.n

    def _lists(self, rows):
        """Per key, the values of `rows` (a slice or index array) as a list."""
        out = []
        for c in self.columns:
            if isinstance(c, tuple):
                names = np.array(c[0], dtype=object)
                out.append(names[c[1][rows]].tolist())
            elif isinstance(c, np.ndarray):
                out.append(c[rows].tolist())
            else:
                out.append(None)
        return out

    def _batch(self, rows, count):
        cols = self._lists(rows)
        consts = [(j, c) for j, c in enumerate(self.columns)
                  if not isinstance(c, (tuple, np.ndarray))]
        for j, c in consts:
            cols[j] = [c] * count
        keys = self.keys
        return [dict(zip(keys, vals)) for vals in zip(*cols)]

    def row(self, i):
        if not 0 <= i < self.n:
            raise IndexError("row %d of %d" % (i, self.n))
        return self._batch(slice(i, i + 1), 1)[0]

    def iter(self, start, stop, step):
        r = range(start, stop, step)
        for lo in range(0, len(r), self.batch):
            part = r[lo:lo + self.batch]
            yield from self._batch(slice(part.start, part.stop if part.stop >= 0 else None,
                                         part.step), len(part))

    def list(self, start, stop, step):
        return list(self.iter(start, stop, step))


def table(keys, columns, rows_module, batch):
    """The compiled table when _rows is loaded, else the Python one."""
    if rows_module is not None:
        return rows_module.Table(tuple(keys), list(columns))
    return PyTable(keys, columns, batch)


class CallDicts(Sequence):
    """One dict per call, made when asked for (see the module's doc).
    `arrays`: {key: numpy column} for the columns that are plain arrays,
    for the fast paths of call_stack_roots() / call_stack_children()."""

    __slots__ = ("_table", "_range", "_arrays")
    __hash__ = None

    def __init__(self, table_, rows=None, arrays=None):
        self._table = table_
        self._range = range(len(table_)) if rows is None else rows
        self._arrays = arrays or {}

    def __len__(self):
        return len(self._range)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return CallDicts(self._table, self._range[i], self._arrays)
        return self._table.row(self._range[i])

    def __iter__(self):
        r = self._range
        return iter(self._table.iter(r.start, r.stop, r.step))

    def __reversed__(self):
        r = self._range[::-1]
        return iter(self._table.iter(r.start, r.stop, r.step))

    def whole(self):
        """True when this covers every row of its columns (not a slice)."""
        return self._range == range(len(self._table))

    def column(self, key):
        """The numpy column behind `key` over these rows, or None."""
        a = self._arrays.get(key)
        if a is None:
            return None
        r = self._range
        return a[r.start:r.stop if r.stop >= 0 else None:r.step]

    def __eq__(self, other):
        if isinstance(other, (list, CallDicts)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __add__(self, other):
        if isinstance(other, (list, CallDicts)):
            return list(self) + list(other)
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, list):
            return other + list(self)
        return NotImplemented

    def __reduce__(self):
        return (list, (list(self),))

    def __repr__(self):
        n = len(self)
        if n <= REPR_ROWS:
            return repr(self._table.list(self._range.start, self._range.stop,
                                         self._range.step))
        head = ", ".join(repr(self[i]) for i in range(3))
        tail = ", ".join(repr(self[i]) for i in range(n - 3, n))
        return "[%s, ..., %s] (%d dicts; list() makes them all)" % (head, tail, n)
