"""``tiedrank dashboard``: start the Streamlit dashboard, installed or from a checkout.

::

    tiedrank dashboard                                  # opens a browser on 127.0.0.1:8501
    tiedrank dashboard --server.port 8502 --server.headless true
    tiedrank dashboard --sample-data-dir                # where the bundled data is installed

It runs what ``streamlit run app.py`` runs from a checkout: the dashboard's files come from
:mod:`tiedrank.app_files` (the wheel's packaged copy, or the checkout's top level), and
Streamlit's own flags (``--server.*``, ``--theme.*``, ``--client.*``, ...) are passed through
as they are. Streamlit runs in this process (as ``python -m streamlit`` does), so Ctrl-C
and SIGTERM stop the server itself. Only the CLI's core is imported until the dashboard
starts; the dashboard's packages are looked for first, so a missing extra is one line.
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import signal
import sys
from collections.abc import Sequence

from ..app_files import APP_DIR, APP_SCRIPT, SAMPLE_DIR

PASSES_THROUGH = "streamlit_flags"
"""The attribute of the parsed arguments that holds the flags for Streamlit; ``tiedrank.cli``
hands the arguments it does not know to a subcommand that sets it, and refuses them otherwise."""

_FLAG = re.compile(r"--[A-Za-z]+\.[A-Za-z][A-Za-z0-9_]*(=.*)?")
"""A Streamlit configuration flag: ``--section.option`` or ``--section.option=value``."""
_NEEDED = ("streamlit", "plotly")
_EXAMPLES = """examples:
  tiedrank dashboard
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
        description="Start the dashboard on the bundled sample data (LLMJudge, trec_eval's "
        "example, a simulated set); upload your own qrels and runs in its sidebar. Serves on "
        "127.0.0.1 only unless --server.address says otherwise. Streamlit's own flags "
        "(--server.port, --server.address, --server.headless, any --server.* or --theme.*) "
        "are passed through.",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample-data-dir", action="store_true",
                        help="print the folder of the bundled sample data and exit")
    parser.set_defaults(handler=_dashboard, **{PASSES_THROUGH: []})


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
    command = streamlit_arguments(getattr(args, PASSES_THROUGH))
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
    # click's standalone mode ends with SystemExit(status): the console script's run()
    # turns it into the exit status
    streamlit_cli.main(args=command, prog_name="streamlit")
    return 0
