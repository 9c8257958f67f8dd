"""A cache shared by every dashboard session, bounded by memory and by age.

Streamlit's ``st.cache_resource`` bounds a cache by its number of entries only, so ten
uploads of 10M rows fill the server as easily as ten toy files. :class:`MemoryBoundedCache`
charges every entry its measured size (numpy buffers, pandas frames with their object
columns, containers and dataclasses walked) against one byte budget shared by all the
dashboard's caches, evicts the least recently used entries first, and drops entries
older than their time to live. An entry larger than the whole budget is computed but
not kept, so one huge upload cannot push everyone else out for nothing. A key is computed
once at a time: sessions asking for a key that another session is computing wait for its
result instead of computing it again (ten sessions opening the same page of a fresh server
cost one computation, not ten competing for two cores).

The module is Streamlit-free (it is tested without a server); ``tiedrank.dashboard.ui``
wraps its functions with it.

Examples
--------
>>> import numpy as np
>>> cache = MemoryBoundedCache(budget_bytes=10_000, ttl_seconds=60)
>>> first = cache.get_or_compute(("a",), lambda: np.zeros(500))    # 4,000 bytes, kept
>>> second = cache.get_or_compute(("b",), lambda: np.zeros(1_000))  # 8,000 bytes: "a" is evicted
>>> sorted(key for key, in cache.keys()), cache.used_bytes
(['b'], 8000)
>>> _ = cache.get_or_compute(("c",), lambda: np.zeros(5_000))      # larger than the budget
>>> sorted(key for key, in cache.keys())
['b']
"""
from __future__ import annotations

import dataclasses
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

DEFAULT_BUDGET_MB = 1024
"""Default byte budget (MiB) of all dashboard caches together; ``TIEDRANK_CACHE_MB`` sets it."""
DEFAULT_TTL_SECONDS = 2 * 3600


