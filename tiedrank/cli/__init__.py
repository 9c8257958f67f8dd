"""The ``tiedrank`` command: a thin layer over the public API, one subcommand a module.

::

    tiedrank evaluate QRELS RUN [RUN ...] -m RR -m nDCG@10 --ties all   (cli/evaluate.py)
    tiedrank compare QRELS BASELINE RUN [RUN ...]                       (cli/compare.py)
    tiedrank simulate --preset 0-10 --out run.txt                       (cli/simulate.py)
    tiedrank quantize run.txt --levels 11 --out run.L11.txt             (cli/simulate.py)

Each subcommand module has ``register(subparsers)``, which adds its parser and sets
``handler``; option lists and defaults come from the library's constants. Bad input ends
with a one-line message on stderr and exit status 2, never a traceback
(:func:`tiedrank.cli._common.run_handler`).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from . import compare, docs, evaluate, simulate
from ._common import run_handler

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``tiedrank`` command, with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="tiedrank", description="Tie-aware evaluation of ranked output: the exact "
        "expectation over all tie orderings, the best and worst case, and trec_eval's order.")
    parser.add_argument("--version", action="version", version=f"tiedrank {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module in (evaluate, compare, simulate, docs):
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tiedrank`` console script; returns the exit status."""
    return run_handler(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
