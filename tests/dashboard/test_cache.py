"""The dashboard's shared cache: bounded by measured memory and by age, least recently used
out first, safe under concurrent sessions."""
from __future__ import annotations

import threading
import tracemalloc

import numpy as np
import pandas as pd
import pyarrow as pa

from tiedrank.dashboard.cache import MemoryBoundedCache, budget_from_environment, size_of


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _allocated_by(build) -> int:
    """Bytes that building a value allocates, as the allocators count them (Python's, traced
    by tracemalloc, and Arrow's pool, which holds pandas 3's strings): an oracle independent
    of size_of."""
    arrow_before = pa.total_allocated_bytes()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        value = build()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return value, after - before + pa.total_allocated_bytes() - arrow_before


def test_size_of_matches_what_the_value_allocated():
    frame, allocated = _allocated_by(lambda: pd.DataFrame({
        "query": [f"q{i % 997}" for i in range(200_000)],
        "doc": [f"doc-{i}" for i in range(200_000)],
        "score": np.random.default_rng(0).random(200_000)}))
    assert 0.7 * allocated <= size_of(frame) <= 1.3 * allocated
    arrays, allocated = _allocated_by(lambda: {"a": np.ones(300_000), "b": [np.arange(100_000)]})
    assert 0.9 * allocated <= size_of(arrays) <= 1.1 * allocated


def test_a_shared_object_counts_once():
    big = np.ones(100_000)
    assert size_of([big, big, big[10:]]) < 1.1 * big.nbytes


def test_least_recently_used_goes_first_and_the_budget_holds():
    cache = MemoryBoundedCache(budget_bytes=30_000)
    for key in "abc":
        cache.get_or_compute(key, lambda: np.zeros(1_000))   # 8,000 bytes each
    cache.get_or_compute("a", lambda: 1 / 0)                 # a hit: "a" becomes the newest
    cache.get_or_compute("d", lambda: np.zeros(1_000))       # evicts "b", the least recent
    assert cache.keys() == ["c", "a", "d"]
    assert cache.used_bytes <= 30_000


def test_a_value_larger_than_the_budget_is_returned_but_not_kept():
    cache = MemoryBoundedCache(budget_bytes=10_000)
    cache.get_or_compute("small", lambda: np.zeros(100))
    value = cache.get_or_compute("huge", lambda: np.zeros(10_000))
    assert value.shape == (10_000,)
    assert cache.keys() == ["small"]


def test_entries_expire():
    clock = FakeClock()
    cache = MemoryBoundedCache(budget_bytes=10**6, ttl_seconds=60, clock=clock)
    calls = []
    compute = lambda: calls.append(1) or np.zeros(10)  # noqa: E731
    cache.get_or_compute("k", compute)
    clock.now = 59
    cache.get_or_compute("k", compute)
    assert len(calls) == 1
    clock.now = 121
    cache.get_or_compute("other", lambda: 0)               # storing sweeps expired entries
    assert cache.keys() == ["other"]
    cache.get_or_compute("k", compute)
    assert len(calls) == 2


def test_concurrent_sessions_keep_the_books_straight():
    cache = MemoryBoundedCache(budget_bytes=200_000)
    errors = []

    def session(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for _ in range(300):
                key = int(rng.integers(0, 40))
                value = cache.get_or_compute(key, lambda key=key: np.full(1_000, key))
                assert value[0] == key
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=session, args=(seed,)) for seed in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert cache.used_bytes == 8_000 * len(cache.keys()) <= 200_000


def test_sessions_asking_for_a_key_being_computed_wait_for_that_computation():
    """Ten sessions opening one page of a fresh server: one computation, one shared result
    (even a result too large to keep), not ten competing for the cores."""
    for budget in (1_000_000, 10):  # kept, and too large to keep
        cache = MemoryBoundedCache(budget_bytes=budget)
        calls, started, release = [], threading.Event(), threading.Event()

        def compute():
            calls.append(threading.get_ident())
            started.set()
            release.wait(5)
            return np.arange(100)

        results = []
        first = threading.Thread(target=lambda: results.append(cache.get_or_compute("page", compute)))
        first.start()
        assert started.wait(5)
        waiters = [threading.Thread(target=lambda: results.append(cache.get_or_compute("page", compute)))
                   for _ in range(9)]
        for thread in waiters:
            thread.start()
        release.set()
        for thread in [first, *waiters]:
            thread.join(10)
        assert len(calls) == 1 and len(results) == 10
        assert all(r is results[0] for r in results)


def test_a_failed_computation_lets_a_waiting_session_compute_it():
    cache = MemoryBoundedCache(budget_bytes=1_000_000)
    started, release, outcome = threading.Event(), threading.Event(), {}

    def failing():
        started.set()
        release.wait(5)
        raise RuntimeError("session stopped")

    def first():
        try:
            cache.get_or_compute("k", failing)
        except RuntimeError as err:
            outcome["first"] = str(err)

    thread = threading.Thread(target=first)
    thread.start()
    assert started.wait(5)
    waiter = threading.Thread(target=lambda: outcome.setdefault("second", cache.get_or_compute("k", lambda: 42)))
    waiter.start()
    release.set()
    thread.join(10)
    waiter.join(10)
    assert outcome == {"first": "session stopped", "second": 42}
    assert cache.get("k") == 42


def test_a_computation_asking_for_its_own_key_does_not_wait_for_itself():
    cache = MemoryBoundedCache(budget_bytes=1_000_000)
    inner = lambda: cache.get_or_compute("k", lambda: 1)  # noqa: E731
    assert cache.get_or_compute("k", lambda: inner() + 1) == 2


def test_budget_from_environment(monkeypatch):
    monkeypatch.setenv("TIEDRANK_CACHE_MB", "3")
    assert budget_from_environment() == 3 * 2**20
    monkeypatch.setenv("TIEDRANK_CACHE_MB", "lots")
    assert budget_from_environment() == 1024 * 2**20


def test_arrays_another_entry_holds_are_charged_once():
    """An evaluation holds the tie tables cached beside it: counting them twice pushed the
    tables out of the budget on a 7M-line run, and every page rebuilt them."""
    cache = MemoryBoundedCache(budget_bytes=3_000_000)
    tables = {"run": np.zeros(250_000)}  # 2 MB
    cache.get_or_compute("tables", lambda: tables)
    cache.get_or_compute("evaluation", lambda: {"tables": tables, "values": np.zeros(1_000)})
    assert set(cache.keys()) == {"tables", "evaluation"}
    assert 2_000_000 < cache.used_bytes < 2_100_000
