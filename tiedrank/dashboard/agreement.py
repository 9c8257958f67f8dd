"""Judge agreement page: which runs are label runs, and the tables the page shows.

The numbers come from :func:`tiedrank.stats.judge_agreement` (confusion matrices and
Cohen's kappa against the qrels grades); this module splits the loaded runs into label runs
and the others, words the empty state, and shapes the long frames into the page's tables.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..core.data import Run
from ..report import markdown_literal
from ..stats.agreement import MAX_LABELS, WEIGHTS, Agreement, label_problem

KAPPA_HELP = {
    "unweighted": "Cohen's kappa: 1 - (1 - p_o) / (1 - p_e). Every disagreement counts the same.",
    "linear": "Linearly weighted kappa: a disagreement weighs |i - j| (category indexes), so "
              "label 2 on a grade-3 document costs less than label 0.",
    "quadratic": "Quadratically weighted kappa: a disagreement weighs (i - j)^2; far misses "
                 "dominate.",
}
"""What each kappa column means, for the tables' column help."""


def split_label_runs(runs: Mapping[str, Run], max_labels: int = MAX_LABELS
                     ) -> tuple[list[str], dict[str, str]]:
    """(names of the label runs, {other run: why its scores are not labels}).

    Examples
    --------
    >>> import pandas as pd
    >>> judge = Run("judge", pd.DataFrame({"query": "q", "doc": ["a", "b"], "score": [0.0, 3.0]}))
    >>> bm25 = Run("bm25", pd.DataFrame({"query": "q", "doc": ["a", "b"], "score": [7.5, 3.0]}))
    >>> split_label_runs({"judge": judge, "bm25": bm25})
    (['judge'], {'bm25': 'has the score 7.5, not an integer label'})
    """
    labels, others = [], {}
    for name, run in runs.items():
        problem = label_problem(run.frame["score"].to_numpy(), max_labels)
        if problem is None:
            labels.append(name)
        else:
            others[name] = problem
    return labels, others


def no_label_runs_message(dataset_label: str, others: Mapping[str, str]) -> str:
    """The empty state of a dataset whose runs are all rankers, naming the dataset and why.

    Examples
    --------
    >>> no_label_runs_message("trec_eval's example run", {"STANDARD": "has the score 0.3, "
    ...                       "not an integer label"})[:60]
    "The runs of **trec_eval's example run** are not label runs: "
    """
    shown = "; ".join(f"**{markdown_literal(name)}** {markdown_literal(why)}"
                      for name, why in list(others.items())[:3])
    more = f" (and {len(others) - 3} more)" if len(others) > 3 else ""
    return (f"The runs of **{markdown_literal(dataset_label)}** are not label runs: {shown}{more}. Judge agreement "
            f"compares a judge's labels (integer scores, at most {MAX_LABELS} distinct values, "
            "such as an LLM's 0-3 grades) with the qrels grades. Pick **LLMJudge** in the "
            "sidebar (**Data**), or upload a run of labels.")


def skipped_note(others: Mapping[str, str]) -> str:
    """One line naming the runs left out because their scores are not labels."""
    names = ", ".join(f"**{markdown_literal(name)}**" for name in others)
    return (f"Left out, as their scores are not labels: {names} "
            f"({markdown_literal(next(iter(others.values())))}{', ...' if len(others) > 1 else ''}).")


def kappa_table(agreement: Agreement) -> pd.DataFrame:
    """One row per run: run, documents and queries compared, exact agreement (share of
    documents whose label equals the grade) and kappa unweighted, linear and quadratic.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.stats import judge_agreement
    >>> qrels = pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "relevance": [0, 1, 2]})
    >>> judge = qrels.rename(columns={"relevance": "score"}).assign(score=[0.0, 1, 1])
    >>> kappa_table(judge_agreement({"judge": judge}, qrels)).round(3).values.tolist()
    [['judge', 3, 1, 0.667, 0.5, 0.571, 0.667]]
    """
    wide = agreement.kappa.pivot_table(index="run", columns="weights", values="kappa",
                                       observed=True, sort=False, dropna=False)
    counts = agreement.kappa.drop_duplicates("run").set_index("run")
    confusion = agreement.confusion
    same = confusion[confusion["grade"] == confusion["label"]].groupby("run", observed=True)["count"].sum()
    runs = list(counts.index.astype(str))
    n_docs = counts["n_docs"].to_numpy()
    out = pd.DataFrame({"run": runs, "documents": n_docs, "queries": counts["n_queries"].to_numpy()})
    with np.errstate(divide="ignore", invalid="ignore"):
        out["exact agreement"] = same.reindex(runs, fill_value=0).to_numpy() / np.where(n_docs, n_docs, np.nan)
    for weights in WEIGHTS:
        out[weights] = wide[weights].reindex(runs).to_numpy()
    return out


def query_table(agreement: Agreement, run: str, query_text: Mapping[str, str] | None = None
                ) -> pd.DataFrame:
    """One row per query of ``run``: query (text), documents compared, exact agreement and
    kappa unweighted, linear and quadratic (NaN where one category only)."""
    rows = agreement.per_query[agreement.per_query["run"] == run]
    wide = rows.pivot_table(index="query", columns="weights", values="kappa", observed=True,
                            sort=False, dropna=False)
    counts = rows.drop_duplicates("query").set_index("query")["n_docs"]
    cells = agreement.query_confusion[agreement.query_confusion["run"] == run]
    same = cells[cells["grade"] == cells["label"]].groupby("query")["count"].sum()
    queries = list(counts.index)
    out = pd.DataFrame({"query": queries})
    if query_text is not None:
        out["text"] = [query_text.get(q, "") for q in queries]
    out["documents"] = counts.to_numpy()
    out["exact agreement"] = same.reindex(queries, fill_value=0).to_numpy() / counts.to_numpy()
    for weights in WEIGHTS:
        out[weights] = wide[weights].reindex(queries).to_numpy() if len(queries) else np.zeros(0)
    return out


def lowest_query(table: pd.DataFrame, weights: str = "quadratic") -> str | None:
    """The query whose kappa is lowest (the first to look at), or None if none is defined."""
    values = table[weights]
    return None if values.isna().all() else str(table.loc[values.idxmin(), "query"])


def best_partner(agreement: Agreement, run: str, weights: str = "quadratic") -> str | None:
    """The other run that agrees best with the qrels (highest pooled kappa), the natural
    partner of ``run`` on "Two runs, one query"; None if there is no other run."""
    rows = agreement.kappa[(agreement.kappa["run"] != run) & (agreement.kappa["weights"] == weights)]
    if rows.empty:
        return None
    ranked = rows.sort_values("kappa", ascending=False, na_position="last", kind="stable")
    return str(ranked["run"].iloc[0])


def confusion_grid(agreement: Agreement, run: str, share: bool = False) -> pd.DataFrame:
    """The pooled confusion matrix of ``run`` (grades down, labels across); with ``share``,
    each grade's row as fractions of its documents (NaN for a grade with none)."""
    grid = agreement.confusion_matrix(run, labels=agreement.categories[run].tolist())
    if not share:
        return grid
    totals = grid.sum(axis=1).to_numpy(dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return grid.div(np.where(totals > 0, totals, np.nan), axis=0)
