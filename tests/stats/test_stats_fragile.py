"""fragile_queries against brute force: every pair of tie orderings of two small random runs."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from oracles import all_orderings, make_inputs, metric_of_ordering

from tiedrank import evaluate
from tiedrank.core.data import Run
from tiedrank.stats import FRAGILE_COLUMNS, fragile_queries

METRICS = {"RR": ("RR", None), "P@2": ("P", 2), "AP": ("AP", None), "nDCG@3": ("nDCG", 3)}


def _random_case(seed: int):
    """Two runs over the same judged documents (so one qrels), scores on few levels: ties."""
    rng = np.random.default_rng(seed)
    grades, extra, scores_a, scores_b = {}, {}, {}, {}
    for q in range(5):
        n = int(rng.integers(2, 6))
        g = rng.integers(0, 3, n).tolist()
        if max(g) == 0:
            g[int(rng.integers(n))] = 1  # every query has a relevant document
        qid = f"q{q}"
        grades[qid], extra[qid] = g, rng.integers(0, 2, int(rng.integers(0, 2))).tolist()
        scores_a[qid] = rng.integers(0, 3, n).astype(float).tolist()
        scores_b[qid] = rng.integers(0, 2, n).astype(float).tolist()
    run_a, qrels = make_inputs({q: (scores_a[q], grades[q], extra[q]) for q in grades})
    run_b, _ = make_inputs({q: (scores_b[q], grades[q], extra[q]) for q in grades})
    cases = {q: (scores_a[q], scores_b[q], grades[q], extra[q]) for q in grades}
    return Run("A", run_a.frame), Run("B", run_b.frame), qrels, cases


def _values(name, k, scores, grades, extra, order):
    return metric_of_ordering(name, k, [grades[i] for i in order], list(grades) + list(extra), 1)


def _trec_eval_order(qid: str, scores: list[float]) -> tuple[int, ...]:
    """trec_eval's order: score descending, then docno descending (doc i is qid-d{i:03d})."""
    return tuple(sorted(range(len(scores)), key=lambda i: (scores[i], f"{qid}-d{i:03d}"),
                        reverse=True))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("metric", list(METRICS))
def test_fragile_queries_match_every_pair_of_orderings(seed, metric):
    run_a, run_b, qrels, cases = _random_case(seed)
    ev = evaluate([run_a, run_b], qrels, [metric], ties="all")
    got = fragile_queries(ev, "A", "B", metric).set_index("query")
    assert list(got.reset_index().columns) == list(FRAGILE_COLUMNS)
    assert sorted(got.index) == sorted(cases)
    name, k = METRICS[metric]
    for qid, (scores_a, scores_b, grades, extra) in cases.items():
        a = np.array([_values(name, k, scores_a, grades, extra, o) for o in all_orderings(scores_a)])
        b = np.array([_values(name, k, scores_b, grades, extra, o) for o in all_orderings(scores_b)])
        diffs = np.array([x - y for x, y in itertools.product(a, b)])  # every pair of orderings
        row = got.loc[qid]
        for column, want in (("expected_a", a.mean()), ("expected_b", b.mean()),
                             ("best_a", a.max()), ("worst_a", a.min()),
                             ("best_b", b.max()), ("worst_b", b.min()),
                             ("max_diff", diffs.max()), ("min_diff", diffs.min())):
            assert row[column] == pytest.approx(want, abs=1e-12), (qid, column)
        te_a = _values(name, k, scores_a, grades, extra, _trec_eval_order(qid, scores_a))
        te_b = _values(name, k, scores_b, grades, extra, _trec_eval_order(qid, scores_b))
        assert row["trec_eval_a"] == pytest.approx(te_a, abs=1e-12), qid
        assert row["trec_eval_b"] == pytest.approx(te_b, abs=1e-12), qid
        for column, x, y in (("winner_expected", a.mean(), b.mean()), ("winner_trec_eval", te_a, te_b)):
            want = "A" if x > y + 1e-9 else "B" if y > x + 1e-9 else "tie"
            assert row[column] == want, (qid, column)
        # fragile: some pair of orderings makes A win the query and another makes B win it
        assert bool(row["fragile"]) == bool((diffs > 1e-9).any() and (diffs < -1e-9).any()), qid


def test_the_cases_exercise_both_answers():
    """The random cases above hold fragile and robust queries (else the test proves little)."""
    flags = []
    for seed in range(6):
        run_a, run_b, qrels, _ = _random_case(seed)
        ev = evaluate([run_a, run_b], qrels, ["RR"], ties="all")
        flags.extend(fragile_queries(ev, "A", "B", "RR")["fragile"])
    assert any(flags) and not all(flags)


def test_missing_policy_and_bad_names_are_explained():
    run_a, run_b, qrels, _ = _random_case(0)
    ev = evaluate([run_a, run_b], qrels, ["RR"], ties=["expected", "trec_eval"])
    with pytest.raises(ValueError, match="'best' tie policy.*ties='all'"):
        fragile_queries(ev, "A", "B", "RR")
    ev = evaluate([run_a, run_b], qrels, ["RR"], ties="all")
    with pytest.raises(ValueError, match="run 'C' not found"):
        fragile_queries(ev, "A", "C", "RR")
    with pytest.raises(ValueError, match="must differ"):
        fragile_queries(ev, "A", "A", "RR")
    with pytest.raises(ValueError, match="not evaluated"):
        fragile_queries(ev, "A", "B", "AP")


def test_queries_only_one_run_has_are_left_out():
    frame = pd.DataFrame([(run, q, "RR", p, v) for run, qs in (("A", ("1", "2")), ("B", ("1",)))
                          for q in qs for p, v in (("expected", 0.5), ("trec_eval", 0.5),
                                                   ("best", 1.0), ("worst", 0.0))],
                         columns=["run", "query", "metric", "policy", "value"])
    out = fragile_queries(frame, "A", "B", "RR")
    assert out["query"].tolist() == ["1"] and out["fragile"].tolist() == [True]
