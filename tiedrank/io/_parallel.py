"""How big inputs are split up: pyarrow's parse blocks and two threads for numpy work."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..core.machine import usable_cores

# pyarrow parses text in blocks of this size on its thread pool; 16 MB keeps the number of
# chunks small (fewer Python-level loops later) while still splitting big files across cores.
# Readers look it up here at call time (``_parallel.BLOCK_SIZE``) so a test can shrink it.
BLOCK_SIZE = 16 << 20


# Threads for numpy work on large arrays (numpy releases the GIL).
WORKERS = max(1, min(2, usable_cores()))


def set_helper_threads(count: int) -> None:
    """Run the numpy helpers on ``count`` threads (at most 2) from now on: a process that
    already keeps its cores busy otherwise (a Dask worker of one thread) asks for 1.

    >>> from tiedrank.io import _parallel
    >>> set_helper_threads(1); _parallel.WORKERS
    1
    >>> set_helper_threads(usable_cores())  # back to the default
    """
    global WORKERS
    WORKERS = max(1, min(2, int(count)))


def parallel_map(function: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
    """``list(map(function, items))``, on two threads when there is more than one item.

    Only used for numpy work on large arrays, which releases the GIL.

    Examples
    --------
    >>> parallel_map(len, [b"ab", b"c"])
    [2, 1]
    """
    items = list(items)
    if len(items) < 2 or WORKERS < 2:
        return [function(item) for item in items]
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return list(pool.map(function, items))
