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

import math
import re
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..metrics import REGISTRY, Metric, parse_metric
from ..metrics.interpolated import RECALL_LEVELS, recall_cutoffs
from ..metrics.registry import check_ascii_digits
from ..core.peers import MetricRequest
from .names import trec_eval_name
from .trec_eval_params import (CUTOFFS, REAL_CUTOFFS, RELSTRING_DEFAULT, Parameters, output_name,
                               read_parameters)

if TYPE_CHECKING:  # pragma: no cover
    from ..evaluation import Evaluation
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
MEANS_NEED_ROWS = ("the 'all' lines are tiedrank's exact means, not trec_eval's accumulation "
                   "(which adds the per-query values in its query order): the per-query rows "
                   "are on disk (--out DIR/per_query); they can differ at a half-way 4th "
                   "decimal")
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
        (``P.5,10`` = P@5 and P@10, cutoffs sorted; ``ndcg_cut.10,20,23.4``, the last read
        as 23 as trec_eval reads it; ``success.1,5``, ``recall.5``), a cutoff measure alone
        with trec_eval's default cutoffs (``P`` = P@5, 10, 15, 20, 30, 100, 200, 500, 1000;
        ``success`` = 1, 5, 10), ``map``, ``ndcg``, ``recip_rank``, ``Rprec``, ``bpref``,
        ``gm_map``, ``set_P``, ..., real parameters (``Rprec_mult.5.0,0.2,0.35`` =
        multiples of R, ``iprec_at_recall..10,.5`` = recall levels, ``11pt_avg..25,.5,.75``
        = its levels, ``set_F.0.5`` = beta, ``utility.2,-1,0,0`` = its coefficients,
        ``relstring.20`` = its length; alone, trec_eval's defaults), name=value pairs
        (``rbp.p=0.8``, ``ndcg.1=3,2=9,4=4.5`` = the gains of grades 1, 2, 4), trec_eval's
        printed names (``Rprec_mult_0.40``, ``iprec_at_recall_0.30``, ``relative_P_5``), a
        count line named on its own (``num_ret``: also a summed metric), or a group
        (``official``, ``all_trec``, ``set``). As in trec_eval, a measure named with
        parameters takes those instead of its defaults wherever else it is named (``-m
        all_trec -m P.5``: P_5 only). trec_eval's names are case-sensitive, as in
        trec_eval. Anything else is read by :func:`~tiedrank.metrics.parse_metric`
        (``nDCG@10``, ``ndcg_cut_10``, ``map-l2``, ``Expected(nDCG@10)``, ir_measures
        objects).

    Returns
    -------
    MetricRequest
        The metrics (duplicates removed), the count lines, the group members left out, the
        printed names of measures given parameters, the relstring length.

    Raises
    ------
    ValueError
        For a measure named on its own that tiedrank does not compute yet (``yaap``),
        parameters trec_eval's measure does not read (``map.5``), bad or repeated cutoffs
        (``P.0``, ``P.5,5``), one measure given two parameter lists (trec_eval reads the
        first only: ``P.5`` and ``P.10`` are ``P.5,10``), and every error of
        :func:`parse_metric`.

    Examples
    --------
    >>> [m.name for m in expand_metrics("success").metrics]
    ['Success@1', 'Success@5', 'Success@10']
    >>> [m.name for m in expand_metrics(["ndcg_cut.10", "nDCG@10", "map-l2"]).metrics]
    ['nDCG@10', 'AP(rel=2)']
    >>> [m.name for m in expand_metrics(["Rprec_mult.1,0.2", "set_F.0.5", "bpref"]).metrics]
    ['Rprec_mult(mult=0.2)', 'Rprec_mult(mult=1)', 'set_F(beta=0.5)', 'bpref']
    >>> request = expand_metrics(["all_trec", "relstring.20", "utility.2,-1,0,0"])
    >>> request.relstring, dict(request.names)["utility(rel_ret=2, nonrel_ret=-1, rel_missed=0, nonrel_missed=0)"]
    ((20, 'relstring_20'), 'utility_2,-1,0,0')
    """
    if isinstance(items, (str, Metric)) or (hasattr(items, "NAME") and hasattr(items, "params")):
        items = [items]
    # a Metric, a printed name read back (its Parameters), or the name of a trec_eval
    # measure, whose parameters are known once every item is read
    slots: list = []
    given: dict[str, tuple[str, str]] = {}  # measure -> (its parameters, the item as typed)
    for item in items:
        slots += _slots_of(item.strip(), given) if isinstance(item, str) else [parse_metric(item)]
    return _request(slots, given)


def _slots_of(text: str, given: dict[str, tuple[str, str]]) -> list:
    """The slots of one ``-m`` item (a group's members, a metric, a printed name read back,
    a trec_eval measure's name); a measure's parameters go in ``given``."""
    kind = "trec_eval measure" if text.partition(".")[0] in BY_NAME else "metric"
    check_ascii_digits(text, f"{kind} {text!r}")
    names = GROUPS.get(text)
    if names is not None:
        return list(names)
    name, dot, params = text.partition(".")
    measure = BY_NAME.get(name)
    if measure is None:
        read_back = output_name(text)
        return [parse_metric(text) if read_back is None else read_parameters(*read_back, text)]
    if measure.tiedrank is None and not measure.count:
        raise ValueError(f"trec_eval measure {name!r} is not yet tie-aware in tiedrank; "
                         f"tiedrank's trec_eval measures: {', '.join(supported())}")
    if dot:
        _note_parameters(text, name, params, given)
    if measure.count and measure.tiedrank and not dot:
        return [name, parse_metric(measure.tiedrank)]  # num_ret named on its own: a metric
    return [name]


def _note_parameters(text: str, name: str, params: str, given: dict[str, tuple[str, str]]
                     ) -> None:
    """Keep ``name``'s parameters in ``given`` (the first list; a second, different one is an
    error, as a count line's parameters are)."""
    if name in _COUNTS:
        raise ValueError(f"trec_eval measure {text!r}: {name} takes no parameters")
    if name in given and given[name][0] != params:
        raise ValueError(
            f"trec_eval measure {name!r} is given two parameter lists "
            f"({given[name][1]} and {text}); trec_eval reads the first only: give one"
            + (f", e.g. {name}.{given[name][0]},{params}" if name in CUTOFFS
               + REAL_CUTOFFS else ""))
    given.setdefault(name, (params, text))


def _request(slots: list, given: dict[str, tuple[str, str]]) -> MetricRequest:
    """The :class:`MetricRequest` of the slots, in their order (duplicates removed)."""
    metrics: list[Metric] = []
    counts: list[str] = []
    not_yet: list[str] = []
    labels: dict[str, str] = {}
    relstring = (RELSTRING_DEFAULT, "relstring")
    for slot in slots:
        if isinstance(slot, Metric):
            metrics.append(slot)
        elif isinstance(slot, Parameters):  # a printed name read back: the metrics it names
            if slot.relstring is not None:
                counts.append("relstring")
                relstring = (slot.relstring, slot.label)
            metrics += _labelled(slot, labels)
        elif BY_NAME[slot].count:
            counts.append(slot)
            if slot in given:  # relstring.20
                parsed = read_parameters(slot, *given[slot])
                relstring = (parsed.relstring, parsed.label)
        elif BY_NAME[slot].tiedrank is None:
            not_yet.append(slot)
        else:
            metrics += _measure_metrics(BY_NAME[slot], given, labels)
    order = {name: i for i, name in enumerate(_COUNTS + _TEXT)}
    return MetricRequest(tuple(dict.fromkeys(metrics)),
                         tuple(sorted(dict.fromkeys(counts), key=order.__getitem__)),
                         tuple(dict.fromkeys(not_yet)), tuple(labels.items()), relstring)


def _measure_metrics(measure: TrecEvalMeasure, given: dict[str, tuple[str, str]],
                     labels: dict[str, str]) -> list[Metric]:
    """The metrics of a trec_eval measure: with its given parameters, else its defaults."""
    if measure.name in given:
        return _labelled(read_parameters(measure.name, *given[measure.name]), labels)
    return _metrics_of(measure, measure.values or measure.cutoffs)


def _labelled(parsed: Parameters, labels: dict[str, str]) -> list[Metric]:
    """The metrics of ``parsed``, their printed name kept in ``labels``."""
    metrics = [parse_metric(m) for m in parsed.metrics]
    if parsed.label is not None:
        labels.update({m.name: parsed.label for m in metrics})
    return metrics


def with_collection_size(metrics: "Iterable[Metric]", docs: int | None) -> list[Metric]:
    """``metrics`` with utility's collection size set to ``docs`` (trec_eval's ``-N``: the
    number of documents in the collection, read by utility's fourth coefficient only).

    >>> [m.name for m in with_collection_size(expand_metrics("utility.1,-1,0,1").metrics, 40)]
    ['utility(rel_ret=1, nonrel_ret=-1, rel_missed=0, nonrel_missed=1, docs=40)']
    """
    return [Metric(**{**m.__dict__, "docs": float(docs)})
            if docs is not None and m.family == "utility" else m for m in metrics]


def supported() -> list[str]:
    """trec_eval's measure names tiedrank computes, in trec_eval's order."""
    return [m.name for m in MEASURES if m.tiedrank is not None or m.count]


def _metrics_of(measure: TrecEvalMeasure, cutoffs: tuple) -> list[Metric]:
    if measure.values:  # Rprec_mult.0.2,1: one metric per value of the real parameter
        return [parse_metric(f"{measure.tiedrank}({v!r})") for v in cutoffs]
    if not measure.cutoffs:
        return [parse_metric(measure.tiedrank)]
    return [parse_metric(f"{measure.tiedrank}@{k}") for k in cutoffs]


# ---- output -------------------------------------------------------------------------------
_NAME_WIDTH = 22  # trec_eval left-justifies names in 22 characters (its printf "%-22s")


def trec_eval_position(metric: "str | Metric", printed: str | None = None) -> tuple[int, float]:
    """Where trec_eval prints ``metric`` (under its printed name ``printed``, by default its
    trec_eval name): (index in :data:`MEASURES`, cutoff); a metric trec_eval does not have
    comes after all of them. The measure is the longest of trec_eval's names that the
    printed name is or begins with followed by ``_`` (``relative_P_5`` is relative_P's).

    >>> sorted(["P@10", "AP", "P@5", "TsRR2", "RR"], key=trec_eval_position)
    ['AP', 'RR', 'P@5', 'P@10', 'TsRR2']
    """
    name = trec_eval_name(metric) if printed is None else printed
    bases = [b for b in BY_NAME if name == b or name.startswith(b + "_")]
    if not bases:
        return len(MEASURES), 0
    base = max(bases, key=len)
    cut = name[len(base) + 1:]
    return MEASURES.index(BY_NAME[base]), float(cut) if re.fullmatch(r"\d+(\.\d+)?", cut) else 0


def format_trec_eval(evaluation: "Evaluation", policy: str = "trec_eval", *,
                     run: str | None = None, per_query: bool = True,
                     counts: "Iterable[str] | bool" = False,
                     names: "Mapping[str, str] | Iterable[tuple[str, str]] | None" = None,
                     relstring: tuple[int, str] = (RELSTRING_DEFAULT, "relstring"),
                     summary: bool = True) -> str:
    """trec_eval's text output of one run of ``evaluation`` under ``policy``.

    Per query (``per_query``, trec_eval's ``-q``): the queries in trec_eval's order (by
    their bytes), each with ``num_ret``, ``num_rel``, ``num_rel_ret`` (those asked) and
    every metric; then the ``all`` lines (unless ``summary`` is False, trec_eval's ``-n``):
    ``runid``, ``num_q``, the summed counts, and each metric's mean. Metrics are in
    trec_eval's order (``map`` before ``P_5``; cutoffs ascending); those trec_eval lacks
    follow under tiedrank's names. A wrapped metric (``Best(AP)``) is printed under its own
    policy, as ``Best(map)``.

    Under the ``trec_eval`` policy the numbers are trec_eval's to the last byte: each
    ``all`` line is trec_eval's own accumulation (meas_acc.c, meas_avg.c: the per-query
    doubles added one by one in its query order, then divided; gm_map and gm_bpref sum the
    logarithms so), not the correctly rounded mean, since the two may print the two sides of
    a half-way 4th decimal; with ``-J`` a query left with no document prints ``-nan`` for
    ``iprec_at_recall`` and ``11pt_avg`` at the levels whose cutoff is 0 (trec_eval divides
    0 by 0 there), and so does their ``all`` line. Under every other policy the ``all``
    lines are tiedrank's exact means.

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
        ``num_ret``, ``num_rel``, ``num_rel_ret`` (and ``relstring``).
    names : mapping or pairs, optional
        The printed name of some metrics (metric name -> trec_eval's name), for measures
        given parameters on trec_eval's ``-m`` (:attr:`MetricRequest.names`:
        ``utility_2,-1,0,0`` as typed).
    relstring : (int, str)
        The relstring length and printed name (``relstring.20``: ``(20, "relstring_20")``).
    summary : bool
        Print the ``all`` lines (trec_eval without ``-n``).
    """
    from ..core.policies import parse_policies

    runs = list(evaluation.tables) or list(dict.fromkeys(evaluation.summary["run"].astype(str)))
    run = runs[0] if run is None else run
    chosen = parse_policies(policy)[0]
    asked = _COUNTS if counts is True else _asked(counts)
    layout = _layout(evaluation, run, runs, chosen, asked, dict(names or {}))
    wants_text = per_query and counts is not True and "relstring" in _asked(counts, _TEXT)
    if wants_text and layout.table is None:  # the scaled paths keep no table to read them from
        warnings.warn(RELSTRING_NEEDS_TABLES, UserWarning, stacklevel=2)
    texts = _relevance_strings(layout.table, chosen, relstring[0]) if wants_text else {}
    lines = _query_lines(layout, texts, relstring[1]) if per_query else []
    if not summary:  # trec_eval -n: no line of the summary, runid included
        return "\n".join(lines) + "\n" if lines else ""
    if layout.means_need_rows:
        warnings.warn(MEANS_NEED_ROWS, UserWarning, stacklevel=2)
    lines += _count_lines(layout, evaluation.options.complete)
    lines += _mean_lines(layout)
    return "\n".join(lines) + "\n"


def _asked(counts: "Iterable[str] | bool", lines: tuple[str, ...] = _COUNTS) -> tuple[str, ...]:
    """Those of ``lines`` that ``counts`` (False, or some names) asks for."""
    asked = set(counts or ())
    return tuple(c for c in lines if c in asked)


@dataclass(frozen=True)
class _Layout:
    """What trec_eval's text of one run under one policy prints, worked out once
    (:func:`_layout`) and printed by :func:`_query_lines`, :func:`_count_lines` and
    :func:`_mean_lines`."""

    run: str
    asked: tuple[str, ...]  # the count lines asked
    frame: pd.DataFrame  # the run's per-query rows under the policy (wrapped metrics too)
    totals: pd.DataFrame  # its summary rows
    wrapped: set  # metrics with their own policy (Best(AP))
    shown: dict  # metric -> printed name
    position: dict  # metric -> trec_eval_position
    order: list  # metrics in trec_eval's order, the count lines' names left out
    kind: dict  # metric -> its summary's name ("mean", "sum", "geometric mean")
    tallies: "pd.DataFrame | None"  # trec_eval_counts of the run
    per_metric: dict  # _per_metric_values
    table: "TieTable | None"
    accumulates: bool  # under trec_eval's policy: the all lines are trec_eval's accumulation

    @property
    def means_need_rows(self) -> bool:
        """Under trec_eval's policy, a mean whose per-query rows are not here (on disk with
        ``--out``): it prints tiedrank's exact mean, not trec_eval's accumulation."""
        return self.accumulates and any(
            m not in self.per_metric and self.kind[m] != "sum" and m not in self.wrapped
            for m in self.order)

    def printed(self, metric: str, value: float) -> "int | float":
        """``value`` as trec_eval prints ``metric``'s: a sum (num_nonrel_judged_ret) as an
        integer."""
        return int(value) if self.kind[metric] == "sum" else float(value)


def _layout(evaluation: "Evaluation", run: str, runs: list[str], chosen, asked: tuple[str, ...],
            printed: dict[str, str]) -> _Layout:
    """The :class:`_Layout` of ``run`` under the policy ``chosen``; a ValueError when the
    evaluation holds no value of either."""
    label = chosen.label
    frame = evaluation.per_query
    frame = frame[frame["run"] == run]
    metric_names = list(dict.fromkeys(frame["metric"].astype(str)))
    # the evaluation's own objects (an Evaluation made elsewhere may hold names only)
    evaluated = {m.name: m for m in evaluation.metrics}
    metric = {n: evaluated.get(n) or parse_metric(n) for n in dict.fromkeys(
        [*metric_names, *evaluation.summary["metric"].astype(str)])}
    wrapped = {n for n in metric_names if metric[n].policy is not None}
    frame = frame[(frame["policy"] == label) | frame["metric"].isin(wrapped)]
    totals = evaluation.summary
    totals = totals[(totals["run"] == run) & ((totals["policy"] == label)
                                              | totals["metric"].isin(wrapped))]
    if frame.empty and totals.empty:
        raise ValueError(f"no values for run {run!r} under policy {label!r}; evaluated: runs "
                         f"{', '.join(runs)}, policies "
                         f"{', '.join(dict.fromkeys(evaluation.per_query['policy'].astype(str)))}")
    shown = {m: printed.get(m) or trec_eval_name(metric[m])  # a wrapped one as Best(map)
             for m in dict.fromkeys(totals["metric"].astype(str))}
    position = {m: trec_eval_position(metric[m], shown[m]) for m in shown}
    order = sorted(shown, key=position.__getitem__)
    order = [m for m in order if shown[m] not in asked]  # the count lines print those
    tallies = _run_counts(evaluation, run)
    per_metric = _per_metric_values(frame, order, tallies, evaluation.options.judged_only
                                    and chosen.name == "trec_eval", wrapped)
    return _Layout(run, asked, frame, totals, wrapped, shown, position, order,
                   {m: metric[m].summary.name for m in order}, tallies, per_metric,
                   evaluation.tables.get(run), chosen.name == "trec_eval")


def _query_lines(layout: _Layout, texts: dict[str, str], relstring_name: str) -> list[str]:
    """trec_eval's ``-q`` lines: per query (by their bytes) its count lines, then its
    measures in trec_eval's order, the relstring among them after P; gm_map and gm_bpref
    print on the all line only."""
    values = {(m, q): v for m in layout.order if layout.kind[m] != "geometric mean"
              for q, v in zip(*layout.per_metric.get(m, ((), ())))}
    tallies = layout.tallies
    counted = set(tallies.index) if tallies is not None else set()
    queries = sorted(set(layout.frame["query"].astype(str)) | counted,
                     key=lambda q: q.encode("utf-8"))
    at_text = MEASURES.index(BY_NAME["relstring"])
    lines: list[str] = []
    for query in queries:
        if query in counted:
            lines += [_line(c, query, int(tallies.at[query, c]))
                      for c in _COUNT_COLUMNS if c in layout.asked]
        metric_lines = [(layout.position[m][0],
                         _line(layout.shown[m], query, layout.printed(m, values[m, query])))
                        for m in layout.order if (m, query) in values]
        if query in texts:  # trec_eval prints it among the measures, after P
            metric_lines.append((at_text, f"{relstring_name:<{_NAME_WIDTH}}\t{query}\t"
                                          f"'{texts[query]}'"))
        lines += [line for _, line in sorted(metric_lines, key=lambda item: item[0])]
    return lines


def _count_lines(layout: _Layout, complete: bool) -> list[str]:
    """The ``all`` lines of runid, num_q and the summed counts (those asked)."""
    lines = [f"{'runid':<{_NAME_WIDTH}}\tall\t{layout.run}"] if "runid" in layout.asked else []
    tallies = layout.tallies
    if tallies is None:
        return lines
    if "num_q" in layout.asked:
        lines.append(_line("num_q", "all", len(tallies)))
    sums = {c: int(tallies[c].sum()) for c in _COUNT_COLUMNS}
    if complete:
        # trec_eval's quirk, kept for a byte-identical output: with -c its num_rel "all"
        # line counts the qrels documents graded > 0 in every qrels query, whatever -l
        # (m_num_rel.c, te_calc_avg_num_rel), while its per-query lines count grade >= -l
        sums["num_rel"] = int(tallies["qrels_positive"].sum())
    return lines + [_line(c, "all", sums[c]) for c in _COUNT_COLUMNS if c in layout.asked]


def _mean_lines(layout: _Layout) -> list[str]:
    """Each measure's ``all`` line: trec_eval's accumulation of the per-query values under
    its policy, tiedrank's exact mean otherwise (none for a measure with no query)."""
    totals = layout.totals
    means = totals.set_index(totals["metric"].astype(str))["value"]
    lines = []
    for m in layout.order:
        mean = means[m]
        per_metric = layout.per_metric.get(m)
        if layout.accumulates and per_metric is not None and m not in layout.wrapped \
                and layout.kind[m] != "sum" and len(per_metric[1]):
            mean = _accumulated(per_metric[1], layout.kind[m])
        elif np.isnan(mean):  # no query to average
            continue
        lines.append(_line(layout.shown[m], "all", layout.printed(m, mean)))
    return lines


_MIN_GEO_MEAN = 0.00001
"""trec_eval's floor of a value in a geometric mean (trec_eval.h MIN_GEO_MEAN)."""


def _accumulated(values: np.ndarray, kind: str) -> float:
    """trec_eval's summary of one measure: its per-query doubles (in trec_eval's query
    order) added one by one from 0 (te_acc_meas_s: ``accum += value``), then divided by the
    number of queries (te_calc_avg_meas_s); a geometric mean adds ``log(max(value,
    0.00001))`` and ends with ``exp(sum / n)`` (te_calc_avg_meas_s_gm), with C's log and
    exp. ``np.cumsum`` adds in order, one by one (``np.sum`` would add pairwise)."""
    if kind == "geometric mean":
        logs = np.fromiter(map(math.log, np.maximum(values, _MIN_GEO_MEAN)), np.float64,
                           len(values))
        return math.exp(float(np.cumsum(logs)[-1]) / len(values))
    return float(np.cumsum(values)[-1]) / len(values)


def _per_metric_values(frame: pd.DataFrame, order: list[str], tallies: "pd.DataFrame | None",
                       judged_only_trec_eval: bool, wrapped: set
                       ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per metric: (query ids, values) in trec_eval's query order (by bytes), the values
    trec_eval prints per query: with ``-J`` under trec_eval's order, NaN where trec_eval
    divides 0 by 0 (:func:`_trec_eval_nan`)."""
    out = {}
    sub = frame[["metric", "query", "value"]].reset_index(drop=True)
    query_text = sub["query"].astype(str).to_numpy(dtype=object)
    in_order = sorted(set(query_text), key=lambda q: q.encode("utf-8"))  # trec_eval's strcmp
    position = pd.Categorical(query_text, categories=in_order).codes
    for metric, rows in sub.groupby(sub["metric"].astype(str), sort=False, observed=True):
        if metric not in order:
            continue
        at = rows.index.to_numpy()
        at = at[np.argsort(position[at], kind="stable")]
        query, value = query_text[at], sub["value"].to_numpy(dtype=np.float64)[at]
        if judged_only_trec_eval and tallies is not None and metric not in wrapped:
            value = np.where(_trec_eval_nan(parse_metric(metric), query, tallies), np.nan, value)
        out[metric] = (query, value)
    return out


def _trec_eval_nan(metric: Metric, query: np.ndarray, tallies: pd.DataFrame) -> np.ndarray:
    """Where trec_eval prints ``-nan`` per query: iprec_at_recall and 11pt_avg of a query left
    with no document (``-J``) take ``num_rel_ret / num_ret`` = 0/0 as their interpolated
    precision at every level whose cutoff lround(level * R) is 0 (m_iprec_at_recall.c,
    m_11pt_avg.c); 11pt_avg adds it into its sum."""
    if metric.family not in ("iprec_at_recall", "11pt_avg") or metric.judged_only is False:
        return np.zeros(len(query), dtype=bool)
    rows = tallies.reindex(query)
    empty = rows["num_ret"].to_numpy() == 0
    levels = ((metric.recall,) if metric.family == "iprec_at_recall"
              else metric.levels or RECALL_LEVELS)
    zero_cut = (recall_cutoffs(rows["num_rel"].to_numpy(np.int64), np.array(levels)) == 0)
    return empty & zero_cut.any(axis=1)


def _relevance_strings(table, policy, length: int = RELSTRING_DEFAULT) -> dict[str, str]:
    """Per evaluated query: trec_eval's relstring in ``policy``'s order (none for the
    expected policy: a string has no mean over the orderings, see
    :func:`~tiedrank.metrics.trec_gains.relevance_strings`)."""
    if table is None or policy.name == "expected":
        return {}
    from ..metrics.trec_gains import relevance_strings

    strings = relevance_strings(table.resolve(policy.name, policy.seed), length)
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
    <tiedrank.evaluation.Evaluation>`): queries never span buckets, so the rows are the same.

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
    # trec_eval's printf("%6.4f") of 0.0 / 0.0 (x86's NaN has its sign bit set)
    text = str(value) if isinstance(value, (int, np.integer)) else (
        "  -nan" if math.isnan(value) else f"{value:6.4f}")
    return f"{name:<{_NAME_WIDTH}}\t{query}\t{text}"


__all__ = ["BY_NAME", "DEFAULT_GROUP", "GROUPS", "MEASURES", "MetricRequest", "TrecEvalMeasure",
           "expand_metrics", "format_trec_eval", "supported", "trec_eval_counts",
           "trec_eval_position"]
