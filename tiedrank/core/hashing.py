"""Stable 64-bit hashes of ids: the same bits in every process, on every machine.

Two jobs need a hash that depends on an id's text alone, never on the layout of the data
(file order, the other queries in a table, the process):

* the ``random`` tie policy keys each document by (seed, run, query, doc), so a query's
  random order is the same whatever else is in the table (:mod:`tiedrank.core.ties`);
* out-of-core and Dask evaluation put every query in the bucket ``hash(query) % N``
  (:mod:`tiedrank.distributed`), so runs and qrels split the same way.

Python's ``hash`` of a str is salted per process (``PYTHONHASHSEED``), so it cannot serve.
:func:`hash_ids` uses pandas' SipHash-2-4 with a fixed key (``pandas.util.hash_array``,
UTF-8), and :func:`mix` is the splitmix64 finaliser (Steele, Lea & Flood 2014), which
spreads combined words over all 64 bits. :func:`finalize` is the one implementation of
that finaliser in tiedrank: the ``random`` tie policy, the buckets, the samplers' random
streams (:mod:`tiedrank.sampling.streams`) and the duplicate check's string hash
(:mod:`tiedrank.io.duplicates`) all use it, with the constants defined here.

Examples
--------
>>> import numpy as np
>>> h = hash_ids(np.array(["q1", "q2", "q1"], dtype=object))
>>> bool(h[0] == h[2]), bool(h[0] != h[1])
(True, True)
>>> int(hash_ids(np.array(["q1"], dtype=object))[0])  # fixed: the same in any process
3076568338158756072
"""
from __future__ import annotations

import numpy as np
import pandas as pd

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
"""2**64 / golden ratio, odd: splitmix64's increment (Weyl sequence step)."""
M2 = np.uint64(0xBF58476D1CE4E5B9)
"""splitmix64's first multiplier (also a multiplier of :mod:`tiedrank.io.duplicates`)."""
M3 = np.uint64(0x94D049BB133111EB)
"""splitmix64's second multiplier (also a multiplier of :mod:`tiedrank.io.duplicates`)."""
_S30, _S27, _S31 = (np.uint64(s) for s in (30, 27, 31))


def finalize(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, **in place** on a uint64 array (returned): the one
    implementation of the mixer; :func:`mix`, :func:`mix64`, the samplers' streams
    (:mod:`tiedrank.sampling.streams`) and the duplicate check's hash all call it. In place,
    so that no array the size of ``z`` is made but the shifted temporaries (hashing 7M ids
    with copies made twenty)."""
    with np.errstate(over="ignore"):
        z ^= z >> _S30
        z *= M2
        z ^= z >> _S27
        z *= M3
        z ^= z >> _S31
    return z


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (a bijection of uint64 with full avalanche) of a copy of ``z``."""
    return finalize(np.array(z, dtype=np.uint64, copy=True))


def mix(x: np.ndarray | np.uint64) -> np.ndarray:
    """The splitmix64 finaliser of ``x + golden ratio`` (uint64 in, uint64 out, wrapping)."""
    with np.errstate(over="ignore"):
        return finalize(np.asarray(x, dtype=np.uint64) + GOLDEN)


def hash_ids(ids: np.ndarray) -> np.ndarray:
    """A stable uint64 hash of each id (str ids as UTF-8 text; integer ids by value)."""
    ids = np.asarray(ids)
    if ids.dtype.kind in "US":
        ids = ids.astype(object)
    if len(ids) == 0:
        return np.zeros(0, dtype=np.uint64)
    return pd.util.hash_array(ids, categorize=True)


def seed_word(seed: int) -> np.uint64:
    """A well-mixed uint64 for an integer seed (negative and big seeds included)."""
    return np.uint64(int(mix(np.uint64(int(seed) % (1 << 64)))))


def bucket_of(ids: np.ndarray, n_buckets: int) -> np.ndarray:
    """The bucket (0..n_buckets-1) of each id: ``mix(hash_ids(id)) % n_buckets``.

    Examples
    --------
    >>> bucket_of(np.array(["301", "302", "303", "304", "301"], dtype=object), 4).tolist()
    [2, 2, 1, 0, 2]
    """
    return bucket_of_hashes(hash_ids(ids), n_buckets)


def bucket_of_hashes(hashes: np.ndarray, n_buckets: int) -> np.ndarray:
    """The bucket of each id from its :func:`hash_ids` hash: ``mix(hash) % n_buckets`` (for
    a caller that keeps the hashes for another use, so the ids are hashed once).

    Examples
    --------
    >>> ids = np.array(["301", "302", "303", "304", "301"], dtype=object)
    >>> bucket_of_hashes(hash_ids(ids), 4).tolist() == bucket_of(ids, 4).tolist()
    True
    """
    if n_buckets < 1:
        raise ValueError(f"n_buckets must be >= 1, got {n_buckets!r}")
    return (mix(hashes) % np.uint64(n_buckets)).astype(np.int64)
