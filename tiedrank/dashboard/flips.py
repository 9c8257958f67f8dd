"""Verdict-flip matrix: for every pair of runs and metric, does the order of the two runs flip
between the expectation over tie orderings and trec_eval's order, or under random tie-breaks?

Streamlit-free; P(win) comes from :func:`tiedrank.stats.win_probabilities` (exact on lattice
metrics, sampled otherwise; each run's random tie-breaks drawn once for all its pairs).
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
import numpy as np
import pandas as pd

from ..stats import win_probabilities


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
    cells = [(run_a, run_b, metric) for run_a, run_b in combinations(list(evaluation.tables), 2)
             for metric in metrics]  # the order of win_probabilities: pairs outer, metrics inner
    wins = win_probabilities(evaluation.tables, metrics, n_draws=n_draws, seed=seed, gain=gain)
    rows = []
    for (run_a, run_b, metric), win in zip(cells, wins, strict=True):
        diff = {p: summary.get((run_a, metric, p), np.nan) - summary.get((run_b, metric, p), np.nan)
                for p in ("expected", "trec_eval")}
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


def flip_matrix_offer(n_runs: int, metrics: Sequence[str], n_draws: int = 200) -> str:
    """What computing the matrix involves, in words (the page offers it on demand: it is
    the last section, and every pair of runs on every metric is the page's largest job).

    Examples
    --------
    >>> flip_matrix_offer(8, ["RR", "P@10"])
    '28 pairs of runs x 2 metrics: P(win) exact on lattice metrics (P@k, R@k, Success@k, Rprec), else from 200 random tie-breaks of each run.'
    """
    pairs = n_runs * (n_runs - 1) // 2
    return (f"{pairs:,} pair{'s' if pairs != 1 else ''} of runs x {len(metrics)} "
            f"metric{'s' if len(metrics) != 1 else ''}: P(win) exact on lattice metrics (P@k, R@k, "
            f"Success@k, Rprec), else from {n_draws:,} random tie-breaks of each run.")
