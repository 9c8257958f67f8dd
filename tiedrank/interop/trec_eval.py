"""trec_eval's measure vocabulary and its text output: tiedrank as a tie-aware trec_eval.

* :data:`MEASURES` — one row per trec_eval measure, in the order trec_eval computes and
  prints them: its name, its default cutoffs or parameter values, and whether it is one of
  the count lines (``runid``, ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``) the
  trec_eval format prints from the tie-group tables rather than from a metric kernel: trec_eval
  10.0's vocabulary, which does not change. The tiedrank family that computes a measure
  (:attr:`TrecEvalMeasure.tiedrank`) is the registry entry that declares the name
  (``MetricFamily(..., trec_eval="map")``), so a measure tiedrank gains changes its entry only;
* :data:`GROUPS` — trec_eval's nicknames (``official``, trec_eval's default set;
  ``all_trec``; ``set``) as lists of those names;
* :func:`expand_metrics` — ``-m`` items as trec_eval reads them (``P.5,10``, ``P`` with its
  default cutoffs, ``ndcg_cut.5,10``, ``official``), tiedrank's and the peers' names
  otherwise (:func:`~tiedrank.metrics.parse_metric`);
* :func:`format_trec_eval` — trec_eval's output, line for line: ``name<TAB>query<TAB>value``
  with the name left-justified in 22 characters, values with 4 decimals, counts as
  integers, per-query lines (``-q``) query by query, then the ``all`` lines.

Examples
--------
>>> request = expand_metrics(["P.10,5", "recip_rank"])
>>> [m.name for m in request.metrics], request.counts, request.not_yet
(['P@5', 'P@10', 'RR'], (), ())
>>> request = expand_metrics("official")
>>> request.counts[:3], request.not_yet, [m.name for m in request.metrics][5:7]
(('runid', 'num_q', 'num_ret'), (), ['iprec_at_recall(recall=0)', 'iprec_at_recall(recall=0.1)'])
"""
from __future__ import annotations

import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..metrics import REGISTRY, Metric, parse_metric
from ..metrics.interpolated import RECALL_LEVELS
from ..metrics.registry import MAX_CUTOFF
from ..core.peers import MetricRequest
from .names import trec_eval_name

if TYPE_CHECKING:  # pragma: no cover
    from ..core.evaluation import Evaluation
    from ..core.ties import TieTable

_DEPTHS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class TrecEvalMeasure:
    """One trec_eval measure: ``name`` as trec_eval spells it, trec_eval's default
    ``cutoffs`` (``()``: the measure takes none), and ``count`` for the lines the trec_eval
    format prints from the tie-group tables (runid and the num_* counts)."""

    name: str
    cutoffs: tuple[int, ...] = ()
    count: bool = False
    values: tuple[float, ...] = ()
    """trec_eval's default values of a real parameter (Rprec_mult's multiples of R,
    iprec_at_recall's recall levels, set_F's beta): ``Rprec_mult.0.2,1`` gives one tiedrank
    metric per value."""
    pairs: tuple[str, ...] = ()
    """Names of the ``name=value`` parameters trec_eval reads (rbp's ``rbp.p=0.8``)."""
    coefficients: int = 0
    """How many numbers the parameter list holds (utility's ``utility.1,-1,0,0``: 4)."""

    @property
    def tiedrank(self) -> str | None:
        """The tiedrank family that computes this measure: the registry entry declaring it
        (``trec_eval="map"``, ``trec_eval_cut="map_cut"``); ``None``: not yet tie-aware in
        tiedrank."""
        return next((entry.name for entry in REGISTRY.values()
                     if self.name in (entry.trec_eval, entry.trec_eval_cut)), None)


