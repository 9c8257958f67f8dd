"""The one-pass door reads each run when its table is made and lets it go after (issue 33's
memory): a run read from a file gives up its query ids and scores to the build as soon as the
build has used them (:func:`tiedrank.core.ties.build_own_tie_table`). The oracle is the
public :func:`build_tie_table` on the same run read apart, which drops nothing: every array
of the two tables must be equal, and a run the caller passed in must come back untouched."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from tiedrank import EvaluationOptions, Run, read_qrels, read_run
from tiedrank.evaluation import build_tables, score_tables
from tiedrank.core.ties import build_tie_table

QRELS = "0 0 b 1\n0 0 e 2\n1 0 a 1\n2 0 z 1\n"
# in rank order (no sort: the build copies the scores), blocks out of query order (a block
# move), rows out of order (Arrow's sort), and a query the qrels lack
RUNS = {
    "ranked": "0 Q0 a 1 3 r\n0 Q0 b 2 2 r\n0 Q0 c 3 2 r\n1 Q0 a 1 1 r\n1 Q0 d 2 1 r\n",
    "blocks": "1 Q0 a 1 1 r\n1 Q0 d 2 1 r\n0 Q0 a 1 3 r\n0 Q0 b 2 2 r\n0 Q0 e 3 2 r\n",
    "shuffled": "0 Q0 b 2 2 r\n1 Q0 d 2 1 r\n0 Q0 a 1 3 r\n9 Q0 x 1 5 r\n0 Q0 e 3 2 r\n"
                "1 Q0 a 1 1 r\n",
}
OPTIONS = [EvaluationOptions(), EvaluationOptions(depth=2), EvaluationOptions(round=0),
           EvaluationOptions(judged_only=True), EvaluationOptions(rel_level=2, complete=True)]


def _arrays(table) -> dict:
    return {f.name: getattr(table, f.name) for f in dataclasses.fields(table)
            if isinstance(getattr(table, f.name), np.ndarray)}


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: repr(o)[:60])
@pytest.mark.parametrize("layout", sorted(RUNS))
def test_a_run_read_here_gives_the_table_of_the_public_build(tmp_path, layout, options):
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run_path.write_text(RUNS[layout])
    qrels_path.write_text(QRELS)
    built = build_tables([str(run_path)], str(qrels_path), options)["r"]
    oracle = build_tie_table(read_run(run_path), read_qrels(qrels_path),
                             options.replace(judged_only=False)).view(
        judged_only=options.judged_only)
    ours, theirs = _arrays(built), _arrays(oracle)
    assert ours.keys() == theirs.keys()
    for name in ours:
        np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)
    assert built.doc_ids().tolist() == oracle.doc_ids().tolist()


def test_a_run_or_frame_the_caller_passes_comes_back_untouched():
    frame = pd.DataFrame({"query": ["0", "0", "1"], "doc": ["a", "b", "a"],
                          "score": [1.0, 1.0, 2.0]})
    run = Run("mine", frame.copy())
    qrels = pd.DataFrame({"query": ["0"], "doc": ["b"], "relevance": [1]})
    build_tables({"f": frame, "r": run}, qrels)
    pd.testing.assert_frame_equal(frame, pd.DataFrame({"query": ["0", "0", "1"],
                                                       "doc": ["a", "b", "a"],
                                                       "score": [1.0, 1.0, 2.0]}))
    assert list(run.frame.columns) == ["query", "doc", "score"]
    assert run.frame["score"].tolist() == [1.0, 1.0, 2.0]


@pytest.mark.parametrize("policy", ["best", "worst", "trec_eval", "input",
                                    "random"])
def test_resolving_straight_to_the_scoring_view_gives_the_resolved_tables_view(policy):
    """:meth:`TieTable.resolve_scoring` against the two steps it saves: resolve the whole
    table, then take its compact scoring view (every array equal), on ties of every kind
    (a group of positive and zero grades, a group of zero grades, unjudged documents)."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"query": np.repeat(["a", "b", "c"], 30),
                          "doc": [f"d{i}" for i in rng.permutation(90)],
                          "score": rng.integers(0, 4, 90).astype(float)})
    qrels = pd.DataFrame({"query": ["a"] * 6 + ["b"] * 3, "doc": frame["doc"][[0, 3, 5, 7, 11, 13,
                                                                               31, 40, 50]],
                          "relevance": [2, 0, 1, 3, 0, -1, 1, 1, 0]})
    table = build_tables({"r": frame}, qrels)["r"]
    for view in (table, table.scoring()):
        ours = view.resolve_scoring(policy, seed=3)
        theirs = view.resolve(policy, seed=3).scoring()
        assert ours.policy == theirs.policy and ours.scoring() is ours
        for name, array in _arrays(theirs).items():
            np.testing.assert_array_equal(_arrays(ours)[name], array, err_msg=name)


def test_group_above_is_derived_as_counted_and_kept_by_compact_views():
    """A built table derives ``group_above`` on first use (it is not stored): against a
    count of the documents of the same query with a strictly higher score, and the
    compact views (taken before and after it is derived) keep those values."""
    rng = np.random.default_rng(9)
    frame = pd.DataFrame({"query": rng.choice(["a", "b", "c", "d"], 200),
                          "doc": [f"d{i}" for i in range(200)],
                          "score": rng.integers(0, 6, 200).astype(float)})
    qrels = pd.DataFrame({"query": frame["query"][::7], "doc": frame["doc"][::7],
                          "relevance": rng.integers(0, 3, len(frame[::7]))})
    table = build_tables({"r": frame}, qrels)["r"]
    compact_before = table.scoring()
    starts = table.group_start
    query, score = frame["query"].to_numpy(), frame["score"].to_numpy()
    first_rows = table.doc_row[starts]
    counted = [int(((query == query[r]) & (score > score[r])).sum()) for r in first_rows]
    assert table.group_above.tolist() == counted
    holding = np.unique(np.searchsorted(starts, np.flatnonzero(table.doc_grade > 0),
                                        side="right") - 1)
    assert compact_before.group_above.tolist() == table.group_above[holding].tolist()
    table.drop_views()
    assert table.qrels_groups().group_above.tolist() == table.group_above[np.unique(
        np.searchsorted(starts, np.flatnonzero(table.doc_judged), side="right") - 1)].tolist()


def test_the_summary_summed_a_batch_of_blocks_at_a_time_is_the_same(monkeypatch):
    """The means are exact sums, so summing whole blocks in batches (as a large evaluation
    does) gives the same bits as one call over every block: batches of one block and of a
    few against one batch of all (the bundled trec_eval run, 50 queries x 94 measures)."""
    from tiedrank.evaluation import scoring as evaluation

    options = EvaluationOptions(ties=("expected", "trec_eval"))
    tables = build_tables(["sample_data/trec_eval/results.test"],
                          "sample_data/trec_eval/qrels.test", options)
    one_call = score_tables(tables, ["all_trec"], options).summary
    for at_once in (1, 120, 333):
        monkeypatch.setattr(evaluation, "_SUMMED_AT_ONCE", at_once)
        pd.testing.assert_frame_equal(score_tables(tables, ["all_trec"], options).summary,
                                      one_call)
