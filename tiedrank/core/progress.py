"""How far long work has got, for a person watching a terminal.

Long loops (reading a large file, splitting runs into buckets, the bucket and Dask tasks,
resamples and tie-break draws) call :func:`step` once per block, batch or task, never per
query or row. Nothing is shown unless a door installs a reporter with :func:`reporting`: the
CLI does when its standard error is a terminal (:mod:`tiedrank.cli._progress`), so a piped
or redirected run, a script and the Python API stay silent. A reporter is a callable
``(what, done, total)``; ``total`` may be None (not known in advance).

Examples
--------
>>> seen = []
>>> with reporting(lambda what, done, total: seen.append((what, done, total))):
...     for i in range(1, 3):
...         step("bucket tasks", i, 2)
>>> step("nobody listens", 1, 1)  # no reporter: nothing happens
>>> seen
[('bucket tasks', 1, 2), ('bucket tasks', 2, 2)]
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

Reporter = Callable[[str, int, "int | None"], None]
_REPORTER: list[Reporter] = []  # the one installed, if any (a list: no global statement)


def step(what: str, done: int, total: int | None = None) -> None:
    """``done`` of ``total`` units of ``what`` are finished (a no-op without a reporter)."""
    if _REPORTER:
        _REPORTER[-1](what, done, total)


def active() -> bool:
    """Whether a reporter listens (to skip work done only to report, such as a file size)."""
    return bool(_REPORTER)


@contextlib.contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Install ``reporter`` for the ``with`` block (None: stay silent)."""
    if reporter is None:
        yield
        return
    _REPORTER.append(reporter)
    try:
        yield
    finally:
        _REPORTER.remove(reporter)
