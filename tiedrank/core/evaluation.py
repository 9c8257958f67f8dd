"""``evaluate``: runs x metrics x tie policies -> tidy per-query values and their means."""
from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .argument_order import check_argument_order, files_swapped  # noqa: F401  (re-exported)
from .data import Qrels, Run, exports_arrow
from .errors import Finding
from .first_use import MadeOnFirstUse
from ..metrics import Metric, metric_values, parse_metric
from ..metrics.registry import EXTREME_POLICIES
from .policies import ALL_POLICIES, REPORT_COLUMNS, Policy, parse_policies  # noqa: F401  (ALL_POLICIES re-exported)
from .options import MAX_EXP_GRADE, EvaluationOptions, make_options
from .peers import PEERS, MetricRequest
from .report_socket import REPORT
from .rounding import round_scores
from .summation import exact_sums
from .machine import release_unused_memory
from .ties import TieTable, build_own_tie_table, build_tie_table, truncate_run  # noqa: F401  (truncate_run re-exported)
from .validation import InvalidParameterError

DEFAULT_METRICS = ("RR", "P@10", "AP", "nDCG@10")
"""The metrics the CLI evaluates when none is given."""


@dataclass(frozen=True)
class Later:
    """``function(*arguments)``, called when asked for: a field given one is made on first
    use (:class:`~tiedrank.core.first_use.MadeOnFirstUse`)."""

    function: Callable[..., Any]
    arguments: tuple = ()

    def __call__(self) -> Any:
        return self.function(*self.arguments)


