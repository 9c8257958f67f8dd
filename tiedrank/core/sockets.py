"""What the core's sockets share (:data:`tiedrank.core.peers.PEERS`,
:data:`tiedrank.core.report_socket.REPORT`): slots filled on first use.

The layers above the core plug their functions into a socket when they are imported. So that
``import tiedrank`` need not import them (pandas and all) before anything is asked of them,
:mod:`tiedrank.plugins`, the one place that names them, registers their imports with
:meth:`Socket.fill_on_first_use`: the first read of any slot runs them, once, before it
answers. The core reads a slot only for what it cannot answer itself, so evaluating
tiedrank's own inputs loads none of them. A read in another thread meanwhile waits for the
filling; a read by the filling itself (the layer's own import) answers at once with what is
there.
"""
from __future__ import annotations

import threading
from collections.abc import Callable

_FILLING = threading.RLock()
_HERE = threading.local()


class Socket:
    """Base of a socket class: its instance's public attributes are its slots."""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._pending = []  # functions that fill the slots, run at the first read of one

    @classmethod
    def fill_on_first_use(cls, filler: Callable[[], object]) -> None:
        """Run ``filler`` (it plugs the slots) at the first read of a slot."""
        with _FILLING:
            cls._pending.append(filler)

    def __getattribute__(self, name: str):
        pending = type(self)._pending
        if pending and not name.startswith("_"):
            with _FILLING:
                if pending and not getattr(_HERE, "filling", False):
                    _HERE.filling = True
                    try:
                        while pending:
                            pending[0]()
                            pending.pop(0)
                    finally:
                        _HERE.filling = False
        return object.__getattribute__(self, name)
