"""Sentences that must say what is true (issue 28, item 5): Tie structure's query without a
relevant document follows the sidebar's "Queries without a relevant document"; Compare says
whose best and worst case; TsRR's "appending raises it" never reads "from 0.5000 to 0.5000";
Overview's verdict speaks in the plural when runs tie for best (test_fragile_and_verdict).
"""
from __future__ import annotations

import re
from decimal import Decimal, getcontext
from pathlib import Path

import pandas as pd
import pytest
from apptest_support import assert_no_trouble
from streamlit.testing.v1 import AppTest

from tiedrank.dashboard import learn
from tiedrank.dashboard.compare import stability_sentence
from tiedrank.dashboard.tsrr import alpha_steps, appended_example, appended_sentence
from tiedrank.io import read_qrels
from tiedrank.stats.stability import PairStability

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def _exact_penalty(f_g: int, f_total: int, alpha: float) -> Decimal:
    """TsRR's penalty (ln(1+F_G)/ln(1+F_total))^(1/alpha) by its definition
    (docs/metrics-reference.md) in 60-digit decimals, whose exponent range holds even
    0.43^1000: the oracle. TsRR = (1 - penalty) / (r_pre + 1)."""
    getcontext().prec = 60
    ratio = Decimal(1 + f_g).ln() / Decimal(1 + f_total).ln()
    return ratio ** (Decimal(1) / Decimal(repr(alpha)))


def test_appended_sentence_is_true_at_every_alpha():
    """Every alpha the page offers, a few counts appended: the sentence's numbers differ and
    rise as TsRR does in exact arithmetic, or it says the change is below 1e-12 and it is."""
    base = learn.SCENARIOS["S2"]  # d1 irrelevant above; d2 relevant tied with d3; d4, d5 below
    r_pre, f_g, f_total = 1, 1, 4
    seen_tiny = seen_rise = 0
    for alpha in alpha_steps(-3.0, 3.0):
        example = appended_example(base.scores, base.grades, max_appended=200, alpha=alpha)
        column = f"TsRR(alpha={alpha:g})"
        penalty = _exact_penalty(f_g, f_total, alpha)
        before = (1 - penalty) / (r_pre + 1)
        assert float(before) == pytest.approx(example[column].iloc[0], abs=1e-15)
        for n in (1, 10, 200):
            text, delta = appended_sentence(example[column].iloc[0], example[column].iloc[n], n, alpha)
            penalty_after = _exact_penalty(f_g, f_total + n, alpha)
            assert penalty_after < penalty  # the pathology: appending raises TsRR at every alpha
            rise = (penalty - penalty_after) / (r_pre + 1)
            after = before + rise
            shown = re.search(r"raises TsRR from ([0-9.]+) to \*\*([0-9.]+)\*\*", text)
            if shown:
                seen_rise += 1
                low, high = shown.groups()
                assert low != high, text
                half = Decimal(10) ** -len(low.split(".")[1]) / 2 + Decimal("1e-15")
                assert abs(Decimal(low) - before) <= half and abs(Decimal(high) - after) <= half
                assert delta.startswith("+")
            else:
                seen_tiny += 1
                assert "less than 10⁻¹²" in text and rise < Decimal("1e-12"), text
                assert not re.search(r"from (\S+) to \*\*\1\*\*", text)
    assert seen_tiny and seen_rise  # both wordings were exercised (small and large alphas)


def test_appended_sentence_with_nothing_appended():
    text, delta = appended_sentence(0.2847, 0.2847, 0, 1.0)
    assert "nothing appended" in text.lower() and "from" not in text and delta == "nothing appended"


def _stability(verdicts: dict[str, str]) -> PairStability:
    frame = pd.DataFrame({"policy": list(verdicts), "verdict": list(verdicts.values()),
                          "p_value": 0.5, "significant": False, "agrees": True})
    return PairStability(run="A", baseline="B", metric="RR", test="t", alpha=0.05, n_draws=100,
                         seed=0, p_win=0.4, se=0.01, p_equal=0.0, draws=pd.DataFrame(),
                         verdicts=frame)


def test_compare_says_whose_best_and_worst_case():
    text = stability_sentence(_stability({"trec_eval": "loss", "expected": "win",
                                          "best": "win", "worst": "win"}))
    assert "Under trec_eval's order A loses against B on RR" in text
    assert "It wins even in both runs' worst case (each run's ties broken its worst way)." in text
    assert "even in the worst case" not in text
    mixed = stability_sentence(_stability({"trec_eval": "win", "expected": "win",
                                           "best": "win", "worst": "loss"}))
    assert ("With each run's ties broken its best way it wins; with each broken its worst way it "
            "loses.") in mixed


@pytest.mark.usefixtures("navigation_pages")
def test_tie_structure_follows_the_query_set_setting():
    """LLMJudge at relevance level 3: a query without a grade-3 document. Counted as 0 by
    default (trec_eval); left out of the means with "leave them out", as Compare and Spread
    say (evaluation.rule)."""
    qrels = read_qrels(ROOT / "sample_data" / "llmjudge" / "qrels.test.txt").frame
    top = qrels.groupby("query")["relevance"].max()
    query = str(top[top < 3].index[0])
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.number_input(key="rel_level").set_value(3).run()
    at.switch_page("pages/tie_structure.py").run()
    at.selectbox(key="tie_query").set_value(query).run()
    assert_no_trouble(at)
    said = [i.value for i in at.info if "no relevant document" in i.value]
    assert len(said) == 1 and "count it as 0, as trec_eval does" in said[0]
    at.selectbox(key="query_set").set_value("relevant").run()
    assert_no_trouble(at)
    said = [i.value for i in at.info if "no relevant document" in i.value]
    assert len(said) == 1, [i.value for i in at.info]
    assert "the means leave it out" in said[0] and "count it as 0" not in said[0]
    # the setting's own words, as the sidebar shows them
    assert "leave them out" in said[0]