MEASURES: tuple[TrecEvalMeasure, ...] = (
    TrecEvalMeasure("runid", count=True),
    TrecEvalMeasure("num_q", count=True),
    TrecEvalMeasure("num_ret", count=True),
    TrecEvalMeasure("num_rel", count=True),
    TrecEvalMeasure("num_rel_ret", count=True),
    TrecEvalMeasure("map"),
    TrecEvalMeasure("gm_map"),
    TrecEvalMeasure("Rprec"),
    TrecEvalMeasure("bpref"),
    TrecEvalMeasure("recip_rank"),
    TrecEvalMeasure("iprec_at_recall", values=RECALL_LEVELS),
    TrecEvalMeasure("P", _DEPTHS),
    TrecEvalMeasure("relstring", count=True),
    TrecEvalMeasure("recall", _DEPTHS),
    TrecEvalMeasure("infAP"),
    TrecEvalMeasure("gm_bpref"),
    TrecEvalMeasure("Rprec_mult", values=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    TrecEvalMeasure("utility", coefficients=4),
    TrecEvalMeasure("11pt_avg"),
    TrecEvalMeasure("binG"),
    TrecEvalMeasure("G"),
    TrecEvalMeasure("dcg"),
    TrecEvalMeasure("ideal_dcg"),
    TrecEvalMeasure("ndcg"),
    TrecEvalMeasure("ndcg_rel"),
    TrecEvalMeasure("Rndcg"),
    TrecEvalMeasure("ndcg_cut", _DEPTHS),
    TrecEvalMeasure("map_cut", _DEPTHS),
    TrecEvalMeasure("relative_P", _DEPTHS),
    TrecEvalMeasure("success", (1, 5, 10)),
    TrecEvalMeasure("set_P"),
    TrecEvalMeasure("set_relative_P"),
    TrecEvalMeasure("set_recall"),
    TrecEvalMeasure("set_map"),
    TrecEvalMeasure("set_F", values=(1.0,)),
    TrecEvalMeasure("num_nonrel_judged_ret"),
    TrecEvalMeasure("yaap"),
    TrecEvalMeasure("rbp", pairs=("p",)),
    TrecEvalMeasure("rbp_resid", pairs=("p",)),
    TrecEvalMeasure("unj", (5, 10, 20)),
)
"""trec_eval's measures in its print order (trec_eval 10.0, ``measures.c``)."""
BY_NAME = {m.name: m for m in MEASURES}

_COUNTS = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret")
_TEXT = ("relstring",)
RELSTRING_NEEDS_TABLES = ("relstring lines are read off the tie tables of one pass; the scaled "
                          "paths (--buckets, --dask, --out) keep none, so they are left out: "
                          "run without those flags to print them")  # per-query text lines, read off the table in the policy's order
_COUNT_COLUMNS = _COUNTS[2:]  # per query (runid and num_q are per run)
GROUPS: dict[str, tuple[str, ...]] = {
    "official": (*_COUNTS, "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall",
                 "P"),
    "all_trec": (*_COUNTS, "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall",
                 "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref",
                 "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
                 "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
    "set": (*_COUNTS, "utility", "set_P", "set_recall", "set_relative_P", "set_map", "set_F"),
}
"""trec_eval's nicknames for sets of measures; ``official`` is what trec_eval evaluates when
no ``-m`` is given (and what ``tiedrank evaluate --format trec_eval`` evaluates then)."""
DEFAULT_GROUP = "official"


def expand_metrics(items: "str | Metric | object | Iterable") -> MetricRequest:
    """Read ``-m`` items, trec_eval's way where an item is one of its measures or groups.

    Parameters
    ----------
    items : str, Metric, ir_measures measure, or an iterable of those
        trec_eval's forms: a measure with its parameters as on trec_eval's ``-m``
        (``P.5,10`` = P@5 and P@10, cutoffs sorted; ``ndcg_cut.5,10``, ``map_cut.10``,
        ``success.1,5``, ``recall.5``), a cutoff measure alone with trec_eval's default
        cutoffs (``P`` = P@5, 10, 15, 20, 30, 100, 200, 500, 1000; ``success`` = 1, 5, 10),
        ``map``, ``ndcg``, ``recip_rank``, ``Rprec``, ``bpref``, ``gm_map``, ``set_P``, ...,
        a real parameter list (``Rprec_mult.0.2,1`` = multiples of R,
        ``iprec_at_recall.0.1,0.5`` = recall levels, ``set_F.0.5`` = beta; alone, trec_eval's
        defaults: ``iprec_at_recall`` = 0.0, 0.1, ..., 1.0), a count line named on its own
        (``num_ret``: also a summed metric), or a group (``official``, ``all_trec``, ``set``). trec_eval's names are case-sensitive, as in trec_eval. Anything else is
        read by :func:`~tiedrank.metrics.parse_metric` (``nDCG@10``, ``ndcg_cut_10``,
        ``map-l2``, ``Expected(nDCG@10)``, ir_measures objects).

    Returns
    -------
    MetricRequest
        The metrics (duplicates removed), the count lines, the group members left out.

    Raises
    ------
    ValueError
        For a measure named on its own that tiedrank does not compute yet (``yaap``),
        parameters trec_eval's measure does not take here (``map.5``), bad or repeated
        cutoffs (``P.0``, ``P.5,5``), and every error of :func:`parse_metric`.

    Examples
    --------
    >>> [m.name for m in expand_metrics("success").metrics]
    ['Success@1', 'Success@5', 'Success@10']
    >>> [m.name for m in expand_metrics(["ndcg_cut.10", "nDCG@10", "map-l2"]).metrics]
    ['nDCG@10', 'AP(rel=2)']
    >>> [m.name for m in expand_metrics(["Rprec_mult.1,0.2", "set_F.0.5", "bpref"]).metrics]
    ['Rprec_mult(mult=0.2)', 'Rprec_mult(mult=1)', 'set_F(beta=0.5)', 'bpref']
    """
    if isinstance(items, (str, Metric)) or (hasattr(items, "NAME") and hasattr(items, "params")):
        items = [items]
    metrics: list[Metric] = []
    counts: list[str] = []
    not_yet: list[str] = []
    for item in items:
        if not isinstance(item, str):
            metrics.append(parse_metric(item))
            continue
        text = item.strip()
        names = GROUPS.get(text)
        if names is not None:
            for name in names:
                measure = BY_NAME[name]
                if measure.count:
                    counts.append(name)
                elif measure.tiedrank is None:
                    not_yet.append(name)
                else:
                    metrics += _metrics_of(measure, measure.values or measure.cutoffs)
            continue
        name, dot, params = text.partition(".")
        measure = BY_NAME.get(name)
        if measure is None:
            metrics.append(parse_metric(text))
        elif measure.count:
            if dot:
                raise ValueError(f"trec_eval measure {text!r}: {name} takes no parameters" + (
                    " in tiedrank, which prints trec_eval's default 10 characters; write "
                    "relstring" if name in _TEXT else ""))
            counts.append(name)
            if measure.tiedrank:  # named on its own: also a metric (summed), for every format
                metrics.append(parse_metric(measure.tiedrank))
        elif measure.tiedrank is None:
            raise ValueError(f"trec_eval measure {name!r} is not yet tie-aware in tiedrank; "
                             f"tiedrank's trec_eval measures: {', '.join(supported())}")
        elif dot and (measure.pairs or measure.coefficients):
            metrics.append(_with_parameters(text, measure, params))
        else:
            defaults = measure.values or measure.cutoffs
            given = (_values(text, measure, params) if measure.values
                     else _cutoffs(text, measure, params)) if dot else defaults
            metrics += _metrics_of(measure, given)
    order = {name: i for i, name in enumerate(_COUNTS + _TEXT)}
    return MetricRequest(tuple(dict.fromkeys(metrics)),
                         tuple(sorted(dict.fromkeys(counts), key=order.__getitem__)),
                         tuple(dict.fromkeys(not_yet)))


def supported() -> list[str]:
    """trec_eval's measure names tiedrank computes, in trec_eval's order."""
    return [m.name for m in MEASURES if m.tiedrank is not None or m.count]


def _metrics_of(measure: TrecEvalMeasure, cutoffs: tuple) -> list[Metric]:
    if measure.values:  # Rprec_mult.0.2,1: one metric per value of the real parameter
        return [parse_metric(f"{measure.tiedrank}({v!r})") for v in cutoffs]
    if not measure.cutoffs:
        return [parse_metric(measure.tiedrank)]
    return [parse_metric(f"{measure.tiedrank}@{k}") for k in cutoffs]


def _with_parameters(text: str, measure: TrecEvalMeasure, params: str) -> Metric:
    """``rbp.p=0.8`` (name=value pairs) or ``utility.1,-1,0,0`` (the coefficients in
    trec_eval's order) as the tiedrank metric."""
    subject = f"trec_eval measure {text!r}"
    parts = [p.strip() for p in params.split(",")]
    number = r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?"
    if measure.coefficients:
        if len(parts) != measure.coefficients or not all(re.fullmatch(number, p) for p in parts):
            raise ValueError(f"{subject}: the parameter must be {measure.coefficients} numbers "
                             f"separated by commas, e.g. {measure.name}.1,-1,0,0")
        return parse_metric(f"{measure.tiedrank}({', '.join(parts)})")
    pairs = [p.partition("=") for p in parts]
    if not all(eq and name in measure.pairs and re.fullmatch(number, value)
               for name, eq, value in pairs):
        raise ValueError(f"{subject}: the parameter must be name=value with name "
                         f"{' or '.join(measure.pairs)}, e.g. {measure.name}.p=0.8")
    return parse_metric(f"{measure.tiedrank}({', '.join(f'{n}={v}' for n, _, v in pairs)})")


def _values(text: str, measure: TrecEvalMeasure, params: str) -> tuple[float, ...]:
    """The real parameters of ``Rprec_mult.0.2,1`` (sorted, as trec_eval sorts them) or
    ``set_F.0.5`` (one value)."""
    subject = f"trec_eval measure {text!r}"
    parts = [p.strip() for p in params.split(",")]
    example = f"{measure.name}.{measure.values[0]:g}" + (",1" if len(measure.values) > 1 else "")
    if not all(re.fullmatch(r"\d+(\.\d*)?|\.\d+", p) for p in parts) or \
            (len(parts) > 1 and len(measure.values) == 1):
        many = "numbers separated by commas" if len(measure.values) > 1 else "one number"
        raise ValueError(f"{subject}: the parameter must be {many}, e.g. {example}")
    values = sorted(float(p) for p in parts)
    if len(set(values)) < len(values):
        raise ValueError(f"{subject}: a value is repeated; write each once")
    return tuple(values)


def _cutoffs(text: str, measure: TrecEvalMeasure, params: str) -> tuple[int, ...]:
    """The cutoff list of ``P.5,10`` (sorted, as trec_eval sorts it); trec_eval's refusals
    (a cutoff that is not a positive integer, a repeated one) in tiedrank's words."""
    subject = f"trec_eval measure {text!r}"
    if not measure.cutoffs:
        raise ValueError(f"{subject}: tiedrank's {measure.name} takes no parameters; write "
                         f"{measure.name}" + (f" (trec_eval's gain pairs such as {measure.name}"
                                              ".1=4.0 are not read: map the grades in the qrels)"
                                              if measure.name in ("ndcg", "G") else ""))
    parts = [p.strip() for p in params.split(",")]
    if not all(re.fullmatch(r"\d+", p) and 1 <= int(p) <= MAX_CUTOFF for p in parts):
        raise ValueError(f"{subject}: cutoffs must be integers >= 1 separated by commas, e.g. "
                         f"{measure.name}.5,10")
    values = sorted(int(p) for p in parts)
    if len(set(values)) < len(values):
        raise ValueError(f"{subject}: a cutoff is repeated; write each once, e.g. "
                         f"{measure.name}.{','.join(map(str, sorted(set(values))))}")
    return tuple(values)


# ---- output -------------------------------------------------------------------------------
_NAME_WIDTH = 22  # trec_eval left-justifies names in 22 characters (its printf "%-22s")


def trec_eval_position(metric: "str | Metric") -> tuple[int, float]:
    """Where trec_eval prints ``metric``: (index in :data:`MEASURES`, cutoff); a metric
    trec_eval does not have comes after all of them.

    >>> sorted(["P@10", "AP", "P@5", "TsRR2", "RR"], key=trec_eval_position)
    ['AP', 'RR', 'P@5', 'P@10', 'TsRR2']
    """
    name = trec_eval_name(metric)
    base, _, cut = name.rpartition("_")
    if re.fullmatch(r"\d+(\.\d+)?", cut) and base in BY_NAME:  # P_10, Rprec_mult_0.20
        return MEASURES.index(BY_NAME[base]), float(cut)
    if base in BY_NAME:  # a parameter trec_eval appends: utility_2,-1,0,0, rbp_p=0.8
        return MEASURES.index(BY_NAME[base]), 0
    if name in BY_NAME:
        return MEASURES.index(BY_NAME[name]), 0
    return len(MEASURES), 0


def format_trec_eval(evaluation: "Evaluation", policy: str = "trec_eval", *,
                     run: str | None = None, per_query: bool = True,
                     counts: "Iterable[str] | bool" = False) -> str:
    """trec_eval's text output of one run of ``evaluation`` under ``policy``.

    Per query (``per_query``, trec_eval's ``-q``): the queries in trec_eval's order (by
    their bytes), each with ``num_ret``, ``num_rel``, ``num_rel_ret`` (those asked) and
    every metric; then the ``all`` lines: ``runid``, ``num_q``, the summed counts, and each
    metric's mean. Metrics are in trec_eval's order (``map`` before ``P_5``; cutoffs
    ascending); those trec_eval lacks follow under tiedrank's names. A wrapped metric
    (``Best(AP)``) is printed under its own policy, as ``Best(map)``.

    Parameters
    ----------
    evaluation : Evaluation
    policy : str
        The tie policy of the unwrapped metrics.
    run : str, optional
        The run (default: the first).
    per_query : bool
        Print the per-query lines before the ``all`` lines.
    counts : bool or iterable of str
        The count lines: ``False`` none (as trec_eval with ``-m`` naming measures only),
        ``True`` all five (as trec_eval with no ``-m``), or some of ``runid``, ``num_q``,
        ``num_ret``, ``num_rel``, ``num_rel_ret``.
    """
    from ..core.policies import parse_policies

    runs = list(evaluation.tables) or list(dict.fromkeys(evaluation.summary["run"].astype(str)))
    run = runs[0] if run is None else run
    chosen = parse_policies(policy)[0]
    label = chosen.label
    asked = _COUNTS if counts is True else tuple(c for c in _COUNTS if c in set(counts or ()))
    frame = evaluation.per_query
    frame = frame[frame["run"] == run]
    names = list(dict.fromkeys(frame["metric"].astype(str)))
    # the evaluation's own objects (an Evaluation made elsewhere may hold names only)
    evaluated = {m.name: m for m in evaluation.metrics}
    metric = {n: evaluated.get(n) or parse_metric(n) for n in dict.fromkeys(
        [*names, *evaluation.summary["metric"].astype(str)])}
    wrapped = {n for n in names if metric[n].policy is not None}
    frame = frame[(frame["policy"] == label) | frame["metric"].isin(wrapped)]
    summary = evaluation.summary
    summary = summary[(summary["run"] == run) & ((summary["policy"] == label)
                                                  | summary["metric"].isin(wrapped))]
    if frame.empty and summary.empty:
        raise ValueError(f"no values for run {run!r} under policy {label!r}; evaluated: runs "
                         f"{', '.join(runs)}, policies "
                         f"{', '.join(dict.fromkeys(evaluation.per_query['policy'].astype(str)))}")
    position = {m: trec_eval_position(metric[m])
                for m in dict.fromkeys(summary["metric"].astype(str))}
    order = sorted(position, key=position.__getitem__)
    shown = {m: trec_eval_name(metric[m]) for m in order}  # a wrapped one as Best(map)
    order = [m for m in order if shown[m] not in asked]  # the count lines print those
    kind = {m: metric[m].summary.name for m in order}
    # trec_eval prints gm_map and gm_bpref only on the all line; counts (num_nonrel_judged_ret)
    # as integers
    as_printed = {m: (int if kind[m] == "sum" else float) for m in order}
    tallies = _run_counts(evaluation, run)
    table = evaluation.tables.get(run)
    wants_text = per_query and counts is not True and "relstring" in set(counts or ())
    if wants_text and table is None:  # the scaled paths keep no table to read them from
        warnings.warn(RELSTRING_NEEDS_TABLES, UserWarning, stacklevel=2)
    texts = _relevance_strings(table, chosen) if wants_text else {}
    at_text = MEASURES.index(BY_NAME["relstring"])
    lines: list[str] = []
    if per_query:
        values = {(m, q): v for m, q, v in
                  frame[["metric", "query", "value"]].astype({"metric": str}).itertuples(index=False)}
        queries = sorted(set(frame["query"].astype(str)) |
                         (set(tallies.index) if tallies is not None else set()),
                         key=lambda q: q.encode("utf-8"))
        for query in queries:
            if tallies is not None and query in tallies.index:
                lines += [_line(c, query, int(tallies.at[query, c]))
                          for c in _COUNT_COLUMNS if c in asked]
            metric_lines = [(position[m][0], _line(shown[m], query,
                                                   as_printed[m](values[m, query])))
                            for m in order if (m, query) in values and kind[m] != "geometric mean"]
            if query in texts:  # trec_eval prints it among the measures, after P
                metric_lines.append((at_text, f"{'relstring':<{_NAME_WIDTH}}\t{query}\t"
                                              f"'{texts[query]}'"))
            lines += [line for _, line in sorted(metric_lines, key=lambda item: item[0])]
    if "runid" in asked:
        lines.append(f"{'runid':<{_NAME_WIDTH}}\tall\t{run}")
    if tallies is not None:
        if "num_q" in asked:
            lines.append(_line("num_q", "all", len(tallies)))
        sums = {c: int(tallies[c].sum()) for c in _COUNT_COLUMNS}
        if evaluation.options.complete:
            # trec_eval's quirk, kept for a byte-identical output: with -c its num_rel "all"
            # line counts the qrels documents graded > 0 in every qrels query, whatever -l
            # (m_num_rel.c, te_calc_avg_num_rel), while its per-query lines count grade >= -l
            sums["num_rel"] = int(tallies["qrels_positive"].sum())
        lines += [_line(c, "all", sums[c]) for c in _COUNT_COLUMNS if c in asked]
    means = summary.set_index(summary["metric"].astype(str))["value"]
    lines += [_line(shown[m], "all", as_printed[m](means[m])) for m in order
              if not np.isnan(means[m])]
    return "\n".join(lines) + "\n"


def _relevance_strings(table, policy) -> dict[str, str]:
    """Per evaluated query: trec_eval's relstring in ``policy``'s order (none for the
    expected policy: a string has no mean over the orderings, see
    :func:`~tiedrank.metrics.trec_gains.relevance_strings`)."""
    if table is None or policy.name == "expected":
        return {}
    from ..metrics.trec_gains import relevance_strings

    strings = relevance_strings(table.resolve(policy.name, policy.seed))
    kept = table.evaluated
    return dict(zip(table.queries[kept].astype(str), strings[kept]))


def trec_eval_counts(table: "TieTable") -> pd.DataFrame:
    """trec_eval's count lines of one tie table, per evaluated query.

    For each query ``q`` the table counts (:attr:`~tiedrank.core.ties.TieTable.evaluated`):
    ``num_ret`` = documents the run returns for ``q``, ``num_rel`` = documents of the qrels
    with grade >= ``rel_level`` (retrieved or not), ``num_rel_ret`` = relevant documents
    retrieved; trec_eval's ``num_q`` is the number of rows and its ``all`` lines are the
    column sums. One pass reads them from the run's whole table; the scaled paths call this
    on each bucket's table and gather the rows (:attr:`Evaluation.counts
    <tiedrank.core.evaluation.Evaluation>`): queries never span buckets, so the rows are the same.

    Parameters
    ----------
    table : TieTable

    Returns
    -------
    DataFrame
        Indexed by query id (str, in the table's order), int64 columns ``num_ret``,
        ``num_rel``, ``num_rel_ret``, and ``qrels_positive``, the query's qrels documents
        graded > 0 at any relevance level (trec_eval's ``num_rel`` "all" line with ``-c``).

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank import evaluate
    >>> run = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["a", "b", "c"],
    ...                     "score": [2.0, 1.0, 1.0]})
    >>> qrels = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["a", "z", "d"],
    ...                       "relevance": [1, 1, 0]})
    >>> trec_eval_counts(evaluate({"r": run}, qrels, ["RR"]).tables["r"])
        num_ret  num_rel  num_rel_ret  qrels_positive
    q1        2        2            1               2
    q2        1        0            0               0
    """
    kept = table.evaluated
    positive = np.add.reduceat(table.ideal_grade > 0, table.ideal_start[:-1]) if len(
        table.ideal_grade) else np.zeros(table.n_queries, dtype=np.int64)
    positive = np.where(np.diff(table.ideal_start) > 0, positive, 0)
    return pd.DataFrame({"num_ret": table.n_retrieved[kept].astype(np.int64),
                         "num_rel": table.n_relevant[kept].astype(np.int64),
                         "num_rel_ret": table.relevant_retrieved[kept].astype(np.int64),
                         "qrels_positive": positive[kept].astype(np.int64)},
                        index=pd.Index(table.queries[kept].astype(str)))


def _run_counts(evaluation: "Evaluation", run: str) -> pd.DataFrame | None:
    """:func:`trec_eval_counts` of ``run``: from its tie table (one pass) or from the rows
    the scaled paths gathered from every bucket's table; None when neither is there."""
    table = evaluation.tables.get(run)
    if table is not None:
        return trec_eval_counts(table)
    counts = evaluation.counts
    if counts is None:
        return None
    rows = counts[counts["run"] == run]
    return pd.DataFrame({c: rows[c].to_numpy() for c in (*_COUNT_COLUMNS, "qrels_positive")},
                        index=pd.Index(rows["query"].to_numpy(dtype=object).astype(str)))


def _line(name: str, query: str, value: "int | float") -> str:
    text = str(value) if isinstance(value, (int, np.integer)) else f"{value:6.4f}"
    return f"{name:<{_NAME_WIDTH}}\t{query}\t{text}"


__all__ = ["BY_NAME", "DEFAULT_GROUP", "GROUPS", "MEASURES", "MetricRequest", "TrecEvalMeasure",
           "expand_metrics", "format_trec_eval", "supported", "trec_eval_counts",
           "trec_eval_position"]
