"""Rank-biased overlap of the two runs the Compare page examines (no streamlit here).

Compare's "One run against the baseline" section says how alike the two runs' document
orders are, query by query: :func:`tiedrank.stats.rank_biased_overlap` on the runs' tie-group
tables (the evaluated queries), in Corsi & Urbano's three treatments of ties. This module
shapes it for the page: :func:`overlap_of_runs`, :func:`overlap_table` (one row per query,
the extrapolated value and the bounds of each variant) and :func:`overlap_sentence`.
(Its own module: :mod:`tiedrank.dashboard.compare` is at the size limit of one module.)

Examples
--------
>>> import pandas as pd
>>> from tiedrank.stats import rank_biased_overlap
>>> a = pd.DataFrame({"query": "q", "doc": ["x", "y", "z"], "score": [2.0, 1.0, 1.0]})
>>> b = pd.DataFrame({"query": "q", "doc": ["x", "y", "z"], "score": [3.0, 2.0, 1.0]})
>>> overlap_table(rank_biased_overlap(a, b, p=0.9)).columns.tolist()[:5]
['query', 'n_run', 'n_baseline', 'rbo_w', 'rbo_a']
"""
from __future__ import annotations

import pandas as pd

from .. import stats as cmp
from ..evaluation import Evaluation
from ..report import markdown_literal
from ..stats.overlap import VARIANTS

P_DEFAULT = 0.9
"""The page's first persistence: the depth weights (1 - p) p^(d-1) reach about 10 documents."""
VARIANT_WORDS = {"w": "ties as equality", "a": "ties averaged over their orders",
                 "b": "a correction for ties"}
"""How the page names Corsi & Urbano's RBO^w, RBO^a and RBO^b."""
_SUPERSCRIPT = {"w": "ʷ", "a": "ᵃ", "b": "ᵇ"}


def overlap_of_runs(evaluation: Evaluation, run: str, baseline: str, p: float) -> cmp.RankOverlap:
    """:func:`tiedrank.stats.rank_biased_overlap` of ``run`` and ``baseline`` on the
    evaluation's tie-group tables (its evaluated queries and documents)."""
    return cmp.rank_biased_overlap(evaluation.tables[run], evaluation.tables[baseline], p=p)


def overlap_table(result: cmp.RankOverlap) -> pd.DataFrame:
    """One row per query: query, n_run, n_baseline, then the extrapolated RBO of each
    variant (``rbo_w``, ``rbo_a``, ``rbo_b``) and its bounds (``min_*``, ``max_*``)."""
    frame = result.per_query
    wide = frame.pivot(index="query", columns="variant", values=["ext", "min", "max"])
    out = frame.drop_duplicates("query")[["query", "n_a", "n_b"]] \
        .rename(columns={"n_a": "n_run", "n_b": "n_baseline"}).set_index("query")
    for bound, prefix in (("ext", "rbo"), ("min", "min"), ("max", "max")):
        for variant in VARIANTS:
            out[f"{prefix}_{variant}"] = wide[(bound, variant)]
    return out.reset_index()


def overlap_sentence(result: cmp.RankOverlap, run: str, baseline: str) -> str:
    """The means in words (Markdown; the run names escaped)."""
    summary = result.summary.set_index(["variant", "bound"])
    n = int(summary.loc[("a", "ext"), "n_queries"])
    if n == 0:
        return (f"{markdown_literal(run)} and {markdown_literal(baseline)} share no evaluated "
                "query with documents: rank-biased overlap is undefined.")
    means = ", ".join(f"**{summary.loc[(v, 'ext'), 'mean']:.3f}** with {VARIANT_WORDS[v]} "
                      f"(RBO{_SUPERSCRIPT[v]})"
                      for v in VARIANTS)
    residual = summary.loc[("a", "res"), "mean"]
    queries = "query" if n == 1 else "queries"
    return (f"Over {n} {queries}, the mean extrapolated rank-biased overlap (p = {result.p:g}) of "
            f"{markdown_literal(run)} and {markdown_literal(baseline)} is {means}; 1 means the "
            f"same order. What the runs' unseen tails could still change (max − min) averages "
            f"{residual:.3f}.")
