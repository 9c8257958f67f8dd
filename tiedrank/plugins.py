"""The one place where the packages above the core plug into the core's sockets.

The core (:mod:`tiedrank.core`, :mod:`tiedrank.io`, :mod:`tiedrank.metrics`,
:mod:`tiedrank.evaluation`) imports nothing above it. Where it must reach a layer above, it
calls a slot of a socket, and the layer that answers is named here, and only here:

===============================  ========================  ==========================================
socket                           provider                  what it answers
===============================  ========================  ==========================================
:data:`tiedrank.core.peers.PEERS`  :mod:`tiedrank.interop`   other tools' metric names (trec_eval's
                                                           ``ndcg_cut_10``, ``all_trec``, ranx's
                                                           ``map-l2``, ir_measures objects), their
                                                           run and qrels objects (ranx ``Run``,
                                                           pytrec_eval dicts), trec_eval's text
:data:`tiedrank.core.report_socket.REPORT`  :mod:`tiedrank.report`  the report grid of
                                                           :meth:`~tiedrank.Evaluation.grid`
:data:`tiedrank.core.show_socket.SHOW`  :mod:`tiedrank.dashboard.server`  the dashboard of
                                                           :meth:`~tiedrank.Evaluation.show`
===============================  ========================  ==========================================

A provider is imported at the first read of one of its socket's slots, once, and plugs its
functions in as it is imported (``tiedrank.interop`` calls
:func:`tiedrank.core.peers.plug`, ``tiedrank.report`` :func:`~tiedrank.core.report_socket.
plug_report`). The core reads a slot only for what it cannot answer itself: a string that
is tiedrank's own canonical name (``nDCG@10``), a path, bytes, a file or a DataFrame never
reaches a socket, so evaluating them loads no translator; a ranx ``Run``, a pytrec_eval dict,
``P.5,10`` or ``Evaluation.grid()`` does, and finds its provider plugged in.

``tests/test_layering.py`` checks the providers sit above their sockets, and that the runtime
graph is as described (docs/ARCHITECTURE.md, "What runs when").
"""
from __future__ import annotations

import importlib

from .core import peers, report_socket, show_socket

PROVIDERS = {"tiedrank.core.peers": "tiedrank.interop",
             "tiedrank.core.report_socket": "tiedrank.report",
             "tiedrank.core.show_socket": "tiedrank.dashboard.server"}
"""Socket module -> the package that fills it (imported at the first read of a slot)."""


def install() -> None:
    """Register each provider's import with its socket (``tiedrank`` calls this once, when
    it is imported)."""
    for socket, provider in ((peers.Peers, PROVIDERS["tiedrank.core.peers"]),
                             (report_socket.ReportSocket, PROVIDERS["tiedrank.core.report_socket"]),
                             (show_socket.ShowSocket, PROVIDERS["tiedrank.core.show_socket"])):
        socket.fill_on_first_use(lambda provider=provider: importlib.import_module(provider))
