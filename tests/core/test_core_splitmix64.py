"""One splitmix64: core.hashing's finaliser matches the published generator, and the
duplicate check's string hash (which now calls it) gives the same bits as before.

The reference here is written from the published constants (Steele, Lea & Flood 2014;
Vigna's splitmix64.c) in plain Python integers, independently of numpy and of tiedrank.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from tiedrank.core import hashing
from tiedrank.io import duplicates, read_run

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
M2, M3 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def finalizer(z: int) -> int:
    z = ((z ^ (z >> 30)) * M2) & MASK
    z = ((z ^ (z >> 27)) * M3) & MASK
    return z ^ (z >> 31)


def splitmix64(seed: int, count: int) -> list[int]:
    state, out = seed, []
    for _ in range(count):
        state = (state + GOLDEN) & MASK
        out.append(finalizer(state))
    return out


def string_hash(text: str) -> int:
    """duplicates.hash_strings of one string, in plain Python: the length, then each of the
    first eight little-endian 8-byte words (zero-padded) folded in, then a position-keyed
    sum of the remaining words."""
    data = text.encode("utf-8")
    n = len(data)
    words = [int.from_bytes(data[i:i + 8].ljust(8, b"\0"), "little") for i in range(0, n, 8)]
    h = finalizer((n + GOLDEN) & MASK)
    for word in words[:8]:
        h = finalizer(((word * GOLDEN) & MASK) ^ h)
    if len(words) > 8:
        tail = sum(finalizer(word ^ finalizer((index * M2 + M3) & MASK))
                   for index, word in enumerate(words) if index >= 8) & MASK
        h = finalizer(h ^ tail)
    return h


def test_finalizer_is_the_published_splitmix64():
    # splitmix64 seeded with 0: first output 0xE220A8397B1DCDAF (Vigna's reference)
    assert splitmix64(0, 1) == [0xE220A8397B1DCDAF]
    seeds = np.array([0, 1, 1234567, 2**63, MASK, 0xDEADBEEF], dtype=np.uint64)
    expected = [finalizer((int(s) + GOLDEN) & MASK) for s in seeds]
    assert hashing.mix(seeds).tolist() == expected
    assert hashing.mix64(seeds).tolist() == [finalizer(int(s)) for s in seeds]
    assert hashing.mix64(np.array([GOLDEN], dtype=np.uint64)).tolist() == [0xE220A8397B1DCDAF]


def test_duplicates_uses_the_one_mixer():
    """io.duplicates keeps no copy of the mixer (core.hashing says it holds the only one)."""
    assert not any(hasattr(duplicates, name) for name in ("_mix", "_mix_in_place"))
    assert duplicates.finalize is hashing.finalize


IDS = ([f"doc-{i * 7919 % 1000:04d}" * (1 + i % 13) for i in range(40)]
       + ["", "\u00e9", "x" * 8, "x" * 9, "y" * 64, "y" * 65, "z" * 200])


def test_string_hash_bits_unchanged():
    """Same bits as the independent reference, chunked or not (the ids above cover the
    empty id, non-ASCII, word boundaries and the tail past eight words)."""
    expected = [string_hash(text) for text in IDS]
    assert duplicates.hash_strings(pa.chunked_array([IDS[:17], IDS[17:]])).tolist() == expected
    assert duplicates.hash_strings(pa.chunked_array([IDS])).tolist() == expected


def test_pair_hash_bits_unchanged():
    """(query, doc) keys: the doc hash xor the query hash times M3, mixed once more."""
    queries = [f"q{i % 3}" for i in range(len(IDS))]
    expected = [finalizer(string_hash(d) ^ ((string_hash(q) * M3) & MASK))
                for q, d in zip(queries, IDS)]
    got = duplicates._pair_hash(pa.chunked_array([queries]), pa.chunked_array([IDS]))
    assert got.tolist() == expected


def test_duplicates_rule_choices_unchanged():
    """duplicates='max' keeps the same rows as before the mixer moved (output of the code of
    2026-12-07 with its own copy of splitmix64, recorded)."""
    lines = [f"q{i % 4} Q0 d{i % 11} {i} {i % 5} t" for i in range(60)]
    run = read_run(("\n".join(lines) + "\n").encode(), duplicates="max")
    frame = run.frame
    kept = " ".join(f"{q}/{d}/{int(s)}" for q, d, s in
                    zip(frame["query"], frame["doc"], frame["score"]))
    assert kept == (
        "q1/d1/1 q2/d2/2 q3/d3/3 q0/d4/4 q2/d6/1 q3/d7/2 q0/d8/3 q1/d9/4 q3/d0/1 q0/d1/2 "
        "q1/d2/3 q2/d3/4 q0/d5/1 q1/d6/2 q2/d7/3 q3/d8/4 q0/d9/0 q1/d10/1 q2/d0/2 q3/d1/3 "
        "q0/d2/4 q1/d3/0 q2/d4/1 q3/d5/2 q0/d6/3 q1/d7/4 q2/d8/0 q3/d9/1 q0/d10/2 q1/d0/3 "
        "q2/d1/4 q3/d2/0 q0/d3/1 q1/d4/2 q2/d5/3 q3/d6/4 q0/d7/0 q1/d8/1 q2/d9/2 q3/d10/3 "
        "q0/d0/4 q1/d5/4 q2/d10/4 q3/d4/4")
    assert [f.kind for f in run.findings] == ["duplicates_kept_max"]


def test_duplicate_rule_names_live_in_core():
    """The rule names are defined in core (core/options.py needs them and core imports no
    other subpackage); io.duplicates re-exports the same tuple."""
    import ast
    import inspect

    from tiedrank.core import duplicate_rules
    from tiedrank.io.duplicates import DUPLICATE_POLICIES

    assert DUPLICATE_POLICIES is duplicate_rules.DUPLICATE_POLICIES == ("error", "max")
    assert tuple(duplicate_rules.DUPLICATE_RULES) == DUPLICATE_POLICIES
    tree = ast.parse(inspect.getsource(duplicate_rules))
    imported = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert all(isinstance(node, ast.ImportFrom) and node.module == "__future__"
               for node in imported)
