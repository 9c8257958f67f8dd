"""Where a group's marked documents land under a uniform permutation of the group.

Two exact samplers of the slots (1-based) that m marked documents take among n slots,
both vectorised over (draws, groups); each marked document gets a uniformly random slot,
all distinct (a uniform injection), so a sorted result is a uniform m-subset:

* :func:`sequential_slots` — sampling without replacement, one marked document at a time:
  document j takes the x-th still-free slot, x uniform in [0, n - j); the free slot is
  found by one ascending pass over the slots already taken. O(m^2) per group and draw,
  independent of n: the choice for a few relevant documents in a large group.
* :func:`key_slots` — random keys: every one of the n documents gets 64 random bits and
  its slot is its key's rank. O(n log n): the choice when m is large relative to n.

Examples
--------
>>> import numpy as np
>>> u = np.array([[[0.0, 0.0], [0.99, 0.99]]])   # 1 draw, 2 groups of n = 3, m = 2
>>> slots, ordered = sequential_slots(lambda j: u[..., j], np.array([3, 3]), 2)
>>> np.stack(slots, axis=-1).tolist(), np.stack(ordered, axis=-1).tolist()   # 0-based
([[[0, 1], [2, 1]]], [[[0, 1], [1, 2]]])
"""
from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import numpy as np

SEQUENTIAL_MAX_MARKS = 48
"""Above this many marked documents a group always takes the random-key sampler."""


def use_sequential(marks: np.ndarray, size: np.ndarray) -> np.ndarray:
    """True where :func:`sequential_slots` is the cheaper exact sampler (m^2 work vs n log n)."""
    return (marks <= SEQUENTIAL_MAX_MARKS) & (marks * marks <= 16 * size)


def sequential_slots(uniform_at: Callable[[int], np.ndarray], size: np.ndarray,
                     marks: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Slots of ``marks`` marked documents per group, one uniform each.

    Parameters
    ----------
    uniform_at : callable
        ``uniform_at(j)`` returns the uniforms in [0, 1) of shape (draws, groups) that
        place marked document j.
    size : int array (groups,)
        n of each group (n >= marks).
    marks : int
        m, the same for every group.

    Returns
    -------
    slots, sorted_slots : lists of m int arrays (draws, groups)
        0-based slot of each marked document (in document order), and the same sorted
        (``sorted_slots[i]`` is the i-th smallest).
    """
    taken: list[np.ndarray] = []  # slots already taken, ascending, one (draws, groups) array each
    slots = []
    for j in range(marks):
        x = (uniform_at(j) * (size - j)).astype(np.int64)  # index among free slots (floor)
        for t in taken:  # ascending pass: each taken slot at or below x pushes x up
            x += x >= t
        slots.append(x)
        if taken:  # merge x into the ascending list: new_i = max(t_{i-1}, min(t_i, x))
            merged = [np.minimum(taken[0], x)]
            merged += [np.maximum(low, np.minimum(high, x)) for low, high in pairwise(taken)]
            taken = merged + [np.maximum(taken[-1], x)]
        else:
            taken = [x]
    return slots, taken


def key_slots(bits: np.ndarray, marks: int) -> np.ndarray:
    """Slots of documents 0..marks-1 of each group from one 64-bit key per document.

    Parameters
    ----------
    bits : uint64 array (draws, groups, n)
        Independent random keys of the n documents of each group (all groups of one n).
    marks : int
        How many leading documents to place (the marked ones; documents are exchangeable,
        so the marked documents may be taken to be the first ones).

    Returns
    -------
    int array (draws, groups, marks)
        1-based slot (rank of the key) of each of the first ``marks`` documents. Keys tie
        with probability below n^2 / 2^65, far below any sampling error.
    """
    order = np.argsort(bits, axis=-1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(bits.shape[-1], dtype=np.int64), axis=-1)
    return rank[..., :marks] + 1
