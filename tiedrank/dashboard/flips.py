"""Verdict-flip matrix: for every pair of runs and metric, does the order of the two runs flip
between the expectation over tie orderings and trec_eval's order, or under random tie-breaks?

Streamlit-free; P(win) comes from :func:`tiedrank.stats.win_probability` (exact on lattice
metrics, sampled otherwise).
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from ..stats import win_probability


def flip_matrix(evaluation, metrics: Sequence[str], *, n_draws: int = 200, seed: int = 0,
                gain: str = "linear") -> pd.DataFrame:
    """One row per (run_a, run_b, metric) with run_a before run_b in the evaluation.

    Columns: expected_diff (mean A - mean B, expectation), trec_eval_diff (the same in
    trec_eval's order), flips_trec_eval (the two differences have opposite signs), p_win
    (P(A beats B) under independent random tie-breaks), p_flip (probability that a random
    tie-break reverses the expected order: ``1 - p_win`` when A is ahead in expectation,
    ``p_win`` when behind) and method ("exact" or "sampled").
    """
    summary = evaluation.summary.set_index(["run", "metric", "policy"])["value"]
    rows = []
    for run_a, run_b in combinations(list(evaluation.tables), 2):
        for metric in metrics:
            diff = {p: summary.get((run_a, metric, p), np.nan) - summary.get((run_b, metric, p), np.nan)
                    for p in ("expected", "trec_eval")}
            win = win_probability(evaluation.tables[run_a], evaluation.tables[run_b], metric,
                                  n_draws=n_draws, seed=seed, gain=gain)
            ahead = diff["expected"] >= 0
            rows.append({
                "run_a": run_a, "run_b": run_b, "metric": metric,
                "expected_diff": diff["expected"], "trec_eval_diff": diff["trec_eval"],
                "flips_trec_eval": bool(np.sign(diff["expected"]) * np.sign(diff["trec_eval"]) < 0),
                "p_win": win.probability,
                "p_flip": 1 - win.probability if ahead else win.probability,
                "method": win.method,
            })
    return pd.DataFrame(rows)
