"""The engine's top floor: each run sorted once into its tie-group table (:func:`build_tables`), every metric scored under every policy (:func:`score_tables`), the blocks stacked into tidy frames."""
from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from ..core.data import Qrels
from ..core.errors import Finding
from ..core.options import MAX_EXP_GRADE, EvaluationOptions
from ..core.policies import Policy
from ..core.summation import exact_sums
from ..core.ties import TieTable, build_own_tie_table, build_tie_table
from ..core.validation import InvalidParameterError
from ..metrics import Metric, metric_values
from ..metrics.registry import EXTREME_POLICIES
from .argument_order import check_argument_order
from .inputs import labelled_runs, read_qrels_input
from .metric_lists import as_metrics
from .result import Evaluation, Later


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
    check_qrels_gain(qrels_obj, options.gain)
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
    settings = _settings(metric_list, options)
    _check_gains(tables, metric_list, options.gain)
    findings: list[Finding] = []
    blocks: list[Block] = []
    for name, base in tables.items():
        values: dict = {}
        for level, judged in dict.fromkeys(settings.values()):
            table = base.view(level, judged)
            findings += [f for f in table.findings if f not in findings]
            group = [m for m in metric_list if settings[m] == (level, judged)]
            values |= _score_view(table, group, {m: scored[m] for m in group}, policies,
                                  options.gain)
        blocks += [(name, *values[policy, metric][:1], metric, policy,
                    values[policy, metric][1]) for policy, metric in pairs]
    own = [m.rel for m in metric_list if m.rel is not None]
    return Evaluation(Later(_tidy, (blocks,)), _summary(blocks), dict(tables), findings,
                      options.rule(own), options, metrics=tuple(metric_list),
                      policies=tuple(dict.fromkeys(policy for policy, _ in pairs)))


def _settings(metrics: list[Metric], options: EvaluationOptions) -> dict[Metric, tuple[int, bool]]:
    """Each metric's (relevance level, -J): its own where it sets them, else the options'."""
    return {m: (options.rel_level if m.rel is None else m.rel,
                options.judged_only if m.judged_only is None else m.judged_only)
            for m in metrics}


def _check_gains(tables: Mapping[str, TieTable], metrics: list[Metric], gain: str) -> None:
    """Refuse an exponential gain (the options' or a metric's own) over a grade that
    overflows it, in any table."""
    for kind in dict.fromkeys(m.gain or gain for m in metrics):
        for table in tables.values():
            _check_exp_gain(int(table.ideal_grade.max()) if len(table.ideal_grade) else 0, kind)


def _score_view(table: TieTable, group: list[Metric], scored: dict[Metric, list[Policy]],
                policies: list[Policy], gain: str) -> dict:
    """``{(policy, metric): (query ids, values)}`` of the metrics of ``group`` (which share
    ``table``'s relevance level and -J) under the policies each is scored under.

    A metric the same under every policy is computed once; unj's and rbp_resid's best and
    worst come from the expected table (their own extremes); every other metric reads its
    view resolved under the policy, each view resolved once per policy."""
    included = table.evaluated
    query_ids = table.queries[included]
    expected, read_whole = _expected_views(table, group)
    invariant: dict[Metric, np.ndarray] = {}  # the same under every policy: once
    values: dict = {}
    for policy in policies:
        resolved: dict[tuple[int, bool], TieTable] = {}  # each view resolved once
        for metric in (m for m in group if policy in scored[m]):
            if metric.policy_invariant:
                if metric not in invariant:
                    invariant[metric] = metric_values(table, metric, gain=gain)[included]
                values[policy, metric] = (query_ids, invariant[metric])
            elif metric.extremes is not None and policy.name in EXTREME_POLICIES:
                # unj, rbp_resid: their own best and worst, from the expected table
                values[policy, metric] = (query_ids, metric_values(
                    table, metric, gain=gain, extreme=policy.name)[included])
            else:
                view = _resolved(expected[metric.entry.view], metric.entry.view == "scoring",
                                 policy, resolved, read_whole)
                values[policy, metric] = (query_ids, metric_values(view, metric,
                                                                   gain=gain)[included])
    return values


