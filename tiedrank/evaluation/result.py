"""The result of an evaluation: :class:`Evaluation` (per-query values, exact means, the tables, report and export views)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..core.errors import Finding
from ..core.first_use import MadeOnFirstUse
from ..core.options import EvaluationOptions
from ..core.peers import PEERS
from ..core.policies import REPORT_COLUMNS, Policy, parse_policies
from ..core.report_socket import REPORT
from ..core.show_socket import SHOW
from ..core.ties import TieTable
from ..metrics import Metric


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
    inputs: tuple[Any, Any] | None = field(default=None, repr=False, compare=False)
    """(runs, qrels) as given to :func:`evaluate`, for :meth:`show` (None on the scaled paths)."""

    def metric(self, metric: "str | Metric") -> Metric:
        """The evaluated :class:`~tiedrank.metrics.Metric` named ``metric`` (its canonical
        name, as the frames show it), without parsing the name again.

        Examples
        --------
        >>> import pandas as pd
        >>> from tiedrank import evaluate
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

    def show(self, **options: Any) -> str:
        """Open these runs and qrels in the dashboard (:func:`tiedrank.show`), its view
        starting at this evaluation's settings (relevance level, gain, rounding, ``-c``,
        query set; ``options`` override them, and ``k=`` sets the cutoff). Returns the URL;
        in Jupyter the dashboard shows below the cell."""
        if self.inputs is None:
            raise ValueError("this evaluation does not keep its runs and qrels (it was made "
                             "from buckets or tables): call tiedrank.show(runs, qrels)")
        o = self.options
        start = {"rel_level": o.rel_level, "gain": o.gain, "round": o.round,
                 "complete": o.complete, "query_set": o.query_set, "duplicates": o.duplicates,
                 "columns": dict(o.columns) or None, "qrels_columns": dict(o.qrels_columns) or None}
        return SHOW.show(*self.inputs, **{**start, **options})

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
