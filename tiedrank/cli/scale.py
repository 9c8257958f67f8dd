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

from ..distributed.cluster import CONNECT_TIMEOUT, MAX_CONNECT_TIMEOUT
from ..evaluation import Evaluation
from ..core.options import EvaluationOptions


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


def scaled_evaluation(args: argparse.Namespace, metrics: list, options: EvaluationOptions
                      ) -> Evaluation | None:
    """The :class:`Evaluation` of ``args`` by :func:`tiedrank.distributed.evaluate` (the same
    metrics and options value as one pass), or None when neither ``--buckets``, ``--dask``
    nor ``--out`` was given."""
    given_buckets = hasattr(args, "buckets")
    if not given_buckets and args.dask is None and args.out is None:
        return None
    from ..distributed import evaluate

    return evaluate(list(args.runs), args.qrels, metrics, options=options,
                    buckets=getattr(args, "buckets", None), client=args.dask, out=args.out,
                    spill_dir=args.spill_dir, timeout=args.dask_timeout)


def out_note(args: argparse.Namespace) -> None:
    """Tell where ``--out`` left the per-query rows (the table format only; nothing
    otherwise)."""
    if args.out is not None and args.format == "table":
        print(f"# per-query rows: {Path(args.out, 'per_query')}/*.parquet "
              "(tiedrank.distributed.read_per_query)", file=sys.stderr)