def _expected_views(table: TieTable, group: list[Metric]) -> tuple[dict, set[int]]:
    """The expected views the kernels of ``group`` read (``scoring``, ``judged``, ``qrels``,
    ``whole``), and the ids of those some kernel reads whole. Policies only reorder inside
    groups, so each view is resolved from its expected table: the smallest view a kernel
    reads, not the whole table."""
    views = {m.entry.view for m in group if not m.policy_invariant}
    scoring = table.scoring()
    expected = {"scoring": scoring,
                "judged": table.view(judged_only=True) if "judged" in views else None,
                "qrels": _same_groups(table.qrels_groups(), scoring) if "qrels" in views else None,
                "whole": table}
    # the views some kernel reads resolved whole; the others are resolved straight to their
    # compact scoring view (TieTable.resolve_scoring)
    read_whole = {id(expected[m.entry.view]) for m in group
                  if m.entry.view != "scoring" and expected[m.entry.view] is not None}
    return expected, read_whole


def _resolved(view: TieTable, scoring: bool, policy: Policy,
              resolved: dict[tuple[int, bool], TieTable], read_whole: set[int]) -> TieTable:
    """``view`` resolved under ``policy`` (its scoring view when ``scoring``), from
    ``resolved`` when done already under this policy (one view may serve two names)."""
    key = (id(view), scoring)
    if key not in resolved and scoring and id(view) not in read_whole:
        resolved[key] = view.resolve_scoring(policy.name, policy.seed)
    elif key not in resolved:
        source = resolved.get((id(view), False)) or view.resolve(policy.name, policy.seed)
        resolved[id(view), False] = source
        # the kernel looks its scoring view up again: given the compact one, it looks over
        # a few documents, not every tied one
        resolved[key] = source.scoring() if scoring else source
    return resolved[key]


def _same_groups(view: TieTable, scoring: TieTable) -> TieTable:
    """``view`` (the qrels' groups), or ``scoring`` when the two hold the same groups: the
    groups of a positively graded document are among those of a qrels document, so equal
    counts mean equal tables (qrels without a judged non-relevant document in another
    group), resolved once, not twice (a tenth of a second a policy on 7M rows)."""
    return scoring if view.n_groups == scoring.n_groups else view


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
        labels = {name: code for code, name in enumerate(dict.fromkeys(names))}
        # from the codes: the same column as pd.Categorical(names, categories=...), without
        # its look-up of every name in the categories (a millisecond an evaluation)
        columns[column] = pd.Categorical.from_codes(
            np.fromiter((labels[name] for name in names), dtype=np.int64, count=len(names)),
            dtype=_categories(tuple(labels)))
    return pd.DataFrame({**columns, "value": np.array([k.finish(s) for k, s in zip(kinds, sums)],
                                                    dtype=np.float64),
                         "n_queries": lengths})


@functools.lru_cache(maxsize=256)
def _categories(labels: tuple[str, ...]) -> pd.CategoricalDtype:
    """The categorical dtype of ``labels`` (run names, metric names, policy labels), made
    once for the evaluations that share them: pandas checks and indexes the categories
    each time it makes one (a millisecond of a small evaluation, for three columns)."""
    return pd.CategoricalDtype(categories=list(labels))


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
        columns[column] = pd.Categorical.from_codes(codes, dtype=_categories(tuple(labels)))
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


def check_qrels_gain(qrels: Qrels, gain: str) -> None:
    """Refuse ``gain="exp"`` over qrels whose top grade overflows 2**grade - 1."""
    _check_exp_gain(int(qrels.frame["relevance"].max()) if len(qrels.frame) else 0, gain)


def _check_exp_gain(top: int, gain: str) -> None:
    """Refuse ``gain="exp"`` when a grade would overflow 2**grade - 1 (never a silent inf)."""
    if gain == "exp" and top > MAX_EXP_GRADE:
        raise InvalidParameterError("gain", gain, f"'linear' for grades above {MAX_EXP_GRADE} "
                                    f"(the qrels hold grade {top:,}; 2**grade - 1 overflows)",
                                    function="evaluate")
