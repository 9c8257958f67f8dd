"""Learn page logic (no Streamlit): the step-by-step E[AP] and E[nDCG@k], the exact E[RR]
and the hint written from an edited ranking, against brute force over itertools.permutations."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pandas as pd
import pytest

from tiedrank.dashboard import learn
from tiedrank.dashboard.walkthrough import (
    apply_editor_state,
    exact_ap,
    exact_ndcg,
    exact_rr,
    is_edited,
    ranking_hint,
    scenario_label,
    walkthrough_check,
)

RANKINGS = {
    "S2": ([.9, .8, .8, .6, .5], [0, 1, 0, 0, 0]),
    "V5": ([.9, .7, .7, .7, .7, .1], [0, 0, 0, 1, 0, 1]),
    "V8": ([.99, .97, .97, .97, .95], [0, 1, 0, 1, 0]),
    "V10 graded": ([.9, .8, .8, .8, .3], [1, 0, 3, 2, 0]),
    "two ties, negative grade": ([.5, .5, .4, .4, .4, .1], [2, -1, 0, 1, 3, 1]),
    "all tied": ([.3] * 5, [0, 1, 0, 2, 0]),
    "nothing relevant": ([.9, .8, .8], [0, 0, 0]),
}


def _frame(scores, grades):
    return pd.DataFrame({"doc": [f"d{i + 1}" for i in range(len(scores))], "score": scores, "grade": grades})


def _orderings(scores):
    """Every ordering consistent with the scores, by brute force over all permutations."""
    n = len(scores)
    for perm in itertools.permutations(range(n)):
        if all(scores[perm[i]] >= scores[perm[i + 1]] for i in range(n - 1)):
            yield perm


def _brute(scores, grades, *, k, gain, rel_level):
    rel = [g >= rel_level for g in grades]
    R = sum(rel)
    gains = [max(g, 0) if gain == "linear" else 2 ** max(g, 0) - 1 for g in grades]
    ideal = sorted(gains, reverse=True)
    idcg = sum(x / math.log2(p + 1) for p, x in enumerate(ideal[:k], start=1))
    rr, ap, ndcg, count = Fraction(0), Fraction(0), 0.0, 0
    for perm in _orderings(scores):
        count += 1
        first = next((i + 1 for i, d in enumerate(perm) if rel[d]), None)
        rr += Fraction(1, first) if first else 0
        hits, total = 0, Fraction(0)
        for i, d in enumerate(perm, start=1):
            if rel[d]:
                hits += 1
                total += Fraction(hits, i)
        ap += total / R if R else 0
        dcg = sum(gains[d] / math.log2(i + 1) for i, d in enumerate(perm[:k], start=1))
        ndcg += dcg / idcg if idcg else 0.0
    return rr / count, ap / count, ndcg / count


@pytest.mark.parametrize("name", list(RANKINGS))
@pytest.mark.parametrize("k, gain, rel_level", [(3, "linear", 1), (5, "exp", 1), (2, "linear", 2)])
def test_walkthrough_equals_brute_force(name, k, gain, rel_level):
    scores, grades = RANKINGS[name]
    frame = _frame(scores, grades)
    rr, ap, ndcg = _brute(scores, grades, k=k, gain=gain, rel_level=rel_level)
    assert exact_rr(frame, rel_level) == rr  # exact fractions, no tolerance
    assert exact_ap(frame, rel_level).total == ap
    assert exact_ndcg(frame, k=k, gain=gain, rel_level=rel_level).total == pytest.approx(ndcg, abs=1e-12)
    # the page's check table: groups, library and enumeration agree
    result = learn.evaluate_toy(frame, k=k, rel_level=rel_level, gain=gain)
    steps = walkthrough_check(frame, result, k=k, gain=gain, rel_level=rel_level)
    values = steps.check.set_index("metric")
    for metric, truth in ((f"E[AP]", float(ap)), (f"E[nDCG@{k}]", ndcg)):
        assert values.loc[metric].to_numpy() == pytest.approx([truth] * 3, abs=1e-12)
    # the AP contributions (exact fractions) add up to R * E[AP]
    contributions = sum((Fraction(c) for c in steps.ap.steps["contribution"]), Fraction(0))
    assert contributions == steps.ap.parts["R"] * ap


def test_hint_follows_an_edited_ranking():
    frame = learn.SCENARIOS["S2"].frame()
    frame.loc[3, "score"] = 0.8  # d4 joins d2 and d3
    hint = ranking_hint(frame)
    assert "d2, d3 and d4 share score 0.8 (ranks 2-4)" in hint
    assert "E[RR] = 13/36" in hint and "5/12" not in hint
    assert "rank 2 with probability 1/3, rank 3 with probability 1/3, rank 4 with probability 1/3" in hint
    assert "no ties" in ranking_hint(_frame([.9, .8, .7], [0, 1, 0]))
    assert "always at rank 2: E[RR] = 1/2" in ranking_hint(_frame([.9, .8, .7], [0, 1, 0]))
    assert "No document has a grade >= 1" in ranking_hint(_frame([.9, .9], [0, 0]))


def test_editor_state_and_edited_detection():
    s2 = learn.SCENARIOS["S2"]
    assert not is_edited(s2, apply_editor_state(s2.frame(), None))
    assert not is_edited(s2, apply_editor_state(s2.frame(), {"edited_rows": {}, "added_rows": [{}],
                                                             "deleted_rows": []}))
    state = {"edited_rows": {"2": {"score": 0.95}}, "added_rows": [{"doc": "d9", "score": 0.1, "grade": 1}],
             "deleted_rows": [0]}
    shown = apply_editor_state(s2.frame(), state)
    assert shown["doc"].tolist() == ["d2", "d3", "d4", "d5", "d9"]
    assert shown["score"].tolist()[1] == 0.95
    assert is_edited(s2, shown)
    assert scenario_label("S2").startswith("S2:")
    assert scenario_label("S2", edited=True).startswith("Custom")
