"""``evaluate``: runs x metrics x tie policies -> tidy per-query values and their means (the Python door over :func:`~tiedrank.evaluation.scoring.build_tables` and :func:`~tiedrank.evaluation.scoring.score_tables`)."""
from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..core.data import Qrels
from ..core.options import make_options
from ..core.ties import TieTable
from ..metrics import Metric
from .argument_order import check_argument_order
from .inputs import RunInput
from .metric_lists import parse_metrics
from .result import Evaluation
from .scoring import build_tables, score_tables


def evaluate(runs: "RunInput | Sequence[RunInput] | Mapping[str, RunInput]",
             qrels: "Qrels | pd.DataFrame | str | os.PathLike | bytes",
             metrics: "str | Metric | Iterable[str | Metric]", *,
             ties: "str | Iterable[str]" = "expected", rel_level: int = 1, gain: str = "linear",
             judged_only: bool = False, depth: int | None = None, round: int | None = None,
             complete: bool = False, query_set: str = "trec_eval", seed: int = 0,
             duplicates: str = "error", columns: Mapping[str, str] | None = None,
             qrels_columns: Mapping[str, str] | None = None) -> Evaluation:
    """Evaluate one or more runs under one or more tie policies.

    The options are checked once (:class:`~tiedrank.core.options.EvaluationOptions`), then
    :func:`build_tables` sorts each run once into its tie-group table and
    :func:`score_tables` scores every metric under every policy. Every other door (the CLI,
    ``tiedrank.distributed.evaluate``, the dashboard) calls the same two functions.

    Parameters
    ----------
    runs : Run, DataFrame, Arrow table, path, peer object, or a list / dict of those
        A dict gives the run names; otherwise the TREC tag or file name does. Also anything
        that exports Arrow (a polars DataFrame, a pyarrow Table, a DuckDB relation), a ranx
        ``Run``, pytrec_eval's ``{query: {doc: score}}``, ``(query, doc, score)`` rows.
        The runs come first: ranx's order, ``evaluate(qrels, run)``, raises a
        ``TypeError`` that says so.
    qrels : Qrels, DataFrame, Arrow table, path or peer object
    metrics : str, ir_measures measure, or a list of those
        ir_measures-style names: ``RR``, ``RR@k``, ``Success@k``, ``Hits@k`` (a count), ``P@k``,
        ``R@k``, ``AP``, ``AP@k``, ``nDCG``, ``nDCG@k``, ``DCG@k``, ``Rprec``,
        ``TsRR(alpha=a)``, ``TsRR2``, ``MTRR_GRAG``, ``TMHits_GRAG@k``; trec_eval's
        ``num_ret``, ``num_rel``, ``num_rel_ret`` (summed), ``set_P``, ``set_recall``,
        ``set_F(beta=b)``, ``set_relative_P``, ``set_map``, ``bpref``, ``RBP(p=p)``,
        ``Rprec_mult(mult=m)``, ``relative_P@k``, ``gm_map``, ``gm_bpref`` (geometric
        means); or ir_measures
        objects (``ir_measures.RR(rel=2)``, ``P(rel=2)@10``, ``nDCG@10``), mixed freely.
        A measure that sets ``rel=``, ``judged_only=`` or nDCG's gain (``RR(rel=2)``,
        ``nDCG(dcg='exp-log2')@10``) is evaluated with its own setting and keeps it in its
        name, so ``RR(rel=2)`` and ``RR`` are two metrics of one evaluation.
    ties : str or list of str, default "expected"
        ``expected``, ``best``, ``worst``, ``trec_eval``, ``input``, ``random``
        (seeded by ``seed``; or ``"random(seed=3)"``) or ``"all"`` (the first four); several
        as a list or, as the CLI's ``--ties``, one comma-separated string
        (``"input,expected"``).
    rel_level : int, default 1
        Minimum grade of a relevant document (trec_eval ``-l``) for the metrics that do not
        set ``rel=``.
    gain : {"linear", "exp"}, default "linear"
        DCG gain: the grade, or 2**grade - 1.
    judged_only : bool, default False
        Drop unjudged documents before ranking (trec_eval ``-J``), for the metrics that do
        not set ``judged_only=``.
    depth : int, optional
        Only the first ``depth`` documents of each query count, in trec_eval's order (score
        descending, then docno descending), as trec_eval's ``-M``: a tie group that
        straddles the depth is cut where trec_eval cuts it.
    round : int, optional
        Round scores to this many decimals so that near-ties merge.
    complete : bool, default False
        Qrels queries the run misses score 0 and count in the means (trec_eval ``-c``).
    query_set : {"trec_eval", "relevant"}, default "trec_eval"
        ``trec_eval``: the queries with results and judgements, those without a relevant
        document included with trec_eval's value (0 for RR, AP, P, R); ``relevant``: only
        queries with a relevant document.
    seed : int, default 0
        Seed of the ``random`` policy.
    duplicates : {"error", "max"}, default "error"
        A document listed twice for a query in a run file: an error, or keep the max score.
    columns, qrels_columns : mapping, optional
        Which columns of tabular (CSV, TSV, Parquet, JSON lines) run and qrels files hold
        each field, e.g. ``{"query": "qid", "doc": "docid", "score": "s"}``.

    Returns
    -------
    Evaluation
        ``per_query``, ``summary`` and ``report()`` (expected, best, worst, trec_eval, bias).

    Examples
    --------
    >>> import pandas as pd
    >>> run = pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
    >>> qrels = pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})
    >>> ev = evaluate({"r": run}, qrels, ["RR"], ties="all")
    >>> ev.report()[["expected", "best", "worst", "trec_eval"]].round(3).values.tolist()
    [[0.75, 1.0, 0.5, 1.0]]
    """
    options = make_options(
        "evaluate", ties=ties, rel_level=rel_level, gain=gain, judged_only=judged_only,
        depth=depth, round=round, complete=complete, query_set=query_set, seed=seed,
        duplicates=duplicates, columns=columns, qrels_columns=qrels_columns)
    metric_list = parse_metrics(metrics)
    check_argument_order(runs, qrels, options=options, files=True)  # ranx's order, as files
    evaluation = score_tables(build_tables(runs, qrels, options), metric_list, options)
    warn_of_disjoint_runs(evaluation.tables, options)
    # what Evaluation.show() opens: the inputs as given (references, no copy); a frozen
    # dataclass, and replace() would make the per-query frame it defers
    object.__setattr__(evaluation, "inputs", (runs, qrels))
    return evaluation


