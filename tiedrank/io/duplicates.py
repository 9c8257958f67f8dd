"""Duplicate (query, doc) rows: found by a vectorised 64-bit hash, then checked exactly.

A run may list a document once per query (trec_eval refuses repeats) and qrels may judge
it once; :func:`check_duplicates` raises naming both lines, or for runs read with
``duplicates="max"`` keeps the highest-scoring row and records a finding.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..core.duplicate_rules import DUPLICATE_POLICIES  # noqa: F401  (re-exported)
from ..core.errors import Finding, Remedy
from ..core.hashing import GOLDEN, M2, M3, finalize, mix64
from ..core.joins import take_rows
from ._arrow import string_layout
from ._parallel import parallel_map
from ._text import Locator, fail

# The ids are hashed with splitmix64's finaliser and constants (Steele, Lea & Flood 2014),
# from core.hashing, which holds the only implementation: _M1 is its golden-ratio step.
_M1, _M2, _M3 = GOLDEN, M2, M3
# the low k bytes of a word, k = 0..8 (a word whose string has 8 bytes or more left is whole)
_BYTE_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
# Hashing works on slices of this many rows, one per thread: small enough that a slice's
# temporaries (2 MB each) are reused from the allocator's heap by the next slice, where
# 8 MB ones were fresh pages each time (7M lines: 45,600 page faults -> 28,700)
_HASH_ROWS = 1 << 18
# Words (8 bytes) of an id hashed in sequence; the rest of a longer id is hashed in one
# vectorised pass, so the cost is linear in the bytes whatever the longest id (a 64 KB id
# once made every row of its chunk pay for 8,000 steps).
_HEAD_WORDS = 8


KEEP_MAX = Remedy("duplicates", "max", "to keep the highest score")
"""The remedy of a document listed twice for a query in a run (each door words it)."""

def check_duplicates(table: pa.Table, locate: Locator, source: str, policy: str,
                     kind: str) -> tuple[pa.Table, list[Finding]]:
    """Reject (or, for runs with policy "max", resolve) a (query, doc) seen twice.

    ``kind`` is ``"run"`` or ``"qrels"`` (for the message); returns the table (rows of
    repeats dropped under "max") and the findings.
    """
    if _distinct_in_query_blocks(table.column("query"), table.column("doc")):
        return table, []  # the usual case, decided without the sort of every row
    if policy == "error":
        found = _first_repeat(table.column("query"), table.column("doc"))
        if found is None:
            return table, []
        repeat_row, first_row = found
        repeat = {"query": table.column("query")[repeat_row].as_py(),
                  "doc": table.column("doc")[repeat_row].as_py(), "row": repeat_row}
        first_line, _ = locate(first_row)
        remedy = None
        if kind == "run":
            problem = "duplicate document within a query"
            expected = (f"each document at most once per query; {repeat['doc']!r} was first "
                        f"seen for query {repeat['query']!r} on line {first_line}")
            remedy = KEEP_MAX
        else:
            problem = "duplicate judgement"
            expected = (f"one judgement per (query, doc); {repeat['doc']!r} was first judged "
                        f"for query {repeat['query']!r} on line {first_line}")
        raise fail(problem, int(repeat["row"]), locate, source, expected, remedy)
    # policy "max": keep the highest-scoring row of each group (the earliest among equals)
    rows = _duplicate_rows(table.column("query"), table.column("doc"))
    if rows is None:
        return table, []
    sub = pd.DataFrame({
        "query": take_rows(table.column("query"), rows).to_pylist(),
        "doc": take_rows(table.column("doc"), rows).to_pylist(),
        "row": rows,
    })
    sub["score"] = take_rows(table.column("score"), rows).to_numpy()
    ordered = sub.sort_values("score", ascending=False, kind="stable")
    dropped = ordered.loc[ordered.duplicated(["query", "doc"], keep="first")]
    keep = np.ones(table.num_rows, dtype=bool)
    keep[dropped["row"].to_numpy()] = False
    queries = tuple(dict.fromkeys(dropped.sort_values("row")["query"]))  # file order
    finding = Finding(
        kind="duplicates_kept_max",
        message=(f"{len(dropped)} duplicate (query, doc) row(s) in {len(queries)} "
                 f"quer{'y' if len(queries) == 1 else 'ies'} dropped; the highest score was kept"),
        source=source, count=len(queries), queries=queries[:20])
    return table.filter(pa.array(keep)), [finding]


def hash_strings(column: pa.ChunkedArray) -> np.ndarray:
    """A 64-bit hash per string, vectorised over Arrow's offset/data buffers.

    Hashing 7 million short ids this way is several times faster than building a hash
    table of the strings themselves (pandas/pyarrow), which is what makes the duplicate
    check affordable on big runs.  Collisions only cost time: candidates are re-checked
    exactly.

    Examples
    --------
    >>> h = hash_strings(pa.chunked_array([["d1", "d2"], ["d1"]]))
    >>> bool(h[0] == h[2]), bool(h[0] == h[1])
    (True, False)
    """
    parts = []
    for chunk in column.chunks:
        if len(chunk) == 0:
            continue
        offsets, data_buffer = string_layout(chunk)
        low, high = int(offsets[0]), int(offsets[-1])
        padded = np.zeros(high - low + 8, dtype=np.uint8)
        if high > low:
            padded[:high - low] = np.frombuffer(data_buffer, dtype=np.uint8,
                                                count=high - low, offset=low)
        # every byte position seen as the start of an (unaligned) little-endian 8-byte word
        words = np.ndarray(shape=(high - low + 1,), dtype="<u8", buffer=padded, strides=(1,))
        starts = offsets[:-1] - low
        lengths = offsets[1:] - offsets[:-1]
        h = finalize(lengths.astype(np.uint64) + _M1)
        for w in range(int(min((lengths.max() + 7) // 8, _HEAD_WORDS))):
            remaining = lengths - 8 * w
            word = words[np.minimum(starts + 8 * w, high - low) if w else starts]
            word &= _BYTE_MASKS[np.clip(remaining, 0, 8)]  # the string's bytes only
            word *= _M1
            word ^= h
            finalize(word)
            # strings already consumed keep their hash: the result must not depend on the
            # longest string of the chunk (equal ids in different chunks must collide)
            live = remaining > 0
            h = word if live.all() else np.where(live, word, h)
        long_rows = np.flatnonzero(lengths > 8 * _HEAD_WORDS)
        if len(long_rows):  # the tail of long ids: one vectorised pass over its words
            h[long_rows] = mix64(h[long_rows] ^ _tail_hash(words, starts[long_rows],
                                                            lengths[long_rows]))
        parts.append(h)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)


def _tail_hash(words: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit hash of the bytes after the first ``_HEAD_WORDS`` words of each string: the
    wrapping sum of its words, each mixed with its position (order matters, cost linear)."""
    n_words = (lengths + 7) // 8 - _HEAD_WORDS
    owner = np.repeat(np.arange(len(starts)), n_words)
    index = np.arange(int(n_words.sum())) - np.repeat(np.cumsum(n_words) - n_words, n_words) \
        + _HEAD_WORDS
    remaining = lengths[owner] - 8 * index
    word = words[starts[owner] + 8 * index]
    word = np.where(remaining >= 8, word, word & _BYTE_MASKS[np.clip(remaining, 0, 7)])
    mixed = mix64(word ^ mix64(index.astype(np.uint64) * _M2 + _M3))
    first = np.cumsum(n_words) - n_words
    with np.errstate(over="ignore"):
        return np.add.reduceat(mixed, first)  # wraps modulo 2**64, as intended


