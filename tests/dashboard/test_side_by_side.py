"""tiedrank.dashboard.side_by_side against computations made here from the run frames:
rank spans counted by hand from the scores, relevant documents read from the qrels,
per-query ranges from tiedrank.evaluate (policy by policy) and P@k's best / worst /
expected counted by hand from the tie groups."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tiedrank import EvaluationOptions
from tiedrank.core.data import Qrels, Run
from tiedrank.dashboard import side_by_side as sbs
from tiedrank.dashboard.figures.side_by_side import slope_figure
from tiedrank.evaluation import evaluate
from tiedrank.io import read_qrels, read_run
from tiedrank.core.ties import build_tie_table

SIM = Path(__file__).resolve().parents[2] / "sample_data" / "simulated"
REL = 2


@pytest.fixture(scope="module")
def data():
    qrels = read_qrels(SIM / "qrels.txt")
    a = read_run(SIM / "runs" / "3-point.txt")
    full_b = read_run(SIM / "runs" / "0-10.txt")
    # B drops a few documents (among them relevant ones) so that "not retrieved" happens
    frame = full_b.frame
    dropped = frame[frame["query"].isin(["q001", "q002"])].groupby("query").head(3)
    b = Run("0-10 cut", frame.drop(index=dropped.index).reset_index(drop=True))
    tables = {r.name: build_tie_table(r, qrels, EvaluationOptions(rel_level=REL)) for r in (a, b)}
    return qrels, a, b, tables, set(dropped["doc"])


def _spans(run: Run, query: str) -> dict[str, tuple[int, int]]:
    """doc -> (first, last): 1 + documents scored higher, documents scored at least as high."""
    rows = run.frame[run.frame["query"] == query]
    scores = rows["score"].to_numpy()
    return {doc: (int((scores > s).sum()) + 1, int((scores >= s).sum()))
            for doc, s in zip(rows["doc"], scores)}


def _label(span) -> str:
    return str(span[0]) if span[0] == span[1] else f"{span[0]}-{span[1]}"


@pytest.mark.parametrize("query", ["q001", "q002", "q017", "q050"])
def test_places_match_spans_counted_by_hand(data, query):
    qrels, a, b, tables, _ = data
    docs = sbs.side_by_side(tables[a.name], tables[b.name], query)
    grades = qrels.frame[qrels.frame["query"] == query].set_index("doc")["relevance"]
    for side, own, other in (("A", a, b), ("B", b, a)):
        rows = docs[docs["side"] == side].set_index("doc")
        mine, theirs = _spans(own, query), _spans(other, query)
        assert set(rows.index) == set(mine)
        for doc, row in rows.iterrows():
            assert (row["first"], row["last"]) == mine[doc]
            assert row["ranks"] == _label(mine[doc])
            assert row["expected_rank"] == sum(mine[doc]) / 2
            assert row["grade"] == grades.get(doc, 0)
            assert row["relevant"] == (grades.get(doc, 0) >= REL)
            if doc in theirs:
                assert row["other_ranks"] == _label(theirs[doc])
                assert row["shift"] == sum(theirs[doc]) / 2 - sum(mine[doc]) / 2
            else:
                assert row["other_ranks"] == sbs.NOT_RETRIEVED and np.isnan(row["shift"])
        # rows are in rank order, groups numbered 1, 2, ... down the list
        assert rows["first"].is_monotonic_increasing
        assert rows["group"].tolist() == pd.factorize(rows["first"])[0].__add__(1).tolist()


def test_top_keeps_the_groups_starting_within_it(data):
    _, a, b, tables, _ = data
    docs = sbs.side_by_side(tables[a.name], tables[b.name], "q003", top=5)
    spans = _spans(a, "q003")
    assert set(docs.loc[docs["side"] == "A", "doc"]) == {d for d, s in spans.items() if s[0] <= 5}


def test_relevant_placement_by_hand(data):
    qrels, a, b, tables, dropped = data
    query = "q001"
    placement = sbs.relevant_placement(tables[a.name], tables[b.name], qrels.frame, query, REL)
    judged = qrels.frame[(qrels.frame["query"] == query) & (qrels.frame["relevance"] >= REL)]
    assert set(placement["doc"]) == set(judged["doc"])
    assert len(placement) == 2 * len(judged)
    assert placement["grade"].is_monotonic_decreasing
    for run, side in ((a, "A"), (b, "B")):
        spans = _spans(run, query)
        for row in placement[placement["side"] == side].itertuples():
            assert row.run == run.name
            if row.doc in spans:
                assert row.retrieved and row.ranks == _label(spans[row.doc])
                assert row.expected_rank == sum(spans[row.doc]) / 2
            else:
                assert not row.retrieved and row.ranks == sbs.NOT_RETRIEVED
    missing_in_b = placement[(placement["side"] == "B") & ~placement["retrieved"]]
    assert len(missing_in_b) and set(missing_in_b["doc"]) == set(judged["doc"]) & dropped
    wide = sbs.placement_wide(placement)
    assert len(wide) == len(judged)
    assert list(wide.columns) == ["doc", "grade", f"ranks in {a.name}", f"ranks in {b.name}", "shift"]


@pytest.mark.parametrize("metric", ["nDCG@10", "RR", "AP"])
def test_query_ranges_are_evaluate_policy_by_policy(data, metric):
    qrels, a, b, _, _ = data
    runs = {a.name: a, b.name: b}
    together = evaluate(runs, qrels, [metric], ties=["all"], rel_level=REL)
    ranges = sbs.ranges_on_query(together, [b.name, a.name], "q002", metric).set_index("run")
    assert list(ranges.index) == [b.name, a.name]
    for policy, column in (("expected", "expected"), ("best", "best"),
                           ("worst", "worst"), ("trec_eval", "trec_eval")):
        alone = evaluate(runs, qrels, [metric], ties=policy, rel_level=REL).per_query
        for name in runs:
            value = alone[(alone["run"] == name) & (alone["query"] == "q002")]["value"].item()
            assert ranges.loc[name, column] == pytest.approx(value, abs=1e-12)
    assert (ranges["range"] == ranges["best"] - ranges["worst"]).all()


def test_precision_range_counted_by_hand(data):
    """P@10's best, worst and expected from the tie groups straddling rank 10."""
    qrels, a, b, tables, _ = data
    k, query = 10, "q004"
    ev = evaluate({a.name: a}, qrels, [f"P@{k}"], ties=["all"], rel_level=REL)
    got = sbs.ranges_on_query(ev, [a.name], query, f"P@{k}").iloc[0]
    rel = set(qrels.frame[(qrels.frame["query"] == query) & (qrels.frame["relevance"] >= REL)]["doc"])
    groups: dict[tuple[int, int], list[str]] = {}
    for doc, span in _spans(a, query).items():
        groups.setdefault(span, []).append(doc)
    best = worst = expected = 0.0
    for (first, last), docs in groups.items():
        inside = max(0, min(last, k) - first + 1)  # the group's places within the top k
        r, size = sum(d in rel for d in docs), len(docs)
        best += min(r, inside)
        worst += max(0, r - (size - inside))
        expected += r * inside / size
    assert got["best"] == pytest.approx(best / k)
    assert got["worst"] == pytest.approx(worst / k)
    assert got["expected"] == pytest.approx(expected / k)


