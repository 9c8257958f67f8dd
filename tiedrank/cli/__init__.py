"""The ``tiedrank`` command: a thin layer over the public API, one subcommand a module.

::

    tiedrank evaluate QRELS RUN [RUN ...] -m RR -m nDCG@10 --ties all   (cli/evaluate.py)
    tiedrank compare QRELS BASELINE RUN [RUN ...]                       (cli/compare.py)
    tiedrank simulate --preset 0-10 --out run.txt                       (cli/simulate.py)
    tiedrank quantize run.txt --levels 11 --out run.L11.txt             (cli/simulate.py)
    tiedrank docs QRELS RUN --query 301                                 (cli/docs.py)
    tiedrank metrics ndcg                                               (cli/metrics.py)
    tiedrank dashboard --server.port 8502                               (cli/dashboard.py)

Each subcommand module has ``register(subparsers)``, which adds its parser and sets
``handler``; option lists and defaults come from the library's constants. Bad input ends
with a one-line message on stderr and exit status 2, never a traceback
(:func:`tiedrank.cli._common.run_handler`). Arguments the parser does not know are refused
as argparse refuses them, except by a subcommand that passes them on (``dashboard``: to
Streamlit).
"""
from __future__ import annotations

import argparse
import atexit
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from .. import __version__
from ..core.machine import without_huge_page_advice

__all__ = ["build_parser", "main", "run"]
# The subcommands (pandas, tiedrank's core) are imported by build_parser, after a local Dask
# cluster asked for has started its fork server (_start_cluster_ahead).


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``tiedrank`` command, with every subcommand."""
    from . import compare, dashboard, docs, evaluate, metrics, simulate

    parser = argparse.ArgumentParser(
        prog="tiedrank", description="Tie-aware evaluation of ranked output: the exact "
        "expectation over all tie orderings, the best and worst case, and trec_eval's order.")
    parser.add_argument("--version", action="version", version=f"tiedrank {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module in (evaluate, compare, simulate, docs, metrics, dashboard):
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tiedrank`` command with ``argv``; returns the exit status (for scripts and
    tests; the console script is :func:`run`)."""
    ahead = _start_cluster_ahead(sys.argv[1:] if argv is None else list(argv))
    try:
        return _main(argv)
    finally:
        if ahead:
            _finish_ahead()


def _finish_ahead() -> None:
    from ..distributed.cluster import finish_ahead

    finish_ahead()


def _main(argv: Sequence[str] | None) -> int:
    from . import dashboard
    from ._common import run_handler

    parser = build_parser()
    if "_ARGCOMPLETE" in os.environ:  # the shell asks for completions (tiedrank[completion])
        _complete(parser)
    # Streamlit's --section.option flags out first: a flag's value is never read as a path
    argv, passed = dashboard.split_streamlit_flags(sys.argv[1:] if argv is None else argv)
    args, unknown = parser.parse_known_args(argv)
    unknown = passed + unknown
    if unknown:
        if not hasattr(args, dashboard.PASSES_THROUGH):
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        setattr(args, dashboard.PASSES_THROUGH, unknown)
    return run_handler(args)


SUBCOMMANDS_WITH_DASK = ("evaluate",)


def _start_cluster_ahead(argv: list[str]) -> bool:
    """Given ``--dask local[:N]`` (a subcommand that takes it), start that cluster now, in
    the background, before this process imports pandas and tiedrank's core: its fork server
    preloads the task modules on another core meanwhile
    (:func:`tiedrank.distributed.cluster.start_ahead`; the evaluation's ``connect`` then
    takes it). Say whether one was started. Read from the raw arguments, before the parser
    (which imports every subcommand); a wrong guess costs time only: a cluster no one takes
    is closed at the end of :func:`main`."""
    if "_ARGCOMPLETE" in os.environ:
        return False
    options = argv[:argv.index("--")] if "--" in argv else argv
    commands = [a for a in options if not a.startswith("-")]
    if not commands or commands[0] not in SUBCOMMANDS_WITH_DASK or \
            {"-h", "--help", "--version", "-"} & set(options):  # "-": refused before a cluster
        return False
    address = None
    for i, arg in enumerate(options):
        if arg == "--dask" and i + 1 < len(options):
            address = options[i + 1]
        elif arg.startswith("--dask="):
            address = arg.split("=", 1)[1]
    if address is None or not address.strip().startswith("local"):
        return False
    from ..distributed.cluster import EVALUATION_MODULES, start_ahead

    try:
        return start_ahead(address, EVALUATION_MODULES)
    except Exception:  # let the evaluation's own connect start it, and word any error
        return False


def _complete(parser: argparse.ArgumentParser) -> None:
    """Answer the shell's completion request and exit (argcomplete, the optional
    ``completion`` extra; without it, the command runs as if not asked). Set up once with
    ``eval "$(register-python-argcomplete tiedrank)"``."""
    try:
        import argcomplete
    except ImportError:
        return
    argcomplete.autocomplete(parser)


def run() -> NoReturn:
    """The ``tiedrank`` console script and ``python -m tiedrank``: :func:`main`, then exit
    without the interpreter's teardown of native libraries.

    Arrow's C++ thread pools can abort a finished process while the interpreter tears down
    ("terminate called without an active exception", exit status -6; apache/arrow#34314):
    seen here about once in a few thousand runs on a loaded machine, after the output and the
    message were written. So the Python-level exit handlers run (temporary files, Dask,
    logging), the streams are flushed, and the process ends with ``os._exit``.
    """
    ahead = _start_cluster_ahead(sys.argv[1:])  # first: before numpy and the rest
    without_huge_page_advice()
    from ._common import flush_output, named_streams, report_unexpected

    named_streams()
    try:
        code = main()
    except SystemExit as stop:  # argparse: --help, --version and usage errors
        code = stop.code
    except BaseException as error:  # a bug: still one line, never a traceback
        code = report_unexpected(error)
    if not isinstance(code, int):  # SystemExit(None) is success, SystemExit("text") a failure
        if code is not None:
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    if ahead:  # main() found it started: the local cluster, closed
        try:
            _finish_ahead()
        except BaseException as error:
            code = code or report_unexpected(error)
    atexit._run_exitfuncs()
    code = flush_output(code)
    os._exit(code)


if __name__ == "__main__":
    run()
