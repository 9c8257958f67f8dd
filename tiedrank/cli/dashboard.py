"""``tiedrank dashboard``: start the Streamlit dashboard, installed or from a checkout.

::

    tiedrank dashboard                                  # opens a browser on 127.0.0.1:8501
    tiedrank dashboard --server.port 8502 --server.headless true
    tiedrank dashboard --sample-data-dir                # where the bundled data is installed
    tiedrank dashboard qrels.txt runs/ -l 2             # your files: "Your files" in the sidebar

It runs what ``streamlit run app.py`` runs from a checkout: the dashboard's files come from
:mod:`tiedrank.app_files` (the wheel's packaged copy, or the checkout's top level), and
Streamlit's own flags (``--server.*``, ``--theme.*``, ``--client.*``, ...) are passed through
as they are (:func:`split_streamlit_flags` takes them out before the parser sees the rest).

``tiedrank dashboard QRELS RUN|DIR [...]`` serves those files as the sidebar's "Your files"
(:mod:`tiedrank.dashboard.local_files` reads them): the paths are checked here
(:func:`check_paths`), then handed to the server in the environment
(:class:`tiedrank.app_files.FilesManifest`), with the evaluate options that set the view's
starting settings (``-l``, ``--gain``, ``-k``, ``--round``, ``-c``, ``--query-set``) and the
readers' options (``--duplicates``, ``--columns``, ``--qrels-columns``, ``--max-input-size``,
``--max-ratio``). Streamlit runs in this process (as ``python -m streamlit`` does), so Ctrl-C
and SIGTERM stop the server itself. Only the CLI's core is imported until the dashboard
starts; the dashboard's packages are looked for first, so a missing extra is one line.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..app_files import (
    APP_DIR,
    APP_SCRIPT,
    CLEANUP_ENV,
    FILES_ENV,
    PARENT_ENV,
    SAMPLE_DIR,
    FilesManifest,
)
from ..core.options import QUERY_SETS
from ..io.folders import list_runs
from ._common import (
    add_columns,
    add_duplicates,
    add_gain,
    add_rel_level,
    add_round,
    integer_at_least,
)

PASSES_THROUGH = "streamlit_flags"
"""The attribute of the parsed arguments that holds the flags for Streamlit; ``tiedrank.cli``
hands the arguments it does not know to a subcommand that sets it, and refuses them otherwise."""

_FLAG = re.compile(r"--[A-Za-z]+\.[A-Za-z][A-Za-z0-9_]*(=.*)?")
"""A Streamlit configuration flag: ``--section.option`` or ``--section.option=value``."""
_NEEDED = ("streamlit", "plotly")
_EXAMPLES = """examples:
  tiedrank dashboard
  tiedrank dashboard qrels.txt bm25.run splade.run       (your files: "Your files" in the sidebar)
  tiedrank dashboard qrels.txt runs/ checkpoints/ -l 2 -k 5   (every run file of each folder)
  tiedrank dashboard --server.port 8502 --server.headless true
  tiedrank dashboard --server.address 0.0.0.0   (every address: only behind a proxy with a login)
  tiedrank dashboard --theme.base dark
  tiedrank evaluate "$(tiedrank dashboard --sample-data-dir)/trec_eval/qrels.test" \\
      "$(tiedrank dashboard --sample-data-dir)/trec_eval/results.test" -m AP

