"""``tiedrank docs``: one query's tie groups with grade, score and document text."""
from __future__ import annotations

import argparse
import textwrap

from ._common import add_columns, add_rel_level


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``docs`` subcommand to ``subparsers`` (sets ``handler``, as tiedrank.cli)."""
    parser = subparsers.add_parser(
        "docs", help="print a query's tie groups with grades, scores and document text",
        description="Print one query's tie groups (documents sharing a score), each document "
        "with its grade, score and, given --corpus, its text.")
    parser.add_argument("qrels", help="qrels file")
    parser.add_argument("run", help="run file")
    parser.add_argument("--query", required=True, help="query id")
    parser.add_argument("--corpus", help="corpus: TSV docno<TAB>text, JSONL or Parquet (.gz ok)")
    parser.add_argument("--queries", help="query texts: qid<TAB>text")
    parser.add_argument("--depth", type=int, default=20, help="ranks shown (default 20)")
    add_rel_level(parser)
    add_columns(parser)
    parser.set_defaults(handler=_docs)


def _docs(args: argparse.Namespace) -> int:
    from ..io import group_documents, load_texts, read_qrels, read_query_text, read_run
    from ..core.ties import build_tie_table

    table = build_tie_table(read_run(args.run, columns=args.columns),
                            read_qrels(args.qrels, columns=args.qrels_columns),
                            rel_level=args.rel_level)
    try:
        table.query_slice(args.query)
    except KeyError:
        raise ValueError(f"query {args.query!r} is not in the qrels; "
                         "type a query id of the qrels after --query") from None
    title = read_query_text(args.queries).get(args.query, "") if args.queries else ""
    texts = load_texts(args.corpus, table, args.query, args.depth)
    groups = group_documents(table, args.query, texts, args.depth)
    print(f"query {args.query}" + (f": {title}" if title else ""))
    for (group, ranks), members in groups.groupby(["group", "ranks"], sort=False):
        size = int(members["group_size"].iloc[0])
        shown = "" if len(members) == size else f", {len(members)} shown"
        print(f"\ngroup {group}  ranks {ranks}  ({size} document{'s' if size != 1 else ''}"
              f"{shown}, score {members['score'].iloc[0]:g})")
        for row in members.itertuples():
            print(f"  {row.doc}  grade {row.grade}")
            if row.text:
                print(textwrap.fill(row.text, width=96, initial_indent="      ",
                                    subsequent_indent="      "))
    return 0
