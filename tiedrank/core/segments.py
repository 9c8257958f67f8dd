"""Segment operations over the tie-group table's CSR layout (``starts``: the first index of
each segment, ascending): sums, counts and running sums that restart at each segment, so a
query's values never depend on the queries stored before it (layout independence)."""
from __future__ import annotations

import numpy as np


def segment_sum(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over the segments beginning at ``starts`` (empty-safe reduceat)."""
    if len(starts) == 0:
        return np.zeros(0, dtype=values.dtype)
    return np.add.reduceat(values, starts)


def segment_cumsum(values: np.ndarray, starts: np.ndarray, *, exclusive: bool = False,
                   dtype: "np.dtype | type | None" = None) -> np.ndarray:
    """Running sum of ``values`` restarted at each segment (``starts``: the first index of
    each segment, ascending, ``starts[0] == 0``), inclusive or ``exclusive`` (the sum of the
    elements before, 0 at a segment's start).

    Each segment is summed on its own, left to right, from 0: its bits are those of
    ``np.cumsum`` of the segment alone, whatever the segments before it (one whole-array
    cumulative sum minus each segment's offset would carry the rounding of every earlier
    segment into it). Integers take that one cumulative sum (exact); floats are laid out
    one segment a row in arrays of rows of equal power-of-two width (at most twice the
    values) and summed along the rows, one array per width.

    Examples
    --------
    >>> segment_cumsum(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([0, 2]))
    array([ 1.,  3.,  3.,  7., 12.])
    >>> segment_cumsum(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([0, 2]), exclusive=True)
    array([0., 1., 0., 3., 7.])
    """
    dtype = np.dtype(values.dtype if dtype is None else dtype)
    n = len(values)
    lengths = np.diff(np.append(starts, n)).astype(np.int64)
    if np.issubdtype(dtype, np.integer):  # exact: one cumulative sum, offsets taken away
        running = np.concatenate(([0], np.cumsum(values, dtype=dtype)))
        out = running[1:] - np.repeat(running[starts], lengths)
        return out - values if exclusive else out
    out = np.zeros(n, dtype=dtype)
    width_class = np.zeros(len(lengths), dtype=np.int64)
    width_class[lengths > 0] = np.ceil(np.log2(lengths[lengths > 0])).astype(np.int64)
    for width in np.unique(width_class[lengths > 0]):
        rows = np.flatnonzero((width_class == width) & (lengths > 0))
        column = np.arange(1 << int(width))
        inside = column < lengths[rows, None]
        at = (starts[rows, None] + column)[inside]
        block = np.zeros(inside.shape, dtype=dtype)
        block[inside] = values[at]
        running = np.cumsum(block, axis=1, dtype=dtype)  # row by row, left to right
        if exclusive:
            running = np.concatenate((np.zeros((len(rows), 1), dtype=dtype), running[:, :-1]),
                                     axis=1)
        out[at] = running[inside]
    return out


def segment_count(flags: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Number of true ``flags`` in each CSR segment ``starts[i]:starts[i + 1]``."""
    running = np.concatenate(([0], np.cumsum(flags, dtype=np.int64)))
    return running[starts[1:]] - running[starts[:-1]]
