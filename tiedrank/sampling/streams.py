"""Counter-based random numbers: one stream per (seed, query id), addressed by counter.

A sampler that draws from one shared generator gives a query different random numbers
depending on which other queries share the table (and on their order, and on how the work
is chunked). Here the random number number ``c`` of query ``q`` is a pure function

    u(seed, q, c) = splitmix64_finaliser(key(seed, q) + (c + 1) * golden) / 2**64

where ``key`` hashes the query *id* (not its index) with the seed. So a query's draws
depend only on the seed, its id and its own tie structure: adding, removing or
reordering queries, or changing the chunk size, leaves them unchanged. This is the
SplitMix64 generator (Steele, Lea & Flood 2014) run from a per-query state, evaluated
at arbitrary positions, vectorised with numpy's wrapping uint64 arithmetic; the finaliser
is :func:`tiedrank.core.hashing.finalize`, the same one the ``random`` tie policy uses.

Examples
--------
>>> import numpy as np
>>> keys = query_keys(np.array(["q1", "q2"], dtype=object), seed=7)
>>> u = uniforms(keys, np.arange(3, dtype=np.uint64)[:, None])
>>> u.shape, bool(((0 <= u) & (u < 1)).all())
((3, 2), True)
>>> again = query_keys(np.array(["q2"], dtype=object), seed=7)  # q2 alone: same stream
>>> bool(np.array_equal(uniforms(again, np.arange(3, dtype=np.uint64)[:, None])[:, 0], u[:, 1]))
True
"""
from __future__ import annotations

import numpy as np

from ..core.hashing import GOLDEN, finalize, hash_ids, mix64

_S11 = np.uint64(11)
_TO_UNIT = 2.0 ** -53


def query_keys(queries: np.ndarray, seed: int) -> np.ndarray:
    """The 64-bit stream key of every query id under ``seed`` (any integer; taken mod 2**64).

    Ids are hashed by :func:`tiedrank.core.hashing.hash_ids` (pandas' fixed-key SipHash, the ids
    as text), which is vectorised and the same on every platform and run.
    """
    ids = hash_ids(np.asarray(queries, dtype=object))
    seed_state = mix64(np.array([int(seed) % 2**64], dtype=np.uint64))
    return mix64(ids.astype(np.uint64) ^ seed_state)


def raw_bits(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """64 random bits at each (key, counter) (broadcast together)."""
    z = np.asarray(counters, dtype=np.uint64) + np.uint64(1)
    z *= GOLDEN
    return finalize(z + keys)  # (a new array of the broadcast shape)


def uniforms(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """Uniform floats in [0, 1) with 53 random bits, one per (key, counter)."""
    return (raw_bits(keys, counters) >> _S11).astype(np.float64) * _TO_UNIT