@dataclass(frozen=True, eq=False)
class Evaluation:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    per_query : DataFrame
        One row per (run, query, metric, policy): the metric's value for that query.
    summary : DataFrame
        Mean over the evaluated queries: run, metric, policy, value, n_queries.
    tables : dict of str to TieTable
        The expected tie-group table of each run (for spreads and figures).
    findings : list of Finding
        Non-fatal observations (missing queries, unjudged documents, ...).
    rule : str
        The query-set rule applied, in words.
    options : EvaluationOptions
        The options evaluated with.
    counts : DataFrame or None
        trec_eval's per-query counts where no tie table is kept (the scaled paths of
        :mod:`tiedrank.distributed` gather them from every bucket's table with
        :func:`~tiedrank.interop.trec_eval.trec_eval_counts`): run, query, num_ret, num_rel,
        num_rel_ret, in the one-pass order. None in one pass: ``tables`` hold them.
    metrics : tuple of Metric
        The metrics evaluated, as parsed once at the door, in the order of the results; the
        frames show their names (:attr:`Metric.name`), and :meth:`metric` gives back the
        object of a name, so nothing downstream parses a name again.
    policies : tuple of Policy
        The tie policies scored (those of ``options``, then the ones only wrapped metrics
        name), in the order of the results; the frames show their labels.
    """

    # given a Later when only the means may be asked for: the per-query frame of -m all_trec
    # on 7M lines (2.5M rows) is 0.2 s and 100 MB that a command printing means never reads
    per_query: pd.DataFrame = MadeOnFirstUse(  # type: ignore[assignment]
        lambda evaluation, later: later(), pending=lambda stored: isinstance(stored, Later))
    summary: pd.DataFrame
    tables: dict[str, TieTable]
    findings: list[Finding] = field(default_factory=list)
    rule: str = ""
    options: EvaluationOptions = field(default_factory=EvaluationOptions)
    counts: pd.DataFrame | None = None
    metrics: tuple[Metric, ...] = ()
    policies: tuple[Policy, ...] = ()

    def metric(self, metric: "str | Metric") -> Metric:
        """The evaluated :class:`~tiedrank.metrics.Metric` named ``metric`` (its canonical
        name, as the frames show it), without parsing the name again.

        Examples
        --------
        >>> import pandas as pd
        >>> run = pd.DataFrame({"query": "q", "doc": ["a", "b"], "score": [1.0, 1.0]})
        >>> qrels = pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})
        >>> evaluate({"r": run}, qrels, ["gm_map"]).metric("gm_map").summary.name
        'geometric mean'
        """
        name = str(metric)
        for evaluated in self.metrics:
            if evaluated.name == name:
                return evaluated
        raise KeyError(f"metric {name!r} was not evaluated; evaluated: "
                       f"{', '.join(m.name for m in self.metrics) or 'none'}")

    def report(self) -> pd.DataFrame:
        """Per run and metric: expected, best, worst, trec_eval (as evaluated) and bias.

        bias = trec_eval-order value - expected value: what a paper that reports trec_eval's
        number is off by. (tie-aware-retrieval-metrics reports another bias, the input
        order's value minus the expectation; evaluate ``ties="input"`` for that order.)
        Columns appear for the policies that were evaluated.
        """
        wide = self.summary.pivot_table(index=["run", "metric"], columns="policy",
                                        values="value", sort=False, observed=True,
                                        dropna=False)  # a metric no query counts in keeps its row
        order = [p for p in REPORT_COLUMNS if p in wide.columns]
        extra = [p for p in wide.columns if p not in REPORT_COLUMNS]
        wide = wide[order + extra].rename(columns=REPORT_COLUMNS)
        if "trec_eval" in wide and "expected" in wide:
            wide["bias"] = wide["trec_eval"] - wide["expected"]
        wide.columns.name = None
        return wide.reset_index()

    def grid(self, **options: Any) -> Any:
        """The report grid of this evaluation, :class:`tiedrank.report.Report`: runs x
        metrics, each cell the expectation with [worst, best], the best run per metric
        marked, ranx-style significance letters (every pair of runs by default) and a dagger
        where the letters change with the tie policy. ``options`` are those of
        :func:`tiedrank.report.build_report` (``pairs``, ``baseline``, ``policy``, ``test``,
        ``correction``, ``alpha``, ``trec_eval``, ``digits``, ...)."""
        return REPORT.build(self, **options)

    def to_latex(self, *, caption: str | None = None, label: str | None = "tab:tiedrank",
                 ascii_only: bool = True, **options: Any) -> str:
        r"""The report grid (:meth:`grid` with ``options``) as a LaTeX ``table`` with a
        booktabs ``tabular`` and a caption saying what the brackets, bold, letters and
        dagger mean: :meth:`tiedrank.report.Report.to_latex`."""
        return self.grid(**options).to_latex(caption=caption, label=label, ascii_only=ascii_only)

    def to_markdown(self, **options: Any) -> str:
        """The report grid (:meth:`grid` with ``options``) as a Markdown table and caption."""
        return self.grid(**options).to_markdown()

    def to_html(self, **options: Any) -> str:
        """The report grid (:meth:`grid` with ``options``) as an escaped HTML table."""
        return self.grid(**options).to_html()

    def _repr_html_(self) -> str:
        # a notebook shows the grid; no test is run just to display the value
        return self.grid(pairs=None).to_html()

    def to_trec_eval(self, policy: str = "trec_eval", *, run: str | None = None,
                     per_query: bool = True, counts: "Iterable[str] | bool" = False,
                     **layout: Any) -> str:
        """trec_eval's text output for one policy and one run, as trec_eval prints it:
        ``measure<TAB>query<TAB>value`` lines with trec_eval's measure names (``ndcg_cut_10``,
        ``P_10``, ``recip_rank``, ``map``) in its order, per query (``per_query``, its
        ``-q``), then the means on ``all`` lines; ``counts`` adds trec_eval's count lines
        (``True``: ``runid``, ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``, as
        trec_eval prints them with no ``-m``; or a list of those). See
        :func:`tiedrank.interop.trec_eval.format_trec_eval` (plugged in through
        :data:`tiedrank.core.peers.PEERS`), which also takes ``names`` (printed names of
        measures given parameters), ``relstring`` (its length and name) and ``summary``
        (``False``: no ``all`` lines, trec_eval's ``-n``).
        """
        return PEERS.format_trec_eval(self, policy, run=run, per_query=per_query, counts=counts,
                                      **layout)

    def to_ranx(self, policy: str = "expected", *, run: str | None = None) -> dict:
        """Like ``ranx.evaluate(qrels, run, metrics)``: ``{ranx name: mean}`` for one policy
        and run (``hits@10``, ``hit_rate@10``, ``ndcg@10``, ``mrr``, ...); per-query values
        are in ``per_query``."""
        return {PEERS.ranx_name(m): float(v) for m, v in self._policy_rows(policy, run)[1].items()}

    def _policy_rows(self, policy: str, run: str | None) -> tuple[pd.DataFrame, pd.Series]:
        runs = list(self.tables) or list(dict.fromkeys(self.summary["run"].astype(str)))
        run = runs[0] if run is None else run
        label = parse_policies(policy)[0].label
        rows = self.per_query[(self.per_query["run"] == run) & (self.per_query["policy"] == label)]
        if rows.empty:
            raise ValueError(f"no values for run {run!r} under policy {label!r}; evaluated: "
                             f"runs {', '.join(runs)}, policies "
                             f"{', '.join(dict.fromkeys(self.per_query['policy'].astype(str)))}")
        summary = self.summary[(self.summary["run"] == run) & (self.summary["policy"] == label)]
        return rows, summary.set_index(summary["metric"].astype(str))["value"]


def unique_label(name: str, taken: "Iterable[str]") -> str:
    """``name``, or ``"name (2)"``, ``"name (3)"``, ... if ``taken`` already holds it.

    Two files with the same TREC tag stay apart under the same rule everywhere.

    Examples
    --------
    >>> unique_label("bm25", ["bm25", "bm25 (2)"])
    'bm25 (3)'
    """
    taken = set(taken)
    label, n = name, 2
    while label in taken:
        label, n = f"{name} ({n})", n + 1
    return label


def unique_labels(names: "Iterable[str]") -> list[str]:
    """``names`` told apart by :func:`unique_label`, in order: the names one pass gives the
    runs, which the scaled paths give them before reading them.

    >>> unique_labels(["bm25", "dense", "bm25"])
    ['bm25', 'dense', 'bm25 (2)']
    """
    labels: list[str] = []
    for name in names:
        labels.append(unique_label(name, labels))
    return labels


def run_sources(runs) -> list[tuple[str | None, object]]:
    """(name or None, source) of every run in ``runs``, whatever shape holds them.

    A dict gives names (``{name: run}``, also ``{name: {query: {doc: score}}}``); one
    pytrec_eval run ``{query: {doc: score}}``, one ranx ``Run``, one frame, path or bytes,
    or an iterable of ``(query, doc, score)`` rows is one run; a list is several. Nothing is
    read here, so every door (one pass, buckets, Dask) sees the runs the same way; an Arrow
    exporter (a polars DataFrame, a pyarrow Table, a DuckDB relation) is one run. Other
    tools' objects are told apart by :mod:`tiedrank.interop` (:data:`~tiedrank.core.peers.PEERS`).
    """
    if isinstance(runs, Mapping) and not PEERS.is_nested_runs(runs) and runs and \
            isinstance(next(iter(runs.values())), Mapping):
        return [(None, runs)]  # one pytrec_eval run {query: {doc: score}}
    if isinstance(runs, Mapping):
        return list(runs.items())  # {name: run}, also {name: {query: {doc: score}}}
    if isinstance(runs, (Run, pd.DataFrame, str, os.PathLike, bytes)) or exports_arrow(runs) or (
            PEERS.is_peer_object(runs) and not isinstance(runs, (list, tuple)) and
            not hasattr(runs, "__next__")):
        return [(None, runs)]  # one run (a ranx Run, ...)
    if not isinstance(runs, Iterable):
        raise TypeError(f"cannot read runs from {type(runs).__name__}; pass a run or a list "
                        f"or dict of runs, each {PEERS.accepted}")
    runs = list(runs)
    one = bool(runs) and isinstance(runs[0], tuple) and not isinstance(runs[0], Run) \
        and len(runs[0]) >= 3 and not isinstance(runs[0][0], (Run, pd.DataFrame))
    return [(None, runs)] if one else [(None, r) for r in runs]  # rows, or a list of runs


def label_runs(runs, options: EvaluationOptions | None = None) -> dict[str, Run]:
    """Runs by name: a dict keeps its names, otherwise the TREC tag or file name; a
    repeated name becomes ``"name (2)"`` (:func:`unique_label`). Paths are read with the
    reading options of ``options`` (duplicates, columns)."""
    out = {label: run for label, run, _ in labelled_runs(runs, options)}
    if not out:
        raise ValueError("no runs to evaluate")
    return out


def labelled_runs(runs, options: EvaluationOptions | None = None
                  ) -> Iterator[tuple[str, Run, bool]]:
    """(label, run, read from a file here) of each run of ``runs`` in turn, each read only
    when asked for, with the labels of :func:`label_runs` (a label depends on the labels
    before it alone).

    A caller that builds each run's table and lets the run go before asking for the next
    holds one run's rows at a time, not every run's (:func:`build_tables`)."""
    from ..io import read_run  # local: io imports pyarrow.csv, not needed for table use

    reading = (options or EvaluationOptions()).reading()
    taken: list[str] = []
    for name, item in run_sources(runs):
        run = item if isinstance(item, Run) else read_run(item, name=name, **reading)
        label = unique_label(run.name if name is None else name, taken)
        if label != run.name:
            run = Run(label, run.frame, run.source, run.findings)
        taken.append(label)
        yield label, run, isinstance(item, (str, os.PathLike, bytes))
        # before the next run is read: a caller done with this one (build_tables) has let
        # it go, and the allocators would keep its columns and the build's temporaries
        del run, item
        release_unused_memory()


def read_qrels_input(qrels, options: EvaluationOptions | None = None) -> Qrels:
    """``qrels`` as a :class:`Qrels` (read with ``options.qrels_columns`` if not one)."""
    if isinstance(qrels, Qrels):
        return qrels
    from ..io import read_qrels

    return read_qrels(qrels, columns=dict((options or EvaluationOptions()).qrels_columns) or None)


RunInput = Run | pd.DataFrame | str | os.PathLike | bytes


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
        ``expected``, ``optimistic``, ``pessimistic``, ``trec_eval``, ``input``, ``random``
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
    return score_tables(build_tables(runs, qrels, options), metric_list, options)


def parse_metrics(metrics: "str | Metric | Iterable[str | Metric]") -> list[Metric]:
    """The metrics of ``metrics`` (a name, a measure, or a list), each once, in order.

    trec_eval's ``-m`` forms are read too (:func:`tiedrank.interop.trec_eval.expand_metrics`):
    ``P.5,10`` is P@5 and P@10, ``P`` alone trec_eval's default cutoffs, ``official`` and
    ``all_trec`` the measures of those groups tiedrank has (a ``UserWarning`` names the ones
    it has not yet; the count lines ``runid``, ``num_q``, ... are printed by
    :meth:`Evaluation.to_trec_eval`).

    Examples
    --------
    >>> [m.name for m in parse_metrics(["P.10,5", "map-l2", "Best(nDCG@10)"])]
    ['P@5', 'P@10', 'AP(rel=2)', 'Best(nDCG@10)']
    """
    request = metric_request(metrics)
    if request.note:
        warnings.warn(request.note, UserWarning, stacklevel=3)
    return list(request.metrics)


def metric_request(metrics: "str | Metric | Iterable[str | Metric]") -> MetricRequest:
    """:func:`parse_metrics` with what a trec_eval group adds: the count lines it asks for
    and the measures not yet tie-aware in tiedrank (:class:`~tiedrank.core.peers.
    MetricRequest`, from :func:`tiedrank.interop.trec_eval.expand_metrics` through
    :data:`~tiedrank.core.peers.PEERS`); the CLI prints its note itself."""
    if metrics is None or not (_is_one_metric(metrics) or isinstance(metrics, Iterable)):
        raise InvalidParameterError("metrics", metrics, "a metric name such as 'RR' or "
                                    "'nDCG@10', a measure, or a list of those",
                                    function="evaluate")
    items = [metrics] if _is_one_metric(metrics) else list(metrics)
    request = (PEERS.expand_metrics(items) if PEERS.expand_metrics is not None else
               MetricRequest(tuple(dict.fromkeys(parse_metric(item) for item in items))))
    if not request.metrics:
        raise ValueError("no metrics given" if not request.counts and not request.not_yet else
                         "no metric tiedrank computes was asked for"
                         + (f" ({request.note})" if request.note else ""))
    return request  # RR, mrr, RR: one metric, counted once


def build_tables(runs, qrels, options: EvaluationOptions | None = None) -> dict[str, TieTable]:
    """Read the runs and qrels (unless already read) and build each run's tie-group table.

    One sort per run. ``options`` sets depth (-M), rounding, the relevance level, -J and the
    query set; each table is the expected table of its run, the input of
    :func:`score_tables`, the spreads and the samplers.

    Examples
    --------
    >>> import pandas as pd
    >>> run = pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
    >>> qrels = pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})
    >>> tables = build_tables({"r": run}, qrels, EvaluationOptions(depth=2))
    >>> tables["r"].group_size.tolist()
    [2]
    """
    options = options or EvaluationOptions()
    check_argument_order(runs, qrels, options=options)
    labelled = labelled_runs(runs, options)
    pending = next(labelled, None)  # the first run is read before the qrels, as it always
    qrels_obj = read_qrels_input(qrels, options)  # was (which error a user sees first)
    _check_exp_gain(int(qrels_obj.frame["relevance"].max()) if len(qrels_obj.frame) else 0,
                    options.gain)
    # built with every document, so a measure with its own judged_only= has them
    every_document = options.replace(judged_only=False) if options.judged_only else options
    tables: dict[str, TieTable] = {}
    # a run is let go once its table is built (the table keeps the doc ids, their text
    # shared with the run's, not the query ids or the scores: 150 MB on 7M lines), and the
    # next run is read only then
    while pending is not None:
        (name, run, read_here), pending = pending, None
        # a run read here from a file is this loop's alone: the build may drop its columns
        build = build_own_tie_table if read_here else build_tie_table
        table = build(run, qrels_obj, every_document)
        del run
        tables[name] = table.view(judged_only=options.judged_only)
        pending = next(labelled, None)
    if not tables:
        raise ValueError("no runs to evaluate")
    return tables


def score_tables(tables: Mapping[str, TieTable], metrics: "str | Metric | Iterable[str | Metric]",
                 options: EvaluationOptions | None = None) -> Evaluation:
    """Every metric of every table under every tie policy of ``options``.

    A measure that sets its own ``rel=`` or ``judged_only=`` is scored on the table's
    :meth:`~tiedrank.core.ties.TieTable.view` at that setting. The per-query rows are the
    queries each view counts (:attr:`~tiedrank.core.ties.TieTable.evaluated`); the summary holds
    the exact mean of each (run, metric, policy), a row even when no query counts (value
    NaN, ``n_queries`` 0).
    """
    options = options or EvaluationOptions()
    metric_list = as_metrics(metrics)
    pairs = scored_pairs(metric_list, options)
    policies = list(dict.fromkeys(policy for policy, _ in pairs))
    scored: dict[Metric, list[Policy]] = {m: [] for m in metric_list}
    for policy, metric in pairs:  # one pass: comparing every metric with every pair's cost
        scored[metric].append(policy)  # 0.04 s for all_trec x 4 policies
    settings = {m: (options.rel_level if m.rel is None else m.rel,
                    options.judged_only if m.judged_only is None else m.judged_only)
                for m in metric_list}
    for kind in dict.fromkeys(m.gain or options.gain for m in metric_list):
        for table in tables.values():
            _check_exp_gain(int(table.ideal_grade.max()) if len(table.ideal_grade) else 0, kind)
    findings: list[Finding] = []
    blocks: list[Block] = []
    for name, base in tables.items():
        values: dict = {}
        for level, judged in dict.fromkeys(settings.values()):
            table = base.view(level, judged)
            findings += [f for f in table.findings if f not in findings]
            included = table.evaluated
            query_ids = table.queries[included]
            group = [m for m in metric_list if settings[m] == (level, judged)]
            views = {m.entry.view for m in group if not m.policy_invariant}
            scoring = table.scoring()
            expected = {"scoring": scoring,  # policies only reorder inside groups:
                        "judged": table.view(judged_only=True) if "judged" in views else None,
                        "qrels": _same_groups(table.qrels_groups(), scoring)
                        if "qrels" in views else None,
                        "whole": table}              # resolve the smallest view a kernel reads
            invariant: dict[Metric, np.ndarray] = {}  # the same under every policy: once
            # the views some kernel reads resolved whole; the others are resolved straight
            # to their compact scoring view (TieTable.resolve_scoring)
            read_whole = {id(expected[m.entry.view]) for m in group
                          if m.entry.view != "scoring" and expected[m.entry.view] is not None}
            for policy in policies:
                resolved: dict[tuple[int, bool], TieTable] = {}  # each view resolved once
                for metric in (m for m in group if policy in scored[m]):
                    if metric.policy_invariant:
                        if metric not in invariant:
                            invariant[metric] = metric_values(table, metric,
                                                              gain=options.gain)[included]
                        values[policy, metric] = (query_ids, invariant[metric])
                        continue
                    if metric.extremes is not None and policy.name in EXTREME_POLICIES:
                        # unj, rbp_resid: their own best and worst, from the expected table
                        values[policy, metric] = (query_ids, metric_values(
                            table, metric, gain=options.gain, extreme=policy.name)[included])
                        continue
                    view = expected[metric.entry.view]  # one view may serve two names
                    key = (id(view), metric.entry.view == "scoring")
                    if key not in resolved and key[1] and key[0] not in read_whole:
                        resolved[key] = view.resolve_scoring(policy.name, policy.seed)
                    elif key not in resolved:
                        source = resolved.get((id(view), False)) or view.resolve(
                            policy.name, policy.seed)
                        resolved[id(view), False] = source
                        # the kernel looks its scoring view up again: given the compact
                        # one, it looks over a few documents, not every tied one
                        resolved[key] = source.scoring() if key[1] else source
                    values[policy, metric] = (query_ids, metric_values(
                        resolved[key], metric, gain=options.gain)[included])
        blocks += [(name, *values[policy, metric][:1], metric, policy,
                    values[policy, metric][1]) for policy, metric in pairs]
    own = [m.rel for m in metric_list if m.rel is not None]
    return Evaluation(Later(_tidy, (blocks,)), _summary(blocks), dict(tables), findings,
                      options.rule(own), options, metrics=tuple(metric_list),
                      policies=tuple(dict.fromkeys(policy for policy, _ in pairs)))


def _same_groups(view: TieTable, scoring: TieTable) -> TieTable:
    """``view`` (the qrels' groups), or ``scoring`` when the two hold the same groups: the
    groups of a positively graded document are among those of a qrels document, so equal
    counts mean equal tables (qrels without a judged non-relevant document in another
    group), resolved once, not twice (a tenth of a second a policy on 7M rows)."""
    return scoring if view.n_groups == scoring.n_groups else view


def as_metrics(metrics: "str | Metric | Iterable[str | Metric]") -> list[Metric]:
    """``metrics`` as :class:`~tiedrank.metrics.Metric` objects, each once, in order: taken
    as they are when a door parsed them already (the CLI, :func:`evaluate`, the dashboard's
    settings, the scaled paths' plan), parsed here (:func:`parse_metrics`) otherwise."""
    if isinstance(metrics, Metric):
        return [metrics]
    if not isinstance(metrics, (str, bytes)) and isinstance(metrics, Iterable):
        items = list(metrics)
        if items and all(isinstance(m, Metric) for m in items):
            return list(dict.fromkeys(items))
        metrics = items
    return parse_metrics(metrics)


def scored_pairs(metrics: "Iterable[Metric]", options: EvaluationOptions) -> list[tuple[Policy, Metric]]:
    """The (policy, metric) pairs a run is scored on, in the order of the results: every
    policy of ``options``, then the policies only wrapped metrics name; under each, the
    metrics in the order given. A wrapped metric (``Best(AP)``) is scored under its own
    policy only, the others under every policy of ``options``. The scaled paths list their
    results by this too, so every door has the same rows.
    """
    metric_list = list(metrics)
    own = {m: Policy(m.policy) for m in metric_list if m.policy is not None}
    policies = list(dict.fromkeys([*options.policies, *own.values()]))
    return [(policy, metric) for policy in policies for metric in metric_list
            if (own[metric] == policy if metric in own else policy in options.policies)]


Block = tuple[str, np.ndarray, Metric, Policy, np.ndarray]
"""One (run, metric, policy) of :func:`score_tables`: run name, query ids, the metric and the
policy (objects: the frames show their names), and the per-query values."""


def _names(blocks: list[Block], position: int) -> list[str]:
    """Each block's run name, metric name or policy label (``position`` 0, 2 or 3)."""
    return [b[0] if position == 0 else b[2].name if position == 2 else b[3].label
            for b in blocks]


_SUMMED_AT_ONCE = 1 << 18
"""Per-query values :func:`_summary` sums in one call of :func:`exact_sums` (whole blocks)."""


def _summary(blocks: list[Block]) -> pd.DataFrame:
    """Exact summary of each block (run, metric, policy), in the order evaluated: the mean,
    or the sum or geometric mean a metric declares (:class:`~tiedrank.core.summation.Summary`);
    a block with no query keeps its row (NaN, 0 queries)."""
    lengths = np.array([len(b[4]) for b in blocks], dtype=np.int64)
    kinds = [b[2].summary for b in blocks]
    # a batch of whole blocks at a time (each block is its own sum): exact_sums makes a
    # dozen arrays the size of what it sums, 120 MB at once for all_trec on 7M lines
    sums: list = []
    ends = np.cumsum(lengths)
    first = 0
    while first < len(blocks):
        start = int(ends[first] - lengths[first])
        last = max(first + 1, int(np.searchsorted(ends, start + _SUMMED_AT_ONCE, side="right")))
        values = np.concatenate([k.summand(b[4]) for k, b in zip(kinds[first:last],
                                                                  blocks[first:last])])
        sums += exact_sums(np.repeat(np.arange(last - first), lengths[first:last]), values,
                           last - first)
        first = last
    columns = {}
    for position, column in ((0, "run"), (2, "metric"), (3, "policy")):
        names = _names(blocks, position)
        columns[column] = pd.Categorical(names, categories=list(dict.fromkeys(names)))
    return pd.DataFrame({**columns, "value": np.array([k.finish(s) for k, s in zip(kinds, sums)],
                                                    dtype=np.float64),
                         "n_queries": lengths})


def _is_one_metric(metrics) -> bool:
    """A single metric (a name, a Metric or another tool's measure object, which
    :mod:`tiedrank.interop` reads) rather than a list."""
    return isinstance(metrics, (str, Metric)) or (
        metrics is not None and not isinstance(metrics, Iterable)
        and PEERS.read_metric(metrics, f"metric {metrics!r}") is not None)


def _tidy(blocks: list[Block]) -> pd.DataFrame:
    """Stack per-(run, metric, policy) value blocks into the tidy per-query frame.

    run, metric and policy become categoricals in the order evaluated (built from codes,
    so no per-row string work on large query sets).
    """
    lengths = np.array([len(b[4]) for b in blocks])
    columns = {}
    for position, column in ((0, "run"), (2, "metric"), (3, "policy")):
        names = _names(blocks, position)
        labels = list(dict.fromkeys(names))
        codes = np.repeat([labels.index(name) for name in names], lengths)
        columns[column] = pd.Categorical.from_codes(codes, categories=labels)
    # a run's blocks share one array of query ids (per relevance level and -J): each is
    # made strings once, and the column is taken from those (not 355 x 7,000 str objects)
    shared = {id(b[1]): b[1] for b in blocks}
    pool = list(shared.values())
    offsets = dict(zip(shared, np.cumsum([0] + [len(ids) for ids in pool])))
    strings = pd.array(np.concatenate(pool) if pool else np.zeros(0, dtype=object), dtype="str")
    query = strings.take(np.concatenate([offsets[id(b[1])] + np.arange(len(b[1]))
                                         for b in blocks]) if blocks else np.zeros(0, dtype=int))
    return pd.DataFrame({"run": columns["run"], "query": query,
                         "metric": columns["metric"], "policy": columns["policy"],
                         "value": np.concatenate([b[4] for b in blocks])})


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


def _check_exp_gain(top: int, gain: str) -> None:
    """Refuse ``gain="exp"`` when a grade would overflow 2**grade - 1 (never a silent inf)."""
    if gain == "exp" and top > MAX_EXP_GRADE:
        raise InvalidParameterError("gain", gain, f"'linear' for grades above {MAX_EXP_GRADE} "
                                    f"(the qrels hold grade {top:,}; 2**grade - 1 overflows)",
                                    function="evaluate")
