"""``Evaluator``: the qrels, the metric list and the options read once, then any number of
runs evaluated against them (``ev(run)``), each giving exactly what :func:`~tiedrank.evaluation.door.evaluate` gives."""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from ..core.data import Qrels, Run
from ..core.joins import keep_qrels_sides
from ..core.options import make_options
from ..core.ties import build_own_tie_table
from ..io.plain_runs import read_plain_run
from ..metrics import Metric
from .argument_order import check_argument_order
from .door import warn_of_disjoint_runs
from .inputs import RunInput, read_qrels_input
from .metric_lists import parse_metrics
from .result import Evaluation
from .scoring import build_tables, check_qrels_gain, score_tables


class Evaluator:
    """The qrels and the metrics of many evaluations, prepared once (as pytrec_eval's
    ``RelevanceEvaluator``): ``ev(run)`` or ``ev.evaluate(run)`` gives what
    ``tiedrank.evaluate(run, qrels, metrics, ties=..., **options)`` gives, bit for bit
    (``per_query``, ``summary``, ``report()``, ``findings``), its warnings and errors
    word for word.

    Made once: the options checked, the metric list read, the qrels read and checked (a
    :class:`~tiedrank.core.data.Qrels` is taken as it is, its frame not read again), and
    what every tie-group table takes of the qrels at each relevance level (their queries,
    R, the ideal grades, the qrels' half of the join) kept for every run after. A run in
    pytrec_eval's form, ``{query: {doc: score}}`` with str ids and float or int scores
    (what a training loop holds), is read in one pass
    (:func:`~tiedrank.io.plain_runs.read_plain_run`); any other form ``evaluate`` takes
    (frames, :class:`~tiedrank.core.data.Run`, paths, a list or dict of runs, other tools'
    objects) is read as ``evaluate`` reads it.

    Parameters
    ----------
    qrels : Qrels, DataFrame, Arrow table, path or peer object
        Read now: later changes to the object given are not seen.
    metrics, ties, **options
        As :func:`~tiedrank.evaluation.door.evaluate` takes them (``rel_level``, ``gain``,
        ``judged_only``, ``depth``, ``round``, ``complete``, ``query_set``, ``seed``,
        ``duplicates``, ``columns``, ``qrels_columns``), with its messages.

    Examples
    --------
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})
    >>> ev = Evaluator(qrels, ["RR"], ties="all")
    >>> ev({"q": {"a": 1.0, "b": 1.0, "c": 0.5}}).report()[["expected", "best", "worst"]].values.tolist()
    [[0.75, 1.0, 0.5]]
    """

    def __init__(self, qrels: "Qrels | pd.DataFrame | str | os.PathLike | bytes",
                 metrics: "str | Metric | Iterable[str | Metric]", *,
                 ties: "str | Iterable[str]" = "expected", rel_level: int = 1,
                 gain: str = "linear", judged_only: bool = False, depth: int | None = None,
                 round: int | None = None, complete: bool = False, query_set: str = "trec_eval",
                 seed: int = 0, duplicates: str = "error", columns: Mapping[str, str] | None = None,
                 qrels_columns: Mapping[str, str] | None = None) -> None:
        self.options = make_options(
            "evaluate", ties=ties, rel_level=rel_level, gain=gain, judged_only=judged_only,
            depth=depth, round=round, complete=complete, query_set=query_set, seed=seed,
            duplicates=duplicates, columns=columns, qrels_columns=qrels_columns)
        self.metrics = tuple(parse_metrics(metrics))
        if isinstance(qrels, Run) or not isinstance(qrels, (str, os.PathLike, pd.DataFrame)):
            check_argument_order([], qrels, options=self.options)  # a run as the qrels
        read = read_qrels_input(qrels, self.options)
        # the Evaluator's own frame, whose qrels sides every table after takes as they are
        # (core.joins): a deep copy, since a reader may share a frame's numbers zero-copy
        # through Arrow, where copy on write cannot see the caller's later changes
        self.qrels = Qrels(read.frame.copy(deep=True), read.source, read.findings, read.subtopics)
        keep_qrels_sides(self.qrels.frame)
        check_qrels_gain(self.qrels, self.options.gain)
        # the tables are built with every document, so a measure with its own judged_only=
        # has them (as build_tables builds them)
        self._every_document = self.options.replace(judged_only=False) \
            if self.options.judged_only else self.options
        # what ranx's order is told apart by: a path (a qrels file given as a run) or the
        # columns of a frame; anything else is the Qrels read
        self._given = qrels if isinstance(qrels, (str, os.PathLike, pd.DataFrame)) else self.qrels

    def evaluate(self, runs: "RunInput | Sequence[RunInput] | Mapping[str, RunInput]") -> Evaluation:
        """``tiedrank.evaluate(runs, qrels, metrics, ...)`` with this Evaluator's qrels,
        metrics and options: the same :class:`Evaluation`, warnings and errors."""
        options = self.options
        check_argument_order(runs, self._given, options=options, files=True)
        # one {query: {doc: score}} dict, in one pass (a columns= mapping: read_run's, as
        # evaluate reads it, since the dict's own column names may not be the ones mapped)
        plain = None if options.columns else read_plain_run(runs)
        if plain is None:
            tables = build_tables(runs, self.qrels, options)
        else:  # build_tables' one step for one run read here (the run is this call's own)
            tables = {plain.name: build_own_tie_table(plain, self.qrels, self._every_document)
                      .view(judged_only=options.judged_only)}
        evaluation = score_tables(tables, list(self.metrics), options)
        warn_of_disjoint_runs(evaluation.tables, options)
        object.__setattr__(evaluation, "inputs", (runs, self._given))  # as evaluate: show()
        return evaluation

    __call__ = evaluate

    def __repr__(self) -> str:
        return (f"Evaluator({len(self.qrels.frame):,} judgements, metrics "
                f"{[m.name for m in self.metrics]}, ties {[p.label for p in self.options.policies]})")
