"""The split into bucket files: repeats across blocks found, whatever the file's order.

Each block is checked by the reader when it is parsed, so a (query, doc) repeated in two
blocks is left to the loading of its bucket, which compares only the rows of queries the
split met in more than one block (or every row, past ``MAX_SPANNING`` such queries). The
oracle is the one-pass reader on the same file: it must refuse what the buckets refuse,
and under ``duplicates="max"`` the buckets must give its numbers bit for bit.
"""
from __future__ import annotations

import numpy as np
import pytest

from tiedrank import distributed as D
from tiedrank import evaluate, read_qrels, read_run
from tiedrank.distributed import buckets as B
from tiedrank.core.errors import InputError

SMALL_BLOCKS = 2000  # bytes: a few dozen blocks per file
METRICS = ["RR", "AP", "nDCG@10"]
POLICIES = ["expected", "trec_eval", "input", "random(seed=5)"]


def _grouped_run(n_queries: int = 60, seed: int = 11) -> list[str]:
    """A run grouped by query, as retrieval systems write them (ties in every query)."""
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(n_queries):
        docs = rng.choice(500, int(rng.integers(5, 30)), replace=False)
        lines += [f"q{q} Q0 d{d} {r} {rng.integers(0, 3)} T\n" for r, d in enumerate(docs, 1)]
    return lines


def _qrels_lines(n_queries: int = 60, seed: int = 12) -> list[str]:
    rng = np.random.default_rng(seed)
    return [f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(n_queries)
            for d in rng.choice(500, 12, replace=False)]


@pytest.fixture()
def qrels_path(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("".join(_qrels_lines()))
    return str(path)


@pytest.mark.parametrize("limit", [B.MAX_SPANNING, 0])  # 0: every row is compared
@pytest.mark.parametrize("where", ["next_block", "far_away"])
def test_a_repeat_across_blocks_is_refused_as_one_pass_refuses_it(tmp_path, qrels_path,
                                                                   monkeypatch, limit, where):
    monkeypatch.setattr(B, "MAX_SPANNING", limit)
    lines = _grouped_run()
    query, _, doc, *_ = lines[0].split()
    repeat = f"{query} Q0 {doc} 99 7 T\n"
    # next_block: the query's rows go on into the next block; far_away: the repeat is the
    # last line, so the query is met again only in the last block
    at = 40 if where == "next_block" else len(lines)
    lines = lines[:at] + [repeat] + lines[at:]
    path = tmp_path / "run.txt"
    path.write_text("".join(lines))
    with pytest.raises(InputError, match="duplicate document within a query"):
        read_run(str(path))
    with pytest.raises(InputError, match="duplicate document within a query"):
        D.evaluate([str(path)], qrels_path, ["RR"], buckets=3, block_bytes=SMALL_BLOCKS,
                   spill_dir=tmp_path)
    one = evaluate([read_run(str(path), duplicates="max")], qrels_path, METRICS, ties=POLICIES)
    ev = D.evaluate([str(path)], qrels_path, METRICS, ties=POLICIES, buckets=3,
                    duplicates="max", block_bytes=SMALL_BLOCKS, spill_dir=tmp_path)
    assert ev.per_query.equals(one.per_query)
    assert ev.summary.equals(one.summary)


@pytest.mark.parametrize("limit", [B.MAX_SPANNING, 0])
def test_a_repeated_judgement_across_blocks_is_refused(tmp_path, monkeypatch, limit):
    monkeypatch.setattr(B, "MAX_SPANNING", limit)
    lines = _qrels_lines()
    path = tmp_path / "qrels.txt"
    path.write_text("".join(lines + [lines[3]]))
    run = tmp_path / "run.txt"
    run.write_text("".join(_grouped_run()))
    with pytest.raises(InputError, match="duplicate judgement"):
        read_qrels(str(path))
    with pytest.raises(InputError, match="duplicate judgement"):
        D.evaluate([str(run)], str(path), ["RR"], buckets=2, block_bytes=SMALL_BLOCKS // 4,
                   spill_dir=tmp_path)


def test_queries_met_in_two_blocks_are_few_in_a_grouped_file(tmp_path):
    """A file grouped by query has at most one query per block boundary in two blocks (the
    duplicate check at loading then compares a handful of rows, not the bucket)."""
    lines = _grouped_run()
    path = tmp_path / "run.txt"
    path.write_text("".join(lines))
    part = B.split_run(str(tmp_path), 0, None, str(path), 4, block_bytes=SMALL_BLOCKS)
    queries = {line.split()[0] for line in lines}
    assert part.n_rows == len(lines) and part.n_blocks > 5
    assert part.spanning is not None and set(part.spanning) <= queries
    assert 0 < len(part.spanning) <= part.n_blocks - 1
    shuffled = tmp_path / "shuffled.txt"
    order = np.random.default_rng(1).permutation(len(lines))
    shuffled.write_text("".join(lines[i] for i in order))
    interleaved = B.split_run(str(tmp_path), 1, None, str(shuffled), 4,
                              block_bytes=SMALL_BLOCKS)
    assert len(interleaved.spanning) > part.n_blocks  # queries everywhere: many listed


def test_bucket_files_hold_the_rows_in_file_order(tmp_path):
    """Loading every bucket gives back each row once, in file order within the query, with
    the reader's own ids and float64 score bits."""
    lines = _grouped_run()
    path = tmp_path / "run.txt"
    path.write_text("".join(lines))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(_qrels_lines()))
    split = B.split([str(path)], str(qrels), 5, str(tmp_path), block_bytes=SMALL_BLOCKS)
    whole = read_run(str(path)).frame
    loaded = [B.load_run(split, 0, b).frame for b in range(5)
              if split.run_path(0, b).exists()]
    rows = sorted((q, d, s) for f in loaded for q, d, s in f.itertuples(index=False))
    assert rows == sorted(whole.itertuples(index=False, name=None))
    for frame in loaded:
        for query, group in frame.groupby("query", sort=False):
            expected = whole[whole["query"] == query]
            assert group["doc"].tolist() == expected["doc"].tolist()
            assert group["score"].to_numpy().tobytes() == expected["score"].to_numpy().tobytes()
