"""What this process may use of the machine (one home: the readers' threads and the buckets'
read-ahead both ask here)."""
from __future__ import annotations

import ctypes
import ctypes.util
import os
from functools import cache


def usable_cores() -> int:
    """Cores this process may run on (taskset, cgroup cpusets, a Dask worker pinned to
    one), not the machine's: os.cpu_count() would start idle threads on a pinned process."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS and Windows have no affinity call
        return os.cpu_count() or 1


def without_huge_page_advice() -> None:
    """Stop numpy asking the kernel for transparent huge pages for its large arrays.

    numpy advises huge pages (``madvise(MADV_HUGEPAGE)``) for every array of 4 MB or more.
    Where the kernel's ``transparent_hugepage/defrag`` is ``madvise`` (Debian's default), a
    fault in such an array may compact memory first, and the evaluation of a 7M-line run
    allocates and frees dozens of them: 1.0 s more system time in a 3 s run on the 2-core
    machine of benchmarks/RESULTS.md, for no gain in the arrays' speed. This is what
    numpy's ``NUMPY_MADVISE_HUGEPAGE=0`` does; only the console script calls it (it owns
    its process: a library must not change numpy's behaviour in its caller's).
    """
    import numpy as np

    for module in ("_core", "core"):  # numpy 2 / numpy 1.26
        setter = getattr(getattr(getattr(np, module, None), "multiarray", None),
                         "_set_madvise_hugepage", None)
        if setter is not None and "NUMPY_MADVISE_HUGEPAGE" not in os.environ:
            setter(False)
            return


def release_arrow_memory() -> None:
    """Hand back to the system the freed Arrow buffers pyarrow's pool (mimalloc) keeps for
    its own reuse: after a parse or a join, hundreds of MB on 7M lines that the numpy work
    that follows would not reuse."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def release_unused_memory() -> None:
    """:func:`release_arrow_memory`, and glibc's heap trimmed too.

    glibc keeps freed arrays smaller than its mmap threshold (which rises to 32 MB once a
    large array is freed): after a 7M-line table is built, 50 MB of the process's resident
    memory is such free space. Trimming costs page faults when the heap grows again, so
    it is done between whole runs of one process (a few milliseconds each), not in each
    bucket or Dask task; a system without glibc keeps its heap as it is.
    """
    release_arrow_memory()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None (macOS, Windows, musl)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
