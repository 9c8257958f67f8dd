"""The evaluation settings every page honours, and the metric choices that follow the cutoff k."""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..metrics import parse_metric
from ..options import EvaluationOptions


@dataclass(frozen=True)
class Settings:
    """The shared evaluation settings every page honours (``k`` is the cutoff the metric
    pickers offer; the rest maps onto :class:`~tiedrank.options.EvaluationOptions`)."""

    rel_level: int = 1
    gain: str = "linear"
    k: int = 10
    round: int | None = None
    complete: bool = False
    query_set: str = "trec_eval"

    def key(self) -> tuple:
        return (self.rel_level, self.gain, self.k, self.round, self.complete, self.query_set)

    def options(self, ties: "str | Iterable[str]" = "all") -> EvaluationOptions:
        """The engine's options for these settings: every page evaluates with this value."""
        return EvaluationOptions(ties=ties, rel_level=self.rel_level, gain=self.gain,
                                 round=self.round, complete=self.complete,
                                 query_set=self.query_set)


ZERO_RELEVANT_CHOICES = {"trec_eval": "count them (0, as trec_eval)", "relevant": "leave them out"}
"""The sidebar's "Queries without a relevant document" control: ``query_set`` -> label."""


ROUND_OPTIONS: tuple[str | int, ...] = ("off", 0, 1, 2, 3, 4, 5, 6)
"""Choices of the score-rounding setting ("off" = exact ties only; else decimals)."""


def round_setting(choice: str | int | None) -> int | None:
    """The ``round=`` argument of the engine for a :data:`ROUND_OPTIONS` choice."""
    return None if choice in (None, "off") else int(choice)


def default_metrics(k: int) -> list[str]:
    """The overview's default metrics at cutoff ``k``."""
    return ["RR", f"nDCG@{k}", f"P@{k}", "AP", f"R@{k}"]


def metric_options(k: int) -> list[str]:
    """Metric names offered by the metric pickers, at cutoff ``k``."""
    return ["RR", f"RR@{k}", f"Success@{k}", f"P@{k}", f"R@{k}", "AP", f"AP@{k}", "nDCG",
            f"nDCG@{k}", f"DCG@{k}", "Rprec", "TsRR(alpha=1)", "TsRR2", "MTRR_GRAG",
            f"TMHits_GRAG@{k}"]


_CUTOFF = re.compile(r"@\d+$")


def retarget_metrics(selected: Iterable[str], old_k: int | None, k: int) -> list[str]:
    """Move metrics that used the old shared cutoff to the new one (``P@10`` -> ``P@20``).

    Metrics with another explicit cutoff (typed by the user) are kept as they are.
    """
    out: list[str] = []
    for name in selected:
        if old_k is not None and name.endswith(f"@{old_k}"):
            name = _CUTOFF.sub(f"@{k}", name)
        if name not in out:
            out.append(name)
    return out


def validate_metrics(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """Split ``names`` into canonical valid metric names and error messages."""
    valid: list[str] = []
    errors: list[str] = []
    for name in names:
        try:
            canonical = parse_metric(name).name
        except ValueError as err:
            errors.append(str(err))
            continue
        if canonical not in valid:
            valid.append(canonical)
    return valid, errors


def needs_reassert(drawn_at: int | None, run_serial: int | None) -> bool:
    """Whether a kept page widget must have its value written back before it is drawn in
    run ``run_serial``: it was drawn before, but not in the previous run (nor already in
    this one). A widget that reappears after runs without it (an empty state, another
    page) would otherwise mount at its element default in the browser, showing nothing
    chosen while the page uses the kept value, and the next click would replace it.

    >>> needs_reassert(None, 5), needs_reassert(4, 5), needs_reassert(5, 5), needs_reassert(3, 5)
    (False, False, False, True)
    """
    if drawn_at is None or run_serial is None:
        return False
    return drawn_at < run_serial - 1
