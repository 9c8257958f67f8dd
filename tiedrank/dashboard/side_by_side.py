"""Two runs side by side on one query: their tie groups, where each puts every document
(the relevant ones above all), and each run's range of a metric on that query.

Streamlit-free: the "Two runs, one query" page shows these frames; Compare's per-query
differences chart opens a query here (see
:func:`tiedrank.dashboard.drilldown.drill_choices`). A document's place in a
run is its tie group's *rank span* (``first``-``last``): inside a group every order is
equally likely, so its expected rank is the middle of the span.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..io import query_documents, read_corpus
from ..metrics import Metric
from ..report import markdown_literal
from ..core.ties import TieTable
from .drilldown import (  # noqa: F401  (the page's link and click, kept where every page reaches them)
    DRILL_PAIR_KEY,
    URL_PARAMS,
    drill_choices,
    url_from_choices,
)
from .labels import BEST_CASE, WORST_CASE

NOT_RETRIEVED = "not retrieved"
"""The place of a document a run does not return for the query."""


def span_label(first: int, last: int) -> str:
    """``"7"`` for a document alone on its score, ``"3-9"`` for a tie group."""
    return str(int(first)) if first == last else f"{int(first)}-{int(last)}"


def run_places(table: TieTable, query: str, top: int | None = None) -> pd.DataFrame:
    """One run's list for ``query``, one row per document, in rank order.

    Columns: doc, group (1-based inside the query), first, last (the group's rank span),
    ranks (``"3-9"``), size, expected_rank ((first + last) / 2), score, grade, relevant.
    ``top`` keeps the documents whose group starts within the first ``top`` ranks.

    Examples
    --------
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["c"], "relevance": [1]}))
    >>> run_places(build_tie_table(run, qrels), "q")[["doc", "group", "ranks", "expected_rank"]]
      doc  group ranks  expected_rank
    0   a      1     1            1.0
    1   b      2   2-3            2.5
    2   c      2   2-3            2.5
    """
    docs = query_documents(table, query)
    first = docs["group_first"].astype(np.int64)
    last = first + docs["group_size"].astype(np.int64) - 1
    out = pd.DataFrame({
        "doc": docs["doc"].astype(str), "group": docs["group"].astype(np.int64),
        "first": first, "last": last,
        "ranks": [span_label(f, la) for f, la in zip(first, last)],
        "size": docs["group_size"].astype(np.int64), "expected_rank": (first + last) / 2,
        "score": docs["score"], "grade": docs["grade"].astype(np.int64),
        "relevant": docs["relevant"].astype(bool)})
    if top is not None:
        out = out[out["first"] <= top]
    return out.reset_index(drop=True)


def side_by_side(table_a: TieTable, table_b: TieTable, query: str, *, top: int | None = None,
                 texts: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Both runs' tie groups for ``query``, tidy: one row per (run, document).

    Columns: side ("A" or "B"), run, and :func:`run_places`'s columns, then where the
    *other* run puts the document: other_group, other_ranks (:data:`NOT_RETRIEVED` when it
    does not return it), other_expected_rank (NaN then), shift (other expected rank minus
    this one: positive = the other run puts it lower); and text (``""`` without one).
    ``top`` limits each side's own rows; the other run's places are over its whole list.
    """
    frames = []
    for side, table, other in (("A", table_a, table_b), ("B", table_b, table_a)):
        own = run_places(table, query, top)
        theirs = run_places(other, query).set_index("doc")
        found = own["doc"].isin(theirs.index)
        mapped = theirs.reindex(own["doc"])
        frame = own.assign(
            other_group=pd.array(mapped["group"].to_numpy(dtype=float), dtype="Int64"),
            other_ranks=np.where(found, mapped["ranks"].to_numpy(dtype=object), NOT_RETRIEVED),
            other_expected_rank=mapped["expected_rank"].to_numpy(dtype=float))
        frame["shift"] = frame["other_expected_rank"] - frame["expected_rank"]
        frame["text"] = [(texts or {}).get(d, "") for d in frame["doc"]]
        frame.insert(0, "run", table.run_name)
        frame.insert(0, "side", side)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def relevant_placement(table_a: TieTable, table_b: TieTable, qrels: pd.DataFrame, query: str,
                       rel_level: int) -> pd.DataFrame:
    """Where each run puts each relevant document of ``query`` (grade >= ``rel_level`` in
    ``qrels``, retrieved or not), tidy: one row per (document, run).

    Columns: doc, grade, side ("A" / "B"), run, retrieved, group, first, last, ranks
    (:data:`NOT_RETRIEVED` when the run does not return it), expected_rank (NaN then).
    Sorted by grade (highest first), then by the documents' expected rank in run A.

    Examples
    --------
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["c", "d"], "relevance": [1, 2]}))
    >>> a = build_tie_table(Run("A", pd.DataFrame({"query": "q", "doc": ["a", "c"], "score": [1.0, 1.0]})), qrels)
    >>> b = build_tie_table(Run("B", pd.DataFrame({"query": "q", "doc": ["c", "d"], "score": [2.0, 1.0]})), qrels)
    >>> relevant_placement(a, b, qrels.frame, "q", 1)[["doc", "grade", "run", "ranks"]]
      doc  grade run          ranks
    0   d      2   A  not retrieved
    1   d      2   B              2
    2   c      1   A            1-2
    3   c      1   B              1
    """
    judged = qrels[(qrels["query"].astype(str) == str(query)) & (qrels["relevance"] >= rel_level)]
    grades = judged.groupby(judged["doc"].astype(str))["relevance"].max()
    rows = []
    for side, table in (("A", table_a), ("B", table_b)):
        places = run_places(table, query).set_index("doc")
        for doc, grade in grades.items():
            hit = doc in places.index
            place = places.loc[doc] if hit else None
            rows.append({
                "doc": doc, "grade": int(grade), "side": side, "run": table.run_name, "retrieved": hit,
                "group": int(place["group"]) if hit else pd.NA,
                "first": int(place["first"]) if hit else pd.NA,
                "last": int(place["last"]) if hit else pd.NA,
                "ranks": place["ranks"] if hit else NOT_RETRIEVED,
                "expected_rank": float(place["expected_rank"]) if hit else np.nan})
    columns = ["doc", "grade", "side", "run", "retrieved", "group", "first", "last", "ranks",
               "expected_rank"]
    out = pd.DataFrame(rows, columns=columns)
    if out.empty:
        return out
    for name in ("group", "first", "last"):
        out[name] = out[name].astype("Int64")
    in_a = out[out["side"] == "A"].set_index("doc")["expected_rank"]
    out["_a"] = out["doc"].map(in_a).fillna(np.inf)
    out["_side"] = out["side"].map({"A": 0, "B": 1})
    out = out.sort_values(["grade", "_a", "doc", "_side"], ascending=[False, True, True, True],
                          kind="stable")
    return out.drop(columns=["_a", "_side"]).reset_index(drop=True)


