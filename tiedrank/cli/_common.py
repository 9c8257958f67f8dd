"""What every subcommand shares: the error wrapper, argparse types and common options.

Bad input ends with one line on stderr and exit status 2, never a traceback. An
:class:`~tiedrank.core.validation.InvalidParameterError` raised by the library names the
argument as Python spells it (``ties=``); :func:`run_handler` words it with the flag the
user typed (``--ties must be one of ...; got 'median'``) through :data:`FLAGS`. An error with
a :class:`~tiedrank.core.errors.Remedy` (``duplicates='max'``) is worded from the remedy's
fields the same way (``add --duplicates max``): no message is rewritten as text.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import re
import signal
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..core.errors import InputError, Remedied, Remedy
from ..core.progress import reporting
from ..metrics import GAINS
from ..core.policies import RENAMED
from ..core.options import MAX_ROUND, OPTION_NAMES, QUERY_SETS, EvaluationOptions
from ..report import FORMATS
from ..core.validation import InvalidParameterError
from ..io.outputs import WriteError, writing
from ._progress import terminal_progress
from ..io import SourceNotFound

# Duplicate handling of the readers (tiedrank.io); io has no public constant for it yet.
from ..io import input_limits, set_input_limits
from ..io.duplicates import DUPLICATE_POLICIES as DUPLICATE_RULES

FLAGS = {
    "ties": "--ties", "rel_level": "--rel-level", "gain": "--gain", "depth": "-M/--depth",
    "complete": "-c/--complete", "query_set": "--query-set", "judged_only": "-J/--judged-only",
    "columns": "--columns", "qrels_columns": "--qrels-columns", "metrics": "-m/--metric",
    "round": "--round", "seed": "--seed", "fmt": "--format", "digits": "--digits",
    "duplicates": "--duplicates", "test": "--test", "correction": "--correction",
    "alpha": "--alpha", "n_draws": "--draws", "n_resamples": "--resamples",
    "preset": "--preset", "n_queries": "--queries", "docs_per_query": "--docs-per-query",
    "quality": "--quality", "levels": "--levels", "tie_prob": "--tie-prob",
    "precision": "--precision", "method": "--method", "name": "--name",
    "buckets": "--buckets", "timeout": "--dask-timeout", "top": "--top",
}
"""Library parameter -> the CLI flag that sets it, to word errors in the user's terms."""


def integer_at_least(minimum: int):
    """An argparse ``type`` accepting integers >= ``minimum`` (a clear usage error otherwise)."""
    wanted = {0: "a non-negative integer", 1: "a positive integer"}.get(
        minimum, f"an integer >= {minimum}")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
        return value

    return parse


