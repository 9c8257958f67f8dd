"""The progress line of long CLI work: on a terminal only, silent when piped or redirected.

A dependency-free reporter of :mod:`tiedrank.core.progress` steps: one line on standard
error, rewritten in place (carriage return, erase to the end of the line) at most ten times
a second, shown once a piece of work has taken half a second (a quick run never flickers),
erased when the work is complete and before anything else is printed. tqdm or rich would
draw the same line; neither is needed for one counter, and the CLI keeps its start-up at
half a second (tests/test_layering.py).
"""
from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO


class TerminalProgress:
    """A :data:`~tiedrank.core.progress.Reporter` that draws ``what: done/total (pct)``.

    Examples
    --------
    >>> import io
    >>> clock = iter([0.0, 0.1, 0.7, 0.9]).__next__
    >>> out = io.StringIO()
    >>> line = TerminalProgress(out, clock=clock)
    >>> for done in (1, 2, 3):
    ...     line("bucket tasks", done, 4)
    >>> line("bucket tasks", 4, 4)
    >>> out.getvalue()
    '\\rbucket tasks: 3/4 (75%)\\x1b[K\\r\\x1b[K'
    """

    def __init__(self, stream: TextIO, *, delay: float = 0.5, interval: float = 0.1,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._stream, self._delay, self._interval, self._clock = stream, delay, interval, clock
        self._what: str | None = None
        self._since = self._last = 0.0
        self._shown = False

    def __call__(self, what: str, done: int, total: int | None) -> None:
        now = self._clock()
        if what != self._what:
            self._what, self._since = what, now
        if total is not None and done >= total:
            self.clear()
            return
        starting = done == 0  # a single long step (reading a large file): say it at once
        if not starting and (now - self._since < self._delay or
                             self._shown and now - self._last < self._interval):
            return
        text = what if starting else (
            f"{what}: {done:,}/{total:,} ({done / total:.0%})" if total else f"{what}: {done:,}")
        width = shutil.get_terminal_size((80, 24)).columns - 1
        self._write("\r" + text[:width] + "\x1b[K")
        self._shown, self._last = True, now

    def clear(self) -> None:
        """Erase the line, if one is shown."""
        if self._shown:
            self._write("\r\x1b[K")
            self._shown = False

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # a closed terminal: the work goes on without a line
            pass


def terminal_progress(stream: Any = None) -> TerminalProgress | None:
    """A reporter on ``stream`` (standard error) if it is a terminal, else None (piped,
    redirected, ``TERM=dumb`` or ``NO_PROGRESS`` set: nothing is drawn)."""
    stream = sys.stderr if stream is None else stream
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty or os.environ.get("TERM") == "dumb" or os.environ.get("NO_PROGRESS"):
        return None
    return TerminalProgress(stream)