def placement_caption(placement: pd.DataFrame, name_a: str, name_b: str, rel_level: int) -> str:
    """The line above the placement table: how many relevant documents the query has and
    how many of them each run returns (Markdown).

    Examples
    --------
    >>> placement = pd.DataFrame({"doc": ["d", "d", "c", "c"], "side": ["A", "B", "A", "B"],
    ...                           "retrieved": [False, True, True, True]})
    >>> placement_caption(placement, "bm25", "llm", 1)[:64]
    '2 relevant documents (grade ≥ 1): **bm25** returns 1, **llm** re'
    """
    found = placement.groupby("side")["retrieved"].sum()
    n_relevant = placement["doc"].nunique()
    return (f"{n_relevant} relevant document{'s' if n_relevant != 1 else ''} (grade ≥ {rel_level}): "
            f"**{markdown_literal(name_a)}** returns {int(found.get('A', 0))}, "
            f"**{markdown_literal(name_b)}** returns "
            f"{int(found.get('B', 0))}. A span such as 3-45 is a tie group: the document can "
            "be anywhere in it.")


def placement_wide(placement: pd.DataFrame) -> pd.DataFrame:
    """:func:`relevant_placement` as one row per document: doc, grade, ``ranks in <A>``,
    ``ranks in <B>``, shift (B's expected rank minus A's; NaN when one misses it)."""
    if placement.empty:
        return pd.DataFrame(columns=["doc", "grade", "ranks in A", "ranks in B", "shift"])
    a = placement[placement["side"] == "A"].set_index("doc")
    b = placement[placement["side"] == "B"].set_index("doc")
    name_a, name_b = str(a["run"].iloc[0]), str(b["run"].iloc[0])
    if name_a == name_b:
        name_a, name_b = f"{name_a} (A)", f"{name_b} (B)"
    return pd.DataFrame({
        "doc": a.index, "grade": a["grade"].to_numpy(),
        f"ranks in {name_a}": a["ranks"].to_numpy(),
        f"ranks in {name_b}": b.loc[a.index, "ranks"].to_numpy(),
        "shift": (b.loc[a.index, "expected_rank"] - a["expected_rank"]).to_numpy(dtype=float)})


