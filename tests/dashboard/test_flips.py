"""Verdict-flip matrix: P(win) against exact_win_probability, trec_eval order against the summary."""
from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from apptest_support import APP, assert_no_trouble
from tiedrank import Qrels, Run, evaluate
from tiedrank.dashboard.flips import flip_matrix
from tiedrank.stats import exact_win_probability

SIM = Path(__file__).resolve().parents[2] / "sample_data" / "simulated"


def test_flip_matrix_matches_exact_and_summary():
    rng = np.random.default_rng(5)
    docs = [f"d{i}" for i in range(6)]
    qrels = Qrels(pd.DataFrame({"query": np.repeat(["q1", "q2", "q3"], 6), "doc": docs * 3,
                                "relevance": rng.integers(0, 2, 18)}))
    runs = [Run(name, pd.DataFrame({"query": np.repeat(["q1", "q2", "q3"], 6), "doc": docs * 3,
                                    "score": rng.integers(0, levels, 18).astype(float)}))
            for name, levels in (("A", 2), ("B", 3), ("C", 2))]
    ev = evaluate(runs, qrels, metrics=["P@3"], ties=["expected", "trec_eval"])
    flips = flip_matrix(ev, ["P@3"])
    assert len(flips) == 3
    summary = ev.summary.set_index(["run", "policy"])["value"]
    for row in flips.itertuples():
        exact = exact_win_probability(ev.tables[row.run_a], ev.tables[row.run_b], "P@3")
        assert abs(row.p_win - exact) < 1e-12
        te = summary[(row.run_a, "trec_eval")] - summary[(row.run_b, "trec_eval")]
        ex = summary[(row.run_a, "expected")] - summary[(row.run_b, "expected")]
        assert row.flips_trec_eval == (te * ex < 0)
        assert 0 <= row.p_flip <= 1


def test_compare_page_draws_the_flip_heatmap():
    at = AppTest.from_file(APP, default_timeout=90)
    at.session_state["dataset"] = "simulated"
    at.session_state["rel_level"] = 1
    at.run()
    at.switch_page("pages/compare.py")
    at.run()
    assert_no_trouble(at)
    assert "Verdict-flip matrix: every pair of runs" in [h.value for h in at.header]
    asked = [b for b in at.button if b.key == "compare_flips_compute"]  # none when cached already
    if asked:
        asked[0].click().run()
        assert_no_trouble(at)
    tables = [d.value for d in at.dataframe if "p_flip" in getattr(d.value, "columns", [])]
    assert tables and len(tables[0]) >= 10  # 5 runs: 10 pairs per metric