def test_query_without_relevant_document_scores_zero_with_no_range():
    qrels = Qrels(pd.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "relevance": [0, 0]}))
    run = Run("r", pd.DataFrame({"query": "q", "doc": ["a", "b"], "score": [1.0, 1.0]}))
    ev = evaluate({"r": run}, qrels, ["RR"], ties=["all"])
    ranges = sbs.ranges_on_query(ev, ["r"], "q", "RR")  # trec_eval's query set: RR 0, counted
    assert ranges[["expected", "best", "worst", "trec_eval", "range"]].to_numpy().tolist() == [[0.0] * 5]
    assert sbs.ranges_on_query(ev, ["r"], "missing", "RR").empty
    table = build_tie_table(run, qrels)
    assert sbs.relevant_placement(table, table, qrels.frame, "q", 1).empty


def test_flows_count_every_document_once(data):
    _, a, b, tables, _ = data
    docs = sbs.side_by_side(tables[a.name], tables[b.name], "q001")
    flows = sbs.group_flows(docs, 20)
    top = set(docs[docs["first"] <= 20]["doc"])
    assert flows["n"].sum() == len(top)
    assert flows["b_first"].isna().any()  # documents the cut run B does not return
    fig = slope_figure(flows, a.name, b.name, top=20)
    assert "not retrieved" in fig.layout.yaxis.ticktext


def test_url_round_trip_and_validation():
    choices = {"sbs_run_a": "x", "sbs_run_b": "y", "sbs_query": "q1", "sbs_metric": "RR"}
    params = sbs.url_from_choices(choices)
    assert params == {"run_a": "x", "run_b": "y", "query": "q1", "metric": "RR"}
    assert sbs.choices_from_url(params, ["x", "y"], ["q1"], ["RR"]) == choices
    assert sbs.choices_from_url({"run_a": "../x", "query": "q9", "metric": "RR"},
                                ["x", "y"], ["q1"], ["RR"]) == {"sbs_metric": "RR"}
    assert sbs.drill_choices("x", "y", "q1", "RR") == choices