def ranges_on_query(evaluation, runs: Sequence[str], query: str, metric: "str | Metric") -> pd.DataFrame:
    """Each run's range of ``metric`` on ``query`` over the tie orderings: run, metric,
    expected, best, worst, trec_eval, range (best - worst); one row per run of ``runs``
    evaluated on the query (none for a run that does not answer it).

    ``evaluation`` was evaluated with ``ties="all"`` for ``metric``.
    """
    metric = str(metric)  # a Metric or its name, as the settings validated it
    per_query = evaluation.per_query
    rows = per_query[per_query["run"].astype(str).isin([str(r) for r in runs])
                     & (per_query["query"].astype(str) == str(query))
                     & (per_query["metric"].astype(str) == metric)]
    columns = ["run", "metric", "expected", "best", "worst", "trec_eval", "range"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    wide = rows.assign(run=rows["run"].astype(str), policy=rows["policy"].astype(str)).pivot_table(
        index="run", columns="policy", values="value", sort=False)
    wide = wide.rename(columns={BEST_CASE: "best", WORST_CASE: "worst"})
    wide = wide.reindex([str(r) for r in dict.fromkeys(runs) if str(r) in wide.index])
    wide.columns.name = None
    out = wide.reset_index().assign(metric=metric)
    for name in ("expected", "best", "worst", "trec_eval"):
        if name not in out:
            out[name] = np.nan
    out["range"] = out["best"] - out["worst"]
    return out[columns].reset_index(drop=True)


def group_flows(documents: pd.DataFrame, top: int) -> pd.DataFrame:
    """The documents of :func:`side_by_side` whose group starts within the first ``top``
    ranks of either run, counted per (group in A, group in B, grade): the links of the
    slope chart. Columns: a_first, a_last, b_first, b_last (NaN when that run does not
    return them), grade, n, docs (a few ids for the hover)."""
    a = documents[documents["side"] == "A"].set_index("doc")
    b = documents[documents["side"] == "B"].set_index("doc")
    docs = pd.Index(a.index[a["first"] <= top]).union(b.index[b["first"] <= top], sort=False)
    if not len(docs):
        return pd.DataFrame(columns=["a_first", "a_last", "b_first", "b_last", "grade", "n", "docs"])
    a, b = a.reindex(docs), b.reindex(docs)
    frame = pd.DataFrame({
        "doc": docs, "a_first": a["first"].to_numpy(dtype=float), "a_last": a["last"].to_numpy(dtype=float),
        "b_first": b["first"].to_numpy(dtype=float), "b_last": b["last"].to_numpy(dtype=float),
        "grade": a["grade"].fillna(b["grade"]).astype(np.int64).to_numpy()})
    keys = ["a_first", "a_last", "b_first", "b_last", "grade"]
    grouped = frame.groupby(keys, dropna=False, sort=False)["doc"]
    return pd.DataFrame({"n": grouped.size(), "docs": grouped.agg(
        lambda d: ", ".join(list(d)[:5]) + (f", … {len(d) - 5} more" if len(d) > 5 else ""))}
    ).reset_index()


def load_snippets(source: bytes | str | os.PathLike | None, docnos: Sequence[str],
                  width: int = 160) -> dict[str, str]:
    """The first ``width`` characters of each document's text (only ``docnos`` are kept);
    ``{}`` without a corpus."""
    texts = read_corpus(source, docnos=docnos) if source is not None else {}
    return {d: (t if len(t) <= width else t[: width - 1] + "…") for d, t in texts.items()}


def choices_from_url(params: Mapping[str, str], runs: Sequence[str], queries: Sequence[str],
                     metrics: Sequence[str]) -> dict[str, str]:
    """The valid choices of a link (``?run_a=…&run_b=…&query=…&metric=…``), keyed by
    session-state key (see :data:`URL_PARAMS`); unknown runs, queries and metrics are
    left out.

    Examples
    --------
    >>> choices_from_url({"run_a": "x", "run_b": "zz", "query": "q1"}, ["x", "y"], ["q1"], [])
    {'sbs_run_a': 'x', 'sbs_query': 'q1'}
    """
    allowed = {"sbs_run_a": runs, "sbs_run_b": runs, "sbs_query": queries, "sbs_metric": metrics}
    out = {}
    for key, name in URL_PARAMS.items():
        value = params.get(name)
        if value is not None and value in allowed[key]:
            out[key] = value
    return out


def control_width(options: Sequence[str], *, floor: int = 160, ceiling: int = 420) -> int:
    """A selectbox width in pixels that shows the longest of ``options`` whole: about 8 px a
    character (the dashboard's 14-px font) plus the box's padding and arrow, between
    ``floor`` and ``ceiling`` (a 500-px main area beside the sidebar at 800 px holds it).

    Examples
    --------
    >>> control_width(["NISTRetrieval-instruct0", "Olz-gpt4o"]), control_width(["RR"])
    (270, 160)
    """
    longest = max((len(str(o)) for o in options), default=0)
    return int(min(ceiling, max(floor, 8 * longest + 86)))


def snippet_lines(rows: pd.DataFrame, snippets: Mapping[str, str]) -> str:
    """One Markdown line per document of ``rows`` (:func:`side_by_side`'s rows of one run)
    that has a text: its id, rank span and grade, then the text, which wraps in the page.

    Examples
    --------
    >>> rows = pd.DataFrame({"doc": ["d1", "d2"], "ranks": ["1-2", "1-2"], "grade": [2, 0]})
    >>> print(snippet_lines(rows, {"d1": "Tied *scores*"}))
    - **d1** · ranks 1-2 · grade 2: Tied \\*scores\\*
    """
    escaped = markdown_literal
    return "\n".join(f"- **{escaped(str(doc))}** · ranks {ranks} · grade {grade}: {escaped(snippets[doc])}"
                     for doc, ranks, grade in zip(rows["doc"], rows["ranks"], rows["grade"])
                     if snippets.get(doc))
