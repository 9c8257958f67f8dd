"""What this process may use of the machine (one home: the readers' threads and the buckets'
read-ahead both ask here)."""
from __future__ import annotations

import os


def usable_cores() -> int:
    """Cores this process may run on (taskset, cgroup cpusets, a Dask worker pinned to
    one), not the machine's: os.cpu_count() would start idle threads on a pinned process."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS and Windows have no affinity call
        return os.cpu_count() or 1
