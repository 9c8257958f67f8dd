"""Tie structure page: per-query tie groups, the top-k strip, group sizes, tie ratio against metric range."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..metrics import Metric
from ..report import natural_rank
from ..core.policies import REPORT_COLUMNS
from ..core.ties import TieTable
from .labels import BEST_CASE, WORST_CASE


def query_overview(table: TieTable, k: int = 10) -> pd.DataFrame:
    """One row per query of ``table``: query, n_retrieved, n_relevant, groups, largest_group,
    tie_ratio (share of retrieved docs in a group of 2+), tie_ratio_top (same within the
    top ``k`` ranks), largest_group_share (largest group / n_retrieved),
    first_relevant_group_size (size of the group holding the first relevant document; 0 if
    none is retrieved)."""
    n_queries = table.n_queries
    tied_doc = np.repeat(table.group_size > 1, table.group_size)
    in_top = table.doc_rank <= k
    tied_all = np.bincount(table.doc_query, weights=tied_doc, minlength=n_queries)
    tied_top = np.bincount(table.doc_query, weights=tied_doc & in_top, minlength=n_queries)
    n_top = np.minimum(table.n_retrieved, k)
    groups = np.bincount(table.group_query, minlength=n_queries)
    largest = np.zeros(n_queries, dtype=np.int64)
    if table.n_groups:
        np.maximum.at(largest, table.group_query, table.group_size)
    first_size = np.zeros(n_queries, dtype=np.int64)
    has_rel = table.group_relevant > 0
    if has_rel.any():
        rel_groups = np.flatnonzero(has_rel)
        rel_query = table.group_query[rel_groups]
        first = np.unique(rel_query, return_index=True)
        first_size[first[0]] = table.group_size[rel_groups[first[1]]]
    with np.errstate(invalid="ignore", divide="ignore"):
        return pd.DataFrame({
            "query": table.queries.astype(str),
            "n_retrieved": table.n_retrieved,
            "n_relevant": table.n_relevant,
            "groups": groups,
            "largest_group": largest,
            "tie_ratio": np.where(table.n_retrieved > 0, tied_all / np.maximum(table.n_retrieved, 1), np.nan),
            "tie_ratio_top": np.where(n_top > 0, tied_top / np.maximum(n_top, 1), np.nan),
            "largest_group_share": np.where(table.n_retrieved > 0,
                                            largest / np.maximum(table.n_retrieved, 1), np.nan),
            "first_relevant_group_size": first_size,
        })


def top_strip(table: TieTable, top: int = 20, queries: Sequence[str] | None = None) -> pd.DataFrame:
    """Tie groups of the top ``top`` ranks of every query, one row per (query, position).

    Columns: query, position (1..top), group (1-based inside the query), group_size,
    group_relevant (relevant documents in the whole group), tied (size > 1), parity
    (group number mod 2, to tell neighbouring groups apart), score, grade and judged (of
    the document at that position; the order inside a group is the expected table's, so
    the cell shows which grades the group holds). Queries without
    results have no rows; ``queries`` restricts and orders the output.
    """
    mask = table.doc_rank <= top
    positions = np.flatnonzero(mask)
    groups = table.doc_group[positions]
    query_index = table.doc_query[positions]
    first_group = np.searchsorted(table.group_query, np.arange(table.n_queries))
    group_number = groups - first_group[query_index] + 1
    frame = pd.DataFrame({
        "query": table.queries[query_index].astype(str),
        "position": table.doc_rank[positions],
        "group": group_number,
        "group_size": table.group_size[groups],
        "group_relevant": table.group_relevant[groups],
        "tied": table.group_size[groups] > 1,
        "parity": group_number % 2,
        "score": table.doc_score[positions],
        "grade": table.doc_grade[positions],
        "judged": table.doc_judged[positions],
    })
    if queries is not None:
        order = {q: n for n, q in enumerate(queries)}
        frame = frame[frame["query"].isin(order)]
        frame = frame.iloc[np.lexsort((frame["position"].to_numpy(),
                                       frame["query"].map(order).to_numpy()))]
    return frame.reset_index(drop=True)


def group_size_counts(table: TieTable, top: int | None = None) -> pd.DataFrame:
    """How many tie groups have each size: size, groups, documents, share_of_documents.

    ``top`` keeps only the groups that start within the top ``top`` ranks.
    """
    sizes = table.group_size if top is None else table.group_size[table.group_above < top]
    values, counts = np.unique(sizes, return_counts=True)
    docs = values * counts
    total = docs.sum()
    return pd.DataFrame({"size": values.astype(np.int64), "groups": counts.astype(np.int64),
                         "documents": docs.astype(np.int64),
                         "share_of_documents": docs / total if total else docs.astype(float)})


def group_size_bins(counts: pd.DataFrame) -> pd.DataFrame:
    """:func:`group_size_counts` output (optionally with a ``run`` column) in power-of-two
    bins of the size: 1, 2, 3–4, 5–8, 9–16, ... Columns: [run], bin (label), lower, upper,
    groups, documents, share_of_documents. Empty bins between the smallest and the largest
    size are kept (zero), so the x axis is even."""
    if counts.empty:
        return pd.DataFrame(columns=["bin", "lower", "upper", "groups", "documents", "share_of_documents"])
    top = int(counts["size"].max())
    uppers = [1]
    while uppers[-1] < top:
        uppers.append(uppers[-1] * 2)
    lowers = [1] + [u // 2 + 1 for u in uppers[1:]]
    labels = [str(lo) if lo == up else f"{lo}–{up}" for lo, up in zip(lowers, uppers)]
    index = np.searchsorted(np.asarray(uppers), counts["size"].to_numpy())
    keys = ["run"] if "run" in counts else []
    frame = counts.assign(_bin=index)
    grouped = frame.groupby(keys + ["_bin"], sort=False)[["groups", "documents"]].sum()
    runs = list(dict.fromkeys(counts["run"])) if keys else [None]
    rows = []
    for run in runs:
        total = counts.loc[counts["run"] == run, "documents"].sum() if keys else counts["documents"].sum()
        for n, (lo, up, label) in enumerate(zip(lowers, uppers, labels)):
            key = (run, n) if keys else n
            groups, docs = (grouped.loc[key].tolist() if key in grouped.index else (0, 0))
            row = {"bin": label, "lower": lo, "upper": up, "groups": int(groups), "documents": int(docs),
                   "share_of_documents": docs / total if total else 0.0}
            rows.append(({"run": run} if keys else {}) | row)
    return pd.DataFrame(rows)


def tie_ratio_vs_range(evaluation, table: TieTable, metric: "str | Metric", k: int = 10,
                       query_text: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Per evaluated query: tie ratios against the metric's range over tie orderings.

    Parameters
    ----------
    evaluation : Evaluation
        Evaluated with ``ties="all"`` (at least the best and worst cases) for ``metric``.
    table : TieTable
        The run's expected table (for the tie ratios).

    Returns
    -------
    DataFrame
        query, text, tie_ratio, tie_ratio_top, expected, best, worst, trec_eval, range
        (best - worst), n_relevant, n_retrieved, first_relevant_group_size. One row per
        query that is in the evaluation's means.
    """
    metric = str(metric)  # a Metric or its name, as the settings validated it
    per_query = evaluation.per_query
    rows = per_query[(per_query["run"].astype(str) == table.run_name)
                     & (per_query["metric"].astype(str) == metric)]
    wide = rows.pivot_table(index="query", columns="policy", values="value",
                            observed=True, sort=False)
    wide.columns = [str(c) for c in wide.columns]
    wide = wide.rename(columns=REPORT_COLUMNS).reset_index()  # best, worst: as the report
    wide["query"] = wide["query"].astype(str)
    stats = query_overview(table, k)
    out = stats.merge(wide, on="query", how="inner")
    if {"best", "worst"} <= set(out.columns):
        out["range"] = out["best"] - out["worst"]
    out.insert(1, "text", out["query"].map(lambda q: (query_text or {}).get(q, "")))
    return out.reset_index(drop=True)


