"""``tiedrank docs``: one query's tie groups with grade, score and document text.

The table is built as ``evaluate`` builds it: the flags become one
:class:`~tiedrank.core.options.EvaluationOptions` and :func:`tiedrank.evaluation.
build_tables` reads the files and sorts the run, so ``--round``, ``-J``, ``--duplicates``,
``-l`` and the column mappings mean here what they mean there.
"""
from __future__ import annotations

import argparse
import sys
import textwrap

from ..core.options import EvaluationOptions
from .requests import DocsRequest
from ._common import (add_columns, add_duplicates, add_judged_only, add_rel_level, add_round,
                      evaluation_options)

DEFAULT_TOP = 20
"""Ranks shown when ``--top`` is not given."""
MAX_SHOWN_CHARS = 4_000
"""Most characters of one document's text printed (about 42 lines of 96); the rest is
named, not printed. Wrapping is then linear in what is printed (``textwrap`` was quadratic
in an unbroken word: 38 s for one 10 MB document)."""


EXAMPLES = """examples:
  (paths: a checkout's sample_data/; installed: $(tiedrank dashboard --sample-data-dir))
  tiedrank docs sample_data/llmjudge/qrels.test.txt sample_data/llmjudge/runs/Olz-gpt4o.txt \\
      --query q13 --queries sample_data/llmjudge/queries.tsv --top 10
  tiedrank docs sample_data/simulated/qrels.txt sample_data/simulated/runs/3-point.txt \\
      --query q001 --corpus sample_data/simulated/corpus.tsv.gz --top 5"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``docs`` subcommand to ``subparsers`` (sets ``handler``, as tiedrank.cli)."""
    parser = subparsers.add_parser(
        "docs", help="print a query's tie groups with grades, scores and document text",
        description="Print one query's tie groups (documents sharing a score), each document "
        "with its grade, score and, given --corpus, its text. The groups are those evaluate "
        "scores with the same --round, -J and --duplicates.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("qrels", help="qrels file")
    parser.add_argument("run", help="run file")
    parser.add_argument("--query", required=True, help="query id")
    parser.add_argument("--corpus", help="corpus: TSV docno<TAB>text, JSONL or Parquet (.gz ok)")
    parser.add_argument("--queries", help="query texts: qid<TAB>text")
    parser.add_argument("--top", type=int, default=None, metavar="N",
                        help=f"ranks shown (default {DEFAULT_TOP})")
    # --depth was the ranks shown; everywhere else it is trec_eval's -M: kept one release
    parser.add_argument("--depth", type=int, default=None, dest="shown_depth",
                        help=argparse.SUPPRESS)
    add_rel_level(parser)
    add_judged_only(parser)
    add_round(parser)
    add_duplicates(parser)
    add_columns(parser)
    parser.set_defaults(handler=_docs)


def _docs(args: argparse.Namespace) -> int:
    """The door: the flags, read once into an :class:`EvaluationOptions` and a
    :class:`DocsRequest`, handed to :func:`run`."""
    from ..core.validation import Interval, check

    top = args.top
    if args.shown_depth is not None:
        print("# note: docs --depth is deprecated (it goes in the next release): type --top "
              f"{args.shown_depth} for the ranks shown (--depth is trec_eval's -M in evaluate)",
              file=sys.stderr)
        top = args.shown_depth if top is None else top
    top = check("top", DEFAULT_TOP if top is None else top, [Interval(int, 1, None)])
    options = evaluation_options(vars(args))  # the flags as evaluate reads them, checked once
    return run(DocsRequest(qrels=args.qrels, run=args.run, query=args.query,
                           corpus=args.corpus, queries=args.queries, top=top), options)


def run(request: DocsRequest, options: EvaluationOptions) -> int:
    """Print the tie groups of ``request.query`` (its top ranks) under ``options``."""
    from ..evaluation import build_tables
    from ..io import group_documents, load_texts, read_query_text

    query, top = request.query, request.top
    table = next(iter(build_tables([request.run], request.qrels, options).values()))
    try:
        table.query_slice(query)
    except KeyError:
        raise ValueError(f"query {query!r} is not in the qrels; "
                         "type a query id of the qrels after --query") from None
    title = read_query_text(request.queries).get(query, "") if request.queries else ""
    texts = load_texts(request.corpus, table, query, top)
    groups = group_documents(table, query, texts, top)
    print(f"query {query}" + (f": {title}" if title else ""))
    for (group, ranks), members in groups.groupby(["group", "ranks"], sort=False):
        size = int(members["group_size"].iloc[0])
        shown = "" if len(members) == size else f", {len(members)} shown"
        print(f"\ngroup {group}  ranks {ranks}  ({size} document{'s' if size != 1 else ''}"
              f"{shown}, score {members['score'].iloc[0]:g})")
        for row in members.itertuples():
            print(f"  {row.doc}  grade {row.grade}")
            if row.text:
                print(_wrapped(row.text))
    return 0


def _wrapped(text: str) -> str:
    """The text wrapped at 96 columns, indented; past :data:`MAX_SHOWN_CHARS` cut, with a
    note of how much is left out."""
    rest = len(text) - MAX_SHOWN_CHARS
    shown = text[:MAX_SHOWN_CHARS] if rest > 0 else text
    out = textwrap.fill(shown, width=96, initial_indent="      ", subsequent_indent="      ")
    if rest > 0:
        out += f"\n      [... {rest:,} more characters of this document not shown]"
    return out
