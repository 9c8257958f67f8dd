"""``EvaluationOptions``: the one value that carries every evaluation option through every door.

The CLI's flags, the dashboard's settings and its URL, :func:`tiedrank.evaluate`'s keyword
arguments and :func:`tiedrank.distributed.evaluate` all build this frozen value, and it is
checked once, when it is made, with the one message format of :mod:`tiedrank.core.validation`.
Nothing downstream re-checks an option: :func:`tiedrank.evaluation.build_tables` and
:func:`tiedrank.evaluation.score_tables` take it as it is, in one process or on a Dask worker
(it pickles).

The query set
-------------
By default the mean is over trec_eval's query set, so the ``trec_eval`` column is the
number trec_eval prints: every query with both results and judgements, queries whose
judged documents are all below the relevance level included (with trec_eval's per-query
value, 0 for RR, AP, P, R, nDCG...). ``complete=True`` (trec_eval ``-c``) adds the qrels
queries the run misses, each scoring 0. ``query_set="relevant"`` leaves out the queries
without a relevant document, as some papers do. Run queries absent from the qrels are never
evaluated.

Examples
--------
>>> options = EvaluationOptions(ties="all", rel_level=2, complete=True)
>>> options.ties, options.rule()
(('all',), 'mean over the queries with results and judgements, queries without a relevant document (grade >= 2) included; queries of the qrels the run misses score 0 (trec_eval -c)')
>>> EvaluationOptions(depth=0)
Traceback (most recent call last):
...
tiedrank.core.validation.InvalidParameterError: depth= must be an integer >= 1 or None; got 0
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from .duplicate_rules import DUPLICATE_POLICIES
from .policies import parse_policies, policy_items
from .validation import REL_LEVEL, Interval, InvalidParameterError, Options, check
GAINS = ("linear", "exp")
"""DCG gains: the grade itself, or 2**grade - 1 (the ``gain`` option and nDCG's kernels)."""

QUERY_SETS = ("trec_eval", "relevant")
"""``trec_eval``: queries with results and judgements (``complete`` adds the qrels' other
queries); ``relevant``: of those, only the queries with a relevant document."""
MAX_ROUND = 15
"""``round=`` is a number of decimals; float64 holds about 15 significant digits, so rounding
to more decimals would merge nothing (and beyond ~308 turns every score into NaN)."""
MAX_EXP_GRADE = 1023
"""Largest grade ``gain="exp"`` takes: 2**1024 - 1 is not a float64."""
ROLES = {"columns": ("query", "doc", "score"), "qrels_columns": ("query", "doc", "relevance")}

_CONSTRAINTS: dict[str, list[Any]] = {
    "rel_level": [REL_LEVEL],
    "gain": [Options(*GAINS)],
    "judged_only": [bool],
    "depth": [Interval(int, 1, None), None],
    "round": [Interval(int, 0, MAX_ROUND), None],
    "complete": [bool],
    "query_set": [Options(*QUERY_SETS)],
    "seed": [Interval(int, None, None)],
    "duplicates": [Options(*DUPLICATE_POLICIES)],
}


@dataclass(frozen=True)
class EvaluationOptions:
    """Every option of an evaluation but the metrics, checked when made.

    Parameters
    ----------
    ties : str or list of str, default "expected"
        Tie policies: ``expected``, ``best``, ``worst``, ``trec_eval``, ``input``,
        ``random`` (seeded by ``seed``; or ``"random(seed=3)"``) or ``"all"`` (the first four).
    rel_level : int, default 1
        Minimum grade of a relevant document (trec_eval ``-l``).
    gain : {"linear", "exp"}, default "linear"
        DCG gain: the grade, or 2**grade - 1.
    judged_only : bool, default False
        Drop unjudged documents before ranking (trec_eval ``-J``), after ``depth``.
    depth : int, optional
        Only the first ``depth`` documents of each query count, in trec_eval's order (score
        descending, then docno descending), as trec_eval's ``-M``.
    round : int, optional
        Round scores to this many decimals so that near-ties merge.
    complete : bool, default False
        Qrels queries the run misses score 0 and count in the mean (trec_eval ``-c``).
    query_set : {"trec_eval", "relevant"}, default "trec_eval"
        ``relevant`` leaves out the queries without a relevant document.
    seed : int, default 0
        Seed of the ``random`` policy.
    duplicates : {"error", "max"}, default "error"
        A document listed twice for a query in a run file: an error, or keep the highest score.
    columns, qrels_columns : mapping, optional
        Which columns of tabular run / qrels files hold each field (``{"score": "s"}``).
    """

    ties: tuple[str, ...] = ("expected",)
    rel_level: int = 1
    gain: str = "linear"
    judged_only: bool = False
    depth: int | None = None
    round: int | None = None
    complete: bool = False
    query_set: str = "trec_eval"
    seed: int = 0
    duplicates: str = "error"
    columns: tuple[tuple[str, str], ...] = ()
    qrels_columns: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # frozen: normalise once, here
        set_(self, "ties", tuple(policy_items(self.ties)))  # None, 5: the message of ties=
        for name in ("columns", "qrels_columns"):
            set_(self, name, _pairs(name, getattr(self, name)))
        for name, allowed in _CONSTRAINTS.items():
            check(name, getattr(self, name), allowed)
        # the one check and the one parse of ties= (not a field: equality and the
        # repr are the fields')
        set_(self, "_policies", tuple(parse_policies(self.ties, self.seed)))

    # ---- derived values ------------------------------------------------------------------
    @property
    def policies(self) -> list:
        """The :class:`~tiedrank.core.policies.Policy` list of ``ties`` (``"all"`` expanded),
        parsed once when the options were made."""
        return list(self._policies)

    @property
    def policy_labels(self) -> list[str]:
        return [p.label for p in self.policies]

    def reading(self) -> dict[str, Any]:
        """Keyword arguments of :func:`tiedrank.io.read_run` for run files."""
        return {"duplicates": self.duplicates, "columns": dict(self.columns) or None}

    def rule(self, own_levels: Iterable[int] = ()) -> str:
        """The query-set rule in force, in words (the output's note)."""
        levels = "".join(f"; >= {r} for the measures that set rel={r}"
                         for r in sorted(set(own_levels) - {self.rel_level}))
        if self.query_set == "relevant":
            text = ("mean over the queries with results and at least one relevant document "
                    f"(grade >= {self.rel_level}{levels})")
        else:
            text = ("mean over the queries with results and judgements, queries without a "
                    f"relevant document (grade >= {self.rel_level}{levels}) included")
        return text + ("; queries of the qrels the run misses score 0 (trec_eval -c)"
                       if self.complete else "; queries of the qrels the run misses are left "
                       "out (trec_eval without -c)")

    def replace(self, **changes: Any) -> "EvaluationOptions":
        """A copy with ``changes`` (checked like a new value)."""
        return replace(self, **changes)


def _pairs(name: str, value: Any) -> tuple[tuple[str, str], ...]:
    """A column mapping as sorted (role, column) pairs (hashable, picklable)."""
    if value is None:
        return ()
    items = value.items() if isinstance(value, Mapping) else value
    try:
        pairs = tuple((str(role), str(column)) for role, column in items)
    except (TypeError, ValueError):
        raise InvalidParameterError(name, value, "a mapping such as "
                                    f"{{'{ROLES[name][0]}': 'qid'}} or None") from None
    unknown = [role for role, _ in pairs if role not in ROLES[name]]
    if unknown:
        raise InvalidParameterError(name, value, f"a mapping whose keys are among "
                                    f"{', '.join(ROLES[name])} (not {unknown[0]!r})")
    return tuple(sorted(pairs))


OPTION_NAMES = tuple(f.name for f in fields(EvaluationOptions))
"""Every keyword of :class:`EvaluationOptions` (what ``evaluate(**kwargs)`` passes on)."""


def option_accepts(name: str, value: Any) -> bool:
    """Whether the option ``name`` takes ``value``: the check of :class:`EvaluationOptions`,
    for a door that keeps a bad value out rather than word it (the dashboard's link).

    >>> option_accepts("rel_level", 2), option_accepts("rel_level", 0), option_accepts("gain", "exp")
    (True, False, True)
    """
    try:
        check(name, value, _CONSTRAINTS[name])
    except InvalidParameterError:
        return False
    return True


def make_options(function: str, options: EvaluationOptions | None = None,
                 **values: Any) -> EvaluationOptions:
    """``options`` with ``values`` applied (or a new value), errors naming ``function()``.

    The public functions take the options as keyword arguments (as scikit-learn does) or as
    one ``options=`` value; either way they are checked here, once.
    """
    try:
        if options is None:
            return EvaluationOptions(**values)
        if not isinstance(options, EvaluationOptions):
            raise InvalidParameterError("options", options, "an EvaluationOptions or None")
        return replace(options, **values) if values else options
    except InvalidParameterError as error:
        error.function = function
        error.args = (error.worded(),)
        raise
