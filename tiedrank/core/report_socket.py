"""The socket through which :class:`~tiedrank.core.evaluation.Evaluation` reaches the report
grid (:mod:`tiedrank.report.grid`) that sits above it.

The grid's significance letters come from :mod:`tiedrank.stats`, which imports
:mod:`tiedrank.core.evaluation`; so the evaluation cannot import the grid (an import circle,
which ``tests/test_layering.py`` refuses, inside a function too). :mod:`tiedrank.report`
plugs its builder in here when it is imported, and ``tiedrank`` imports it first thing, as
:mod:`tiedrank.interop` fills :mod:`tiedrank.core.peers`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def _unplugged(evaluation: Any, **options: Any) -> Any:
    raise RuntimeError("no report builder is plugged in: import tiedrank (its tiedrank.report "
                       "builds the report grid)")


@dataclass
class ReportSocket:
    """The one slot :mod:`tiedrank.report` fills."""

    build: Callable[..., Any] = _unplugged
    """``(evaluation, **options) -> Report``: :func:`tiedrank.report.grid.build_report`."""


REPORT = ReportSocket()
"""The socket; :func:`plug_report` fills it."""


def plug_report(build: Callable[..., Any]) -> None:
    """Plug ``build`` (:func:`tiedrank.report.grid.build_report`) into :data:`REPORT`."""
    REPORT.build = build
