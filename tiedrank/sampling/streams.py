"""Counter-based random numbers: one stream per (seed, query id), addressed by counter.

A sampler that draws from one shared generator gives a query different random numbers
depending on which other queries share the table (and on their order, and on how the work
is chunked). Here the random number number ``c`` of query ``q`` is a pure function

    u(seed, q, c) = splitmix64_finaliser(key(seed, q) + (c + 1) * golden) / 2**64

where ``key`` hashes the query *id* (not its index) with the seed. So a query's draws
depend only on the seed, its id and its own tie structure: adding, removing or
reordering queries, or changing the chunk size, leaves them unchanged. This is the
SplitMix64 generator (Steele, Lea & Flood 2014) run from a per-query state, evaluated
at arbitrary positions, vectorised with numpy's wrapping uint64 arithmetic.

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
import pandas as pd

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = (np.uint64(s) for s in (30, 27, 31, 11))
_TO_UNIT = 2.0 ** -53


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (a bijection of uint64 with full avalanche) of a copy of ``z``."""
    return _mix_in_place(np.array(z, dtype=np.uint64, copy=True))


def _mix_in_place(z: np.ndarray) -> np.ndarray:
    z ^= z >> _S30
    z *= _MIX_1
    z ^= z >> _S27
    z *= _MIX_2
    z ^= z >> _S31
    return z


def query_keys(queries: np.ndarray, seed: int) -> np.ndarray:
    """The 64-bit stream key of every query id under ``seed`` (any integer; taken mod 2**64).

    Ids are hashed by pandas' fixed-key SipHash (:func:`pandas.util.hash_array`), which
    is vectorised and the same on every platform and run.
    """
    ids = pd.util.hash_array(np.asarray(queries, dtype=object), categorize=False)
    seed_state = mix64(np.array([int(seed) % 2**64], dtype=np.uint64))
    return mix64(ids.astype(np.uint64) ^ seed_state)


def raw_bits(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """64 random bits at each (key, counter) (broadcast together)."""
    z = np.asarray(counters, dtype=np.uint64) + np.uint64(1)
    z *= _GOLDEN
    return _mix_in_place(z + keys)  # (a new array of the broadcast shape)


def uniforms(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """Uniform floats in [0, 1) with 53 random bits, one per (key, counter)."""
    return (raw_bits(keys, counters) >> _S11).astype(np.float64) * _TO_UNIT