def size_of(value: Any, _seen: set[int] | None = None, _depth: int = 0, _arrays: set[int] | None = None) -> int:
    """Bytes held by ``value``: array buffers, frames (deep), containers, dataclasses.

    Objects reached twice (a tie table shared by two results) count once; ids in ``_seen``
    count nothing; ``_arrays`` collects the ids of the arrays counted.

    >>> size_of(np.zeros(10)) >= 80
    True
    """
    seen = set() if _seen is None else _seen
    if id(value) in seen or _depth > 6:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        base = value.base if isinstance(value.base, np.ndarray) else None
        if _arrays is not None:
            _arrays.add(id(value))
        return 0 if base is not None and id(base) in seen else int(value.nbytes)
    if isinstance(value, (pd.DataFrame, pd.Series, pd.Index)):
        usage = value.memory_usage(deep=True)
        return int(usage.sum() if hasattr(usage, "sum") else usage)
    if isinstance(value, (str, bytes, bytearray)):
        return sys.getsizeof(value)
    if isinstance(value, Mapping):
        return sys.getsizeof(value) + sum(size_of(k, seen, _depth + 1, _arrays) + size_of(v, seen, _depth + 1, _arrays)
                                          for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sys.getsizeof(value) + sum(size_of(v, seen, _depth + 1, _arrays) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sys.getsizeof(value) + sum(size_of(getattr(value, f.name), seen, _depth + 1, _arrays)
                                          for f in dataclasses.fields(value))
    if hasattr(value, "__dict__"):
        return sys.getsizeof(value) + size_of(vars(value), seen, _depth + 1, _arrays)
    return sys.getsizeof(value)


class MemoryBoundedCache:
    """Least-recently-used cache with a byte budget and a time to live (thread safe).

    Parameters
    ----------
    budget_bytes : int
        Sum of the measured sizes of the entries kept.
    ttl_seconds : float
        An entry older than this is recomputed at its next use and dropped when any other
        entry is stored.
    clock : callable, optional
        Seconds as a float (tests pass a fake clock).
    """

    def __init__(self, budget_bytes: int, ttl_seconds: float = DEFAULT_TTL_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.budget_bytes = int(budget_bytes)
        self.ttl_seconds = float(ttl_seconds)
        self._clock = clock
        self._entries: OrderedDict[Hashable, tuple[Any, int, float]] = OrderedDict()
        self._arrays: dict[Hashable, frozenset[int]] = {}  # the ids of the arrays each entry was charged for
        self._lock = threading.RLock()
        self._flights: dict[Hashable, _Flight] = {}
        self.used_bytes = 0

    def keys(self) -> list[Hashable]:
        with self._lock:
            return list(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._arrays.clear()
            self.used_bytes = 0

    def discard(self, key: Hashable) -> None:
        """Forget ``key`` (nothing happens when it is not kept)."""
        with self._lock:
            if key in self._entries:
                self._drop(key)

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The cached value of ``key`` (now the most recently used), or ``default`` when it
        was never stored, expired or was evicted."""
        found, value = self._lookup(key)
        return value if found else default

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The cached value of ``key``, or ``compute()`` stored under it if it fits.

        One computation of a key at a time: a caller that finds another thread computing
        ``key`` waits and gets that result (even one too large to keep); if that
        computation fails, the waiter computes the value itself. A compute that asks for
        its own key again (in the same thread) computes it directly instead of waiting
        for itself. A compute may ask for other keys, always in one order (the dashboard's:
        a page's memo, then an evaluation, then the tie tables; never back up), so that two
        computations never wait for each other.
        """
        while True:
            found, value = self._lookup(key)
            if found:
                return value
            with self._lock:
                flight = self._flights.get(key)
                if flight is None:  # nobody computes it: this thread will
                    flight = self._flights[key] = _Flight(threading.get_ident())
                    break
                if flight.thread == threading.get_ident():  # asked again from inside compute()
                    flight = None
                    break
            flight.done.wait()
            if flight.ok:
                return flight.value
            # that computation failed (or its session stopped it): look again, maybe compute
        try:
            # computed outside the lock: one slow upload never blocks the other keys
            value = compute()
            self._store(key, value, *self._charge(value))
            if flight is not None:
                flight.value, flight.ok = value, True
            return value
        finally:
            if flight is not None:
                with self._lock:
                    del self._flights[key]
                flight.done.set()

    def _lookup(self, key: Hashable) -> tuple[bool, Any]:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return False, None
            value, size, stored = entry
            if self._clock() - stored > self.ttl_seconds:
                self._drop(key)
                return False, None
            self._entries.move_to_end(key)
            return True, value

    def _charge(self, value: Any) -> tuple[int, frozenset[int]]:
        """(bytes, ids of its arrays) of ``value``, not counting the arrays another entry
        already holds: an evaluation holds the tie tables cached beside it (420 MiB on a
        7M-line run), which would count twice and push the tables out of the budget."""
        with self._lock:
            held = set().union(*self._arrays.values())
        arrays: set[int] = set()
        size = size_of(value, _seen=held, _arrays=arrays)
        return size, frozenset(arrays)

    def _store(self, key: Hashable, value: Any, size: int, arrays: frozenset[int] = frozenset()) -> None:
        with self._lock:
            if key in self._entries:
                self._drop(key)
            self._expire()
            if size > self.budget_bytes:
                return
            while self._entries and self.used_bytes + size > self.budget_bytes:
                self._drop(next(iter(self._entries)))
            self._entries[key] = (value, size, self._clock())
            self._arrays[key] = arrays
            self.used_bytes += size

    def _expire(self) -> None:
        now = self._clock()
        for key in [k for k, (_, _, stored) in self._entries.items() if now - stored > self.ttl_seconds]:
            self._drop(key)

    def _drop(self, key: Hashable) -> None:
        _, size, _ = self._entries.pop(key)
        self._arrays.pop(key, None)
        self.used_bytes -= size


@dataclasses.dataclass
class _Flight:
    """One computation of a key under way: who computes it, and its result for the waiters."""

    thread: int
    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    ok: bool = False
    value: Any = None


def budget_from_environment() -> int:
    """Bytes from ``TIEDRANK_CACHE_MB`` (MiB), else :data:`DEFAULT_BUDGET_MB`."""
    text = os.environ.get("TIEDRANK_CACHE_MB", "").strip()
    try:
        megabytes = float(text) if text else DEFAULT_BUDGET_MB
    except ValueError:
        megabytes = DEFAULT_BUDGET_MB
    return int(max(megabytes, 0) * 2**20)


SHARED = MemoryBoundedCache(budget_from_environment())
"""The one cache every dashboard session shares (loaded data and derived results)."""
