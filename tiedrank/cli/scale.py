"""``tiedrank evaluate`` past one process: ``--buckets N``, ``--dask ADDRESS``, ``--out DIR``.

The evaluate command calls :func:`add_arguments` on its parser and, before its own
one-pass path, :func:`scaled_evaluation`; that returns None when none of these options was
given, so the ordinary path runs unchanged. Output is the ordinary one (same numbers, bit
for bit); with ``--out`` the per-query rows are written as Parquet where they are computed
and the report, the summary, the per-query files and their manifest are left in DIR (a
transaction: see :mod:`tiedrank.distributed.output`).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..distributed.cluster import CONNECT_TIMEOUT, MAX_CONNECT_TIMEOUT
from ..evaluation import Evaluation
from ..core.options import EvaluationOptions
from .requests import Scaling


def _buckets(text: str) -> int | None:
    if text == "auto":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer or 'auto', got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_CONNECT_TIMEOUT:
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds in (0, {MAX_CONNECT_TIMEOUT:g}], got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--buckets``, ``--dask``, ``--out`` and ``--spill-dir`` to ``parser``."""
    group = parser.add_argument_group(
        "scaling", "evaluate inputs larger than memory, or on a Dask cluster; the numbers are "
        "the same, bit for bit")
    group.add_argument("--buckets", type=_buckets, default=argparse.SUPPRESS, metavar="N",
                       help="read the files once, split them by query into N buckets on disk "
                            "and evaluate bucket by bucket (memory follows the bucket); "
                            "'auto' chooses N from the input size")
    group.add_argument("--dask", default=None, metavar="ADDRESS",
                       help="run the (run, bucket) tasks on Dask: 'local:N' starts N worker "
                            "processes here, 'tcp://host:port' uses a running scheduler "
                            "(needs pip install 'tiedrank[dask]')")
    group.add_argument("--dask-timeout", type=_seconds, default=CONNECT_TIMEOUT,
                       metavar="SECONDS",
                       help=f"how long to wait for the --dask scheduler to answer, and for a "
                            f"worker when the cluster has none left (default "
                            f"{CONNECT_TIMEOUT:g})")
    group.add_argument("--out", default=None, metavar="DIR",
                       help="write per-query rows as Parquet under DIR/per_query/ where they "
                            "are computed (only summaries travel back), plus DIR/report.csv, "
                            "DIR/summary.csv and DIR/manifest.json; written in a temporary "
                            "sibling and renamed into place when complete: a previous "
                            "tiedrank result in DIR is replaced whole, any other non-empty "
                            "DIR is refused")
    group.add_argument("--spill-dir", default=None, metavar="DIR",
                       help="where the temporary bucket files go (default: the system's "
                            "temporary directory; on several machines: a shared directory)")


def scaling(flags: argparse.Namespace) -> Scaling:
    """The :class:`Scaling` value of the flags :func:`add_arguments` added (read at the
    evaluate command's door)."""
    return Scaling(buckets_given=hasattr(flags, "buckets"), buckets=getattr(flags, "buckets", None),
                   dask=flags.dask, timeout=flags.dask_timeout, out=flags.out,
                   spill_dir=flags.spill_dir)


def scaled_evaluation(scaling: Scaling, runs: list, qrels: Any, metrics: list,
                      options: EvaluationOptions) -> Evaluation | None:
    """The :class:`Evaluation` of ``runs`` against ``qrels`` by
    :func:`tiedrank.distributed.evaluate` (the same metrics and options value as one pass),
    or None when ``scaling`` asks for none of ``--buckets``, ``--dask`` and ``--out``."""
    if not scaling.asked:
        return None
    from ..distributed import evaluate

    return evaluate(runs, qrels, metrics, options=options, buckets=scaling.buckets,
                    client=scaling.dask, out=scaling.out, spill_dir=scaling.spill_dir,
                    timeout=scaling.timeout)


def out_note(scaling: Scaling, fmt: str) -> None:
    """Tell where ``--out`` left the per-query rows (the table format only; nothing
    otherwise)."""
    if scaling.out is not None and fmt == "table":
        print(f"# per-query rows: {Path(scaling.out, 'per_query')}/*.parquet "
              "(tiedrank.distributed.read_per_query)", file=sys.stderr)