def query_values(evaluation, run: str, query: str) -> pd.DataFrame:
    """One query's metric values under every evaluated policy: metric, expected, worst,
    best, trec_eval (columns for the policies present). Empty if the query is not in the
    evaluation's means (the run does not answer it)."""
    per_query = evaluation.per_query
    rows = per_query[(per_query["run"].astype(str) == run) & (per_query["query"].astype(str) == query)]
    if rows.empty:
        return pd.DataFrame(columns=["metric"])
    wide = rows.pivot_table(index="metric", columns="policy", values="value", observed=True, sort=False)
    wide.columns = [str(c) for c in wide.columns]
    wide = wide.rename(columns=REPORT_COLUMNS)  # best, worst: as the report
    order = [REPORT_COLUMNS[p] for p in ("expected", WORST_CASE, BEST_CASE, "trec_eval")
             if REPORT_COLUMNS[p] in wide.columns]
    wide = wide[order + [c for c in wide.columns if c not in order]]
    wide.index = wide.index.astype(str)
    return wide.rename_axis("metric").reset_index()


QUERY_ORDERS = ("query id", "tie ratio in the top ranks", "size of the first group")


STRIP_ROWS = 1000
"""The most queries the top-ranks strip draws (one row each): beyond, an evenly spaced
sample of the ordered queries, so that what the browser receives stays bounded (6,980
queries made an 8 MB heatmap)."""


def strip_rows(queries: Sequence[str], limit: int = STRIP_ROWS) -> list[str]:
    """``queries`` (in order) when at most ``limit``, else every n-th of them (n the
    smallest step that keeps at most ``limit``), the first always kept.

    >>> strip_rows([f"q{i}" for i in range(10)], 4)
    ['q0', 'q3', 'q6', 'q9']
    >>> strip_rows(["a", "b"], 4)
    ['a', 'b']
    """
    step = max(1, -(-len(queries) // limit))
    return list(queries[::step])


def order_queries(table: TieTable, order: str = "query id", top: int = 20) -> list[str]:
    """Query ids of ``table`` (those with results) in one of :data:`QUERY_ORDERS`."""
    stats = query_overview(table, top)
    stats = stats[stats["n_retrieved"] > 0]
    if order == "tie ratio in the top ranks":
        stats = stats.sort_values(["tie_ratio_top", "query"], ascending=[False, True], kind="stable")
    elif order == "size of the first group":
        first = table.group_size[np.searchsorted(table.group_query, np.flatnonzero(table.n_retrieved > 0))]
        stats = stats.assign(_first=first).sort_values(["_first", "query"], ascending=[False, True],
                                                       kind="stable")
    elif order == "query id":
        stats = stats.iloc[np.argsort(natural_rank(stats["query"]), kind="stable")]
    else:
        raise ValueError(f"unknown order {order!r}; expected one of {', '.join(QUERY_ORDERS)}")
    return stats["query"].tolist()
