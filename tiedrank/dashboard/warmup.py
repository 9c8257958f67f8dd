"""Heavy imports done in the background when the dashboard's server starts.

The Compare page's paired tests need ``scipy.stats``, whose import alone takes about a
second (more on a loaded machine: it parses docstrings as it loads). Imported where a
statistic is computed (so the CLI starts fast), it used to land on the first visit to
Compare in a fresh server. :func:`warm_up` imports such modules once per process, in a
daemon thread that app.py starts once its first run has drawn its page (started before,
the import competed with that page for the interpreter: the first Overview took about a
second longer), so it runs while the user reads the first page; a page
that needs a module before the thread is done simply waits for that import to finish
(Python's import lock), never imports it twice. Streamlit-free.

Examples
--------
>>> imports = BackgroundImports(("json",))
>>> thread = imports.start()                  # the first call starts the thread
>>> thread.name, imports.start() is None      # later calls do nothing
('tiedrank-warm-up', True)
>>> thread.join()
"""
from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence

HEAVY_MODULES = ("scipy.stats",)
"""Modules a page imports on first use that cost a second or more to import."""


class BackgroundImports:
    """Import some modules in a background daemon thread, at most once.

    Parameters
    ----------
    modules : sequence of str
        Module names, imported in this order; one that fails is skipped (the page that
        needs it reports the problem when it imports it itself).
    """

    def __init__(self, modules: Sequence[str]) -> None:
        self.modules = tuple(modules)
        self._lock = threading.Lock()
        self._started = False

    def start(self) -> threading.Thread | None:
        """Start the thread; ``None`` when it was started before."""
        with self._lock:
            if self._started:
                return None
            self._started = True
        thread = threading.Thread(target=self._run, daemon=True, name="tiedrank-warm-up")
        thread.start()
        return thread

    def _run(self) -> None:
        for name in self.modules:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the page that needs it will say what is wrong
                pass


_SERVER_IMPORTS = BackgroundImports(HEAVY_MODULES)


def warm_up() -> threading.Thread | None:
    """Import :data:`HEAVY_MODULES` in the background, once per process (app.py calls this
    on every run; only the first call of the process does anything)."""
    return _SERVER_IMPORTS.start()