def warn_of_disjoint_runs(tables: Mapping[str, TieTable], options) -> None:
    """Say aloud when a run shares no query with the qrels: its means are NaN over zero
    queries (or 0 for every qrels query under ``complete=``), almost always qrels of another
    collection or query ids read wrongly, which the findings alone leave easy to miss. A
    partial overlap gives numbers, and its findings say the rest. (Here, at the Python door,
    not in :func:`build_tables`: a query bucket of the scaled doors may rightly hold none.)"""
    for name, table in tables.items():
        answered = table.n_retrieved > 0 if table.in_run is None else table.in_run
        if len(table.queries) == 0 or np.any(answered):
            continue
        theirs = next((f for f in table.findings if f.kind == "queries_not_in_qrels"), None)
        listed = "" if theirs is None else (
            f"its {theirs.count:,} quer{'y' if theirs.count == 1 else 'ies'}: "
            + ", ".join(map(repr, theirs.queries[:3])) + ("..." if theirs.count > 3 else "") + "; ")
        qrels_ids = ", ".join(map(repr, map(str, table.queries[:3])))
        outcome = ("so every query scores 0 (complete=True)" if options.complete else
                   "so its means are undefined (NaN), over zero queries")
        warnings.warn(
            f"evaluate(): run {name!r} shares no query with qrels= ({listed}the qrels' "
            f"{len(table.queries):,}: {qrels_ids}{'...' if len(table.queries) > 3 else ''}), "
            f"{outcome}; pass the qrels of the run's queries, or check how the query ids are "
            "read (columns= / qrels_columns=)", UserWarning, stacklevel=3)


def tsrr_sweep(tables: Mapping[str, TieTable], alphas: Sequence[float] | np.ndarray) -> pd.DataFrame:
    """Mean TsRR of each run at every alpha, in one vectorised pass per run.

    Returns a tidy DataFrame with columns run, alpha, value.
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    from ..metrics import tsrr

    frames = []
    for name, table in tables.items():
        included = table.evaluated
        means = tsrr(table, alphas)[included].mean(axis=0) if included.any() else np.full(len(alphas), np.nan)
        frames.append(pd.DataFrame({"run": name, "alpha": alphas, "value": means}))
    return pd.concat(frames, ignore_index=True)