def _distinct_in_query_blocks(query: pa.ChunkedArray, doc: pa.ChunkedArray) -> bool:
    """True when the rows come query by query (each query's rows together, as runs are
    written) and no document hash repeats within a query, so no (query, doc) repeats;
    False when that is not known (the callers then look row by row).

    One sort of 1,000 hashes per query costs a fifth of one sort of all the run's hashes
    (numpy sorts the rows of a matrix each in cache): the queries' rows are laid out as the
    rows of a matrix padded to the longest query, when the padding at most doubles it.
    """
    n = len(query)
    if n < 2:
        return True
    change = pc.not_equal(query.slice(1), query.slice(0, n - 1))
    block_start = np.concatenate(([0], np.flatnonzero(np.concatenate(
        [chunk.to_numpy(zero_copy_only=False) for chunk in change.chunks])) + 1))
    if len(pc.unique(take_rows(query, block_start))) != len(block_start):
        return False  # a query in several blocks
    length = np.diff(np.append(block_start, n))
    width = int(length.max())
    if len(block_start) * width > 2 * n + 1024:
        return False  # a few long queries among short ones: the padding would cost more
    # a slice of whole queries at a time (about _HASH_ROWS rows), each hashed and checked
    # on its own: nothing the size of the run is made (its hashes were 2 x 56 MB on 7M lines)
    per_slice = max(1, _HASH_ROWS // width)
    firsts = range(0, len(block_start), per_slice)
    return all(parallel_map(
        lambda first: _distinct_in_blocks(doc, block_start[first:first + per_slice],
                                          length[first:first + per_slice], width), firsts))


def _distinct_in_blocks(doc: pa.ChunkedArray, block_start: np.ndarray, length: np.ndarray,
                        width: int) -> bool:
    """No document hash repeats within any of these consecutive query blocks."""
    key = hash_strings(doc.slice(int(block_start[0]), int(length.sum())))
    if (length == width).all():
        matrix = key.reshape(len(block_start), width)
    else:  # hashes of each query left-aligned in its row, the rest the largest hash
        local_start = np.cumsum(length) - length
        matrix = np.full((len(block_start), width), np.iinfo(np.uint64).max, dtype=np.uint64)
        column = np.arange(len(key), dtype=np.int64) - np.repeat(local_start, length)
        matrix[np.repeat(np.arange(len(block_start)), length), column] = key
    del key
    matrix.sort(axis=1)
    # a query's first `length` sorted values are its own (the padding is the largest value)
    same = matrix[:, 1:] == matrix[:, :-1]
    return not (same & (np.arange(width - 1) < (length - 1)[:, None])).any()


def _candidates(query: pa.ChunkedArray, doc: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(rows, keys)``: the rows whose (query, doc) hash occurs more than once, and the
    hash of every row; None when every hash is distinct (no duplicate is possible).

    A 64-bit hash of (query, doc) per row, then a sort of the hashes: equal neighbours are
    candidates, checked exactly by the callers.  Hashing works on slices of a million rows,
    each on a thread: numpy releases the GIL, so this uses both cores of a small machine.
    """
    n = len(query)
    if n < 2:
        return None
    step = _HASH_ROWS
    key = np.concatenate(parallel_map(
        lambda start: _pair_hash(query.slice(start, step), doc.slice(start, step)),
        range(0, n, step)))
    # one sort in place of a copy (numpy's vectorised sort: 7M keys in about 0.1 s; split in
    # two halves for two threads it cost twice the CPU for the masks and copies)
    ordered = np.sort(key)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    del ordered
    if len(repeated) == 0:
        return None
    return np.flatnonzero(np.isin(key, repeated)), key


def _first_repeat(query: pa.ChunkedArray, doc: pa.ChunkedArray) -> tuple[int, int] | None:
    """``(row, first_row)`` of the earliest row whose (query, doc) appeared before, or None.

    Works on integer arrays only: the strings of two rows are compared per candidate, so
    memory does not grow with the number of repeated lines (a file of one line repeated
    five million times costs the hashes, not five million Python strings).
    """
    found = _candidates(query, doc)
    if found is None:
        return None
    rows, key = found
    rows_key = key[rows]
    order = np.lexsort((rows, rows_key))             # by hash, then by row
    grouped_rows, grouped_key = rows[order], rows_key[order]
    starts = np.r_[True, grouped_key[1:] != grouped_key[:-1]]
    first_of_group = grouped_rows[np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))]
    later = ~starts                                  # a row after its group's first: a repeat,
    repeats, firsts = grouped_rows[later], first_of_group[later]
    by_row = np.argsort(repeats, kind="stable")
    for index in by_row:  # in file order; almost always the first one is the answer
        row, first = int(repeats[index]), int(firsts[index])
        # unless two different ids share a hash (astronomically rare): check the strings
        if query[row].as_py() == query[first].as_py() and doc[row].as_py() == doc[first].as_py():
            return row, first
        same = _exact_duplicates(query, doc, grouped_rows[grouped_key == key[row]])
        if same is not None and row in set(same.tolist()):
            earlier = [r for r in same.tolist() if r < row and query[r].as_py() == query[row].as_py()
                       and doc[r].as_py() == doc[row].as_py()]
            if earlier:
                return row, min(earlier)
    return None


def _duplicate_rows(query: pa.ChunkedArray, doc: pa.ChunkedArray) -> np.ndarray | None:
    """Sorted row numbers of every row whose (query, doc) occurs more than once, or None."""
    found = _candidates(query, doc)
    return None if found is None else _exact_duplicates(query, doc, found[0])


def _exact_duplicates(query: pa.ChunkedArray, doc: pa.ChunkedArray,
                      candidates: np.ndarray) -> np.ndarray | None:
    # exact check on the candidates: equal hashes need not be equal ids
    sub = pd.DataFrame({"q": take_rows(query, candidates).to_pylist(),
                        "d": take_rows(doc, candidates).to_pylist()})
    exact = sub.duplicated(keep=False).to_numpy()
    return candidates[exact] if exact.any() else None


def _pair_hash(query: pa.ChunkedArray, doc: pa.ChunkedArray) -> np.ndarray:
    # Queries repeat (a few thousand distinct ids), so hash each distinct one once.
    encoded = query.combine_chunks().dictionary_encode()
    query_hash = hash_strings(pa.chunked_array([encoded.dictionary])) * _M3
    key = hash_strings(doc)
    key ^= query_hash[encoded.indices.to_numpy(zero_copy_only=False)]
    return finalize(key)