def probability(text: str) -> float:
    """An argparse ``type`` accepting a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return value


def flag_message(error: InvalidParameterError) -> str:
    """``error`` worded with the CLI flag of its parameter (unchanged if it has none).

    Examples
    --------
    >>> flag_message(InvalidParameterError("rel_level", 0, "an integer >= 1", function="evaluate"))
    '--rel-level must be an integer >= 1; got 0'
    """
    flag = FLAGS.get(error.parameter)
    return error.worded(flag) if flag else str(error)


COLUMN_FLAGS = {"read_run": "--columns", "read_qrels": "--qrels-columns"}
"""Reader -> the flag that passes its ``columns=`` mapping."""


def cli_remedy(remedy: Remedy) -> str:
    """``remedy`` as the CLI user types it: the flag of its parameter (:data:`FLAGS`; a
    reader's ``columns=`` is ``--columns`` or ``--qrels-columns``) and its value as a flag
    takes it; the Python wording for a parameter the CLI has no flag for.

    Examples
    --------
    >>> cli_remedy(Remedy("duplicates", "max", "to keep the highest score"))
    'add --duplicates max to keep the highest score'
    >>> cli_remedy(Remedy("columns", {"query": "<column>", "relevance": "<column>"},
    ...                   function="read_qrels", lead="or"))
    'or add --qrels-columns query=<column>,relevance=<column>'
    >>> cli_remedy(Remedy("timeout", "SECONDS", "to wait longer", placeholder=True))
    'add --dask-timeout SECONDS to wait longer'
    """
    if remedy.parameter == "buckets" and str(remedy.value).startswith("0"):  # one pass
        return remedy.sentence("leave out --buckets and --dask")
    flag = COLUMN_FLAGS.get(remedy.function) if remedy.parameter == "columns" else None
    flag = flag or FLAGS.get(remedy.parameter)
    if flag is None:
        return remedy.python()
    value = remedy.value
    shown = ",".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else \
        str(value)
    return remedy.sentence(f"add {flag.split('/')[-1]} {shown}")


def cli_message(error: BaseException) -> str:
    """``error`` in the CLI's terms: an invalid argument names its flag, a remedy is worded
    with the flags (:func:`cli_remedy`), any other error is shown as it is."""
    if isinstance(error, InvalidParameterError):
        return flag_message(error)
    if isinstance(error, Remedied):
        return error.worded_with(cli_remedy)
    if isinstance(error, SourceNotFound):  # the CLI's sources are paths: no Python hint
        return str(error.as_path())
    return str(error)


class Terminated(BaseException):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt, so that every
    ``finally`` runs (spill and temporary ``--out`` directories are removed)."""


INTERRUPTED = {"SIGINT": 130, "SIGTERM": 143}
"""Exit status after a signal: 128 + its number, as shells report it."""


@contextlib.contextmanager
def _signals_as_exceptions() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt and SIGTERM :class:`Terminated` (main thread only);
    once one arrived, both are ignored, so a second Ctrl-C cannot cut the clean-up short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(number: int, frame: Any) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt() if number == signal.SIGINT else Terminated()

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


class NamedOutput(io.TextIOBase):
    """Standard output whose write failures name it (``cannot write standard output: No
    space left on device``); a closed one (``>&-``: ``sys.stdout`` is None) fails on the
    first write, saying so, rather than losing the results without a word."""

    def __init__(self, stream: Any, name: str = "standard output") -> None:
        self._stream, self._name = stream, name

    def _closed_error(self) -> OSError:
        return WriteError(self._name, OSError(errno.EBADF, os.strerror(errno.EBADF)),
                          "it is closed; redirect it, e.g. > results.txt")

    def write(self, text: str) -> int:
        if self._stream is None:
            raise self._closed_error()
        with writing(self._name):
            return self._stream.write(text)

    def flush(self) -> None:
        if self._stream is not None:
            with writing(self._name):
                self._stream.flush()

    def fileno(self) -> int:
        if self._stream is None:
            raise self._closed_error()
        return self._stream.fileno()

    def isatty(self) -> bool:
        return self._stream is not None and self._stream.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", "utf-8")


def named_streams() -> None:
    """Standard output as :class:`NamedOutput`; a closed standard error (``2>&-``) becomes
    /dev/null, so that messages do not land in the output (``print(file=None)`` writes to
    standard output)."""
    if not isinstance(sys.stdout, NamedOutput):
        sys.stdout = NamedOutput(sys.stdout)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the process


def one_line(message: str) -> str:
    """A message on one line, whatever the text it quotes (a path with a newline, an
    exception text of several lines).

    >>> one_line("a\\nb\\r\\n c  d\\u2028e ")
    'a b c  d e'
    """
    return " ".join(part.strip() for part in message.splitlines() if part.strip())


def error_line(prog: str, message: str) -> None:
    """``prog: error: message``, one line on standard error."""
    print(f"{prog}: error: {one_line(message)}", file=sys.stderr)


def report_unexpected(error: BaseException, prog: str = "tiedrank") -> int:
    """An exception no handler expected (a bug): one line naming it, exit status 1."""
    if isinstance(error, KeyboardInterrupt):
        print(f"{prog}: interrupted", file=sys.stderr)
        return INTERRUPTED["SIGINT"]
    print(f"{prog}: internal error: {type(error).__name__}: {one_line(str(error))} (a bug: "
          "please report it with the command line)", file=sys.stderr)
    return 1


def flush_output(code: int, prog: str = "tiedrank") -> int:
    """Flush standard output and error before the process ends; a failure to write the
    output (a full disk at the last buffer) is one line and status 2, not a lost result."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # reader gone (| head)
        pass
    except (OSError, ValueError) as error:
        try:
            error_line(prog, str(error))
        except (OSError, ValueError):
            pass
        code = code or 2
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    return code


def run_handler(args: argparse.Namespace, prog: str = "tiedrank") -> int:
    """Run ``args.handler``; bad input becomes one line on stderr and exit status 2;
    Ctrl-C and SIGTERM one line (``tiedrank: interrupted``) and 130 / 143, after the
    temporary files are removed."""
    try:
        with _signals_as_exceptions():
            return _run_handler(args, prog)
    except (KeyboardInterrupt, Terminated) as signalled:
        print(f"{prog}: interrupted", file=sys.stderr)
        return INTERRUPTED["SIGINT" if isinstance(signalled, KeyboardInterrupt) else "SIGTERM"]


def _run_handler(args: argparse.Namespace, prog: str) -> int:
    limits = {"max_bytes": getattr(args, "max_input_size", None),
              "max_ratio": getattr(args, "max_ratio", None)}
    previous = set_input_limits(**limits)
    line = terminal_progress()  # on a terminal only: piped output stays clean
    try:
        with reporting(line):
            try:
                return args.handler(args)
            finally:
                if line is not None:
                    line.clear()  # before the results or the error line
    except BrokenPipeError:  # e.g. piped into head: stop quietly (before OSError below)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (InputError, ValueError, OSError) as error:
        error_line(prog, cli_message(error))
        return 2
    except MemoryError:
        print(f"{prog}: error: out of memory; try --buckets N (evaluate), fewer --draws or "
              "--resamples, or a smaller input", file=sys.stderr)
        return 2
    finally:
        set_input_limits(max_bytes=previous.max_bytes, max_ratio=previous.max_ratio)


# ---- options shared by several subcommands ---------------------------------------------------
def add_judged_only(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-J", "--judged-only", action="store_true",
                        help="drop unjudged documents before ranking (trec_eval -J)")


def add_round(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--round", type=int, default=None, metavar="D",
                        help=f"round scores to D decimals (0-{MAX_ROUND}) so that near-ties merge")


def add_query_options(parser: argparse.ArgumentParser) -> None:
    """Which documents and queries count: -J, --round, -M, -c and --query-set."""
    add_judged_only(parser)
    add_round(parser)
    parser.add_argument("-M", "--depth", type=int, default=None, metavar="N",
                        help="only the first N documents of each query count, in trec_eval's "
                             "order (score, then docno descending), as trec_eval -M")
    parser.add_argument("-c", "--complete", action="store_true",
                        help="queries of the qrels the run misses score 0 and count in the "
                             "mean (trec_eval -c); by default they are left out, as trec_eval")
    parser.add_argument("--query-set", choices=QUERY_SETS, default=QUERY_SETS[0],
                        help="trec_eval (default): queries with results and judgements, those "
                             "without a relevant document included (scoring 0, as trec_eval); "
                             "relevant: only queries with a relevant document")


def check_file_order(command: str, qrels: str, runs: Sequence[str]) -> None:
    """trec_eval's order is QRELS RUN: a run given where the qrels go and a qrels file among
    the runs (ranx's order) is one line saying which is which, before anything is read."""
    from ..evaluation.argument_order import files_swapped

    swapped = files_swapped(list(runs), qrels)
    if swapped:
        raise ValueError(f"{qrels} is a TREC run and {swapped} TREC qrels: the qrels file "
                         f"comes first, as in trec_eval: tiedrank {command} QRELS RUN [RUN ...]")


def cli_ties(items: Sequence[str]) -> list[str]:
    """``--ties`` items in today's words: an old spelling (``optimistic``, ``pessimistic``:
    :data:`~tiedrank.core.policies.RENAMED`) taken with a one-line note on stderr in the
    CLI's words, anything else unchanged (the options value checks it)."""
    words = []
    for item in items:
        word = str(item).strip()
        if word in RENAMED:
            print(f"# note: --ties {word} is deprecated (it goes in a later release): type "
                  f"--ties {RENAMED[word]}", file=sys.stderr)
        words.append(RENAMED.get(word, word))
    return words


def evaluation_options(flags: "Mapping[str, Any]",
                       ties: Sequence[str] | None = None) -> EvaluationOptions:
    """The one options value of a command's flags (``vars()`` of its parsed namespace,
    read at the door; checked once; an error names the flag through :data:`FLAGS`): every
    option the command has a flag for (the others keep their defaults), and ``ties`` when
    given. ``evaluate``, ``compare`` and ``docs`` build it here, so a flag they share means
    the same everywhere."""
    values = {name: flags[name] for name in OPTION_NAMES if name in flags and name != "ties"}
    if ties is not None:
        values["ties"] = tuple(ties)
    return EvaluationOptions(**values)


def add_rel_level(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-l", "--rel-level", type=int, default=1, metavar="N",
                        help="minimum grade of a relevant document (default 1; trec_eval -l)")


def add_gain(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gain", choices=GAINS, default=GAINS[0],
                        help="DCG gain: grade or 2^grade-1 (default linear)")


def add_duplicates(parser: argparse.ArgumentParser) -> None:
    """The reading options: duplicates, and the input limits (decompression bombs)."""
    parser.add_argument("--duplicates", choices=DUPLICATE_RULES, default=DUPLICATE_RULES[0],
                        help="a document twice in a query: error (default) or keep the max score")
    limits = input_limits()
    parser.add_argument("--max-input-size", type=byte_size, default=None, metavar="SIZE",
                        help=f"largest input once decompressed, e.g. 8GB (default "
                             f"{limits.max_bytes >> 30}GB)")
    parser.add_argument("--max-ratio", type=integer_at_least(2), default=None, metavar="R",
                        help=f"largest gzip expansion past {limits.ratio_floor >> 20}MB "
                             f"(default {limits.max_ratio}; a decompression bomb expands far more)")


RUN_ROLES = ("query", "doc", "score")
QRELS_ROLES = ("query", "doc", "relevance")


def column_mapping(flag: str, roles: tuple[str, ...]):
    """An argparse ``type`` for ``--columns query=qid,doc=docid,score=s``: the ``columns=``
    mapping of :func:`tiedrank.io.read_run` / :func:`~tiedrank.io.read_qrels`.

    >>> column_mapping("--columns", RUN_ROLES)("score=bm25, doc = docno")
    {'score': 'bm25', 'doc': 'docno'}
    >>> column_mapping("--columns", RUN_ROLES)("score")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'score' is not ROLE=COLUMN; type e.g. --columns query=qid,doc=docid,score=s (roles: query, doc, score)
    """
    sample = {"query": "qid", "doc": "docid", "score": "s", "relevance": "rel"}
    example = f"{flag} " + ",".join(f"{role}={sample[role]}" for role in roles)
    tail = f"; type e.g. {example} (roles: {', '.join(roles)})"

    def parse(text: str) -> dict[str, str]:
        mapping: dict[str, str] = {}
        for item in text.split(","):
            role, equals, column = (part.strip() for part in item.partition("="))
            if not item.strip():
                problem = f"empty item in {text!r}"
            elif not equals or not role or not column:
                problem = f"{item.strip()!r} is not ROLE=COLUMN"
            elif role not in roles:
                problem = f"unknown role {role!r}"
            elif role in mapping:
                problem = f"role {role!r} given twice"
            else:
                mapping[role] = column
                continue
            raise argparse.ArgumentTypeError(problem + tail)
        return mapping

    return parse


def add_columns(parser: argparse.ArgumentParser, runs: bool = True, qrels: bool = True) -> None:
    """``--columns`` (runs) and ``--qrels-columns``: which columns of a CSV, TSV, Parquet or
    JSON-lines file hold each field (the readers' ``columns=``; TREC files ignore them)."""
    if runs:
        parser.add_argument("--columns", type=column_mapping("--columns", RUN_ROLES),
                            default=None, metavar="ROLE=COL,...",
                            help="columns of tabular run files, e.g. query=qid,doc=docid,"
                                 "score=s (unmapped roles are found by their usual names)")
    if qrels:
        parser.add_argument("--qrels-columns", type=column_mapping("--qrels-columns",
                                                                   QRELS_ROLES),
                            default=None, metavar="ROLE=COL,...",
                            help="columns of a tabular qrels file, e.g. query=qid,doc=docid,"
                                 "relevance=rel")


_UNITS = {"": 1, "b": 1, "kb": 1 << 10, "k": 1 << 10, "mb": 1 << 20, "m": 1 << 20,
          "gb": 1 << 30, "g": 1 << 30, "tb": 1 << 40, "t": 1 << 40}


def byte_size(text: str) -> int:
    """An argparse ``type``: ``500MB``, ``8GB``, ``1048576`` (binary units).

    >>> byte_size("8GB"), byte_size("512mb"), byte_size("1000")
    (8589934592, 536870912, 1000)
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = _UNITS.get(match.group(2).lower()) if match else None
    if unit is None or float(match.group(1)) * unit < 1:
        raise argparse.ArgumentTypeError(f"expected a size such as 500MB or 8GB, got {text!r}")
    return int(float(match.group(1)) * unit)


def add_output(parser: argparse.ArgumentParser, extra: tuple[str, ...] = ()) -> None:
    parser.add_argument("--format", choices=FORMATS + extra, default=FORMATS[0],
                        help="output format" + (" (trec_eval: trec_eval's own text, for the "
                                                "first --ties policy, each run in turn)"
                                                if "trec_eval" in extra else ""))
    parser.add_argument("--digits", type=digits_value, default=4,
                        help="decimals shown (default 4), or 'full': each number's shortest "
                             "text that reads back as the same float64 (--format json always "
                             "writes that)")


def digits_value(text: str) -> int | str:
    """An argparse ``type``: ``--digits 6`` (decimals) or ``--digits full`` (each number's
    shortest round-trip text; ``--digits 17`` still means 17 decimals).

    >>> digits_value("6"), digits_value("full"), digits_value("FULL")
    (6, 'full', 'full')
    """
    if text.strip().casefold() == "full":
        return "full"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of decimals or 'full', got {text!r}") from None
