"""The socket through which :meth:`tiedrank.Evaluation.show` reaches the dashboard's server
(:mod:`tiedrank.dashboard.server`), two floors above the evaluation.

The evaluation never imports the dashboard (``tests/test_layering.py``); the dashboard's
server plugs :func:`~tiedrank.dashboard.server.show` in here when it is imported, and
:mod:`tiedrank.plugins` has it imported at the first read of the slot
(:class:`~tiedrank.core.sockets.Socket`), as :mod:`tiedrank.report` fills
:mod:`tiedrank.core.report_socket`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .sockets import Socket


def _unplugged(runs: Any, qrels: Any, **options: Any) -> str:
    raise RuntimeError("no dashboard server is plugged in: import tiedrank (its "
                       "tiedrank.dashboard.server starts the dashboard)")


@dataclass
class ShowSocket(Socket):
    """The one slot :mod:`tiedrank.dashboard.server` fills."""

    show: Callable[..., str] = _unplugged
    """``(runs, qrels, **options) -> url``: :func:`tiedrank.dashboard.server.show`."""


SHOW = ShowSocket()
"""The socket; :func:`plug_show` fills it."""
fill_on_first_use = ShowSocket.fill_on_first_use


def plug_show(show: Callable[..., str]) -> None:
    """Plug ``show`` (:func:`tiedrank.dashboard.server.show`) into :data:`SHOW`."""
    SHOW.show = show
