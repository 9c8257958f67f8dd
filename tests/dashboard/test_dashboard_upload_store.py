"""The server-side store of uploads (tiedrank.dashboard.upload_store): keys from the content,
the bytes back as uploaded, one copy of a file however many sets name it, the byte budget,
the time to live, and unknown or malformed keys."""
from __future__ import annotations

import hashlib
import os
import pickle
import re

import pytest

from tiedrank.dashboard.cache import DEFAULT_TTL_SECONDS, MemoryBoundedCache
from tiedrank.dashboard.settings import params_from_settings, settings_from_params
from tiedrank.dashboard.upload_store import KeptFile, KeptUploads, UploadStore

QRELS = b"q1 0 d1 1\nq1 0 d2 0\n"
RUN = b"q1 Q0 d1 1 0.5 mine\nq1 Q0 d2 2 0.5 mine\n"


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _set(run: bytes = RUN, *, name: str = "mine.txt", columns=None, duplicates: str = "error",
         qrels: bytes = QRELS) -> KeptUploads:
    return KeptUploads(qrels=KeptFile.of("qrels.txt", qrels), runs=(KeptFile.of(name, run, columns),),
                       duplicates=duplicates)


def _store(budget: int = 10**6, ttl: float = DEFAULT_TTL_SECONDS, clock=None) -> UploadStore:
    return UploadStore(MemoryBoundedCache(budget, ttl, **({"clock": clock} if clock else {})))


def test_the_bytes_and_choices_come_back_as_kept():
    store = _store()
    kept = KeptUploads(qrels=KeptFile.of("qrels.txt", QRELS),
                       runs=(KeptFile.of("a.csv", RUN, {"doc": "passage"}), KeptFile.of("a.csv", RUN)),
                       queries=KeptFile.of("queries.tsv", b"q1\tsome text\n"), duplicates="max")
    key = store.keep(kept)
    back = store.restore(key)
    assert [(f.name, f.getvalue(), f.columns) for f in back.files()] == [
        ("qrels.txt", QRELS, ()), ("a.csv", RUN, (("doc", "passage"),)), ("a.csv", RUN, ()),
        ("queries.tsv", b"q1\tsome text\n", ())]
    assert back.duplicates == "max"
    # each file's digest is its bytes' sha256; ids are unique within the set (widget keys)
    assert all(f.sha256 == hashlib.sha256(f.getvalue()).hexdigest() for f in back.files())
    assert len({f.file_id for f in back.files()}) == 4


def test_keys_follow_the_content_and_the_choices():
    key = _store().keep(_set())
    assert re.fullmatch(r"[0-9a-f]{16}", key)
    assert _store().keep(_set()) == key  # another store, same content: same key (no salt, no clock)
    changed = [_set(RUN.replace(b"0.5 mine\nq1", b"0.6 mine\nq1")), _set(name="other.txt"),
               _set(columns={"score": "bm25"}), _set(duplicates="max"), _set(qrels=QRELS + b"q2 0 d1 1\n")]
    keys = [_store().keep(kept) for kept in changed]
    assert len({key, *keys}) == 1 + len(changed)


def test_a_file_named_by_two_sets_is_kept_once():
    big = b"q1 Q0 d%d 1 0.5 mine\n" * 5_000
    store = _store()
    store.keep(_set(big))
    used = store.cache.used_bytes
    second = store.keep(_set(big, columns={"doc": "d"}))  # the same files, another mapping
    assert store.cache.used_bytes - used < len(big) / 10
    assert store.restore(second).runs[0].getvalue() == big


def test_the_byte_budget_holds_and_the_least_recently_used_set_goes_first():
    budget = 30_000
    store = _store(budget)
    sets = [_set(bytes([65 + i]) * 9_000, name=f"run{i}.txt") for i in range(4)]
    first, second = store.keep(sets[0]), store.keep(sets[1])
    assert store.restore(first) is not None  # "first" is now more recent than "second"
    third, fourth = store.keep(sets[2]), store.keep(sets[3])
    assert store.cache.used_bytes <= budget
    assert store.restore(second) is None
    assert store.restore(fourth).runs[0].getvalue() == bytes([68]) * 9_000
    assert sum(store.restore(k) is not None for k in (first, second, third, fourth)) < 4


def test_a_set_missing_one_of_its_files_is_unknown():
    store = _store(30_000)
    key = store.keep(_set(b"A" * 9_000))
    store.cache.get_or_compute(("someone else's result",), lambda: b"B" * 25_000)  # evicts the run
    assert store.restore(key) is None


def test_a_file_larger_than_the_budget_is_not_kept():
    store = _store(5_000)
    assert store.keep(_set(b"A" * 8_000)) is None
    assert store.cache.used_bytes <= 5_000


def test_sets_expire_unless_a_session_keeps_them_again():
    clock = FakeClock()
    store = _store(ttl=3600, clock=clock)
    key = store.keep(_set())
    clock.now = 3599
    assert store.restore(key) is not None
    clock.now = 3601
    assert store.restore(key) is None
    assert store.keep(_set()) == key  # a session still holding the files stores them again
    assert store.restore(key).runs[0].getvalue() == RUN
    assert _store().hours == DEFAULT_TTL_SECONDS / 3600 == 2


@pytest.mark.parametrize("key", ["0123456789abcdef", "0123456789ABCDEF", "0123456789abcde",
                                 "0123456789abcdef0", "../../etc/passwd", "", None, 12345])
def test_unknown_and_malformed_keys_restore_nothing(key):
    store = _store()
    store.keep(_set())
    assert store.restore(key) is None


def test_the_link_carries_a_well_formed_key_only():
    sources, levels = ("llmjudge", "upload"), {"llmjudge": 2}
    good = {"dataset": "upload", "upload_key": "00c0ffee00c0ffee"}
    assert settings_from_params(good, sources, levels)["upload_key"] == "00c0ffee00c0ffee"
    for bad in ("00C0FFEE00C0FFEE", "../x", "00c0ffee", "00c0ffee00c0ffee; rm"):
        assert "upload_key" not in settings_from_params({**good, "upload_key": bad}, sources, levels)
    state = {"dataset": "upload", "upload_key": "00c0ffee00c0ffee"}
    assert settings_from_params(params_from_settings(state), sources, levels).items() >= state.items()
    # on another dataset the key stays out of the link
    assert "upload_key" not in params_from_settings({**state, "dataset": "llmjudge"})


class _Trap:
    """Unpickling this would create a file: the store must never interpret what it keeps."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_kept_bytes_are_never_interpreted(tmp_path):
    trap = tmp_path / "executed"
    payload = pickle.dumps(_Trap(str(trap)))
    store = _store()
    key = store.keep(KeptUploads(qrels=KeptFile.of("qrels.pkl", payload), runs=(KeptFile.of("run.pkl", payload),)))
    back = store.restore(key)
    assert back.qrels.getvalue() == payload and isinstance(back.runs[0].getvalue(), bytes)
    assert not os.path.exists(trap)
