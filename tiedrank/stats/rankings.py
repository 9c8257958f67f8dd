"""Orderings compared: systems ranked under each tie policy, and two runs' document orders.

* :func:`policy_rankings` ranks many systems under each tie policy and
  :func:`ranking_agreement` compares those rankings with Kendall's tau-b: anything below 1
  means the tie-break reorders systems.
* :func:`rank_correlation` compares two runs' orderings of the documents, per query
  (tie-aware Kendall tau-b and Spearman on the documents both retrieved).
"""
from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from ..core.data import Run
from ..evaluation import Evaluation
from ..metrics import Metric
from ..core.ties import TieTable
from ..evaluation.summaries import summarize
from .pairing import per_query_frame, resolve_metric, resolve_policy

__all__ = ["RankCorrelation", "policy_rankings", "rank_correlation", "ranking_agreement"]


def policy_rankings(source: Evaluation | pd.DataFrame, metric: str | Metric, *,
                    policies: Sequence[str] | None = None) -> pd.DataFrame:
    """The system ranking under each tie policy.

    Returns
    -------
    DataFrame
        One row per run: run, then for each policy ``<policy>`` (the run's summary of the
        metric: its mean, or the geometric mean of gm_map and gm_bpref, the sum of the
        ``num_*`` counts, exactly as ``Evaluation.summary``) and ``rank_<policy>`` (1 =
        best; equal summaries share the average rank).
    """
    frame = per_query_frame(source)
    metric = resolve_metric(frame, metric)
    labels = ([resolve_policy(frame, p) for p in policies] if policies is not None
              else list(dict.fromkeys(frame["policy"])))
    block = frame[frame["metric"] == metric.name]
    means = summarize(block, metrics=(metric,)).pivot(index="run", columns="policy", values="value")
    means = means.loc[list(dict.fromkeys(block["run"])), labels]
    out = pd.DataFrame({"run": means.index.astype(str)})
    for label in labels:
        out[label] = means[label].to_numpy()
    for label in labels:
        out[f"rank_{label}"] = means[label].rank(ascending=False, method="average").to_numpy()
    return out


def ranking_agreement(source: Evaluation | pd.DataFrame, metric: str | Metric, *,
                      policies: Sequence[str] | None = None) -> pd.DataFrame:
    """Kendall's tau-b between the system rankings of every pair of tie policies.

    tau_b = (C - D) / sqrt((C + D + T_x)(C + D + T_y)) over the runs' mean values
    (``scipy.stats.kendalltau``, tie-aware); tau = 1 means the policies rank the systems
    identically, and anything lower means the tie-break reorders systems.

    Returns
    -------
    DataFrame(policy_a, policy_b, kendall_tau, p_value)
    """
    from scipy import stats  # here, not at the top: the CLI starts without scipy
    ranking = policy_rankings(source, metric, policies=policies)
    labels = [c for c in ranking.columns if c != "run" and not c.startswith("rank_")]
    rows = []
    for a, b in itertools.combinations(labels, 2):
        with warnings.catch_warnings():  # constant input -> NaN, reported as such
            warnings.simplefilter("ignore")
            result = stats.kendalltau(ranking[a], ranking[b], variant="b")
        rows.append({"policy_a": a, "policy_b": b, "kendall_tau": float(result.statistic),
                     "p_value": float(result.pvalue)})
    return pd.DataFrame(rows, columns=["policy_a", "policy_b", "kendall_tau", "p_value"])


def score_frame(run) -> tuple[str, pd.DataFrame]:
    """(name, DataFrame[query, doc, score]) from a Run, TieTable or DataFrame."""
    if isinstance(run, Run):
        return run.name, run.frame[["query", "doc", "score"]]
    if isinstance(run, TieTable):
        return run.run_name, pd.DataFrame({"query": run.queries[run.doc_query],
                                           "doc": run.doc_ids(), "score": run.doc_score})
    if isinstance(run, pd.DataFrame):
        missing = [c for c in ("query", "doc", "score") if c not in run.columns]
        if missing:
            raise ValueError(f"run frame lacks column(s) {', '.join(missing)}")
        return "run", run[["query", "doc", "score"]]
    raise TypeError("expected a Run, a TieTable or a DataFrame with query, doc, score")


@dataclass(frozen=True, eq=False)
class RankCorrelation:
    """Per-query rank correlations of two runs and their summary.

    ``per_query``: query, n_common, kendall_tau_b, spearman (NaN with fewer than two
    common documents or when one run gives them all the same score).
    ``summary``: statistic, mean, median, n_queries (with a value), n_undefined.
    """

    per_query: pd.DataFrame
    summary: pd.DataFrame


def rank_correlation(run_a, run_b) -> RankCorrelation:
    """Kendall tau-b and Spearman correlation of two runs' scores, per query.

    Computed on the documents both runs retrieved for the query (inner join on
    (query, doc)). Tau-b is tie-aware: tau_b = (C - D) / sqrt((C + D + T_a)(C + D + T_b)),
    T_a, T_b the pairs tied only in one run; Spearman is Pearson's r on average ranks.
    One merge and one pass over the query groups (scipy per query): linear in the input.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"query": "q", "doc": list("abcd"), "score": [3., 2., 2., 1.]})
    >>> b = pd.DataFrame({"query": "q", "doc": list("abcd"), "score": [3., 3., 2., 1.]})
    >>> float(round(rank_correlation(a, b).per_query["kendall_tau_b"][0], 4))
    0.8
    """
    from scipy import stats  # here, not at the top: the CLI starts without scipy
    _, fa = score_frame(run_a)
    _, fb = score_frame(run_b)
    merged = fa.merge(fb, on=["query", "doc"], suffixes=("_a", "_b"), how="inner")
    rows = []
    with warnings.catch_warnings():  # constant input warns and returns NaN: reported below
        warnings.simplefilter("ignore")
        for query, block in merged.groupby("query", sort=True):
            x, y = block["score_a"].to_numpy(), block["score_b"].to_numpy()
            tau = rho = math.nan
            if len(x) >= 2:
                tau = float(stats.kendalltau(x, y, variant="b").statistic)
                rho = float(stats.spearmanr(x, y).statistic)
            rows.append((str(query), len(x), tau, rho))
    per_query = pd.DataFrame(rows, columns=["query", "n_common", "kendall_tau_b", "spearman"])
    summary = pd.DataFrame([
        {"statistic": name, "mean": float(per_query[name].mean()),
         "median": float(per_query[name].median()),
         "n_queries": int(per_query[name].notna().sum()),
         "n_undefined": int(per_query[name].isna().sum())}
        for name in ("kendall_tau_b", "spearman")])
    return RankCorrelation(per_query, summary)