Every --section.option flag of `streamlit run` is passed through (list: streamlit run --help)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``dashboard`` subcommand to ``subparsers`` (sets ``handler``, as tiedrank.cli)."""
    parser = subparsers.add_parser(
        "dashboard", help="start the Streamlit dashboard (needs tiedrank[app])",
        description="Start the dashboard on your files (QRELS RUN|DIR ...: the sidebar's "
        "\"Your files\", read on this server) or the bundled sample data (LLMJudge, "
        "trec_eval's example, a simulated set); upload qrels and runs in its sidebar. Serves on "
        "127.0.0.1 only unless --server.address says otherwise. Streamlit's own flags "
        "(--server.port, --server.address, --server.headless, any --server.* or --theme.*) "
        "are passed through.",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", metavar="QRELS RUN|DIR",
                        help="qrels, then run files or folders of run files (read on this "
                             "server, every format evaluate reads): the sidebar's \"Your "
                             "files\"; a file added to a folder shows at the next rerun")
    parser.add_argument("--sample-data-dir", action="store_true",
                        help="print the folder of the bundled sample data and exit")
    add_rel_level(parser)
    add_gain(parser)
    parser.add_argument("-k", "--k", dest="k", type=integer_at_least(1), default=10, metavar="K",
                        help="the cutoff k the pages start at (nDCG@k, P@k, ...; default 10)")
    add_round(parser)
    parser.add_argument("-c", "--complete", action="store_true",
                        help="start with queries a run misses scoring 0 (trec_eval -c)")
    parser.add_argument("--query-set", choices=QUERY_SETS, default=QUERY_SETS[0],
                        help="start with this query set (as evaluate's --query-set)")
    add_duplicates(parser)
    add_columns(parser)
    parser.set_defaults(handler=_dashboard, **{PASSES_THROUGH: []})


def split_streamlit_flags(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the other arguments, Streamlit's ``--section.option [VALUE]`` flags): taken out
    before parsing, so that a flag's value is never read as a path.

    >>> split_streamlit_flags(["--server.port", "8502", "q.txt", "--theme.base=dark", "r.run"])
    (['q.txt', 'r.run'], ['--server.port', '8502', '--theme.base=dark'])
    """
    ours, theirs = [], []
    items = list(argv)
    i = 0
    while i < len(items):
        item = items[i]
        if _FLAG.fullmatch(item):
            theirs.append(item)
            if "=" not in item and i + 1 < len(items):
                theirs.append(items[i + 1])
                i += 1
        else:
            ours.append(item)
        i += 1
    return ours, theirs


def check_paths(qrels: str, runs: Sequence[str]) -> tuple[list[str], list[str]]:
    """(errors, warnings) of ``tiedrank dashboard QRELS RUN|DIR``'s paths, before the server
    starts. An error stops it: the qrels file missing, no run file at all, runs and qrels
    swapped (trec_eval's order, as ``evaluate`` words it). A warning names what the server
    leaves out: a path that is not there, a folder without a run file, an empty file."""
    from ..evaluation.argument_order import files_swapped

    if not Path(qrels).is_file():
        what = "a folder" if Path(qrels).is_dir() else "not there"
        return [(f"the qrels file {qrels} is {what}; the qrels file comes first: tiedrank "
                "dashboard QRELS RUN|DIR [...]")], []
    warnings = [f"{path}: no such file or folder (left out)" for path in runs
                if not Path(path).exists()]
    found, problems = list_runs([p for p in runs if Path(p).exists()], qrels)
    warnings += [f"{problem} (left out)" for problem in problems if "not there" not in problem]
    warnings += [f"{path}: the file is empty (left out until it holds a run)" for path in found
                 if path.stat().st_size == 0]
    readable = [str(path) for path in found if path.stat().st_size > 0]
    swapped = files_swapped(readable[:16], qrels) if readable else None
    if swapped:
        return [(f"{qrels} is a TREC run and {swapped} TREC qrels: the qrels file comes first, "
                "as in trec_eval: tiedrank dashboard QRELS RUN|DIR [...]")], warnings
    if not readable:
        return [("no run file to show: give run files, or folders that hold them, after the "
                "qrels: tiedrank dashboard QRELS RUN|DIR [...]")], warnings
    return [], warnings


def files_manifest_of(paths: Sequence[str], flags: Mapping[str, Any]) -> FilesManifest:
    """The manifest of the paths and the parsed flags (``vars`` of the namespace, read once
    here): absolute paths, each once (in the order given), the starting settings and the
    reading options."""
    qrels, *runs = paths
    kept = list(dict.fromkeys(os.path.abspath(p) for p in runs if Path(p).exists()))
    start = {"rel_level": flags["rel_level"], "gain": flags["gain"], "k": flags["k"],
             "round": "off" if flags["round"] is None else flags["round"],
             "complete": flags["complete"], "query_set": flags["query_set"]}
    reading = {"duplicates": flags["duplicates"], "columns": flags["columns"],
               "qrels_columns": flags["qrels_columns"], "max_bytes": flags["max_input_size"],
               "max_ratio": flags["max_ratio"]}
    return FilesManifest(os.path.abspath(qrels), tuple(kept), start, reading)


