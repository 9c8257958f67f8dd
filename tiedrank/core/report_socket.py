"""The socket through which :class:`~tiedrank.evaluation.Evaluation` reaches the report
grid (:mod:`tiedrank.report.grid`) that sits above it.

The grid's significance letters come from :mod:`tiedrank.stats`, which imports
:mod:`tiedrank.evaluation`; so the evaluation cannot import the grid (an import circle,
which ``tests/test_layering.py`` refuses, inside a function too). :mod:`tiedrank.report`
plugs its builder in here when it is imported, and :mod:`tiedrank.plugins` has it imported
at the first read of the slot (:class:`~tiedrank.core.sockets.Socket`), as
:mod:`tiedrank.interop` fills :mod:`tiedrank.core.peers`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .sockets import Socket


def _unplugged(evaluation: Any, **options: Any) -> Any:
    raise RuntimeError("no report builder is plugged in: import tiedrank (its tiedrank.report "
                       "builds the report grid)")


@dataclass
class ReportSocket(Socket):
    """The one slot :mod:`tiedrank.report` fills."""

    build: Callable[..., Any] = _unplugged
    """``(evaluation, **options) -> Report``: :func:`tiedrank.report.grid.build_report`."""


REPORT = ReportSocket()
"""The socket; :func:`plug_report` fills it."""
fill_on_first_use = ReportSocket.fill_on_first_use


def plug_report(build: Callable[..., Any]) -> None:
    """Plug ``build`` (:func:`tiedrank.report.grid.build_report`) into :data:`REPORT`."""
    REPORT.build = build