def _serve_files(paths: Sequence[str], flags: Mapping[str, Any]) -> int | None:
    """Check the paths and put the manifest in the environment; an exit status on error."""
    if len(paths) < 2:
        print("tiedrank: error: give the qrels and at least one run file or folder: tiedrank "
              "dashboard QRELS RUN|DIR [...]", file=sys.stderr)
        return 2
    if flags["round"] is not None and not 0 <= flags["round"] <= 6:
        print("tiedrank: error: --round: the dashboard rounds to 0-6 decimals", file=sys.stderr)
        return 2
    errors, warnings = check_paths(paths[0], paths[1:])
    for warning in warnings:
        print(f"tiedrank: warning: {warning}", file=sys.stderr)
    for error in errors:
        print(f"tiedrank: error: {error}", file=sys.stderr)
    if errors:
        return 2
    os.environ[FILES_ENV] = files_manifest_of(paths, flags).to_json()
    return None



def _end_with_parent() -> None:
    """For :func:`tiedrank.show` (:data:`~tiedrank.app_files.PARENT_ENV`): end when standard
    input closes, the temporary folder (:data:`~tiedrank.app_files.CLEANUP_ENV`) removed
    first; so no server outlives the Python that started it, even a killed one."""
    def watch() -> None:
        try:
            while sys.stdin.buffer.read(1 << 16):
                pass
        except (OSError, ValueError):
            pass
        folder = os.environ.get(CLEANUP_ENV)
        if folder:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)
        os.kill(os.getpid(), signal.SIGTERM)  # Streamlit stops its server
        threading.Event().wait(10)
        os._exit(0)  # it did not: end anyway

    threading.Thread(target=watch, name="tiedrank-parent-watch", daemon=True).start()


def streamlit_arguments(flags: Sequence[str]) -> list[str]:
    """The ``streamlit run`` command line for ``flags`` (Streamlit's ``--section.option``
    flags, each with its value after ``=`` or as the next argument).

    >>> streamlit_arguments(["--server.port", "8502", "--theme.base=dark"])[2:]
    ['--server.port', '8502', '--theme.base=dark']
    >>> streamlit_arguments(["app.py"])
    Traceback (most recent call last):
    ...
    ValueError: tiedrank dashboard passes only Streamlit's --section.option flags through (such as --server.port 8502 or --theme.base dark), not 'app.py'
    """
    flags = list(flags)
    expects_value = False
    for flag in flags:
        if _FLAG.fullmatch(flag):
            expects_value = "=" not in flag
        elif expects_value:
            expects_value = False
        else:
            raise ValueError("tiedrank dashboard passes only Streamlit's --section.option flags "
                             "through (such as --server.port 8502 or --theme.base dark), "
                             f"not {flag!r}")
    if expects_value:
        raise ValueError(f"{flags[-1]} needs a value: {flags[-1]} VALUE or {flags[-1]}=VALUE")
    return ["run", str(APP_SCRIPT), *flags]


def _dashboard(args: argparse.Namespace) -> int:
    if args.sample_data_dir:
        print(SAMPLE_DIR)
        return 0
    # a path after an option (QRELS RUN -l 2 RUN2) is left over by the parser: a path still
    stray, flags = split_streamlit_flags(getattr(args, PASSES_THROUGH))
    if args.paths:
        args.paths += [word for word in stray if not word.startswith("-")]
        stray = [word for word in stray if word.startswith("-")]
    command = streamlit_arguments(flags + stray)
    if args.paths:
        status = _serve_files(list(args.paths), vars(args))
        if status is not None:
            return status
    missing = [name for name in _NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        print(f"tiedrank: error: the dashboard needs {' and '.join(missing)}, which "
              "this Python lacks: pip install 'tiedrank[app]'", file=sys.stderr)
        return 2
    if not APP_SCRIPT.is_file():
        print(f"tiedrank: error: the dashboard's files are not installed ({APP_SCRIPT} is "
              f"missing; looked in {APP_DIR}): reinstall from a wheel (pip install "
              "'tiedrank[app]') or run it from a checkout", file=sys.stderr)
        return 2
    from streamlit.web import cli as streamlit_cli  # the dashboard extra, checked above

    # Streamlit owns the signals of its server: Ctrl-C and SIGTERM stop it gracefully once it
    # runs. Until its handlers are in place, Python's defaults apply (as with `streamlit
    # run`), not the CLI's, which raise into Streamlit's start-up and are lost there.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if os.environ.get(PARENT_ENV):
        _end_with_parent()
    # click's standalone mode ends with SystemExit(status): the console script's run()
    # turns it into the exit status
    try:
        streamlit_cli.main(args=command, prog_name="streamlit")
    finally:  # a caller in the same process (a test) does not keep the manifest
        if args.paths:
            os.environ.pop(FILES_ENV, None)
    return 0
